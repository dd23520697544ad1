// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gaps that daemon_gap_hall_test (issue 30) saw come out wrong, each as the daemon's own capture of the board
// (exported from its journal, GET /boards/<id>/capture.cap), replayed through the reconstruction as
// `eboardctl replay` does. Each test states what a right answer is; the cause was the reconstruction's
// (rules/reconstruct*, rules/gap_*), and each guards its fix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/session/replay.hpp"
#include "drivers/capture.hpp"
#include "rules/events.hpp"
#include "rules/notation.hpp"
#include "rules/position.hpp"

namespace eboard {
namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string without_check(std::string san) {
  while (!san.empty() && (san.back() == '+' || san.back() == '#')) san.pop_back();
  return san;
}

std::string field(const rules::AlertEvent& a, const std::string& name) {
  for (const auto& f : a.extra)
    if (f.name == name) return f.value;
  return {};
}

// The capture as a loaded daemon reads it: every record in the first `stall` ms after each reconnect read
// in one burst at the window's end, stamped alike.
drivers::Capture read_late(drivers::Capture cap, std::int64_t stall) {
  std::optional<std::int64_t> window_end;
  std::int64_t window_begin = 0;
  for (auto& rec : cap.records) {
    if (rec.link == true) {
      window_begin = rec.t_ms;
      window_end = rec.t_ms + stall;
    } else if (window_end && rec.t_ms > window_begin && rec.t_ms <= *window_end) {
      rec.t_ms = *window_end;
    }
  }
  return cap;
}

// What the replay of a hall capture told, every move checked at its ply against `played` (the corpus game's
// first plies, what the simulated hands played) and every alert but moves-missed a failure.
struct Told {
  int gaps = 0;           // moves-missed alerts
  bool gap_told = false;  // a moves-missed alert, or a recovered move within [first, last]
  int last_ply = 0;       // the last move's ply
  std::vector<rules::AlertEvent> missed;
  std::optional<std::string> gap_refused;  // with `gap_moves`: the arbiter's answer (session::ReplayResult)
};

// `gap_moves`: the arbiter's moves for the first gap that waits, given as soon as it is told.
Told replay_hall_capture(const std::string& name, const std::string& played_text, int first, int last,
                         rules::ReconstructConfig cfg = {}, std::int64_t late_ms = 0,
                         const std::optional<std::string>& gap_moves = {}) {
  Told told;
  auto cap = drivers::read_capture_file(std::string(EBOARD_TEST_DATA) + "/gap_hall/" + name);
  if (!cap) {
    ADD_FAILURE() << cap.error();
    return told;
  }
  auto r = session::replay_capture(late_ms > 0 ? read_late(*cap, late_ms) : *cap, cfg, gap_moves);
  if (!r) {
    ADD_FAILURE() << r.error();
    return told;
  }
  told.gap_refused = r->gap_refused;
  const auto played = words(played_text);
  for (const auto& e : r->events) {
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) {
      if (m->ply < 1 || m->ply > static_cast<int>(played.size())) {
        ADD_FAILURE() << m->san << " at ply " << m->ply << ", outside the game's " << played.size()
                      << " plies";
        continue;
      }
      EXPECT_EQ(without_check(m->san), played[m->ply - 1]) << "at ply " << m->ply;
      told.gap_told |= m->recovered && m->ply >= first && m->ply <= last;
      told.last_ply = std::max(told.last_ply, m->ply);
    } else if (const auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
      EXPECT_EQ(a->code, "moves-missed") << a->detail;
      if (a->code != "moves-missed") continue;
      ++told.gaps;
      told.gap_told = true;
      told.missed.push_back(*a);
    }
  }
  return told;
}

// The moves-missed alerts the capture `name` (tests/data/gap_hall/) tells, replayed as chess.
std::vector<rules::AlertEvent> missed_alerts(const std::string& name) {
  std::vector<rules::AlertEvent> missed;
  auto cap = drivers::read_capture_file(std::string(EBOARD_TEST_DATA) + "/gap_hall/" + name);
  if (!cap) {
    ADD_FAILURE() << cap.error();
    return missed;
  }
  auto r = session::replay_capture(*cap, {});
  if (!r) {
    ADD_FAILURE() << r.error();
    return missed;
  }
  for (const auto& e : r->events)
    if (const auto* a = std::get_if<rules::AlertEvent>(&e.what); a && a->code == "moves-missed")
      missed.push_back(*a);
  return missed;
}

// The gap told once at most: as recovered moves, or one moves-missed from ply `first` whose last ply is one
// of `lasts` (any, when none is given).
void expect_one_gap(const Told& t, int first, const std::vector<std::string>& lasts = {}) {
  EXPECT_TRUE(t.gap_told) << "the gap from ply " << first << " neither recovered nor told as moves-missed";
  EXPECT_LE(t.gaps, 1);
  for (const auto& a : t.missed) {
    EXPECT_EQ(field(a, "first_ply"), std::to_string(first));
    if (!lasts.empty()) {
      EXPECT_NE(std::find(lasts.begin(), lasts.end(), field(a, "last_ply")), lasts.end())
          << field(a, "last_ply");
    }
  }
}

// One moves-missed told, the moves played (UCI, as the alert lists them: ["e2e4","e7e5"]) among its listed
// candidates.
void expect_one_missed_listing(const Told& t, const std::string& played_uci) {
  ASSERT_EQ(t.missed.size(), 1u);
  EXPECT_NE(field(t.missed.front(), "candidates").find(played_uci), std::string::npos)
      << "the moves played are not among the candidates listed";
}

// The capture `name` replayed (`played`, the game's moves as in replay_hall_capture): its gap told as one
// moves-missed of plies `first` to `last` listing `played_uci` (the gap's moves played), every move at its
// ply up to `last_ply`.
void expect_hall_gap_listed(const std::string& name, const std::string& played, int first, int last,
                            const std::string& played_uci, int last_ply, rules::ReconstructConfig cfg = {},
                            std::int64_t late_ms = 0) {
  const Told t = replay_hall_capture(name, played, first, last, cfg, late_ms);
  expect_one_gap(t, first, {std::to_string(last)});
  expect_one_missed_listing(t, played_uci);
  EXPECT_EQ(t.last_ply, last_ply);
}

// The capture `name` replayed (`played` as in replay_hall_capture): its gap told once from ply `first` (one
// moves-missed ending at `last`, or recovered moves), every move at its ply up to `last_ply`.
Told expect_hall_gap_told(const std::string& name, const std::string& played, int first, int last,
                          int last_ply, rules::ReconstructConfig cfg = {}) {
  Told t = replay_hall_capture(name, played, first, last, cfg);
  expect_one_gap(t, first, {std::to_string(last)});
  EXPECT_EQ(t.last_ply, last_ply);
  return t;
}

// The capture `name` replayed (`played` as in replay_hall_capture): its gap, plies `first` to `last`,
// recovered as one story (no moves-missed list), every move at its ply up to `last_ply`.
void expect_hall_gap_recovered(const std::string& name, const std::string& played, int first, int last,
                               int last_ply) {
  const Told t = replay_hall_capture(name, played, first, last);
  expect_one_gap(t, first);
  EXPECT_EQ(t.gaps, 0) << "one story: recovered, no list";
  EXPECT_EQ(t.last_ply, last_ply);
}

// The capture `name` replayed: one alert, a moves-missed past the search's bound from ply `first`, the game
// going on from the position after `played` (the game's moves up to the board read), no move published
// from `first` on (held until the arbiter gives the gap's moves).
// `told`: how many times (the gap told again from a board found wrong: "retold", the last told right).
void expect_past_bound_told(const std::string& name, const std::string& played, int first,
                            std::size_t told_times = 1) {
  auto cap = drivers::read_capture_file(std::string(EBOARD_TEST_DATA) + "/gap_hall/" + name);
  ASSERT_TRUE(cap) << cap.error();
  auto r = session::replay_capture(*cap, {});
  ASSERT_TRUE(r) << r.error();
  rules::Position after_gap = rules::Position::start(rules::Variant::Chess);
  for (const auto& san : words(played)) {
    auto m = rules::parse_san(after_gap, san);
    ASSERT_TRUE(m) << san;
    after_gap.do_move(*m);
  }
  const std::string shown = words(after_gap.fen())[0] + " " + words(after_gap.fen())[1];
  std::vector<rules::AlertEvent> alerts;
  for (const auto& e : r->events) {
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what)) {
      EXPECT_LT(m->ply, first) << m->san << " published while the gap holds the moves";
    }
    if (const auto* a = std::get_if<rules::AlertEvent>(&e.what)) alerts.push_back(*a);
  }
  std::string told;
  for (const auto& a : alerts) told += a.code + " at ply " + std::to_string(a.ply) + "; ";
  ASSERT_EQ(alerts.size(), told_times) << told;
  for (const auto& a : alerts) {
    EXPECT_EQ(a.code, "moves-missed");
    EXPECT_EQ(field(a, "first_ply"), std::to_string(first));
    EXPECT_EQ(field(a, "past_bound"), "true");
    EXPECT_EQ(field(a, "retold"), &a == &alerts.front() ? "" : "true");
  }
  EXPECT_EQ(field(alerts.back(), "fen").substr(0, shown.size()), shown);
}

// The capture `name` replayed again, the arbiter giving the gap's moves as played (`game`'s plies `first` to
// `gap_end`) as soon as it is told: accepted, and every move published after at its ply in `game` (the game's
// moves, the gap's and on), up to `last_ply`, no alert but moves-missed.
void expect_gap_settled(const std::string& name, const std::string& game, int first, int gap_end,
                        int last_ply, rules::ReconstructConfig cfg = {}) {
  const auto moves = words(game);
  ASSERT_LE(gap_end, static_cast<int>(moves.size()));
  std::string gap;
  for (int ply = first; ply <= gap_end; ++ply) gap += moves[std::size_t(ply - 1)] + " ";
  const Told t = replay_hall_capture(name, game, first, gap_end, cfg, 0, gap);
  ASSERT_TRUE(t.gap_refused) << "no gap waited for the arbiter";
  EXPECT_EQ(*t.gap_refused, "") << "the moves played refused";
  EXPECT_EQ(t.last_ply, last_ply);
}

// The capture `name` replayed (`game` as in replay_hall_capture): one moves-missed from ply `first`, nothing
// published from there on while it waits; then expect_gap_settled with the plies `first` to `gap_end`.
Told expect_held_then_settled(const std::string& name, const std::string& game, int first, int gap_end,
                              int last_ply, rules::ReconstructConfig cfg) {
  Told t = replay_hall_capture(name, game, first, gap_end, cfg);
  EXPECT_EQ(t.missed.size(), 1u);
  if (!t.missed.empty()) {
    EXPECT_EQ(field(t.missed.front(), "first_ply"), std::to_string(first));
  }
  EXPECT_EQ(t.last_ply, first - 1) << "a move published while the gap's length was open";
  expect_gap_settled(name, game, first, gap_end, last_ply, cfg);
  return t;
}

// The capture `name` replayed, the arbiter giving the gap's moves as played (`game`'s plies `first` to
// `gap_end`) once it is over, after the moves published since: accepted, and the game then `game` whole.
void expect_gap_settled_at_the_end(const std::string& name, const std::string& game, int first, int gap_end) {
  const auto moves = words(game);
  std::string gap;
  for (int ply = first; ply <= gap_end; ++ply) gap += moves[std::size_t(ply - 1)] + " ";
  auto cap = drivers::read_capture_file(std::string(EBOARD_TEST_DATA) + "/gap_hall/" + name);
  ASSERT_TRUE(cap) << cap.error();
  auto r = session::replay_capture(*cap, {}, gap, true);
  ASSERT_TRUE(r) << r.error();
  ASSERT_TRUE(r->gap_refused) << "no gap waited for the arbiter";
  EXPECT_EQ(*r->gap_refused, "") << "the moves played refused";
  rules::Position played = rules::Position::start(rules::Variant::Chess);
  for (const auto& san : moves) {
    auto m = rules::parse_san(played, san);
    ASSERT_TRUE(m) << san;
    played.do_move(*m);
  }
  EXPECT_EQ(r->game.ply_count(), static_cast<int>(moves.size()));
  EXPECT_EQ(r->game.position().fen(), played.fen());
}

// The capture `name`'s gap told twice: as stories whose last move is shown, then again past the bound from
// ply `first` (its mover moved on from the board read), the arbiter's moves (`game`'s plies `first` to
// `gap_end`) accepted once it is over: expect_gap_settled_at_the_end.
void expect_told_again_past_the_bound_and_settled(const std::string& name, const std::string& game, int first,
                                                  int gap_end) {
  const auto missed = missed_alerts(name);
  ASSERT_EQ(missed.size(), 2u);
  EXPECT_EQ(field(missed.front(), "first_ply"), std::to_string(first));
  EXPECT_EQ(field(missed.back(), "first_ply"), std::to_string(first));
  EXPECT_EQ(field(missed.back(), "past_bound"), "true");
  EXPECT_EQ(field(missed.back(), "retold"), "true");
  expect_gap_settled_at_the_end(name, game, first, gap_end);
}

// expect_past_bound_told, then expect_gap_settled with the gap's moves all of `played` from ply `first` on,
// `after` the game's moves since, up to `last_ply`.
void expect_past_bound_told_and_settled(const std::string& name, const std::string& played, int first,
                                        const std::string& after, int last_ply) {
  expect_past_bound_told(name, played, first);
  expect_gap_settled(name, played + " " + after, first, static_cast<int>(words(played).size()), last_ply);
}

// expect_hall_gap_told, then expect_gap_settled.
void expect_hall_gap_told_and_settled(const std::string& name, const std::string& game, int first, int last,
                                      int last_ply, rules::ReconstructConfig cfg = {}) {
  expect_hall_gap_told(name, game, first, last, last_ply, cfg);
  expect_gap_settled(name, game, first, last, last_ply, cfg);
}

}  // namespace

// daemon_gap_hall_test --speed 6 --seed 786857189, board F: blitz corpus game 60 (300+0), the board unplugged
// with 4...c6 under way (ply 8) and plugged in again 32.9 s later with Black's hand on the h-pawn for 8...h6
// (ply 16): plies 8-15 (c6 Qf3 Nd7 Nh3 Nxe5 Qe4 Bd6 Nd2) were made meanwhile, all pressed, Black's clock
// running. The reconnect's board (t 68.49 s) is the position after ply 15 with h7 empty. No change comes
// for 1.85 s (the 6x run's load delayed the placement), and at the mismatch time the board is searched as it
// stands: the missing pawn read as captured, a story 2 plies longer (h7-h5 ... Qxh5 ... Qf3), at least 2048
// sequences, none the moves played. Then the pawn is set on h6 and pressed: illegal-move (no legal move),
// position-mismatch and position-adopted. Right: the side to move's own piece missing while his clock runs is
// at least as likely in his hand as taken; the gap told as plies 8-15 (or 8-16 with h6, after the press),
// every later move at its ply, no other alert.
TEST(GapHallCaptures, TheMoversPieceInTheHandAtTheReconnectIsNotReadAsCaptured) {
  const Told t = replay_hall_capture(
      "lifted_pawn_at_the_reconnect.cap",
      "e4 d5 e5 d4 Bc4 e6 d3 c6 Qf3 Nd7 Nh3 Nxe5 Qe4 Bd6 Nd2 h6 f4 f5 Qe2 Ng4 Bxe6 Bxe6 Qxe6 Qe7", 8, 16);
  expect_one_gap(t, 8, {"15", "16"});
  EXPECT_EQ(t.last_ply, 24) << "the game after the gap not followed to its end";
}

// daemon_gap_hall_test --speed 3 --seed 488055634 --back between,set, board I: blitz corpus game 425 (300+0),
// style casual. 6...Bd7 (ply 12) is set down and shown (provisional) and pressed, but the board is unplugged
// (95.1 s into the sim's game) before the daemon reads the press: the last reading it has is
// Black's clock running. Plugged in again 58.9 s later, after plies 13-20 (Bd3 Nf6 O-O e6 Bg5 Be7 Qe1 O-O),
// all pressed, White's clock running. The reconnect's reading completes 6...Bd7 (the lever moved: a move
// event at ply 12 with the reconnect's clocks), and the board it came with, eight plies on, is never
// searched: the next press (9.d5) is an illegal-move (no legal move), then position-mismatch and
// position-adopted, and every later move goes out two plies early (Nxd5 as ply 15). Right: the pending press
// completes Bd7 and the rest of the board is searched as a gap (plies 13-20, one story or a moves-missed
// holding them), every later move at its ply, no other alert.
TEST(GapHallCaptures, APressPendingAtTheUnplugDoesNotHideTheGapBehindIt) {
  const Told t =
      replay_hall_capture("pending_press_at_the_reconnect.cap",
                          "d4 d5 e4 dxe4 Nc3 f5 f3 exf3 Nxf3 Nc6 Bb5 Bd7 Bd3 Nf6 O-O e6 Bg5 Be7 Qe1 "
                          "O-O d5 Nxd5 Nxd5 exd5 Bxe7 Nxe7 Qh4 Ng6 Qh5",
                          13, 20);
  expect_one_gap(t, 13);
}

// daemon_gap_hall_3x_test (ctest, seed 1015105185), board E: blitz corpus game 150 (60+0), style casual.
// Unplugged between two moves after ply 11 and plugged in again 28.1 s later after plies 12-13
// (6...Bd6 7.O-O), both pressed. The reconnect's board (t 86.9 s of the capture) is at rest and one story
// explains it, yet the recovered moves go out only 5.2 s later, at Black's next touch: the lift of e8
// for 7...O-O comes before them, and once they are out the lift is no longer the king's touch of this turn,
// so the rook's lift that follows reads as the first touch: a touch-move alert ("Black touched the rook
// before the king and then castled"). Right: the two moves recovered, 7...O-O at ply 14 with no alert.
TEST(GapHallCaptures, TheNextMoversFirstTouchAfterARecoveredGapCountsForHisTurn) {
  const Told t = replay_hall_capture(
      "first_touch_before_the_recovery.cap",
      "b3 Nf6 Bb2 e6 e3 d5 f4 c5 Nf3 Nc6 Bb5 Bd6 O-O O-O d3 a6 Bxc6 bxc6 Nbd2 Qe7 Qe1 Rb8", 13, 13);
  EXPECT_TRUE(t.gap_told) << "plies 12-13 not recovered";
  EXPECT_EQ(t.gaps, 0);
}

