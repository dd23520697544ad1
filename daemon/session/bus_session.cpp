// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/bus_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include <boost/asio/steady_timer.hpp>

namespace eboard::session {

namespace {

constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// With EBOARDD_BUS_TRACE=FILE in the environment, the line's traffic is appended to FILE, one line each:
// steady-clock ms, what (`in`: bytes read, `out`: commands written, `changes`: a changes reply as the
// line delivered it), and its bytes or fields. Off (no cost but a null check) without it.
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
  // A board of the line: its feed (its replies to its reconstruction), and what the line does for it.
  struct Board {
    Board(std::shared_ptr<io::TimeBase> time, std::uint16_t address, std::string where,
          std::unique_ptr<BusBoardReader> reader)
        : feed(address, std::move(where), std::move(reader)), timer(std::move(time)) {}
    BusBoardFeed feed;
    io::Timer timer;  // on the game's time: advances the attached reconstruction when its feed is due
    std::int64_t armed = kNone;
    bool read_requested = false;    // board and clock asked for
    bool polling = false;           // in the master's round-robin
    bool probing = false;           // given up: a lone ask for its record asks whether it is back
    std::int64_t retry_at = kNone;  // steady ms: poll again (it stopped answering)
  };

  Impl(boost::asio::io_context& io_, BusSessionConfig cfg)
      : io(io_),
        config(std::move(cfg)),
        time(config.time ? config.time : io::TimeBase::system(io_)),
        timer(io_) {
    if (config.line_time) line_timer.emplace(config.line_time);
    config.link.line = config.protocol->line;
    for (std::uint16_t a : config.addresses) board_at(a);
  }

  boost::asio::io_context& io;
  BusSessionConfig config;
  std::shared_ptr<io::TimeBase> time;   // the game's: events, reconstruction and its deadlines
  boost::asio::steady_timer timer;      // the master's deadlines and lost boards' retries (steady time)
  std::optional<io::Timer> line_timer;  // the same on config.line_time, when the line's time is given
  std::unique_ptr<io::SerialLink> link;
  static constexpr int kMaxReadsAwaited = 8;
  int reads_awaited = 0;            // pumps in a row put off for bytes waiting to be read
  std::unique_ptr<BusLine> master;  // the line's master in its dialect, while connected
  std::map<std::uint16_t, std::shared_ptr<Board>> boards;
  BusLineStats stats;
  bool running = false;
  bool waiting_logged = false;
  std::int64_t last_t = 0;
  // The arrival time of the bytes being handled: their frames' wire records and the feeds' inputs share it.
  std::optional<std::int64_t> arrival;
  std::int64_t timer_due = kNone;
  std::uint64_t timer_generation = 0;
  std::function<void(std::uint16_t)>* on_found = nullptr;
  std::function<void(LogLevel, const std::string&)>* on_line_log = nullptr;

  std::int64_t now() {
    last_t = std::max(last_t, time->now_ms());
    return last_t;
  }
  std::int64_t input_time() { return arrival ? *arrival : now(); }
  // The line's time: the master's deadlines, lost boards' retries.
  std::int64_t line_ms() const { return config.line_time ? config.line_time->now_ms() : steady_ms(); }

  bool line_up() const { return link && link->state() == io::LinkState::connected; }

  std::string where(std::uint16_t address) const {
    return "address " + std::to_string(address) + " on the bus " + config.link.device;
  }

  Board& board_at(std::uint16_t address) {
    auto& b = boards[address];
    if (!b) {
      b = std::make_shared<Board>(time, address, where(address), config.protocol->make_bus_board());
      b->feed.on_read_wanted = [this, raw = b.get()] { read_board(*raw); };
      b->feed.set_running(running);
    }
    return *b;
  }

  void line_log(LogLevel level, const std::string& text) const {
    if (on_line_log && *on_line_log) (*on_line_log)(level, "bus " + config.link.device + ": " + text);
  }

  // --- The board's reconstruction ----------------------------------------------------------------------

