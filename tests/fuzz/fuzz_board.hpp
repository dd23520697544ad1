// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What the reconstruction's fuzz targets make of the fuzzer's bytes: any piece (or none) a board may show
// on a square, and any reading a clock may give.
#pragma once

#include <array>
#include <cstdint>

#include "rules/sensor.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace eboard::fuzz {

// One byte: no piece (0) or one of the twelve.
inline rules::Piece any_piece(std::uint8_t byte) {
  using namespace rules;
  static constexpr std::array<Piece, 13> kPieces = {NO_PIECE, W_PAWN,  W_KNIGHT, W_BISHOP, W_ROOK,
                                                    W_QUEEN,  W_KING,  B_PAWN,   B_KNIGHT, B_BISHOP,
                                                    B_ROOK,   B_QUEEN, B_KING};
  return kPieces[byte % kPieces.size()];
}

// Three bytes: the left and right times in seconds, then running, the lever, the flags and a clock absent.
inline rules::ClockReading any_clock_reading(Bytes& in) {
  rules::ClockReading r;
  r.left_ms = std::int64_t(in.next()) * 1000;
  r.right_ms = std::int64_t(in.next()) * 1000;
  const std::uint8_t bits = in.next();
  r.running = bits & 1;
  r.lever_up = bits & 2 ? rules::ClockSide::Right : rules::ClockSide::Left;
  r.left_flag = bits & 4;
  r.right_flag = bits & 8;
  r.present = !(bits & 16);
  return r;
}

}  // namespace eboard::fuzz
