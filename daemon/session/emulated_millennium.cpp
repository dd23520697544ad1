// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/emulated_millennium.hpp"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "daemon/boards/snapshot_board.hpp"

namespace eboard::session {

namespace mil = drivers::millennium;

struct MillenniumPlayer::Impl : std::enable_shared_from_this<MillenniumPlayer::Impl> {
  Impl(boost::asio::io_context& io_, mil::Emulator e, BoardScript s, PlayerConfig c)
      : io(io_), timer(io_), read_retry(io_), emu(std::move(e)), script(std::move(s)), config(c) {
    if (!(config.speed > 0)) config.speed = 1.0;
    std::stable_sort(script.begin(), script.end(),
                     [](const ScriptItem& a, const ScriptItem& b) { return a.t_ms < b.t_ms; });
  }

  boost::asio::io_context& io;
  boost::asio::steady_timer timer;
  boost::asio::steady_timer read_retry;
  mil::Emulator emu;
  BoardScript script;
  PlayerConfig config;
  MillenniumPlayer* owner = nullptr;
  std::optional<boost::asio::posix::stream_descriptor> wire;
  std::array<std::uint8_t, 512> read_buffer{};
  std::deque<std::vector<std::uint8_t>> write_queue;
  bool writing = false;
  bool running = false;
  bool ended = false;
  bool pumping = false;
  std::uint64_t timer_generation = 0;
  std::optional<std::chrono::steady_clock::time_point> origin;
  std::size_t next_item = 0;
  std::vector<std::pair<std::int64_t, std::function<void()>>> tasks;

  std::int64_t now() const {
    if (!origin) return 0;
    const auto real =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - *origin);
    return static_cast<std::int64_t>(std::floor(static_cast<double>(real.count()) * config.speed / 1000.0));
  }

  void apply(const ScriptItem& item) {
    const auto* e = std::get_if<rules::SensorEvent>(&item.what);
    if (!e) return;  // recorded bytes are DGT's: no Millennium captures yet
    if (const auto* l = std::get_if<rules::PieceLifted>(&e->what)) {
      emu.set_square(l->square, '.');
    } else if (const auto* p = std::get_if<rules::PiecePlaced>(&e->what)) {
      emu.set_square(p->square, daemon::letter_from_piece(p->piece));
    } else if (const auto* b = std::get_if<rules::BoardSnapshot>(&e->what)) {
      emu.set_board(daemon::MillenniumBoard::to_squares(b->squares));
    }  // clock readings and link changes: the board has no clock
  }

  void play_items(std::int64_t until) {
    while (next_item < script.size() && script[next_item].t_ms <= until) apply(script[next_item++]);
  }

  void start_clock() {
    origin = std::chrono::steady_clock::now();
    if (owner && owner->on_started) owner->on_started();
  }

  void pump() {
    if (!running || pumping) return;
    pumping = true;
    if (origin) {
      const std::int64_t t = now();
      // Each item at its own scan: a hand's lift and placement a few ms apart may share a scan, as on a
      // real board, but the scan that comes between them reports the piece in the air.
      while (next_item < script.size() && script[next_item].t_ms <= t) {
        const std::int64_t item_t = script[next_item].t_ms;
        emu.advance(item_t);
        play_items(item_t);
      }
      emu.advance(t);
      flush();
      while (running && !tasks.empty() && tasks.front().first <= t) {
        auto fn = std::move(tasks.front().second);
        tasks.erase(tasks.begin());
        fn();
        flush();
      }
      if (running && !ended && next_item >= script.size()) {
        ended = true;
        if (owner && owner->on_script_end) owner->on_script_end();
      }
    }
    pumping = false;
    reschedule();
  }

