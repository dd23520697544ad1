// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/bus_session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include <boost/asio/steady_timer.hpp>

#include "daemon/session/take_reconstructor.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::session {

namespace {

namespace dgt = drivers::dgt;
constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();

std::int64_t system_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// With EBOARDD_BUS_TRACE=FILE in the environment, the line's traffic is appended to FILE, one line each:
// steady-clock ms, what (`in`: bytes read, `out`: commands written, `changes`: a changes reply as the
// master delivered it), and its bytes or fields. Off (no cost but a null check) without it.
std::FILE* trace_file() {
  static std::FILE* const f = [] {
    const char* path = std::getenv("EBOARDD_BUS_TRACE");
    return path && *path ? std::fopen(path, "a") : nullptr;
  }();
  return f;
}

void trace_bytes(const char* what, std::span<const std::uint8_t> bytes) {
  std::FILE* f = trace_file();
  if (!f) return;
  std::fprintf(f, "%lld %s", static_cast<long long>(steady_ms()), what);
  for (const std::uint8_t b : bytes) std::fprintf(f, " %02x", b);
  std::fprintf(f, "\n");
  std::fflush(f);
}

}  // namespace

struct BusSession::Impl : std::enable_shared_from_this<BusSession::Impl> {
  // What a source attached: its reconstruction, timer and handlers.
  struct Attached {
    Attached(boost::asio::io_context& io, BusBoardConfig c, BoardSessionHandlers h)
        : config(std::move(c)),
          handlers(std::move(h)),
          timer(io),
          reconstructor(take_reconstructor(config)) {}
    BusBoardConfig config;
    BoardSessionHandlers handlers;
    boost::asio::steady_timer timer;
    rules::Reconstructor reconstructor;
    std::int64_t armed = kNone;
    std::uint64_t generation = 0;
    std::optional<std::int64_t> reread_sent_for;
    // Reconstruction is advanced no further than the last reply: what the board did after it is not
    // known yet (its next reply tells, with times before now).
    std::int64_t advanced_to = 0;

    // No record of a reply is timed before this.
    std::int64_t reached() const {
      return config.sensor_only && config.reached ? std::max(advanced_to, config.reached()) : advanced_to;
    }
  };

  struct Board {
    std::uint16_t address = 0;
    daemon::DgtBusBoard adapter;
    std::optional<bool> online;     // unknown until it answers or is given up
    std::int64_t known_until = 0;   // clock ms of its last reply
    bool polled_before = false;     // its first changes reply (its history) has been flushed
    bool awaiting_dump = false;     // changes wait for the dump asked for
    bool read_requested = false;    // BRD and CLK queued
    bool polling = false;           // in the master's round-robin
    bool probing = false;           // given up: a lone SEND_CHANGES asks whether it is back
    std::int64_t retry_at = kNone;  // steady ms: poll again (it stopped answering)
    std::vector<rules::SensorEvent> held;
    BusBoardStats stats;
    std::shared_ptr<Attached> attached;
  };

  Impl(boost::asio::io_context& io_, BusSessionConfig cfg) : io(io_), config(std::move(cfg)), timer(io_) {
    if (!config.clock) config.clock = system_unix_ms;
    if (!(config.clock_rate > 0)) config.clock_rate = 1.0;
    for (std::uint16_t a : config.addresses) board_at(a);
  }

  boost::asio::io_context& io;
  BusSessionConfig config;
  boost::asio::steady_timer timer;  // the master's deadlines and lost boards' retries (steady time)
  std::unique_ptr<io::SerialLink> link;
  static constexpr int kMaxReadsAwaited = 8;
  int reads_awaited = 0;  // pumps in a row put off for bytes waiting to be read
  std::unique_ptr<dgt::BusMaster> master;
  std::map<std::uint16_t, std::shared_ptr<Board>> boards;
  BusLineStats stats;
  bool running = false;
  bool waiting_logged = false;
  std::int64_t last_t = 0;
  std::int64_t timer_due = kNone;
  std::uint64_t timer_generation = 0;
  std::function<void(std::uint16_t)>* on_found = nullptr;
  std::function<void(LogLevel, const std::string&)>* on_line_log = nullptr;

