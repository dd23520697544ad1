// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/board_session.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>

#include "daemon/io/usb_hid_link.hpp"
#include "daemon/session/link_gate.hpp"
#include "daemon/session/take_reconstructor.hpp"

namespace eboard::session {

namespace {

// The board's line, serial or USB HID: the one place the session tells them apart.
class BoardLink {
 public:
  BoardLink(boost::asio::io_context& io, const BoardSessionConfig& config, const BoardProtocol& protocol,
            io::SerialLink::Handlers handlers) {
    if (protocol.transport == Transport::usb_hid) {
      io::UsbHidLinkConfig hid;
      hid.open.device = config.link.device;
      hid.open.vendor_id = protocol.usb_vendor;
      hid.open.product_matches = protocol.usb_product;
      hid.backoff = config.link.backoff;
      hid_ = std::make_unique<io::UsbHidLink>(
          io, config.usb_backend ? config.usb_backend : io::libusb_hid_backend(), std::move(hid),
          std::move(handlers));
    } else {
      serial_ = std::make_unique<io::SerialLink>(io, config.link, std::move(handlers));
    }
  }
  void start() { hid_ ? hid_->start() : serial_->start(); }
  void stop() { hid_ ? hid_->stop() : serial_->stop(); }
  tl::expected<void, io::IoError> write(std::vector<std::uint8_t> bytes) {
    return hid_ ? hid_->write(std::move(bytes)) : serial_->write(std::move(bytes));
  }
  void reconnect_now(const std::string& device) {
    hid_ ? hid_->reconnect_now(device) : serial_->reconnect_now(device);
  }
  [[nodiscard]] const std::string& device() const {
    return hid_ ? hid_->config().open.device : serial_->config().device;
  }
  [[nodiscard]] io::LinkState state() const { return hid_ ? hid_->state() : serial_->state(); }
  [[nodiscard]] const io::LinkStats& stats() const { return hid_ ? hid_->stats() : serial_->stats(); }
  [[nodiscard]] std::optional<io::PortInfo> port_info() const {
    if (!hid_) return serial_->port_info();
    if (hid_->state() != io::LinkState::connected) return std::nullopt;
    io::PortInfo info;
    info.name = "USB " + hid_->description();
    info.description = "USB HID";
    info.transport = io::PortInfo::Transport::usb;
    return info;
  }
  // Bytes the device sent that wait unread in the kernel (a serial line; a HID link reads whole reports).
  [[nodiscard]] std::size_t bytes_waiting() const { return hid_ ? 0 : serial_->bytes_waiting(); }

 private:
  std::unique_ptr<io::SerialLink> serial_;
  std::unique_ptr<io::UsbHidLink> hid_;
};

}  // namespace

struct BoardSession::Impl : std::enable_shared_from_this<BoardSession::Impl> {
  Impl(boost::asio::io_context& io, BoardSessionConfig cfg, BoardSessionHandlers h)
      : config(std::move(cfg)),
        handlers(std::move(h)),
        time(config.time ? config.time : io::TimeBase::system(io)),
        timer(time),
        protocol(protocol_of(config.protocol)),
        decoder(protocol->make_decoder()),
        clock_port(protocol->make_clock_port ? protocol->make_clock_port(*decoder) : nullptr),
        gate(config.dump_wait_ms),
        reconstructor(take_reconstructor(config)) {
    config.link.line = protocol->line;
    if (clock_port) clock_port->on_answer = [this] { on_clock_answer(); };
  }

  static const BoardProtocol* protocol_of(const std::string& name) {
    const BoardProtocol* p = find_protocol(name);
    return p ? p : &board_protocols().front();
  }

