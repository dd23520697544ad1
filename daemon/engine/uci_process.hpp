// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A UCI engine (Stockfish) in a child process, spoken to over pipes. Every read has a deadline: an engine
// that hangs is killed, never waited for. The child is always reaped: by stop(), by the destructor, and at
// once when it is found dead. Writing to an engine that died is an error value, never a SIGPIPE. Not
// thread-safe: one owner thread (cancel() excepted).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

#include <tl/expected.hpp>

namespace eboard::engine {

class UciProcess {
 public:
  using Clock = std::chrono::steady_clock;

  UciProcess() = default;
  ~UciProcess();
  UciProcess(const UciProcess&) = delete;
  UciProcess& operator=(const UciProcess&) = delete;

  // Starts `path` and completes the UCI handshake (uci / uciok) before `deadline`. Fails with the reason
  // (not executable, exited, no answer in time), the child stopped and reaped.
  tl::expected<void, std::string> start(const std::string& path, Clock::time_point deadline);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Writes one line. False when the engine is gone (the process is then stopped).
  bool send(const std::string& line);
  // The next line the engine writes (without its newline), or nullopt when it closed its output or
  // `deadline` passed (the process is then stopped).
  std::optional<std::string> read_line(Clock::time_point deadline);
  // Reads until a line starting with `prefix`; nullopt as read_line.
  std::optional<std::string> wait_for(const std::string& prefix, Clock::time_point deadline);

  // Asks the engine to quit, gives it a moment, kills it if need be, and reaps it. Idempotent.
  void stop();
  // From any thread: a read in progress, and every later one, fails within about 50 ms as at its deadline
  // (the owner then stops the process). For a daemon that shuts down while the engine thinks.
  void cancel() { cancelled_ = true; }

 private:
  pid_t pid_ = -1;
  int to_ = -1;    // the engine's stdin
  int from_ = -1;  // the engine's stdout
  std::string buffer_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace eboard::engine
