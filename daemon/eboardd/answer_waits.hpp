// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Deferred responses (http::Response::deferred: a control answered once its effect is durable, control.hpp's
// LaterAnswer) waited for off the loop, each on a thread of its own, their results handed to the loop. The
// hall's MQTT commands use it: the loop never blocks on a disk. The threads are owned: stop() joins them,
// and no result is handed over after it, so none outlives its owner. A deferred response waits at most
// its own bound; a stopping daemon gives its pending answers up first (PendingAnswers::abandon), so that
// stop() returns at once.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include <boost/asio/io_context.hpp>

#include "daemon/http/server.hpp"

namespace eboard::eboardd {

class AnswerWaits {
 public:
  explicit AnswerWaits(boost::asio::io_context& io);
  ~AnswerWaits();  // stop()
  AnswerWaits(const AnswerWaits&) = delete;
  AnswerWaits& operator=(const AnswerWaits&) = delete;

  // Calls `deferred` on a thread of its own, then `then` on the loop with its response, unless stop()
  // came first. After stop(): nothing is called.
  void wait(std::function<http::Response()> deferred, std::function<void(http::Response)> then);
  // From now on no result is handed to the loop (a result already posted is dropped); returns once every
  // thread has ended. On the loop's thread.
  void stop();
  // Threads not ended yet.
  std::size_t waiting() const;

 private:
  struct Shared {
    std::mutex mutex;
    bool stopped = false;
  };
  struct Waiter {
    std::thread thread;
    std::shared_ptr<bool> done;  // set under Shared::mutex when the thread has nothing left to do
  };
  // Joins the threads that ended (each wait() does, so that a long run does not gather them).
  void reap();

  boost::asio::io_context& io_;
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  std::list<Waiter> waiters_;
};

}  // namespace eboard::eboardd
