// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/async_file.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "daemon/outputs/atomic_file.hpp"

namespace eboard::outputs {

AsyncFileWriter::AsyncFileWriter(Report report, std::chrono::milliseconds batch_window,
                                 std::chrono::milliseconds min_interval)
    : batch_window_(batch_window), min_interval_(min_interval), report_(std::move(report)) {
  thread_ = std::thread([this] { run(); });
}

AsyncFileWriter::~AsyncFileWriter() { stop(); }

AsyncFileWriter::Entry& AsyncFileWriter::set_pending(const std::string& key, std::string content) {
  ++stats_.submitted;
  Entry& e = files_[key];
  if (e.pending) ++stats_.superseded;
  e.pending = std::move(content);
  return e;
}

void AsyncFileWriter::submit(const std::filesystem::path& path, std::string content, bool urgent) {
  std::unique_lock lock(mutex_);
  const std::string key = path.string();
  Entry& e = set_pending(key, std::move(content));
  e.urgent |= urgent;
  if (stopping_) {
    if (!e.busy) (void)write_here(lock, key, e);
    return;
  }
  if (!e.busy && !e.queued) enqueue(key, e);  // busy: the writer thread queues it again when done
}

void AsyncFileWriter::enqueue(const std::string& key, Entry& e) {
  // Not before its interval is over (unless urgent), nor before the retry of a failed write is due.
  const Clock::time_point due =
      std::max(e.urgent ? Clock::time_point{} : e.written + min_interval_, e.retry_at);
  if (!stopping_ && Clock::now() < due) {
    if (e.delayed && *e.delayed <= due) return;  // already waiting, for no later a time
    undelay(key, e);
    const bool earliest = delayed_.empty() || due < delayed_.begin()->first;
    e.delayed = due;
    delayed_.emplace(due, key);
    if (earliest) wake_.notify_one();
    return;
  }
  undelay(key, e);
  e.queued = true;
  queue_.push_back(key);
  wake_.notify_one();
}

void AsyncFileWriter::undelay(const std::string& key, Entry& e) {
  if (!e.delayed) return;
  delayed_.erase({*e.delayed, key});
  e.delayed.reset();
}

void AsyncFileWriter::sweep(Clock::time_point now) {
  if (min_interval_.count() <= 0 || now < swept_ + min_interval_) return;
  swept_ = now;
  for (auto it = files_.begin(); it != files_.end();) {
    const Entry& e = it->second;
    if (idle(e) && e.error.empty() && e.written + min_interval_ <= now)
      it = files_.erase(it);
    else
      ++it;
  }
}

tl::expected<void, std::string> AsyncFileWriter::write_here(std::unique_lock<std::mutex>& lock,
                                                            const std::string& key, Entry& e, bool sync_dir,
                                                            bool retry) {
  auto content = std::make_shared<const std::string>(std::move(*e.pending));
  e.pending.reset();
  const bool urgent = e.urgent;
  e.urgent = false;
  undelay(key, e);
  e.written = Clock::now();
  e.busy = true;
  e.in_flight = content;
  lock.unlock();
  auto ok = write_file_atomic(key, *content, sync_dir);
  lock.lock();
  e.busy = false;  // `e` stays: an entry is erased only when idle()
  e.in_flight.reset();
  ++stats_.written;
  if (ok) {
    e.backoff = std::chrono::milliseconds(0);
    e.retry_at = {};
  } else {
    ++stats_.failures;
    // Kept for a retry (once stopping, given up), unless a later content replaced it meanwhile.
    if (!e.pending && !stopping_ && retry) {
      e.pending = *content;
      e.urgent = urgent;
    }
    e.backoff = e.backoff.count() == 0 ? RETRY_MIN : std::min(e.backoff * 2, RETRY_MAX);
    e.retry_at = Clock::now() + e.backoff;
  }
  idle_.notify_all();
  return ok;
}

void AsyncFileWriter::note_result(const std::string& key, Entry& e,
                                  const tl::expected<void, std::string>& ok) {
  std::string error = ok ? std::string() : ok.error();
  if (error != e.error && report_) report_(key, error);  // rare: under the lock is fine
  e.error = std::move(error);
}

tl::expected<void, std::string> AsyncFileWriter::write_now(const std::filesystem::path& path,
                                                           std::string content) {
  std::unique_lock lock(mutex_);
  const std::string key = path.string();
  Entry& e = set_pending(key, std::move(content));
  return finish(lock, key, e);
}

tl::expected<void, std::string> AsyncFileWriter::replace_now(const std::filesystem::path& path,
                                                             std::string content) {
  std::unique_lock lock(mutex_);
  const std::string key = path.string();
  Entry& e = files_[key];
  if (auto before = finish(lock, key, e); !before) return before;
  Entry& now = files_[key];  // finish() may have forgotten the entry
  ++now.waiting;
  idle_.wait(lock, [&] { return !now.busy; });
  --now.waiting;
  ++stats_.submitted;
  if (now.pending) {  // submitted meanwhile: it was meant to follow the file as it is now, so it goes first
    auto first = write_here(lock, key, now);
    note_result(key, now, first);
    if (!first) return first;
  }
  now.pending = std::move(content);
  auto ok = write_here(lock, key, now, true, /*retry=*/false);
  if (ok) note_result(key, now, ok);  // a failure is the caller's to tell: nothing of it is left to retry
  if (now.pending && !now.queued && !stopping_) enqueue(key, now);
  if (idle(now) && now.error.empty() && min_interval_.count() <= 0) files_.erase(key);
  return ok;
}

tl::expected<void, std::string> AsyncFileWriter::finish(std::unique_lock<std::mutex>& lock,
                                                        const std::string& key, Entry& e) {
  ++e.waiting;
  idle_.wait(lock, [&] { return !e.busy; });
  --e.waiting;
  // A background write is over. What is pending now is the latest content (ours, or a later one);
  // nothing pending: the background write took it.
  tl::expected<void, std::string> ok;
  if (e.pending) {
    ok = write_here(lock, key, e);
    note_result(key, e, ok);
  }
  // Submitted while we wrote: the writer thread takes it (the submit saw `e` busy and left it to us).
  if (e.pending && !e.queued && !stopping_) enqueue(key, e);
  // Forgotten once idle, unless it is to keep its interval (sweep() forgets it later).
  if (idle(e) && e.error.empty() && min_interval_.count() <= 0) files_.erase(key);
  return ok;
}

void AsyncFileWriter::hurry(const std::filesystem::path& path) {
  std::unique_lock lock(mutex_);
  const std::string key = path.string();
  auto it = files_.find(key);
  if (it == files_.end() || !it->second.pending) return;
  Entry& e = it->second;
  e.urgent = true;  // busy: queued again at once when the write in flight is over
  if (!e.busy && !e.queued) enqueue(key, e);
}

tl::expected<void, std::string> AsyncFileWriter::flush(const std::filesystem::path& path) {
  std::unique_lock lock(mutex_);
  const std::string key = path.string();
  auto it = files_.find(key);
  if (it == files_.end()) return {};
  return finish(lock, key, it->second);
}

void AsyncFileWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    // Files whose interval is over (all of them when stopping) join the queue.
    const Clock::time_point now = Clock::now();
    while (!delayed_.empty() && (stopping_ || delayed_.begin()->first <= now)) {
      const std::string key = delayed_.begin()->second;
      Entry& e = files_.at(key);
      undelay(key, e);
      if (e.busy || e.queued || !e.pending) continue;
      e.queued = true;
      queue_.push_back(key);
    }
    sweep(now);
    if (queue_.empty()) {
      if (stopping_) return;
      if (delayed_.empty()) {
        wake_.wait(lock);
      } else {
        // A copy: wait_until reads its deadline again after waking, when the entry may be gone.
        const Clock::time_point until = delayed_.begin()->first;
        wake_.wait_until(lock, until);
      }
      continue;
    }
    // What comes within the batch window is written together and shares one fsync of its directory.
    if (!stopping_ && batch_window_.count() > 0)
      wake_.wait_for(lock, batch_window_, [this] { return stopping_; });
    std::deque<std::string> batch;
    batch.swap(queue_);
    std::set<std::filesystem::path> dirs;
    for (const std::string& key : batch) {
      Entry& e = files_.at(key);
      e.queued = false;
      if (e.busy || !e.pending) continue;  // being written (or just written) by write_now()/flush()
      auto ok = write_here(lock, key, e, false);
      if (ok) dirs.insert(std::filesystem::path(key).parent_path());
      note_result(key, e, ok);
      if (e.pending && !e.busy && !e.queued) {
        // Submitted again while we wrote, or refused by the disk: once more, with the latest (after the
        // interval unless urgent, and after the retry's delay).
        enqueue(key, e);
      } else if (idle(e) && e.error.empty() && min_interval_.count() <= 0) {
        files_.erase(key);
      }
    }
    lock.unlock();
    for (const auto& dir : dirs) (void)sync_directory(dir);
    lock.lock();
  }
}

