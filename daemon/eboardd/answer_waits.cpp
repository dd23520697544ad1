// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/answer_waits.hpp"

#include <utility>

#include <boost/asio/post.hpp>

namespace eboard::eboardd {

AnswerWaits::AnswerWaits(boost::asio::io_context& io) : io_(io) {}

AnswerWaits::~AnswerWaits() { stop(); }

void AnswerWaits::wait(std::function<http::Response()> deferred, std::function<void(http::Response)> then) {
  reap();
  {
    std::lock_guard lock(shared_->mutex);
    if (shared_->stopped) return;
  }
  auto done = std::make_shared<bool>(false);
  std::thread t(
      [shared = shared_, io = &io_, done, deferred = std::move(deferred), then = std::move(then)]() mutable {
        http::Response res = deferred();
        std::lock_guard lock(shared->mutex);
        *done = true;
        // Posted under the lock: once stop() has set `stopped`, nothing reaches the loop from here.
        if (shared->stopped) return;
        boost::asio::post(*io, [shared, then = std::move(then), res = std::move(res)]() mutable {
          {
            std::lock_guard on_loop(shared->mutex);
            if (shared->stopped) return;
          }
          then(std::move(res));
        });
      });
  waiters_.push_back(Waiter{std::move(t), std::move(done)});
}

void AnswerWaits::stop() {
  {
    std::lock_guard lock(shared_->mutex);
    shared_->stopped = true;
  }
  for (Waiter& w : waiters_)
    if (w.thread.joinable()) w.thread.join();
  waiters_.clear();
}

std::size_t AnswerWaits::waiting() const {
  std::lock_guard lock(shared_->mutex);
  std::size_t n = 0;
  for (const Waiter& w : waiters_) n += !*w.done;
  return n;
}

void AnswerWaits::reap() {
  std::list<Waiter> ended;
  {
    std::lock_guard lock(shared_->mutex);
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      auto next = std::next(it);
      if (*it->done) ended.splice(ended.end(), waiters_, it);
      it = next;
    }
  }
  for (Waiter& w : ended) w.thread.join();  // done: it ends at once
}

}  // namespace eboard::eboardd