  void after_input(const std::shared_ptr<Board>& b) {
    if (!b->feed.attached() || !running) return;
    reread_if_wanted(*b);
    reschedule_board(b);
  }

  // Reconstruction found the board at rest with no move after a press: ask for the board, once per press.
  void reread_if_wanted(Board& b) {
    if (!line_up() || !master || !b.feed.take_reread()) return;
    if (master->ask(b.feed.address(), BusAsk::board)) pump_soon();
  }

  void reschedule_board(const std::shared_ptr<Board>& b) {
    if (!b->feed.attached() || !running) return;
    const std::int64_t deadline = b->feed.due().value_or(kNone);
    if (deadline == b->armed) return;
    b->armed = deadline;
    if (deadline == kNone) {
      b->timer.cancel();
      return;
    }
    // The timer dies with its board and the board with Impl (the time base holds neither); the handler
    // keeps both alive while it runs, as its callbacks may detach the board.
    b->timer.arm(deadline, [weak_self = weak_from_this(), weak_b = std::weak_ptr<Board>(b)] {
      auto self = weak_self.lock();
      auto board = weak_b.lock();
      if (!self || !board || !self->running || !board->feed.attached()) return;
      board->armed = kNone;
      const std::uint64_t attachment = board->feed.attachment();
      board->feed.advance();
      if (board->feed.attached() && board->feed.attachment() == attachment) self->after_input(board);
    });
  }

  // Cancels the board's timer (a detach, a stop): a wake-up armed before does nothing.
  void unarm(Board& b) {
    b.armed = kNone;
    b.timer.cancel();
  }

  // The feed wants the board read whole: board and clock, once until answered.
  void read_board(Board& b) {
    if (!master || b.read_requested) return;
    b.read_requested = true;
    (void)master->ask(b.feed.address(), BusAsk::board);
    (void)master->ask(b.feed.address(), BusAsk::clock);
    pump_soon();
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
    master = config.protocol->make_bus_line(line_options(link->port_info()));
    for (auto& [address, b] : boards) {
      b->read_requested = false;
      b->retry_at = kNone;
      b->probing = false;
      start_polling(*b);
      b->feed.line_connected();
    }
    if (config.discover) master->start_discovery();
    pump_soon();
  }

  // A line reached through another program (a pseudo-terminal: a network bridge such as ser2net or socat,
  // an emulator) or a radio link has no UART's timing: its bytes come as late as that program, its host or
  // the radio hands them over, on a loaded host far later than a USB adapter's 16 ms. A reply is awaited
  // that much longer before it counts as not coming; a reply in whole frees the line at once, so this
  // costs time only when a board is silent or a reply was cut.
  static constexpr std::int64_t kRelayedLatencyMs = 100;
  BusLineOptions line_options(const std::optional<io::PortInfo>& port) const {
    BusLineOptions options = config.line;
    using T = io::PortInfo::Transport;
    if (port && (port->transport == T::pty || port->transport == T::bluetooth))
      options.adapter_latency_ms = std::max(options.adapter_latency_ms, kRelayedLatencyMs);
    return options;
  }

  void start_polling(Board& b) {
    b.polling = true;
    master->add_board(b.feed.address());
  }

  void on_disconnected(const io::IoError& why) {
    ++stats.disconnects;
    line_log(LogLevel::warning, "connection lost (" + why.message + "); reconnecting");
    master.reset();
    for (auto& [address, b] : boards) {
      b->polling = false;
      b->probing = false;
      b->read_requested = false;
      b->feed.gone(now(), "bus line lost: " + why.message);
    }
    cancel_timer();
  }

  void on_bytes(std::span<const std::uint8_t> bytes) {
    if (!master) return;
    trace_bytes("in", bytes);
    arrival = now();
    // Each board's frames, whole, at the time its feed is given them: its capture.
    for (const BusWire& frame : master->on_bytes(bytes, line_ms()))
      if (auto it = boards.find(frame.address); it != boards.end())
        it->second->feed.wire(*arrival, drivers::Direction::FromBoard, frame.bytes);
    handle_events();
    arrival.reset();
    pump();
  }

