// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// How a session's callbacks reach a board's sink, the same for a board on a line of its own
// (SerialSource) and a board on a bus (BusSource): the sensor event is journaled before reconstruction
// sees it; the events reconstruction's timers make are journaled after a tick at the time they ran, even
// when sensor events came in the same turn; other events that follow no sensor event are journaled after
// a tick at the session's time; log lines lose the session's "board <id>: " prefix (the sink adds its own).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "daemon/eboardd/board_source.hpp"
#include "daemon/session/board_session.hpp"

namespace eboard::eboardd {

// A line's counters as a board's info shows them ("link_stats"), alike for a serial, a bus and a match
// board.
nlohmann::json link_stats_json(const io::LinkStats& stats);

class SessionFeed {
 public:
  SessionFeed(boost::asio::io_context& io, BoardSink& sink, std::string board_id);
  ~SessionFeed();
  SessionFeed(const SessionFeed&) = delete;
  SessionFeed& operator=(const SessionFeed&) = delete;

  // Handlers for a session whose clock is `now` (read only when a timer's events need their tick).
  session::BoardSessionHandlers handlers(std::function<std::int64_t()> now);

 private:
  void mark_busy();

  boost::asio::io_context& io_;
  BoardSink& sink_;
  std::string board_id_;
  // Set by a sensor event until the event loop's next turn: the events then are that input's. Events
  // outside it come from the session's timer.
  bool busy_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace eboard::eboardd
