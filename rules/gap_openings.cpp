// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_openings.hpp"

#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

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
// Every book set is kept (a daemon sets one; tests a few), so that a pointer handed out stays valid while
// another start sets the next; the one in use is read without a lock from any thread.
std::mutex kept_mutex;
std::vector<std::shared_ptr<const OpeningLines>>& kept() {
  static std::vector<std::shared_ptr<const OpeningLines>> books;
  return books;
}
std::atomic<const OpeningLines*> in_use{nullptr};
}  // namespace

void use_opening_lines(std::shared_ptr<const OpeningLines> lines) {
  const std::lock_guard<std::mutex> lock(kept_mutex);
  in_use.store(lines.get(), std::memory_order_release);
  if (lines) kept().push_back(std::move(lines));
}

const OpeningLines* opening_lines_in_use() { return in_use.load(std::memory_order_acquire); }

}  // namespace eboard::rules
