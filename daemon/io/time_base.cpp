// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/io/time_base.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <boost/asio/post.hpp>

namespace eboard::io {

namespace {

std::int64_t system_unix_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::shared_ptr<TimeBase> TimeBase::system(boost::asio::io_context& io) {
  return std::shared_ptr<TimeBase>(new TimeBase(io, Kind::system, 1.0, {}, system_unix_us() / 1000));
}

std::shared_ptr<TimeBase> TimeBase::scaled(boost::asio::io_context& io, double rate, std::int64_t origin_ms) {
  if (!(rate > 0)) rate = 1.0;
  Reading reading = [origin_ms, rate] {
    return origin_ms + static_cast<std::int64_t>(static_cast<double>(system_unix_us() - origin_ms * 1000) *
                                                 rate / 1000.0);
  };
  const std::int64_t start = reading();
  return std::shared_ptr<TimeBase>(new TimeBase(io, Kind::scaled, rate, std::move(reading), start));
}

std::shared_ptr<TimeBase> TimeBase::scaled(boost::asio::io_context& io, double rate, Reading reading) {
  if (!(rate > 0)) rate = 1.0;
  if (!reading) reading = [] { return system_unix_us() / 1000; };
  const std::int64_t start = reading();
  return std::shared_ptr<TimeBase>(new TimeBase(io, Kind::scaled, rate, std::move(reading), start));
}

std::shared_ptr<TimeBase> TimeBase::manual(boost::asio::io_context& io, std::int64_t start_ms) {
  return std::shared_ptr<TimeBase>(new TimeBase(io, Kind::manual, 0.0, {}, start_ms));
}

TimeBase::TimeBase(boost::asio::io_context& io, Kind kind, double rate, Reading reading, std::int64_t start)
    : io_(io), kind_(kind), rate_(rate), reading_(std::move(reading)), last_(start), timer_(io) {}

TimeBase::~TimeBase() { timer_.cancel(); }

std::int64_t TimeBase::read() const {
  switch (kind_) {
    case Kind::manual:
      return last_.load();
    case Kind::system:
      return system_unix_us() / 1000;
    case Kind::scaled:
      break;
  }
  return reading_();
}

std::int64_t TimeBase::now_ms() const {
  const std::int64_t r = read();
  std::int64_t seen = last_.load();
  while (r > seen && !last_.compare_exchange_weak(seen, r)) {}
  return std::max(r, seen);
}

TimeBase::TimerId TimeBase::at(std::int64_t t_ms, Handler handler) {
  const TimerId id = ++next_id_;
  queue_.emplace(std::make_pair(t_ms, id), std::move(handler));
  due_of_.emplace(id, t_ms);
  if (!draining_) rearm();
  return id;
}

void TimeBase::cancel(TimerId id) {
  auto d = due_of_.find(id);
  if (d == due_of_.end()) return;
  queue_.erase(std::make_pair(d->second, id));
  due_of_.erase(d);
  if (!draining_) rearm();
}

std::optional<std::int64_t> TimeBase::next_due() const {
  if (queue_.empty()) return std::nullopt;
  return queue_.begin()->first.first;
}

void TimeBase::advance_to(std::int64_t t_ms) {
  if (kind_ != Kind::manual) return;
  drain(std::max(t_ms, last_.load()));
  if (t_ms > last_.load()) last_.store(t_ms);
  rearm();
}

void TimeBase::drain(std::int64_t limit) {
  const bool outer = !draining_;
  draining_ = true;
  while (!queue_.empty()) {
    auto it = queue_.begin();
    const auto [t, id] = it->first;
    if (t > limit) break;
    Handler handler = std::move(it->second);
    queue_.erase(it);
    due_of_.erase(id);
    if (kind_ == Kind::manual && t > last_.load()) last_.store(t);
    handler();
  }
  if (outer) draining_ = false;
}

void TimeBase::rearm() {
  if (kind_ == Kind::manual) {
    // What is due now (armed for the present or the past) runs soon on the loop, never inside at().
    if (post_pending_ || queue_.empty() || queue_.begin()->first.first > last_.load()) return;
    post_pending_ = true;
    boost::asio::post(io_, [weak = weak_from_this()] {
      auto self = weak.lock();
      if (!self) return;
      self->post_pending_ = false;
      self->drain(self->last_.load());
      self->rearm();
    });
    return;
  }
  if (queue_.empty()) {
    if (timer_for_) {
      timer_for_.reset();
      ++generation_;
      timer_.cancel();
    }
    return;
  }
  const std::int64_t due = queue_.begin()->first.first;
  if (timer_for_ == due) return;
  timer_for_ = due;
  const auto gen = ++generation_;
  const double wait_clock_ms = static_cast<double>(std::max<std::int64_t>(0, due - now_ms()));
  timer_.expires_after(
      std::chrono::microseconds(static_cast<std::int64_t>(std::ceil(wait_clock_ms * 1000.0 / rate_))));
  timer_.async_wait([weak = weak_from_this(), gen](const boost::system::error_code& ec) {
    auto self = weak.lock();
    if (ec || !self || gen != self->generation_) return;
    self->timer_for_.reset();
    self->drain(self->now_ms());
    self->rearm();
  });
}

void Timer::arm(std::int64_t t_ms, TimeBase::Handler handler) {
  cancel();
  id_ = time_->at(t_ms, [this, handler = std::move(handler)] {
    id_ = 0;  // run: nothing left to cancel (the handler may arm again)
    due_.reset();
    handler();
  });
  due_ = t_ms;
}

void Timer::cancel() {
  if (id_ != 0) time_->cancel(id_);
  id_ = 0;
  due_.reset();
}

}  // namespace eboard::io
