// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/bus_hub.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <random>
#include <vector>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

namespace eboard::session {

namespace {

constexpr std::int64_t kBoardLatencyMs = 20;  // the longest a real board takes to answer (DGT's header)
constexpr std::int64_t kStallMs = 5;          // the hub's timers this late: its process was not running
constexpr std::int64_t kWatchMs = 10;         // the watch's period: a stall of the hub is seen within it

// With EBOARD_BUS_HUB_TRACE=FILE in the environment, every chunk the host writes (`host>`), every frame a
// board gives the line (`board>`, ` late` if later than a real board answers) and every chunk of it written
// to the host as the baud rate lets it out (`line>`) is appended to FILE, one line each: steady-clock
// microseconds, what, hex bytes.
// Off (no cost but a null check) without it.
std::FILE* trace_file() {
  static std::FILE* const f = [] {
    const char* path = std::getenv("EBOARD_BUS_HUB_TRACE");
    return path && *path ? std::fopen(path, "a") : nullptr;
  }();
  return f;
}

void trace(const char* what, std::span<const std::uint8_t> bytes, const char* note = "") {
  std::FILE* f = trace_file();
  if (!f) return;
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
  std::fprintf(f, "%lld %s", static_cast<long long>(us), what);
  for (const std::uint8_t b : bytes) std::fprintf(f, " %02x", b);
  std::fprintf(f, "%s\n", note);
  std::fflush(f);
}

// One end of a wire with a write queue; writes go out in order, one at a time.
struct Wire {
  explicit Wire(boost::asio::io_context& io) : retry(io) {}
  std::optional<boost::asio::posix::stream_descriptor> fd;
  std::deque<std::vector<std::uint8_t>> queue;
  bool writing = false;
  std::vector<std::uint8_t> read_buffer = std::vector<std::uint8_t>(4096);
  boost::asio::steady_timer retry;
};

}  // namespace

struct BusHub::Impl : std::enable_shared_from_this<BusHub::Impl> {
  struct Board {
    explicit Board(boost::asio::io_context& io) : wire(io) {}
    Wire wire;
    int board_end = -1;  // given to the player
    bool muted = false;
    std::function<bool(std::span<const std::uint8_t>)> mute_at;  // the frame it is muted at, if any
    std::vector<std::uint8_t> pending;                           // bytes of a reply not complete yet
  };

  Impl(boost::asio::io_context& io_, const BusFraming& framing_, std::size_t n, std::uint64_t seed,
       std::int64_t spread, int baud_)
      : io(io_),
        framing(framing_),
        host(io_),
        rng(seed),
        ping_spread_ms(spread),
        baud(baud_),
        pace(io_),
        watch(io_) {
    for (std::size_t k = 0; k < n; ++k) {
      auto b = std::make_unique<Board>(io);
      int sv[2];
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        failed = true;
        break;
      }
      ::fcntl(sv[0], F_SETFL, ::fcntl(sv[0], F_GETFL) | O_NONBLOCK);
      b->wire.fd.emplace(io, sv[0]);
      b->board_end = sv[1];
      boards.push_back(std::move(b));
    }
  }

  boost::asio::io_context& io;
  const BusFraming& framing;
  Wire host;
  std::vector<std::unique_ptr<Board>> boards;
  std::mt19937_64 rng;
  std::int64_t ping_spread_ms;
  bool failed = false;
  bool running = false;
  BusHubStats stats;
  // The line to the host, paced: frames in order; the front one is being sent since `front_start`.
  using Clock = std::chrono::steady_clock;
  int baud;
  std::deque<std::vector<std::uint8_t>> line;
  std::deque<bool> line_late;  // per frame: the board answered later than a real one may
  Clock::time_point last_host{};
  Clock::time_point pace_due{};
  Clock::time_point stalled_until{};  // a timer woke late till then: the hub cannot vouch for the order
  std::size_t front_sent = 0;
  Clock::time_point front_start{};
  Clock::time_point line_free{};
  boost::asio::steady_timer pace;
  bool pace_armed = false;
  // Wakes every kWatchMs on a paced line, idle or not: a wake S ms late means the process was not running
  // for S ms, and a command the host wrote meanwhile was read up to S ms after it was written, so a board's
  // answer to it cannot be ordered against the host's next command for S ms and a board's latency more.
  boost::asio::steady_timer watch;
  Clock::time_point watch_due{};
  std::function<void(const std::string&)>* on_collision = nullptr;

  // When byte `n` of a frame begun at `start` has been sent.
  Clock::time_point byte_end(Clock::time_point start, std::size_t n) const {
    return start + std::chrono::microseconds(static_cast<std::int64_t>(n) * 10 * 1'000'000 / baud);
  }

  void send(Wire& w, std::vector<std::uint8_t> bytes) {
    if (!w.fd || bytes.empty()) return;
    w.queue.push_back(std::move(bytes));
    if (!w.writing) write_next(w);
  }