// daemon_gap_hall_3x_test (ctest, seed 886590876), board F: blitz corpus game 87 (300+0), style tidy.
// Unplugged with 6.Nbd2 under way (ply 11) and plugged in again 26.9 s later after plies 11-17 (Nbd2 a6 Bb3
// Bg4 h3 Bh5 g4), all pressed, Black's hand on the bishop for 9...Bg6 (ply 18). The reconnect's dump (t 86.24
// s of the capture) shows h5 empty, the bishop in the hand; 84 ms later it is set on g6, and Black presses
// 0.5 s after. The board changed after the reconnect's reading, so the story with its last move shown and not
// pressed is the likelier; but only a story a ply *shorter* than all pressed was looked for: the 7-ply story
// all pressed (h3 a6 Bb3 Bf5 g4 Bg6 Nbd2: Bc8-f5-g6 for Bc8-g4-h5-g6) was told at once, Black's press of Bg6
// read as a press without a move (7.5.3), then a position-mismatch, every later move a ply off. Right: both
// lengths reach the board, so its length waits for the next press (Black presses without moving the board:
// Bg6 was the shown move), and the gap is plies 11-18 (one story or a moves-missed holding them), every later
// move at its ply, no other alert.
TEST(GapHallCaptures, TheNextMoveSetDownAfterTheReconnectsDumpIsNotTakenForAPressedStory) {
  const Told t = replay_hall_capture("next_move_set_after_the_reconnect_dump.cap",
                                     "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 d6 d3 h6 Nbd2 a6 Bb3 Bg4 h3 Bh5 g4 Bg6 Nf1 h5 "
                                     "gxh5 Bxh5 Ng3 Qf6 Nxh5 Rxh5",
                                     11, 18);
  expect_one_gap(t, 11, {"18"});
  EXPECT_EQ(t.last_ply, 26) << "the game after the gap not followed to its end";
}

// daemon_gap_hall_3x_test (ctest, seed 388640588), board L: TCEC Chess960 game 45 (rknqbbnr), style tidy.
// Unplugged between two moves after ply 10 and plugged in again 11.6 s later after plies 11-12 (6.Bd3 Bb5),
// White's hand on the bishop for 7.Bxb5 (ply 13): the reconnect's dump shows d3 empty, and the bishop is
// set on b5, taking Black's, 44 ms later; then White presses. That board is the position before the gap
// with Bf1-b5 and Black's bishop lifted from e8: read as one move with the opponent's piece in the air, 6.Bb5
// went out as ply 11, then illegal-move twice, position-mismatch and position-adopted. Right: after a
// reconnect the opponent's missing piece is as likely taken in moves nobody saw, so the board is searched as
// a gap (plies 11-13, one story or a moves-missed holding them), every later move at its ply, no other alert.
TEST(GapHallCaptures, TheOpponentsPieceMissingAtTheReconnectIsNotReadAsLifted) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  const Told t =
      replay_hall_capture("opponents_piece_taken_at_the_reconnect.cap",
                          "e4 d5 exd5 Qxd5 f4 e6 Nf3 a5 d4 Nd6 Bd3 Bb5 Bxb5 Qxb5 a4 Qd5 Nd3 Nf6 b3 "
                          "b6 c4",
                          11, 13, cfg);
  expect_one_gap(t, 11);
}

// daemon_gap_hall_full_test (seed 955260936), board L: TCEC Chess960 game 4 (bnnrkqrb), style tidy. Unplugged
// between two moves after ply 8 and plugged in again 40.0 s later after plies 9-15 (5.c4 Qe7 6.d5 Nd6 7.g3
// O-O 8.Rfe1), Black's hand on the f-pawn for 8...f5 (ply 16): the reconnect's dump (and the re-read after
// it) shows f7 empty, then f5 is set and pressed, then 9.a3 is played and pressed. No story was told: at
// 9.a3's press a position-adopted, and every later move two plies off (9.a3 published as ply 11). Known and
// not fixed yet (the cause is not found: both searches should reach the board within the bound); right is
// the gap told as plies 9-16 (or 9-15 and f5 live), every later move at its ply, no other alert.
TEST(GapHallCaptures, TheMoversPawnInTheHandAfterASevenPlyGapIsFollowed) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  const Told t =
      replay_hall_capture("hand_at_work_after_a_seven_ply_gap.cap",
                          "d4 b6 e3 e6 Qe2 g6 O-O c5 c4 Qe7 d5 Nd6 g3 O-O Rfe1 f5 a3 exd5 cxd5 Rc8 "
                          "Na2 c4 a4 Bb7",
                          9, 16, cfg);
  expect_one_gap(t, 9);
}

// daemon_gap_hall_full_test --speed 6 --seed 780081397, board C: blitz corpus game 74 (60+0), style tidy,
// unplugged between two moves after 12...h6 and plugged in again 39.1 s later with Black's hand on the
// c-pawn for 20...c5: plies 13-19 (g4 b6 c3 Bb7 Na3 Nd7 Bd3) made meanwhile, all pressed. The dump (t 95.26
// s) lacks the c7 pawn; it is set on c5 0.4 s later and pressed at 96.40 s. Told: one moves-missed of ten
// plies (13-22, 90 sequences, the c-pawn taken on c4 by the bishop), then illegal-move, position-mismatch,
// and every later move two plies off. Right: the gap told as plies 13-19 or 13-20 (with c5), every later
// move at its ply, no other alert.
TEST(GapHallCaptures, TheMoversPawnSetDownAfterTheDumpIsNotReadAsTaken) {
  const Told t = replay_hall_capture(
      "movers_pawn_set_down_after_the_dump.cap",
      "e4 g6 Nf3 Bg7 d4 e6 Be3 Ne7 Qd2 d5 e5 h6 g4 b6 c3 Bb7 Na3 Nd7 Bd3 c5 Qc2 cxd4 cxd4 Rc8 Qb1 a6 Nc2 b5",
      13, 20);
  expect_one_gap(t, 13, {"19", "20"});
}

// daemon_gap_hall_full_test --speed 6 --seed 1012298395, board F: blitz corpus game 303 (600+0), style tidy,
// unplugged with 4...Bc5 under way (ply 8) and plugged in again 32.2 s later with Black's hand on that
// bishop for 8...Bxd4: plies 8-15 (Bc5 Nb5 O-O d4 exd4 Nbxd4 Nxd4 Nxd4) made meanwhile. The dump lacks the
// bishop (it left f8 in the gap, so it is not where the last position had it); Bxd4 is set down and pressed.
// Right: the gap told as plies 8-15 or 8-16, the moves played among its candidates, every later move at its
// ply, no other alert.
TEST(GapHallCaptures, TheMoversBishopInTheHandOffASquareItReachedInTheGapIsFollowed) {
  const Told t = replay_hall_capture(
      "movers_bishop_in_the_hand_after_an_exchange.cap",
      "e4 e5 Nc3 Nc6 Bc4 Nf6 Nf3 Bc5 Nb5 O-O d4 exd4 Nbxd4 Nxd4 Nxd4 Bxd4 Qxd4 d6 Bg5 Be6 Bxe6 fxe6 O-O-O e5",
      8, 16);
  expect_one_gap(t, 8, {"15", "16"});
  // The moves played among the candidates.
  const std::vector<std::string> played{"f8c5", "c3b5", "e8g8", "d2d4", "e5d4",
                                        "b5d4", "c6d4", "f3d4", "c5d4"};
  for (const auto& a : t.missed) {
    const std::string last = field(a, "last_ply");
    std::string want = "[";
    for (std::size_t i = 0; i < (last == "15" ? 8u : 9u); ++i) want += (i ? ",\"" : "\"") + played[i] + "\"";
    want += "]";
    EXPECT_NE(field(a, "candidates").find(want), std::string::npos) << field(a, "candidates");
  }
}

// daemon_gap_hall_full_test --speed 6 --seed 1015659583, board C: blitz corpus game 158 (60+0), style tidy,
// unplugged between two moves after 7.Nf3 and plugged in again 45.7 s later with Black's hand on the f6
// knight for 11...Nxd5: plies 14-21 (d6 Nd4 Bd7 Nxc6 bxc6 Bxc6 Bxc6 Nd5) made meanwhile, all pressed. The
// dump lacks the knight; a story of nine plies, its last move (Bxc6) shown and not pressed, explains it
// with the knight taken on d5 (8 presses either way). Told so at once; the knight set on d5 and pressed was
// then an illegal move, a position-mismatch and an adopted position. Right: the knight waited for, the gap
// told as plies 14-21 or 14-22 (with Nxd5), every later move at its ply, no other alert.
TEST(GapHallCaptures, TheMoversKnightInTheHandIsWaitedForAgainstAStoryWithItsLastMoveShown) {
  const Told t = replay_hall_capture("movers_knight_in_the_hand_after_an_exchange.cap",
                                     "e3 e5 d4 exd4 Qxd4 Nc6 Qd1 g6 Nc3 Bg7 Bb5 Nf6 Nf3 d6 Nd4 Bd7 Nxc6 bxc6 "
                                     "Bxc6 Bxc6 Nd5 Nxd5 c4 Nf6 e4 Bxe4 Bg5 O-O Bxf6 Qxf6",
                                     14, 22);
  expect_one_gap(t, 14, {"21", "22"});
  EXPECT_EQ(t.last_ply, 30) << "the game after the gap not followed to its end";
}

// daemon_gap_hall_full_test --speed 6 --seed 232581968, board L: TCEC Chess960 game 34 (bbnnrkqr, 1800+5),
// style tidy, unplugged between two moves after 9.Bd3 and plugged in again 39.0 s later with White's hand at
// work on 17.Nxd1: plies 10-16 (Qd5 Be4 Qxd2 Ne3 Bxe4 Rd1 Qxd1) made meanwhile. The reconnect's board is
// reached by two 7-ply stories all pressed; the story a ply longer with its last move shown ran out of the
// search's work bound, and so did the 8-ply search at the press of Nxd1 (817,000 nodes needed, 400,000
// allowed): told as a gap past the search's bound, no candidates, every later move held. Right: a search cut
// short before it found anything is run once more with three times the work (kGapRetryWork):
// one moves-missed of plies 10-17 (67 sequences), every later move at its ply.
TEST(GapHallCaptures, AGapTheWorkBoundCutShortIsSearchedAgainWithMoreWork) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  const Told t = replay_hall_capture(
      "a_gap_the_work_bound_cut_short.cap",
      "f3 f6 Qf2 b6 b4 Qc4 c3 c5 Bd3 Qd5 Be4 Qxd2 Ne3 Bxe4 Rd1 Qxd1 Nxd1 Bg6 bxc5 Nb7 Nd3 bxc5 Bb2 Nb6 h4",
      10, 17, cfg);
  expect_one_gap(t, 10, {"17"});
  EXPECT_EQ(t.last_ply, 25);
}

// daemon_gap_hall_full_test --speed 6 --seed 606676230, board F: blitz corpus game 67 (60+0), style tidy, the
// board unplugged with 9.Nxd4 under way (the knight lifted from f3) and plugged in again 3.5 s later, Black's
// hand on his f8 bishop for 10...Bc5. The reconnect's reading had White's press of Nxd4 pending, and the
// dump, with f8 empty, waited for Black's bishop; but the pending press was decided first, on the dump as it
// stood: the bishop read as taken on d4 (Nxd4 Bc5 Nb3 Bd4 Nxd4, five plies), then an illegal move, a
// position-mismatch, an adopted position and every later move two plies off. Right: the press waits with
// the dump for the piece in the hand; 9.Nxd4 recovered, 10...Bc5 and every later move at its ply.
TEST(GapHallCaptures, APendingPressWaitsWithTheDumpForTheMoversPieceInTheHand) {
  const Told t =
      replay_hall_capture("pending_press_with_the_movers_piece_in_the_hand.cap",
                          "e4 e5 Nf3 Nf6 Nc3 Nc6 d4 exd4 Nxd4 Bc5 Nxc6 dxc6 Bd3 Bg4 f3 Be6 Qe2 Qd7 "
                          "Be3 Bxe3 Qxe3 O-O-O Qxa7 Qd4 O-O-O Kd7 Be2 Ke7 Rxd4",
                          9, 9);
  expect_one_gap(t, 9);
  EXPECT_EQ(t.gaps, 0) << "a one-ply gap told as moves-missed";
  EXPECT_GE(t.last_ply, 18);
}

// daemon_gap_hall_full_test --speed 6 --seed 563698684, board E: blitz corpus game 202 (300+3), style casual,
// unplugged between two moves after 10...O-O and plugged in again 54.5 s later with 19.Ba2 set down and not
// pressed: plies 11-18 (a4 Ng4 O-O Nxf2 Rxf2 Bxf2+ Kxf2 Na5) made meanwhile. The story with Ba2 shown lists
// 62 sequences, but the work bound ran out after ten of them: a moves-missed of ten "incomplete" candidates,
// none the moves played. Right: a list the work bound left incomplete is searched again with more work
// (kGapRetryWork): the 62, the played among them (ranked past the 16 listed).
TEST(GapHallCaptures, AListTheWorkBoundLeftIncompleteIsSearchedAgainWithMoreWork) {
  const Told t =
      replay_hall_capture("a_list_the_work_bound_left_incomplete.cap",
                          "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Bc5 c3 O-O a4 Ng4 O-O Nxf2 Rxf2 Bxf2 Kxf2 Na5 Ba2 "
                          "c6 b4 Qb6 Be3 Qa6 bxa5 Qxa5 Nbd2",
                          11, 19);
  expect_one_gap(t, 11, {"19"});
  ASSERT_EQ(t.missed.size(), 1u);
  EXPECT_EQ(field(t.missed.front(), "candidates_total"), "62");
  EXPECT_EQ(field(t.missed.front(), "incomplete"), "") << "the list is whole: the moves played are in it";
}

// daemon_gap_hall_full_test --speed 6 --seed 264255307, board I: blitz corpus game 416 (300+0), style casual,
// unplugged between two moves after 9.Be3 and plugged in again 32.7 s later with White's hand at work on
// 14.Bxc6: plies 10-16 (Nc6 e5 Nd7 f4 Qb6 Bb5 cxd4) made meanwhile, the bishop in the air and the knight it
// takes set aside when the board was read. Read as they stood, both pieces were taken: a story of nine
// plies all pressed (an exchange on d7), and one a ply longer with its last move shown, so the length waited
// for White's press. White set the bishop on c6 and pressed: no move from the nine plies' end sets a white
// bishop there, the wait ran to the mismatch time, the nine plies were told, then a position-mismatch, an
// adopted position and every later move two plies off. Right: the press after a piece set down tells that
// the reading caught the hand at work; the board at the press is the gap and Bxc6 (plies 10-17), the moves
// played among the candidates, every later move at its ply.
TEST(GapHallCaptures, APressAfterTheHandSetItsPieceDownTellsTheGapFromTheBoardAtThePress) {
  expect_hall_gap_listed("hand_at_work_at_the_reading_then_pressed.cap",
                         "d4 Nf6 Nc3 e6 e4 d5 f3 c5 Be3 Nc6 e5 Nd7 f4 Qb6 Bb5 cxd4 Bxc6 dxe3 Bxd7 "
                         "Bxd7 Rb1 Bc5 Nge2 d4 Ne4",
                         10, 17, R"(["b8c6","e4e5","f6d7","f3f4","d8b6","f1b5","c5d4","b5c6"])", 25);
}

// daemon_gap_hall_full_test --speed 6 --seed 988444380, board I: blitz corpus game 100 (180+0), style casual,
// the board unplugged just after 5.e4 was set down and before its press, plugged in again 23.7 s later with
// Black's hand at work on 7...Nxc3: 5.e4 pressed and plies 10-13 (d5 e5 Ne4 Bd3) made meanwhile, the knight
// in the air when the board was read. The press of e4, read with the reconnect, waited for the board; the
// hand set the knight down on c3 (the white knight taken off first), and the press completed e4, shown before
// the link went. That ended the suspicion of a gap: the reading was not the board's last state any more, so
// the board further on was never searched, and Black's press of Nxc3 was an illegal move, then a
// position-mismatch, an adopted position and every later move four plies off. Right: a move completed that
// the board showed before the reading leaves the reading, and what the hands did since, a gap still;
// 5.e4 at ply 9, then plies 10-14 (the gap and Nxc3) one moves-missed, every later move at its ply.
TEST(GapHallCaptures, APressPendingAtTheLossLeavesTheBoardReadSinceAGap) {
  expect_hall_gap_listed("press_pending_at_the_loss_then_a_hand_at_the_reading.cap",
                         "d4 Nf6 Nf3 g6 Bf4 Bg7 Nc3 O-O e4 d5 e5 Ne4 Bd3 Nxc3 bxc3 f6 Qd2 Nc6 O-O fxe5 "
                         "Nxe5 Nxe5 Bxe5 Bxe5",
                         10, 14, R"(["d7d5","e4e5","f6e4","f1d3","e4c3"])", 22);
}

// daemon_gap_hall_full_test --speed 6 --seed 506295464, board F: blitz corpus game 347 (60+0), the board
// unplugged with 11.Bg5 under way and plugged in again with White's hand on the e-pawn for 19.e4: plies 11-18
// (Bg5 hxg5 Nxg5 Qxg5 Ne4 Qd8 Nc3 Nf6) made meanwhile, all pressed, White's clock running, e2 empty in the
// dump. Put back, the pawn makes a story of eight plies (the moves played); as the dump stands, a story as
// long takes it (11.e4 Nf6 12.Ng5 hxg5 13.Bxg5 Nxe4 14.Bf6 Nxf6). Only a story shorter by two plies was
// waited for, so the dump was searched as it stood: a moves-missed of 4 candidates without the moves played,
// then e4 set down and pressed read as an illegal move, a position-mismatch and an adopted position. Right:
// the board waits for the piece; e4 pressed tells plies 11-19 (the gap and e4) as one moves-missed holding
// the moves played, and every later move goes out at its ply.
TEST(GapHallCaptures, TheMoversPieceInTheAirIsWaitedForAgainstAStoryAsLongThatTakesIt) {
  expect_hall_gap_listed("movers_pawn_in_the_air_at_the_reconnect_a_story_as_long_takes_it.cap",
                         "d4 a6 Nf3 h6 c4 e6 d5 d6 Nc3 e5 Bg5 hxg5 Nxg5 Qxg5 Ne4 Qd8 Nc3 Nf6 e4 Nbd7 Bd3 Nc5 "
                         "O-O Nxd3 Qxd3 Ng4 Rfe1 Qh4 g3 Qxh2",
                         11, 19, R"(["c1g5","h6g5","f3g5","d8g5","c3e4","g5d8","e4c3","g8f6","e2e4"])", 27);
}

