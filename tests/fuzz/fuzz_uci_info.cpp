// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What a UCI engine writes (daemon/engine: the gap ranker's Stockfish), line by line: a score read is
// always within +-1000 centipawns, and nothing crashes whatever the engine (or a program in its place)
// writes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "daemon/engine/gap_engine_ranker.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    if (const auto v = eboard::engine::uci_info_score(line); v && (*v < -1000 || *v > 1000)) std::abort();
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return 0;
}
