// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/session_feed.hpp"

namespace eboard::eboardd {

nlohmann::json link_stats_json(const io::LinkStats& stats) {
  return {{"bytes_in", stats.bytes_in},       {"bytes_out", stats.bytes_out},
          {"connects", stats.connects},       {"reconnects", stats.reconnects},
          {"disconnects", stats.disconnects}, {"open_failures", stats.open_failures}};
}

SessionFeed::SessionFeed(BoardSink& sink, std::string board_id)
    : sink_(sink), board_id_(std::move(board_id)) {}

session::BoardSessionHandlers SessionFeed::handlers() {
  session::BoardSessionHandlers h;
  h.on_sensor = [this](const rules::SensorEvent& e) { sink_.sensor(e); };
  h.on_advance = [this](std::int64_t t) { sink_.tick(t); };
  h.on_event = [this](const rules::Event& e) { sink_.events({e}); };
  h.on_wire = [this](std::int64_t t, drivers::Direction dir, std::span<const std::uint8_t> bytes) {
    sink_.wire(t, dir, bytes);
  };
  h.on_log = [this](session::LogLevel level, const std::string& text) {
    const std::string prefix = "board " + board_id_ + ": ";
    sink_.log(level == session::LogLevel::info ? BoardSink::Level::info : BoardSink::Level::warning,
              text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text);
  };
  h.on_link = [this](std::int64_t t, bool online, const std::string& reason) {
    sink_.link_changed(t, online, reason);
  };
  return h;
}

}  // namespace eboard::eboardd