// daemon_gap_hall_test --speed 3 --seed 567761598, board F: blitz corpus game 62 (300+0), the board
// unplugged with 15.Nd4 under way (the knight lifted from f3, ply 29) and plugged in again with White's hand
// on the knight for 18.Nd4 (ply 35): plies 29-34 (Nd4 Bd7 f3 c5 Nb3 c4) made meanwhile, all pressed, White's
// clock running, no white knight in the dump. Its square in the last known position, f3, showed White's
// pawn since, so the knight was not counted short: the dump was searched as it stood, the knight "taken"
// (Ne5 c5 Nd7 Bxd7 f3 c4), then Nd4 set down and pressed read as an illegal move, a position-mismatch and
// an adopted position, every later move two plies early. Right: a kind short of its count is short
// whatever stands on its square now; the board waits for the knight, and Nd4 pressed tells plies 29-35 as
// one moves-missed holding the moves played, every later move at its ply.
TEST(GapHallCaptures, TheMoversPieceInTheHandIsWaitedForThoughItsSquareShowsAnotherPiece) {
  expect_hall_gap_listed(
      "movers_piece_in_the_hand_its_square_taken_since.cap",
      "d4 e5 dxe5 d6 exd6 Qxd6 Qxd6 cxd6 g3 Nc6 e3 Be6 Bb5 d5 Nc3 Bb4 a3 a6 Bxc6 bxc6 Bd2 "
      "Bd6 Nf3 Nf6 O-O-O O-O Rde1 Rae8 Nd4 Bd7 f3 c5 Nb3 c4 Nd4 Re7 e4 Rfe8 exd5 Nxd5 Nxd5 "
      "Re2 Nxe2",
      29, 35, R"(["f3d4","e6d7","f2f3","c6c5","d4b3","c5c4","b3d4"])", 43);
}

// daemon_gap_hall_test --speed 6 --hold-uncounted --seed 502038850 (the full test's plug-ins), board F: blitz
// corpus game 373 (120+1), the board unplugged with 11.O-O under way and plugged in again with Black's hand
// on the bishop for 18...Bh5: plies 11-17 (O-O h6 Nf3 d6 d3 Bg4 h3) made meanwhile, all pressed, Black's
// clock running, g4 empty in the dump. The bishop stood on c8 when the board was last followed, and c8 put
// back makes no story as short: the dump was searched as it stood, the bishop "taken" (...Bg4 h3 Bf3 Nxf3),
// then Bh5 set down and pressed read as a live 18...h6, an illegal move, a position-mismatch and an adopted
// position. Right: the square the story moved the piece to before "taking" it is tried too (g4: the moves
// played); the board waits for the bishop, and Bh5 pressed tells plies 11-18 as one moves-missed holding the
// moves played, every later move at its ply.
TEST(GapHallCaptures, TheMoversPieceMovedInTheGapThenInTheAirIsWaitedFor) {
  expect_hall_gap_listed(
      "movers_bishop_moved_in_the_gap_in_the_air_at_the_reconnect.cap",
      "e4 e5 Nf3 Nc6 Bc4 Nf6 Nc3 Bc5 Ng5 O-O O-O h6 Nf3 d6 d3 Bg4 h3 Bh5 Be3 Bb4 a3 Bxc3 bxc3 Re8 Bb3 d5", 11,
      18, R"(["e1g1","h7h6","g5f3","d7d6","d2d3","c8g4","h2h3","g4h5"])", 26);
}

// daemon_gap_hall_test --speed 6 --hold-uncounted --seed 774018131 (the full test's plug-ins), board H: blitz
// corpus game 389 (60+0), unplugged between two moves and plugged in again with 21.f4 set down, not pressed:
// plies 13-20 (Ba4 Nxd4 Bb3 Nxb3 cxb3 Nf6 Nc3 Qe7) made meanwhile. The dump waited for a white piece perhaps
// in the hand; White pressed f4, read as Black lifted his bishop for 22...Bc6 in the same instant. The lift
// ended the wait and the dump was searched with the clock after the press (Black on move): nine plies all
// pressed, and another length, so the length waited for Black's press. Then White's press, still pending,
// was decided on the board with the bishop in the air: ten plies, the bishop "taken", told as fact, and
// Bc6 pressed read as an illegal move, a mismatch and an adopted position. Right: a press by the side the
// wait is not for was read before the wait began, the stories count it already; Bc6 then tells the nine
// plies (13-21, the moves played first), and every later move goes out at its ply. And since the hall's
// game 201 (APieceLiftedAtAReadingToldWithoutItMayBeThePressedMovesVictim): Bc6 lands on a square empty on
// the board read with Black's hand at work, and that board with White's bishop on c6 (Bb5xc6 within the
// gap) is reached within the bound too, ...Bxc6 then the move pressed: the gap is told again whole with it,
// plies 13-22, the moves played first.
TEST(GapHallCaptures, APressReadBeforeTheWaitForTheOtherSidesPressTellsNothingMore) {
  const std::string name = "press_read_before_the_dump_search_then_the_next_hand.cap";
  const auto missed = missed_alerts(name);
  ASSERT_EQ(missed.size(), 2u);
  EXPECT_EQ(field(missed.front(), "last_ply"), "21");
  EXPECT_EQ(field(missed.back(), "first_ply"), "13");
  EXPECT_EQ(field(missed.back(), "last_ply"), "22");
  EXPECT_EQ(field(missed.back(), "candidates")
                .find(R"([["b5a4","c6d4","a4b3","d4b3","c2b3","g8f6","b1c3","d8e7","f2f4","d7c6"])"),
            0u)
      << "the moves played are not the first candidate";
  const Told t =
      replay_hall_capture(name,
                          "e4 e5 Nf3 d6 d4 exd4 Nxd4 Nc6 Bb5 Bd7 O-O a6 Ba4 Nxd4 Bb3 Nxb3 cxb3 Nf6 "
                          "Nc3 Qe7 f4 Bc6 e5 dxe5 fxe5 Ne4 Re1 Nxc3 bxc3 Rd8",
                          13, 22);
  EXPECT_EQ(t.last_ply, 29);
}

// daemon_gap_hall_test --speed 6 --seed 732057799, board I: blitz corpus game 199 (300+3), style casual, the
// board unplugged between two moves and plugged in again with Black's hand at work on 18...fxe4: plies 12-17
// (f5 Nc3 Nf6 Nf3 Nxe4 Nxe4) made meanwhile, the knight taken off e4 and the f-pawn in the air when the board
// was read. The dump waited for a black pawn in the hand; the hand set it down on e4 brushing the e5 pawn
// (e5 lifted, e4 set, e5 set again, in one scan). The lift ended the wait, and the dump searched as it stood
// read the pawn as taken: ten plies (f5 exf5 Nxf5 ...), none the moves played, then e5-e4 published at ply
// 22, an illegal move, a mismatch and an adopted position. Right: a lift of a kind waited for is judged a
// scan later; e5 filled again was a brush, the wait goes on, and the press tells plies 12-18 (the gap and
// fxe4) as one moves-missed holding the moves played, every later move at its ply.
TEST(GapHallCaptures, AHeldPieceSetDownBrushingItsNeighbourKeepsTheWait) {
  expect_hall_gap_listed(
      "movers_pawn_set_down_brushing_its_neighbour_after_the_reconnect.cap",
      "e4 e5 Bc4 Nc6 d4 d6 d5 Nce7 Bb5 Bd7 Bc4 f5 Nc3 Nf6 Nf3 Nxe4 Nxe4 fxe4 Ng5 Ng6 Qh5 Qf6 "
      "Nxe4 Qf5 Qxf5 Bxf5",
      12, 18, R"(["f7f5","b1c3","g8f6","g1f3","f6e4","c3e4","f5e4"])", 26);
}

// daemon_gap_hall_test --speed 6 --seed 308473546, board F: blitz corpus game 118 (180+0), style tidy, the
// board unplugged with 14...d6 under way and plugged in again with White's hand at work on 21.Bxa8: plies
// 14-20 (d6 d4 Ba7 b4 Be6 Bxb7 Nbd7) made meanwhile, the bishop in the air. It last stood on b7, where it
// took a pawn within the gap, so neither the square it stood on when the board was last followed (g2) nor one
// the story as the dump stands moved it to was b7: no wait, and the rook lifted off a8 had the dump searched
// as it stood, the bishop "taken" (...Bc6 ... Ba6 bxa6, ten plies), then the queen's 22...Qxa8 an illegal
// move, a mismatch and an adopted position. Right: a square an opponent's piece stood on, empty in the dump,
// is tried too (b7: the moves played); the rook lifted and the bishop set down on a8 is the held piece
// capturing, the wait goes on, and the press tells plies 14-21 as one moves-missed holding the moves played,
// every later move at its ply.
TEST(GapHallCaptures, TheMoversPieceInTheAirAfterACaptureInTheGapIsWaitedForThroughItsNextCapture) {
  expect_hall_gap_listed(
      "movers_bishop_in_the_air_capturing_again_after_a_capture_in_the_gap.cap",
      "c4 e5 Nc3 f5 g3 Nf6 Bg2 Bc5 e3 O-O Nge2 a6 O-O d6 d4 Ba7 b4 Be6 Bxb7 Nbd7 Bxa8 Qxa8 d5 "
      "Bf7 a4 Qe8 Ba3 Bh5 Qd3",
      14, 21, R"(["d7d6","d2d4","c5a7","b2b4","c8e6","g2b7","b8d7","b7a8"])", 29);
}

// daemon_gap_hall_test --speed 6 --seed 572305090, board C: blitz corpus game 2 (300+3), style tidy, the
// board unplugged between two moves and plugged in again with White's bishop in the air for 13.Be3: plies
// 9-12 (Nc3 Bb7 O-O Be7) made meanwhile. The dump waited for the bishop; it was set down on e3 and
// pressed 1.8 s later, and Black's king was on its way to castle (e8 lifted, g8 set) when the press was
// decided. The board had changed since the press, so it was searched as it stood then, the king's castling
// half made: a story of eight plies (Bg5 ... Kf8 ... Be3 Kg8), the moves played not among them, then 15.Ng5
// pressed an illegal move, a mismatch, an adopted position and every later move two plies off. Right: a press
// read after the reconnect's board, on a board at rest for a scan, completed what the board showed: plies
// 9-13 are searched on it and their length waits for the next press or move; Black's castling set down tells
// them as one moves-missed holding the moves played, O-O goes out live at ply 14, every later move at its
// ply.
TEST(GapHallCaptures, APressOnABoardAtRestIsSearchedOnItThoughTheReplyHasBegun) {
  expect_hall_gap_listed("press_at_rest_then_the_reply_begun_before_its_decision.cap",
                         "e4 e5 Nf3 Nf6 d3 d6 Be2 b6 Nc3 Bb7 O-O Be7 Be3 O-O Ng5 h6 Nh3 Nbd7 Bxh6 gxh6 f4", 9,
                         13, R"(["b1c3","c8b7","e1g1","f8e7","c1e3"])", 21);
}

// The same capture read two seconds late: the dump and 13.Be3's bishop set down in one burst, the press 235
// ms after it (less than a scan, so not a board at rest), Black's king set on g8 before the press was
// decided. Searched as it stood, the king read as walked there in a story of eight plies. Right: a castling
// half made since the press is the opponent's hand at work, as lifts are: the board the press came with is
// searched first, and the gap is told as read in time.
TEST(GapHallCaptures, ACastlingHalfMadeSinceThePressIsTheRepliesHandAtWork) {
  expect_hall_gap_listed("press_at_rest_then_the_reply_begun_before_its_decision.cap",
                         "e4 e5 Nf3 Nf6 d3 d6 Be2 b6 Nc3 Bb7 O-O Be7 Be3 O-O Ng5 h6 Nh3 Nbd7 Bxh6 gxh6 f4", 9,
                         13, R"(["b1c3","c8b7","e1g1","f8e7","c1e3"])", 21, {}, 2000);
}

// daemon_gap_hall_test --speed 6 --seed 230288630, board I: blitz corpus game 378 (120+1), style casual, the
// board unplugged between two moves and plugged in again with White's knight in the air for 15.Nxf7: plies
// 8-14 (e6 Bd3 Ne7 Bxf5 Nxf5 Ng5 h6) made meanwhile, and the last of them, Black's press, read with the
// reconnect. The hand took the f7 pawn off 0.2 s after the board was read, before it settled, so the board
// was never judged for a piece in the hand; the pending press was decided with the pawn lifted and searched
// on the board it came with, the knight "taken": ten plies, the moves played not among them, then Nxf7
// pressed read as a later illegal move, a mismatch and an adopted position. Right: the press judges the board
// it came with as a settled one is; the knight is waited for, set down on f7, and the gap told as plies 8-14
// (one moves-missed holding the moves played), Nxf7 and every later move at its ply.
TEST(GapHallCaptures, TheReconnectsPendingPressJudgesItsBoardForThePieceInTheHand) {
  expect_hall_gap_listed(
      "reading_pending_with_the_movers_knight_in_the_air_then_its_capture.cap",
      "e4 c6 Nf3 d5 e5 Bf5 d4 e6 Bd3 Ne7 Bxf5 Nxf5 Ng5 h6 Nxf7 Kxf7 Qh5 g6 Qf3 Kg7 g4 Nxd4 Qd3", 8, 14,
      R"(["e7e6","f1d3","g8e7","d3f5","e7f5","f3g5","h7h6"])", 23);
}

// daemon_gap_hall_test --speed 6 --seed 58067056, board C: blitz corpus game 336 (600+0), style tidy, the
// board unplugged between two moves and plugged in again with Black's knight in the air for 20...Nh6: plies
// 14-19 (c5 Bxd4 cxd4 Bd3 d5 exd5) made meanwhile. The dump waited for the knight; it was set down on h6, and
// White lifted his bishop for 21.Bb5 before Black's press was decided. The board read whole again then (a
// re-read) started the wait anew, and the bishop set down on b5 ended it: the board as it stood, the bishop
// in the air, was searched (ten plies, the bishop "taken"), then 22...Kd8 an illegal move, a mismatch and an
// adopted position. Right: after the first change the wait goes on to the press whatever is read. Since the
// knight set down ends the wait (held_piece_in_the_air: one more than on the board judged, though a knight
// taken within the gap keeps the count short of the one before it), Black's press is searched on the board
// it came with: plies 14-20 (the gap and Nh6) one moves-missed holding the moves played, 21.Bb5+ live at its
// ply, every later move at its ply (before, the wait lasted to White's press: plies 14-21 with Bb5 in them).
TEST(GapHallCaptures, AReReadDuringTheWaitForThePieceInTheHandStartsNothingAnew) {
  expect_hall_gap_listed(
      "movers_knight_set_down_then_the_board_reread_before_the_press.cap",
      "e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Bb4 Bd2 Nxd4 Bxb4 Qf6 Bc3 c5 Bxd4 cxd4 Bd3 d5 exd5 Nh6 Bb5 Kd8 "
      "O-O Bg4 Be2 Bh3 gxh3 Qg5",
      14, 20, R"(["c7c5","c3d4","c5d4","f1d3","d7d5","e4d5","g8h6"])", 28);
}

// daemon_gap_hall_test --speed 6 --first 20,40 --seed 244414751, board F: blitz corpus game 212 (180+2),
// style tidy, the board unplugged with 25.Nd5 under way and plugged in again with Black's queen in the air
// for 32...Qh4: plies 25-31 (Nd5 Bxd5 Bxd5 Qe7 Bxh6 Nd4 Qd1) made meanwhile, all pressed. The reading came
// with the lever moved (31.Bxh6 pressed, pending), and in the next scan the queen was set on h4 and Black
// pressed. That press, not the mover's, had the pending one judged on the board as it then stood: seven
// plies with the queen straight to h4, its length waiting for Black's press, which had come already. At the
// mismatch time the seven were told, then 33.Be3 was read as Black's and the board mismatched. Right: the
// press that had the pending one judged tells the length it left waiting: plies 25-32 (the increment counts
// eight presses), one moves-missed holding the moves played, every later move at its ply.
TEST(GapHallCaptures, APressThatHadTheReconnectsReadingJudgedTellsTheLengthItLeftWaiting) {
  expect_hall_gap_listed(
      "reconnect_reading_judged_on_the_board_after_the_next_press.cap",
      "e4 e5 Nf3 Nc6 Bc4 Bc5 d3 Nf6 Nc3 a6 a4 d6 h3 h6 O-O g5 Nh2 g4 Nxg4 Nxg4 hxg4 Rg8 Qf3 Be6 Nd5 Bxd5 "
      "Bxd5 Qe7 Bxh6 Nd4 Qd1 Qh4 Be3 Rh8 f3 Nxc2 Bxc5 Nxa1 Be3 Qg3",
      25, 32, R"(["c3d5","e6d5","c4d5","d8e7","c1h6","c6d4","f3d1","e7h4"])", 40);
}

// daemon_gap_hall_test --speed 3 --first 20,40 --seed 596158791, board B: blitz corpus game 299 (600+0),
// style tidy, the board unplugged with 12.Bxe7 under way and plugged in again with 16.Ng6 set down, not
// pressed: plies 23-30 (Bxe7 Qxe7 Qh5 g6 Bxg6 Kd7 Bf5 Kd8) made meanwhile, the king out and back. The same
// order as game 212's: White's press, read in the scan after the reading, had the reading judged on the board
// as it then stood, its length left waiting for that press; at the mismatch time seven plies were told
// (one king move, not two: a story two plies short) and every later move went out two plies early. Right:
// plies 23-30, one moves-missed holding the moves played (the king's way among the stories of eight), Ng6
// and every later move at its ply.
TEST(GapHallCaptures, APressThatHadTheReadingJudgedTellsTheLengthOnAClockWithoutIncrement) {
  expect_hall_gap_listed(
      "next_move_set_and_pressed_after_the_reading_no_increment.cap",
      "e4 e5 Nf3 d6 d4 f6 dxe5 fxe5 Bg5 Ne7 Bc4 Nbc6 c3 b6 Nbd2 Bb7 O-O Qd7 Nh4 h6 Bf7 Kd8 Bxe7 Qxe7 Qh5 g6 "
      "Bxg6 Kd7 Bf5 Kd8 Ng6 Qf7 Bg4 Rg8 Qh4 Ne7 Nxe7 Bxe7",
      23, 30, R"(["g5e7","d7e7","d1h5","g7g6","f7g6","d8d7","g6f5","d7d8"])", 38);
}

// daemon_gap_hall_test --speed 6 --seed 416338102, board F: blitz corpus game 243 (300+0), the board
// unplugged with White's knight lifted from c3 for 7.Na4 and plugged in again with Black's hand at work
// for 17...Qa3: plies 13-17 (Na4 Qb4+ Nc3 Qxc3+ Bd2) made meanwhile, the knight out and back. No increment
// counts the presses, and four stories of three plies reach the board, each a bishop's (Bc1 Qxc3 Bd2 and the
// like): the gap was told short, every later move two plies early. Right: the hand at the loss was under way
// to the gap's first move, and no story as short begins with it: the stories two plies longer that begin with
// a knight's move from c3 (plies 13-17, one moves-missed holding the moves played), every later move at its
// ply.
TEST(GapHallCaptures, TheHandAtTheLossTellsADetourTheBoardCannotShow) {
  expect_hall_gap_listed(
      "hand_at_the_loss_under_way_to_a_detour_no_increment.cap",
      "e4 e6 d4 d5 e5 c5 Nf3 Qb6 Nc3 a6 Be3 Qxb2 Na4 Qb4 Nc3 Qxc3 Bd2 Qa3 Bd3 c4 Be2 Bb4 O-O "
      "Bxd2 Qxd2",
      13, 17, R"(["c3a4","b2b4","a4c3","b4c3","e3d2"])", 25);
}

