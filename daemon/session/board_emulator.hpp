// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A make's emulated board as its protocol row offers it (BoardProtocol::emulator): what `eboardctl sim`
// may ask of it and how one is made. sim names no make: it plays whatever a row's emulator makes, on a
// pty, behind a BoardPlayer (emulated_board.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "drivers/capture.hpp"

namespace eboard::session {

class EmulatedBoard;

// What the emulated board is told before it plays. Each field is honoured only by an emulator whose
// BoardEmulator says it can (the caller checks): the others ignore it.
struct EmulatorSetup {
  bool rotated = false;  // set up turned round (Black at the connector side): BoardEmulator::rotates
  // A recording to play (its `<` records, script_from_capture): the board only answers, and stands as
  // the recording first shows it. Must outlive the call only. BoardEmulator::plays_captures.
  const drivers::Capture* capture = nullptr;
  // The board's automatic reports at power-up, one of BoardEmulator::report_modes (empty: the first).
  std::string reports;
  // A board on a bus line at this address (1..16383; 0: a board alone on its line): a make whose row has
  // a bus dialect. It powers up in bus mode, its serial number naming the address.
  std::uint16_t bus_address = 0;
};

struct BoardEmulator {
  std::string_view summary;     // for --help and notes: "a DGT board and its clock"
  std::string_view wire;        // the line as the board speaks it, for notes: "9600 8N1"
  bool plays_captures = false;  // plays a capture of its protocol (EmulatorSetup::capture)
  bool replugs = false;         // can be unplugged and plugged in again (it loses power in between)
  bool rotates = false;         // can be set up turned round (EmulatorSetup::rotated)
  // Automatic reports the board sends by itself, as set at power-up (EmulatorSetup::reports), which
  // another program may turn off (EmulatedBoard::turn_reports_off); empty: the board has no such setting.
  std::span<const std::string_view> report_modes;
  std::unique_ptr<EmulatedBoard> (*make)(const EmulatorSetup&) = nullptr;
};

}  // namespace eboard::session