  std::int64_t now() {
    last_t = std::max(last_t, config.clock());
    return last_t;
  }

  bool line_up() const { return link && link->state() == io::LinkState::connected; }

  Board& board_at(std::uint16_t address) {
    auto& b = boards[address];
    if (!b) {
      b = std::make_shared<Board>();
      b->address = address;
    }
    return *b;
  }

  void line_log(LogLevel level, const std::string& text) const {
    if (on_line_log && *on_line_log) (*on_line_log)(level, "bus " + config.link.device + ": " + text);
  }

  void board_log(Board& b, LogLevel level, const std::string& text) const {
    if (b.attached && b.attached->handlers.on_log)
      b.attached->handlers.on_log(level, "board " + b.attached->config.board_id + ": " + text);
  }

  // `link_t`: the time reconstruction is told at, once the board was known to answer (a DeviceLink input,
  // journaled as a serial board's link changes are): a board out of sight is not judged on what it last
  // showed. Its return is told before the records of its silence, so it is timed before them.
  void set_online(Board& b, bool online, const std::string& reason, std::optional<std::int64_t> link_t = {}) {
    if (b.online == online) return;
    const bool was_known = b.online.has_value();
    b.online = online;
    board_log(b, online ? LogLevel::info : LogLevel::warning, reason);
    if (!b.attached) return;
    if (b.attached->handlers.on_link) b.attached->handlers.on_link(now(), online, reason);
    if (!was_known || !b.attached) return;
    const std::int64_t t = std::max(link_t.value_or(now()), b.attached->reached());
    deliver(boards.at(b.address), rules::SensorEvent{t, rules::DeviceLink{online}});
  }

  std::string where(const Board& b) const {
    return "address " + std::to_string(b.address) + " on the bus " + config.link.device;
  }

  // --- Delivery to the board's reconstruction ------------------------------------------------------

  void deliver(const std::shared_ptr<Board>& b, const rules::SensorEvent& e) {
    ++b->stats.sensor_events;
    std::shared_ptr<Attached> a = b->attached;
    if (!a) return;
    if (a->handlers.on_sensor) a->handlers.on_sensor(e);
    if (b->attached != a) return;  // detached by the callback
    a->advanced_to = std::max(a->advanced_to, e.t_ms);
    if (!a->config.sensor_only) emit(*b, *a, a->reconstructor.on_sensor(e));
  }

  void emit(Board& b, Attached& a, std::vector<rules::Event>&& events) {
    for (const rules::Event& e : events) {
      ++b.stats.events;
      if (a.handlers.on_event) a.handlers.on_event(e);
    }
  }

  void deliver_all(const std::shared_ptr<Board>& b, const std::vector<rules::SensorEvent>& events) {
    for (const rules::SensorEvent& e : events) {
      if (!running) return;
      if (!b->awaiting_dump) {
        deliver(b, e);
      } else if (std::holds_alternative<rules::ClockReading>(e.what)) {
        b->held.push_back(e);
      }
      // Piece changes before the dump: the dump shows their result.
    }
    after_input(b);
  }

  void after_input(const std::shared_ptr<Board>& b) {
    if (!b->attached || !running) return;
    reread_if_wanted(*b);
    reschedule_board(b);
  }

  // Reconstruction found the board at rest with no move after a press: ask for the board, once per press.
  void reread_if_wanted(Board& b) {
    Attached& a = *b.attached;
    if (b.awaiting_dump || !line_up() || !master || b.online != true) return;
    std::optional<std::int64_t> wanted;
    if (!a.config.sensor_only)
      wanted = a.reconstructor.board_read_wanted();
    else if (a.config.read_wanted)
      wanted = a.config.read_wanted();
    if (!wanted || wanted == a.reread_sent_for) return;
    a.reread_sent_for = wanted;
    if (master->request(b.address, dgt::bus::kBoard)) {
      ++b.stats.board_rereads;
      pump_soon();
    }
  }

