// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The slider attacks of the build-time tables (rules/gen_attack_tables.cpp) agree with a plain ray walk
// on many occupancies of every square.
#include "rules/bitboard.hpp"

#include <cstdint>

#include <gtest/gtest.h>

using namespace eboard::rules;

namespace {

Bitboard walk(Square s, Bitboard occ, const int (&dirs)[4][2]) {
  Bitboard result = 0;
  for (const auto& d : dirs) {
    int f = file_of(s) + d[0], r = rank_of(s) + d[1];
    for (; f >= 0 && f <= 7 && r >= 0 && r <= 7; f += d[0], r += d[1]) {
      result |= square_bb(make_square(f, r));
      if (occ & square_bb(make_square(f, r))) break;
    }
  }
  return result;
}

constexpr int ROOK_STEPS[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
constexpr int BISHOP_STEPS[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

}  // namespace

TEST(Bitboard, SliderAttacksAgreeWithRayWalk) {
  std::uint64_t x = 0x2545F4914F6CDD1DULL;
  auto next = [&x] {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 0x2545F4914F6CDD1DULL;
  };
  for (Square s = 0; s < 64; ++s) {
    for (int i = 0; i < 500; ++i) {
      // Sparse and dense occupancies alike.
      const Bitboard occ = i % 2 ? next() & next() : next() | next();
      ASSERT_EQ(rook_attacks(s, occ), walk(s, occ, ROOK_STEPS)) << square_name(s) << " occ " << occ;
      ASSERT_EQ(bishop_attacks(s, occ), walk(s, occ, BISHOP_STEPS)) << square_name(s) << " occ " << occ;
    }
  }
}

TEST(Bitboard, BetweenAndLineFollowTheSliders) {
  for (Square a = 0; a < 64; ++a)
    for (Square b = 0; b < 64; ++b) {
      Bitboard want_between = square_bb(b), want_line = 0;
      for (PieceType t : {BISHOP, ROOK}) {
        if (a == b || !(pseudo_attacks(t, a) & square_bb(b))) continue;
        want_between |= attacks(t, a, square_bb(b)) & attacks(t, b, square_bb(a));
        want_line = (pseudo_attacks(t, a) & pseudo_attacks(t, b)) | square_bb(a) | square_bb(b);
      }
      ASSERT_EQ(between(a, b), want_between) << square_name(a) << square_name(b);
      ASSERT_EQ(line(a, b), want_line) << square_name(a) << square_name(b);
    }
  EXPECT_TRUE(aligned(0, 9, 63));    // a1, b2, h8
  EXPECT_FALSE(aligned(0, 10, 63));  // a1, c2, h8
}
