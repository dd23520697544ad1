// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Arbiter input to reconstruction (the daemon's control interface): resignation, draw by agreement, the
// promotion piece, and adjournment with a sealed move (Guidelines I), including a board that goes on
// being handled while the game is adjourned.
#include <gtest/gtest.h>

#include "rules/reconstruct.hpp"
#include "tests/rules/reconstruct_script.hpp"

using namespace eboard::rules;

namespace {

using test_support::Script;

const ResultEvent* last_result(const std::vector<Event>& evs) {
  const ResultEvent* r = nullptr;
  for (const auto& e : evs)
    if (auto* x = std::get_if<ResultEvent>(&e.what)) r = x;
  return r;
}

}  // namespace

TEST(ReconstructControl, ResignationAndAgreementEndTheGameOnce) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start().move("e2", "e4", W_PAWN);
  auto ev = r.resign(BLACK, s.t());
  ASSERT_EQ(ev.size(), 1u);
  const auto* res = std::get_if<ResultEvent>(&ev[0].what);
  ASSERT_NE(res, nullptr);
  EXPECT_EQ(res->result, Result::WhiteWins);
  EXPECT_EQ(res->reason, "resignation");
  EXPECT_EQ(r.game().outcome()->reason, "resignation");
  EXPECT_TRUE(r.agree_draw(s.t()).empty());  // over already: nothing more
  EXPECT_TRUE(r.resign(WHITE, s.t()).empty());

  Reconstructor d(ReconstructConfig{});
  Script sd(d);
  sd.snapshot(Position::start()).clock_start();
  auto dv = d.agree_draw(sd.t());
  ASSERT_EQ(dv.size(), 1u);
  EXPECT_EQ(std::get<ResultEvent>(dv[0].what).result, Result::Draw);
  EXPECT_EQ(std::get<ResultEvent>(dv[0].what).reason, "agreement");
}

TEST(ReconstructControl, AdjournedBoardIsFollowedButGivesNothingThenTheSealedMoveIsPlayed) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start().move("e2", "e4", W_PAWN).move("e7", "e5", B_PAWN);
  EXPECT_FALSE(r.adjourn(BLACK, "Nf3", s.t()).has_value());  // White is on move
  EXPECT_FALSE(r.adjourn(WHITE, "", s.t()).has_value());
  ASSERT_TRUE(r.adjourn(WHITE, "Nf3", s.t()).has_value());
  ASSERT_TRUE(r.adjournment());
  EXPECT_EQ(r.adjournment()->ply, 2);
  EXPECT_EQ(r.adjournment()->sealer, WHITE);
  EXPECT_FALSE(r.adjourn(WHITE, "Nc3", s.t()).has_value());  // once
  EXPECT_EQ(r.next_deadline(), std::nullopt);
  // Players leave; the pieces are swept off and set up again (even as a start position): nothing.
  std::size_t before = s.events().size();
  s.lift("g1").place("f3", W_KNIGHT).wait(2000).press().wait(10000);
  s.snapshot(Position::start()).wait(10000);
  EXPECT_EQ(s.events().size(), before);
  EXPECT_EQ(r.game().ply_count(), 2);
  // The position of the adjournment is set up again, then the game resumes with the sealed move.
  Position p = r.game().position();
  s.snapshot(p);
  EXPECT_TRUE(r.board_matches_game());
  s.take(r.resume(s.t()));
  EXPECT_FALSE(r.adjournment());
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5", "g1f3"}));
  EXPECT_EQ(r.game().ply_count(), 3);
  // The sealer's opponent is on move; White now makes the sealed move on the wood, Black replies.
  s.lift("g1").place("f3", W_KNIGHT).wait(400);
  s.move("b8", "c6", B_KNIGHT);
  EXPECT_EQ(s.moves(), (std::vector<std::string>{"e2e4", "e7e5", "g1f3", "b8c6"}));
  EXPECT_TRUE(s.alerts().empty()) << s.alerts().front();
  EXPECT_TRUE(r.resume(s.t()).empty());  // not adjourned any more
}

TEST(ReconstructControl, IllegalSealedMoveLosesAtTheResumption) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start().move("e2", "e4", W_PAWN);
  ASSERT_TRUE(r.adjourn(BLACK, "Ke6", s.t()).has_value());  // stored as written, judged only now
  s.take(r.resume(s.t()));
  ASSERT_EQ(s.alerts(), (std::vector<std::string>{"illegal-move"}));
  const ResultEvent* res = last_result(s.events());
  ASSERT_NE(res, nullptr);
  EXPECT_EQ(res->result, Result::WhiteWins);
  EXPECT_EQ(res->reason, "illegal-move");
  EXPECT_EQ(r.game().ply_count(), 1);
}

TEST(ReconstructControl, SealedMoveInUciAndTheClockOfTheAdjournment) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start().move("d2", "d4", W_PAWN);
  ASSERT_TRUE(r.adjourn(BLACK, "g8f6", s.t(), ClockTimes{250000, 240000}).has_value());
  s.take(r.resume(s.t() + 1000));
  ASSERT_EQ(s.moves(), (std::vector<std::string>{"d2d4", "g8f6"}));
  const MoveEvent* last = nullptr;
  for (const auto& e : s.events())
    if (auto* m = std::get_if<MoveEvent>(&e.what)) last = m;
  EXPECT_EQ(last->clock, (ClockTimes{250000, 240000}));
  EXPECT_EQ(last->san, "Nf6");
}