  BoardSessionConfig config;
  BoardSessionHandlers handlers;
  std::shared_ptr<io::TimeBase> time;
  io::Timer timer;  // at `armed`
  std::unique_ptr<BoardLink> link;
  const BoardProtocol* protocol;
  std::unique_ptr<BoardDecoder> decoder;
  std::unique_ptr<ClockPort> clock_port;  // null: the protocol's clock cannot be commanded
  LinkGate gate;                          // after a connect, until the board dump is in
  rules::Reconstructor reconstructor;
  std::map<std::uint64_t, BoardSession::ClockDone> clock_waiting;  // ticket -> who waits for its answer
  BoardSessionStats stats;
  std::int64_t last_t = 0;
  bool running = false;
  bool waiting_logged = false;
  // The deadline (clock ms) the timer waits for; max: none. A board's clock sends a reading every second
  // and most leave reconstruction's deadline where it was: the timer then stays as it is (re-arming it
  // cancelled the wait, ran its handler and set the timerfd each time).
  std::int64_t armed = std::numeric_limits<std::int64_t>::max();
  // A deadline that came while the board's bytes waited unread (a loaded host): it is judged after them,
  // and they count as sent before it (on_bytes). A few timer runs in a row at most: a line that streams
  // bytes must not put a deadline off for long.
  std::optional<std::int64_t> due_after_read;
  int reads_awaited = 0;
  static constexpr int kMaxReadsAwaited = 8;
  std::int64_t stamped = 0;  // the latest time handed on with bytes or a timer: stamps never go back

  std::optional<std::int64_t> reread_sent_for;  // the press a mid-game dump was asked for

  std::int64_t now() {
    last_t = std::max(last_t, time->now_ms());
    return last_t;
  }

  void log(LogLevel level, const std::string& text) const {
    if (handlers.on_log) handlers.on_log(level, "board " + config.board_id + ": " + text);
  }

  void emit(std::vector<rules::Event>&& events) {
    for (const rules::Event& e : events) {
      ++stats.events;
      if (handlers.on_event) handlers.on_event(e);
    }
  }

  void deliver(const rules::SensorEvent& e) {
    ++stats.sensor_events;
    if (handlers.on_sensor) handlers.on_sensor(e);
    if (!config.sensor_only) emit(reconstructor.on_sensor(e));
    reread_if_wanted();
  }

  // Reconstruction found the board at rest with no move after a press: field updates may have been lost
  // on the wire (noise, a USB hiccup). One dump request per press; the dump comes back as a snapshot.
  void reread_if_wanted() {
    if (!protocol->board_request) return;
    if (gate.holding() || !link || link->state() != io::LinkState::connected) return;
    if (config.sensor_only && !config.read_wanted) return;
    auto wanted = config.sensor_only ? config.read_wanted() : reconstructor.board_read_wanted();
    if (!wanted || wanted == reread_sent_for) return;
    reread_sent_for = wanted;
    if (send(protocol->board_request())) ++stats.board_rereads;
  }

  void tap(std::int64_t t, drivers::Direction dir, std::span<const std::uint8_t> bytes) const {
    if (handlers.on_wire && !bytes.empty()) handlers.on_wire(t, dir, bytes);
  }

  tl::expected<void, io::IoError> send(std::vector<std::uint8_t> bytes) {
    const std::int64_t t = now();
    std::vector<std::uint8_t> copy = bytes;
    auto ok = link->write(std::move(bytes));
    if (ok) tap(t, drivers::Direction::ToBoard, copy);
    return ok;
  }

  void on_clock_answer() {
    clock_port->settle(now());
    pump_clock();  // the next command may go now
  }

  // Sends what the clock port has due, once the board has been re-read after a connect; logs failures.
  void pump_clock() {
    if (!clock_port) return;
    if (!running || gate.holding() || !link || link->state() != io::LinkState::connected) return;
    while (auto bytes = clock_port->next_to_send(now())) {
      if (auto ok = send(std::move(*bytes)); !ok) break;
      if (clock_port->waiting_for_answer()) break;
    }
    for (const ClockResult& r : clock_port->take_results()) {
      if (auto w = clock_waiting.find(r.ticket); w != clock_waiting.end()) {
        BoardSession::ClockDone done = std::move(w->second);
        clock_waiting.erase(w);
        done(r);
      }
      if (r.status == ClockAnswer::Acknowledged) continue;
      ++stats.clock_commands_failed;
      log(LogLevel::warning, "clock command " + r.command +
                                 (r.status == ClockAnswer::Rejected
                                      ? " rejected by the clock"
                                      : " not acknowledged after " + std::to_string(r.attempts) + " sends"));
    }
  }

