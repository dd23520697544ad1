// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The arbiter's answers to a gap (issue 12) as control entries: "recover" settles a moves-missed gap with a
// candidate's number or typed moves, "adopt" has the game followed from the board's position. Both go
// through apply_control (one board) and apply_match_control (a bughouse match board), the paths the live
// daemon and the journal's replay share.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/eboardd/control.hpp"
#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/machine.hpp"
#include "daemon/journal/match_recovery.hpp"
#include "daemon/journal/recovery.hpp"
#include "rules/match.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"

namespace eboard {
namespace {

using namespace eboard::rules;
using journal::ControlEntry;

constexpr std::int64_t MIN = 60'000;

Position after(const std::vector<std::string>& uci, Variant v = Variant::Chess) {
  Position p = Position::start(v);
  for (const auto& m : uci) p.do_move(*parse_uci(p, m));
  return p;
}

ClockReading white_clock_runs(std::int64_t white_ms, std::int64_t black_ms) {
  // White sits on the left; the left lever up: White's clock runs.
  return ClockReading{white_ms, black_ms, true, ClockSide::Left};
}

// The sensor story of a gap: the board followed in the start position with White's clock running, the
// link lost, and back with the board four plies on (1.e4 e5 2.Nf3 Nc6, which four orders reach) and White's
// clock running again.
std::vector<SensorEvent> four_ply_gap(Variant v = Variant::Chess) {
  return {{0, BoardSnapshot{Position::start(v).board()}},
          {10, white_clock_runs(5 * MIN, 5 * MIN)},
          {2'000, DeviceLink{false}},
          {30'000, DeviceLink{true}},
          {30'000, BoardSnapshot{after({"e2e4", "e7e5", "g1f3", "b8c6"}, v).board()}},
          {30'010, white_clock_runs(5 * MIN - 14'000, 5 * MIN - 12'000)}};
}

std::string pgn_of(const Game& g) {
  GameRecord rec;
  set_record_moves(rec, g);
  auto text = write_pgn(rec);
  return text ? *text : "error: " + text.error();
}

template <class E>
std::vector<E> of_type(const std::vector<Event>& events) {
  std::vector<E> out;
  for (const auto& e : events)
    if (const auto* x = std::get_if<E>(&e.what)) out.push_back(*x);
  return out;
}

// A machine with the four-ply gap pending: returns every event it published.
std::vector<Event> play_gap(journal::GameMachine& m) {
  EXPECT_TRUE(m.new_game({0, "fide-standard", false, ""}));
  std::vector<Event> out;
  for (const auto& e : four_ply_gap()) {
    auto evs = m.on_sensor(e);
    out.insert(out.end(), evs.begin(), evs.end());
  }
  auto evs = m.advance(40'000);
  out.insert(out.end(), evs.begin(), evs.end());
  return out;
}

ControlEntry control(std::string action, std::string value, std::string side = "", std::int64_t t = 45'000) {
  return ControlEntry{t, std::move(action), std::move(side), std::move(value)};
}

std::vector<std::string> uci_of(const Position& from, const std::vector<Move>& moves) {
  Position p = from;
  std::vector<std::string> out;
  for (Move m : moves) {
    out.push_back(to_uci(p, m));
    p.do_move(m);
  }
  return out;
}

TEST(GapControl, TheGapWaitsWithItsCandidates) {
  journal::GameMachine m("b1");
  auto events = play_gap(m);
  auto alerts = of_type<AlertEvent>(events);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].code, "moves-missed");
  EXPECT_TRUE(of_type<MoveEvent>(events).empty()) << "no guess is published as a move";
  ASSERT_TRUE(m.reconstructor().missed_gap());
  EXPECT_EQ(m.reconstructor().missed_gap()->first_ply, 1);
  EXPECT_EQ(m.reconstructor().missed_gap()->candidates.size(), 4u);
  EXPECT_EQ(m.game().ply_count(), 4);
  // The record shows the gap, not the first candidate: the moves start afresh after it.
  const std::string pgn = pgn_of(m.game());
  EXPECT_NE(pgn.find("[SetUp \"1\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("4 plies missed while the board was not followed"), std::string::npos) << pgn;
}

TEST(GapControl, RecoverByNumberPublishesThatCandidateAsRecoveredMoves) {
  journal::GameMachine m("b1");
  play_gap(m);
  const auto candidates = m.reconstructor().missed_gap()->candidates;
  // The arbiter picks the second candidate (numbers are 1-based, as /status shows them).
  const std::vector<std::string> chosen = uci_of(Position::start(), candidates[1]);
  auto evs = m.control(control("recover", "2"));
  ASSERT_TRUE(evs) << evs.error();
  auto moves = of_type<MoveEvent>(*evs);
  ASSERT_EQ(moves.size(), 4u);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    EXPECT_EQ(moves[i].ply, int(i) + 1);
    EXPECT_EQ(moves[i].uci, chosen[i]);
    EXPECT_TRUE(moves[i].recovered);
  }
  EXPECT_FALSE(m.reconstructor().missed_gap());
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(m.game().plies()[std::size_t(i)].recovered);
    EXPECT_FALSE(m.game().plies()[std::size_t(i)].missed);
  }
  // The record now shows the moves (with their comment), no longer the gap.
  EXPECT_EQ(m.game().record_since(), 0);
  const std::string pgn = pgn_of(m.game());
  EXPECT_EQ(pgn.find("[SetUp"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("1. " + to_san(Position::start(), candidates[1][0])), std::string::npos) << pgn;
  // Settled once: a second recover has nothing to settle.
  auto again = m.control(control("recover", "1"));
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().find("no gap"), std::string::npos) << again.error();
}

TEST(GapControl, RecoverWithTypedMovesInSanOrUci) {
  for (const std::string typed : {"e4 Nc6 Nf3 e5", "e2e4 b8c6 g1f3 e7e5", "e4, Nc6, Nf3, e5"}) {
    journal::GameMachine m("b1");
    play_gap(m);
    auto evs = m.control(control("recover", typed));
    ASSERT_TRUE(evs) << typed << ": " << evs.error();
    auto moves = of_type<MoveEvent>(*evs);
    ASSERT_EQ(moves.size(), 4u) << typed;
    EXPECT_EQ(moves[0].uci, "e2e4");
    EXPECT_EQ(moves[1].uci, "b8c6");
    EXPECT_EQ(moves[2].uci, "g1f3");
    EXPECT_EQ(moves[3].uci, "e7e5");
    EXPECT_FALSE(m.reconstructor().missed_gap());
  }
}

TEST(GapControl, WrongRecoverInputIsRefusedAndChangesNothing) {
  journal::GameMachine m("b1");
  play_gap(m);
  const Game before = m.game();
  for (const std::string bad : {"0", "5", "9999999", "", "  ", "d4 d5 Nf3 Nc6", "e4 e5 Nf3",
                                "e4 e5 Nf3 Nc6 Bb5", "e4 e5 Ke2 Nc6", "zz9 x"}) {
    auto evs = m.control(control("recover", bad));
    EXPECT_FALSE(evs) << "'" << bad << "' was accepted";
    ASSERT_TRUE(m.reconstructor().missed_gap()) << bad;
    EXPECT_EQ(m.reconstructor().missed_gap()->candidates.size(), 4u) << bad;
    EXPECT_EQ(m.game().position().fen(), before.position().fen()) << bad;
    EXPECT_TRUE(m.game().plies()[0].missed) << bad;
  }
  // Still settleable afterwards.
  EXPECT_TRUE(m.control(control("recover", "4")));
}

TEST(GapControl, RecoverWithoutAGapSaysSo) {
  journal::GameMachine m("b1");
  ASSERT_TRUE(m.new_game({0, "fide-standard", false, ""}));
  m.on_sensor({0, BoardSnapshot{Position::start().board()}});
  auto evs = m.control(control("recover", "1"));
  ASSERT_FALSE(evs);
  EXPECT_NE(evs.error().find("no gap"), std::string::npos) << evs.error();
}

TEST(GapControl, TheSameEntriesReplayedGiveTheSameGame) {
  // What recovery does after a crash: the journaled inputs, the control entry among them, fed again.
  journal::GameMachine live("b1"), replay("b1");
  play_gap(live);
  ASSERT_TRUE(live.control(control("recover", "3")));
  play_gap(replay);
  ASSERT_TRUE(replay.control(control("recover", "3")));
  ASSERT_EQ(live.game().ply_count(), replay.game().ply_count());
  for (int i = 0; i < live.game().ply_count(); ++i)
    EXPECT_EQ(live.game().plies()[std::size_t(i)].move, replay.game().plies()[std::size_t(i)].move);
  EXPECT_EQ(pgn_of(live.game()), pgn_of(replay.game()));
}

// The ledger counts a game that went back to fewer plies as a new one (the pieces set up again), unless the
// arbiter rewrote it: a settled gap may leave fewer plies than the candidate the game went on from (`recover
// --moves none`, dgt3000_press_given_back_test), and it is the same game.
TEST(GapControl, AGameTheArbiterRewroteShorterIsTheSameGameToTheLedger) {
  Game long_story(Position::start());
  for (const char* m : {"e2e4", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8", "g1f3", "b8c6"})
    long_story.play(*parse_uci(long_story.position(), m), {}, 0);
  Game settled(Position::start());
  for (const char* m : {"e2e4", "e7e5", "g1f3", "b8c6", "f1c4"})
    settled.play(*parse_uci(settled.position(), m), {}, 0);

  journal::Ledger told;
  EXPECT_FALSE(told.observe(long_story, 1'000));
  EXPECT_EQ(told.game_number(), 1);
  EXPECT_TRUE(told.observe(settled, 2'000)) << "fewer plies, nothing said: the pieces were set up again";
  EXPECT_EQ(told.game_number(), 2);

  journal::Ledger rewritten;
  EXPECT_FALSE(rewritten.observe(long_story, 1'000));
  rewritten.after_control(control("recover", "none"), settled);
  EXPECT_FALSE(rewritten.observe(settled, 2'000));
  EXPECT_EQ(rewritten.game_number(), 1);
  // And a game set up again after it is still seen.
  EXPECT_TRUE(rewritten.observe(Game(Position::start()), 3'000));
  EXPECT_EQ(rewritten.game_number(), 2);
}

// A gap held with its length open (hold_uncounted) tells its plies again as one jump: the game has fewer
// plies than the ledger saw, and it is the same game (the same rules::Game, told shorter). Counted as a new
// one, the board's game number moved on without a journal rotation: the kept games skipped a number
// (daemon_journal_rotation_test with the hold on).
TEST(GapControl, AGameToldShorterByItsOwnReconstructionIsTheSameGameToTheLedger) {
  Game g(Position::start());
  for (const char* m : {"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1"})
    g.play(*parse_uci(g.position(), m), {}, 0);
  journal::Ledger ledger;
  EXPECT_FALSE(ledger.observe(g, 1'000));
  const Position end = g.position();
  while (g.ply_count() > 2) g.undo();
  g.adopt(end, 2'000);
  ASSERT_LT(g.ply_count(), 7);
  EXPECT_FALSE(ledger.observe(g, 2'000)) << "the held gap's jump is not the pieces set up again";
  EXPECT_EQ(ledger.game_number(), 1);
  // A copy is the same game; a Game begun again is a new one, whatever the plies.
  const Game copy = g;
  EXPECT_EQ(copy.identity(), g.identity());
  EXPECT_FALSE(ledger.observe(copy, 2'500));
  EXPECT_TRUE(ledger.observe(Game(Position::start()), 3'000));
  EXPECT_EQ(ledger.game_number(), 2);
}

// A gap whose last move is on the board and not pressed, and differs between its stories (after 1.e4:
// 1...e6 2.Nc3 Nc6 3.d4 or 1...e6 2.d4 Nc6 3.Nc3): its alert waits for White's press, and until then the
// arbiter has nothing to settle (issue 30: /status shows, and recover takes, only a gap told).
TEST(GapControl, AGapWaitingForItsLastPressCannotBeSettledBeforeItIsTold) {
  journal::GameMachine m("b1");
  ASSERT_TRUE(m.new_game({0, "fide-standard", false, ""}));
  std::vector<Event> out;
  auto feed = [&](const SensorEvent& e) {
    auto evs = m.on_sensor(e);
    out.insert(out.end(), evs.begin(), evs.end());
  };
  const std::vector<std::string> played{"e2e4", "e7e6", "b1c3", "b8c6", "d2d4"};
  feed({0, BoardSnapshot{Position::start().board()}});
  feed({10, white_clock_runs(5 * MIN, 5 * MIN)});
  feed({1'000, PieceLifted{parse_square("e2")}});
  feed({1'200, PiecePlaced{parse_square("e4"), W_PAWN}});
  feed({1'500, ClockReading{5 * MIN - 1'500, 5 * MIN, true, ClockSide::Right}});
  feed({2'000, DeviceLink{false}});
  feed({30'000, DeviceLink{true}});
  feed({30'000, BoardSnapshot{after(played).board()}});
  feed({30'010, white_clock_runs(5 * MIN - 9'000, 5 * MIN - 12'000)});  // Black pressed, 3.d4 not yet
  auto evs = m.advance(38'000);
  out.insert(out.end(), evs.begin(), evs.end());
  ASSERT_EQ(of_type<MoveEvent>(out).size(), 1u);  // 1.e4, followed live
  ASSERT_TRUE(of_type<AlertEvent>(out).empty()) << of_type<AlertEvent>(out).front().code;
  EXPECT_FALSE(m.reconstructor().missed_gap());
  auto early = m.control(control("recover", "1", "", 38'500));
  ASSERT_FALSE(early) << "a gap not told yet was settled";
  EXPECT_NE(early.error().find("no gap"), std::string::npos) << early.error();

  // White's press tells the gap whole: now it waits for the arbiter with the candidates of its alert.
  feed({40'000, ClockReading{5 * MIN - 18'000, 5 * MIN - 12'000, true, ClockSide::Right}});
  evs = m.advance(45'000);
  out.insert(out.end(), evs.begin(), evs.end());
  auto alerts = of_type<AlertEvent>(out);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].code, "moves-missed");
  ASSERT_TRUE(m.reconstructor().missed_gap());
  EXPECT_EQ(m.reconstructor().missed_gap()->first_ply, 2);
  for (const auto& c : m.reconstructor().missed_gap()->candidates) EXPECT_EQ(c.size(), 4u);
  auto settled = m.control(control("recover", "e6 Nc3 Nc6 d4", "", 46'000));
  ASSERT_TRUE(settled) << settled.error();
  EXPECT_EQ(of_type<MoveEvent>(*settled).size(), 4u);
  EXPECT_EQ(m.game().ply_count(), 5);
}

// A board far from the game (pieces moved no eight plies explain): the arbiter adopts it.
std::vector<SensorEvent> unexplained_board() {
  // White has castled short, Black's queen is gone and a white knight stands on e5: not reachable in the
  // few plies the search tries, and a legal position with either side on move.
  auto pos = Position::from_fen("r1b1kbnr/pppp1ppp/2n5/4N3/4P3/8/PPPP1PPP/RNBQ1RK1 b kq - 0 1");
  return {{0, BoardSnapshot{Position::start().board()}},
          {10, white_clock_runs(5 * MIN, 5 * MIN)},
          {2'000, DeviceLink{false}},
          {30'000, DeviceLink{true}},
          {30'000, BoardSnapshot{pos->board()}}};
}

// A gap held with its length open on a clock that counts no presses, told at a press where the search found
// stories of two lengths (7 plies, and 9 with detours: both listed, the shorter first), as a hall's board
// read it (daemon_gap_hall_test --speed 6 --seed 249907610, board L, Chess960: the journal to the alert).
// /status shows the gap's last ply as its alert told it, the shortest story's, in whatever order the
// candidates are shown: the arbiter acts on the alert whose gap /status shows.
TEST(GapControl, AGapHeldWithStoriesOfTwoLengthsShowsTheLastPlyItsAlertTold) {
  auto scan =
      journal::scan_journal(std::string(EBOARD_TEST_DATA) + "/journals/L_held_gap_of_two_lengths.journal");
  ASSERT_TRUE(scan) << scan.error();
  std::optional<nlohmann::json> alert;
  for (const auto& r : scan->records)
    if (r.type == 'E' && r.body.find("\"moves-missed\"") != std::string::npos)
      alert = nlohmann::json::parse(r.body);
  ASSERT_TRUE(alert);
  journal::Recovery r = journal::recover(*scan, "L");
  ASSERT_TRUE(r.machine.has_game());
  const Reconstructor& rec = r.machine.reconstructor();
  ASSERT_TRUE(rec.missed_gap());
  const auto& gap = *rec.missed_gap();
  ASSERT_TRUE(gap.holds_moves());
  const auto [shortest, longest] =
      std::minmax_element(gap.candidates.begin(), gap.candidates.end(),
                          [](const auto& a, const auto& b) { return a.size() < b.size(); });
  ASSERT_LT(shortest->size(), longest->size()) << "the stories are of one length: the test shows nothing";
  std::vector<std::size_t> reversed(gap.candidates.size());
  for (std::size_t i = 0; i < reversed.size(); ++i) reversed[i] = reversed.size() - 1 - i;
  const std::array<const std::vector<std::size_t>*, 2> orders{nullptr, &reversed};
  for (const std::vector<std::size_t>* order : orders) {
    const nlohmann::json shown = eboardd::missed_gap_json(rec, order, order != nullptr, nullptr);
    EXPECT_EQ(shown["first_ply"], (*alert)["first_ply"]);
    EXPECT_EQ(shown["last_ply"], (*alert)["last_ply"])
        << (order ? "in reverse order" : "in the rules' order");
    EXPECT_EQ(shown["length_unknown"], true);
  }
}

TEST(GapControl, AdoptFollowsTheBoardsPositionWithTheSideGiven) {
  journal::GameMachine m("b1");
  ASSERT_TRUE(m.new_game({0, "fide-standard", false, ""}));
  std::vector<Event> events;
  for (const auto& e : unexplained_board()) m.on_sensor(e);
  m.advance(40'000);
  EXPECT_FALSE(m.reconstructor().board_matches_game());

  EXPECT_FALSE(m.control(control("adopt", "", "purple")));
  auto evs = m.control(control("adopt", "", "black"));
  ASSERT_TRUE(evs) << evs.error();
  auto alerts = of_type<AlertEvent>(*evs);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].code, "position-adopted");
  auto fen = std::find_if(alerts[0].extra.begin(), alerts[0].extra.end(),
                          [](const auto& f) { return f.name == "fen"; });
  ASSERT_NE(fen, alerts[0].extra.end());
  EXPECT_EQ(fen->value.substr(0, fen->value.find(' ')), "r1b1kbnr/pppp1ppp/2n5/4N3/4P3/8/PPPP1PPP/RNBQ1RK1");
  EXPECT_EQ(m.game().position().side_to_move(), BLACK);
  EXPECT_TRUE(m.reconstructor().board_matches_game());
  // The record starts a new segment from that position.
  EXPECT_NE(pgn_of(m.game()).find("[SetUp \"1\"]"), std::string::npos) << pgn_of(m.game());
}

// White's clock runs, but White has moved (the queen checks from f7) and not pressed yet: with no side
// given, adopt takes the only side that makes a position of what the board shows.
TEST(GapControl, AdoptWithoutASideTakesTheOneTheBoardAllows) {
  journal::GameMachine m("b1");
  ASSERT_TRUE(m.new_game({0, "fide-standard", false, ""}));
  auto checked = Position::from_fen("r1b1kbnr/pppp1Qpp/2n5/4N3/4P3/8/PPPP1PPP/RNB2RK1 b kq - 0 1");
  ASSERT_TRUE(checked);
  for (const auto& e : std::vector<SensorEvent>{{0, BoardSnapshot{Position::start().board()}},
                                                {10, white_clock_runs(5 * MIN, 5 * MIN)},
                                                {2'000, DeviceLink{false}},
                                                {30'000, DeviceLink{true}},
                                                {30'000, BoardSnapshot{checked->board()}}})
    m.on_sensor(e);
  m.advance(40'000);
  EXPECT_FALSE(m.control(control("adopt", "", "white")));  // told White: Black would be in check off move
  auto evs = m.control(control("adopt", ""));
  ASSERT_TRUE(evs) << evs.error();
  EXPECT_EQ(m.game().position().side_to_move(), BLACK);
  EXPECT_TRUE(m.reconstructor().board_matches_game());
}

TEST(GapControl, AdoptIsRefusedOnAFinishedGame) {
  journal::GameMachine m("b1");
  ASSERT_TRUE(m.new_game({0, "fide-standard", false, ""}));
  for (const auto& e : unexplained_board()) m.on_sensor(e);
  ASSERT_TRUE(m.control(control("resign", "", "white")));
  EXPECT_FALSE(m.control(control("adopt", "")));
}

TEST(GapControl, AMatchBoardsGapIsSettledThroughTheMatch) {
  MatchConfig cfg;
  Match match(cfg);
  for (const auto& e : four_ply_gap(Variant::Bughouse)) match.on_sensor(0, e);
  match.on_sensor(1, {0, BoardSnapshot{Position::start(Variant::Bughouse).board()}});
  match.advance(40'000);
  ASSERT_TRUE(match.board(0).missed_gap());
  const auto candidates = match.board(0).missed_gap()->candidates;
  ASSERT_GE(candidates.size(), 2u);

  EXPECT_FALSE(journal::apply_match_control(match, 0, control("recover", "7")));
  EXPECT_FALSE(journal::apply_match_control(match, 1, control("recover", "1"))) << "board B has no gap";
  auto evs = journal::apply_match_control(match, 0, control("recover", "2"));
  ASSERT_TRUE(evs) << evs.error();
  auto moves = of_type<MoveEvent>(*evs);
  ASSERT_EQ(moves.size(), 4u);
  EXPECT_TRUE(std::all_of(moves.begin(), moves.end(), [](const MoveEvent& e) { return e.recovered; }));
  for (const auto& e : *evs) {
    if (std::holds_alternative<MoveEvent>(e.what)) {
      EXPECT_EQ(e.board, "A");
    }
  }
  EXPECT_FALSE(match.board(0).missed_gap());
  // The match's record holds the chosen moves once each, in order, told as recovered.
  BughouseRecord rec = match.record();
  ASSERT_EQ(rec.moves.size(), 4u);
  EXPECT_EQ(uci_of(Position::start(Variant::Bughouse),
                   {rec.moves[0].move, rec.moves[1].move, rec.moves[2].move, rec.moves[3].move}),
            uci_of(Position::start(Variant::Bughouse), candidates[1]));
  for (const auto& mv : rec.moves) EXPECT_NE(mv.comment.find("recovered"), std::string::npos);
  auto bpgn = write_bpgn(rec);
  EXPECT_TRUE(bpgn) << (bpgn ? "" : bpgn.error());
}

}  // namespace
}  // namespace eboard
