// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// How long a command of the tools takes from exec to exit: `eboardctl --help`, `--version`, `status`
// against a running eboardd, and `eboardd --version`, each run many times, with the same figures for
// /bin/true (the cost of fork and exec alone, the floor) in the same run. Goal (issue 10): under 10 ms
// for `eboardctl --help` and `status`. Medians, p90 and max; nothing about time is asserted (machines
// are noisy), the run fails only if a command fails or the daemon does not start.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

extern char** environ;

namespace fs = std::filesystem;

namespace {

// Runs argv with stdout and stderr on /dev/null; its exit status (-1: not run).
int run(const std::vector<std::string>& argv, pid_t* started = nullptr) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  if (started) {
    *started = pid;
    return 0;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct Figures {
  double median = 0, p90 = 0, max = 0;
};

Figures time_command(const std::vector<std::string>& argv, int runs) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = run(argv);
    const auto t1 = std::chrono::steady_clock::now();
    if (rc != 0) {
      std::fprintf(stderr, "bench_startup: %s exited %d\n", argv[0].c_str(), rc);
      std::exit(1);
    }
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[ms.size() * 9 / 10], ms.back()};
}

unsigned short free_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

}  // namespace

int main() {
  const int runs = 101;
  const std::string ctl = EBOARDCTL_BIN, daemon = EBOARDD_BIN;
  const fs::path dir = fs::temp_directory_path() / ("eboard-bench-startup-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string listen = "127.0.0.1:" + std::to_string(free_port());
  std::ofstream(dir / "eboardd.toml")
      << "state_dir = \"" << (dir / "state").string() << "\"\n[http]\nlisten = \"" << listen << "\"\n";
  pid_t eboardd = -1;
  if (run({daemon, "--config", (dir / "eboardd.toml").string(), "--no-usb"}, &eboardd) != 0) return 1;
  // Wait until it answers.
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {
    up = run({ctl, "status", "--daemon", listen}) == 0;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!up) {
    std::fprintf(stderr, "bench_startup: eboardd did not answer on %s\n", listen.c_str());
    kill(eboardd, SIGKILL);
    return 1;
  }

  std::printf("exec to exit, %d runs each (ms)      median      p90      max\n", runs);
  auto row = [&](const char* what, const std::vector<std::string>& argv) {
    const Figures f = time_command(argv, runs);
    std::printf("  %-34s %8.2f %8.2f %8.2f\n", what, f.median, f.p90, f.max);
    return f;
  };
  const Figures floor = row("/bin/true (fork+exec floor)", {"/bin/true"});
  const Figures help = row("eboardctl --help", {ctl, "--help"});
  row("eboardctl --version", {ctl, "--version"});
  const Figures status = row("eboardctl status (running daemon)", {ctl, "status", "--daemon", listen});
  row("eboardd --version", {daemon, "--version"});
  std::printf("goal: under 10 ms for --help and status: %s (--help %.2f ms, status %.2f ms; floor %.2f ms)\n",
              help.median < 10 && status.median < 10 ? "met" : "MISSED", help.median, status.median,
              floor.median);

  kill(eboardd, SIGTERM);
  waitpid(eboardd, nullptr, 0);
  fs::remove_all(dir);
  return 0;
}
