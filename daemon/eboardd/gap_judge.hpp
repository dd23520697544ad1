// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The engine's judgement of the boards' missed gaps ([gaps] ranker = "stockfish", issue 30), off the event
// loop: one worker thread owns the engine (daemon/engine/gap_engine_ranker.hpp) and ranks one gap at a
// time; the answer is handed to the loop by a post. A gap submitted while another of the same board waits
// replaces it (only the board's latest gap is the arbiter's). Any failure of the engine (missing, crashed,
// hung past its timeout) leaves the order as it was, with a log line; the next gap starts the engine again.
// stop() cancels the gap being ranked, joins the thread and reaps the engine.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/engine/gap_engine_ranker.hpp"
#include "rules/position.hpp"

namespace eboard::eboardd {

class GapJudge {
 public:
  struct Job {
    std::string board;
    int first_ply = 0;
    rules::Position before;                            // the position before the gap
    std::vector<std::vector<rules::Move>> candidates;  // in the order the arbiter sees them now
    rules::GapEvidence evidence;                       // what the rules' order weighed (clocks, hands)
  };
  // Run on the loop: the candidates' new order (indices into Job::candidates), or nullopt when the engine
  // gave none (the order stands as it was).
  using Done = std::function<void(std::optional<std::vector<std::size_t>>)>;

  GapJudge(boost::asio::io_context& io, engine::GapEngineSettings settings);
  ~GapJudge();
  GapJudge(const GapJudge&) = delete;
  GapJudge& operator=(const GapJudge&) = delete;

  void submit(Job job, Done done);
  void stop();

  const engine::GapEngineSettings& settings() const { return settings_; }
  // The engine's process id after the last gap ranked (-1: not running). For tests.
  pid_t engine_pid() const { return engine_pid_; }
  std::size_t ranked() const { return ranked_; }  // gaps answered (either way)

 private:
  void run();

  boost::asio::io_context& io_;
  const engine::GapEngineSettings settings_;
  engine::GapEngineRanker ranker_;  // the worker's only
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<Job, Done>> queue_;
  bool stopping_ = false;
  std::atomic<pid_t> engine_pid_{-1};
  std::atomic<std::size_t> ranked_{0};
  std::thread thread_;
};

class BoardRuntime;
// Submits `b`'s missed gap (reconstructor()->missed_gap()) to `judge`; its answer becomes the board's
// engine order (BoardRuntime::set_engine_order) while that gap waits. Gaps with drops are not submitted.
void judge_missed_gap(GapJudge& judge, BoardRuntime& b);

}  // namespace eboard::eboardd
