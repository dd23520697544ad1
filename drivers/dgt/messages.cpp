// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/messages.hpp"

#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {

std::optional<ClockSide> ClockTimes::running_side() const {
  if (!running) return std::nullopt;
  return right_lever_high ? ClockSide::Right : ClockSide::Left;
}

bool ClockAck::is_automatic() const { return ack[1] >= clock::kAutoAckThreshold; }

std::optional<std::uint8_t> ClockAck::echoed_command() const {
  if (is_automatic()) return std::nullopt;
  return ack[1];
}

bool ClockAck::is_button_press() const { return ack[1] == clock::kAutoButton; }

std::optional<ClockButton> ClockAck::button() const {
  if (!is_button_press()) return std::nullopt;
  switch (ack[3]) {
    case clock::kButtonBack:
      return ClockButton::Back;
    case clock::kButtonPlus:
      return ClockButton::Plus;
    case clock::kButtonRun:
      return ClockButton::Run;
    case clock::kButtonMinus:
      return ClockButton::Minus;
    case clock::kButtonOk:
      return ClockButton::Ok;
    default:
      return std::nullopt;
  }
}

std::optional<Version> ClockAck::version() const {
  if (ack[1] != clock::kVersion) return std::nullopt;
  return Version{.major = static_cast<std::uint8_t>(ack[2] >> 4),
                 .minor = static_cast<std::uint8_t>(ack[2] & 0x0F)};
}

bool ClockAck::is_ok() const { return ack[0] == clock::kAckOk; }

bool ClockAck::is_error() const { return !is_ok(); }

}  // namespace eboard::drivers::dgt
