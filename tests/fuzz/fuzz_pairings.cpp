// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Pairings file fuzzing (CSV and TRF-16). First byte: the round (1–16) for TRF; the rest: the file. A file
// either fails with an error naming a line (or the file) or gives pairings whose boards are unique and
// positive, and whose tags the daemon accepts (no control character, at most 256 bytes).
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "daemon/outputs/pairings.hpp"

using namespace eboard;

namespace {
void check(const tl::expected<std::vector<outputs::Pairing>, std::string>& p) {
  if (!p) {
    if (p.error().empty()) std::abort();
    return;
  }
  std::set<int> boards;
  for (const auto& pairing : *p) {
    if (pairing.board < 1 || !boards.insert(pairing.board).second || pairing.line < 1) std::abort();
    for (const auto& t : outputs::pairing_tags(pairing)) {
      if (t.value.size() > 256) std::abort();
      for (char c : t.value)
        if (static_cast<unsigned char>(c) < 0x20) std::abort();
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  int round = 1 + (data[0] & 15);
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  check(outputs::parse_pairings_csv(text));
  check(outputs::parse_trf(text, round));
  check(outputs::parse_pairings(text, round));
  return 0;
}