  void reschedule_board(const std::shared_ptr<Board>& b) {
    std::shared_ptr<Attached> a = b->attached;
    if (!a || !running) return;
    std::int64_t deadline = a->config.sensor_only ? kNone : a->reconstructor.next_deadline().value_or(kNone);
    if (deadline > b->known_until) deadline = kNone;  // the next reply comes first (and re-arms)
    if (deadline == a->armed) return;
    const auto gen = ++a->generation;
    a->armed = deadline;
    if (deadline == kNone) {
      a->timer.cancel();
      return;
    }
    const double wait_clock_ms = static_cast<double>(std::max<std::int64_t>(0, deadline - now()));
    a->timer.expires_after(std::chrono::microseconds(
        static_cast<std::int64_t>(std::ceil(wait_clock_ms * 1000.0 / config.clock_rate))));
    a->timer.async_wait([self = shared_from_this(), b, a, gen](const boost::system::error_code& ec) {
      if (ec || !self->running || b->attached != a || gen != a->generation) return;
      a->armed = kNone;
      a->advanced_to = std::max(a->advanced_to, b->known_until);
      self->emit(*b, *a, a->reconstructor.advance(b->known_until));
      if (b->attached == a) self->after_input(b);
    });
  }

  // --- Reading a board whole ---------------------------------------------------------------------------

  void request_read(Board& b) {
    b.awaiting_dump = true;
    if (!master || b.read_requested) return;
    b.read_requested = true;
    (void)master->request(b.address, dgt::bus::kBoard);
    (void)master->request(b.address, dgt::bus::kClock);
    pump_soon();
  }

  void release_held(const std::shared_ptr<Board>& b, std::int64_t t) {
    std::vector<rules::SensorEvent> readings = std::move(b->held);
    b->held.clear();
    for (rules::SensorEvent& e : readings) {
      e.t_ms = std::max(e.t_ms, t);  // they come after the dump they waited for
      deliver(b, e);
    }
  }

  // --- The line -----------------------------------------------------------------------------------------

  void on_connected() {
    ++stats.connects;
    waiting_logged = false;
    std::string how = config.link.device;
    if (auto info = link->port_info())
      how = info->name + " (" + std::string(io::to_string(info->transport)) + ")";
    line_log(LogLevel::info, "connected on " + how);
    if (auto info = link->port_info(); info && !info->note.empty()) line_log(LogLevel::info, info->note);
    master = std::make_unique<dgt::BusMaster>(config.master);
    for (auto& [address, b] : boards) {
      b->read_requested = false;
      b->retry_at = kNone;
      b->probing = false;
      start_polling(*b);
      // A board seen before continues from its memory; the dump after its first answer checks it.
      if (b->polled_before) b->awaiting_dump = false;
    }
    if (config.discover) master->start_discovery();
    pump_soon();
  }

  void start_polling(Board& b) {
    b.polling = true;
    master->add_board(b.address);
  }

  void on_disconnected(const io::IoError& why) {
    ++stats.disconnects;
    line_log(LogLevel::warning, "connection lost (" + why.message + "); reconnecting");
    master.reset();
    for (auto& [address, b] : boards) {
      b->polling = false;
      b->probing = false;
      b->read_requested = false;
      b->held.clear();
      set_online(*b, false, "bus line lost: " + why.message);
    }
    cancel_timer();
  }

  void on_bytes(std::span<const std::uint8_t> bytes) {
    if (!master) return;
    trace_bytes("in", bytes);
    master->on_bytes(bytes, steady_ms());
    handle_events();
    pump();
  }

  void handle_events() {
    if (!master) return;
    for (dgt::BusEvent& ev : master->take_events()) {
      if (!running || !master) return;
      std::visit([this](auto& e) { on_event(e); }, ev);
    }
  }