// daemon_gap_hall_test --speed 6 --seed 375279302, board E: blitz corpus game 396 (600+0), style casual, the
// board unplugged with 6...Bxc3 under way (the bishop and the knight it takes in the air) and plugged in
// again with 11.Qxe4 set down, not pressed: plies 12-21 unseen. The search for ten plies, the last not
// pressed, ran out of its work (1.8 million positions to list them whole): a position-mismatch, then the gap
// told past the search's bound. Right: the hand at the loss gives the first move, and the stories that begin
// with it are a search of nine plies from there: plies 12-21 as one moves-missed holding the moves played,
// every later move at its ply. (The search now lists some of the ten-ply stories before its work runs out,
// none begun by the hand: the stories of that length the hand began are searched all the same.)
TEST(GapHallCaptures, TheHandAtTheLossNarrowsASearchThatRanOutOfWork) {
  expect_hall_gap_listed("hand_at_the_loss_narrows_a_ten_ply_search.cap",
                         "d4 d5 Bf4 Bf5 Nc3 c6 e3 e6 h3 Bb4 Qd2 Bxc3 Qxc3 Ne7 Bd3 Bxd3 Qxd3 Nf5 e4 dxe4 Qxe4 "
                         "Qd5 Qd3 Qxg2 O-O-O Qxh1 Nf3 Qxh3 d5",
                         12, 21, R"(["b4c3","d2c3","g8e7","f1d3","f5d3","c3d3","e7f5","e3e4","d5e4","d3e4"])",
                         29);
}

// The same capture with the two lifts before the loss taken out (the board lost between two moves: no hand
// to narrow the search). The search of ten plies runs out of work at the reconnect and again at 11.Qxe4's
// press, after which Black had already set 11...Qd5 down: a position-mismatch was told, then the gap past
// the search's bound. Right: at the press, a story found within the bound (the likeliest moves first, as a
// probe does) is told as a list the work left incomplete: one moves-missed of plies 12-21, "incomplete",
// every later move at its ply.
TEST(GapHallCaptures, ASearchOutOfWorkAtThePressIsToldAsAnIncompleteList) {
  const Told t =
      expect_hall_gap_told("ten_ply_search_out_of_work_at_the_press.cap",
                           "d4 d5 Bf4 Bf5 Nc3 c6 e3 e6 h3 Bb4 Qd2 Bxc3 Qxc3 Ne7 Bd3 Bxd3 Qxd3 Nf5 e4 "
                           "dxe4 Qxe4 Qd5 Qd3 Qxg2 O-O-O Qxh1 Nf3 Qxh3 d5",
                           12, 21, 29);
  ASSERT_EQ(t.missed.size(), 1u);
  EXPECT_EQ(field(t.missed.front(), "incomplete"), "true");
}

// daemon_gap_hall_test --speed 6 --seed 716527430, board I: blitz corpus game 262 (60+0), style casual, the
// board unplugged between two moves and plugged in again with White's hand at work for 8.Qxc4: Black's
// c4-pawn lifted first, the queen still on b5. Plies 8-14 (exd5 Qb3 c4 Qb5+ Nc6 Bxd5 a6) were made
// meanwhile. Searched as it stood, the pawn read as taken in a story two plies longer (... Qc2 Ne7 Qxc5 Ng8
// Qb5 ...): told at once as plies 8-16, the queen's capture then a live 9.Qc4, every later move two plies
// early, and the arbiter's moves refused. Right: a square the mover's pieces attack, empty, where a kind of
// the opponent's short of its count put back makes a story two plies shorter, is a victim lifted first; the
// board waits for the capture there, and its press tells plies 8-15 as one moves-missed, every later move at
// its ply.
TEST(GapHallCaptures, AVictimLiftedFirstAtTheReconnectIsWaitedForNotReadAsTaken) {
  expect_hall_gap_told("victim_lifted_first_at_the_reconnect.cap",
                       "g4 d5 Bg2 c5 c4 e6 cxd5 exd5 Qb3 c4 Qb5 Nc6 Bxd5 a6 Qxc4 Ne5 Qa4 Bd7 Qe4 "
                       "Qe7 Bxb7 Nf6 Qg2",
                       8, 15, 23);
}

// daemon_gap_hall_test --speed 6 --seed 353432435, board I: blitz corpus game 135 (180+0), style casual, the
// board unplugged between two moves and plugged in again with White's hand at work for 10.Nxc6: Black's
// knight lifted from c6 before the reading, the taker lifted from d4 a moment after it, the reading's press
// decided on that board. Plies 12-18 (Nf6 Bc4 O-O f3 e6 Qd2 d5) were made meanwhile. Nothing short of two
// plies more reaches the board with the knight taken: 10.Nxc6 pressed was an illegal move, then a
// position-mismatch, a nine-ply moves-missed and an adopted position. Right: the taker in the air stands
// where it stood when last followed, the victim is put back on the square nearest its own that the takers
// attack, and the board waits for the capture: its press tells plies 12-19, every later move at its ply.
TEST(GapHallCaptures, AVictimAndItsTakerInTheAirAtTheReadingAreWaitedFor) {
  expect_hall_gap_told("victim_lifted_first_then_its_taker.cap",
                       "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 g6 Nc3 Bg7 Be3 Nf6 Bc4 O-O f3 e6 Qd2 d5 Nxc6 "
                       "bxc6 exd5 cxd5 Bb3 a5 a4 Ba6 O-O-O",
                       12, 19, 27);
}

// daemon_gap_hall_test --speed 3 --seed 882583112, board F: blitz corpus game 106 (180+0), style tidy, the
// board unplugged with 7.O-O under way and plugged in again with Black's king in the air for 10...Kh8, after
// 8...O-O in the gap: plies 13-19 (O-O d6 Re1 O-O h3 Qe8 Nc3) made meanwhile. No story takes a king, so
// nothing reached the dump, and the press after the king was set down on h8 (the side the game did not
// have on move) was not searched: a position-mismatch at the mismatch time, then plies 13-21 at the next
// press. Right: the mover's king missing is in his hand; the dump waits for it, and the press tells plies
// 13-20 as one moves-missed, every later move at its ply.
TEST(GapHallCaptures, TheMoversKingMissingAtTheReadingIsInHisHand) {
  expect_hall_gap_told("movers_king_in_the_air_at_the_reading.cap",
                       "e4 e5 Nf3 Nc6 Bb5 f5 d3 fxe4 dxe4 Nf6 Bg5 Bc5 O-O d6 Re1 O-O h3 Qe8 Nc3 Kh8 Ne2 "
                       "Qg6 Ng3 h6 Be3 Bxe3 Rxe3 Be6",
                       13, 20, 28);
}

// daemon_gap_hall_test --speed 3 --seed 644851326, board L: TCEC Chess960 game 32 (1800+5), style tidy, the
// board unplugged after 5...Bd5 (ply 10) and plugged in again with 6.Bf2 a6 made (plies 11-12) and White's
// king in the air for 7.O-O, whose rook stays on f1 (king d1 to g1). The king set on g1 and pressed was
// searched as a board the castling could not have made, and told as a story of seven plies (the king out to
// g2 and back), every later move four plies late. Right: plies 11-13 (the gap and the castling under way)
// told as one gap at that press, every later move at its ply.
TEST(GapHallCaptures, TheKingInTheHandForACastlingWhoseRookStaysIsTheCastlingUnderWay) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  const Told t = replay_hall_capture(
      "movers_king_in_the_hand_for_a_chess960_castling_whose_rook_stays.cap",
      "f4 f5 b4 g6 Nb3 Nb6 g3 Nd6 Nf3 Bd5 Bf2 a6 O-O Na4 c3 O-O Qc2 b6 Bd4 Bf6 Rfe1", 11, 13, cfg);
  expect_one_gap(t, 11, {"13"});
  EXPECT_EQ(t.last_ply, 21);
}

// daemon_gap_hall_test --speed 6 --first 16,30 --back between,set --seed 523578221, board J: TCEC Chess960
// game 27 (1800+5), style tidy, the board unplugged with 14...Qe7 under way and plugged in again with 17.Qf3
// set down, not pressed: plies 28-32 (Qe7 Qe4 Qc7 O-O Bg6) made meanwhile, each queen by a detour, White's
// queen back on f3. The increment counted five presses, and no story of five plies all pressed reaches the
// board, so the count was dropped: three plies were told (Qc7 O-O Bg6), White's press of Qf3 an illegal
// press without a move, every later move two plies early. Right: the presses counted and the move of the
// side whose clock runs, shown: plies 28-33 (one moves-missed holding the moves played), every later move
// at its ply.
TEST(GapHallCaptures, TheCountedPressesAndTheMoveShownAfterThemAreTheGapsLength) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  expect_hall_gap_listed(
      "next_move_set_at_the_reading_after_presses_no_story_all_pressed_reaches.cap",
      "f4 f5 g4 e6 Bd4 fxg4 Nd3 d6 a4 a5 e3 h5 Ng3 Bf7 h3 c5 Bc3 c4 Nf2 h4 Nge4 g3 Ng4 Bh5 Qf3 Ra7 Ng5 Qe7 "
      "Qe4 Qc7 O-O Bg6 Qf3 Bxc2 Rfc1 Bb3 Ra3 Ra6 Ne5 g6 Nxc4",
      28, 33, R"(["d8e7","f3e4","e7c7","b1e1","h5g6","e4f3"])", 41, cfg);
}

// daemon_gap_hall_test --speed 6 --first 20,40 --seed 295554085, board I: blitz corpus game 271 (60+0),
// style tidy, the board unplugged between two moves and plugged in again with 24...Nxf6's knight in the
// hand: plies 40-47 (Qh5 Nf1 Nd5 N1h2 Rfe8 Ng4 Bf6 Nxf6) made meanwhile, Black's bishop taken on f6 and his
// knight gone from f6 to d5 and lifted there. The dump waited for a bishop (put back, a story as short), not
// the knight; the white knight lifted off f6 and the black knight set there was read as the next move begun,
// the dump searched as it stood (the knight taken: eight plies), then an illegal move, a mismatch and an
// adopted position. Right: a piece of the mover's set down unlifted where the opponent's was lifted came
// from the hand, whatever kind was waited for. What follows is a length no board shows (the knight out and
// back, no increment: told two plies short, as the README's gaps of that kind), with no alert but the
// moves-missed.
TEST(GapHallCaptures, APieceOfAnotherKindSetDownUnliftedCapturingCameFromTheHand) {
  auto cap = drivers::read_capture_file(
      std::string(EBOARD_TEST_DATA) +
      "/gap_hall/held_kind_taken_in_the_gap_another_kind_capturing_from_the_hand.cap");
  ASSERT_TRUE(cap) << cap.error();
  auto r = session::replay_capture(*cap, {});
  ASSERT_TRUE(r) << r.error();
  int missed = 0;
  for (const auto& e : r->events)
    if (const auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
      EXPECT_EQ(a->code, "moves-missed") << a->detail;
      if (a->code != "moves-missed") continue;
      ++missed;
      EXPECT_EQ(field(*a, "first_ply"), "40");
    }
  EXPECT_EQ(missed, 1);
}

// daemon_gap_hall_test --speed 6 --first 20,40, board L: TCEC Chess960 game 28 (1800+5), the board unplugged
// after 17...Qf6 and plugged in again with Black's queen in the hand: plies 35-38 (Bd4 Qh4 Bf2 Qf6) made
// meanwhile, the bishop and the queen each out and back, the queen set on f6 after the reading. The board
// matched the game, so White's press read with it was told as a press without a move (7.5.3), and every
// later move went out four plies early. The increment counted three presses at the reading (White's time
// 31:51 before, 31:57 after). Right: the moves came back to the position before them, a gap of the count's
// presses and the move shown after them (one moves-missed holding the moves played), every later move at
// its ply.
TEST(GapHallCaptures, MovesBackToThePositionBeforeTheGapAreCountedByTheIncrement) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  expect_hall_gap_listed(
      "moves_back_to_the_position_before_the_gap_counted_by_the_increment.cap",
      "f4 f5 g4 e6 Ng3 g6 a4 a5 e4 fxe4 Nxe4 d5 Nc3 c6 Bf2 Nd6 h4 h6 g5 hxg5 hxg5 e5 fxe5 Rxe5 Rxe5 Bxe5 "
      "Nd3 Qxg5 Nxe5 Qxe5 Qg1 O-O-O O-O-O Qf6 Bd4 Qh4 Bf2 Qf6 Rf1 Nf5 Ne2 Nd7 Nd4 Rf8 Re1 g5",
      35, 38, R"(["f2d4","f6h4","d4f2","h4f6"])", 46, cfg);
}

// daemon_gap_hall_test --speed 3 --seed 153934, board J: TCEC Chess960 game 37 (1800+5), the board unplugged
// with White's rook lifted from b1 for 19.Rf1 (ply 37) and plugged in again after 19...Nd5 20.Ra1 Nb6 (plies
// 38-40), all pressed, White's clock running: the board one rook's move (b1-a1) from the position before the
// gap, the knight out and back. That one move explained the board, so no gap was suspected: Ra1 was read as
// White's move under way, and 21.Rc1 (the rook from a1) as the rook from b1 released on a1 and moved on
// (4.7); every later move went out four plies early. The increment counted four presses at the reconnect's
// reading, 382 ms after the board was read (White 32:01 before, 31:59 after; Black 32:03, 32:02). Right:
// the count searched as a gap from the board one move on too: one moves-missed of plies 37-40, every later
// move at its ply.
TEST(GapHallCaptures, MovesOneMoveFromThePositionBeforeTheGapAreCountedByTheIncrement) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  const Told t = replay_hall_capture(
      "moves_one_move_from_the_position_before_the_gap_counted_by_the_increment.cap",
      "f4 f5 b4 b5 Nf3 Nf6 e3 g6 g3 a6 Qe2 Nb6 Nb3 d6 Ng5 Bxh1 Ne6 Kc8 Rxh1 Rg8 Bxf6 Bxf6 e4 Qc6 Re1 Qxe4 "
      "Qxe4 fxe4 Rxe4 Kd7 c3 g5 f5 g4 Kc2 h5 Rf1 Nd5 Ra1 Nb6 Rc1 Rbe8 Rf1 Rh8 Nf4 Rh7 h4 gxh3 Rh1",
      37, 40, cfg);
  expect_one_gap(t, 37, {"40"});
  EXPECT_EQ(t.last_ply, 49);
}

// daemon_gap_hall_test --speed 6 --hold-uncounted --seed 88160450, board C: blitz corpus game 236 (240+3),
// style tidy, the board unplugged between two moves and plugged in again with Black's f-pawn in the hand for
// 20...f6: plies 12-19 (Qc6 Nxe5 Qe6 Bxe6 dxe6 Bxb6 cxb6 Qf3) made meanwhile, a black pawn taken among them.
// The dump waited for a pawn; f6 was set down and pressed, but a pawn set down ended the wait only once the
// pawns were back to their count before the gap, which the one taken within it never allows: the press waited
// to the mismatch time (position-mismatch), then was searched with 21.Qh5+ on the board (ten plies). Right:
// one more pawn than on the board judged ends the wait; plies 12-20 one moves-missed holding the moves
// played, 21.Qh5+ live, every later move at its ply.
TEST(GapHallCaptures, TheMoversPieceSetDownEndsTheWaitThoughOneOfItsKindWasTakenInTheGap) {
  expect_hall_gap_listed("movers_pawn_set_down_and_pressed_its_kind_taken_within_the_gap.cap",
                         "e4 e5 Nf3 Bc5 Bc4 Qe7 d3 Bb6 Nc3 Qc5 Be3 Qc6 Nxe5 Qe6 Bxe6 dxe6 Bxb6 cxb6 Qf3 f6 "
                         "Qh5 g6 Nxg6 hxg6 Qxh8 Kd8 Qxg8 Kc7",
                         12, 20, R"(["c5c6","f3e5","c6e6","c4e6","d7e6","e3b6","c7b6","d1f3","f7f6"])", 28);
}

// daemon_gap_hall_test --speed 6 --hold-uncounted --seed 490956171, board F: blitz corpus game 203 (300+3),
// style tidy, the board unplugged with 4...Nc6 under way and plugged in again with 8.O-O half done, the king
// on g1 and the rook still on h1: plies 8-14 (Nc6 e3 Bg4 Bb5 Bd6 Bxc6 bxc6) made meanwhile. Searched as it
// stood, the board read as ten plies, the king walking e1-f1-g1 (a list cut short, the moves played not in
// it); the rook set on f1 was then no legal move (illegal-move), a mismatch and an adopted position followed.
// Right: a castling half done at the reading is a hand at work, waited for (castling_under_way): plies 8-14
// one moves-missed holding the moves played, 8.O-O live at ply 15, every later move at its ply.
TEST(GapHallCaptures, ACastlingHalfDoneAtTheReconnectIsWaitedFor) {
  expect_hall_gap_listed(
      "castling_half_done_at_the_reconnect.cap",
      "d4 Nf6 Bg5 d5 Bxf6 exf6 Nf3 Nc6 e3 Bg4 Bb5 Bd6 Bxc6 bxc6 O-O O-O Nbd2 f5 c4 f4 exf4 "
      "Bxf4 Qc2",
      8, 14, R"(["b8c6","e2e3","c8g4","f1b5","f8d6","b5c6","b7c6"])", 23);
}

// daemon_gap_hall_test --speed 3 --first 8,14 --seed 49043, board I: blitz corpus game 354 (600+5), 5...c6
// (ply 10) set down and the board unplugged before its press, plugged in again 34.5 s later with 8...O-O
// (ply 16) half done: the king on g8, the rook still on h8. The reading waited for the rook
// (castling_under_way); the castling done and pressed, that press was taken for 5...c6's (the latest board
// showing one legal move, of before the loss), then a position-mismatch, and the next press told a gap two
// plies long. Right: the board at the press is searched, its story all pressed, and the castling half done at
// the reading is its last move: of the four stories, one ends so, the moves played (plies 10-16 recovered),
// 9.h3 live at ply 17, every later move at its ply.
TEST(GapHallCaptures, ACastlingWaitedForAndPressedEndsTheGapAtThatPress) {
  expect_hall_gap_recovered(
      "castling_half_done_after_a_move_set_down_not_pressed.cap",
      "f4 d5 Nf3 Bf5 Nc3 Nf6 e3 e6 Bb5 c6 Bd3 Bc5 Bxf5 exf5 O-O O-O h3 b6 b3 d4 Ne2 dxe3 Kh2 exd2", 10, 16,
      24);
}

