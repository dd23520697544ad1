// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/match_recovery.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "daemon/journal/recovery.hpp"
#include "daemon/journal/replay_check.hpp"
#include "rules/notation.hpp"

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
  if (c.action == "recover") {  // completes the record: after the match too
    auto choice = control_recover_choice(c);
    if (!choice) return tl::unexpected(choice.error());
    return *choice ? m.settle_gap(b, **choice, c.t_ms) : m.settle_gap(b, c.value, c.t_ms);
  }
  if (m.result()) return tl::unexpected(std::string("the match is over"));
  if (c.action == "adopt") {
    auto s = control_optional_side(c);
    if (!s) return tl::unexpected(s.error());
    return m.adopt_board(b, c.t_ms, *s);
  }
  if (c.action == "resign") {
    auto s = side();
    if (!s) return tl::unexpected(s.error());
    return m.resign(b, *s, c.t_ms);
  }
  if (c.action == "draw") return m.agree_draw(c.t_ms);
  return tl::unexpected("control action \"" + c.action + "\" does not apply to a bughouse match board");
}

namespace {

// What a board's journal says was published for the current match: moves by ply, the board's result, the
// match result.
struct PublishedBoard {
  std::map<int, PublishedMove> moves;
  std::optional<Outcome> outcome;
  std::optional<MatchResultEvent> match_result;
};

PublishedBoard published_board(const JournalScan& scan) {
  PublishedBoard p;
  for (const FileRecord& rec : scan.records) {
    if (rec.type == 'N') p = {};  // a new match
    if (rec.type != 'E' || is_daemon_note(rec.body)) continue;
    auto e = read_published(rec.body);
    if (!e) continue;
    if (auto* m = std::get_if<PublishedMove>(&*e))
      p.moves[m->ply] = std::move(*m);
    else if (auto* res = std::get_if<PublishedResult>(&*e))
      p.outcome = res->outcome;
    else
      p.match_result = std::get<PublishedMatchResult>(*e).result;
  }
  return p;
}

// The current match as its two journals say it was published, each board's holes filled from the replay
// while the replay agrees with it: the moves of both boards played in the order they were completed, each
// capture handing its piece to the partner's reserve (a drop that came before its capture borrows it, as
// FQE 21b allows the record to show).
Match rebuild_published(const MatchConfig& mc, const std::array<const JournalScan*, 2>& scans,
                        const Match& replayed) {
  Match fresh(mc);
  std::array<Game, 2> games{fresh.board(0).game(), fresh.board(1).game()};
  std::array<PublishedBoard, 2> pub;
  for (int k = 0; k < 2; ++k)
    if (scans[std::size_t(k)]) pub[std::size_t(k)] = published_board(*scans[std::size_t(k)]);
  std::array<bool, 2> replay_agrees{true, true}, done{false, false};
  // Per board, colour and piece type: the places in completed_by of drops whose piece was not handed over
  // yet.
  std::array<std::array<std::array<std::vector<std::size_t>, PIECE_TYPE_NB>, 2>, 2> borrowed{};
  std::vector<int> completed_by;
  // The next move of board k, or none.
  auto next_of = [&](int k) -> std::optional<PublishedMove> {
    auto next = next_published(pub[std::size_t(k)].moves, replayed.board(k).game(),
                               games[std::size_t(k)].ply_count() + 1, replay_agrees[std::size_t(k)]);
    if (!next) return std::nullopt;
    return std::move(next->move);
  };
  for (;;) {
    std::array<std::optional<PublishedMove>, 2> cand;
    for (int k = 0; k < 2; ++k)
      if (!done[std::size_t(k)]) cand[std::size_t(k)] = next_of(k);
    int k = -1;
    for (int i = 0; i < 2; ++i)
      if (cand[std::size_t(i)] && (k < 0 || cand[std::size_t(i)]->t < cand[std::size_t(k)]->t)) k = i;
    if (k < 0) break;
    Game& g = games[std::size_t(k)];
    const PublishedMove& n = *cand[std::size_t(k)];
    auto mv = parse_uci(g.position(), n.uci);
    if (!mv && n.uci.size() > 1 && n.uci[1] == '@') {
      // A drop of a piece its capture had not handed over yet when the move was completed.
      const Color mover = g.position().side_to_move();
      const PieceType t = piece_type_from_char(n.uci[0]);
      if (t != NO_PIECE_TYPE) {
        g.add_to_pocket(mover, t, 1);
        mv = parse_uci(g.position(), n.uci);
        if (mv)
          borrowed[std::size_t(k)][mover][t].push_back(completed_by.size());
        else
          g.add_to_pocket(mover, t, -1);
      }
    }
    if (!mv) {
      done[std::size_t(k)] = true;  // a move that cannot be played here: the board's record stops before it
      continue;
    }
    const Position before = g.position();
    Square victim = mv->kind() == Move::EN_PASSANT
                        ? Square(before.side_to_move() == WHITE ? mv->to() - 8 : mv->to() + 8)
                        : (before.is_capture(*mv) ? mv->to() : SQ_NONE);
    g.play(*mv, n.clock, n.t);
    completed_by.push_back(k);
    if (victim != SQ_NONE) {
      const Color c = color_of(before.piece_on(victim));
      const PieceType t = before.captured_hand_type(victim);
      auto& owed = borrowed[std::size_t(k ^ 1)][c][t];
      if (owed.empty()) {
        games[std::size_t(k ^ 1)].add_to_pocket(c, t, 1);
      } else {
        // The record shows the capture before the drop it supplied (as the live match does), but not
        // before an earlier move of its own board.
        std::size_t to = owed.front();
        owed.erase(owed.begin());
        for (std::size_t j = completed_by.size() - 1; j-- > to;)
          if (completed_by[j] == k) {
            to = j + 1;
            break;
          }
        completed_by.pop_back();
        completed_by.insert(completed_by.begin() + std::ptrdiff_t(to), k);
        for (auto& per_colour : borrowed)
          for (auto& per_type : per_colour)
            for (auto& places : per_type)
              for (std::size_t& p : places)
                if (p >= to) ++p;
      }
    }
  }
  std::optional<MatchResultEvent> result;
  for (int k = 0; k < 2; ++k) {
    if (pub[std::size_t(k)].outcome) games[std::size_t(k)].set_outcome(*pub[std::size_t(k)].outcome);
    if (pub[std::size_t(k)].match_result) result = pub[std::size_t(k)].match_result;
  }
  if (!result) result = replayed.result();
  return Match(mc, std::move(games[0]), std::move(games[1]), completed_by, result);
}

}  // namespace

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
        if (in_match && !is_daemon_note(rec.body)) journaled[std::size_t(i)].push_back(rec.body);
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

  std::array<ReplayCheck, 2> checks{ReplayCheck(10), ReplayCheck(10)};
  MatchConfig current_cfg = cfg;
  std::int64_t match_seq = -1;  // the sequence number of the current match's new-game records
  auto board_of = [&cfg](const std::string& id) { return id == cfg.board_ids[1] ? 1 : 0; };
  auto take = [&](std::vector<Event>&& evs, std::int64_t t) {
    for (auto& e : evs) {
      int k = board_of(e.board);
      r.ledgers[std::size_t(k)].on_event(e);
      checks[std::size_t(k)].derived(std::move(e));
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
            current_cfg = mc;
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
  // Each board's journaled events in order against what the replay derived for it.
  for (int k = 0; k < 2; ++k) {
    ReplayCheck& check = checks[std::size_t(k)];
    for (const std::string& line : journaled[std::size_t(k)]) check.journaled(line);
    r.journaled_events += check.journaled_events();
    r.matched_events += check.matched_events();
    r.mismatched_events += check.mismatched_events();
    for (const std::string& p : check.problems())
      if (r.problems.size() < 10) r.problems.push_back("board " + cfg.board_ids[std::size_t(k)] + ": " + p);
  }
  r.damaged = (a && !a->damaged.empty()) || (b && !b->damaged.empty());
  const bool trusted = r.exact() && !r.damaged;
  for (int k = 0; k < 2; ++k) r.unjournaled[std::size_t(k)] = checks[std::size_t(k)].unjournaled(trusted);
  if (r.match && !trusted) {
    // The replay is not the story the journals tell (a damaged record changed it): both boards continue as
    // published.
    r.match.emplace(rebuild_published(current_cfg, scans, *r.match));
    r.continue_from_published = true;
  }
  return r;
}

}  // namespace eboard::journal