  void write_next(Wire& w) {
    w.writing = true;
    boost::asio::async_write(
        *w.fd, boost::asio::buffer(w.queue.front()),
        [self = shared_from_this(), &w](const boost::system::error_code& ec, std::size_t) {
          if (!self->running) return;
          if (ec) {
            w.queue.clear();
            w.writing = false;
            return;
          }
          w.queue.pop_front();
          if (w.queue.empty())
            w.writing = false;
          else
            self->write_next(w);
        });
  }

  // A timer woke late: the process was not running; what the host writes until `until` is not ordered.
  void stalled_till(Clock::time_point until) {
    stalled_until = std::max(stalled_until, until);
    ++stats.stalls;
  }

  void arm_watch() {
    watch_due = Clock::now() + std::chrono::milliseconds(kWatchMs);
    watch.expires_at(watch_due);
    watch.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || !self->running) return;
      const auto woke = Clock::now();
      if (const auto lag = woke - self->watch_due; lag > std::chrono::milliseconds(kStallMs))
        self->stalled_till(woke + lag + std::chrono::milliseconds(kBoardLatencyMs));
      self->arm_watch();
    });
  }

  void read_host() {
    if (!running || !host.fd) return;
    host.fd->async_read_some(boost::asio::buffer(host.read_buffer),
                             [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                               self->on_host(ec, n);
                             });
  }

  void on_host(const boost::system::error_code& ec, std::size_t n) {
    if (!running) return;
    // A frame that went onto the line in the same instant as the host's bytes were read (a stalled
    // process handling both at once) cannot be ordered against them: counted with the late ones.
    const auto now = Clock::now();
    const bool simultaneous =
        !line.empty() && front_sent == 0 && now - front_start < std::chrono::milliseconds(2);
    // The hub's own pace behind schedule (its process stalled): what the host wrote meanwhile cannot be
    // ordered against the line either.
    const bool stalled =
        now < stalled_until ||
        (!line.empty() && now > byte_end(front_start, front_sent + 2) + std::chrono::milliseconds(kStallMs));
    const bool on_time_frame =
        !simultaneous && !stalled && std::find(line_late.begin(), line_late.end(), false) != line_late.end();
    if (!ec && baud > 0 && !line.empty() && !on_time_frame) ++stats.late_overlaps;
    if (!ec) last_host = Clock::now();
    if (!ec && baud > 0 && on_time_frame) {
      ++stats.collisions;
      if (on_collision && *on_collision)
        (*on_collision)("the host wrote " + std::to_string(n) + " bytes while a frame of " +
                        std::to_string(line.front().size()) + " bytes was on the line (" +
                        std::to_string(front_sent) + " sent, " + std::to_string(line.size() - 1) +
                        " more waiting)");
    }
    if (ec) {
      if (ec == boost::asio::error::operation_aborted) return;
      // EIO on a pty master: nobody has the other end open (yet, or any more). Look again shortly.
      host.retry.expires_after(std::chrono::milliseconds(20));
      host.retry.async_wait([self = shared_from_this()](const boost::system::error_code& tec) {
        if (!tec) self->read_host();
      });
      return;
    }
    stats.host_bytes += n;
    trace("host>", std::span<const std::uint8_t>(host.read_buffer.data(), n));
    for (auto& b : boards) {
      if (b->muted) {
        stats.muted_bytes += n;
        continue;
      }
      send(b->wire, std::vector<std::uint8_t>(host.read_buffer.begin(), host.read_buffer.begin() + long(n)));
    }
    read_host();
  }

  void read_board(Board& b) {
    if (!running) return;
    b.wire.fd->async_read_some(
        boost::asio::buffer(b.wire.read_buffer),
        [self = shared_from_this(), &b](const boost::system::error_code& ec, std::size_t n) {
          if (!self->running || ec) return;
          self->on_board(b, n);
          self->read_board(b);
        });
  }

  // Whole frames go to the host, as the dialect's framing cuts them (a byte that begins none alone).
  void on_board(Board& b, std::size_t n) {
    if (b.muted) {
      stats.muted_bytes += n;
      b.pending.clear();
      return;
    }
    b.pending.insert(b.pending.end(), b.wire.read_buffer.begin(), b.wire.read_buffer.begin() + long(n));
    while (const std::size_t size = std::min(framing.frame_size(b.pending), b.pending.size())) {
      std::vector<std::uint8_t> frame(b.pending.begin(), b.pending.begin() + long(size));
      b.pending.erase(b.pending.begin(), b.pending.begin() + long(size));
      if (b.mute_at && b.mute_at(frame)) {
        b.mute_at = nullptr;
        b.muted = true;
        stats.muted_bytes += frame.size() + b.pending.size();
        b.pending.clear();
        return;
      }
      forward(std::move(frame));
    }
  }

  void forward(std::vector<std::uint8_t> frame) {
    const bool ping = framing.answers_discovery(frame);
    if (ping && ping_spread_ms > 0) {
      const auto delay = std::uniform_int_distribution<std::int64_t>(0, ping_spread_ms)(rng);
      auto t = std::make_shared<boost::asio::steady_timer>(io, std::chrono::milliseconds(delay));
      t->async_wait(
          [self = shared_from_this(), t, f = std::move(frame)](const boost::system::error_code& ec) mutable {
            if (!ec && self->running) self->to_host(std::move(f), /*answer=*/false);
          });
      return;
    }
    to_host(std::move(frame));
  }

  void to_host(std::vector<std::uint8_t> frame, bool answer = true) {
    ++stats.frames_to_host;
    stats.bytes_to_host += frame.size();
    if (baud <= 0) return send(host, std::move(frame));
    // A real board answers within 20 ms of the command's end; an emulated one on a loaded machine may not.
    const bool late =
        answer && Clock::now() > byte_end(last_host, 4) + std::chrono::milliseconds(kBoardLatencyMs);
    if (late) ++stats.late_frames;
    trace("board>", frame, late ? " late" : "");
    line.push_back(std::move(frame));
    line_late.push_back(late);
    if (line.size() == 1) {
      front_sent = 0;
      front_start = std::max(Clock::now(), line_free);
    }
    pace_line();
  }

  // Sends what of the front frame the baud rate has let out by now, and wakes up for more.
  void pace_line() {
    if (pace_armed || !running) return;
    const auto now = Clock::now();
    while (!line.empty()) {
      auto& frame = line.front();
      std::size_t due = front_sent;
      while (due < frame.size() && byte_end(front_start, due + 1) <= now) ++due;
      if (due > front_sent) {
        std::vector<std::uint8_t> bytes(frame.begin() + long(front_sent), frame.begin() + long(due));
        trace("line>", bytes);
        send(host, std::move(bytes));
        front_sent = due;
      }
      if (front_sent < frame.size()) {
        pace_armed = true;
        pace_due = byte_end(front_start, std::min(frame.size(), front_sent + 4));
        pace.expires_at(pace_due);
        pace.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
          self->pace_armed = false;
          if (const auto woke = Clock::now(); woke > self->pace_due + std::chrono::milliseconds(kStallMs))
            self->stalled_till(woke + std::chrono::milliseconds(kStallMs * 10));
          if (!ec && self->running) self->pace_line();
        });
        return;
      }
      line_free = byte_end(front_start, frame.size());
      line.pop_front();
      line_late.pop_front();
      front_sent = 0;
      front_start = std::max(now, line_free);
    }
  }
};

