// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The threads that make journals durable, so that the daemon's event loop only ever write(2)s.
//
// The loop appends a record (JournalWriter::append) and then asks: "make this file durable up to byte N
// within D, then tell me". A worker thread takes the file when its earliest deadline comes, notes the
// highest N asked for it so far, runs one fdatasync(2) for all of them, and calls every request's `done`
// that the sync covers. So a burst of records (or of boards' moves) costs one fdatasync per file, a file is
// never synced by two workers at once, and files of different boards are synced in parallel.
//
// A move waits for its journal bytes to be durable before it is published: it asks with D = 0 and a `done`
// that posts the publication back to the loop. Sensor and raw records ask with D = journal.sync_ms and no
// `done`: a power cut loses at most that much of the sensor stream, never a published move. With a D of
// seconds, most of them never cost a sync of their own: the next move's sync covers them.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/journal/journal_file.hpp"

namespace eboard::journal {

struct SyncerStats {
  std::uint64_t requests = 0;
  std::uint64_t syncs = 0;      // fdatasync calls (or no-ops: the bytes were durable already)
  std::uint64_t coalesced = 0;  // requests served by a sync that another request caused
  std::uint64_t failures = 0;
};

class Syncer {
 public:
  using Clock = std::chrono::steady_clock;
  // Called on a worker thread once the bytes asked for are durable, or with the error of the fdatasync
  // that should have made them so. It must not block (post to the loop and return).
  using Done = std::function<void(const tl::expected<void, std::string>& result)>;

  explicit Syncer(unsigned threads = 2);
  ~Syncer();
  Syncer(const Syncer&) = delete;
  Syncer& operator=(const Syncer&) = delete;

  // Makes the first `bytes` bytes of `file` (already written) durable no later than `within` from now,
  // then calls `done` (if any). Never blocks on I/O.
  void request(const std::shared_ptr<SyncFile>& file, std::uint64_t bytes, std::chrono::milliseconds within,
               Done done = {});
  // Syncs everything asked for so far, at once, and stops the threads. Requests after stop() are
  // served on the calling thread.
  void stop();

  SyncerStats stats() const;

 private:
  struct Target {
    std::shared_ptr<SyncFile> file;
    std::uint64_t want = 0;                            // highest byte count asked for
    Clock::time_point due = Clock::time_point::max();  // max: nothing asked
    std::vector<std::pair<std::uint64_t, Done>> waiters;
    bool busy = false;  // a worker is syncing it
  };
  void run();
  // With the lock held: puts `t` in the schedule at its due time (unless busy or idle).
  void schedule(SyncFile* key, Target& t);

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<SyncFile*, Target> targets_;
  std::set<std::pair<Clock::time_point, SyncFile*>> schedule_;
  bool stopping_ = false;
  bool flush_all_ = false;  // stop(): every target is due now
  SyncerStats stats_;
  std::vector<std::thread> threads_;
};

}  // namespace eboard::journal