  void handle_events() {
    if (!master) return;
    for (BusLineEvent& ev : master->take_events()) {
      if (!running || !master) return;
      std::visit([this](auto& e) { on_event(e); }, ev);
    }
  }

  void on_event(const BusBoardFound& e) {
    Board& b = board_at(e.address);
    b.polling = true;
    line_log(LogLevel::info, "found a board at address " + std::to_string(e.address));
    if (on_found && *on_found) (*on_found)(e.address);
  }

  void on_event(const BusDiscoveryDone& e) {
    line_log(LogLevel::info, "discovery done: " + std::to_string(e.boards) + " boards answer");
  }

  void on_event(const BusAnswered& e) {
    auto it = boards.find(e.address);
    if (it == boards.end()) return;  // a board nobody knows (a late discovery answer): not ours to read
    std::shared_ptr<Board> b = it->second;
    switch (e.answer.kind) {
      case BusAnswerKind::changes:
      case BusAnswerKind::changes_repeated:
      case BusAnswerKind::changes_from_start:
        if (std::FILE* f = trace_file()) {
          std::fprintf(f, "%lld changes address %u kind %d records %zu clock %lld\n",
                       static_cast<long long>(steady_ms()), unsigned(e.address), int(e.answer.kind),
                       e.answer.records, static_cast<long long>(now()));
          std::fflush(f);
        }
        if (b->probing) {  // it answers again: back in the round-robin
          b->probing = false;
          if (master && !b->polling) start_polling(*b);
        }
        break;
      case BusAnswerKind::board:
        b->read_requested = false;
        break;
      case BusAnswerKind::clock:
      case BusAnswerKind::other:
        break;
    }
    b->feed.answer(input_time(), e.answer);
    after_input(b);
  }

  void on_event(const BusBoardLost& e) {
    auto it = boards.find(e.address);
    if (it == boards.end()) return;
    Board& b = *it->second;
    b.polling = false;
    b.read_requested = false;
    b.retry_at = line_ms() + config.retry_lost_ms;
    b.feed.lost(now(), "no answer at " + where(b.feed.address()));
  }

  void on_event(const BusAskFailed& e) {
    auto it = boards.find(e.address);
    if (it == boards.end()) return;
    Board& b = *it->second;
    if (e.what == BusAsk::from_start && b.probing) {
      b.probing = false;
      b.retry_at = line_ms() + config.retry_lost_ms;
      return;
    }
    if (e.what == BusAsk::board && b.feed.awaiting_dump()) {
      b.read_requested = false;
      if (b.polling) read_board(b);  // asked again; a board gone quiet is given up by the polls
    }
    // A board whose clock was never read is asked again: its readings make its time records presses.
    if (e.what == BusAsk::clock && !b.feed.reader().clock_known() && b.polling && master) {
      (void)master->ask(b.feed.address(), BusAsk::clock);
      pump_soon();
    }
  }

  // --- The master's timer -----------------------------------------------------------------------------

  void pump() {
    if (!running || !master || !line_up()) return;
    const std::int64_t t = line_ms();
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
      // A board given up is asked alone for its record since the game's start, not put back in the
      // round-robin: a changes reply lost as it went quiet (the board heard the poll, its answer went
      // nowhere) left its records in that record only, and polls would climb to repeated asks first.
      if (!b->polling && !b->probing && b->retry_at != kNone && t >= b->retry_at) {
        b->retry_at = kNone;
        b->probing = master->ask(b->feed.address(), BusAsk::from_start);
      }
    }
    auto commands = master->poll(t);
    handle_events();  // a timeout may have given a board up
    if (!commands.empty() && master) {
      std::vector<std::uint8_t> bytes;
      const std::int64_t sent = now();
      for (const BusWire& c : commands) {
        bytes.insert(bytes.end(), c.bytes.begin(), c.bytes.end());
        // The board addressed gets it on its wire (a ping to address 0 is nobody's).
        if (auto it = boards.find(c.address); it != boards.end())
          it->second->feed.wire(sent, drivers::Direction::ToBoard, c.bytes);
      }
      stats.commands += commands.size();
      trace_bytes("out", bytes);
      (void)link->write(std::move(bytes));
    }
    arm_timer();
  }

