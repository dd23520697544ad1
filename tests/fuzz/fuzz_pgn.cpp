// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// PGN and BPGN reader fuzzing. First byte: PGN (even) or BPGN (odd); the rest: the text. Every game that
// reads and replays must write and read back to the same moves; a PGN text read as opening lines
// (rules/gap_openings.hpp) counts each game once, as a line or skipped.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rules/gap_openings.hpp"
#include "rules/pgn.hpp"

using namespace eboard::rules;

namespace {

void check_openings(std::string_view text) {
  std::size_t games = 0;
  PgnReader count(text);
  while (count.next() && games < 10000) ++games;
  auto lines = OpeningLines::from_pgn(text);
  if (lines && (lines->lines() == 0 || lines->lines() + lines->skipped() != games || lines->positions() == 0))
    std::abort();
}

void check_pgn(std::string_view text) {
  check_openings(text);
  PgnReader reader(text);
  for (int guard = 0; guard < 10000; ++guard) {
    auto game = reader.next();
    if (!game) return;
    if (!*game) continue;
    auto record = replay(**game);
    if (!record) continue;
    auto written = write_pgn(*record);
    if (!written) std::abort();
    auto reread = read_pgn(*written);
    if (!reread || reread->size() != 1) std::abort();
    auto again = replay(reread->front());
    if (!again || again->moves.size() != record->moves.size()) std::abort();
    for (std::size_t i = 0; i < record->moves.size(); ++i)
      if (again->moves[i].move != record->moves[i].move ||
          again->moves[i].clock_ms != record->moves[i].clock_ms)
        std::abort();
  }
  std::abort();  // the reader must make progress: 10000 games from a fuzz input is a loop
}

void check_bpgn(std::string_view text) {
  BpgnReader reader(text);
  for (int guard = 0; guard < 10000; ++guard) {
    auto game = reader.next();
    if (!game) return;
    if (!*game) continue;
    auto record = replay_bughouse(**game);
    if (!record) continue;
    auto written = write_bpgn(*record);
    if (!written) std::abort();
    auto reread = read_bpgn(*written);
    if (!reread || reread->size() != 1) std::abort();
    auto again = replay_bughouse(reread->front());
    if (!again || again->moves.size() != record->moves.size()) std::abort();
    for (std::size_t i = 0; i < record->moves.size(); ++i)
      if (again->moves[i].move != record->moves[i].move || again->moves[i].board != record->moves[i].board)
        std::abort();
  }
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1)
    check_bpgn(text);
  else
    check_pgn(text);
  return 0;
}