// daemon_gap_hall_test --speed 3 --seed 215280 --first 8,14, board C: blitz corpus game 335 (180+0).
// Unplugged after 4.Bc4 (ply 7) and plugged in again 40 s later, after 4...Nh6 5.d3 g5 6.O-O d6 7.Be3 Ng4
// (plies 8-14, all pressed), White's clock running and his d-pawn in his hand (from d3) for 8.d4. The pawn is
// set on d4 and pressed. The reading was not waited on (no story with the pawn put back on d2 reaches
// it: 7.Be3 needs d2 empty), and the game has Black on move (seven plies unseen), so the press went down the
// path of a press by the side not on move: nothing searched the board until the mismatch time. Then
// position-mismatch at ply 7, and a moves-missed of plies 8-16 once 8...b5 was pressed. Right: plies 8-15
// told as one gap at d4's press, every story listed ending with the pawn's move (the hand's), 8...b5 live at
// ply 16.
TEST(GapHallCaptures, TheHeldPieceSetDownAndPressedAfterAnOddGapEndsIt) {
  const Told t = replay_hall_capture(
      "movers_pawn_in_the_hand_after_an_odd_gap_pressed_with_the_other_side_on_move.cap",
      "e4 e5 Nf3 f6 Nc3 c6 Bc4 Nh6 d3 g5 O-O d6 Be3 Ng4 d4 b5 Nxb5 cxb5 Bd5 b4 Bxa8 Ba6 Re1", 8, 15);
  expect_one_gap(t, 8, {"15"});
  EXPECT_EQ(t.last_ply, 23);
  ASSERT_EQ(t.missed.size(), 1u);
  const std::string listed = field(t.missed.front(), "candidates");
  // (Each story ends with the hand's move: "d3d4"] or "d2d4"]; none with another move's closing.)
  std::size_t stories = 0, hands = 0;
  for (std::size_t at = listed.find("\"]"); at != std::string::npos; at = listed.find("\"]", at + 1)) {
    ++stories;
    hands += listed.compare(at - 4, 4, "d3d4") == 0 || listed.compare(at - 4, 4, "d2d4") == 0;
  }
  EXPECT_GT(stories, 1u);
  EXPECT_EQ(hands, stories) << listed;
}
// daemon_gap_hall_test --speed 3 --seed 30978 --first 8,14, board C: blitz corpus game 426 (300+0). Unplugged
// after 7.Bd2 (ply 13) and plugged in again 30 s later, after 7...Nc6 8.a3 Ba5 9.b4 Bb6 10.Be3 Nf6 (plies
// 14-20, all pressed), with 11.O-O half done: the king on g1, the rook still on h1, White's clock running.
// The reading waited for the rook (castling_under_way), but the rook lifted was no castling under way any
// more: the board was searched with the rook in the air, read as taken in a story of nine plies (a list, its
// tail open), and the rook set on f1 and pressed was no legal move (illegal-move), then a mismatch and an
// adopted position. Right: the rook in the hand is the castling still under way; once it is set down, the
// stories that end with the castling are the gap and its next move: plies 14-20 one moves-missed, 11.O-O live
// at ply 21, every later move at its ply.
TEST(GapHallCaptures, ACastlingsRookInTheHandAfterAnOddGapIsStillTheCastlingUnderWay) {
  const Told t = replay_hall_capture(
      "castling_half_done_after_an_odd_gap_its_rook_in_the_hand.cap",
      "e4 d5 exd5 Qxd5 Nc3 Qd8 d4 Bf5 Bc4 e6 Nf3 Bb4 Bd2 Nc6 a3 Ba5 b4 Bb6 Be3 Nf6 O-O Ne4 Nxe4 Bxe4 Ng5 Bg6 "
      "Nf3 O-O c3",
      14, 20);
  expect_one_gap(t, 14, {"20"});
  EXPECT_EQ(t.gaps, 1);
  EXPECT_EQ(t.last_ply, 29);
}

// daemon_gap_hall_test --speed 3 --seed 57556 --first 8,14, board L: TCEC Chess960 game 45 (1800+5).
// Unplugged after 12...Bb5 (ply 12) and plugged in again 19 s later, after 13.Bxb5 Qxb5 14.a4 Qd5 15.Nd3
// (plies 13-17, all pressed: the queen out and back), Black's clock running and his knight in his hand
// for 15...Nf6. The reading's lever change is pending as White's press; the knight is set on f6 and the
// reading's press then searched: a3 Nf6 a4 Bxd3 Nxd3 reaches the board all pressed (the count's five
// presses), and a4 Bxd3 Nxd3 with Nf6 shown after. The shorter was told: three plies recovered, Nf6 live at
// ply 16 and every later move two plies early. Right: the knight waited for in the hand at the
// reading is the story's last move, not pressed, after the five presses the increment counts: plies 13-17 one
// moves-missed holding the moves played, 15...Nf6 live at ply 18, every later move at its ply.
TEST(GapHallCaptures, TheHandsMoveAfterTheReadingFollowsThePressesTheIncrementCounts) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  expect_hall_gap_listed(
      "movers_knight_in_the_hand_at_the_reading_a_detour_counted_by_the_increment.cap",
      "e4 d5 exd5 Qxd5 f4 e6 Nf3 a5 d4 Nd6 Bd3 Bb5 Bxb5 Qxb5 a4 Qd5 Nd3 Nf6 b3 b6 c4 Qb7 Bc3 Be7 Rg1 h5", 13,
      17, R"(["d3b5","d5b5","a2a4","b5d5","c1d3"])", 26, cfg);
}

// daemon_gap_hall_test --speed 3 --seed 222186 --first 20,40, board L: TCEC Chess960 game 47 (1800+5).
// Unplugged after 16.Rc1 (ply 31) and plugged in again after 16...Kg7 17.Ba6 Qb6 18.O-O Bb5 (plies 32-36),
// White's bishop lifted from a6 for 19.Bxb5. The bishop was not waited for: put back on d3, where it stood
// when the board was last followed, no story as short reaches the board, and no story of the board as it is
// passes a6 (they read it as Bb5 Bxb5: the bishop taken). So 32-36 was told as five plies ending with
// ...Bxb5, and White's 19.Bxb5 pressed was no legal move (illegal-move, position-mismatch). Right: a piece of
// his short of its count is tried on the squares it reaches in one move from where it stood (a6): the wait
// for the bishop, then plies 32-37 (the gap and Bxb5) one moves-missed holding the moves played, every later
// move at its ply.
TEST(GapHallCaptures, TheMoversPieceLiftedWhereNoStoryOfTheBoardPassesIsWaitedFor) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  expect_hall_gap_listed("movers_bishop_lifted_where_it_moved_in_the_gap_no_story_passing_there.cap",
                         "c4 c5 b3 f6 f3 b6 Nc2 Nc6 e4 e5 Qa3 d6 Nc3 h5 Ne3 Nc7 Ned5 h4 Be3 b5 Nxb5 Nxb5 "
                         "cxb5 Bxd5 bxc6 Bxc6 Bd3 g5 "
                         "h3 Qc7 Rc1 Kg7 Ba6 Qb6 O-O Bb5 Bxb5 Qxb5 Rc4 a5 Rfc1 Rc8 R1c3 Rhd8 Rd3",
                         32, 37, R"(["f8g7","d3a6","c7b6","f1h1","c6b5","a6b5"])", 45, cfg);
}

// daemon_gap_hall_test --speed 6 --seed 163977, board I: blitz corpus game 364 (120+1). Unplugged after
// 11.Nd3 (ply 21) and plugged in again after 11...Nxd3 12.Bxd3 e5 (plies 22-24), White's hand at work on
// 13.Bxg5: the knight already taken off g5 and the bishop lifted from f4 when the board was read, the bishop
// set on g5 and pressed a scan later. Of the board's own stories, one ends with the bishop's move (four
// plies); but the press went to the search through the hand's move, from the board before it with the
// bishop on each square it can have come from, where the knight is missing too: there the story was eight
// plies (1,192 of them, the knight taken elsewhere and pieces out and back), told as one moves-missed of
// plies 22-29, and every later move went out four plies late. Right: the board's own stories that end with
// the hand's move come first: plies 22-25 recovered, every later move at its ply, no alert.
TEST(GapHallCaptures, TheHandsMoveCapturingItsVictimLiftedBeforeTheReadingEndsTheBoardsOwnStory) {
  expect_hall_gap_recovered(
      "hands_move_a_capture_its_victim_lifted_before_the_reading.cap",
      "d4 d5 Nf3 Nc6 Bf4 Bf5 e3 Nb4 Na3 e6 Be2 Nf6 O-O Bd6 Ne5 Ne4 f3 Ng5 c4 f6 Nd3 Nxd3 "
      "Bxd3 e5 Bxg5 Bxd3 Bxf6 Qxf6 Qxd3 O-O-O c5 Be7 Nb5",
      22, 25, 33);
}

// daemon_gap_past_bound_13_test, failed once in a fresh clone's run on a loaded machine: blitz corpus game 3
// (300+3) at 12x, the board unplugged after 4...Bb4 (ply 8) and plugged in again after 11.d4 (plies 9-21,
// past the search's bound), Black on move. The board was read whole, and 216 ms later Black's hand took the
// a8 rook for 11...Rb8, set it down and pressed at once: the board read never came to rest, so it was never
// searched, and the press found no board read to tell the gap past the bound from. White's 12.Rb1 pressed
// then brought a position-mismatch, and the gap was told from the board after 12...b6, a ply of the wrong
// side on move, so the moves played were refused by `recover --moves`. Right: the board as read, never at
// rest, is the board the press tells the gap from: one moves-missed past the bound, from ply 9, the game
// going on from the position after ply 21, no other alert, no move published after ply 8.
TEST(GapHallCaptures, ABoardReadPastTheBoundNeverAtRestIsTheOneTheNextPressTellsTheGapFrom) {
  expect_past_bound_told("past_bound_read_board_never_at_rest_next_move_pressed.cap",
                         "c4 f5 Nc3 e6 g3 Nf6 Bg2 Bb4 e3 Bxc3 bxc3 O-O Ne2 c6 O-O d6 a4 Nbd7 Ba3 c5 d4", 9);
}

// daemon_gap_past_bound_test --length 13 (the suite's, blitz corpus game 3 at 12x) in a fresh clone's CI run
// on a loaded machine: unplugged after 4...d6 (ply 8), plugged in again after plies 9-21, the clock's lever
// moved meanwhile (White's press of ply 21, read with the reconnect's reading). Black lifted his rook for
// ply 22 a moment after the dump, before the reading's press was decided. The press found no story within
// the bound, and the board read past it was told from only when the presser's next move stood on it: a
// position-mismatch and an adopted position at once. Right: the reading's own press ended the gap at the
// board read, Black on move and his hand at work: one moves-missed past the bound from ply 9, no move
// published after ply 8 (held back until the arbiter gives the gap's moves).
TEST(GapHallCaptures, AReadingsPressPastTheBoundWithTheNextHandAtWorkTellsTheGapFromTheBoardRead) {
  expect_past_bound_told("past_bound_reading_pressed_with_the_next_hand_at_work.cap",
                         "c4 f5 Nc3 e6 g3 Nf6 Bg2 Bb4 e3 Bxc3 bxc3 O-O Ne2 c6 O-O d6 a4 Nbd7 Ba3 c5 d4", 9);
}

// daemon_gap_hall_test --speed 12 --seed 66 --first 20,40, board F: blitz corpus game 328 (600+0), the board
// unplugged with 17.e4's reply under way and plugged in again after plies 34-39 (dxe4 Nxe4 Bxa3 Bxa3 Qxa3
// Nc5), Black's bishop in the hand for 20...Bc8. The dump waited for it until the mismatch time; the daemon
// then stalled, and the bishop set down and pressed, and White's 21.Re1 pressed, were read in one burst a
// millisecond before that time. The mismatch time came with the board changed a millisecond before and
// Black's press not yet decided: position-mismatch, then the gap told. Right: the mismatch time judges a
// board at rest, its presses decided: one moves-missed of plies 34-41 holding the moves played, no other
// alert, every later move at its ply.
TEST(GapHallCaptures, TheMismatchTimeWaitsForTheBoardAtRestAndItsPressesDecided) {
  expect_hall_gap_listed(
      "mismatch_time_a_millisecond_after_a_burst_of_moves.cap",
      "d4 d5 c4 e6 Nc3 c6 e3 a6 b3 Bd6 Bd3 Nf6 Nf3 b5 cxd5 cxd5 O-O Nc6 a3 Qc7 Bb2 Ng4 h3 Nh2 "
      "Nxh2 Bxh2 Kh1 Bd6 Rc1 Qe7 Bb1 Bd7 e4 dxe4 Nxe4 Bxa3 Bxa3 Qxa3 Nc5 Bc8 Re1 Kf8 Qf3 Qb4 "
      "Qxc6 Rb8 Qd6 Ke8",
      34, 41, R"(["d5e4","c3e4","d6a3","b2a3","e7a3","e4c5","d7c8","f1e1"])", 48);
}

// daemon_millennium_restart_test (a Millennium board, no clock) under ASan in a fresh clone's run: blitz
// corpus game 141 at 6x, eboardd killed after 10...Nxc3 and started again after 11.cxb7 Qxb5, with 12.bxa8=Q
// under way: its reading showed the pawn lifted and the rook taken off, the queen set down a second later.
// The reading was searched 250 ms after it was read, as a dump at rest: seven plies whose promoted queen
// takes the place of the one Black's knight captured (c3d1 ... d1c3), told as moves-missed, then "Qa8" and
// "Nd1" published at plies 27-28 and the moves played refused by `recover --moves`. Right: without a clock
// no press says the hands are done, so a reading is searched only once it has rested as long as a move must
// to be complete (complete_after_ms), and a board changed before with every scan since: plies 21-22
// recovered, every later move at its ply, no alert.
TEST(GapHallCaptures, AClocklessReadingIsSearchedOnlyOnceItHasRestedAsAMoveMust) {
  expect_hall_gap_recovered(
      "promotion_under_way_at_a_clockless_reading.cap",
      "e4 e5 Nf3 Nc6 c3 Nf6 d4 exd4 cxd4 Nxe4 d5 Ne7 Ne5 d6 Bb5 c6 dxc6 Qa5 Nc3 Nxc3 cxb7 Qxb5 "
      "bxa8=Q Nxd1 Kxd1 Qxe5 Re1 Qd5 Bd2 Qxa8",
      21, 22, 30);
}

// daemon_gap_hall_test --speed 6 --seed 149267, board E: blitz corpus game 381 (60+0), the board unplugged
// after 4...d6 (ply 8) and plugged in again after plies 9-16 (Bb5 Ne7 Bxc6 Nxc6 Bg5 Be7 Bxe7 Qxe7) with
// 9.Nf3 set down and not pressed. White's dark bishop, taken in the gap, was waited for in White's hand;
// Black's castling ended the wait, and the board read was searched as it stood: two exchanges. The search
// then ran out of work before finding the nine plies, and nothing kept the board as unexplained: a
// position-mismatch at the mismatch time, then the gap told at a later press (kept since as a dump at rest
// is, Black's press telling the gap past the bound from it). The search now finds the nine plies within
// its bound, one story: plies 9-17 recovered, every later move at its ply, no alert.
TEST(GapHallCaptures, ABoardTheWaitForAPieceCouldNotExplainThenIsRecoveredWithinTheBound) {
  expect_hall_gap_recovered(
      "past_bound_exhausted_after_the_wait_for_a_piece_taken_in_the_gap.cap",
      "e4 e5 d4 exd4 Qxd4 Nc6 Qd1 d6 Bb5 Ne7 Bxc6 Nxc6 Bg5 Be7 Bxe7 Qxe7 Nf3 O-O O-O Rd8 "
      "Re1 Ne5 Nxe5 dxe5 Qe2",
      9, 17, 25);
}

// daemon_gap_past_bound_13_test under ASan in a fresh clone's run, two CPU-heavy tests beside it: blitz
// corpus game 3 (300+3) at 12x, unplugged after 4...Bb4 (ply 8), plugged in again after plies 9-21 (past the
// search's bound), White's press of 11.d4 read with the reading. The board was read with the a8 rook already
// in Black's hand; 0.5 s later ...Rb8 was read set down and pressed. Neither the board read (a rook short)
// nor the board with Black's press showed a move from it: a position-mismatch, then 12.Rb1 pressed too, and
// the gap told past the bound only from the board after it, two plies of the game's moves swallowed by it,
// so the 13 moves played were refused by `recover --moves`. Right: the board read with Black's rook put back
// on the square it left is where the gap ends, ...Rb8 the first move after it: one moves-missed past the
// bound from ply 9, the game going on from the position after 11.d4, no other alert, no move published from
// ply 9 on (held until the arbiter gives the gap's moves).
TEST(GapHallCaptures, TheMoversPieceInTheHandAtAReadingPastTheBoundIsPutBackWhereItLeft) {
  const std::string played = "c4 f5 Nc3 e6 g3 Nf6 Bg2 Bb4 e3 Bxc3 bxc3 O-O Ne2 c6 O-O d6 a4 Nbd7 Ba3 c5 d4";
  // The arbiter gives plies 9-21: ...Rb8 and every later move at its ply.
  expect_past_bound_told_and_settled("past_bound_read_with_the_next_move_set_down.cap", played, 9,
                                     "Rb8 Rb1 b6 a5 Bb7 Qa4 Bxg2 Kxg2 Ne4 Rfd1", 27);
}

// daemon_gap_past_bound_13_test in a fresh clone's ci phase, the same game as above: the board read with the
// a8 rook already in Black's hand, and that reading's press (11.d4, read with it) decided before the rook was
// set down: the search of the board read held the daemon's loop a quarter of a second (3 s of the game at
// 12x), so ...Rb8 set down and pressed and 12.Rb1 set down and pressed were read in one burst after it. The
// gap was told from the board read, a rook short; then illegal-move twice, position-mismatch,
// position-adopted, and the moves published from the adopted position. Right: Black's press, no move since,
// shows ...Rb8 from the board told with his rook put back on a8 (and White's reply): the gap is told again
// from that board
// ("retold"), no other alert, no move published from ply 9 on, and the arbiter's moves settle it.
TEST(GapHallCaptures, TheMoversPieceSetDownAfterAReadingPastTheBoundWasDecidedTellsTheGapAgain) {
  const std::string played = "c4 f5 Nc3 e6 g3 Nf6 Bg2 Bb4 e3 Bxc3 bxc3 O-O Ne2 c6 O-O d6 a4 Nbd7 Ba3 c5 d4";
  const std::string name = "past_bound_read_with_the_rook_set_down_after_the_press_was_decided.cap";
  expect_past_bound_told(name, played, 9, 2);
  expect_gap_settled(name, played + " Rb8 Rb1 b6 a5 Bb7 Qa4", 9, 21, 27);
}

// The same capture edited: after the reading, the a8 rook set back where it stood, then ...b6 set down and
// pressed. Right: the gap told again from the board read with the rook on a8, ...b6 the first move after it.
TEST(GapHallCaptures, TheMoversPieceSetBackAfterAReadingPastTheBoundWasDecidedTellsTheGapAgain) {
  const std::string played = "c4 f5 Nc3 e6 g3 Nf6 Bg2 Bb4 e3 Bxc3 bxc3 O-O Ne2 c6 O-O d6 a4 Nbd7 Ba3 c5 d4";
  const std::string name = "past_bound_read_with_the_rook_set_back_then_another_move.cap";
  expect_past_bound_told(name, played, 9, 2);
  expect_gap_settled(name, played + " b6", 9, 21, 22);
}

