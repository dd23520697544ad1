// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// `eboardd --demo`: the daemon without hardware, but with boards all the same. Two emulated DGT boards
// and their clocks (session::BoardPlayer over drivers/dgt/emulator, as `eboardctl sim` plays them) sit
// on pseudo-terminals, and the daemon's configuration names the ptys as the ports of two ordinary serial
// boards: their DGT bytes go through the serial link, the driver, the session and the match (or board)
// runtime exactly like a real board's, raw records in the journals included. The boards are the
// hardware: they run on a thread and an io_context of their own, and the daemon's loop is the same as
// with real boards.
//
// What the boards play comes from a corpus: bughouse matches (BPGN; boards A and B, the match A-B) or
// single games (PGN; each board its own). Simulated hands, scanning boards and clocks (daemon/sim) make
// each board's script. What an arbiter would do is done through the control interface's own functions,
// posted to the daemon's loop: the piece of an under-promotion is named as `eboardctl promotion` names
// it (FQE 11), a new game or match is begun as `eboardctl new-game` begins it, the players entered as
// `eboardctl tags` enters them.
//
// A restart continues where the journals stopped: the `EboardDemo` tag of a game names its corpus game,
// seed and speed, which give the same timelines again. Each board then starts from the point of its
// timeline where the recovered game's last move was pressed (in a match, the later of the two boards'),
// with the pieces and the clock as they stood then, and the daemon reads the board dump as after any
// restart.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <tl/expected.hpp>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/demo_games.hpp"
#include "daemon/eboardd/demo_match.hpp"
#include "daemon/journal/records.hpp"
#include "daemon/session/emulated_board.hpp"

namespace eboard::eboardd {

class Service;

struct DemoSetup {
  std::shared_ptr<const DemoMatchCorpus> matches;  // bughouse matches on A and B; else:
  std::shared_ptr<const DemoCorpus> games;         // single games, each board its own
  double speed = 1.0;                              // thinking time is divided by this
  std::int64_t pause_ms = 5000;                    // between the end of a game (match) and the next
};

class Demo {
 public:
  // `daemon_io` is the daemon's loop: what the demo does as an arbiter is posted there.
  Demo(boost::asio::io_context& daemon_io, DemoSetup setup);
  ~Demo();
  Demo(const Demo&) = delete;
  Demo& operator=(const Demo&) = delete;

  // Plugs the emulated boards in: one pseudo-terminal each.
  tl::expected<void, std::string> open();
  // Makes `config` the demo's: DGT boards A and B on the ptys (and the match A-B when the demo plays
  // matches), in place of its boards and matches. Again on every reload.
  void configure(config::Config& config) const;
  // After Service::start(), before the daemon's loop runs: continues what the journals hold, or begins
  // a game (match), sets the boards and starts their thread.
  void start(Service& service);
  // Stops the boards and joins their thread.
  void stop();

 private:
  struct Naming {
    std::int64_t t = 0;  // on the script's clock
    journal::ControlEntry control;
  };
  // The boards of one game (match): both in a match, else one.
  std::vector<int> unit_of(int board) const;
  void begin(int board, bool resuming);
  void begin_match(bool resuming);
  void begin_game(int board, bool resuming);
  // The board plays `events` from `from_ms` on (its clock stopped a second after the last one), naming
  // the promotion pieces of `namings`; the end of the script is reported with `generation`. On the
  // boards' thread (or before it runs).
  void load(int board, std::uint64_t generation, std::vector<rules::SensorEvent> events, std::int64_t from_ms,
            std::vector<Naming> namings);
  void post_load(int board, std::vector<rules::SensorEvent> events, std::int64_t from_ms,
                 std::vector<Naming> namings);
  void script_ended(int board, std::uint64_t generation);          // on the daemon's loop
  void name_promotion(int board, const journal::ControlEntry& c);  // on the daemon's loop

  boost::asio::io_context& io_;
  DemoSetup setup_;
  Service* service_ = nullptr;
  std::array<std::string, 2> ports_;
  std::array<int, 2> masters_{-1, -1};
  // The daemon's side (its loop's thread).
  std::array<std::uint64_t, 2> generation_{};  // of the script each board was given last
  std::array<bool, 2> ended_{};
  std::array<std::unique_ptr<boost::asio::steady_timer>, 2> pause_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  // The hardware's side: touched only on its thread once that runs.
  boost::asio::io_context hall_;
  std::unique_ptr<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> hall_work_;
  std::array<std::unique_ptr<session::BoardPlayer>, 2> players_;
  std::thread hall_thread_;
};

}  // namespace eboard::eboardd
