// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// How a session's callbacks reach a board's sink, the same for a board on a line of its own
// (SerialSource) and a board on a bus (BusSource): the sensor event is journaled before reconstruction
// sees it, and the events it makes after it; the events reconstruction's timers make are journaled after a
// tick at the time they ran (on_advance): replay makes each again from what precedes it. Log lines lose the
// session's "board <id>: " prefix (the sink adds its own).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "daemon/eboardd/board_source.hpp"
#include "daemon/session/board_session.hpp"

namespace eboard::eboardd {

// A line's counters as a board's info shows them ("link_stats"), alike for a serial, a bus and a match
// board.
nlohmann::json link_stats_json(const io::LinkStats& stats);

class SessionFeed {
 public:
  SessionFeed(BoardSink& sink, std::string board_id);
  SessionFeed(const SessionFeed&) = delete;
  SessionFeed& operator=(const SessionFeed&) = delete;

  session::BoardSessionHandlers handlers();

 private:
  BoardSink& sink_;
  std::string board_id_;
};

}  // namespace eboard::eboardd
