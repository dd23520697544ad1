// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The reserve as the DGT 3000's eight characters show it (FQE 18: the opponent may ask to see it).
#include <gtest/gtest.h>

#include "rules/display.hpp"

using namespace eboard::rules;

namespace {

Position with_pockets(const char* fen) {
  auto p = Position::from_fen(fen, Variant::Bughouse);
  EXPECT_TRUE(p) << fen;
  return p ? *p : Position::start(Variant::Bughouse);
}

}  // namespace

TEST(ReserveDisplay, StrongestFirstCountsOnlyAboveOne) {
  Position p = with_pockets("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QRRPPPnp] w KQkq - 0 1");
  EXPECT_EQ(reserve_display(p, WHITE), "Q R2 P3");
  EXPECT_EQ(reserve_display(p, BLACK), "N P");
}

TEST(ReserveDisplay, EmptyReserve) {
  EXPECT_EQ(reserve_display(Position::start(Variant::Bughouse), WHITE), "EMPTY");
}

TEST(ReserveDisplay, SpacesGoWhenTheyDoNotFit) {
  Position p = with_pockets("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QRRBBNPPP] w KQkq - 0 1");
  EXPECT_EQ(reserve_display(p, WHITE), "QR2B2NP3");
}

TEST(ReserveDisplay, NothingLongerThanTheDisplay) {
  Position p = with_pockets("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QQRRBBNNPPPPPPPPPPPP] w KQkq - 0 1");
  std::string s = reserve_display(p, WHITE);
  EXPECT_LE(s.size(), 8u);
  EXPECT_EQ(s, "QRBNP20");
  // A wider display (the text of a web page, say) shows it all.
  EXPECT_EQ(reserve_display(p, WHITE, 20), "Q2 R2 B2 N2 P12");
}