  void on_event(const dgt::BusBoardFound& e) {
    Board& b = board_at(e.address);
    b.polling = true;
    line_log(LogLevel::info, "found a board at address " + std::to_string(e.address));
    if (on_found && *on_found) (*on_found)(e.address);
  }

  void on_event(const dgt::BusDiscoveryFinished& e) {
    line_log(LogLevel::info, "discovery done: " + std::to_string(e.boards.size()) + " boards answer");
  }

  void on_event(const dgt::BusChanges& e) {
    auto it = boards.find(e.address);
    if (it == boards.end()) return;  // a board nobody knows (a late ping answer): not ours to read
    std::shared_ptr<Board> b = it->second;
    ++b->stats.changes_replies;
    if (std::FILE* f = trace_file()) {
      std::fprintf(f, "%lld changes address %u kind %d records %zu clock %lld\n",
                   static_cast<long long>(steady_ms()), unsigned(e.address), int(e.kind),
                   e.log.records.size(), static_cast<long long>(now()));
      std::fflush(f);
    }
    const bool returned = b->online == false;
    const std::int64_t t = now();
    std::int64_t since = b->known_until;
    if (b->attached) since = std::max(since, b->attached->reached());
    set_online(*b, true, (returned ? "answering again at " : "answering at ") + where(*b), since);
    b->known_until = t;
    if (b->probing) {  // it answers again: back in the round-robin
      b->probing = false;
      if (master && !b->polling) start_polling(*b);
    }
    if (!b->polled_before) {
      b->polled_before = true;  // its history since power-up: the dump shows what it left
      request_read(*b);
      return;
    }
    if (e.kind == dgt::BusChangesKind::FromStart) {
      ++b->stats.from_start;
      board_log(*b, LogLevel::warning, "changes were lost on the line; reading the board again");
      request_read(*b);
      return;
    }
    // A decision the previous reply left open (its records too close to it for the board's quiet span to
    // cover the wait) is taken before this reply's records: none of them joins the previous reply's move.
    if (b->attached && !b->attached->config.sensor_only) {
      if (const auto d = b->attached->reconstructor.next_deadline();
          d && *d > since && *d < t && *d <= since + daemon::DgtBusBoard::kQuietMs)
        since = *d;
    }
    deliver_all(b, b->adapter.changes(since, t, e.log));
    // What it recorded while it did not answer is in; the dump checks the result.
    if (returned && b->attached && running) {
      ++b->stats.board_rereads;
      request_read(*b);
    }
  }

  void on_event(const dgt::BusBoardLost& e) {
    auto it = boards.find(e.address);
    if (it == boards.end()) return;
    Board& b = *it->second;
    ++b.stats.lost;
    b.polling = false;
    b.read_requested = false;
    b.retry_at = steady_ms() + config.retry_lost_ms;
    set_online(b, false, "no answer at " + where(b));
  }

  void on_event(const dgt::BusReplyReceived& e) {
    auto it = boards.find(e.reply.address);
    if (it == boards.end()) return;
    std::shared_ptr<Board> b = it->second;
    const std::int64_t t = now();
    b->known_until = t;
    if (e.reply.id == dgt::bus::kReplyBoardDump) {
      ++b->stats.dumps;
      const bool was_awaiting = b->awaiting_dump;
      b->awaiting_dump = false;
      b->read_requested = false;
      deliver_all(b, b->adapter.board_dump(t, e.reply.data));
      if (was_awaiting) release_held(b, t);
      after_input(b);
    } else if (e.reply.id == dgt::bus::kReplyBwTime) {
      ++b->stats.clock_reads;
      deliver_all(b, b->adapter.clock(t, e.reply.data));
    }
  }

