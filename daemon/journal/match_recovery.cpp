// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/match_recovery.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "daemon/journal/recovery.hpp"
#include "daemon/journal/replay_check.hpp"
#include "daemon/journal/replay_loop.hpp"
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
  if (c.action == "result") {  // the arbiter's result decides the match, or corrects its result
    auto o = control_outcome(c);
    if (!o) return tl::unexpected(o.error());
    return m.arbiter_result(b, *o, c.t_ms);
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

// The current match as its two journals say it was published, each board's holes filled from the replay
// while the replay agrees with it: the moves of both boards played in the order they were completed, each
// capture handing its piece to the partner's reserve (a drop that came before its capture borrows it, as
// FQE 21b allows the record to show).
Match rebuild_published(const MatchConfig& mc, const std::array<const PublishedGame*, 2>& pub,
                        const Match& replayed) {
  Match fresh(mc);
  std::array<Game, 2> games{fresh.board(0).game(), fresh.board(1).game()};
  std::array<bool, 2> replay_agrees{true, true}, done{false, false};
  // Per board, colour and piece type: the places in completed_by of drops whose piece was not handed over
  // yet.
  std::array<std::array<std::array<std::vector<std::size_t>, PIECE_TYPE_NB>, 2>, 2> borrowed{};
  std::vector<int> completed_by;
  // The next move of board k, or none.
  auto next_of = [&](int k) -> std::optional<PublishedMove> {
    auto next = next_published(pub[std::size_t(k)]->moves(), replayed.board(k).game(),
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
    if (pub[std::size_t(k)]->outcome()) games[std::size_t(k)].set_outcome(*pub[std::size_t(k)]->outcome());
    if (pub[std::size_t(k)]->match_result()) result = pub[std::size_t(k)]->match_result();
  }
  // Both journals told one (an arbiter's correction given on the other board): the replay, which ran the
  // inputs in their order, says which came last when it agrees with one of them.
  const auto& r = replayed.result();
  const auto same = [&r](const std::optional<MatchResultEvent>& p) {
    return r && p && p->result == r->result && p->reason == r->reason;
  };
  if (pub[0]->match_result() && pub[1]->match_result() &&
      (same(pub[0]->match_result()) || same(pub[1]->match_result())))
    result = r;
  if (!result) result = r;
  return Match(mc, std::move(games[0]), std::move(games[1]), completed_by, result);
}

// A bughouse match as the replay's target: it begins at the first new-game record of a match (both
// boards journal one with the same sequence number), and inputs before it are not the match's.
class MatchTarget final : public ReplayTarget {
 public:
  MatchTarget(const MatchConfig& cfg, MatchRecovery& r) : cfg_(cfg), current_cfg_(cfg), r_(r) {}
  tl::expected<bool, std::string> new_game(int, const NewGameEntry& g, std::int64_t seq) override {
    if (seq == match_seq_) return false;  // the other board's record of the same new match
    match_seq_ = seq;
    current_cfg_ = cfg_;
    if (profile_by_name(g.profile)) current_cfg_.board = bughouse_board_config(g.profile.c_str());
    current_cfg_.board.hold_uncounted_gaps = g.hold_uncounted;  // as the match began
    r_.match.emplace(current_cfg_);
    r_.started_ms = g.t_ms;
    r_.inputs_since_start = 0;
    return true;
  }
  std::vector<Event> sensor(int board, const SensorEvent& e) override {
    if (!r_.match) return {};
    ++r_.inputs;
    ++r_.inputs_since_start;
    return r_.match->on_sensor(board, e);
  }
  std::vector<Event> advance(std::int64_t now_ms) override {
    return r_.match ? r_.match->advance(now_ms) : std::vector<Event>{};
  }
  tl::expected<std::vector<Event>, std::string> control(int board, const ControlEntry& c) override {
    if (!r_.match) return std::vector<Event>{};
    if (c.action == "promotion") ++r_.inputs_since_start;
    return apply_match_control(*r_.match, board, c);
  }
  const Game* game(int board) const override { return r_.match ? &r_.match->board(board).game() : nullptr; }
  int board_of(const Event& e) const override { return e.board == cfg_.board_ids[1] ? 1 : 0; }
  // The settings of the current match (its new-game record can name another profile).
  const MatchConfig& current_config() const { return current_cfg_; }

 private:
  const MatchConfig& cfg_;
  MatchConfig current_cfg_;
  MatchRecovery& r_;
  std::int64_t match_seq_ = -1;  // the sequence number of the current match's new-game records
};

}  // namespace

MatchRecovery recover_match(const JournalScan* a, const JournalScan* b, const MatchConfig& cfg) {
  MatchRecovery r;
  MatchTarget target(cfg, r);
  ReplayLoop loop(target, {"board " + cfg.board_ids[0], "board " + cfg.board_ids[1]}, 10);
  struct Input {
    std::int64_t seq;
    int board;
    std::size_t index;
  };
  std::vector<Input> inputs;
  std::array<std::size_t, 2> first_input{};  // per board: where its match inputs begin
  std::array<const JournalScan*, 2> scans{a, b};
  for (int i = 0; i < 2; ++i) {
    if (!scans[std::size_t(i)]) continue;
    const auto& recs = scans[std::size_t(i)]->records;
    bool in_match = false;  // what the board journaled before its first match input is not the match's
    first_input[std::size_t(i)] = recs.size();
    for (std::size_t k = 0; k < recs.size(); ++k) {
      const FileRecord& rec = recs[k];
      if (rec.type == 'E') continue;  // compared after the replay, below
      if (rec.type == 'H') {
        loop.input(i, rec);
        continue;
      }
      if (rec.type == 'T') {  // tags: in the order of the board's own inputs
        if (in_match) inputs.push_back({-1, i, k});
        continue;
      }
      std::int64_t seq = record_seq(rec);
      if (seq < 0) continue;  // not a match input (the board played alone before, or a duplicate)
      if (!in_match) first_input[std::size_t(i)] = k;
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
  for (const Input& in : inputs) {
    r.next_seq = std::max(r.next_seq, in.seq + 1);
    loop.input(in.board, scans[std::size_t(in.board)]->records[in.index], in.seq);
  }
  // Each board's journaled events in order against what the replay derived for it. They come after the
  // whole replay: an input of one board can derive an event of the other, which that board's journal
  // holds after its own earlier inputs.
  for (int k = 0; k < 2; ++k) {
    if (!scans[std::size_t(k)]) continue;
    const auto& recs = scans[std::size_t(k)]->records;
    for (std::size_t i = first_input[std::size_t(k)]; i < recs.size(); ++i) {
      if (recs[i].type == 'N') loop.published_restart(k);  // a new match
      if (recs[i].type == 'E' && !is_daemon_note(recs[i].body)) loop.journaled(k, recs[i].body);
    }
  }
  r.damaged = (a && !a->damaged.empty()) || (b && !b->damaged.empty());
  r.last_t = loop.last_t();
  r.problems = loop.bad_records();
  ReplayLoop::Summary s = loop.finish(r.damaged);
  r.journaled_events = s.journaled_events;
  r.matched_events = s.matched_events;
  r.mismatched_events = s.mismatched_events;
  for (std::string& p : s.problems)
    if (r.problems.size() < 10) r.problems.push_back(std::move(p));
  for (int k = 0; k < 2; ++k) {
    r.ledgers[std::size_t(k)] = std::move(loop.ledger(k));
    r.unjournaled[std::size_t(k)] = std::move(loop.unjournaled(k));
  }
  if (r.match && !s.trusted) {
    // The replay is not the story the journals tell (a damaged record changed it): both boards continue as
    // published.
    r.match.emplace(
        rebuild_published(target.current_config(), {&loop.published(0), &loop.published(1)}, *r.match));
    r.continue_from_published = true;
  }
  return r;
}

}  // namespace eboard::journal
