// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Which piece a capture hands to the partner's board in bughouse (FQE 6 and 11), checked against the
// cases extracted from Fairy-Stockfish's tests (../shared/corpora/bughouse): the captured piece in its
// own colour, and a captured promoted piece as a pawn.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rules/notation.hpp"
#include "rules/position.hpp"

using namespace eboard::rules;

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  return s;
}

// The piece handed over by `m` (as a FEN letter), or "" when nothing is captured.
std::string handed_over(const Position& pos, Move m) {
  if (!pos.is_capture(m)) return "";
  Color us = pos.side_to_move();
  Square victim = m.kind() == Move::EN_PASSANT ? Square(us == WHITE ? m.to() - 8 : m.to() + 8) : m.to();
  PieceType t = pos.captured_hand_type(victim);
  return std::string(1, piece_char(make_piece(color_of(pos.piece_on(victim)), t)));
}

}  // namespace

TEST(PartnerHandover, FairyStockfishCases) {
  auto file = std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "bughouse" /
              "fairy-stockfish_piece_to_partner_cases.txt";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "../shared is absent";
  std::ifstream in(file);
  int cases = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::size_t a = line.find('|'), b = line.find('|', a + 1);
    ASSERT_NE(b, std::string::npos) << line;
    auto pos = Position::from_fen(trim(line.substr(0, a)), Variant::Bughouse);
    ASSERT_TRUE(pos) << pos.error();
    std::istringstream moves(line.substr(a + 1, b - a - 1));
    std::vector<std::string> uci;
    for (std::string m; moves >> m;) uci.push_back(m);
    ASSERT_FALSE(uci.empty()) << line;
    for (std::size_t i = 0; i + 1 < uci.size(); ++i) {
      auto m = parse_uci(*pos, uci[i]);
      ASSERT_TRUE(m) << line << ": " << m.error();
      pos->do_move(*m);
    }
    auto last = parse_uci(*pos, uci.back());
    ASSERT_TRUE(last) << line << ": " << last.error();
    EXPECT_EQ(handed_over(*pos, *last), trim(line.substr(b + 1))) << line;
    ++cases;
  }
  EXPECT_GT(cases, 0);
  std::printf("%d hand-over cases checked\n", cases);
}
