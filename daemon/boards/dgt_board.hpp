// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A DGT board as a source of sensor events: bytes in (any chunking), rules::SensorEvent out.
// This is where the wire's square numbering (0 = a8 with the connector on White's left), a board set
// up rotated by 180 degrees, and the DGT piece codes become game squares and pieces.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "drivers/dgt/decoder.hpp"
#include "rules/sensor.hpp"

namespace eboard::daemon {

class DgtBoard {
 public:
  // Sensor events and the protocol messages they came from (clock ACKs, serial numbers … go to
  // `on_message`, which may be empty: the board's clock port, DgtClockPort, reads the ACKs there).
  std::vector<rules::SensorEvent> feed(std::int64_t t_ms, std::span<const std::uint8_t> bytes);
  std::function<void(const drivers::dgt::Message&)> on_message;

  // True when the board was found set up rotated (Black at the connector side).
  bool rotated() const { return rotated_; }
  // The whole board as last known in game orientation (after a dump or the updates since).
  rules::BoardSnapshot snapshot() const;
  const drivers::dgt::Decoder& decoder() const { return decoder_; }
  // After a reconnect: a partial message from before is meaningless.
  void reset_link() { decoder_.reset(); }

  static rules::Piece piece_from_code(std::uint8_t code);
  static std::uint8_t code_from_piece(rules::Piece p);
  // Game square of a raw DGT square, given the orientation.
  static rules::Square square_from_raw(std::uint8_t raw, bool rotated);
  static std::uint8_t raw_from_square(rules::Square s, bool rotated);

 private:
  void check_orientation(std::int64_t t, std::vector<rules::SensorEvent>& out);
  std::array<std::uint8_t, 64> raw_{};  // piece codes by raw square
  bool rotated_ = false;
  drivers::dgt::Decoder decoder_;
  std::vector<drivers::dgt::Message> messages_;
};

}  // namespace eboard::daemon