  // Commands dropped unanswered (a reconnect): those waiting are told, as not acknowledged, never sent again.
  void drop_clock_waiting(std::int64_t t) {
    auto waiting = std::move(clock_waiting);
    clock_waiting.clear();
    for (auto& [ticket, done] : waiting) {
      ClockResult r;
      r.ticket = ticket;
      r.status = ClockAnswer::TimedOut;
      r.attempts = 0;
      r.at_ms = t;
      done(r);
    }
  }

  void on_connected() {
    const std::int64_t t = now();
    stamped = std::max(stamped, t);
    ++stats.connects;
    waiting_logged = false;
    if (auto info = link->port_info()) {
      std::string how = info->name + " (" + std::string(io::to_string(info->transport));
      if (info->usb_vid) {
        char ids[16];
        std::snprintf(ids, sizeof ids, " %04x:%04x", static_cast<unsigned>(*info->usb_vid),
                      static_cast<unsigned>(info->usb_pid.value_or(0)));
        how += ids;
      }
      how += ")";
      log(LogLevel::info, "connected on " + how);
      if (!info->note.empty()) log(LogLevel::info, info->note);
    }
    decoder->reset_link();
    if (handlers.on_link) {
      auto info = link->port_info();
      handlers.on_link(t, true, "connected on " + (info ? info->name : config.link.device));
    }
    deliver_all(gate.connected(t));
    if (clock_port) clock_port->clear();
    drop_clock_waiting(t);
    if (protocol->init_commands) {
      if (auto ok = send(protocol->init_commands()); !ok) {
        log(LogLevel::warning, "cannot send the init commands: " + ok.error().message);
      }
    }
    decoder->connected(t);
    send_adapter_commands();
    reschedule();
  }

  // What the protocol's adapter wants sent (its connect conversation, resends, polls).
  void send_adapter_commands() {
    std::vector<std::uint8_t> bytes = decoder->take_commands();
    if (bytes.empty() || !link || link->state() != io::LinkState::connected) return;
    if (auto ok = send(std::move(bytes)); !ok)
      log(LogLevel::warning, "cannot send to the board: " + ok.error().message);
  }

  void on_disconnected(const io::IoError& why) {
    const std::int64_t t = now();
    stamped = std::max(stamped, t);
    ++stats.disconnects;
    log(LogLevel::warning, "connection lost (" + why.message + "); reconnecting");
    decoder->reset_link();
    if (handlers.on_link) handlers.on_link(t, false, loss_reason(why));
    deliver_all(gate.disconnected(t));
    reschedule();
  }

  // Unplugging shows as the end of the stream or one of these errors; anything else is a fault of a
  // link still there, which the arbiter should tell apart (a cable to check, not a board to look for).
  static std::string loss_reason(const io::IoError& why) {
    const bool removed = why.sys_errno == 0 || why.sys_errno == EIO || why.sys_errno == ENXIO ||
                         why.sys_errno == ENODEV || why.sys_errno == EBADF;
    return (removed ? "device removed: " : "read error: ") + why.message;
  }

  static std::string open_failure_reason(const io::IoError& why) {
    return (why.kind == io::IoError::Kind::not_found ? "device absent: " : "cannot open the device: ") +
           why.message;
  }

  // When bytes read now count as having come: now, unless a deadline is due and not yet judged (the timer
  // ran late, or runs after this read): then just before it, never before what was handed on already. An
  // idle loop reads what the board sent before a deadline ahead of the deadline; a loaded one must not make
  // a rest look longer than it was (a piece that slid on through its squares read as released on the first,
  // 4.7, and the move pressed taken for another).
  std::int64_t stamp_of_bytes() {
    std::int64_t t = now();
    const std::int64_t due = due_after_read.value_or(armed);
    if (due <= t) t = std::max(stamped, due - 1);
    stamped = std::max(stamped, t);
    return t;
  }

