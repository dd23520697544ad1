// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The simulated hand: every move it plays leaves exactly the position's board, its actions are physically
// possible and in time order, and each habit the styles describe really shows in the actions.
#include <gtest/gtest.h>

#include <set>

#include "daemon/sim/hand.hpp"
#include "sim_test_support.hpp"

namespace eboard::sim::test {
namespace {

// Plays `m` from `before` with `style` and checks the physical outcome; returns the actions.
std::vector<HandAction> play_checked(const Position& before, Move m, const HandStyle& style,
                                     std::uint64_t seed, HandStats* stats = nullptr) {
  Hand hand(style, seed);
  std::vector<HandAction> acts = hand.play_move(before, m, 1000);
  EXPECT_EQ(check_actions(physical_board(before), acts), "");
  PhysicalBoard board = physical_board(before);
  for (const HandAction& a : acts) apply(board, a);
  Position after = before;
  after.do_move(m);
  EXPECT_EQ(board_string(board), board_string(physical_board(after)));
  EXPECT_FALSE(acts.empty());
  EXPECT_TRUE(std::holds_alternative<PressClock>(acts.back().what));
  EXPECT_EQ(std::get<PressClock>(acts.back().what).player, before.side_to_move());
  if (stats) add(*stats, hand.stats());
  return acts;
}

std::int64_t first_board_action_time(const std::vector<HandAction>& acts) {
  for (const HandAction& a : acts)
    if (!std::holds_alternative<PressClock>(a.what)) return a.t_ms;
  return -1;
}

TEST(Hand, PlainMoveIsLiftThenPlaceThenPress) {
  const Position p = Position::start();
  const Move m = Move::make(sq("g1"), sq("f3"));
  const auto acts = play_checked(p, m, HandStyle::tidy(), 7);
  ASSERT_EQ(acts.size(), 3u);
  EXPECT_EQ(std::get<Lift>(acts[0].what).square, sq("g1"));
  EXPECT_EQ(std::get<Place>(acts[1].what).square, sq("f3"));
  EXPECT_EQ(std::get<Place>(acts[1].what).piece, rules::W_KNIGHT);
  const HandStyle t = HandStyle::tidy();
  EXPECT_GE(acts[0].t_ms - 1000, t.think_ms.min_ms);
  EXPECT_LE(acts[0].t_ms - 1000, t.think_ms.max_ms);
  EXPECT_GE(acts[1].t_ms - acts[0].t_ms, t.air_ms.min_ms);
  EXPECT_GE(acts[2].t_ms - acts[1].t_ms, t.press_delay_ms.min_ms);
  EXPECT_LE(acts[2].t_ms - acts[1].t_ms, t.press_delay_ms.max_ms);
}

TEST(Hand, ThinkAndSpentTimes) {
  const Position p = Position::start();
  const Move m = Move::make(sq("e2"), sq("e4"));
  Hand hand(HandStyle::casual(), 3);
  MoveTiming timing;
  timing.think_ms = 1234;
  auto acts = hand.play_move(p, m, 5000, timing);
  EXPECT_EQ(acts.front().t_ms, 6234);
  timing = {};
  timing.spent_ms = 10000;
  acts = hand.play_move(p, m, 5000, timing);
  EXPECT_EQ(acts.back().t_ms, 15000);  // the press lands exactly when the clock data says
  timing.spent_ms = 10;
  acts = hand.play_move(p, m, 5000, timing);
  EXPECT_EQ(acts.front().t_ms, 5000);  // handling takes longer than the budget: no think at all
  timing = {};
  timing.think_ms = 0;
  timing.press_clock = false;
  acts = hand.play_move(p, m, 5000, timing);
  EXPECT_FALSE(std::holds_alternative<PressClock>(acts.back().what));
}

TEST(Hand, RejectsMoveThatDoesNotFitTheBoard) {
  Hand hand(HandStyle::tidy(), 1);
  EXPECT_THROW(hand.play_move(Position::start(), Move::make(sq("e4"), sq("e5")), 0), std::invalid_argument);
  const std::vector<Move> bad{Move::make(sq("e2"), sq("e5"))};
  EXPECT_THROW(hand.play_game(Position::start(), bad, 0), std::invalid_argument);
}

TEST(Hand, CapturesInEveryOrder) {
  // 1. e4 d5: exd5 on the board.
  const Position p = fen("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
  const Move m = Move::make(sq("e4"), sq("d5"));
  HandStats total;
  int quick = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    HandStats st;
    const auto acts = play_checked(p, m, HandStyle::messy(), seed, &st);
    const Observed o = classify(p, m, acts);
    EXPECT_EQ(o.s.captures_victim_first, st.captures_victim_first);
    EXPECT_EQ(o.s.captures_mover_first, st.captures_mover_first + st.captures_swap);
    quick += o.quick_replacements;
    add(total, st);
  }
  EXPECT_GT(total.captures_victim_first, 30);
  EXPECT_GT(total.captures_mover_first, 30);
  EXPECT_GT(total.captures_swap, 30);
  EXPECT_GE(quick, total.captures_swap);  // every one-motion capture replaces the victim within 80 ms
  EXPECT_GT(total.strays, 10);
}

TEST(Hand, TidyNeverMakesNoise) {
  HandStats total;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const RandomGame g = random_game(Position::start(), 60, seed);
    Hand hand(HandStyle::tidy(), seed);
    hand.play_game(g.start, g.moves, 0);
    add(total, hand.stats());
  }
  EXPECT_EQ(total.slides + total.bounces + total.strays + total.knocks + total.promotions_on_rank, 0);
  EXPECT_EQ(total.captures_victim_first + total.captures_swap, 0);
}

TEST(Hand, StandardCastlingAlwaysKingFirst) {
  const Position p = fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
  HandStats total;
  for (Move m :
       {Move::make(sq("e1"), sq("h1"), Move::CASTLING), Move::make(sq("e1"), sq("a1"), Move::CASTLING)}) {
    ASSERT_TRUE(rules::MoveList(p).contains(m));
    for (const NamedStyle& st : all_styles())
      for (std::uint64_t seed = 0; seed < 150; ++seed) {
        HandStats s;
        const auto acts = play_checked(p, m, st.style, seed, &s);
        const Observed o = classify(p, m, acts);
        EXPECT_TRUE(o.king_first) << st.name << " seed " << seed;
        EXPECT_EQ(o.s.castles_king_then_rook, s.castles_king_then_rook);
        EXPECT_EQ(o.s.castles_both_lifted, s.castles_both_lifted);
        EXPECT_EQ(o.s.castles_king_off, s.castles_king_off);
        EXPECT_EQ(o.s.slides, s.slides);
        add(total, s);
      }
  }
  EXPECT_GT(total.castles_king_then_rook, 50);
  EXPECT_GT(total.castles_both_lifted, 50);
  EXPECT_GT(total.castles_king_off, 20);
  EXPECT_GT(total.slides, 20);  // the king pushed across f1/d1, the long rook across b1
}

struct CastleCase {
  const char* fen;
  const char* king;
  const char* rook;
};

TEST(Hand, Chess960Castlings) {
  const CastleCase cases[] = {
      {"4k3/8/8/8/8/8/8/6KR w H - 0 1", "g1", "h1"},    // the king stays on g1
      {"4k3/8/8/8/8/8/8/1K3R2 w F - 0 1", "b1", "f1"},  // the rook stays on f1
      {"4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "f1", "g1"},   // king and rook swap squares
      {"4k3/8/8/8/8/8/8/RK6 w A - 0 1", "b1", "a1"},    // queen side, both move
      {"2rk4/8/8/8/8/8/8/4K3 b c - 0 1", "d8", "c8"},   // black swaps king and rook on the queen side
      {"r1k5/8/8/8/8/8/8/4K3 b a - 0 1", "c8", "a8"},   // black: the king stays on c8
  };
  HandStats total;
  for (const CastleCase& c : cases) {
    const Position p = fen(c.fen, rules::Variant::Chess, true);
    const Move m = Move::make(sq(c.king), sq(c.rook), Move::CASTLING);
    ASSERT_TRUE(rules::MoveList(p).contains(m)) << c.fen;
    for (const NamedStyle& st : all_styles())
      for (std::uint64_t seed = 0; seed < 60; ++seed) {
        HandStats s;
        const auto acts = play_checked(p, m, st.style, seed, &s);
        const Observed o = classify(p, m, acts);
        EXPECT_TRUE(o.king_first) << c.fen << ' ' << st.name;
        EXPECT_EQ(o.s.castles_king_still, s.castles_king_still);
        EXPECT_EQ(o.s.castles_rook_still, s.castles_rook_still);
        EXPECT_EQ(o.s.castles_king_off, s.castles_king_off) << c.fen;
        EXPECT_EQ(o.s.castles_both_lifted, s.castles_both_lifted) << c.fen;
        EXPECT_EQ(o.s.castles_king_then_rook, s.castles_king_then_rook) << c.fen;
        add(total, s);
      }
  }
  EXPECT_GT(total.castles_king_still, 0);
  EXPECT_GT(total.castles_rook_still, 0);
  EXPECT_GT(total.castles_king_off, total.castles_king_then_rook);  // guideline II is the usual order
  EXPECT_GT(total.castles_both_lifted, 0);
}

TEST(Hand, EnPassantVictimBeforeOrAfter) {
  const Position p = fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
  const Move m = Move::make(sq("e5"), sq("d6"), Move::EN_PASSANT);
  ASSERT_TRUE(rules::MoveList(p).contains(m));
  HandStats total;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    HandStats s;
    const auto acts = play_checked(p, m, HandStyle::messy(), seed, &s);
    const Observed o = classify(p, m, acts);
    EXPECT_EQ(o.s.ep_victim_first, s.ep_victim_first);
    EXPECT_EQ(o.s.ep_victim_after, s.ep_victim_after);
    add(total, s);
  }
  EXPECT_GT(total.ep_victim_first, 40);
  EXPECT_GT(total.ep_victim_after, 40);
}

TEST(Hand, PromotionsOnTheRankOrStraight) {
  const Position p = fen("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
  HandStats total;
  for (Move m : {Move::promotion(sq("b7"), sq("b8"), rules::QUEEN),
                 Move::promotion(sq("b7"), sq("a8"), rules::KNIGHT)}) {
    ASSERT_TRUE(rules::MoveList(p).contains(m));
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
      HandStats s;
      const auto acts = play_checked(p, m, HandStyle::messy(), seed, &s);
      const Observed o = classify(p, m, acts);
      EXPECT_EQ(o.s.promotions_on_rank, s.promotions_on_rank);
      EXPECT_EQ(o.s.promotions_direct, s.promotions_direct);
      add(total, s);
    }
  }
  EXPECT_GT(total.promotions_on_rank, 100);
  EXPECT_GT(total.promotions_direct, 50);
}

TEST(Hand, BughousePromotedPawnStaysAPawn) {
  // FQE 11: the pawn stays on the last rank; moved or captured later it is handled as the pawn it is.
  const Position p = fen("8/1P5k/8/8/8/8/6r1/K7 w - - 0 1", rules::Variant::Bughouse);
  const Move promo = Move::promotion(sq("b7"), sq("b8"), rules::QUEEN);
  ASSERT_TRUE(rules::MoveList(p).contains(promo));
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const auto acts = play_checked(p, promo, HandStyle::messy(), seed);
    for (const HandAction& a : acts) {
      if (const auto* pl = std::get_if<Place>(&a.what)) {
        EXPECT_NE(pl->piece, rules::W_QUEEN);
      }
    }
  }
  Position q = p;
  q.do_move(promo);
  EXPECT_EQ(physical_board(q)[sq("b8")], rules::W_PAWN);
  EXPECT_EQ(q.piece_on(sq("b8")), rules::W_QUEEN);
  q.do_move(Move::make(sq("g2"), sq("g8")));
  const Move qx = Move::make(sq("b8"), sq("g8"));  // the "queen" takes: physically a pawn moves
  ASSERT_TRUE(rules::MoveList(q).contains(qx));
  const auto acts = play_checked(q, qx, HandStyle::tidy(), 1);
  bool placed_pawn = false;
  for (const HandAction& a : acts)
    if (const auto* pl = std::get_if<Place>(&a.what))
      placed_pawn |= pl->square == sq("g8") && pl->piece == rules::W_PAWN;
  EXPECT_TRUE(placed_pawn);
}

