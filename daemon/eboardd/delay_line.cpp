// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/delay_line.hpp"

#include <algorithm>
#include <charconv>

namespace eboard::eboardd {

void DelayQueue::push(const std::string& board, std::int64_t t_ms, std::string line) {
  std::int64_t due = t_ms + delay_ms_;
  if (!queue_.empty()) due = std::max(due, queue_.back().due_ms);
  waiting_times_[board].insert(t_ms);
  queue_.push_back(Waiting{due, t_ms, board, std::move(line)});
}

std::deque<std::string> DelayQueue::take_due(std::int64_t now_ms) {
  std::deque<std::string> out;
  while (!queue_.empty() && queue_.front().due_ms <= now_ms) {
    Waiting& w = queue_.front();
    auto times = waiting_times_.find(w.board);
    times->second.erase(times->second.find(w.t_ms));
    if (times->second.empty()) waiting_times_.erase(times);
    out.push_back(std::move(w.line));
    queue_.pop_front();
  }
  return out;
}

std::optional<std::int64_t> DelayQueue::next_due() const {
  if (queue_.empty()) return std::nullopt;
  return queue_.front().due_ms;
}

bool DelayQueue::is_public(std::string_view board, std::int64_t t_ms, std::int64_t now_ms) const {
  if (t_ms > cutoff(now_ms)) return false;
  auto times = waiting_times_.find(board);
  return times == waiting_times_.end() || t_ms < *times->second.begin();
}

DelayLine::DelayLine(boost::asio::io_context& io, std::int64_t delay_ms, std::function<std::int64_t()> now_ms,
                     std::function<void(const std::string&)> release)
    : queue_(delay_ms), now_ms_(std::move(now_ms)), release_(std::move(release)), timer_(io) {}

DelayLine::~DelayLine() { timer_.cancel(); }

void DelayLine::push(const std::string& board, std::int64_t t_ms, std::string line) {
  queue_.push(board, t_ms, std::move(line));
  release_due();
}

void DelayLine::release_due() {
  for (const std::string& line : queue_.take_due(now_ms_())) release_(line);
  arm();
}

void DelayLine::arm() {
  auto due = queue_.next_due();
  if (!due || armed_for_ == due) return;
  armed_for_ = due;
  // The timer runs on the steady clock; the delay is counted on the daemon's (Unix) one: wait the gap
  // between them now, and look again when it fires (a clock step only makes the wait shorter or longer).
  timer_.expires_after(std::chrono::milliseconds(std::max<std::int64_t>(0, *due - now_ms_())));
  // A wait that has already fired runs even after a cancel: the token tells it whether the line is still
  // here.
  timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    armed_for_.reset();
    release_due();
  });
}

std::optional<std::int64_t> event_time_of(std::string_view line) {
  // The key "t" at the top level. Inside a JSON string a quote is escaped, so `"t":` right after `{` or
  // `,` is the key itself, never text of a detail.
  for (std::size_t at = line.find("\"t\":"); at != line.npos; at = line.find("\"t\":", at + 1)) {
    if (at == 0 || (line[at - 1] != '{' && line[at - 1] != ',')) continue;
    std::int64_t t = 0;
    const char* begin = line.data() + at + 4;
    auto [ptr, ec] = std::from_chars(begin, line.data() + line.size(), t);
    if (ec == std::errc() && ptr != begin) return t;
  }
  return std::nullopt;
}

}  // namespace eboard::eboardd