  void on_bytes(std::span<const std::uint8_t> bytes) {
    const std::int64_t t = stamp_of_bytes();
    tap(t, drivers::Direction::FromBoard, bytes);
    const bool was_holding = gate.holding();
    const std::vector<rules::SensorEvent> events = decoder->feed(t, bytes);
    send_adapter_commands();
    deliver_all(gate.pass(events));
    if (!running) return;                              // a callback stopped us
    if (was_holding && !gate.holding()) pump_clock();  // the dump is in: the clock may be spoken to
    reschedule();
  }

  void deliver_all(const std::vector<rules::SensorEvent>& events) {
    for (const rules::SensorEvent& e : events) {
      if (!running) return;  // a callback stopped us
      deliver(e);
    }
  }

  void on_timer(std::int64_t due) {
    const std::int64_t t = now();
    // Bytes on their way in come first (stamp_of_bytes): the read is given a millisecond.
    if (link && link->state() == io::LinkState::connected && link->bytes_waiting() > 0 &&
        reads_awaited < kMaxReadsAwaited) {
      ++reads_awaited;
      due_after_read = std::min(due, due_after_read.value_or(due));
      arm(t + 1);
      return;
    }
    reads_awaited = 0;
    due_after_read.reset();
    stamped = std::max(stamped, t);
    std::vector<rules::SensorEvent> released = gate.advance(t);
    if (gate.timed_out())
      log(LogLevel::warning, "no board dump " + std::to_string(config.dump_wait_ms) +
                                 " ms after connecting; going on without it");
    deliver_all(released);
    if (link && link->state() == io::LinkState::connected) {
      decoder->advance(t);
      send_adapter_commands();
    }
    if (!config.sensor_only) {
      std::vector<rules::Event> timed = reconstructor.advance(t);
      if (!timed.empty() && handlers.on_advance) handlers.on_advance(t);
      emit(std::move(timed));
    }
    reread_if_wanted();
    pump_clock();
    reschedule();
  }

  void reschedule() {
    if (!running) return;
    constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
    std::int64_t deadline = none;
    if (!config.sensor_only) deadline = reconstructor.next_deadline().value_or(none);
    if (auto d = gate.deadline()) deadline = std::min(deadline, *d);
    if (link && link->state() == io::LinkState::connected)
      if (auto d = decoder->next_deadline()) deadline = std::min(deadline, *d);
    const bool can_send = !gate.holding() && link && link->state() == io::LinkState::connected;
    if (clock_port && can_send)
      if (auto c = clock_port->next_deadline(now())) deadline = std::min(deadline, *c);
    if (due_after_read) return;  // the timer is armed to judge it after the read
    if (deadline == armed) return;
    if (deadline == none) {
      armed = none;
      timer.cancel();
      return;
    }
    arm(deadline);
  }