BusHub::BusHub(boost::asio::io_context& io, const BusFraming& framing, std::size_t boards, std::uint64_t seed,
               std::int64_t ping_spread_ms, int baud)
    : impl_(std::make_shared<Impl>(io, framing, boards, seed, ping_spread_ms, baud)) {
  impl_->on_collision = &on_collision;
}

BusHub::~BusHub() {
  stop();
  impl_->on_collision = nullptr;
  for (auto& b : impl_->boards)
    if (b->board_end >= 0) ::close(b->board_end);
}

int BusHub::take_board_fd(std::size_t k) {
  if (k >= impl_->boards.size()) return -1;
  return std::exchange(impl_->boards[k]->board_end, -1);
}

bool BusHub::ok() const { return !impl_->failed; }

void BusHub::attach_host(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  impl_->host.fd.emplace(impl_->io, fd);
  if (impl_->running) impl_->read_host();
}

void BusHub::start() {
  if (impl_->running) return;
  impl_->running = true;
  if (impl_->baud > 0) impl_->arm_watch();  // (unpaced, nothing is judged a collision)
  impl_->read_host();
  for (auto& b : impl_->boards) impl_->read_board(*b);
}

void BusHub::stop() {
  if (!impl_->running) return;
  impl_->running = false;
  boost::system::error_code ignored;
  impl_->host.retry.cancel();
  impl_->pace.cancel();
  impl_->watch.cancel();
  if (impl_->host.fd) impl_->host.fd->close(ignored);
  for (auto& b : impl_->boards)
    if (b->wire.fd) b->wire.fd->close(ignored);
}

void BusHub::mute(std::size_t k, bool muted) {
  if (k < impl_->boards.size()) impl_->boards[k]->muted = muted;
}
void BusHub::mute_at(std::size_t k, std::function<bool(std::span<const std::uint8_t> frame)> lost) {
  if (k < impl_->boards.size()) impl_->boards[k]->mute_at = std::move(lost);
}
bool BusHub::muted(std::size_t k) const { return k < impl_->boards.size() && impl_->boards[k]->muted; }
std::size_t BusHub::size() const { return impl_->boards.size(); }
const BusHubStats& BusHub::stats() const { return impl_->stats; }

}  // namespace eboard::session
