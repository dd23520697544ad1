// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/emulated_board.hpp"

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <optional>
#include <utility>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "daemon/boards/dgt_board.hpp"
#include "drivers/dgt/decoder.hpp"

namespace eboard::session {

namespace dgt = drivers::dgt;

BoardScript script_from_events(std::span<const rules::SensorEvent> events) {
  BoardScript script;
  script.reserve(events.size());
  for (const rules::SensorEvent& e : events) script.push_back(ScriptItem{e.t_ms, e});
  return script;
}

BoardState state_at(std::span<const rules::SensorEvent> events, std::int64_t t_ms) {
  BoardState s;
  s.squares.fill(rules::NO_PIECE);
  std::int64_t read_at = 0;
  for (const rules::SensorEvent& e : events) {
    if (e.t_ms > t_ms) break;
    if (const auto* l = std::get_if<rules::PieceLifted>(&e.what)) {
      s.squares[l->square] = rules::NO_PIECE;
    } else if (const auto* p = std::get_if<rules::PiecePlaced>(&e.what)) {
      s.squares[p->square] = p->piece;
    } else if (const auto* b = std::get_if<rules::BoardSnapshot>(&e.what)) {
      s.squares = b->squares;
    } else if (const auto* c = std::get_if<rules::ClockReading>(&e.what)) {
      s.clock = *c;
      read_at = e.t_ms;
    }
  }
  if (s.clock && s.clock->running) {
    std::int64_t& left = s.clock->lever_up == rules::ClockSide::Left ? s.clock->left_ms : s.clock->right_ms;
    left = std::max<std::int64_t>(0, left - (t_ms - read_at));
  }
  return s;
}

BoardScript script_from_events(std::span<const rules::SensorEvent> events, std::int64_t from_ms) {
  const BoardState now = state_at(events, from_ms);
  BoardScript script{ScriptItem{0, rules::SensorEvent{0, rules::BoardSnapshot{now.squares}}}};
  if (now.clock) script.push_back(ScriptItem{0, rules::SensorEvent{0, *now.clock}});
  for (const rules::SensorEvent& e : events)
    if (e.t_ms > from_ms) {
      rules::SensorEvent later = e;
      later.t_ms -= from_ms;
      script.push_back(ScriptItem{later.t_ms, later});
    }
  return script;
}

BoardScript script_from_capture(const drivers::Capture& capture) {
  BoardScript script;
  for (const drivers::CaptureRecord& r : capture.records) {
    if (r.direction == drivers::Direction::FromBoard)
      script.push_back(ScriptItem{r.t_ms, RecordedBytes{r.bytes}});
  }
  return script;
}

void preset_from_capture(dgt::Emulator& emulator, const drivers::Capture& capture) {
  dgt::Decoder decoder;
  bool board_known = false;
  bool clock_known = false;
  for (const drivers::CaptureRecord& r : capture.records) {
    if (r.direction != drivers::Direction::FromBoard) continue;
    for (const dgt::Message& m : decoder.feed(r.bytes)) {
      if (std::holds_alternative<dgt::FieldUpdate>(m)) board_known = true;  // too late for a clean preset
      if (const auto* d = std::get_if<dgt::BoardDump>(&m); d && !board_known) {
        emulator.set_board(0, d->pieces);
        board_known = true;
      }
      if (const auto* t = std::get_if<dgt::ClockTimes>(&m); t && !clock_known) {
        dgt::EmulatedClock c;
        c.connected = t->clock_connected;
        c.left_ms = t->left.time_ms;
        c.right_ms = t->right.time_ms;
        c.right_lever_high = t->right_lever_high;
        c.left_flag = t->left.flag_fallen;
        c.right_flag = t->right.flag_fallen;
        c.running = false;  // it starts when the recording says so
        emulator.set_clock(0, c);
        clock_known = true;
      }
    }
    if (board_known && clock_known) return;
  }
}

dgt::EmulatedClock emulated_clock(const rules::ClockReading& r) {
  dgt::EmulatedClock c;
  c.connected = r.present;
  c.left_ms = r.left_ms;
  c.right_ms = r.right_ms;
  c.running = r.running;
  c.right_lever_high = r.lever_up == rules::ClockSide::Right;
  c.left_flag = r.left_flag;
  c.right_flag = r.right_flag;
  return c;
}

void apply(dgt::Emulator& emulator, const ScriptItem& item) {
  const std::int64_t t = item.t_ms;
  if (const auto* recorded = std::get_if<RecordedBytes>(&item.what)) {
    emulator.pass_through(t, recorded->bytes);
    return;
  }
  const bool rotated = emulator.config().rotated;
  const auto raw = [rotated](rules::Square s) { return daemon::DgtBoard::raw_from_square(s, rotated); };
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, rules::PieceLifted>) {
          emulator.set_piece(t, raw(v.square), 0);
        } else if constexpr (std::is_same_v<T, rules::PiecePlaced>) {
          emulator.set_piece(t, raw(v.square), daemon::DgtBoard::code_from_piece(v.piece));
        } else if constexpr (std::is_same_v<T, rules::BoardSnapshot>) {
          std::array<std::uint8_t, 64> pieces{};
          for (rules::Square s = 0; s < 64; ++s)
            pieces[raw(s)] = daemon::DgtBoard::code_from_piece(v.squares[s]);
          emulator.set_board(t, pieces);
        } else if constexpr (std::is_same_v<T, rules::ClockReading>) {
          emulator.set_clock(t, emulated_clock(v));
        }
        // DeviceLink: a host-side matter, nothing the board does.
      },
      std::get<rules::SensorEvent>(item.what).what);
}