// daemon_gap_hall_test --speed 3 --seed 214743 --first 8,14, board I: blitz corpus game 45 (300+0), 6.dxe5
// set down as the board was unplugged, then pressed unseen, 6...Nd7 made unseen, and the board read again
// with White's queen lifted 93 ms later for 7.Qxd5, pressed. That press was decided on the boards since the
// last move, and the latest showing one legal move was of before the loss (dxe5): 6.dxe5 was told as the
// move pressed, the board then showed two moves more, a position-mismatch followed, and the gap was told
// only at Black's next press. Right: a press read after a reconnect's reading completes no move the boards
// before that reading showed: plies 11-13 (dxe5 Nd7 Qxd5) recovered, no alert, every later move at its ply.
TEST(GapHallCaptures, APressAfterTheReadingIsNotTheMoveShownBeforeTheLoss) {
  expect_hall_gap_recovered(
      "press_after_the_reading_not_the_move_shown_before_the_loss.cap",
      "d4 d5 Nc3 Nf6 Bf4 Nc6 Nb5 e5 Bxe5 Nxe5 dxe5 Nd7 Qxd5 a6 Nc3 Bb4 e4 O-O Ne2 Nb6 Qxd8 Rxd8 b3 Be6", 11,
      13, 21);
}

// daemon_gap_hall_test --speed 3 --first 8,14 --seed 129015453, board H, two busy loops beside it: blitz
// corpus game 367 (120+1), the board unplugged between two moves and plugged in again with 14...Bd4 set
// down: plies 11-13 (Bxe5 Nxe5 Nxe5) made meanwhile. Two stories of four plies reach the board, the last
// move not pressed: 11.Nxe5 Nd4 12.Bxd4 Bxd4 and the moves played, their last moves both c5-d4, a capture in
// the first only. Taken for the same move, the gap was told as plies 11-13 from the first story, Black's
// press then published 14...Bxd4 (Bd4 was played) and `recover --moves` refused the moves played (they
// lead elsewhere). Right: stories whose positions before the last move differ end in different moves: the
// gap is told whole at the press, plies 11-14 holding the moves played, every later move at its ply.
TEST(GapHallCaptures, TheSameSquaresLastMoveAfterStoriesThatDifferIsNoMoveToPublish) {
  expect_hall_gap_listed(
      "same_squares_tail_a_capture_in_one_story_only.cap",
      "e4 c5 b4 e5 Bb2 Nc6 bxc5 Bxc5 Nf3 Nf6 Bxe5 Nxe5 Nxe5 Bd4 Nd3 Bxa1 c3 Nxe4 Na3 Qe7 Be2 "
      "Nxc3 dxc3 Bxc3",
      11, 14, R"(["b2e5","c6e5","f3e5","c5d4"])", 22);
}

// daemon_gap_hall_test --speed 3 --seed 815521794, board D: blitz corpus game 8 (no increment), style tidy,
// the board unplugged between two moves and plugged in again with Black's f-pawn in the hand for 7...f6:
// plies 9-13 (g3 c5 c3 Nc6 Ngf3) made meanwhile, White's press the clock's state at the reading. The pawn was
// set on f6 and Black pressed. That press found White's pending: judged then, the gap was searched up to it,
// f6 shown after (its story's last move differs between the stories: the gap waits for its press, to be told
// whole), and Black's press, the one it waited for, was dropped. Every later move then went out a press late,
// and the game's last two (11.Nbxd4 e5) never. Right: the press that judged the pending one is f6's: the gap
// told whole at it as plies 9-14, every move since at its ply at its own press, all 22.
TEST(GapHallCaptures, ThePressThatJudgesThePendingReadingCompletesTheMoveShownAfterTheGap) {
  expect_hall_gap_listed(
      "press_of_the_move_set_down_after_the_reading.cap",
      "e4 e6 d4 d5 Nd2 Nf6 e5 Nfd7 g3 c5 c3 Nc6 Ngf3 f6 exf6 Qxf6 Nb3 cxd4 Bg5 Qf7 Nbxd4 e5", 9, 14,
      R"(["g2g3","c7c5","c2c3","b8c6","g1f3","f7f6"])", 22);
}

// A loaded daemon reads late: after a reconnect the board's bytes of the next moments (the dump, the hands'
// next changes, presses) come in one read, stamped alike. Every capture here, its reconnects' first `stall`
// ms so read (each record in the window stamped at its end), tells what it told read in time: no move
// that was not told then (a gap may take in the move that followed it), and no alert but moves-missed that
// was not told then. Stalls of 300, 600 and 1,000 ms (at 3x, 600 ms of the capture's time is 200 ms of real
// time), 1.5 and 2 s. Read a second late or more, one capture tells its gap two plies short: the dump, the
// piece from the hand and the press in one read, the dump never at rest, the board after the press is
// searched, and the detour played (a knight out and back, no increment) is one the board cannot show. An
// increment's count at the reading is taken over the time since the link came up (a burst is stamped at
// its end): TCEC Chess960 game 28's capture read 1.5 s late counted no presses by the stamp, and told a
// press without a move before the gap. Read two seconds late, the ten-ply gaps read with a piece in the hand
// (blitz game 93's knight, Chess960 game 4's pawn) bring the dump, the piece set down, the press and a
// re-read in one burst: the board read is kept for that press (not forgotten when the board first rests with
// the piece back), and the gap is told as read in time.
namespace {

struct ToldLate {
  std::multiset<std::string> moves, alerts;
};

ToldLate told_of(const drivers::Capture& cap, bool chess960) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = chess960;
  ToldLate t;
  auto r = session::replay_capture(cap, cfg);
  if (!r) {
    t.alerts.insert("replay failed: " + r.error());
    return t;
  }
  for (const auto& e : r->events) {
    if (const auto* m = std::get_if<rules::MoveEvent>(&e.what))
      t.moves.insert(std::to_string(m->ply) + " " + m->san);
    else if (const auto* a = std::get_if<rules::AlertEvent>(&e.what); a && a->code != "moves-missed")
      t.alerts.insert(a->code);
  }
  return t;
}

// Every capture of the folder, one test each (ctest runs them in shards side by side).
std::vector<std::string> every_capture() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(EBOARD_TEST_DATA) + "/gap_hall"))
    if (entry.path().extension() == ".cap") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class ReadLate : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(ReadLate, TheCaptureTellsTheSameWhenTheDaemonReadsTheReconnectLate) {
  const std::string name = GetParam();
  auto cap = drivers::read_capture_file(std::string(EBOARD_TEST_DATA) + "/gap_hall/" + name);
  ASSERT_TRUE(cap) << cap.error();
  // Chess960 captures read as such (a standard one tells nothing but moves-missed read as chess).
  ToldLate in_time = told_of(*cap, false);
  const bool chess960 = !in_time.alerts.empty() && told_of(*cap, true).alerts.size() < in_time.alerts.size();
  if (chess960) in_time = told_of(*cap, true);
  for (const std::int64_t stall : {300, 600, 1000, 1500, 2000}) {
    if (stall >= 1000 && name == "held_kind_taken_in_the_gap_another_kind_capturing_from_the_hand.cap")
      continue;
    const ToldLate stalled = told_of(read_late(*cap, stall), chess960);
    const std::string what = name + ", read " + std::to_string(stall) + " ms late";
    for (const auto& m : stalled.moves) EXPECT_TRUE(in_time.moves.count(m)) << what << ": move " << m;
    for (const auto& a : stalled.alerts)
      EXPECT_LE(stalled.alerts.count(a), in_time.alerts.count(a)) << what << ": alert " << a;
  }
}

INSTANTIATE_TEST_SUITE_P(GapHallCaptures, ReadLate, ::testing::ValuesIn(every_capture()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string id = param.param.substr(0, param.param.size() - 4);
                           for (char& c : id)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return id;
                         });

TEST(GapHallCaptures, EveryCaptureAboveIsReadLateToo) {
  EXPECT_GE(every_capture().size(), 55u);  // the captures above
}

// daemon_gap_hall_test --speed 3 --seed 1006209789 --lengths 9,10, board B: blitz corpus game 176 (60+0),
// unplugged with 5.Nf3 under way (ply 9), plugged in again with plies 9-18 made and 10.a4 (ply 19) set down,
// not pressed: 11 plies from the last known position, past the search's bound (10). White pressed 0.5 s after
// the reading, nothing changed on the board. That press was searched again as the board was read (no move of
// White's from it), and at the mismatch time a position-mismatch was told; the gap was told past the bound
// only at Black's press 8 s later. Right: the press, the board unchanged since the reading, ends the gap at
// the board read with Black on move: one moves-missed past the bound from ply 9 at that press, no other
// alert, nothing published from ply 9 on until the arbiter gives the gap's moves; then every move at its ply.
TEST(GapHallCaptures, ThePressOfTheMoveShownAtAReadingPastTheBoundTellsTheGap) {
  const std::string played = "d4 c5 c4 cxd4 Qxd4 Nc6 Qd1 Nf6 Nf3 g6 e3 Bg7 Be2 O-O O-O d6 Nc3 Bg4 a4";
  expect_past_bound_told_and_settled("past_bound_read_with_the_movers_move_set_down_pressed_after.cap",
                                     played, 9, "Rc8 a5 Be6 b3 Ne5 Bb2 Nxf3 Bxf3", 27);
}

// daemon_gap_hall_test --speed 3 --seed 159374802 --lengths 9,10, board B: blitz corpus game 25 (180+0),
// unplugged with 5...e5 under way (ply 10), plies 10-19 made unseen, plugged in again with 10...dxe5 (ply 20)
// under way: the white pawn already lifted from e5, Black's d-pawn in the hand, set down on e5 62 ms after
// the reading and pressed 0.4 s later. No Black move from the board read shows the board at the press (the
// victim is not on it), so that press told nothing; a position-mismatch at the mismatch time, the gap past
// the bound only at White's next press. Right: the board read with the victim put back on e5 and Black's pawn
// on d6, the square it left, is within ten plies: the gap told as plies 10-19 at that press, 10...dxe5 the
// first move after it, every move at its ply; the arbiter's moves for the gap accepted.
TEST(GapHallCaptures, ACaptureWhoseVictimAndTakerWereLiftedAtTheReadingEndsTheGapBeforeItsMove) {
  expect_hall_gap_told_and_settled("past_bound_read_with_a_capture_under_way_its_victim_lifted.cap",
                                   "e4 d6 d4 Nf6 Nc3 g6 d5 Bg7 Nf3 e5 dxe6 Bxe6 Bg5 a5 Qe2 O-O O-O-O Na6 e5 "
                                   "dxe5 Rxd8 Raxd8 Bxf6 Bxf6 Qe4 Nc5 Qe1 a4",
                                   10, 19, 28);
}

// daemon_gap_hall_test --speed 3 --seed 53241494 --lengths 9,10, board C: blitz corpus game 95 (180+0),
// plies 13-21 (Nh3 Bb4 c3 Bd6 cxd4 Qe7 dxe5 Nxe5 Nd4) made unseen, read with the queen in Black's hand for
// 11...Qh4+ from e7. Stories two plies shorter, the bishop straight to d6 and the queen from d8, reach that
// board: told so, its length uncertain, the moves since two plies early (no board shows the detours). The
// arbiter's moves, the nine played, were refused: they leave the queen on e7, the game went on from it on
// d8. Right: they are accepted, the queen's move from e7 the first after them, every move at its ply.
// Given when the game is over (the hall's arbiter, after 13...Qh4+ went out from d8), they are accepted too,
// the queen's move from e7 the first after them, and every move since at its ply.
TEST(GapHallCaptures, TheMovesPlayedAreAcceptedWithTheHeldPieceFromAnotherSquare) {
  const std::string name = "told_short_the_queen_in_the_hand_from_another_square.cap";
  const std::string game =
      "b3 d5 Bb2 Nc6 Nc3 e5 e4 d4 Nce2 Bg4 f3 Bh5 Nh3 Bb4 c3 Bd6 cxd4 Qe7 dxe5 Nxe5 Nd4 Qh4 g3 Qd8 Nf5 Nxf3 "
      "Kf2 Bc5 d4 Bb6";
  expect_gap_settled(name, game, 13, 21, 30);
  expect_gap_settled_at_the_end(name, game, 13, 21);
}

// daemon_gap_hall_test --speed 3 --seed 754041425 --lengths 9,10, board E: blitz corpus game 253 (300+0),
// plies 11-19 (Nf3 Bf5 g3 Qd7 Bd3 Bxd3 cxd3 Nf6 h3) made unseen and 10...Qc7 set down, the queen back on the
// square it left: a story two plies shorter, the queen never moved and ...Nf6 set down, reaches that board.
// Told so, its length uncertain; when the game was over the arbiter's moves, the nine played, were refused
// (so were the longer ones): they leave the queen on d7, and the move after them the game has is ...Nf6.
// Right: they are accepted, ...Qc7 the move after them, every move since at its ply.
TEST(GapHallCaptures, TheMovesPlayedAreAcceptedWithADetourAcrossTheGapsEnd) {
  expect_gap_settled_at_the_end(
      "told_short_a_detour_across_the_gaps_end.cap",
      "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c6 Bd2 Qc7 Nf3 Bf5 g3 Qd7 Bd3 Bxd3 cxd3 Nf6 h3 Qc7 "
      "Bf4 Qb6 Ne4 Nbd7 Nxf6 Nxf6 O-O e6",
      11, 19);
}

// daemon_gap_hall_test --speed 6 --seed 635726067 --lengths 9,10, board H: blitz corpus game 198 (300+3,
// seven plies seen: too few to learn the increment), plies 8-18 (Nxe4 Nxe4 d5 Bd3 dxe4 Bxe4 f5 Bxc6 bxc6
// Nxe5 Qf6) made unseen, White on move at the reading. Nine plies (a knight's capture on f6 for the bishop's
// walk) and 9.Nxe5 shown, not pressed, reach that board too: told so, its alert not saying that a longer
// story may be the one; then White played 10.d4 and pressed, and Nxe5 went out as his move, every later
// Black move two plies early. Right: the alert says its length is uncertain; White's press with another move
// of his from the board read tells the gap again past the bound (all of it pressed, eleven plies), nothing
// published until the arbiter gives the gap's moves; given when the game is over, accepted, each at its ply.
TEST(GapHallCaptures, AGapToldWithItsLastMoveShownIsToldAgainWhenItsMoverMovesOn) {
  const std::string name = "told_short_its_last_move_shown_the_tail_flushed.cap";
  const auto missed = missed_alerts(name);
  ASSERT_FALSE(missed.empty());
  EXPECT_EQ(field(missed.front(), "length_uncertain"), "true");
  EXPECT_NE(missed.front().detail.find("a longer story"), std::string::npos) << missed.front().detail;
  expect_told_again_past_the_bound_and_settled(name,
                                               "e4 e5 Nf3 Nc6 Bc4 Nf6 Nc3 Nxe4 Nxe4 d5 Bd3 dxe4 Bxe4 f5 Bxc6 "
                                               "bxc6 Nxe5 Qf6 d4 Be6 O-O Bd5 c4 Be6 b3 Bc8",
                                               8, 18);
}

// daemon_gap_hall_test --speed 6 --seed 715329012 --lengths 9,10, board H: blitz corpus game 5 (300+3),
// plies 11-20 (Nc3 c5 Bd3 Nc6 O-O cxd4 exd4 dxc4 Bxc4 Na5) made unseen, 11.Be2 (ply 21) pressed as the board
// was read. Nine plies and ...Na5 shown, the same in every story, reach that board as well: told so; Black's
// 11...Nd5 then went out as Na5, 12.Bg5 at ply 21, and White's next press as an illegal move. Right: Black's
// press with another move of his from the board read tells the gap again past the bound, nothing published
// until the arbiter's moves, then each move at its ply.
// Given at once, before Black moved on (the hall's arbiter, on this game's next run), the eleven moves played
// lead to the board as it stands, ...Na5 and Be2 with them: accepted, every move since at its ply.
TEST(GapHallCaptures, AGapsShownLastMoveTheSameInEveryStoryIsRefutedByItsMoverMovingOn) {
  const std::string name = "told_with_its_last_move_shown_the_mover_moving_on.cap";
  const std::string game =
      "d4 Nf6 Nf3 g6 Bf4 Bg7 e3 d5 c4 O-O Nc3 c5 Bd3 Nc6 O-O cxd4 exd4 dxc4 Bxc4 Na5 Be2 Nd5 Bg5 Nxc3 bxc3 "
      "h6 "
      "Bh4 g5 Bg3";
  expect_told_again_past_the_bound_and_settled(name, game, 11, 21);
  expect_gap_settled(name, game, 11, 21, 29);
}

// daemon_gap_hall_test --speed 3 --seed 637839881 --lengths 9,10, board H: blitz corpus game 37 (60+0),
// plies 13-23 (d4 exd4 exd4 Nxd4 Qd1 Nc6 Be2 O-O Nf3 d5 O-O) made unseen, read with Black on move: eleven
// plies, past the bound. Nine plies and a tenth shown, not pressed (...O-O or ...d5 after an exchange of the
// e-pawn for the d-pawn), reach that board as well: told so, the tail open. Black then played 12...d4, the
// d-pawn on from d5, and pressed: d5 went out as his move, then White's press as one without a move, a
// mismatch and an adoption. Right: his move from the board read says he was on move there, all of it
// pressed: the gap told again past the bound at that press (nothing of the open tail told before), the game
// from the board read, nothing published until the arbiter gives the gap's moves; then each at its ply.
TEST(GapHallCaptures, AMoveOnFromTheBoardReadRefutesTheOpenTail) {
  expect_past_bound_told_and_settled(
      "past_bound_read_all_pressed_the_tail_told_moved_on.cap",
      "b3 e5 Bb2 Nc6 e3 Ba3 c4 Bxb2 Nc3 Bxa1 Qxa1 Nf6 d4 exd4 exd4 Nxd4 Qd1 Nc6 "
      "Be2 O-O Nf3 d5 O-O",
      13, "d4 Nd5 Nxd5 cxd5 Qxd5 Bc4 Qh5 h3", 31);
}

