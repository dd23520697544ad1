// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A real board on a serial port or USB: session::BoardSession (link with reconnects, the protocol's adapter,
// reconstruction and its timer) reporting to the board's sink. The session's sensor tap gives the journal
// exactly what reconstruction gets (after its hold-until-dump rule, link changes included), so a replay
// reproduces the game; events that follow no sensor event come from the session's timer and are journaled
// after a tick.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/board_source.hpp"
#include "daemon/eboardd/session_feed.hpp"
#include "daemon/journal/machine.hpp"
#include "daemon/session/board_session.hpp"

namespace eboard::eboardd {

// Whether the clock behind a serial board can be set now, or why not (BoardSource::clock_settable), for a
// SerialSource and a match board on a serial line alike: a protocol with a clock port, the link up (`session`
// connected while `running`), and no report of the clock absent in its last `reading`.
tl::expected<void, std::string> serial_clock_settable(const config::BoardConfig& board,
                                                      const session::BoardSession* session, bool running,
                                                      const std::optional<rules::ClockReading>& reading);

class SerialSource : public BoardSource {
 public:
  // Continues `game` (the recovered one) under the reconstruction settings of `current`.
  SerialSource(boost::asio::io_context& io, BoardSink& sink, config::BoardConfig board, rules::Game game,
               journal::NewGameEntry current, std::shared_ptr<io::TimeBase> time = {});
  ~SerialSource() override;

  void start() override;
  void stop() override;
  const rules::Game& game() const override;
  std::string link() const override;
  nlohmann::json info() const override;
  tl::expected<void, std::string> new_game(const journal::NewGameEntry& g) override;
  tl::expected<std::vector<rules::Event>, std::string> control(const journal::ControlEntry& c) override;
  const rules::Reconstructor* reconstructor() const override {
    return session_ ? &session_->reconstructor() : nullptr;
  }
  // The clock behind the board (a DGT 3000 behind a DGT board: its protocol's clock port) while the board
  // is online and reports a clock.
  tl::expected<void, std::string> clock_settable() const override;
  tl::expected<void, std::string> clock_command(const session::ClockRequest& request,
                                                ClockDone done) override;
  // The first session continues `replayed` (the journal's reconstruction after a restart), not a fresh
  // reconstruction of the recovered game: that one would not know the clock sides, the last lever
  // reading or an adjournment, and a press made while the daemon was down would come out wrong.
  void continue_from(std::unique_ptr<rules::Reconstructor> replayed);
  // The board's USB device arrived (hotplug): reconnect now rather than after the link's backoff.
  // `device`, if not empty, is the node to open from now on (a board named by serial number whose tty
  // was found in sysfs, where no udev symlink exists).
  void reconnect_now(const std::string& device = {});
  // The node the link opens: `device` of the last reconnect_now(), else the configured one.
  const std::string& device() const { return device_; }

 private:
  bool opened_by_serial() const;
  void make_session(std::unique_ptr<rules::Game> game);

  boost::asio::io_context& io_;
  config::BoardConfig board_;
  std::string device_;
  journal::NewGameEntry current_;
  std::shared_ptr<io::TimeBase> time_;  // the game's (empty: the system clock)
  std::unique_ptr<session::BoardSession> session_;
  // Shown before the session exists, and taken by it: null while there is a session.
  std::unique_ptr<rules::Game> idle_game_;
  bool running_ = false;
  // For the first session; on the heap, as it is empty once that session has it.
  std::unique_ptr<rules::Reconstructor> replayed_;
  SessionFeed feed_;
};

}  // namespace eboard::eboardd
