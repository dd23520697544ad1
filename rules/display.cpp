// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/display.hpp"

#include <array>

namespace eboard::rules {

namespace {

std::string join(const std::array<int, PIECE_TYPE_NB>& count, bool spaces, bool cap_counts) {
  static constexpr std::array<PieceType, 5> kOrder{QUEEN, ROOK, BISHOP, KNIGHT, PAWN};
  std::string s;
  for (PieceType t : kOrder) {
    int n = count[t];
    if (n <= 0) continue;
    if (spaces && !s.empty()) s += ' ';
    s += piece_char(t);
    if (n > 1) s += cap_counts && n > 9 ? std::string("9") : std::to_string(n);
  }
  return s;
}

}  // namespace

std::string reserve_display(const Position& pos, Color c, std::size_t width) {
  std::array<int, PIECE_TYPE_NB> count{};
  bool any = false;
  for (PieceType t : {PAWN, KNIGHT, BISHOP, ROOK, QUEEN}) {
    count[t] = pos.pocket(c, t);
    any |= count[t] > 0;
  }
  if (!any) return std::string("EMPTY").substr(0, width);
  for (bool spaces : {true, false})
    for (bool cap : {false, true})
      if (std::string s = join(count, spaces, cap); s.size() <= width) return s;
  // Five kinds, each twice or more: the kinds held and the number of pieces ("QRBNP14").
  std::string kinds;
  int total = 0;
  for (PieceType t : {QUEEN, ROOK, BISHOP, KNIGHT, PAWN})
    if (count[t] > 0) {
      kinds += piece_char(t);
      total += count[t];
    }
  return (kinds + std::to_string(total)).substr(0, width);
}

}  // namespace eboard::rules