TEST(Hand, DropsComeFromTheReserve) {
  const Position p = fen("4k3/8/8/8/8/8/8/4K3[Nq] w - - 0 1", rules::Variant::Crazyhouse);
  const Move m = Move::drop(rules::KNIGHT, sq("d4"));
  ASSERT_TRUE(rules::MoveList(p).contains(m));
  for (const NamedStyle& st : all_styles())
    for (std::uint64_t seed = 0; seed < 30; ++seed) {
      const auto acts = play_checked(p, m, st.style, seed);
      EXPECT_TRUE(classify(p, m, acts).drop_without_lift) << st.name;
    }
}

TEST(Hand, KnocksAndBouncesLeaveTheBoardRight) {
  // A crowded position so that knocked pieces have neighbours; every style and many seeds.
  const Position p = Position::start();
  const Move m = Move::make(sq("g1"), sq("f3"));
  HandStats total;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    HandStats s;
    const auto acts = play_checked(p, m, HandStyle::messy(), seed, &s);
    const Observed o = classify(p, m, acts);
    EXPECT_EQ(o.s.knocks, s.knocks);
    EXPECT_EQ(o.s.bounces, s.bounces);
    // A knocked piece is back within about half a second.
    for (std::size_t i = 0; i + 1 < acts.size(); ++i)
      if (const auto* l = std::get_if<Lift>(&acts[i].what))
        if (l->square != sq("g1")) {
          ASSERT_TRUE(std::holds_alternative<Place>(acts[i + 1].what));
          EXPECT_LE(acts[i + 1].t_ms - acts[i].t_ms, 500);
        }
    add(total, s);
  }
  EXPECT_GT(total.knocks, 30);
  EXPECT_GT(total.bounces, 50);
}

