// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/match_recovery.hpp"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "daemon/core/event_json.hpp"

namespace eboard::journal {

using namespace eboard::rules;

std::int64_t record_seq(const FileRecord& r) {
  if (r.body.empty() || r.body.front() != '{' || r.body.find("\"seq\"") == std::string::npos) return -1;
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("seq") || !j["seq"].is_number_integer()) return -1;
  return j["seq"].get<std::int64_t>();
}

tl::expected<std::vector<Event>, std::string> apply_match_control(Match& m, int b, const ControlEntry& c) {
  auto side = [&] { return control_side(c); };
  if (c.action == "promotion") {
    auto s = side();
    if (!s) return tl::unexpected(s.error());
    auto piece = control_promotion_piece(c);
    if (!piece) return tl::unexpected(piece.error());
    m.set_promotion_piece(b, *s, *piece);
    return std::vector<Event>{};
  }
  if (m.result()) return tl::unexpected(std::string("the match is over"));
  if (c.action == "resign") {
    auto s = side();
    if (!s) return tl::unexpected(s.error());
    return m.resign(b, *s, c.t_ms);
  }
  if (c.action == "draw") return m.agree_draw(c.t_ms);
  return tl::unexpected("control action \"" + c.action + "\" does not apply to a bughouse match board");
}

MatchRecovery recover_match(const JournalScan* a, const JournalScan* b, const MatchConfig& cfg) {
  MatchRecovery r;
  struct Input {
    std::int64_t seq;
    int board;
    std::size_t index;
  };
  std::vector<Input> inputs;
  std::array<std::vector<std::string>, 2> journaled;  // E records per board
  std::array<const JournalScan*, 2> scans{a, b};
  for (int i = 0; i < 2; ++i) {
    if (!scans[std::size_t(i)]) continue;
    const auto& recs = scans[std::size_t(i)]->records;
    bool in_match = false;  // what the board journaled before its first match input is not the match's
    for (std::size_t k = 0; k < recs.size(); ++k) {
      const FileRecord& rec = recs[k];
      if (rec.type == 'E') {
        if (in_match) journaled[std::size_t(i)].push_back(rec.body);
        continue;
      }
      if (rec.type == 'H') {  // a rotated file goes on from the games kept before it
        if (auto h = decode_entry(rec.type, rec.body); h && std::get<HeaderEntry>(*h).previous_game > 0) {
          const HeaderEntry& header = std::get<HeaderEntry>(*h);
          r.ledgers[std::size_t(i)].continue_after(header.previous_game, header.tags);
          r.last_t = std::max(r.last_t, header.created_ms);
        }
        continue;
      }
      if (rec.type == 'T') {  // tags: in the order of the board's own inputs
        if (in_match) inputs.push_back({-1, i, k});
        continue;
      }
      std::int64_t seq = record_seq(rec);
      if (seq < 0) continue;  // not a match input (the board played alone before, or a duplicate)
      in_match = true;
      inputs.push_back({seq, i, k});
    }
  }
  // Tags records take the sequence number of the board's input before them.
  for (int i = 0; i < 2; ++i) {
    std::int64_t prev = -1;
    for (auto& in : inputs)
      if (in.board == i) {
        if (in.seq < 0)
          in.seq = prev;
        else
          prev = in.seq;
      }
  }
  std::stable_sort(inputs.begin(), inputs.end(), [&](const Input& x, const Input& y) {
    return std::tie(x.seq, x.board, x.index) < std::tie(y.seq, y.board, y.index);
  });

  std::array<std::vector<Event>, 2> derived;
  std::int64_t match_seq = -1;  // the sequence number of the current match's new-game records
  auto board_of = [&cfg](const std::string& id) { return id == cfg.board_ids[1] ? 1 : 0; };
  auto take = [&](std::vector<Event>&& evs, std::int64_t t) {
    for (auto& e : evs) {
      int k = board_of(e.board);
      r.ledgers[std::size_t(k)].on_event(e);
      derived[std::size_t(k)].push_back(std::move(e));
    }
    if (r.match)
      for (int k = 0; k < 2; ++k) (void)r.ledgers[std::size_t(k)].observe(r.match->board(k).game(), t);
  };
  for (const Input& in : inputs) {
    const FileRecord& rec = scans[std::size_t(in.board)]->records[in.index];
    auto entry = decode_entry(rec.type, rec.body);
    if (!entry) {
      if (r.problems.size() < 10)
        r.problems.push_back("board " + cfg.board_ids[std::size_t(in.board)] + ": record at byte " +
                             std::to_string(rec.offset) + ": " + entry.error());
      continue;
    }
    r.next_seq = std::max(r.next_seq, in.seq + 1);
    std::visit(
        [&](auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, NewGameEntry>) {
            r.last_t = std::max(r.last_t, v.t_ms);
            if (in.seq == match_seq) return;  // the other board's record of the same new match
            match_seq = in.seq;
            MatchConfig mc = cfg;
            if (profile_by_name(v.profile)) mc.board = bughouse_board_config(v.profile.c_str());
            r.match.emplace(mc);
            r.started_ms = v.t_ms;
            r.inputs_since_start = 0;
            for (int k = 0; k < 2; ++k)
              r.ledgers[std::size_t(k)].on_new_game(v.t_ms, r.match->board(k).game());
          } else if constexpr (std::is_same_v<T, SensorEvent>) {
            if (!r.match) return;
            ++r.inputs;
            ++r.inputs_since_start;
            r.last_t = std::max(r.last_t, v.t_ms);
            take(r.match->on_sensor(in.board, v), v.t_ms);
          } else if constexpr (std::is_same_v<T, AdvanceEntry>) {
            if (!r.match) return;
            r.last_t = std::max(r.last_t, v.t_ms);
            take(r.match->advance(v.t_ms), v.t_ms);
          } else if constexpr (std::is_same_v<T, ControlEntry>) {
            if (!r.match) return;
            r.last_t = std::max(r.last_t, v.t_ms);
            if (v.action == "promotion") ++r.inputs_since_start;
            if (auto evs = apply_match_control(*r.match, in.board, v)) take(std::move(*evs), v.t_ms);
          } else if constexpr (std::is_same_v<T, TagsEntry>) {
            r.ledgers[std::size_t(in.board)].set_tags(v);
          }
        },
        *entry);
  }
  for (int k = 0; k < 2; ++k) {
    const auto& want = journaled[std::size_t(k)];
    auto& got = derived[std::size_t(k)];
    r.journaled_events += want.size();
    std::size_t n = std::min(want.size(), got.size());
    for (std::size_t i = 0; i < n; ++i) {
      std::string line = daemon::to_json_line(got[i]);
      if (line == want[i]) {
        ++r.matched_events;
      } else {
        ++r.mismatched_events;
        if (r.problems.size() < 10)
          r.problems.push_back("journaled " + want[i] + " but replay derived " + line);
      }
    }
    if (want.size() > got.size()) {
      r.mismatched_events += want.size() - got.size();
      if (r.problems.size() < 10)
        r.problems.push_back(std::to_string(want.size() - got.size()) + " journaled events of board " +
                             cfg.board_ids[std::size_t(k)] + " not derived");
    }
    if (got.size() > want.size())
      r.unjournaled[std::size_t(k)].assign(std::make_move_iterator(got.begin() + std::ptrdiff_t(want.size())),
                                           std::make_move_iterator(got.end()));
  }
  return r;
}

}  // namespace eboard::journal
