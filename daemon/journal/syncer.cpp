// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/syncer.hpp"

#include <algorithm>

namespace eboard::journal {

Syncer::Syncer(unsigned threads) {
  threads = std::max(1u, threads);
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

Syncer::~Syncer() { stop(); }

void Syncer::schedule(SyncFile* key, Target& t) {
  if (t.busy || t.due == Clock::time_point::max()) return;
  const bool earliest = schedule_.empty() || t.due < schedule_.begin()->first;
  schedule_.emplace(t.due, key);
  if (earliest) wake_.notify_one();
}

void Syncer::request(const std::shared_ptr<SyncFile>& file, std::uint64_t bytes,
                     std::chrono::milliseconds within, Done done) {
  if (!file) {
    if (done) done({});
    return;
  }
  std::unique_lock lock(mutex_);
  ++stats_.requests;
  if (stopping_) {
    // Stopped (or stopping): nobody else will serve it.
    lock.unlock();
    auto r = file->sync_to(bytes);
    if (done) done(r);
    return;
  }
  SyncFile* key = file.get();
  Target& t = targets_[key];
  if (!t.file) t.file = file;
  t.want = std::max(t.want, bytes);
  if (done) t.waiters.emplace_back(bytes, std::move(done));
  const Clock::time_point due = Clock::now() + within;
  if (due < t.due) {
    if (!t.busy && t.due != Clock::time_point::max()) schedule_.erase({t.due, key});
    t.due = due;
    schedule(key, t);
  }
}

void Syncer::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (schedule_.empty()) {
      if (stopping_) return;
      wake_.wait(lock);
      continue;
    }
    const auto [due, key] = *schedule_.begin();
    if (!flush_all_ && due > Clock::now()) {
      wake_.wait_until(lock, due);
      continue;
    }
    schedule_.erase(schedule_.begin());
    Target& t = targets_.at(key);
    t.busy = true;
    t.due = Clock::time_point::max();
    std::shared_ptr<SyncFile> file = t.file;
    const std::uint64_t want = t.want;
    std::vector<std::pair<std::uint64_t, Done>> waiters = std::move(t.waiters);
    t.waiters.clear();
    ++stats_.syncs;
    if (waiters.size() > 1) stats_.coalesced += waiters.size() - 1;
    lock.unlock();

    // Every request taken above was made after its bytes were written, and asked for at most `want`.
    auto result = file->sync_to(want);
    for (auto& w : waiters) w.second(result);
    waiters.clear();

    lock.lock();
    if (!result) ++stats_.failures;
    Target& after = targets_.at(key);
    after.busy = false;
    if (after.due != Clock::time_point::max())
      schedule(key, after);  // asked again while we synced
    else if (after.waiters.empty())
      targets_.erase(key);  // idle: let go of the file
  }
}

void Syncer::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    flush_all_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

SyncerStats Syncer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace eboard::journal
