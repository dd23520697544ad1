// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// One thread for the file work of the event loop that is not a whole-file write (async_file.hpp takes
// those): a journal rotation (journal/rotation.hpp: new files written and fdatasynced, renamed, their
// directory fsynced: the durable write's guarantees, atomic_file.hpp) and a finished game's journal read back
// to be signed (journal/signing.hpp). Jobs run one at a time, in the order they were posted: a signature's
// read-back posted before a rotation reads the file before the rotation renames it. A job hands its result
// to the loop by posting there; it must not wait for the loop.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace eboard::outputs {

class BackgroundWork {
 public:
  using Job = std::function<void()>;

  BackgroundWork();
  ~BackgroundWork();
  BackgroundWork(const BackgroundWork&) = delete;
  BackgroundWork& operator=(const BackgroundWork&) = delete;

  // Runs `job` on the worker thread after the jobs posted before it. After stop(): on the calling thread.
  void post(Job job);
  // Returns once every job posted before the call has run.
  void drain();
  // Runs what is posted, then stops the thread.
  void stop();

  std::uint64_t jobs_run() const;

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;  // the worker: a job or stop
  std::condition_variable idle_;  // a job finished
  std::deque<Job> queue_;
  std::uint64_t posted_ = 0;
  std::uint64_t finished_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace eboard::outputs
