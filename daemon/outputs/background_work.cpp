// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/background_work.hpp"

#include <utility>

namespace eboard::outputs {

BackgroundWork::BackgroundWork() {
  thread_ = std::thread([this] { run(); });
}

BackgroundWork::~BackgroundWork() { stop(); }

void BackgroundWork::post(Job job) {
  std::unique_lock lock(mutex_);
  if (stopping_) {
    // After what the worker still runs, to keep the order.
    const std::uint64_t before = posted_++;
    idle_.wait(lock, [&] { return finished_ >= before; });
    lock.unlock();
    job();
    lock.lock();
    ++finished_;
    idle_.notify_all();
    return;
  }
  ++posted_;
  queue_.push_back(std::move(job));
  wake_.notify_one();
}

void BackgroundWork::drain() {
  std::unique_lock lock(mutex_);
  const std::uint64_t target = posted_;
  idle_.wait(lock, [&] { return finished_ >= target; });
}

void BackgroundWork::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    Job job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // what it held goes before the next one starts
    lock.lock();
    ++finished_;
    idle_.notify_all();
  }
}

void BackgroundWork::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t BackgroundWork::jobs_run() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

}  // namespace eboard::outputs