// Random games, every start kind, style and seed: after each press the physical board is the position's.
TEST(Hand, RandomGamesKeepTheBoardInStep) {
  HandStats messy_total, messy_observed;
  int messy_quick = 0;
  for (StartKind kind : {StartKind::Standard, StartKind::Chess960, StartKind::Crazyhouse})
    for (int game = 0; game < 50; ++game) {
      const RandomGame g = random_game(start_position(kind, game), 60, 1000 + std::uint64_t(game));
      for (const NamedStyle& st : all_styles())
        for (std::uint64_t seed : {1u, 2u, 99u}) {
          Hand white(st.style, seed * 31 + 1), black(st.style, seed * 31 + 2);
          const std::vector<HandAction> acts = play_game(white, black, g.start, g.moves, 0);
          ASSERT_EQ(check_actions(physical_board(g.start), acts), "")
              << name(kind) << ' ' << game << ' ' << st.name;
          const auto moves = split_moves(acts);
          ASSERT_EQ(moves.size(), g.moves.size());
          PhysicalBoard board = physical_board(g.start);
          std::int64_t last_press = 0;
          for (std::size_t ply = 0; ply < moves.size(); ++ply) {
            for (const HandAction& a : moves[ply]) apply(board, a);
            ASSERT_EQ(board_string(board), board_string(physical_board(g.positions[ply + 1])))
                << name(kind) << " game " << game << ' ' << st.name << " ply " << ply;
            EXPECT_EQ(std::get<PressClock>(moves[ply].back().what).player, g.positions[ply].side_to_move());
            EXPECT_GE(moves[ply].front().t_ms, last_press);
            last_press = moves[ply].back().t_ms;
            if (std::string(st.name) == "messy") {
              const Observed o = classify(g.positions[ply], g.moves[ply], moves[ply]);
              add(messy_observed, o.s);
              messy_quick += o.quick_replacements;
              if (g.moves[ply].is_drop()) {
                EXPECT_TRUE(o.drop_without_lift);
              }
            }
          }
          if (std::string(st.name) == "messy") {
            add(messy_total, white.stats());
            add(messy_total, black.stats());
          }
        }
    }
  // The classifier sees in the bare actions exactly what the hands say they did.
  EXPECT_EQ(messy_observed.moves, messy_total.moves);
  EXPECT_EQ(messy_observed.drops, messy_total.drops);
  EXPECT_EQ(messy_observed.captures_victim_first, messy_total.captures_victim_first);
  EXPECT_EQ(messy_observed.captures_mover_first,
            messy_total.captures_mover_first + messy_total.captures_swap);
  EXPECT_EQ(messy_observed.ep_victim_first, messy_total.ep_victim_first);
  EXPECT_EQ(messy_observed.ep_victim_after, messy_total.ep_victim_after);
  EXPECT_EQ(messy_observed.promotions_on_rank, messy_total.promotions_on_rank);
  EXPECT_EQ(messy_observed.promotions_direct, messy_total.promotions_direct);
  EXPECT_EQ(messy_observed.slides, messy_total.slides);
  EXPECT_EQ(messy_observed.slide_squares, messy_total.slide_squares);
  EXPECT_EQ(messy_observed.bounces, messy_total.bounces);
  EXPECT_EQ(messy_observed.strays, messy_total.strays);
  EXPECT_EQ(messy_observed.knocks, messy_total.knocks);
  EXPECT_GE(messy_quick, messy_total.captures_swap);
  // Every quirk occurs, many times, in messy random play.
  std::ostringstream counts;
  counts << "moves " << messy_total.moves << " drops " << messy_total.drops << " victim-first "
         << messy_total.captures_victim_first << " mover-first " << messy_total.captures_mover_first
         << " swap " << messy_total.captures_swap << " ep " << messy_total.ep_victim_first << '/'
         << messy_total.ep_victim_after << " castles " << messy_total.castles_king_then_rook << '/'
         << messy_total.castles_both_lifted << '/' << messy_total.castles_king_off << " promotions "
         << messy_total.promotions_on_rank << '/' << messy_total.promotions_direct << " slides "
         << messy_total.slides << " (" << messy_total.slide_squares << " squares) bounces "
         << messy_total.bounces << " strays " << messy_total.strays << " knocks " << messy_total.knocks;
  RecordProperty("messy_counts", counts.str());
  std::printf("messy quirks in random games: %s\n", counts.str().c_str());
  EXPECT_GT(messy_total.drops, 100);
  EXPECT_GT(messy_total.captures_victim_first, 100);
  EXPECT_GT(messy_total.captures_mover_first, 100);
  EXPECT_GT(messy_total.captures_swap, 100);
  EXPECT_GT(messy_total.promotions_on_rank, 5);
  EXPECT_GT(messy_total.slides, 500);
  EXPECT_GT(messy_total.bounces, 500);
  EXPECT_GT(messy_total.strays, 100);
  EXPECT_GT(messy_total.knocks, 100);
}