  void arm(std::int64_t deadline) {
    armed = deadline;
    // The timer dies with Impl (its destructor cancels), so `this` outlives every run of the handler.
    timer.arm(deadline, [this] {
      if (!running) return;
      const std::int64_t due = armed;
      armed = std::numeric_limits<std::int64_t>::max();
      on_timer(due);
    });
  }
};

BoardSession::BoardSession(boost::asio::io_context& io, BoardSessionConfig config,
                           BoardSessionHandlers handlers)
    : impl_(std::make_shared<Impl>(io, std::move(config), std::move(handlers))) {
  Impl* impl = impl_.get();  // the link dies with Impl and never calls out after stop()
  io::SerialLink::Handlers h;
  h.on_connected = [impl] { impl->on_connected(); };
  h.on_bytes = [impl](std::span<const std::uint8_t> bytes) { impl->on_bytes(bytes); };
  h.on_disconnected = [impl](const io::IoError& why) { impl->on_disconnected(why); };
  h.on_open_failed = [impl](const io::IoError& why, std::chrono::milliseconds /*retry_in*/) {
    if (impl->waiting_logged) return;  // one line per outage, not one per retry
    impl->waiting_logged = true;
    if (impl->handlers.on_link) impl->handlers.on_link(impl->now(), false, Impl::open_failure_reason(why));
    impl->log(LogLevel::warning, "waiting for the board: " + why.message);
  };
  impl_->link = std::make_unique<BoardLink>(io, impl_->config, *impl_->protocol, std::move(h));
}

BoardSession::~BoardSession() { stop(); }

void BoardSession::start() {
  if (impl_->running) return;
  impl_->running = true;
  impl_->link->start();
  impl_->reschedule();
}

void BoardSession::stop() {
  if (!impl_->running) return;
  impl_->running = false;
  impl_->link->stop();
  impl_->armed = std::numeric_limits<std::int64_t>::max();
  impl_->due_after_read.reset();
  impl_->timer.cancel();
}

tl::expected<void, io::IoError> BoardSession::send(std::vector<std::uint8_t> bytes) {
  return impl_->send(std::move(bytes));
}

void BoardSession::reconnect_now(const std::string& device) { impl_->link->reconnect_now(device); }
const std::string& BoardSession::device() const { return impl_->link->device(); }

void BoardSession::clock_command(const ClockRequest& request) {
  if (!impl_->clock_port) {
    ++impl_->stats.clock_commands;
    ++impl_->stats.clock_commands_failed;
    return;
  }
  if (!impl_->clock_port->enqueue(request)) return;
  ++impl_->stats.clock_commands;
  impl_->pump_clock();
  impl_->reschedule();
}

tl::expected<void, std::string> BoardSession::clock_command(const ClockRequest& request, ClockDone done) {
  const std::string& id = impl_->config.board_id;
  if (!impl_->clock_port)
    return tl::unexpected("board " + id + " is a " + std::string(impl_->protocol->name) +
                          " board: no clock comes through it, so the daemon cannot set one");
  if (!impl_->running || !connected())
    return tl::unexpected("board " + id + " is offline: its clock cannot be reached");
  auto ticket = impl_->clock_port->enqueue(request);
  if (!ticket) return tl::unexpected("board " + id + "'s clock cannot take this: " + ticket.error());
  ++impl_->stats.clock_commands;
  if (done) impl_->clock_waiting.emplace(*ticket, std::move(done));
  impl_->pump_clock();
  impl_->reschedule();
  return {};
}

bool BoardSession::has_clock_port() const { return impl_->clock_port != nullptr; }

std::int64_t BoardSession::now_ms() const { return impl_->now(); }
bool BoardSession::connected() const { return impl_->link->state() == io::LinkState::connected; }
std::optional<io::PortInfo> BoardSession::port_info() const { return impl_->link->port_info(); }
const io::LinkStats& BoardSession::link_stats() const { return impl_->link->stats(); }
const BoardSessionStats& BoardSession::stats() const {
  const LinkGateStats& g = impl_->gate.stats();
  impl_->stats.field_updates_before_dump = g.field_updates_before_dump;
  impl_->stats.readings_held = g.readings_held;
  impl_->stats.dump_timeouts = g.dump_timeouts;
  return impl_->stats;
}
const rules::Reconstructor& BoardSession::reconstructor() const { return impl_->reconstructor; }
const rules::Game& BoardSession::game() const { return impl_->reconstructor.game(); }
void BoardSession::change_reconstructor(const std::function<void(rules::Reconstructor&)>& change) {
  change(impl_->reconstructor);
  impl_->reschedule();
}
const BoardProtocol& BoardSession::protocol() const { return *impl_->protocol; }
bool BoardSession::rotated() const { return impl_->decoder->rotated(); }

bool BoardSession::leds(std::uint64_t squares) {
  if (!impl_->protocol->leds || !connected()) return false;
  return impl_->send(impl_->protocol->leds(squares)).has_value();
}
const std::string& BoardSession::board_id() const { return impl_->config.board_id; }

}  // namespace eboard::session