  void on_event(const dgt::BusRequestFailed& e) {
    auto it = boards.find(e.address);
    if (it == boards.end()) return;
    Board& b = *it->second;
    if (e.command == dgt::bus::kSendChanges && b.probing) {
      b.probing = false;
      b.retry_at = steady_ms() + config.retry_lost_ms;
      return;
    }
    if (e.command == dgt::bus::kBoard && b.awaiting_dump) {
      b.read_requested = false;
      if (b.polling) request_read(b);  // asked again; a board gone quiet is given up by the polls
    }
    // A board whose clock was never read is asked again: its readings make its time records presses.
    if (e.command == dgt::bus::kClock && !b.adapter.last_reading() && b.polling && master) {
      (void)master->request(b.address, dgt::bus::kClock);
      pump_soon();
    }
  }

  // --- The master's timer -----------------------------------------------------------------------------

  void pump() {
    if (!running || !master || !line_up()) return;
    const std::int64_t t = steady_ms();
    // Bytes on their way in come first: a reply waiting in the kernel when this timer fired (a loaded host)
    // would otherwise be taken for a timeout, and the next command written over it. The read is given a
    // millisecond, a few times at most (a line that streams bytes must not stop the polls).
    if (link->bytes_waiting() > 0 && reads_awaited < kMaxReadsAwaited) {
      ++reads_awaited;
      schedule(t + 1);
      return;
    }
    reads_awaited = 0;
    for (auto& [address, b] : boards) {
      // A board given up is asked alone, not put back in the round-robin: its polls would climb to
      // REPEAT_CHANGES and SEND_FROM_START again, and its first answer would not be its changes.
      if (!b->polling && !b->probing && b->retry_at != kNone && t >= b->retry_at) {
        b->retry_at = kNone;
        b->probing = static_cast<bool>(master->request(b->address, dgt::bus::kSendChanges));
      }
    }
    auto commands = master->poll(t);
    handle_events();  // a timeout may have given a board up
    if (!commands.empty() && master) {
      std::vector<std::uint8_t> bytes;
      bytes.reserve(commands.size() * dgt::bus::kCommandSize);
      for (const auto& c : commands) bytes.insert(bytes.end(), c.begin(), c.end());
      stats.commands += commands.size();
      trace_bytes("out", bytes);
      (void)link->write(std::move(bytes));
    }
    arm_timer();
  }

  void pump_soon() { schedule(steady_ms()); }

  void arm_timer() {
    if (!master) return;
    std::int64_t due = kNone;
    if (auto d = master->next_deadline()) due = *d == dgt::BusMaster::kDueNow ? steady_ms() : *d;
    for (const auto& [address, b] : boards)
      if (!b->polling && b->retry_at != kNone) due = std::min(due, b->retry_at);
    schedule(due);
  }

  void schedule(std::int64_t due) {
    if (!running) return;
    if (due == timer_due) return;
    if (due == kNone) return cancel_timer();
    // An earlier wake-up than armed replaces it; a later one waits for the armed one to re-arm.
    if (timer_due != kNone && timer_due < due) return;
    timer_due = due;
    const auto gen = ++timer_generation;
    timer.expires_after(std::chrono::milliseconds(std::max<std::int64_t>(0, due - steady_ms())));
    timer.async_wait([self = shared_from_this(), gen](const boost::system::error_code& ec) {
      if (ec || gen != self->timer_generation) return;
      self->timer_due = kNone;
      self->pump();
    });
  }

  void cancel_timer() {
    ++timer_generation;
    timer_due = kNone;
    timer.cancel();
  }
};

BusSession::BusSession(boost::asio::io_context& io, BusSessionConfig config)
    : impl_(std::make_shared<Impl>(io, std::move(config))) {
  impl_->on_found = &on_board_found;
  impl_->on_line_log = &on_log;
  Impl* impl = impl_.get();  // the link dies with Impl and never calls out after stop()
  io::SerialLink::Handlers h;
  h.on_connected = [impl] { impl->on_connected(); };
  h.on_bytes = [impl](std::span<const std::uint8_t> bytes) { impl->on_bytes(bytes); };
  h.on_disconnected = [impl](const io::IoError& why) { impl->on_disconnected(why); };
  h.on_open_failed = [impl](const io::IoError& why, std::chrono::milliseconds) {
    if (impl->waiting_logged) return;
    impl->waiting_logged = true;
    impl->line_log(LogLevel::warning, "waiting for the line: " + why.message);
    for (auto& [address, b] : impl->boards) impl->set_online(*b, false, "bus line absent: " + why.message);
  };
  impl_->link = std::make_unique<io::SerialLink>(io, impl_->config.link, std::move(h));
}

