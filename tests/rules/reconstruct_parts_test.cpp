// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The parts the Reconstructor composes (rules/turn_clock.hpp, press_wait.hpp, gap_tracker.hpp,
// reserve_ledger.hpp, touch_tracker.hpp, stood_illegal.hpp, illegal_moves.hpp, deadlines.hpp): their named
// phases and the rules each keeps, on their own. How they act together is the reconstruction's tests'
// (reconstruct_test and the corpora).
#include <gtest/gtest.h>

#include "rules/board_phase.hpp"
#include "rules/deadlines.hpp"
#include "rules/gap_tracker.hpp"
#include "rules/illegal_moves.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/press_wait.hpp"
#include "rules/reserve_ledger.hpp"
#include "rules/stood_illegal.hpp"
#include "rules/touch_tracker.hpp"
#include "rules/turn_clock.hpp"

using namespace eboard::rules;

namespace {

ClockReading reading(ClockSide lever_up, std::int64_t left_ms, std::int64_t right_ms) {
  ClockReading r;
  r.present = true;
  r.running = true;
  r.lever_up = lever_up;
  r.left_ms = left_ms;
  r.right_ms = right_ms;
  return r;
}

}  // namespace

TEST(TurnClock, SeatsGoFromUnknownToGuessedToConfirmed) {
  TurnClock c;
  const ClockReading r = reading(ClockSide::Right, 60000, 50000);
  EXPECT_EQ(c.seats(), TurnClock::Seats::Unknown);
  EXPECT_FALSE(c.left_player());
  EXPECT_FALSE(c.times(r).known());  // no colours before the seats are known
  c.guess_left(BLACK);
  EXPECT_EQ(c.seats(), TurnClock::Seats::Guessed);
  c.confirm_left(WHITE);
  EXPECT_EQ(c.seats(), TurnClock::Seats::Confirmed);
  EXPECT_EQ(c.left_player(), WHITE);
  EXPECT_EQ(c.times(r).white_ms, 60000);
  EXPECT_EQ(c.times(r).black_ms, 50000);
  EXPECT_FALSE(c.on_move());  // nothing read yet
  c.begin(r, 1234);
  EXPECT_FALSE(c.last());  // being handled, not the last one yet
  EXPECT_EQ(c.latest()->right_ms, 50000);
  c.finish(r);
  EXPECT_EQ(c.on_move(), BLACK);  // the lever is up on the right: Black's clock runs
  EXPECT_EQ(c.last_ms(), 1234);
}

TEST(PressWait, StagesFollowTheDecisionAndTheDeadline) {
  PressWait w;
  EXPECT_EQ(w.stage(), PressWait::Stage::None);
  EXPECT_FALSE(w.deadline());
  w.start(PendingPress{100, {}, WHITE}, 5100);
  EXPECT_EQ(w.stage(), PressWait::Stage::Waiting);
  EXPECT_FALSE(w.decision_time());
  w.decide_at(360);
  EXPECT_EQ(w.stage(), PressWait::Stage::Deciding);
  EXPECT_EQ(w.decision_time(), 360);
  EXPECT_EQ(w.deadline(), 5100);
  w.decision_came();
  EXPECT_EQ(w.stage(), PressWait::Stage::Waiting);
  EXPECT_FALSE(w.decision_time());
  EXPECT_EQ(w.press().t_ms, 100);
  w.clear();
  EXPECT_FALSE(w.pending());
  EXPECT_FALSE(w.deadline());  // a decided press leaves no deadline behind
}