  void pump_soon() { schedule(line_ms()); }

  void arm_timer() {
    if (!master) return;
    std::int64_t due = kNone;
    if (auto d = master->next_deadline(line_ms())) due = *d;
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
    if (line_timer) {
      line_timer->arm(due, [weak_self = weak_from_this(), gen] {
        auto self = weak_self.lock();
        if (!self || gen != self->timer_generation) return;
        self->timer_due = kNone;
        self->pump();
      });
      return;
    }
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
    if (line_timer) line_timer->cancel();
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
    for (auto& [address, b] : impl->boards) b->feed.gone(impl->now(), "bus line absent: " + why.message);
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
  for (auto& [address, b] : impl_->boards) b->feed.set_running(true);
  impl_->link->start();
}

void BusSession::stop() {
  if (!impl_->running) return;
  impl_->running = false;
  impl_->link->stop();
  impl_->master.reset();
  impl_->cancel_timer();
  for (auto& [address, b] : impl_->boards) {
    b->feed.set_running(false);
    impl_->unarm(*b);
  }
}

void BusSession::attach(std::uint16_t address, BusBoardConfig config, BoardSessionHandlers handlers) {
  detach(address);
  auto& b = impl_->board_at(address);
  if (impl_->master && !b.polling && !b.probing && b.retry_at == kNone) impl_->start_polling(b);
  b.feed.attach(std::move(config), std::move(handlers));
  impl_->reschedule_board(impl_->boards.at(address));
}

void BusSession::detach(std::uint16_t address) {
  auto it = impl_->boards.find(address);
  if (it == impl_->boards.end() || !it->second->feed.attached()) return;
  impl_->unarm(*it->second);
  it->second->feed.detach();
}

bool BusSession::attached(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  return it != impl_->boards.end() && it->second->feed.attached();
}

const rules::Reconstructor& BusSession::reconstructor(std::uint16_t address) const {
  return impl_->boards.at(address)->feed.reconstructor();
}

void BusSession::change_reconstructor(std::uint16_t address,
                                      const std::function<void(rules::Reconstructor&)>& change) {
  auto b = impl_->boards.at(address);
  change(b->feed.reconstructor());
  impl_->reschedule_board(b);
}

bool BusSession::online(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  return it != impl_->boards.end() && it->second->feed.online() == true;
}

std::optional<BusBoardStats> BusSession::board_stats(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  if (it == impl_->boards.end()) return std::nullopt;
  return it->second->feed.stats();
}

std::optional<bool> BusSession::rotated(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  if (it == impl_->boards.end()) return std::nullopt;
  return it->second->feed.reader().rotated();
}

std::vector<std::uint16_t> BusSession::known_boards() const {
  std::vector<std::uint16_t> out;
  for (const auto& [address, b] : impl_->boards) out.push_back(address);
  return out;
}

std::int64_t BusSession::now_ms() const { return impl_->now(); }
std::int64_t BusSession::board_time(std::uint16_t address) const {
  auto it = impl_->boards.find(address);
  if (it == impl_->boards.end() || !it->second->feed.attached()) return impl_->now();
  return it->second->feed.board_time();
}
bool BusSession::connected() const { return impl_->line_up(); }
const std::string& BusSession::device() const { return impl_->config.link.device; }
std::optional<io::PortInfo> BusSession::port_info() const { return impl_->link->port_info(); }
const io::LinkStats& BusSession::link_stats() const { return impl_->link->stats(); }
const BusLineStats& BusSession::stats() const { return impl_->stats; }

}  // namespace eboard::session