void AsyncFileWriter::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<std::string> AsyncFileWriter::unwritten(const std::filesystem::path& path) const {
  std::lock_guard lock(mutex_);
  auto it = files_.find(path.string());
  if (it == files_.end()) return std::nullopt;
  if (it->second.pending) return *it->second.pending;
  if (it->second.in_flight) return *it->second.in_flight;
  return std::nullopt;
}

std::vector<std::filesystem::path> AsyncFileWriter::unwritten_in(const std::filesystem::path& dir,
                                                                 std::string_view prefix) const {
  // Keys are paths as strings, in order: those of `dir` beginning with `prefix` stand together.
  const std::string start = (dir / std::string(prefix)).string();
  std::lock_guard lock(mutex_);
  std::vector<std::filesystem::path> out;
  for (auto it = files_.lower_bound(start); it != files_.end() && it->first.starts_with(start); ++it) {
    if (!it->second.pending && !it->second.in_flight) continue;
    std::filesystem::path p(it->first);
    if (p.parent_path() == dir) out.push_back(std::move(p));
  }
  return out;
}

AsyncFileStats AsyncFileWriter::stats() const {
  std::lock_guard lock(mutex_);
  AsyncFileStats s = stats_;
  for (const auto& [key, e] : files_) s.pending_retries += !e.error.empty() && e.pending.has_value();
  return s;
}

}  // namespace eboard::outputs