struct BoardPlayer::Impl : std::enable_shared_from_this<BoardPlayer::Impl> {
  Impl(boost::asio::io_context& io_context, std::unique_ptr<EmulatedBoard> emulated, BoardScript s,
       PlayerConfig cfg)
      : io(io_context),
        board(std::move(emulated)),
        script(std::move(s)),
        config(std::move(cfg)),
        time(config.time ? config.time : own_time(io_context, config.speed)),
        timer(time),
        read_retry(io_context) {
    std::stable_sort(script.begin(), script.end(),
                     [](const ScriptItem& a, const ScriptItem& b) { return a.t_ms < b.t_ms; });
    read_buffer.resize(4096);
  }

  boost::asio::io_context& io;
  std::unique_ptr<EmulatedBoard> board;
  BoardScript script;
  PlayerConfig config;
  BoardPlayer* owner = nullptr;
  std::shared_ptr<io::TimeBase> time;
  io::Timer timer;                       // the next item, task or emulator deadline, on `time`
  boost::asio::steady_timer read_retry;  // a pty nobody has opened yet: the wire's, real time
  std::optional<boost::asio::posix::stream_descriptor> wire;
  std::uint64_t wire_generation = 0;
  std::vector<std::uint8_t> read_buffer;
  std::deque<std::vector<std::uint8_t>> write_queue;
  std::size_t queued = 0;
  bool writing = false;
  bool running = false;
  bool ended = false;
  bool pumping = false;
  std::optional<std::int64_t> origin;  // the time base's time at the script's time 0
  std::size_t next_item = 0;
  std::vector<std::pair<std::int64_t, std::function<void()>>> tasks;  // by time, stable
  PlayerStats stats;

