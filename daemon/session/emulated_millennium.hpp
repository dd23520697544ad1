// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// An emulated Millennium ChessLink board (drivers/millennium/emulator) played in real time on the board's
// end of a wire (a pty master for `eboardctl sim --protocol millennium` and the tests): the pieces of a
// script (a simulated game's sensor events; clock readings are left out, the board has no clock) are set
// on it at their times on a clock running `speed` times real time, and the host's commands are answered as
// they come. The DGT player (emulated_board.hpp) does the same for DGT boards.
//
// Threading: one io_context run by one thread; call every member from it (or before it runs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include <boost/asio/io_context.hpp>

#include "daemon/session/emulated_board.hpp"
#include "drivers/millennium/emulator.hpp"

namespace eboard::session {

class MillenniumPlayer {
 public:
  MillenniumPlayer(boost::asio::io_context& io, drivers::millennium::Emulator emulator, BoardScript script,
                   PlayerConfig config = {});
  ~MillenniumPlayer();
  MillenniumPlayer(const MillenniumPlayer&) = delete;
  MillenniumPlayer& operator=(const MillenniumPlayer&) = delete;

  // Applies the set-up items and starts the clock (or waits for the host's first byte).
  void start();
  void stop();
  // The board's end of the wire (a pty master), owned from now on; made non-blocking.
  void attach(int fd);
  // Runs `fn` when the script's clock reaches `t_ms` (at once if it has).
  void at(std::int64_t t_ms, std::function<void()> fn);

  [[nodiscard]] std::int64_t now_ms() const;
  [[nodiscard]] bool script_done() const;
  [[nodiscard]] const drivers::millennium::Emulator& emulator() const;

  std::function<void()> on_started;
  std::function<void()> on_script_end;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace eboard::session