TEST(GapTracker, LinkAndLengthPhases) {
  GapTracker g;
  EXPECT_EQ(g.link(), GapTracker::Link::Read);
  g.on_link(false, 0);
  EXPECT_TRUE(g.link_down());
  EXPECT_EQ(g.back_at(), 0);  // (down is not back)
  g.on_link(true, 500);
  EXPECT_EQ(g.back_at(), 500);
  EXPECT_EQ(g.link(), GapTracker::Link::Back);
  EXPECT_TRUE(g.link_changed());
  EXPECT_FALSE(g.link_down());
  g.ask_reread(700);
  EXPECT_EQ(g.reread_wanted(), 700);
  g.board_read(0);
  EXPECT_EQ(g.link(), GapTracker::Link::Read);
  EXPECT_FALSE(g.reread_wanted());
  g.ask_reread(700);  // once per press
  EXPECT_FALSE(g.reread_wanted());

  std::array<Piece, 64> board = Position::start(Variant::Chess).board();
  g.suspect(true, 800, 5, board);
  EXPECT_EQ(g.suspected_at(), 800);
  EXPECT_EQ(g.suspected_change(), 5u);
  EXPECT_EQ(g.read_unsettled(), board);  // read, not yet at rest
  g.read_settled();
  EXPECT_FALSE(g.read_unsettled());
  g.mark_searched(board);
  EXPECT_TRUE(g.searched(board));
  g.wait_for_length(board, BLACK);
  EXPECT_EQ(g.length(), GapTracker::Length::Waiting);
  EXPECT_FALSE(g.searched(board));  // searched again at the press
  EXPECT_TRUE(g.stop_waiting());
  EXPECT_EQ(g.length(), GapTracker::Length::Open);
  EXPECT_FALSE(g.stop_waiting());
  g.tell_all_pressed();
  EXPECT_EQ(g.length(), GapTracker::Length::AllPressed);
  g.suspect(false, 900, 9, board);  // a new suspicion opens the length again
  EXPECT_EQ(g.length(), GapTracker::Length::Open);
  EXPECT_FALSE(g.first_board_dump());
}

TEST(ReserveLedger, AnEarlyDropWaitsWhileThePartnerIsBlind) {
  ReserveLedger r;
  r.set_partner_blind(true, 0);
  r.borrow(WHITE, KNIGHT);
  r.add_early_drop({W_KNIGHT, 1000, 1000, 9, false, true});
  EXPECT_FALSE(r.next_alert());  // its capture time is unknown while the partner is blind
  EXPECT_TRUE(r.set_partner_blind(false, 2500));
  EXPECT_FALSE(r.set_partner_blind(false, 9999));
  EXPECT_EQ(r.next_alert(), 2500);
  ASSERT_NE(r.early_drop_due_at(2500), nullptr);
  EXPECT_TRUE(r.repay(WHITE, KNIGHT));
  EXPECT_FALSE(r.repay(WHITE, KNIGHT));
  EXPECT_TRUE(r.take_early_drop(W_KNIGHT));
  EXPECT_FALSE(r.next_alert());
}

TEST(ReserveLedger, ExtendsThePocketsWithThePartnersShownCapture) {
  ReserveLedger r;
  Position p = Position::start(Variant::Bughouse);
  EXPECT_FALSE(r.extends());
  EXPECT_TRUE(r.set_partner_shown(B_ROOK));
  EXPECT_FALSE(r.set_partner_shown(B_ROOK));
  r.extend(p);
  EXPECT_EQ(p.pocket(BLACK, ROOK), 1);
  EXPECT_EQ(p.pocket(WHITE, ROOK), 0);
}

TEST(TouchTracker, TouchedOwnPieceThatCouldMoveBinds) {
  TouchTracker t;
  const Position p = Position::start(Variant::Chess);
  // The knight on g1 touched, then e2-e4 played: 4.3.1.
  t.touched({1000, make_square(6, 0), W_KNIGHT, false});
  t.touched({2000, make_square(4, 1), W_PAWN, false});
  const Move e4 = *parse_uci(p, "e2e4");
  auto alerts = t.judge(p, 1, p.board(), e4, t.size(), SQ_NONE, std::nullopt, 300);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].code, "touch-move");
  // Touched within the scan order window of the pawn's lift: no binding touch.
  TouchTracker close;
  close.touched({1900, make_square(6, 0), W_KNIGHT, false});
  close.touched({2000, make_square(4, 1), W_PAWN, false});
  EXPECT_TRUE(close.judge(p, 1, p.board(), e4, close.size(), SQ_NONE, std::nullopt, 300).empty());
}