TEST(Hand, SameSeedSameActionsOtherSeedOthers) {
  const RandomGame g = random_game(Position::start(), 60, 5);
  auto run = [&](std::uint64_t seed) {
    Hand h(HandStyle::messy(), seed);
    std::string s;
    for (const HandAction& a : h.play_game(g.start, g.moves, 0)) s += describe(a) + '\n';
    return s;
  };
  EXPECT_EQ(run(42), run(42));
  EXPECT_NE(run(42), run(43));
}

TEST(Hand, ActionsTimesAreNonDecreasingAndThinkPrecedesFirstLift) {
  const RandomGame g = random_game(Position::start(), 40, 17);
  Hand h(HandStyle::blitz(), 8);
  const auto acts = h.play_game(g.start, g.moves, 500);
  EXPECT_GE(first_board_action_time(acts), 500 + HandStyle::blitz().think_ms.min_ms);
  for (std::size_t i = 1; i < acts.size(); ++i) EXPECT_LE(acts[i - 1].t_ms, acts[i].t_ms);
}

}  // namespace
}  // namespace eboard::sim::test

namespace eboard::sim::test {
namespace {

// The generator is splitmix64 exactly (reference values for seed 0), so a seed means the same game on
// every compiler and standard library.
TEST(Rng, IsSplitmix64) {
  Rng r(0);
  EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(r.next(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(r.next(), 0x06C45D188009454FULL);
  Rng a(9);
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t v = a.range(-3, 3);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 3);
  }
  EXPECT_EQ(a.range(5, 5), 5);
  EXPECT_EQ(a.range(5, 1), 5);
  EXPECT_NE(derive_seed(1, 1), derive_seed(1, 2));
  EXPECT_NE(derive_seed(1, 1), derive_seed(2, 1));
}

TEST(StartPositions, Chess960Numbering) {
  EXPECT_EQ(chess960_start_fen(518), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  EXPECT_EQ(chess960_start_fen(0), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
  std::set<std::string> all;
  for (int i = 0; i < 960; ++i) {
    const std::string f = chess960_start_fen(i);
    all.insert(f);
    const auto p = Position::from_fen(f, rules::Variant::Chess, true);
    ASSERT_TRUE(p) << f;
    EXPECT_EQ(p->validate(), "") << f;
    EXPECT_EQ(p->castling_rights(), rules::ANY_CASTLING) << f;
  }
  EXPECT_EQ(all.size(), 960u);
}

}  // namespace
}  // namespace eboard::sim::test
