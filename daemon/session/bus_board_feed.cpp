// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/bus_board_feed.hpp"

#include <algorithm>
#include <utility>

#include "daemon/session/take_reconstructor.hpp"

namespace eboard::session {

struct BusBoardFeed::Attached {
  Attached(BusBoardConfig c, BoardSessionHandlers h)
      : config(std::move(c)), handlers(std::move(h)), reconstructor(take_reconstructor(config)) {}
  BusBoardConfig config;
  BoardSessionHandlers handlers;
  rules::Reconstructor reconstructor;
  std::optional<std::int64_t> reread_sent_for;
  std::int64_t advanced_to = 0;

  // No record of a reply is timed before this.
  std::int64_t reached() const {
    return config.sensor_only && config.reached ? std::max(advanced_to, config.reached()) : advanced_to;
  }
};

BusBoardFeed::BusBoardFeed(std::uint16_t address, std::string where, std::unique_ptr<BusBoardReader> reader)
    : address_(address), where_(std::move(where)), reader_(std::move(reader)) {}

void BusBoardFeed::attach(BusBoardConfig config, BoardSessionHandlers handlers) {
  attached_ = std::make_shared<Attached>(std::move(config), std::move(handlers));
  ++attachment_;
  held_.clear();
  // A new reconstruction starts from the board as it stands (after its history is flushed, if not yet).
  if (polled_before_)
    request_read();
  else
    awaiting_dump_ = true;
}

void BusBoardFeed::detach() { attached_.reset(); }

rules::Reconstructor& BusBoardFeed::reconstructor() { return attached_->reconstructor; }
const rules::Reconstructor& BusBoardFeed::reconstructor() const { return attached_->reconstructor; }
std::int64_t BusBoardFeed::board_time() const { return attached_ ? attached_->advanced_to : 0; }

void BusBoardFeed::wire(std::int64_t t, drivers::Direction direction,
                        std::span<const std::uint8_t> bytes) const {
  if (attached_ && attached_->handlers.on_wire) attached_->handlers.on_wire(t, direction, bytes);
}

void BusBoardFeed::log(LogLevel level, const std::string& text) const {
  if (attached_ && attached_->handlers.on_log)
    attached_->handlers.on_log(level, "board " + attached_->config.board_id + ": " + text);
}

// `link_t`: the time reconstruction is told at (a DeviceLink input, journaled as a serial board's link
// changes are): a board out of sight is not judged on what it last showed. Its return is told before the
// records of its silence, so it is timed before them. Its first answer is a return too, as a serial
// board's first connect is: a game recovered from the journal went on while no daemon read the board (a
// restart), and the first dump may show moves and presses made meanwhile. A board that has not answered
// yet was never in sight: nothing is told of it.
void BusBoardFeed::set_online(std::int64_t t, bool online, const std::string& reason,
                              std::optional<std::int64_t> link_t) {
  if (online_ == online) return;
  const bool was_known = online_.has_value();
  online_ = online;
  log(online ? LogLevel::info : LogLevel::warning, reason);
  if (!attached_) return;
  if (attached_->handlers.on_link) attached_->handlers.on_link(t, online, reason);
  if ((!was_known && !online) || !attached_) return;
  deliver(rules::SensorEvent{std::max(link_t.value_or(t), attached_->reached()), rules::DeviceLink{online}});
}

void BusBoardFeed::request_read() {
  awaiting_dump_ = true;
  if (on_read_wanted) on_read_wanted();
}

void BusBoardFeed::deliver(const rules::SensorEvent& e) {
  ++stats_.sensor_events;
  std::shared_ptr<Attached> a = attached_;
  if (!a) return;
  if (a->handlers.on_sensor) a->handlers.on_sensor(e);
  if (attached_ != a) return;  // detached by the callback
  a->advanced_to = std::max(a->advanced_to, e.t_ms);
  if (a->config.sensor_only) return;
  for (const rules::Event& ev : a->reconstructor.on_sensor(e)) {
    ++stats_.events;
    if (a->handlers.on_event) a->handlers.on_event(ev);
  }
}

void BusBoardFeed::deliver_all(const std::vector<rules::SensorEvent>& events) {
  for (const rules::SensorEvent& e : events) {
    if (!running_) return;
    if (!awaiting_dump_) {
      deliver(e);
    } else if (std::holds_alternative<rules::ClockReading>(e.what)) {
      held_.push_back(e);
    }
    // Piece changes before the dump: the dump shows their result.
  }
}

void BusBoardFeed::release_held(std::int64_t t) {
  std::vector<rules::SensorEvent> readings = std::move(held_);
  held_.clear();
  for (rules::SensorEvent& e : readings) {
    e.t_ms = std::max(e.t_ms, t);  // they come after the dump they waited for
    deliver(e);
  }
}

void BusBoardFeed::answer(std::int64_t t, const BusAnswer& answer) {
  switch (answer.kind) {
    case BusAnswerKind::changes:
    case BusAnswerKind::changes_repeated:
    case BusAnswerKind::changes_from_start:
      return changes(t, answer);
    case BusAnswerKind::board: {
      known_until_ = t;
      ++stats_.dumps;
      polled_before_ = true;
      const bool was_awaiting = awaiting_dump_;
      awaiting_dump_ = false;
      deliver_all(reader_->board(t, answer));
      if (was_awaiting && running_) release_held(t);
      return;
    }
    case BusAnswerKind::clock:
      known_until_ = t;
      ++stats_.clock_reads;
      deliver_all(reader_->clock(t, answer));
      return;
    case BusAnswerKind::other:
      known_until_ = t;
      return;
  }
}

void BusBoardFeed::changes(std::int64_t t, const BusAnswer& answer) {
  ++stats_.changes_replies;
  const bool returned = online_ == false;
  std::int64_t since = known_until_;
  if (attached_) since = std::max(since, attached_->reached());
  set_online(t, true, (returned ? "answering again at " : "answering at ") + where_, since);
  if (!polled_before_) {
    known_until_ = t;
    polled_before_ = true;  // its history since power-up: the dump shows what it left
    request_read();
    return;
  }
  // The board's record since the game's start (asked after a reply was lost, or of a board given up): what
  // it holds after the last packet given was lost on the line (a move and its press among them) is given
  // as news, as early as it fits (the board recorded it before what it recorded since), and the board is
  // read again to check: at once, or, for a board given up that answers again, after its next changes
  // (what it recorded while it did not answer; read before them, the board would show their moves made).
  if (answer.kind == BusAnswerKind::changes_from_start) {
    ++stats_.from_start;
    std::optional<BusBoardReader::Recovered> lost = reader_->lost_changes(since, t, answer);
    if (!lost)
      log(LogLevel::warning, "changes may have been lost on the line; the board is read again");
    else if (lost->records > 0)
      log(LogLevel::warning, "changes were lost on the line: " + std::to_string(lost->records) +
                                 " records taken from the board's record since the game's start");
    known_until_ = since;
    if (lost) {
      for (const rules::SensorEvent& e : lost->events) known_until_ = std::max(known_until_, e.t_ms);
      deliver_all(lost->events);
    }
    if (returned)
      reread_after_changes_ = true;
    else
      request_read();
    return;
  }
  known_until_ = t;
  // A decision the previous answer left open (its records too close to it for the board's quiet span to
  // cover the wait) is taken before this answer's records: none of them joins the previous answer's move.
  if (attached_ && !attached_->config.sensor_only) {
    if (const auto d = attached_->reconstructor.next_deadline();
        d && *d > since && *d < t && *d <= since + reader_->quiet_ms())
      since = *d;
  }
  deliver_all(reader_->changes(since, t, answer));
  // What it recorded while it did not answer (or lost on the line) is in; the dump checks the result.
  if ((std::exchange(reread_after_changes_, false) || returned) && attached_ && running_) {
    ++stats_.board_rereads;
    request_read();
  }
}

void BusBoardFeed::lost(std::int64_t t, const std::string& reason) {
  ++stats_.lost;
  set_online(t, false, reason);
}

void BusBoardFeed::gone(std::int64_t t, const std::string& reason) {
  held_.clear();
  set_online(t, false, reason);
}

void BusBoardFeed::line_connected() {
  // A board seen before continues from its memory; the dump after its first answer checks it.
  if (polled_before_) awaiting_dump_ = false;
}

std::optional<std::int64_t> BusBoardFeed::due() const {
  if (!attached_ || attached_->config.sensor_only) return std::nullopt;
  const std::optional<std::int64_t> deadline = attached_->reconstructor.next_deadline();
  if (!deadline || *deadline > known_until_) return std::nullopt;  // the next reply comes first
  return deadline;
}

void BusBoardFeed::advance() {
  std::shared_ptr<Attached> a = attached_;
  if (!a || !running_) return;
  a->advanced_to = std::max(a->advanced_to, known_until_);
  const std::vector<rules::Event> timed = a->reconstructor.advance(known_until_);
  if (!timed.empty() && a->handlers.on_advance) a->handlers.on_advance(known_until_);
  for (const rules::Event& ev : timed) {
    ++stats_.events;
    if (a->handlers.on_event) a->handlers.on_event(ev);
  }
}

bool BusBoardFeed::take_reread() {
  if (!attached_ || awaiting_dump_ || online_ != true) return false;
  Attached& a = *attached_;
  std::optional<std::int64_t> wanted;
  if (!a.config.sensor_only)
    wanted = a.reconstructor.board_read_wanted();
  else if (a.config.read_wanted)
    wanted = a.config.read_wanted();
  if (!wanted || wanted == a.reread_sent_for) return false;
  a.reread_sent_for = wanted;
  ++stats_.board_rereads;
  return true;
}

}  // namespace eboard::session
