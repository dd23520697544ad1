// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A bus line as the daemon runs it: one serial link (reconnecting by itself, opened with its row's line
// settings) shared by several boards in bus mode, the line's master in the row's bus dialect
// (bus_line.hpp: BusLine, made by the row's make_bus_line) that finds and polls them, and per board the
// reader of its answers (the row's make_bus_board) and, for each board a source attached, its
// reconstruction and the timer that wakes it. Each board reports through the same handlers a BoardSession
// takes, so the source above it is wired as a serial board's is. A board attached sensor-only (a
// bughouse match's, reconstructed elsewhere) gets its sensor events only. The session names no make.
//
// What a board's answers mean for its reconstruction (hold-until-dump, its silences and returns, event
// times) is its BusBoardFeed's (bus_board_feed.hpp), the code capture replay runs too; the session adds
// the line: polls, the asks a feed wants, a board that stopped answering asked again every
// `retry_lost_ms`, and the timer that advances a board's reconstruction when its feed says it is due.
// Each attached board's handlers get its wire (on_wire): the commands written to its address and its
// frames, whole, at the times the feed was given them, so that its journal exports as a capture of the
// row's bus dialect that replays to the same events.
//
// The master runs on the steady clock: its reply timeouts, poll interval and a lost board's retries are
// the wire's, not the game's, and stay real time whatever the time base (unless `line_time` is given).
// Events, reconstruction and each board's wake-ups are on the config's time base (io/time_base.hpp: system,
// scaled or manual). Threading: one io_context run by one thread, the time base's; call every member from it.
// Callbacks may attach and detach boards, but not destroy the session.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/io/serial_link.hpp"
#include "daemon/io/time_base.hpp"
#include "daemon/session/board_protocol.hpp"
#include "daemon/session/board_session.hpp"
#include "daemon/session/bus_board_feed.hpp"
#include "daemon/session/bus_line.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::session {

struct BusSessionConfig {
  // The make whose bus dialect the line speaks: a row with make_bus_line and make_bus_board.
  const BoardProtocol* protocol = nullptr;
  io::LinkConfig link;                   // device path; its line settings are the row's
  std::vector<std::uint16_t> addresses;  // boards polled from the start
  bool discover = false;                 // look for the boards on the line at every connect
  BusLineOptions line;                   // poll interval (a pty or Bluetooth line gets more latency)
  std::shared_ptr<io::TimeBase> time;    // the game's time; empty: the system clock on the io_context
  std::int64_t retry_lost_ms = 2000;     // line ms between polls of a board that stopped answering
  // The line's own time (the master's timeouts and poll interval, a lost board's retries); empty: the
  // steady clock, real time, as a real wire needs. A test whose subject is not the wire's timing gives
  // it a manual time base (io/time_base.hpp), with an emulated line that answers in the same time.
  std::shared_ptr<io::TimeBase> line_time;
};

struct BusLineStats {
  std::uint64_t connects = 0;
  std::uint64_t disconnects = 0;
  std::uint64_t commands = 0;  // commands written
};

class BusSession {
 public:
  BusSession(boost::asio::io_context& io, BusSessionConfig config);
  ~BusSession();
  BusSession(const BusSession&) = delete;
  BusSession& operator=(const BusSession&) = delete;

  void start();
  void stop();  // closes the line, cancels every timer; no callback after this

  // The board at `address` runs `config`'s reconstruction here and reports to `handlers` (on_event,
  // on_sensor, on_log, on_link, on_wire) until detach(). Polled from now
  // on if it was not; read whole (dump, clock) before its changes are delivered again.
  void attach(std::uint16_t address, BusBoardConfig config, BoardSessionHandlers handlers);
  void detach(std::uint16_t address);
  [[nodiscard]] bool attached(std::uint16_t address) const;

  // Of an attached board (undefined otherwise; of a sensor-only board: an unused one).
  [[nodiscard]] const rules::Reconstructor& reconstructor(std::uint16_t address) const;
  void change_reconstructor(std::uint16_t address, const std::function<void(rules::Reconstructor&)>& change);

  [[nodiscard]] bool online(std::uint16_t address) const;  // it answered, and did not stop since
  [[nodiscard]] std::optional<BusBoardStats> board_stats(std::uint16_t address) const;
  // Whether the board was found set up turned round; nothing for a board the line does not know.
  [[nodiscard]] std::optional<bool> rotated(std::uint16_t address) const;
  [[nodiscard]] std::vector<std::uint16_t> known_boards() const;

  [[nodiscard]] std::int64_t now_ms() const;  // on `time`
  // The time an attached board's reconstruction has been advanced to (its timer's events are of then).
  [[nodiscard]] std::int64_t board_time(std::uint16_t address) const;
  [[nodiscard]] bool connected() const;
  [[nodiscard]] const std::string& device() const;
  [[nodiscard]] std::optional<io::PortInfo> port_info() const;
  [[nodiscard]] const io::LinkStats& link_stats() const;
  [[nodiscard]] const BusLineStats& stats() const;

  // A board answered discovery (discover = true): attach it from here if wanted.
  std::function<void(std::uint16_t address)> on_board_found;
  // News of the line (connected, lost, discovery's result), for the log.
  std::function<void(LogLevel, const std::string&)> on_log;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace eboard::session
