// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_openings.hpp"

#include <utility>

#include "rules/pgn.hpp"

namespace eboard::rules {

tl::expected<OpeningLines, std::string> OpeningLines::from_pgn(std::string_view text) {
  OpeningLines out;
  PgnReader reader(text);
  while (auto game = reader.next()) {
    auto record = *game ? replay(**game) : tl::unexpected(game->error());
    if (!record || record->moves.empty()) {
      ++out.skipped_;
      continue;
    }
    Position p = record->start;
    for (const RecordedMove& m : record->moves) {
      p.do_move(m.move);
      out.keys_.insert(p.key());
    }
    ++out.lines_;
  }
  if (out.lines_ == 0)
    return tl::unexpected("no opening line in it (of " + std::to_string(out.skipped_) +
                          " games, none replays with moves)");
  return out;
}

namespace {
std::shared_ptr<const OpeningLines>& in_use() {
  static std::shared_ptr<const OpeningLines> lines;
  return lines;
}
}  // namespace

void use_opening_lines(std::shared_ptr<const OpeningLines> lines) { in_use() = std::move(lines); }

const OpeningLines* opening_lines_in_use() { return in_use().get(); }

}  // namespace eboard::rules