TEST(StoodIllegal, RemembersTheRepliesThatMakeItStand) {
  StoodIllegal s;
  EXPECT_TRUE(StoodIllegal::applies(*profile_by_name("fide-blitz")));
  EXPECT_FALSE(StoodIllegal::applies(*profile_by_name("fide-standard")));
  const Position p = Position::start(Variant::Chess);
  s.remember_pass(p, {}, 500);
  ASSERT_TRUE(s.standing());
  EXPECT_TRUE(s.stood().shown.is_none());
  // Black's e7-e5 from the position the pass left stands it.
  Position after = p;
  after.do_null_move();
  std::array<Piece, 64> reply = p.board();
  reply[make_square(4, 6)] = NO_PIECE;
  reply[make_square(4, 4)] = B_PAWN;
  EXPECT_TRUE(s.shows_reply(reply));
  EXPECT_FALSE(s.shows_reply(p.board()));
  s.forget();
  EXPECT_FALSE(s.shows_reply(reply));
}

TEST(IllegalMoves, AShownMoveRestsThenIsMadeUntilTheTurnIsOver) {
  IllegalMoves m;
  const ShownMove e2e5{make_square(4, 1), make_square(4, 4), W_PAWN};
  EXPECT_EQ(m.shown_phase(), IllegalMoves::Shown::None);
  m.resting(e2e5, 2000);
  EXPECT_EQ(m.shown_phase(), IllegalMoves::Shown::Resting);
  EXPECT_EQ(m.confirm_at(), 2000);
  EXPECT_FALSE(m.made());
  m.board_changed();  // the hand was still at work
  EXPECT_EQ(m.shown_phase(), IllegalMoves::Shown::None);
  EXPECT_FALSE(m.confirm_at());
  m.resting(e2e5, 3000);
  m.confirm_time_came(false);  // the board no longer shows it
  EXPECT_EQ(m.shown_phase(), IllegalMoves::Shown::None);
  m.resting(e2e5, 4000);
  m.turn_over();  // a move resting is judged from the board when its time comes, not forgotten
  EXPECT_EQ(m.shown_phase(), IllegalMoves::Shown::Resting);
  m.confirm_time_came(true);
  ASSERT_TRUE(m.made());
  EXPECT_EQ(describe(*m.made()), "e2-e5");
  EXPECT_FALSE(m.confirm_at());
  m.board_changed();  // made stays made while the turn goes on
  EXPECT_EQ(m.shown_phase(), IllegalMoves::Shown::Made);
  m.turn_over();
  EXPECT_EQ(m.shown_phase(), IllegalMoves::Shown::None);
}

TEST(IllegalMoves, TellsTheShownMoveAndWhyItIsNotLegal) {
  const Position p = Position::start(Variant::Chess);
  std::array<Piece, 64> board = p.board();
  board[make_square(6, 0)] = NO_PIECE;  // Ng1-g3: no knight move
  board[make_square(6, 2)] = W_KNIGHT;
  auto shown = IllegalMoves::on_board(p, p.board(), board);
  ASSERT_TRUE(shown);
  EXPECT_EQ(describe(*shown), "g1-g3");
  auto why = IllegalMoves::why_not_legal(p, *shown, WHITE);
  EXPECT_EQ(why.reason, "impossible-move");
  EXPECT_EQ(why.detail, "Ng1-g3 is not a legal move");
  // The king's step of castling is the first part of a legal move, not an illegal one.
  const auto castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  ASSERT_TRUE(castle);
  board = castle->board();
  board[make_square(4, 0)] = NO_PIECE;
  board[make_square(6, 0)] = W_KING;
  EXPECT_FALSE(IllegalMoves::on_board(*castle, castle->board(), board));
  // A piece from nowhere in crazyhouse, with an empty reserve.
  const Position zh = Position::start(Variant::Crazyhouse);
  board = zh.board();
  board[make_square(3, 3)] = W_QUEEN;
  shown = IllegalMoves::on_board(zh, zh.board(), board);
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->from, SQ_NONE);
  why = IllegalMoves::why_not_legal(zh, *shown, WHITE);
  EXPECT_EQ(why.reason, "drop-not-in-reserve");
  EXPECT_EQ(why.detail, "Q@d4 is not a legal move: White's reserve holds no queen");
}