  void reschedule() {
    if (!running) return;
    const auto gen = ++timer_generation;
    if (!origin) {
      timer.cancel();
      return;
    }
    std::optional<std::int64_t> next = emu.next_deadline();
    const auto consider = [&next](std::int64_t t) { next = next ? std::min(*next, t) : t; };
    if (next_item < script.size()) consider(script[next_item].t_ms);
    if (!tasks.empty()) consider(tasks.front().first);
    if (!next) {
      timer.cancel();
      return;
    }
    const double wait_ms = static_cast<double>(std::max<std::int64_t>(0, *next - now())) / config.speed;
    timer.expires_after(std::chrono::microseconds(static_cast<std::int64_t>(std::ceil(wait_ms * 1000.0))));
    timer.async_wait([self = shared_from_this(), gen](const boost::system::error_code& ec) {
      if (ec || gen != self->timer_generation) return;
      self->pump();
    });
  }

  void flush() {
    std::vector<std::uint8_t> out = emu.take_output();
    if (out.empty() || !wire) return;
    write_queue.push_back(std::move(out));
    if (!writing) write_next();
  }

  void write_next() {
    writing = true;
    boost::asio::async_write(*wire, boost::asio::buffer(write_queue.front()),
                             [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                               if (ec) {  // nobody on the other end: lost, as on a real wire
                                 self->write_queue.clear();
                                 self->writing = false;
                                 return;
                               }
                               self->write_queue.pop_front();
                               if (self->write_queue.empty())
                                 self->writing = false;
                               else
                                 self->write_next();
                             });
  }

  void start_read() {
    wire->async_read_some(boost::asio::buffer(read_buffer),
                          [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                            self->on_read(ec, n);
                          });
  }

  void on_read(const boost::system::error_code& ec, std::size_t n) {
    if (!running || !wire) return;
    if (ec) {
      if (ec == boost::asio::error::operation_aborted) return;
      // EIO on a pty master: nobody has the other end open yet. Look again shortly.
      read_retry.expires_after(std::chrono::milliseconds(20));
      read_retry.async_wait([self = shared_from_this()](const boost::system::error_code& tec) {
        if (!tec && self->running && self->wire) self->start_read();
      });
      return;
    }
    if (!origin) start_clock();
    const std::int64_t t = now();
    play_items(t);
    emu.host_bytes(t, std::span<const std::uint8_t>(read_buffer.data(), n));
    pump();
    if (running && wire) start_read();
  }
};

MillenniumPlayer::MillenniumPlayer(boost::asio::io_context& io, mil::Emulator emulator, BoardScript script,
                                   PlayerConfig config)
    : impl_(std::make_shared<Impl>(io, std::move(emulator), std::move(script), config)) {
  impl_->owner = this;
}

MillenniumPlayer::~MillenniumPlayer() {
  stop();
  impl_->owner = nullptr;
}

void MillenniumPlayer::start() {
  if (impl_->running) return;
  impl_->running = true;
  impl_->play_items(0);
  if (!impl_->config.wait_for_host) impl_->start_clock();
  if (impl_->wire) impl_->start_read();
  impl_->pump();
}

void MillenniumPlayer::stop() {
  impl_->running = false;
  ++impl_->timer_generation;
  impl_->timer.cancel();
  impl_->read_retry.cancel();
  if (impl_->wire) {
    boost::system::error_code ignored;
    impl_->wire->cancel(ignored);
    impl_->wire->close(ignored);
    impl_->wire.reset();
  }
}

void MillenniumPlayer::attach(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  impl_->wire.emplace(impl_->io, fd);
  if (impl_->running) impl_->start_read();
}

void MillenniumPlayer::at(std::int64_t t_ms, std::function<void()> fn) {
  auto& tasks = impl_->tasks;
  const auto pos = std::upper_bound(tasks.begin(), tasks.end(), t_ms,
                                    [](std::int64_t t, const auto& task) { return t < task.first; });
  tasks.emplace(pos, t_ms, std::move(fn));
  impl_->pump();
}

std::int64_t MillenniumPlayer::now_ms() const { return impl_->now(); }
bool MillenniumPlayer::script_done() const { return impl_->next_item >= impl_->script.size(); }
const mil::Emulator& MillenniumPlayer::emulator() const { return impl_->emu; }

}  // namespace eboard::session