BusSession::~BusSession() {
  stop();
  impl_->on_found = nullptr;
  impl_->on_line_log = nullptr;
}

void BusSession::start() {
  if (impl_->running) return;
  impl_->running = true;
  impl_->link->start();
}

void BusSession::stop() {
  if (!impl_->running) return;
  impl_->running = false;
  impl_->link->stop();
  impl_->master.reset();
  impl_->cancel_timer();
  for (auto& [address, b] : impl_->boards)
    if (b->attached) {
      ++b->attached->generation;
      b->attached->timer.cancel();
    }
}

void BusSession::attach(std::uint16_t address, BusBoardConfig config, BoardSessionHandlers handlers) {
  detach(address);
  auto& b = impl_->boards[address];
  if (!b) {
    b = std::make_shared<Impl::Board>();
    b->address = address;
  }
  b->attached = std::make_shared<Impl::Attached>(impl_->io, std::move(config), std::move(handlers));
  b->held.clear();
  if (impl_->master && !b->polling && !b->probing && b->retry_at == kNone) impl_->start_polling(*b);
  // A new reconstruction starts from the board as it stands (after its history is flushed, if not yet).
  if (b->polled_before)
    impl_->request_read(*b);
  else
    b->awaiting_dump = true;
  impl_->reschedule_board(b);
}

void BusSession::detach(std::uint16_t address) {
  auto it = impl_->boards.find(address);
  if (it == impl_->boards.end() || !it->second->attached) return;
  auto& a = it->second->attached;
  ++a->generation;
  a->timer.cancel();
  a.reset();
}

bool BusSession::attached(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  return it != impl_->boards.end() && it->second->attached;
}

const rules::Reconstructor& BusSession::reconstructor(std::uint16_t address) const {
  return impl_->boards.at(address)->attached->reconstructor;
}

void BusSession::change_reconstructor(std::uint16_t address,
                                      const std::function<void(rules::Reconstructor&)>& change) {
  auto b = impl_->boards.at(address);
  change(b->attached->reconstructor);
  impl_->reschedule_board(b);
}

bool BusSession::online(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  return it != impl_->boards.end() && it->second->online == true;
}

std::optional<BusBoardStats> BusSession::board_stats(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  if (it == impl_->boards.end()) return std::nullopt;
  return it->second->stats;
}

const daemon::DgtBoard* BusSession::board(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  return it == impl_->boards.end() ? nullptr : &it->second->adapter.board();
}

std::vector<std::uint16_t> BusSession::known_boards() const {
  std::vector<std::uint16_t> out;
  for (const auto& [address, b] : impl_->boards) out.push_back(address);
  return out;
}

std::int64_t BusSession::now_ms() const { return impl_->now(); }
std::int64_t BusSession::board_time(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  if (it == impl_->boards.end() || !it->second->attached) return impl_->now();
  return it->second->attached->advanced_to;
}
bool BusSession::connected() const { return impl_->line_up(); }
const std::string& BusSession::device() const { return impl_->config.link.device; }
std::optional<io::PortInfo> BusSession::port_info() const { return impl_->link->port_info(); }
const io::LinkStats& BusSession::link_stats() const { return impl_->link->stats(); }
const BusLineStats& BusSession::stats() const { return impl_->stats; }
const drivers::dgt::BusDecoderStats& BusSession::decoder_stats() const {
  static const drivers::dgt::BusDecoderStats none{};
  return impl_->master ? impl_->master->decoder_stats() : none;
}

}  // namespace eboard::session