TEST(IllegalMoves, CountsPerColourWithThePenaltyOfTheProfile) {
  IllegalMoves m;
  const Position p = Position::start(Variant::Chess);
  const Profile blitz = *profile_by_name("fide-blitz");  // one minute to the opponent, loss at the second
  const AlertEvent first =
      m.complete(blitz, "illegal-move", WHITE, 1, p, "impossible-move", "x", ClockTimes{60000, 50000});
  EXPECT_EQ(m.count(WHITE), 1);
  EXPECT_EQ(m.count(BLACK), 0);
  auto field = [](const AlertEvent& a, const std::string& name) {
    for (const auto& f : a.extra)
      if (f.name == name) return f.value;
    return std::string("(none)");
  };
  EXPECT_EQ(field(first, "count"), "1");
  EXPECT_EQ(field(first, "penalty"), "+1 min to the opponent if claimed before the opponent moves");
  EXPECT_EQ(field(first, "proposed_clock"),
            "{\"add_ms\":60000,\"add_to\":\"black\",\"black\":110000,\"white\":60000}");
  const AlertEvent second =
      m.complete(blitz, "illegal-move", WHITE, 3, p, "impossible-move", "x", std::nullopt);
  EXPECT_EQ(field(second, "penalty"), "loss if claimed before the opponent moves");
  EXPECT_EQ(field(second, "proposed_clock"), "(none)");
  m.completed(ShownMove{make_square(6, 0), make_square(6, 2), W_KNIGHT}, 5);
  ASSERT_TRUE(m.replaced());
  EXPECT_EQ(m.replaced()->ply, 5);
  m.new_game();
  EXPECT_EQ(m.count(WHITE), 0);
  EXPECT_FALSE(m.replaced());
}