// daemon_gap_hall_test --speed 3 --seed 680480513 --lengths 9,10, board F: blitz corpus game 210 (1800+0),
// plies 13-22 (c4 Nde7 d5 exd5 cxd5 Nxd5 Nc3 Nxc3 bxc3 Qe7) made unseen, plugged in again with Black's queen
// in the hand for 11...Qe7, set down 0.3 s after the reading and pressed. The board's own search was cut by
// its work bound after nine stories, none of the shape played (c3 Nxc3 d5 Nxb1 dxe6 ... Qxe7), and the search
// through the queen's move gave up when its first origin's list was cut too: "at least 9" told, the moves
// played not among them. Right: the queen's square when last followed searched first, the stories through
// its move found there told as a list left incomplete: the moves played listed, every later move at its ply.
TEST(GapHallCaptures, TheHeldPiecesStoriesFromWhereItStoodAreListedWhenTheWorkRunsOut) {
  expect_hall_gap_listed(
      "ten_plies_read_with_the_queen_in_the_hand_the_list_cut_by_its_work.cap",
      "e4 b6 d4 Bb7 Bd3 Nc6 Nf3 e6 a3 Nf6 e5 Nd5 c4 Nde7 d5 exd5 cxd5 Nxd5 Nc3 Nxc3 bxc3 Qe7 "
      "O-O O-O-O Re1 h6 Bb2 Qc5 Qe2 Be7",
      13, 22, R"(["c2c4","d5e7","d4d5","e6d5","c4d5","e7d5","b1c3","d5c3","b2c3","d8e7"])", 30);
}

// daemon_gap_hall_test --speed 3 --seed 680480513 --lengths 9,10, board B: blitz corpus game 184 (600+0),
// plies 13-22 (d3 O-O Be3 Bb6 Qd2 Kh7 Nh4 Nxe4 dxe4 Qxh4) made unseen, plugged in again with 12.Bxb6 (ply 23)
// under way: Black's bishop already lifted from b6 and White's from e3. The board read with only the bishop
// put back on e3 is as well reached within ten plies, by an exchange on e3 (...Bxe3 Bxe3): told so, and the
// press went out as 12.Bb6, not the move played at ply 23. Right: two boards read with the hand put back are
// reached, the pressed move differs after them: the gap told whole as plies 13-23 at the press, its
// candidates listing the moves played, nothing of it published as a live move; every later move at its ply.
TEST(GapHallCaptures, APressedMoveThatDiffersBetweenTheBoardsReadIsToldWithTheGap) {
  const std::string game =
      "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O d6 h3 Nf6 c3 h6 d3 O-O Be3 Bb6 Qd2 Kh7 Nh4 Nxe4 dxe4 Qxh4 Bxb6 axb6 f4 exf4 "
      "Rxf4 Qg5 Qf2 Ne5 Be2";
  expect_hall_gap_listed("ten_plies_read_with_the_victim_and_its_taker_in_the_air.cap", game, 13, 23,
                         R"(["d2d3","e8g8","c1e3","c5b6","d1d2","g8h7","f3h4","f6e4","d3e4","d8h4","e3b6"])",
                         31);
  expect_gap_settled("ten_plies_read_with_the_victim_and_its_taker_in_the_air.cap", game, 13, 23, 31);
}

// daemon_gap_hall_test --speed 6 --lengths 9,10 (its seed not kept), board I: blitz corpus game 433 (300+0),
// plies 14-23 (e6 Nf3 Bb4 Nb5 O-O Ng5 h6 Nf3 Qc8 g3) made unseen, plugged in again with Black's a-pawn in the
// hand for 12...a6 (ply 24). The reading's search waited for the hand; the pawn was set on a6 and pressed:
// that board is 11 plies from the last known one, past the bound, and the board read was never searched, so
// nothing was told at the press; at White's next press the game was adopted from the board, and every later
// move went out ten plies early (25.Nc3 as ply 15). Right: the board read with the pawn put back on a7 is
// within ten plies: the gap told as plies 14-23 at Black's press, 12...a6 the first move after it, every move
// at its ply; the arbiter's moves for the gap accepted.
TEST(GapHallCaptures, APieceInTheHandAtAReadingTenPliesOnEndsTheGapBeforeItsMove) {
  expect_hall_gap_told_and_settled(
      "ten_plies_read_with_a_pawn_in_the_hand_the_press_a_ply_past_the_bound.cap",
      "d4 d5 Qd3 Nf6 f4 Nc6 Nc3 g6 Be3 Bf5 O-O-O Bxd3 exd3 e6 Nf3 Bb4 Nb5 O-O Ng5 h6 Nf3 Qc8 g3 a6 Nc3 a5 a3 "
      "Bxc3 bxc3 Qd7 Ne5 Nxe5",
      14, 23, 32);
}

// daemon_gap_hall_test --speed 3 --seed 399411386 --lengths 9,10, board C: blitz corpus game 197 (420+0),
// plies 9-18 (O-O Bc5 d4 Bxd4 c3 Bxe5 Qxd8 Kxd8 f4 Bd6) made unseen, plugged in again with White's f1 rook in
// the hand for 10.Rd1 (ply 19), set down and pressed in one burst. As above, nothing was told at the press,
// then position-mismatch, position-adopted, and every later move ten plies early. The board read with the
// rook put back has two squares it may have left (e1 and f1, both empty): only f1 is reached within ten
// plies. But so is the board read with Black's queen put back on d1 too (...Qxd1 within the gap, the queen
// lifted at the reading for Rxd1): after the two, 10.Rd1 is not the same move. Right: the gap told whole as
// plies 9-19 at the press, every later move at its ply; the arbiter's moves for the gap accepted.
TEST(GapHallCaptures, OfTheBoardsThePieceInTheHandMayHaveLeftTwoWithinTheBoundTellTheGapWhole) {
  expect_hall_gap_told_and_settled(
      "ten_plies_read_with_a_rook_in_the_hand_from_one_of_two_squares.cap",
      "e4 d5 Nf3 dxe4 Ne5 Nf6 Bc4 e6 O-O Bc5 d4 Bxd4 c3 Bxe5 Qxd8 Kxd8 f4 Bd6 Rd1 Ne8 f5 exf5 Bf4 Be6 Bxe6 "
      "fxe6 c4",
      9, 19, 27);
}

// daemon_gap_hall_test --speed 6 --seed 941151033 --lengths 9,10, board I: blitz corpus game 93 (180+0),
// plies 13-22 (c4 d6 O-O Bg4 Re1 Qd7 Nd4 O-O Nc3 c5) made unseen, plugged in again with White's knight in the
// hand for 12.Nf3 (ply 23), set down and pressed a second later. A story of ten plies reaches that board with
// White on move: the knight never moved, a detour c3-c4 for c4, Black's last move not pressed. It was told
// so, then White's press read as one without a move, the arbiter's moves (the ten played) refused, a mismatch
// and an adoption. Right: his press of the piece he held says he moved; no story within the bound ends with
// that move, and the squares the knight may have left are several, more than one reached within the bound:
// the gap told whole as plies 13-23 at that press, 12.Nf3 its last ply, every later move at its ply; the
// arbiter's moves for the gap accepted.
TEST(GapHallCaptures, TheHeldPiecesPressFromSeveralSquaresWithinTheBoundTellsTheGapWhole) {
  expect_hall_gap_told_and_settled("ten_plies_read_with_a_knight_in_the_hand_from_one_of_several_squares.cap",
                                   "e4 g6 Nf3 Bg7 d4 e6 d5 exd5 exd5 Qe7 Be2 Nf6 c4 d6 O-O Bg4 Re1 Qd7 Nd4 "
                                   "O-O Nc3 c5 Nf3 Bxf3 Bxf3 a6 Bd2 "
                                   "b5 cxb5 axb5 b3",
                                   13, 23, 31);
}

// daemon_gap_hall_test --speed 6 --seed 32989238 --lengths 9,10, board C: blitz corpus game 125 (180+0),
// plies 11-20 (Qxd5 Ne7 Qb3 Nbc6 Bc4 Nxe5 Bg5 Nxc4 Qxc4 Qb6) made unseen and 11.Nf3 (ply 21) set down while
// the board was away, pressed 3.3 s after the link came back, the board read late on a loaded run. The board
// read with the knight put back on g1 ends the gap; its stories were searched as any reading's, and their
// length waited for a press, though the press that found them was the one after them. At the mismatch time
// the gap was told with its length unknown, the game from the board read, Nf3 and d5 since then unexplained:
// 12.Qe2's press read as one without a move, a mismatch, an adoption, every later move twelve plies early
// (13...Rh7 as ply 14). Right: the stories ending at the board read are all pressed (the press is of the move
// after them), told at that press. The board read with a black knight put back on f3 too (...Nxf3 within the
// gap, the knight lifted at the reading for Nxf3) is as well within ten plies: the gap told whole as plies
// 11-21 at that press, each move since at its ply.
TEST(GapHallCaptures, TheStoriesBeforeThePressedMoveAreToldAtThatPress) {
  expect_hall_gap_told_and_settled("ten_plies_the_reconnects_board_late_its_press_the_first_move_after.cap",
                                   "e4 f5 e5 g6 d4 c5 c3 e6 d5 exd5 Qxd5 Ne7 Qb3 Nbc6 Bc4 Nxe5 Bg5 Nxc4 Qxc4 "
                                   "Qb6 Nf3 d5 Qe2 h6 Qe5 Rh7 Bc1 Bg7 "
                                   "Qe2",
                                   11, 21, 29);
}

// daemon_gap_hall_test --speed 6 --seed 849556156 --lengths 9,10, board B: blitz corpus game 403 (600+0),
// unplugged with 6.f3 under way (ply 11), plies 11-20 (f3 Bf5 a3 e6 Bd3 Bxd3 Qxd3 Bd6 Bxd6 Qxd6) made unseen
// and 11.Nge2 (ply 21) set down, pressed a third of a second after the reading, nothing changed on the board.
// The board read is short of White's pieces taken within the gap, and a story reached it with one of them
// put back: its search waited for White's hand, and his press, the piece never set down, waited too; Black's
// castling came first, and at its king's placement the press told a position-mismatch, the gap past the
// bound only at Black's press. Right: the mover's press with nothing touched since the reading says his hand
// held nothing; the board read, 11 plies on, is past the bound: one moves-missed past the bound from ply 11
// at that press, nothing published until the arbiter gives the gap's moves; then each at its ply.
TEST(GapHallCaptures, TheHeldPiecesMoverPressingWithNothingTouchedEndsTheWaitForHisHand) {
  const std::string played =
      "e4 c6 d4 d5 exd5 cxd5 Bf4 Nf6 Nc3 Nc6 f3 Bf5 a3 e6 Bd3 Bxd3 Qxd3 Bd6 Bxd6 Qxd6 Nge2";
  expect_past_bound_told_and_settled("past_bound_read_with_the_movers_pieces_short_pressed_untouched.cap",
                                     played, 11, "O-O O-O a6 f4 Nd7 Rf3 Nf6 Rh3 Rfe8", 29);
}

// daemon_gap_hall_test --speed 3 --seed 966103576 --lengths 9,10, board B: blitz corpus game 343 (60+0),
// unplugged with 5...Nf6 under way (ply 10), plies 10-19 made unseen and 10...Qxh4 (ply 20) set down, Black's
// press half a second after the reading. As above: the board short of Black's rook and h-pawn, the press
// waited for a hand that held nothing, a position-mismatch. Right: one moves-missed past the bound from ply
// 10 at that press, then each move at its ply once the arbiter gives the gap's.
TEST(GapHallCaptures, TheHeldPiecesMoverPressingWithNothingTouchedTellsTheGapPastTheBound) {
  const std::string played = "d4 e5 Nf3 e4 Nfd2 e3 fxe3 Bd6 Nf3 Nf6 g3 h5 Bg2 h4 Nxh4 Rxh4 gxh4 Ng4 h3 Qxh4";
  expect_past_bound_told_and_settled("past_bound_read_with_a_black_piece_short_pressed_untouched.cap", played,
                                     10, "Kd2 Nf2 Qe1 Ne4 Bxe4 Qxe4 Rf1 Nc6 Nc3 Bb4", 28);
}

// daemon_gap_hall_test --speed 3 --seed 311932027 --lengths 9,10, board L: TCEC Chess960 game 4 (bnnrkqrb,
// 1800+5), plies 13-22 (g3 O-O Rfe1 f5 a3 exd5 cxd5 Rc8 Na2 c4) made unseen, plugged in again with White's
// a-pawn in the hand for 12.a4 (ply 23), set down 0.4 s after the reading and pressed 0.7 s later. The board
// read with the pawn put back on a3 is within ten plies, but the searches of the board read and of the board
// at the press had both failed first, and two failures stop a gap's searches: a position-mismatch, the gap
// past the bound at Black's press. Right: the board with the pawn put back, a story known to reach it, is
// searched: plies 13-22 told at White's press, 12.a4 the first move after it, each at its ply.
TEST(GapHallCaptures, TheBoardWithThePieceInTheHandPutBackIsSearchedAfterSearchesInVain) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  expect_hall_gap_told_and_settled(
      "ten_plies_read_with_a_pawn_in_the_hand_after_searches_in_vain_chess960.cap",
      "d4 b6 e3 e6 Qe2 g6 O-O c5 c4 Qe7 d5 Nd6 g3 O-O Rfe1 f5 a3 exd5 cxd5 Rc8 "
      "Na2 c4 a4 Bb7 Na3 Na6 Nb5 Ne4 Nxa7 Rc5 f3 Nd6",
      13, 22, 31, cfg);
}

// daemon_gap_hall_test --speed 6 --seed 796653147 --lengths 9,10, board I: blitz corpus game 180 (420+0),
// plies 12-20 (h6 Bxf6 Bxf6 Nbd2 Nd7 e4 dxe4 Nxe4 c5) made unseen, plugged in again with 11.Nxf6+ (ply 21)
// under way: the f6 bishop already off the board at the reading, the e4 knight lifted 92 ms after it, set on
// f6 and pressed in one read 1.6 s later. The board read (never at rest, so never searched) with the knight
// moved from it to f6 is the board at the press; that press was taken for a move from a board past the
// search's bound, the gap told past it from the board read (the bishop missing from it), and the moves
// played refused. Right: the board at the press is reached within the bound: plies 12-21, or 12-20 and
// Nxf6+ the first after them, every move at its ply, the arbiter's moves accepted.
TEST(GapHallCaptures, ABoardReadWithTheVictimLiftedIsNoGapPastTheBound) {
  expect_hall_gap_told_and_settled(
      "nine_plies_read_with_the_victim_lifted_the_taker_lifted_after.cap",
      "Nf3 d5 d4 e6 g3 Nf6 Bg2 Be7 Bg5 O-O O-O h6 Bxf6 Bxf6 Nbd2 Nd7 e4 dxe4 Nxe4 "
      "c5 Nxf6 Nxf6 dxc5 Qc7 b4 a5 c3 axb4 cxb4 Rb8 Qb3 b6",
      12, 20, 29);
}

// daemon_gap_hall_test --speed 3 --seed 293556139 --lengths 9,10, board I: blitz corpus game 315 (60+0),
// plies 11-20 (Bg5 Nd5 Nxd5 Qxd5 h4 Bg4 Be2 Bxf3 Bxf3 Qxd4) made unseen, plugged in again with 11.Bxc6+
// (ply 21) under way: the c6 knight already off the board at the reading, the f3 bishop lifted 0.2 s after
// it, set on c6 and pressed. The board at the press is eleven plies on, past the bound; the bishop's move
// from the board read (c6 empty there) was taken for the pressed move, the gap told past the bound from a
// board missing the knight, and the moves played refused. Right: the board read with the victim put back on
// c6 is reached within ten plies: plies 11-20 told at the press, Bxc6+ the first after them, each at its ply.
TEST(GapHallCaptures, TheVictimLiftedBeforeAReadingTenPliesOnIsPutBack) {
  expect_hall_gap_told_and_settled("ten_plies_read_with_the_victim_lifted_the_taker_lifted_after.cap",
                                   "e4 d5 exd5 Qxd5 Nc3 Qd8 Nf3 Nf6 d4 Nc6 Bg5 Nd5 Nxd5 Qxd5 h4 Bg4 Be2 Bxf3 "
                                   "Bxf3 Qxd4 Bxc6 bxc6 Qxd4 Rd8 Qxa7 f6 Qxc7 fxg5 Qxc6 Kf7 hxg5 e6",
                                   11, 20, 29);
}

// daemon_gap_hall_test --speed 3 --seed 293556139 --lengths 9,10, board C: blitz corpus game 312 (60+0),
// plies 11-19 (Bb5 O-O Qd2 b6 O-O-O Bb7 h4 a6 Bd3) made unseen, plugged in again with Black's b-pawn in the
// hand for 10...b5 (ply 20), set down and pressed. The shortest stories are eight plies (the bishop's detour
// by b5 and the pawn's two steps each read as one move), their last move shown and not pressed at the
// reading; the clock adds no increment, so its presses cannot tell. Told once the press came, the whole
// stories' alert did not say a longer story may be the one (the prefixes' alert would have). Right: the
// moves-missed of plies 11-18 says its length is uncertain, and the moves played, given, put every later
// move at its ply.
TEST(GapHallCaptures, TheWholeStoriesToldAfterTheirLastMoveSayTheirLengthIsUncertain) {
  const std::string name = "two_detours_told_short_the_last_move_shown_at_the_reading.cap";
  const auto missed = missed_alerts(name);
  ASSERT_EQ(missed.size(), 1u);
  EXPECT_EQ(field(missed.front(), "first_ply"), "11");
  EXPECT_EQ(field(missed.front(), "last_ply"), "18");
  EXPECT_EQ(field(missed.front(), "length_uncertain"), "true");
  expect_gap_settled(name,
                     "e4 g6 d4 Bg7 Nc3 Nc6 Be3 e6 Nf3 Nge7 Bb5 O-O Qd2 b6 O-O-O Bb7 h4 a6 Bd3 b5 h5 b4 hxg6 "
                     "bxc3 gxh7 Kh8 Qxc3 Rb8 Bh6 Ng6",
                     11, 20, 28);
}

// daemon_gap_hall_test --speed 3 --seed 484647255 (usual lengths), board I: blitz corpus game 58 (300+0),
// plies 14-19 (h6 Qc2 O-O e4 dxe4 Nxe4) made unseen, plugged in again with 10...Nxe4 (ply 20) under way:
// White's knight already off e4 at the reading, Black's f6 knight lifted a third of a second later, set on
// e4 and pressed. The victim was looked for with Black's pieces short of their count put back where they
// stood (the taker in the air too): the d-pawn, taken within the gap, back on d5, and no story reached that
// board. The dump as read was told by eight plies (the f3 knight taken on f3 by the pawn, the d2 knight
// retaking), Nf6-e4 then a move from it: "Ne4" went out at ply 22 where ...Nf6 was played, and every later
// move two plies late. Right: the knight put back on e4 on the board as read is within the bound: plies 14-20
// listed (the played among them), each later move at its ply.
TEST(GapHallCaptures, TheVictimIsLookedForOnTheBoardAsReadToo) {
  expect_hall_gap_listed(
      "victim_lifted_at_the_reading_its_takers_pawn_taken_in_the_gap.cap",
      "d4 d5 Nf3 e6 g3 Bd6 Bg2 c6 O-O Nf6 c3 Nbd7 Nbd2 h6 Qc2 O-O e4 dxe4 Nxe4 Nxe4 Qxe4 Nf6 "
      "Qc2 Nd5 b3 Bd7 c4 Nf6",
      14, 20, R"(["h7h6","d1c2","e8g8","e2e4","d5e4","d2e4","f6e4"])", 28);
}