TEST(ReconstructControl, PromotionPieceNamedByTheArbiterInBughouse) {
  ReconstructConfig cfg;
  cfg.profile = *profile_by_name("bughouse-fqe");
  auto start = Position::from_fen("8/4P3/8/8/8/8/8/k3K3 w - - 0 1", Variant::Bughouse);
  ASSERT_TRUE(start);
  Reconstructor r(cfg, Game(*start));
  r.set_promotion_piece(WHITE, KNIGHT);
  Script s(r);
  s.snapshot(*start).clock_start();
  s.move("e7", "e8", W_PAWN);  // the pawn stays a pawn on the wood (FQE 11)
  ASSERT_EQ(s.moves(), (std::vector<std::string>{"e7e8n"}));
}

TEST(ReconstructControl, DrawAgreedDuringTheAdjournmentEndsItUnplayed) {
  Reconstructor r(ReconstructConfig{});
  Script s(r);
  s.snapshot(Position::start()).clock_start().move("e2", "e4", W_PAWN);
  ASSERT_TRUE(r.adjourn(BLACK, "c5", s.t()).has_value());
  s.take(r.agree_draw(s.t() + 1000));
  EXPECT_FALSE(r.adjournment());
  ASSERT_NE(last_result(s.events()), nullptr);
  EXPECT_EQ(last_result(s.events())->reason, "agreement");
  EXPECT_EQ(r.game().ply_count(), 1);
  EXPECT_TRUE(r.resume(s.t() + 2000).empty());
  // Reconstruction runs again: the start position set up begins a new game.
  s.snapshot(Position::start());
  EXPECT_EQ(r.game().ply_count(), 0);
  EXPECT_FALSE(r.game().outcome());
}

// A board without wood (issue 27): the arbiter types the moves, UCI or SAN, checked by the rules.
TEST(ReconstructControl, TypedMovesArePlayedAsCompletedMovesAndWrongOnesChangeNothing) {
  Reconstructor r(ReconstructConfig{});
  auto one = [&](std::string_view text, ClockTimes clock = {}) {
    auto ev = r.enter_move(text, clock, 1000);
    EXPECT_TRUE(ev) << text << ": " << (ev ? "" : ev.error());
    return ev ? *ev : std::vector<Event>{};
  };
  auto ev = one("d4");
  ASSERT_EQ(ev.size(), 1u);
  const auto& m = std::get<MoveEvent>(ev[0].what);
  EXPECT_EQ(m.ply, 1);
  EXPECT_EQ(m.uci, "d2d4");
  EXPECT_EQ(m.san, "d4");
  EXPECT_FALSE(m.clock.known());
  ev = one("g8f6", {5400000, 5390000});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(std::get<MoveEvent>(ev[0].what).san, "Nf6");
  EXPECT_EQ(std::get<MoveEvent>(ev[0].what).clock, (ClockTimes{5400000, 5390000}));
  EXPECT_EQ(r.game().clock_at(2), (ClockTimes{5400000, 5390000}));
  one("c4");
  one("d6");
  one("Nc3");
  // Black's knights on b8 and f6 both reach d7.
  auto amb = r.enter_move("Nd7", {}, 1000);
  ASSERT_FALSE(amb);
  EXPECT_NE(amb.error().find("ambiguous"), std::string::npos) << amb.error();
  EXPECT_NE(amb.error().find("'Nd7'"), std::string::npos) << amb.error();
  EXPECT_NE(amb.error().find("Black's move 3"), std::string::npos) << amb.error();
  auto illegal = r.enter_move("Ke7", {}, 1000);  // the king has no way there: e7 is Black's own pawn
  ASSERT_FALSE(illegal);
  EXPECT_NE(illegal.error().find("illegal"), std::string::npos) << illegal.error();
  auto bad_uci = r.enter_move("e7e4", {}, 1000);
  ASSERT_FALSE(bad_uci);
  EXPECT_NE(bad_uci.error().find("UCI"), std::string::npos) << bad_uci.error();
  EXPECT_FALSE(r.enter_move("  ", {}, 1000));
  // The text refused is quoted on one line (an error is one line of a log and of a JSON answer).
  auto two_lines = r.enter_move("N@b5\nNbd7", {}, 1000);
  ASSERT_FALSE(two_lines);
  EXPECT_EQ(two_lines.error().find('\n'), std::string::npos) << two_lines.error();
  EXPECT_NE(two_lines.error().find("'N@b5?Nbd7'"), std::string::npos) << two_lines.error();
  EXPECT_EQ(r.game().ply_count(), 5);
  EXPECT_TRUE(r.board_matches_game());  // the wood no sensor reports stands where the game is
  EXPECT_EQ(std::get<MoveEvent>(one("Nbd7")[0].what).uci, "b8d7");
}

TEST(ReconstructControl, TypedMateEndsTheGameAndNothingComesAfter) {
  Reconstructor r(ReconstructConfig{});
  for (const char* m : {"f3", "e5", "g4"}) ASSERT_TRUE(r.enter_move(m, {}, 1000));
  auto ev = r.enter_move("Qh4#", {}, 2000);
  ASSERT_TRUE(ev);
  ASSERT_EQ(ev->size(), 2u);
  EXPECT_EQ(std::get<MoveEvent>((*ev)[0].what).san, "Qh4#");
  EXPECT_EQ(std::get<ResultEvent>((*ev)[1].what).reason, "checkmate");
  EXPECT_EQ(std::get<ResultEvent>((*ev)[1].what).result, Result::BlackWins);
  auto after = r.enter_move("Kf2", {}, 3000);
  ASSERT_FALSE(after);
  EXPECT_NE(after.error().find("over"), std::string::npos);
  // Adjourned: nothing typed until the resumption.
  Reconstructor a(ReconstructConfig{});
  ASSERT_TRUE(a.enter_move("e4", {}, 1000));
  ASSERT_TRUE(a.adjourn(BLACK, "e5", 1000));
  EXPECT_FALSE(a.enter_move("e5", {}, 1000));
}
