// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A UCI engine in a child process, for benchmarks that measure an anchor (Stockfish, Fairy-Stockfish)
// in the same run as our code. Bench-only: plain POSIX, no error recovery beyond "not available".
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace eboard::bench {

class UciEngine {
 public:
  explicit UciEngine(const std::vector<std::string>& candidates) {
    for (const auto& path : candidates)
      if (access(path.c_str(), X_OK) == 0) {
        start(path);
        break;
      }
  }
  ~UciEngine() {
    if (pid_ > 0) {
      send("quit");
      if (to_) std::fclose(to_);
      if (from_) std::fclose(from_);
      waitpid(pid_, nullptr, 0);
    }
  }
  UciEngine(const UciEngine&) = delete;
  UciEngine& operator=(const UciEngine&) = delete;

  bool available() const { return pid_ > 0; }
  const std::string& path() const { return path_; }

  void send(const std::string& line) {
    std::fprintf(to_, "%s\n", line.c_str());
    std::fflush(to_);
  }
  // Reads lines until one starts with `prefix`; returns it (empty at end of output).
  std::string wait_for(const std::string& prefix) {
    char buf[4096];
    while (std::fgets(buf, sizeof buf, from_)) {
      std::string line(buf);
      if (line.rfind(prefix, 0) == 0) return line;
    }
    return {};
  }
  void sync() {
    send("isready");
    wait_for("readyok");
  }
  // Runs `go perft depth` on the current position: node count and seconds from command to answer.
  std::optional<std::pair<std::uint64_t, double>> perft(const std::string& position_cmd, int depth) {
    send(position_cmd);
    sync();
    auto t0 = std::chrono::steady_clock::now();
    send("go perft " + std::to_string(depth));
    std::string line = wait_for("Nodes searched");
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (line.empty()) return std::nullopt;
    return std::make_pair(std::stoull(line.substr(line.find(':') + 1)), secs);
  }

 private:
  void start(const std::string& path) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execl(path.c_str(), path.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_ = fdopen(in[1], "w");
    from_ = fdopen(out[0], "r");
    path_ = path;
    send("uci");
    if (wait_for("uciok").empty()) pid_ = -1;
  }

  pid_t pid_ = -1;
  std::string path_;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace eboard::bench
