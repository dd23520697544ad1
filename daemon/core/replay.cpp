// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/core/replay.hpp"

#include <algorithm>
#include <array>

#include "daemon/boards/dgt_board.hpp"

namespace eboard::daemon {

using namespace eboard::rules;

tl::expected<ReplayResult, std::string> replay_capture(const drivers::Capture& capture,
                                                       ReconstructConfig cfg) {
  if (capture.info.protocol != "dgt")
    return tl::unexpected("protocol '" + capture.info.protocol + "' is not supported yet (only dgt)");
  if (!capture.info.board.empty()) cfg.board_id = capture.info.board;
  std::int64_t settle = cfg.settle_ms;
  DgtBoard board;
  Reconstructor rec(std::move(cfg));
  std::vector<Event> events;
  auto append = [&events](std::vector<Event>&& more) {
    events.insert(events.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  std::int64_t last_t = 0;
  for (const auto& record : capture.records) {
    last_t = record.t_ms;
    append(rec.advance(record.t_ms));
    if (record.direction != drivers::Direction::FromBoard) continue;  // what we sent tells nothing new
    for (const SensorEvent& s : board.feed(record.t_ms, record.bytes)) append(rec.on_sensor(s));
  }
  // Let the last movement settle, as a running daemon would a moment later.
  append(rec.advance(last_t + settle));
  return ReplayResult{std::move(events), rec.game()};
}

tl::expected<MatchReplayResult, std::string> replay_match(const drivers::Capture& a,
                                                          const drivers::Capture& b, MatchConfig cfg) {
  const std::array<const drivers::Capture*, 2> captures{&a, &b};
  for (std::size_t i = 0; i < 2; ++i) {
    if (captures[i]->info.protocol != "dgt")
      return tl::unexpected("board " + cfg.board_ids[i] + ": protocol '" + captures[i]->info.protocol +
                            "' is not supported yet (only dgt)");
    if (!captures[i]->info.board.empty()) cfg.board_ids[i] = captures[i]->info.board;
  }
  if (cfg.board_ids[0] == cfg.board_ids[1])
    return tl::unexpected("both captures are board '" + cfg.board_ids[0] + "'");
  if (cfg.tags.empty())
    cfg.tags = {{"Event", "eboardd"}, {"Site", "?"},   {"Date", "????.??.??"}, {"WhiteA", "?"},
                {"BlackA", "?"},      {"WhiteB", "?"}, {"BlackB", "?"}};
  std::int64_t settle = cfg.board.settle_ms;
  Match match(cfg);
  std::array<DgtBoard, 2> boards;
  std::vector<Event> events;
  auto append = [&events](std::vector<Event>&& more) {
    events.insert(events.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  // Both captures' records in time order (board A first at equal times).
  std::array<std::size_t, 2> next{0, 0};
  std::int64_t last_t = 0;
  for (;;) {
    int which = -1;
    for (int i = 0; i < 2; ++i) {
      const auto& recs = captures[std::size_t(i)]->records;
      if (next[std::size_t(i)] >= recs.size()) continue;
      if (which < 0 || recs[next[std::size_t(i)]].t_ms <
                           captures[std::size_t(which)]->records[next[std::size_t(which)]].t_ms)
        which = i;
    }
    if (which < 0) break;
    const auto& record = captures[std::size_t(which)]->records[next[std::size_t(which)]++];
    last_t = std::max(last_t, record.t_ms);
    append(match.advance(record.t_ms));
    if (record.direction != drivers::Direction::FromBoard) continue;
    for (const SensorEvent& s : boards[std::size_t(which)].feed(record.t_ms, record.bytes))
      append(match.on_sensor(which, s));
  }
  append(match.advance(last_t + settle));
  // The boards' events interleave in time; a move is stamped with its press, which may be read a scan
  // before the other board's events that came out first.
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& x, const Event& y) { return x.t_ms < y.t_ms; });
  BughouseRecord record = match.record();
  if (match.result()) {
    record.tags.push_back({"Termination", match.result()->reason});
    for (auto& t : record.tags)
      if (t.name == "Result") t.value = record.result;
  }
  return MatchReplayResult{std::move(events), std::move(record)};
}

GameRecord game_record(const Game& game, const std::string& board_id) {
  GameRecord r;
  r.tags = {{"Event", "eboardd"}, {"Site", "?"},  {"Date", "????.??.??"}, {"Round", "?"},
            {"White", "?"},       {"Black", "?"}, {"Result", "*"},        {"Board", board_id}};
  rules::set_record_moves(r, game);  // after an illegal move that stood (A.4.2): a SetUp/FEN record
  if (const auto& o = game.outcome()) {
    r.result = result_string(o->result);
    r.tags.push_back({"Termination", o->reason});
  }
  for (auto& t : r.tags)
    if (t.name == "Result") t.value = r.result;
  return r;
}

}  // namespace eboard::daemon