// daemon_gap_hall_test --speed 3 --seed 326476356 --lengths 9,10, board I: blitz corpus game 201 (300+3),
// style casual, plies 13-21 (Qxf3 Nc6 Bb5 Qd6 Bf4 Qe6 Kf2 O-O-O Bxc6) made unseen, plugged in again with
// Black's hand at work on 11...Qxc6 (ply 22): White's bishop already off c6 when the board was read, the
// queen lifted a quarter of a second later, set on c6 and pressed. Bb5 Nbd7 Bxd7 Qxd7 within the gap reaches
// the board read too (the bishop taken on d7), and the gap was told so at the reading, nine plies with Black
// on move; his press then went out as "Qc6" at ply 22, a move not played at its ply. Right: the board read
// with the bishop put back on c6 is reached within the bound as well, the pressed move a capture after it:
// the gap is told again whole with the press (plies 13-22, the moves played among the candidates), nothing
// of it published as a live move, and every later move at its ply.
TEST(GapHallCaptures, APieceLiftedAtAReadingToldWithoutItMayBeThePressedMovesVictim) {
  const std::string name = "victim_lifted_at_the_reading_the_gap_told_without_it.cap";
  const std::string game =
      "d4 d5 e4 dxe4 f3 exf3 Nxf3 Nf6 Nc3 Bg4 h3 Bxf3 Qxf3 Nc6 Bb5 Qd6 Bf4 Qe6 Kf2 O-O-O Bxc6 Qxc6 Qe3 e6 "
      "Rhd1 Bb4 Kg1 Bxc3 bxc3 Nd5";
  const Told t = replay_hall_capture(name, game, 13, 22);
  ASSERT_EQ(t.missed.size(), 2u);
  EXPECT_EQ(field(t.missed.front(), "last_ply"), "21");
  EXPECT_EQ(field(t.missed.back(), "first_ply"), "13");
  EXPECT_EQ(field(t.missed.back(), "last_ply"), "22");
  EXPECT_NE(field(t.missed.back(), "candidates")
                .find(R"(["d1f3","b8c6","f1b5","d8d6","c1f4","d6e6","e1f2","e8c8","b5c6","e6c6"])"),
            std::string::npos)
      << "the moves played are not among the candidates listed";
  EXPECT_EQ(t.last_ply, 30);
  // The arbiter's nine moves given as soon as the first alert is out (before the press; the board shows the
  // capture under way), or the ten once it is over: accepted, every later move at its ply.
  expect_gap_settled(name, game, 13, 21, 30);
  expect_gap_settled_at_the_end(name, game, 13, 22);
}

// daemon_gap_hall_test --speed 3 --seed 123749352 --lengths 9,10, board I: blitz corpus game 32 (60+0), plies
// 11-20 (Qxd4 Nc6 Bb5 Ne7 Bxc6 Nxc6 Qe3 Be6 O-O Be7) made unseen, plugged in again with 11.Rd1's rook in the
// hand; it was set down and pressed, and the press decided when Black's king was lifted for 11...O-O. The gap
// was told then, Rd1 after it, and the king's lift was judged with Rd1's turn and lost: Black's rook, lifted
// after the king was set on g8, read as touched first, a touch-move alert ("the rook before the king", 4.4.2)
// for a castling made right. Right: the gap listed (the moves played among its candidates), Rd1 at its ply,
// the king's lift Black's first touch, no alert but the gap's.
TEST(GapHallCaptures, TheNextMoversLiftThatDecidedAPressAfterAGapIsHisTurnsTouch) {
  expect_hall_gap_listed(
      "press_decided_by_the_next_movers_castling_king.cap",
      "e4 c5 Nf3 d6 d4 cxd4 Nxd4 e5 Nc3 exd4 Qxd4 Nc6 Bb5 Ne7 Bxc6 Nxc6 Qe3 Be6 O-O Be7 Rd1 "
      "O-O f4 Qb6 f5 Bc8 Kh1 Bd8 Qg3",
      11, 20, R"(["d1d4","b8c6","f1b5","g8e7","b5c6","e7c6","d4e3","c8e6","e1g1","f8e7"])", 29);
}

// daemon_gap_hall_test --speed 3 --seed 708587383 --lengths 9,10, board B: blitz corpus game 111 (180+0),
// plies 8-17 (Nf6 a3 d5 Ba2 dxe4 dxe4 Qxd1 Kxd1 Be7 Nge2) made unseen, plugged in again with 9...O-O half
// made: the king set on g8, the h8 rook in the hand. Set on f8 and pressed, the board read was explained with
// a rook put back on e8 (...Rf8 from it), past the bound, and the gap told past it: the arbiter's ten moves
// refused. And seed 548965426 board F: game 372 (120+1), plies 10-19 made unseen, White's O-O among them,
// Black's 10...O-O half made at the reading. Right: the board read with the king and the rook put back where
// the right keeps them is reached within the bound, the castling the first move after the gap.
TEST(GapHallCaptures, ACastlingHalfMadeAtATenPlyReadingIsTheFirstMoveAfterTheGap) {
  expect_hall_gap_listed("castling_half_made_at_a_ten_ply_reading.cap",
                         "e4 c5 Nc3 Nc6 Bc4 e6 d3 Nf6 a3 d5 Ba2 dxe4 dxe4 Qxd1 Kxd1 Be7 Nge2 O-O f3 Rd8 Ke1 "
                         "Nd4 Nxd4 cxd4 Ne2 e5",
                         8, 17, R"(["g8f6","a2a3","d7d5","c4a2","d5e4","d3e4","d8d1","e1d1","f8e7","g1e2"])",
                         26);
  expect_hall_gap_listed(
      "castling_half_made_at_a_ten_ply_reading_after_the_others.cap",
      "e4 e5 d3 Nf6 Nc3 Bc5 Nf3 Nc6 Bg5 Be7 Be2 h6 Bh4 d5 exd5 Nxd5 Bxe7 Ndxe7 O-O O-O Nd2 "
      "f5 Bf3 e4 dxe4 fxe4 Bxe4 Re8",
      10, 19, R"(["c5e7","f1e2","h7h6","g5h4","d7d5","e4d5","f6d5","h4e7","d5e7","e1g1"])", 28);
}
// daemon_gap_hall_test --speed 3 --seed 251662905 --lengths 9,10, board L: TCEC Chess960 game 7 (bqnbrnkr,
// 1800+5), plies 11-19 (Qxb4 Ne6 Bb3 e4 Bxe6 fxe6 Nf4 dxc5 Qxc5) made unseen, 19.Qxc5 pressed unseen, plugged
// in again with 10...O-O under way: the king lifted from g8 (its castled square) and the rook from h8, both
// in the hand at the reading; the rook set on f8, then the king on g8. The reading's press was searched on
// the board without a black king: position-mismatch at once, then position-adopted and the game followed
// from the board, the moves that led there unknown. Right: the press waits for the castling, and the gap is
// listed as plies 11-20 with the castling its last, the moves played among the candidates, every later move
// at its ply.
TEST(GapHallCaptures, AChess960CastlingWithKingAndRookInTheHandAtTheReadingIsWaitedFor) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  expect_hall_gap_listed(
      "chess960_castling_king_and_rook_in_the_hand_at_the_reading.cap",
      "c4 b5 c5 d6 b4 a5 a4 axb4 Nd3 e5 Qxb4 Ne6 Bb3 e4 Bxe6 fxe6 Nf4 dxc5 Qxc5 O-O Nh5 Bh4 "
      "g3 Rf5 Qd4 Re7 Rb1 e3",
      11, 20, R"(["b1b4","f8e6","d1b3","e5e4","b3e6","f7e6","d3f4","d6c5","b4c5","g8h8"])", 28, cfg);
}

// daemon_gap_hall_test --speed 6 --seed 5719311 --lengths 9,10, board E: blitz corpus game 10 (300+3), plies
// 12-21 (d6 c4 Nd4 b4 Nxe2 Qxe2 Bb6 Be3 Bg4 Bxb6) made unseen and 11...axb6 (ply 22) set down: eleven plies
// from the last known position, past the search's bound. Black pressed half a second after the reading, and
// the press was decided with White's knight already lifted for 12.Nc3: a board with White's piece gone is not
// "nothing but the presser's pieces set down", so the press told a position-mismatch and the gap was told
// past the bound only at White's press. Right: judged on the board at the press, the gap told past the bound
// there (one moves-missed from ply 12, no other alert), the knight's lift White's turn, and the arbiter's
// moves settle it.
TEST(GapHallCaptures, ThePressOfAMoveShownAtAReadingPastTheBoundIsJudgedOnTheBoardAtThePress) {
  expect_past_bound_told_and_settled(
      "past_bound_read_with_the_movers_capture_set_down_next_hand_at_work.cap",
      "e4 e5 Nf3 Nc6 a3 Nf6 d3 h6 Be2 Bc5 O-O d6 c4 Nd4 b4 Nxe2 Qxe2 Bb6 Be3 Bg4 Bxb6 axb6", 12,
      "Nc3 Nh5 h3 Nf4 hxg4 Nxe2 Nxe2 f6", 30);
}
// daemon_gap_hall_test --speed 3 --seed 301874880 --lengths 9,10 --hold-uncounted, board H: blitz corpus game
// 227 (600+1: too small an increment to count presses by), plies 14-23 (Be7 Bg2 O-O O-O b6 Nh4 bxc5 Nxf5
// exf5 dxc5) made unseen and 12...Bxc5 (ply 24) set down at the reading. The shortest stories reach the board
// with their last move shown and not pressed: with the hold, they were not held (the hold took only stories
// all pressed), and the gap was told as their pressed part, then again. Right, with the hold: one
// moves-missed from ply 14 with its length open once that last move is pressed, nothing published from ply 14
// on until the arbiter's moves, which (the eleven played) put every move at its ply.
TEST(GapHallCaptures, WithTheHoldAGapWhoseLastMoveIsShownAtTheReadingIsHeldOnceItIsPressed) {
  rules::ReconstructConfig cfg;
  cfg.hold_uncounted_gaps = true;
  const std::string name = "held_gap_whose_last_move_was_shown_at_the_reading.cap";
  const std::string game =
      "c4 Nf6 d4 d5 c5 c6 e3 Bf5 Nc3 e6 Nf3 Nbd7 g3 Be7 Bg2 O-O O-O b6 Nh4 bxc5 Nxf5 exf5 dxc5 Bxc5 Na4 Be7 "
      "b3 "
      "Ne4 Bb2 Nd6 Qh5 Bf6";
  const Told t = expect_held_then_settled(name, game, 14, 24, 32, cfg);
  ASSERT_EQ(t.missed.size(), 1u);
  EXPECT_EQ(field(t.missed.front(), "length_unknown"), "true");
}

// daemon_gap_hall_test --speed 6 --seed 13 --lengths 9,10, board K: TCEC Chess960 game 9 (nqrnbbkr, 1800+5),
// style tidy, unplugged between two moves after 10...e5 and plugged in again 45.3 s later with 21.Nxe4 set
// down and not pressed: plies 11-20 (Ne3 Nb6 Nb3 Ne6 Rd1 Rd8 Nc5 Rh6 Bd2 dxe4) made meanwhile, eleven with
// the move shown, past the search's bound. At White's press the board read with a move of his undone is
// searched: with 15.Rd1's rook put back on c1, ten plies (Nxe4 among them) reach it, and Rd1 is taken for the
// pressed move; Nxe4 undone, the one played, needs its victim back, which no board tried has. Told held (the
// clock's increment not learned yet), the arbiter's moves as played, to 21.Nxe4, reach the position after the
// held Rd1, not the jump's: refused, and the game stopped there. Right: moves that reach the position after
// some of the held moves take their place (Reconstructor::moves_through_held_moves), every later move at its
// ply.
TEST(GapHallCaptures, TheArbitersMovesTakeThePlaceOfAPressedMoveReadFromTheBoardWithAnotherUndone) {
  rules::ReconstructConfig cfg;
  cfg.chess960 = true;
  cfg.hold_uncounted_gaps = true;
  const std::string name = "chess960_capture_at_the_reading_read_as_another_pressed_move.cap";
  const std::string game =
      "d4 d5 b4 b5 h4 h5 c3 c6 e4 e5 Ne3 Nb6 Nb3 Ne6 Rd1 Rd8 Nc5 Rh6 Bd2 dxe4 Nxe4 Rg6 Ng5 exd4 cxd4 Rxd4 "
      "Bd3 "
      "Nxg5 Bxg6";
  expect_held_then_settled(name, game, 11, 21, 29, cfg);
}

// daemon_gap_hall_test --speed 3 --seed 736074579 --lengths 9,10, board I: blitz corpus game 193 (30+0),
// plies 13-22 (dxe7 Bxe7 Nc3 Bb7 Bf4 Nd7 Bg3 O-O-O e5 f5) made unseen and 23.Bh4's bishop lifted from g3 when
// the board was read: 96 ten-ply stories reach that board with the bishop exchanged for the queen on e7
// (Bg5 ... Bxe7 Bxe7). White set it down on h4 half a second later and pressed; the press, the board read but
// for that bishop, waited for the gap's length, then the stories were told held, the game went on from a
// position without the bishop and was adopted again at Black's next press. Right: the bishop set down from
// the hand and pressed is searched from the board read with it put back (on g3 or g5, each reached in ten
// plies), the gap told whole with that press (eleven plies, the moves played among the candidates), every
// later move at its ply; with the hold (no increment), nothing published from ply 13 until the arbiter's
// moves.
TEST(GapHallCaptures, APieceInTheHandAtTheReadingSetDownAndPressedTellsTheGapWithItsMove) {
  const std::string name = "bishop_in_the_hand_read_as_captured_at_a_ten_ply_reading.cap";
  const std::string game =
      "e4 e6 c4 f6 Nf3 d6 d4 c6 c5 b6 cxd6 Qe7 dxe7 Bxe7 Nc3 Bb7 Bf4 Nd7 Bg3 O-O-O e5 f5 Bh4 g5 Bxg5 h6 Bxe7 "
      "Nxe7 Nh4 Rhg8 Nf3";
  expect_hall_gap_listed(name, game, 13, 23,
                         R"(["d6e7","f8e7","b1c3","c8b7","c1f4","b8d7","f4g3","e8c8","e4e5","f6f5","g3h4"])",
                         31);
  rules::ReconstructConfig cfg;
  cfg.hold_uncounted_gaps = true;
  expect_held_then_settled(name, game, 13, 23, 31, cfg);
}

// daemon_gap_hall_test --speed 3 --seed 83517841, board I: blitz corpus game 372 (60+0), unplugged between
// two moves after 4.Nf3 and plugged in again with Black's hand at work on 8...Nxd5: plies 8-15 (Nc6 Bg5 Be7
// Be2 h6 Bh4 d5 exd5) made unseen, the victim (White's pawn on d5) lifted when the board was read. Ten-ply
// stories reach that board exactly, a knight's detour taking both pawns off (...dxe4 Nxe4, then back to
// c3). The dump was judged for a Black pawn in the hand (his d-pawn, taken within the gap) and waited, but
// was searched all the same when it settled a second time (a press decided meanwhile), and the knight's
// lift then ended the wait: the gap was told as those ten plies when the knight was set down on d5, and the
// moves played, which reach no such board, were refused. Right: a dump that waits is not searched at rest;
// the mover's piece of another kind set on a square empty on the board read, where an opponent's piece put
// back makes a shorter story, is the capture under way (the wait goes on to the press); one moves-missed
// from ply 8 listing the nine plies played (to Nxd5), nothing published from there until the arbiter's
// moves, which put every later move at its ply.
TEST(GapHallCaptures, AVictimLiftedAtTheReadingIsNotTakenForTheEndOfADetour) {
  rules::ReconstructConfig cfg;
  cfg.hold_uncounted_gaps = true;
  const std::string name = "victim_lifted_at_the_reading_a_detour_story_reaching_it_exactly.cap";
  const std::string game =
      "e4 e5 d3 Nf6 Nc3 Bc5 Nf3 Nc6 Bg5 Be7 Be2 h6 Bh4 d5 exd5 Nxd5 Bxe7 Ndxe7 O-O O-O Nd2 f5 Bf3 e4 dxe4 "
      "fxe4 Bxe4 Re8 Bxc6 Nxc6";
  const Told t = expect_held_then_settled(name, game, 8, 16, 24, cfg);
  ASSERT_EQ(t.missed.size(), 1u);
  EXPECT_NE(field(t.missed.front(), "candidates")
                .find(R"(["b8c6","c1g5","c5e7","f1e2","h7h6","g5h4","d7d5","e4d5","f6d5"])"),
            std::string::npos);
}

// daemon_gap_hall_test --speed 6 --seed 950680094 --mqtt, board I: blitz corpus game 25 (180+0), unplugged
// between two moves after 12...Bxe6 and plugged in again with Black's hand at work on 16...dxe5: plies 13-19
// (Bg5 a5 Qe2 O-O O-O-O Na6 e5) made unseen, the victim on e5 and its taker from d6 both in the air when
// the board was read. The dump was judged for a victim lifted first, the nearest that makes a short story:
// White's pawn on e4, the knight on f6 its taker. The pawn set down on e5 ended that wait, and the board
// read was searched as it stood: ten plies of a knight's detour (...d5 ... dxe4 Nxe4 ... Nc3), then
// illegal-move at the presses, position-mismatch, an adopted position and every later move off. Right: the
// mover's piece set down from the hand on a square empty on the board read, where an opponent's piece put
// back makes the shorter story, is the capture under way (the wait now that victim's); one moves-missed
// from ply 13 listing the moves played, every later move at its ply; with the hold (no increment), the gap
// held to 16...dxe5, nothing published from ply 13 until the arbiter's moves.
TEST(GapHallCaptures, ATakerSetDownFromTheHandNamesTheVictimLiftedBeforeTheReading) {
  const std::string name = "victim_and_taker_in_the_air_another_victim_judged_first.cap";
  const std::string game =
      "e4 d6 d4 Nf6 Nc3 g6 d5 Bg7 Nf3 e5 dxe6 Bxe6 Bg5 a5 Qe2 O-O O-O-O Na6 e5 dxe5 Rxd8 Raxd8 Bxf6 Bxf6 Qe4 "
      "Nc5 Qe1 a4";
  expect_hall_gap_listed(name, game, 13, 19, R"(["c1g5","a7a5","d1e2","e8g8","e1c1","b8a6","e4e5"])", 28);
  rules::ReconstructConfig cfg;
  cfg.hold_uncounted_gaps = true;
  expect_held_then_settled(name, game, 13, 20, 28, cfg);
}
}  // namespace eboard
