// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A DGT bus line as the daemon runs it: one serial link (9600 8N1, reconnecting by itself) shared by
// several boards in bus mode, the bus master (drivers/dgt/bus_master) that finds and polls them, and per
// board the adapter from its bus replies to sensor events (daemon/boards/dgt_bus_board) and, for each
// board a source attached, its reconstruction and the timer that wakes it. Each board reports through the
// same handlers a BoardSession takes, so the source above it is wired as a serial board's is. A board
// attached sensor-only (a bughouse match's, reconstructed elsewhere) gets its sensor events only.
//
// A board's first changes reply of the session holds its history since power-up: it is dropped and the
// board is read whole (BRD, CLK) instead; until that dump is in, its piece changes are dropped (the dump
// shows them) and its readings held back (as BoardSession does after a connect). Later, the board's own
// memory is the recovery: a board that stopped answering is `offline` for itself only; polled again every
// `retry_lost_ms`, its first answer holds every change it recorded meanwhile, delivered then, and a dump
// read right after checks the result (reconstruction's gap recovery takes over if it differs). A reply
// that says data was lost (SEND_FROM_START) is answered with a dump too. Event times: a dump's and a
// reading's are the clock's time when the reply arrived; a changes reply's records are timed by
// DgtBusBoard between the previous reply (or a decision it left open, taken first) and this one's arrival.
//
// The master runs on the steady clock (its timeouts are the wire's, not the game's); events and
// reconstruction use `clock` (Unix ms, `clock_rate` times real time). Threading: one io_context run by one
// thread; call every member from it. Callbacks may attach and detach boards, but not destroy the session.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/boards/dgt_bus_board.hpp"
#include "daemon/io/serial_link.hpp"
#include "daemon/session/board_session.hpp"
#include "drivers/dgt/bus_master.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::session {

struct BusSessionConfig {
  io::LinkConfig link;                    // device path; line settings 9600 8N1 (the default)
  std::vector<std::uint16_t> addresses;   // boards polled from the start
  bool discover = false;                  // ping the line for boards at every connect
  drivers::dgt::BusMasterOptions master;  // poll interval, timeouts
  std::function<std::int64_t()> clock;    // Unix ms; empty: the system clock
  double clock_rate = 1.0;                // clock ms per real ms
  std::int64_t retry_lost_ms = 2000;      // real ms between polls of a board that stopped answering
};

// A board's reconstruction, as BoardSessionConfig gives it.
struct BusBoardConfig {
  std::string board_id;
  rules::ReconstructConfig rules;
  std::shared_ptr<rules::Game> game;                     // see BoardSessionConfig
  std::shared_ptr<rules::Reconstructor> reconstruction;  // see BoardSessionConfig
  // Sensor events only, as BoardSessionConfig::sensor_only (a bughouse match reconstructs its boards
  // together, elsewhere): on_sensor gets them, `rules`/`game`/`reconstruction` are unused, on_event never
  // fires and the session arms no timer for the board.
  bool sensor_only = false;
  // With sensor_only: whether the reconstruction elsewhere wants the board read again.
  std::function<std::optional<std::int64_t>()> read_wanted;
  // With sensor_only: the time the reconstruction elsewhere has been advanced to. A changes reply's
  // records are timed after it, as they are after the board's own reconstruction's time (an event before
  // a deadline that already fired would rewrite what was decided).
  std::function<std::int64_t()> reached;
};

struct BusBoardStats {
  std::uint64_t changes_replies = 0;
  std::uint64_t sensor_events = 0;
  std::uint64_t events = 0;
  std::uint64_t dumps = 0;
  std::uint64_t clock_reads = 0;
  std::uint64_t board_rereads = 0;  // dumps asked for mid-game (a press with no move, a return)
  std::uint64_t lost = 0;           // times it stopped answering
  std::uint64_t from_start = 0;     // SEND_FROM_START replies (data was lost)
};

struct BusLineStats {
  std::uint64_t connects = 0;
  std::uint64_t disconnects = 0;
  std::uint64_t commands = 0;  // 4-byte commands written
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
  // on_sensor, on_log, on_link; on_wire and on_message are not called) until detach(). Polled from now
  // on if it was not; read whole (dump, clock) before its changes are delivered again.
  void attach(std::uint16_t address, BusBoardConfig config, BoardSessionHandlers handlers);
  void detach(std::uint16_t address);
  [[nodiscard]] bool attached(std::uint16_t address) const;

  // Of an attached board (undefined otherwise; of a sensor-only board: an unused one).
  [[nodiscard]] const rules::Reconstructor& reconstructor(std::uint16_t address) const;
  void change_reconstructor(std::uint16_t address, const std::function<void(rules::Reconstructor&)>& change);

  [[nodiscard]] bool online(std::uint16_t address) const;  // it answered, and did not stop since
  [[nodiscard]] std::optional<BusBoardStats> board_stats(std::uint16_t address) const;
  [[nodiscard]] const daemon::DgtBoard* board(std::uint16_t address) const;
  [[nodiscard]] std::vector<std::uint16_t> known_boards() const;

  [[nodiscard]] std::int64_t now_ms() const;  // on `clock`
  // The time an attached board's reconstruction has been advanced to (its timer's events are of then).
  [[nodiscard]] std::int64_t board_time(std::uint16_t address) const;
  [[nodiscard]] bool connected() const;
  [[nodiscard]] const std::string& device() const;
  [[nodiscard]] std::optional<io::PortInfo> port_info() const;
  [[nodiscard]] const io::LinkStats& link_stats() const;
  [[nodiscard]] const BusLineStats& stats() const;
  [[nodiscard]] const drivers::dgt::BusDecoderStats& decoder_stats() const;

  // A board answered discovery's ping (discover = true): attach it from here if wanted.
  std::function<void(std::uint16_t address)> on_board_found;
  // News of the line (connected, lost, discovery's result), for the log.
  std::function<void(LogLevel, const std::string&)> on_log;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace eboard::session
