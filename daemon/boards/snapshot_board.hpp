// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Boards that report whole positions (Millennium ChessLink `s` reports, Chessnut position frames) as a
// source of sensor events: bytes in (any chunking), rules::BoardSnapshot out. A Millennium board may report
// every scan (about 24 a second) whether or not anything changed: only a position that differs from the
// last one given out becomes an event, so the journal and reconstruction see changes, not scans. The
// Millennium adapter also keeps the host's side of the conversation (drivers/millennium/host.hpp: the
// board's settings written and read back at every connect, the squares asked again after a silence): its
// replies are fed to it here, its commands are taken by the session.
// Orientation: these boards are taken as set up with White at the near side (a rotated set-up is not
// detected, unlike DGT's).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "drivers/chessnut/protocol.hpp"
#include "drivers/millennium/host.hpp"
#include "drivers/millennium/protocol.hpp"
#include "rules/sensor.hpp"

namespace eboard::daemon {

// A piece letter of FEN's kind ('.' empty) as a piece; NO_PIECE for anything else.
rules::Piece piece_from_letter(char c);
char letter_from_piece(rules::Piece p);

class MillenniumBoard {
 public:
  explicit MillenniumBoard(drivers::millennium::HostConfig host = {}) : host_(host) {}
  std::vector<rules::SensorEvent> feed(std::int64_t t_ms, std::span<const std::uint8_t> bytes);
  // After a reconnect: a partial frame is meaningless and the next report is news whatever it shows.
  void reset_link();
  // The line is open: the host's connect conversation begins (its commands wait in host()).
  void connected(std::int64_t t_ms);
  drivers::millennium::Host& host() { return host_; }
  const drivers::millennium::Host& host() const { return host_; }
  rules::BoardSnapshot snapshot() const { return last_.value_or(rules::BoardSnapshot{}); }
  const drivers::millennium::Decoder& decoder() const { return decoder_; }
  // Reports that repeated the position before them (not given out).
  std::uint64_t repeated_reports() const { return repeated_; }

  // The board's squares (a8 … h1) as a game snapshot, and back (for emulators and tests).
  static rules::BoardSnapshot from_squares(const drivers::millennium::Squares& squares);
  static drivers::millennium::Squares to_squares(const std::array<rules::Piece, 64>& board);

 private:
  drivers::millennium::Decoder decoder_;
  drivers::millennium::Host host_;
  std::vector<drivers::millennium::Reply> replies_;
  std::optional<rules::BoardSnapshot> last_;
  std::uint64_t repeated_ = 0;
};

class ChessnutBoard {
 public:
  std::vector<rules::SensorEvent> feed(std::int64_t t_ms, std::span<const std::uint8_t> bytes);
  void reset_link();
  rules::BoardSnapshot snapshot() const { return last_.value_or(rules::BoardSnapshot{}); }
  const drivers::chessnut::Decoder& decoder() const { return decoder_; }

  static rules::BoardSnapshot from_position(const drivers::chessnut::Position& p);
  static drivers::chessnut::Position to_position(const std::array<rules::Piece, 64>& board);

 private:
  drivers::chessnut::Decoder decoder_;
  std::vector<drivers::chessnut::Position> positions_;
  std::optional<rules::BoardSnapshot> last_;
};

}  // namespace eboard::daemon
