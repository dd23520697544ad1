// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What a board and its clock report, as values: the input of reconstruction.
// Squares are already in game orientation (a1 = 0 … h8 = 63); a driver adapter maps its wire numbering
// and a rotated board before events get here. Time is a value (milliseconds), never read from a clock.
#pragma once

#include <array>
#include <cstdint>
#include <variant>

#include "rules/types.hpp"

namespace eboard::rules {

// A square became empty (a piece was lifted, or slid away).
struct PieceLifted {
  Square square;
};
// A piece was set down on a square (or a different piece now stands there).
struct PiecePlaced {
  Square square;
  Piece piece;
};
// The whole board, as after a dump or a reconnect.
struct BoardSnapshot {
  std::array<Piece, 64> squares{};
};

// The two sides of a clock as the players see them; which colour sits where is learned from play.
enum class ClockSide : std::uint8_t { Left, Right };

// One reading of the clock. The lever tells whose clock is "up": the player who pressed last pushed his
// own side down, so the side that is up is the one whose time runs (or would run).
struct ClockReading {
  std::int64_t left_ms = 0;
  std::int64_t right_ms = 0;
  bool running = false;
  ClockSide lever_up = ClockSide::Left;
  bool left_flag = false;  // the flag of that side has fallen
  bool right_flag = false;
  bool present = true;  // false: the board reports no clock connected
};

// The board's link came or went (cable, hotplug): reconstruction keeps its game and waits for a
// snapshot on return.
struct DeviceLink {
  bool connected;
};

struct SensorEvent {
  std::int64_t t_ms = 0;
  std::variant<PieceLifted, PiecePlaced, BoardSnapshot, ClockReading, DeviceLink> what;
};

}  // namespace eboard::rules
