// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Whole files (per-game PGN) written off the event loop, atomically (write_file_atomic), latest content
// wins: submit() replaces what is waiting for a file, a file has at most one write in flight, and a file
// rewritten many times while one write runs is written once more with its last content. The writer thread
// takes what was submitted within a batch window together: each file is written, fsynced and renamed
// over its old version, then each directory is fsynced once for the batch (so many boards' PGN files cost
// one directory fsync, not one each).
//
// With a `min_interval`, a file is written at most once per interval: what is submitted meanwhile waits
// (latest content wins) and is written when the interval is over, unless the submit is `urgent`. Each
// write creates an inode, fsyncs it and renames it over the old one; at 1,000 boards a move every few
// seconds, one write per move was a third of the daemon's CPU (issue 6).
//
// This is the daemon's one worker for durable whole-file writes (write_file_atomic: data fsynced, renamed,
// directory fsynced), so that the event loop never waits for a disk. A write the disk refuses (full, a
// quota, an I/O error) is not dropped: its content stays (unless a later submit replaces it) and is written
// again after RETRY_MIN, then at growing delays up to RETRY_MAX, until it succeeds: when space returns, every
// file the outage held back is written within RETRY_MAX. The Report callback tells the first failure of a
// file and its first success after (error empty). stop() tries once more and gives up on what still fails.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::outputs {

struct AsyncFileStats {
  std::uint64_t submitted = 0;
  std::uint64_t written = 0;
  std::uint64_t superseded = 0;  // contents replaced by a later one before being written
  std::uint64_t failures = 0;
  std::uint64_t pending_retries = 0;  // files whose last write failed, waiting to be written again
};

class AsyncFileWriter {
 public:
  // Told (on the writer thread) when a background write of `path` fails, and when one works again
  // (error empty). Must be thread-safe.
  using Report = std::function<void(const std::filesystem::path& path, const std::string& error)>;

  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds RETRY_MIN{250};
  static constexpr std::chrono::milliseconds RETRY_MAX{2000};

  explicit AsyncFileWriter(Report report = {},
                           std::chrono::milliseconds batch_window = std::chrono::milliseconds(50),
                           std::chrono::milliseconds min_interval = std::chrono::milliseconds(0));
  ~AsyncFileWriter();
  AsyncFileWriter(const AsyncFileWriter&) = delete;
  AsyncFileWriter& operator=(const AsyncFileWriter&) = delete;

  // `path` is to hold `content`, soon: within the batch window, or (written less than min_interval ago, and
  // not `urgent`) once the interval is over. Never blocks on I/O.
  void submit(const std::filesystem::path& path, std::string content, bool urgent = false);
  // `path` holds `content` when this returns (written on the calling thread, after a background write of
  // the same file finishes), durably.
  tl::expected<void, std::string> write_now(const std::filesystem::path& path, std::string content);
  // All or nothing, for a change someone answers for (an arbiter's correction): what was submitted for
  // `path` before is written first (its failure is returned, and `content` is not tried); then `path`
  // holds `content` when this returns ok, or, on failure, keeps what it held: `content` is not kept for a
  // retry, so a failure returned is a change that never happens.
  tl::expected<void, std::string> replace_now(const std::filesystem::path& path, std::string content);
  // What was submitted for `path` is written when this returns (by a background batch whose directory
  // fsync may still be running, or here).
  tl::expected<void, std::string> flush(const std::filesystem::path& path);
  // What waits for `path`'s interval to end is written now, in the background (a game over without a
  // result: its file is final, and the feeds read it from there). Nothing waiting: nothing to do.
  void hurry(const std::filesystem::path& path);
  // Writes everything submitted, then stops the thread. Later submits are written on the calling thread.
  void stop();

  // What `path` is to hold that is not yet in place on disk: the content waiting, or else the one being
  // written. Nothing: the file on disk is the latest (or a write of it failed: see the report). So a
  // reader sees a file as it will be the moment it is submitted, whatever the interval or the disk.
  std::optional<std::string> unwritten(const std::filesystem::path& path) const;
  // The files in `dir` whose names begin with `prefix` and whose content is not yet in place (unwritten()
  // has a value), new files included.
  std::vector<std::filesystem::path> unwritten_in(const std::filesystem::path& dir,
                                                  std::string_view prefix = {}) const;

  AsyncFileStats stats() const;

 private:
  struct Entry {
    std::optional<std::string> pending;
    std::shared_ptr<const std::string> in_flight;  // what is being written, while busy
    bool busy = false;                             // being written
    bool queued = false;                           // in queue_
    bool urgent = false;                           // what is pending skips the interval
    std::optional<Clock::time_point> delayed;      // in delayed_ at this time
    Clock::time_point written{};                   // the last write began
    int waiting = 0;                               // threads in write_now()/flush() holding a reference to it
    std::string error;                             // of the last write, for the report
    Clock::time_point retry_at{};                  // after a failed write: not written again before
    std::chrono::milliseconds backoff{0};          // the delay after the next failure
  };
  void run();
  // With the lock held, content pending and `e` neither busy nor queued: queues it, now or (written too
  // recently) when its interval is over.
  void enqueue(const std::string& key, Entry& e);
  // With the lock held: takes `e` out of delayed_.
  void undelay(const std::string& key, Entry& e);
  // With the lock held: forgets the files idle since their interval ended (at most once per interval).
  void sweep(Clock::time_point now);
  // With the lock held: `content` is what `key` is to hold next (replacing what was waiting).
  Entry& set_pending(const std::string& key, std::string content);
  // Nothing pending, queued, being written or waited for: the entry may go.
  static bool idle(const Entry& e) {
    return !e.pending && !e.busy && !e.queued && !e.delayed && e.waiting == 0;
  }
  // write_now()/flush(): waits for a background write of `e`, then writes what is pending here.
  tl::expected<void, std::string> finish(std::unique_lock<std::mutex>& lock, const std::string& key,
                                         Entry& e);
  // With the lock held, `e` not busy and with content pending: writes it on this thread. A failed write's
  // content is pending again (unless a later one is, or `retry` is false), to be retried after the
  // entry's backoff.
  tl::expected<void, std::string> write_here(std::unique_lock<std::mutex>& lock, const std::string& key,
                                             Entry& e, bool sync_dir = true, bool retry = true);
  // With the lock held: the report of `e`'s write result, when it changed.
  void note_result(const std::string& key, Entry& e, const tl::expected<void, std::string>& ok);

  mutable std::mutex mutex_;
  std::condition_variable wake_;  // the writer thread: work or stop
  std::condition_variable idle_;  // a write finished
  std::map<std::string, Entry> files_;
  std::deque<std::string> queue_;
  std::set<std::pair<Clock::time_point, std::string>> delayed_;  // waiting for their interval to end
  Clock::time_point swept_{};
  bool stopping_ = false;
  std::chrono::milliseconds batch_window_;
  std::chrono::milliseconds min_interval_;
  AsyncFileStats stats_;
  Report report_;
  std::thread thread_;
};

}  // namespace eboard::outputs
