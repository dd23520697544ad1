// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Helpers for the serial tests: bounded event-loop runs and the board's end of a mock device's pty.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

namespace eboard::io::test {

using namespace std::chrono_literals;

// Generous: these bound hangs, they do not measure speed.
inline constexpr std::chrono::milliseconds kWait = 15s;

// Runs `io` until `done()` holds or `timeout` passes; returns done().
template <typename Pred>
bool run_until(boost::asio::io_context& io, Pred done, std::chrono::milliseconds timeout = kWait) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (io.stopped()) io.restart();
    if (io.run_one_for(20ms) == 0 && io.stopped()) std::this_thread::sleep_for(2ms);
  }
  return true;
}

// Runs `io` for a while regardless (to show that nothing more happens).
inline void run_for(boost::asio::io_context& io, std::chrono::milliseconds d) {
  const auto deadline = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < deadline) {
    if (io.stopped()) io.restart();
    if (io.run_one_for(10ms) == 0 && io.stopped()) std::this_thread::sleep_for(2ms);
  }
}

// Runs `io` for at least `d` (the pause a test wants between two things it writes), then on until `done()`
// holds (what should have happened in that pause) or `timeout` passes; returns done(). On a starved machine
// the pause can go by before the loop ran at all: this waits for what it was for instead of assuming it.
template <typename Pred>
bool run_for_then_until(boost::asio::io_context& io, std::chrono::milliseconds d, Pred done,
                        std::chrono::milliseconds timeout = kWait) {
  run_for(io, d);
  return run_until(io, done, timeout);
}

// For work on other threads: polls `done()` every few ms until it holds or `timeout` passes; returns done().
// Ends as soon as it holds, so a fast machine waits no longer than it must.
template <typename Pred>
bool eventually(Pred done, std::chrono::milliseconds timeout = kWait, std::chrono::milliseconds poll = 5ms) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(poll);
  }
  return true;
}

inline std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(byte(rng));
  return out;
}

// The board's side: a dup() of the pty master on the same io_context, reading everything into
// `received` and writing queued buffers in order. EIO on the master only means "no opener right now"
// (the link is between opens), so reads are retried after a short pause.
class MasterEnd {
 public:
  MasterEnd(boost::asio::io_context& io, int master_fd)
      : state_(std::make_shared<State>(io, ::dup(master_fd))) {
    read_more(state_);
  }
  ~MasterEnd() { close(); }
  MasterEnd(const MasterEnd&) = delete;
  MasterEnd& operator=(const MasterEnd&) = delete;

  void write(std::vector<std::uint8_t> bytes) {
    state_->queue.push_back(std::move(bytes));
    if (state_->queue.size() == 1) write_next(state_);
  }
  // Closes our dup (pending operations end with operation_aborted).
  void close() {
    state_->closed = true;
    boost::system::error_code ignored;
    state_->timer.cancel();
    if (state_->desc.is_open()) state_->desc.close(ignored);
  }
  const std::vector<std::uint8_t>& received() const { return state_->received; }
  std::size_t written() const { return state_->written; }

 private:
  struct State {
    State(boost::asio::io_context& io, int fd) : desc(io, fd), timer(io) {}
    boost::asio::posix::stream_descriptor desc;
    boost::asio::steady_timer timer;
    std::vector<std::uint8_t> received;
    std::vector<std::uint8_t> chunk = std::vector<std::uint8_t>(4096);
    std::deque<std::vector<std::uint8_t>> queue;
    std::size_t written = 0;
    bool closed = false;
  };

  static void read_more(const std::shared_ptr<State>& s) {
    s->desc.async_read_some(
        boost::asio::buffer(s->chunk), [s](const boost::system::error_code& ec, std::size_t n) {
          if (s->closed) return;
          if (!ec) {
            s->received.insert(s->received.end(), s->chunk.begin(), s->chunk.begin() + static_cast<long>(n));
            read_more(s);
            return;
          }
          if (ec == boost::asio::error::operation_aborted) return;
          s->timer.expires_after(5ms);
          s->timer.async_wait([s](const boost::system::error_code& tec) {
            if (!tec && !s->closed) read_more(s);
          });
        });
  }

  static void write_next(const std::shared_ptr<State>& s) {
    boost::asio::async_write(s->desc, boost::asio::buffer(s->queue.front()),
                             [s](const boost::system::error_code& ec, std::size_t n) {
                               if (s->closed || ec) return;
                               s->written += n;
                               s->queue.pop_front();
                               if (!s->queue.empty()) write_next(s);
                             });
  }

  std::shared_ptr<State> state_;
};

}  // namespace eboard::io::test