  // A player's own clock: `speed` virtual ms per real ms of the steady clock.
  static std::shared_ptr<io::TimeBase> own_time(boost::asio::io_context& io, double speed) {
    if (!(speed > 0)) speed = 1.0;
    return io::TimeBase::scaled(io, speed, [speed] {
      const auto real = std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now().time_since_epoch());
      return static_cast<std::int64_t>(std::floor(static_cast<double>(real.count()) * speed / 1000.0));
    });
  }

  std::int64_t now() const { return origin ? time->now_ms() - *origin : 0; }

  void play_items(std::int64_t until) {
    while (next_item < script.size() && script[next_item].t_ms <= until) {
      board->apply(script[next_item]);
      ++next_item;
      ++stats.items_played;
    }
  }

  void start_clock() {
    origin = time->now_ms();
    if (owner && owner->on_started) owner->on_started();
  }

  // Plays what is due, runs due tasks, sends the output and sets the timer for the next thing to do.
  void pump() {
    if (!running || pumping) return;  // a task calling at() lands here: the running pump takes care
    pumping = true;
    struct Reset {
      bool& flag;
      ~Reset() { flag = false; }
    } reset{pumping};
    if (origin) {
      const std::int64_t t = now();
      if (board->reports_at_scans()) {
        // Each item at its own scan: a hand's lift and placement a few ms apart may share a scan, as on a
        // real board, but the scan that comes between them reports the piece in the air.
        while (next_item < script.size() && script[next_item].t_ms <= t) {
          const std::int64_t item_t = script[next_item].t_ms;
          board->advance(item_t);
          play_items(item_t);
        }
      } else {
        play_items(t);
      }
      board->advance(t);
      flush();
      while (running && !tasks.empty() && tasks.front().first <= t) {
        auto fn = std::move(tasks.front().second);
        tasks.erase(tasks.begin());
        fn();  // may detach, attach, stop ...
        flush();
      }
      if (running && !ended && next_item >= script.size()) {
        ended = true;
        if (owner && owner->on_script_end) owner->on_script_end();
      }
    }
    reschedule();
  }

  void reschedule() {
    if (!running) return;
    if (!origin) {
      timer.cancel();
      return;
    }
    std::optional<std::int64_t> next = board->next_deadline();
    const auto consider = [&next](std::int64_t t) { next = next ? std::min(*next, t) : t; };
    if (next_item < script.size()) consider(script[next_item].t_ms);
    if (!tasks.empty()) consider(tasks.front().first);
    if (!next) {
      timer.cancel();
      return;
    }
    if (timer.armed_for() == *origin + *next) return;
    // The timer dies with Impl (its destructor cancels): `this` outlives every run of the handler.
    timer.arm(*origin + *next, [this] { pump(); });
  }

  void flush() {
    std::vector<std::uint8_t> out = board->take_output();
    if (out.empty()) return;
    if (!wire || queued + out.size() > config.max_queued_bytes) {
      stats.dropped_bytes += out.size();
      return;
    }
    queued += out.size();
    write_queue.push_back(std::move(out));
    if (!writing) write_next();
  }

  void write_next() {
    writing = true;
    boost::asio::async_write(
        *wire, boost::asio::buffer(write_queue.front()),
        [self = shared_from_this(), gen = wire_generation](const boost::system::error_code& ec,
                                                           std::size_t n) { self->on_written(gen, ec, n); });
    // The completion handler never runs inside async_write, so the front chunk is still there.
    if (owner && owner->on_board_write) owner->on_board_write(write_queue.front());
  }

  void on_written(std::uint64_t gen, const boost::system::error_code& ec, std::size_t n) {
    if (gen != wire_generation) return;
    if (ec) {
      // No reader on the other end, or it went away: what was queued is lost, like on a real wire.
      stats.dropped_bytes += queued;
      write_queue.clear();
      queued = 0;
      writing = false;
      return;
    }
    stats.board_bytes += n;
    if (owner && owner->on_board_bytes) owner->on_board_bytes(now(), write_queue.front());
    queued -= write_queue.front().size();
    write_queue.pop_front();
    if (write_queue.empty()) {
      writing = false;
    } else {
      write_next();
    }
  }

  void start_read() {
    wire->async_read_some(
        boost::asio::buffer(read_buffer),
        [self = shared_from_this(), gen = wire_generation](const boost::system::error_code& ec,
                                                           std::size_t n) { self->on_read(gen, ec, n); });
  }

  void on_read(std::uint64_t gen, const boost::system::error_code& ec, std::size_t n) {
    if (gen != wire_generation || !running || !wire) return;
    if (ec) {
      if (ec == boost::asio::error::operation_aborted) return;
      // EIO on a pty master: nobody has the other end open (yet, or any more). Look again shortly.
      read_retry.expires_after(std::chrono::milliseconds(20));
      read_retry.async_wait([self = shared_from_this(), gen](const boost::system::error_code& tec) {
        if (!tec && gen == self->wire_generation && self->running && self->wire) self->start_read();
      });
      return;
    }
    const std::span<const std::uint8_t> bytes(read_buffer.data(), n);
    stats.host_bytes += n;
    if (!origin) {
      start_clock();
      play_items(0);
    }
    const std::int64_t t = now();
    play_items(t);  // what happened on the board before these bytes came
    if (owner && owner->on_host_bytes) owner->on_host_bytes(t, bytes);
    board->receive(t, bytes);
    pump();
    if (gen == wire_generation && running && wire) start_read();
  }

  void attach(int fd) {
    detach();
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    wire.emplace(io, fd);
    ++wire_generation;
    ++stats.attaches;
    if (running) start_read();
  }

  void detach() {
    ++wire_generation;
    read_retry.cancel();
    if (wire) {
      boost::system::error_code ignored;
      wire->cancel(ignored);
      wire->close(ignored);
      wire.reset();
    }
    stats.dropped_bytes += queued;
    write_queue.clear();
    queued = 0;
    writing = false;
  }
};

