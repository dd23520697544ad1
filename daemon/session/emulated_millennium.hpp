// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// An emulated Millennium ChessLink board (drivers/millennium/emulator) for the board player
// (emulated_board.hpp), as `eboardctl sim --protocol millennium` and the tests put it on a pty master: the
// pieces of a script (a simulated game's sensor events) are set on it at their times; clock readings are
// left out (the board has no clock), and so are recorded bytes (no Millennium captures yet).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "daemon/session/emulated_board.hpp"
#include "drivers/millennium/emulator.hpp"

namespace eboard::session {

class EmulatedMillennium final : public EmulatedBoard {
 public:
  explicit EmulatedMillennium(drivers::millennium::Emulator emulator) : emu_(std::move(emulator)) {}
  [[nodiscard]] const drivers::millennium::Emulator& emulator() const { return emu_; }
  // Another program writes the board's E2ROM (e.g. turns its automatic reports off): the host is not told.
  void set_e2rom(std::uint8_t address, std::uint8_t value) { emu_.set_e2rom(address, value); }

  void apply(const ScriptItem& item) override;
  void receive(std::int64_t now_ms, std::span<const std::uint8_t> bytes) override {
    emu_.host_bytes(now_ms, bytes);
  }
  void advance(std::int64_t now_ms) override { emu_.advance(now_ms); }
  [[nodiscard]] std::optional<std::int64_t> next_deadline() const override { return emu_.next_deadline(); }
  [[nodiscard]] std::vector<std::uint8_t> take_output() override { return emu_.take_output(); }
  [[nodiscard]] bool reports_at_scans() const override { return true; }
  void turn_reports_off() override;
  // Its E2ROM (reports, scan time) and the host's bytes it ignored for their parity, and its commands.
  [[nodiscard]] std::string account() const override;

 private:
  drivers::millennium::Emulator emu_;
};

}  // namespace eboard::session
