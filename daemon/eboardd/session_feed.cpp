// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/session_feed.hpp"

#include <boost/asio/post.hpp>

namespace eboard::eboardd {

nlohmann::json link_stats_json(const io::LinkStats& stats) {
  return {{"bytes_in", stats.bytes_in},       {"bytes_out", stats.bytes_out},
          {"connects", stats.connects},       {"reconnects", stats.reconnects},
          {"disconnects", stats.disconnects}, {"open_failures", stats.open_failures}};
}

SessionFeed::SessionFeed(boost::asio::io_context& io, BoardSink& sink, std::string board_id)
    : io_(io), sink_(sink), board_id_(std::move(board_id)) {}

SessionFeed::~SessionFeed() { *alive_ = false; }

void SessionFeed::mark_busy() {
  if (busy_) return;
  busy_ = true;
  boost::asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
    if (!alive.expired()) busy_ = false;
  });
}

session::BoardSessionHandlers SessionFeed::handlers(std::function<std::int64_t()> now) {
  session::BoardSessionHandlers h;
  h.on_sensor = [this](const rules::SensorEvent& e) {
    mark_busy();
    sink_.sensor(e);
  };
  h.on_event = [this, now = std::move(now)](const rules::Event& e) {
    if (!busy_) {
      sink_.tick(now());
      mark_busy();  // one tick for the burst of events of this timer
    }
    sink_.events({e});
  };
  h.on_advance = [this](std::int64_t t) {
    sink_.tick(t);
    mark_busy();  // the events that follow are this advance's
  };
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