BoardPlayer::BoardPlayer(boost::asio::io_context& io, std::unique_ptr<EmulatedBoard> board,
                         BoardScript script, PlayerConfig config)
    : impl_(std::make_shared<Impl>(io, std::move(board), std::move(script), config)) {
  impl_->owner = this;
}

BoardPlayer::BoardPlayer(boost::asio::io_context& io, dgt::Emulator emulator, BoardScript script,
                         PlayerConfig config)
    : BoardPlayer(io, std::make_unique<EmulatedDgt>(std::move(emulator)), std::move(script), config) {}

BoardPlayer::~BoardPlayer() {
  stop();
  impl_->owner = nullptr;
}

void BoardPlayer::start() {
  if (impl_->running) return;
  impl_->running = true;
  impl_->play_items(0);  // the set-up: pieces on the board, the clock beside it
  if (!impl_->config.wait_for_host) impl_->start_clock();
  if (impl_->wire) impl_->start_read();
  impl_->pump();
}

std::int64_t BoardPlayer::load(BoardScript script) {
  Impl& i = *impl_;
  // The emulator's time must not go back: the script is moved onto the player's clock instead.
  const std::int64_t base = i.origin ? i.now() : 0;
  for (ScriptItem& item : script) {
    item.t_ms += base;
    if (auto* e = std::get_if<rules::SensorEvent>(&item.what)) e->t_ms = item.t_ms;
  }
  std::stable_sort(script.begin(), script.end(),
                   [](const ScriptItem& a, const ScriptItem& b) { return a.t_ms < b.t_ms; });
  i.script = std::move(script);
  i.next_item = 0;
  i.ended = false;
  i.pump();
  return base;
}

void BoardPlayer::stop() {
  if (!impl_->running && !impl_->wire) return;
  impl_->running = false;
  impl_->timer.cancel();
  impl_->detach();
}

void BoardPlayer::attach(int fd) { impl_->attach(fd); }
void BoardPlayer::detach() { impl_->detach(); }
bool BoardPlayer::attached() const { return impl_->wire.has_value(); }

void BoardPlayer::power_cycle() {
  impl_->board->power_cycle(impl_->now());
  impl_->pump();
}

void BoardPlayer::at(std::int64_t t_ms, std::function<void()> fn) {
  auto& tasks = impl_->tasks;
  const auto pos = std::upper_bound(tasks.begin(), tasks.end(), t_ms,
                                    [](std::int64_t t, const auto& task) { return t < task.first; });
  tasks.emplace(pos, t_ms, std::move(fn));
  impl_->pump();
}

bool BoardPlayer::started() const { return impl_->origin.has_value(); }
std::int64_t BoardPlayer::now_ms() const { return impl_->now(); }
bool BoardPlayer::script_done() const { return impl_->next_item >= impl_->script.size(); }
std::int64_t BoardPlayer::script_end_ms() const {
  return impl_->script.empty() ? 0 : impl_->script.back().t_ms;
}
const EmulatedBoard& BoardPlayer::board() const { return *impl_->board; }
const PlayerStats& BoardPlayer::stats() const { return impl_->stats; }

}  // namespace eboard::session