TEST(IllegalMoves, SamePieceRequiredOnlyWhenThatPieceCouldMove) {
  const Position p = Position::start(Variant::Chess);
  const ShownMove knight{make_square(6, 0), make_square(6, 2), W_KNIGHT};  // g1-g3 taken back
  const Move e2e4 = *parse_uci(p, "e2e4");
  const Move g1f3 = *parse_uci(p, "g1f3");
  auto a = IllegalMoves::same_piece(knight, p, e2e4, 1, "took back", "FQE 21a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->code, "same-piece-required");
  EXPECT_EQ(a->extra.front().value, "g1");
  EXPECT_FALSE(IllegalMoves::same_piece(knight, p, g1f3, 1, "took back", "FQE 21a"));
  // The rook on a1 cannot move: any other piece may replace its illegal move.
  const ShownMove rook{make_square(0, 0), make_square(0, 4), W_ROOK};
  EXPECT_FALSE(IllegalMoves::same_piece(rook, p, e2e4, 1, "took back", "FQE 21a"));
}

namespace {
enum class Timer { First, Second, Third, Count };
}  // namespace

TEST(Deadlines, TheNextIsTheEarliestAndTheFirstNameAmongEqualTimes) {
  Deadlines<Timer> d;
  EXPECT_FALSE(d.next());
  d.set(Timer::Third, 500);
  d.set(Timer::Second, 700);
  ASSERT_TRUE(d.next());
  EXPECT_EQ(d.next()->name, Timer::Third);
  EXPECT_EQ(d.next()->t_ms, 500);
  d.set(Timer::Second, 500);  // due together: the first name is handled first
  EXPECT_EQ(d.next()->name, Timer::Second);
  d.set_unless_set(Timer::Second, 100);  // set already: not moved
  EXPECT_EQ(d.at(Timer::Second), 500);
  d.set_unless_set(Timer::First, 900);
  EXPECT_EQ(d.at(Timer::First), 900);
  d.clear(Timer::Second);
  d.clear(Timer::Third);
  EXPECT_EQ(d.next()->name, Timer::First);
  d.set(Timer::First, std::nullopt);
  EXPECT_FALSE(d.next());
}

TEST(BoardPhase, AMismatchIsToldOnceUntilTheBoardIsFollowedAgain) {
  BoardPhase b;
  EXPECT_EQ(b.phase(), BoardPhase::Phase::Following);
  EXPECT_FALSE(b.mismatch_told());
  b.tell_mismatch();
  EXPECT_EQ(b.phase(), BoardPhase::Phase::MismatchTold);
  EXPECT_TRUE(b.mismatch_told());
  b.followed();
  EXPECT_EQ(b.phase(), BoardPhase::Phase::Following);
  EXPECT_FALSE(b.mismatch_told());
}

TEST(BoardPhase, AWrongSetupIsToldOnceEvenAfterTheBoardWasFollowed) {
  BoardPhase b;
  Board wrong = Position::start(Variant::Chess).board();
  std::swap(wrong[parse_square("b1")], wrong[parse_square("c1")]);  // knight and bishop swapped
  Board other = Position::start(Variant::Chess).board();
  std::swap(other[parse_square("f8")], other[parse_square("g8")]);
  EXPECT_TRUE(b.setup_to_tell(wrong));
  b.tell_setup(wrong);
  EXPECT_EQ(b.phase(), BoardPhase::Phase::SetupTold);
  EXPECT_TRUE(b.mismatch_told());
  EXPECT_FALSE(b.setup_to_tell(wrong));
  EXPECT_TRUE(b.setup_to_tell(other)) << "another wrong setup is told, a setup-error already told or not";
  b.followed();
  EXPECT_FALSE(b.mismatch_told());
  EXPECT_FALSE(b.setup_to_tell(wrong)) << "the last wrong setup told is remembered past the board followed";
  b.tell_setup(other);
  EXPECT_TRUE(b.setup_to_tell(wrong));
}

TEST(BoardPhase, AnAdjournmentVoidsWhatWasToldAndHoldsUntilItEnds) {
  BoardPhase b;
  EXPECT_FALSE(b.end_adjournment()) << "no adjournment to end";
  b.tell_mismatch();
  b.adjourn(Adjournment{BLACK, "Nf6", 12, ClockTimes{60'000, 50'000}, 1'000});
  EXPECT_EQ(b.phase(), BoardPhase::Phase::Adjourned);
  EXPECT_FALSE(b.mismatch_told());
  ASSERT_TRUE(b.adjournment());
  EXPECT_EQ(b.adjournment()->sealed, "Nf6");
  // Adjourned, the board is not judged: nothing told, and being followed changes nothing.
  b.tell_mismatch();
  b.tell_setup(Position::start(Variant::Chess).board());
  b.followed();
  EXPECT_EQ(b.phase(), BoardPhase::Phase::Adjourned);
  EXPECT_TRUE(b.setup_to_tell(Position::start(Variant::Chess).board()));
  const std::optional<Adjournment> ended = b.end_adjournment();
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->sealer, BLACK);
  EXPECT_EQ(ended->ply, 12);
  EXPECT_EQ(b.phase(), BoardPhase::Phase::Following);
  EXPECT_FALSE(b.adjournment());
}
