// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The broadcast delay ([broadcast] delay_s): FIDE-rated events broadcast live games only some minutes
// behind, so that nobody in the hall can be told a move by someone who watches the feed. Every event line
// of the public feed waits here until `delay` after the event's own time; the public views of the games
// (PGN, BPGN, the snapshot a public WebSocket client starts with) show what this line has let through.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

namespace eboard::eboardd {

// The queue, without a timer: what is due at a given time.
class DelayQueue {
 public:
  explicit DelayQueue(std::int64_t delay_ms) : delay_ms_(delay_ms) {}

  // An event line of `board` whose event happened at `t_ms` (Unix ms). Lines leave in the order they came,
  // none before t_ms + delay (a line with an old time, a move recovered after a gap, waits behind the
  // lines before it).
  void push(const std::string& board, std::int64_t t_ms, std::string line);
  // The lines due at `now_ms`, in order, removed from the queue.
  std::deque<std::string> take_due(std::int64_t now_ms);
  // When the first waiting line is due; none when nothing waits.
  std::optional<std::int64_t> next_due() const;

  // Whether an event of `board` at `t_ms` is public at `now_ms`: old enough, and not behind a line of that
  // board that still waits (a client's snapshot must not hold what its feed is still to send).
  bool is_public(std::string_view board, std::int64_t t_ms, std::int64_t now_ms) const;
  // The latest event time the public may see at `now_ms`.
  std::int64_t cutoff(std::int64_t now_ms) const { return now_ms - delay_ms_; }
  std::int64_t delay_ms() const { return delay_ms_; }
  std::size_t waiting() const { return queue_.size(); }

 private:
  struct Waiting {
    std::int64_t due_ms;
    std::int64_t t_ms;
    std::string board;
    std::string line;
  };
  std::int64_t delay_ms_;
  std::deque<Waiting> queue_;
  std::map<std::string, std::multiset<std::int64_t>, std::less<>> waiting_times_;  // per board
};

// The queue on the loop: lets lines out when due.
class DelayLine {
 public:
  DelayLine(boost::asio::io_context& io, std::int64_t delay_ms, std::function<std::int64_t()> now_ms,
            std::function<void(const std::string& line)> release);
  ~DelayLine();
  DelayLine(const DelayLine&) = delete;
  DelayLine& operator=(const DelayLine&) = delete;

  void push(const std::string& board, std::int64_t t_ms, std::string line);
  bool is_public(std::string_view board, std::int64_t t_ms) const {
    return queue_.is_public(board, t_ms, now_ms_());
  }
  std::int64_t cutoff() const { return queue_.cutoff(now_ms_()); }
  std::size_t waiting() const { return queue_.waiting(); }
  std::int64_t delay_ms() const { return queue_.delay_ms(); }

 private:
  void release_due();
  void arm();

  DelayQueue queue_;
  std::function<std::int64_t()> now_ms_;
  std::function<void(const std::string&)> release_;
  boost::asio::steady_timer timer_;
  std::optional<std::int64_t> armed_for_;
  // A timer wait that fires after the line is gone finds this expired.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

// The "t" of an event line as the daemon writes it (CONTRACTS §3); none if it has none.
std::optional<std::int64_t> event_time_of(std::string_view line);

}  // namespace eboard::eboardd
