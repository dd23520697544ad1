// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// eboardd under load: N emulated DGT boards (each with its clock) on pseudo-terminals, played at blitz
// pace (a move every 2-5 s of real time per board) by simulated hands from corpus games, against the real
// eboardd binary. Figures, per N: the daemon's CPU (utime + stime over the measurement window, as % of one
// core) and memory (VmRSS, VmHWM), and the latency from the write of the clock message that completes a
// move (the BWTIME whose lever changed sides) to that move's event on /ws: median, p90, p99, max. The
// driver's own CPU and the machine's are printed beside them, so a reader sees whether the machine was
// saturated. Goals (issue 6): 1,000 boards under 25 % of one core, p99 under 5 ms (one DGT message takes
// 5 ms on the wire at 9600 baud). Nothing about time is asserted; the run fails only if the daemon does
// not start or no move comes back.
//
// The boards all run in ONE io_context on the main thread, so the daemon's CPU is measured alone; the
// WebSocket is read by a second thread with blocking reads, so an arrival is stamped as soon as the
// message is read, not when the board thread gets round to it. Both stamps are CLOCK_MONOTONIC
// (steady_clock) of this process.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include "daemon/session/emulated_board.hpp"
#include "daemon/session/pty.hpp"
#include "daemon/sim/rng.hpp"
#include "daemon/sim/timeline.hpp"
#include "drivers/dgt/decoder.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"

using namespace eboard;
namespace fs = std::filesystem;
namespace asio = boost::asio;
namespace beast = boost::beast;
using namespace std::chrono_literals;

namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The system clock in microseconds: events carry the daemon's Unix time (ms) of reading the press.
std::int64_t unix_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Seconds a thread of this process was runnable but waited for a CPU (schedstat).
double thread_run_delay_s(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/schedstat");
  unsigned long long on_cpu = 0;
  unsigned long long waited = 0;
  if (!(stat >> on_cpu >> waited)) return 0;
  return double(waited) / 1e9;
}

struct Options {
  std::vector<std::size_t> boards{10, 100, 1000};
  std::string eboardd = EBOARDD_BIN;
  double warmup_s = 0;  // 0: 10 s, 15 s from 500 boards
  double window_s = 0;  // 0: 30 s, 45 s from 500 boards
  std::int64_t move_min_ms = 2000;
  std::int64_t move_max_ms = 5000;
  std::uint64_t seed = 1;
  bool keep = false;  // keep the state directory (journals, PGN, the daemon's log)
  // Where the state directories go: the temporary directory (a disk), or e.g. /dev/shm to take the
  // disk's fsync times out of the figures.
  std::string state_base = fs::temp_directory_path().string();
  // Scheduling priority of the driver and the daemon (setpriority; below 0 needs the privilege): on a
  // shared machine, keeps other people's compiles from making the latency tail.
  int nice = 0;
  // journal.sync_ms of the daemon (-1: its default): how long a sensor or raw record may wait for its
  // fdatasync. A move never waits for it: it is published once its own sync is done.
  int sync_ms = -1;
};

// The goals (issue 6), printed beside the figures.
constexpr double GOAL_CPU_PCT = 25.0;  // at 1,000 boards, of one core
constexpr double GOAL_P99_MS = 5.0;    // press byte -> move event on /ws

// ---------------------------------------------------------------------------------------------------
// The games

struct BenchGame {
  rules::GameRecord record;
  std::vector<std::string> uci;  // per ply
};

std::vector<BenchGame> load_games(std::size_t min_plies, std::size_t max_games) {
  std::vector<BenchGame> out;
  const fs::path dir = fs::path(EBOARD_SHARED_DIR) / "corpora" / "pgn" / "standard";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".pgn") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = rules::read_pgn(text.str());
    if (!parsed) continue;
    for (const auto& g : *parsed) {
      if (out.size() >= max_games) return out;
      auto r = rules::replay(g);
      if (!r || r->moves.size() < min_plies || r->start.fen() != rules::Position::start().fen()) continue;
      BenchGame b{*r, {}};
      rules::Position pos = r->start;
      for (const auto& m : r->moves) {
        b.uci.push_back(rules::to_uci(pos, m.move));
        pos.do_move(m.move);
      }
      out.push_back(std::move(b));
    }
  }
  return out;
}

// A blitz game on a board: each move takes 2-5 s on the clock (the first one longer and random, so the
// boards do not press in step), 3 min + 2 s, a casual hand, as many plies as the run needs.
sim::Timeline blitz_timeline(const BenchGame& g, std::size_t plies, const Options& o, std::uint64_t seed) {
  sim::TimelineSpec spec;
  spec.start = g.record.start;
  sim::Rng rng(seed);
  for (std::size_t i = 0; i < std::min(plies, g.record.moves.size()); ++i) {
    spec.moves.push_back(g.record.moves[i].move);
    spec.spent_ms.emplace_back(i == 0 ? rng.range(1000, 1000 + o.move_max_ms)
                                      : rng.range(o.move_min_ms, o.move_max_ms));
  }
  spec.white = spec.black = sim::HandStyle::casual();
  spec.clock = sim::ClockSettings{.base_ms = 3 * 60 * 1000, .increment_ms = 2000};
  spec.seed = seed;
  return sim::build_timeline(spec);
}

// ---------------------------------------------------------------------------------------------------
// /proc

double clock_ticks() { return static_cast<double>(::sysconf(_SC_CLK_TCK)); }

// utime + stime of a process in seconds (nullopt when it is gone).
std::optional<double> process_cpu_s(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream rest(text.substr(paren + 2));
  // Fields 3.. after the command name: state ppid pgrp session tty tpgid flags minflt cminflt majflt
  // cmajflt utime stime.
  std::string field;
  for (int i = 3; i <= 13; ++i) rest >> field;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  rest >> utime >> stime;
  if (!rest) return std::nullopt;
  return static_cast<double>(utime + stime) / clock_ticks();
}

struct Memory {
  long rss_kb = -1;
  long hwm_kb = -1;
};

Memory process_memory(pid_t pid) {
  Memory m;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) m.rss_kb = std::stol(line.substr(6));
    if (line.rfind("VmHWM:", 0) == 0) m.hwm_kb = std::stol(line.substr(6));
  }
  return m;
}

// How a process shared the CPUs, summed over its threads: the time it was runnable but waited for a
// CPU (schedstat), and how often it went to sleep (voluntary context switches, about one per wake-up).
struct Scheduling {
  double run_delay_s = 0;
  unsigned long long sleeps = 0;
};

Scheduling process_scheduling(pid_t pid) {
  Scheduling s;
  std::error_code ec;
  for (fs::directory_iterator it("/proc/" + std::to_string(pid) + "/task", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::ifstream stat(it->path() / "schedstat");
    unsigned long long on_cpu = 0;
    unsigned long long waited = 0;
    if (stat >> on_cpu >> waited) s.run_delay_s += double(waited) / 1e9;
    std::ifstream status(it->path() / "status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) s.sleeps += std::stoull(line.substr(24));
  }
  return s;
}

std::size_t open_fds(pid_t pid) {
  std::error_code ec;
  std::size_t n = 0;
  for (fs::directory_iterator it("/proc/" + std::to_string(pid) + "/fd", ec), end; !ec && it != end;
       it.increment(ec))
    ++n;
  return n;
}

double self_cpu_s() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return s(u.ru_utime) + s(u.ru_stime);
}

// The whole machine from /proc/stat: busy and total jiffies over all cores.
struct MachineCpu {
  unsigned long long busy = 0;
  unsigned long long total = 0;
};

MachineCpu machine_cpu() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;
  MachineCpu m;
  unsigned long long v = 0;
  for (int i = 0; i < 8 && in >> v; ++i) {  // user nice system idle iowait irq softirq steal
    m.total += v;
    if (i != 3 && i != 4) m.busy += v;
  }
  return m;
}

// ---------------------------------------------------------------------------------------------------
// The WebSocket reader

struct Arrival {
  std::int64_t t_ns;
  std::string text;
};

class WsReader {
 public:
  WsReader() = default;
  WsReader(const WsReader&) = delete;
  WsReader& operator=(const WsReader&) = delete;
  ~WsReader() { join(); }

  std::optional<std::string> connect(std::uint16_t port) {
    beast::error_code ec;
    ws_.next_layer().connect({asio::ip::make_address("127.0.0.1"), port}, ec);
    if (!ec) ws_.handshake("127.0.0.1:" + std::to_string(port), "/ws", ec);
    if (ec) return "WebSocket /ws on port " + std::to_string(port) + ": " + ec.message();
    thread_ = std::thread([this] { read_loop(); });
    return std::nullopt;
  }

  // The daemon closing the connection ends the reads; shutdown() ends them if it did not.
  void join() {
    if (!thread_.joinable()) return;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!done_ && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
    if (!done_) {
      beast::error_code ignored;
      ws_.next_layer().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    }
    thread_.join();
  }

  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] double run_delay_s() const { return tid_ ? thread_run_delay_s(tid_) : 0; }
  // Only after join().
  std::vector<Arrival>& arrivals() { return arrivals_; }

 private:
  void read_loop() {
    tid_ = ::gettid();
    beast::flat_buffer buffer;
    for (;;) {
      beast::error_code ec;
      ws_.read(buffer, ec);
      const std::int64_t t = now_ns();
      if (ec) break;
      arrivals_.push_back({t, beast::buffers_to_string(buffer.data())});
      buffer.consume(buffer.size());
      ++count_;
    }
    done_ = true;
  }

  asio::io_context io_;
  beast::websocket::stream<asio::ip::tcp::socket> ws_{io_};
  std::thread thread_;
  std::vector<Arrival> arrivals_;  // written by the reader thread only, read after join()
  std::atomic<std::size_t> count_{0};
  std::atomic<bool> done_{false};
  std::atomic<pid_t> tid_{0};
};

// GET /status (after the window: it blocks the board thread for a moment).
std::optional<nlohmann::json> get_status(std::uint16_t port) {
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  beast::error_code ec;
  s.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return std::nullopt;
  beast::http::request<beast::http::empty_body> req{beast::http::verb::get, "/status", 11};
  req.set(beast::http::field::host, "127.0.0.1");
  beast::http::write(s, req, ec);
  if (ec) return std::nullopt;
  beast::flat_buffer buffer;
  beast::http::response_parser<beast::http::string_body> parser;
  parser.body_limit(std::uint64_t{1} << 30);
  beast::http::read(s, buffer, parser, ec);
  if (ec) return std::nullopt;
  auto j = nlohmann::json::parse(parser.get().body(), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// ---------------------------------------------------------------------------------------------------
// One run

// What the driver sees of one board: its presses, as written to the wire.
struct BoardTrack {
  drivers::dgt::Decoder decoder;
  std::optional<bool> right_lever_high;
  std::vector<std::int64_t> press_ns;  // press k completes ply k + 1
  std::vector<std::int64_t> press_unix_us;
  std::vector<drivers::dgt::Message> scratch;
};

struct Figures {
  std::size_t boards = 0;
  std::size_t started = 0;
  double window_s = 0;
  std::size_t moves = 0;          // latencies measured
  std::size_t missing = 0;        // a press in the window, no move event for its ply
  std::size_t wrong_uci = 0;      // a move event that is not the game's move
  std::size_t without_press = 0;  // a move event with no press of its own (mate, recovered together)
  double p50_ms = -1, p90_ms = -1, p99_ms = -1, max_ms = -1;
  double daemon_cpu_pct = -1;         // of one core
  double driver_cpu_pct = -1;         // of one core
  double machine_busy_pct = -1;       // of all cores
  double reader_delay_ms_per_s = -1;  // the driver's /ws reader runnable but waiting for a CPU
  // The latency split at the daemon's read of the press (the event's t, whole ms): p50 and p99.
  double read_p50_ms = -1, read_p99_ms = -1, after_p50_ms = -1, after_p99_ms = -1;
  double run_delay_ms_per_s = -1;  // the daemon runnable but waiting for a CPU, per second
  double sleeps_per_s = -1;        // the daemon's voluntary context switches per second
  Memory memory;
  std::size_t daemon_fds = 0;
  std::size_t move_events = 0;  // received in the whole run, late ones included
  std::size_t ws_messages = 0;  // in the window
  std::string journal;          // journal figures from /status
  bool ok = false;
  std::string error;
};

double percentile_ms(const std::vector<std::int64_t>& sorted_ns, double p) {
  if (sorted_ns.empty()) return -1;
  const auto i = std::min(sorted_ns.size() - 1, static_cast<std::size_t>(p * double(sorted_ns.size())));
  return double(sorted_ns[i]) / 1e6;
}

std::string journal_summary(const nlohmann::json& status, double uptime_s) {
  std::uint64_t syncs = 0;
  double sync_us_total = 0;
  std::int64_t sync_max = 0;
  std::uint64_t records = 0;
  for (const auto& b : status.value("boards", nlohmann::json::array())) {
    const auto& j = b["journal"];
    const auto n = j.value("syncs", std::uint64_t{0});
    syncs += n;
    sync_us_total += double(n) * j.value("sync_avg_us", 0.0);
    sync_max = std::max(sync_max, j.value("sync_max_us", std::int64_t{0}));
    records += j.value("records_written", std::uint64_t{0});
  }
  char line[256];
  std::snprintf(
      line, sizeof line,
      "journal since start (%.0f s): %llu records, %llu fdatasync (%.0f/s), avg %.0f us, max %.1f ms",
      uptime_s, static_cast<unsigned long long>(records), static_cast<unsigned long long>(syncs),
      double(syncs) / std::max(1.0, uptime_s), syncs ? sync_us_total / double(syncs) : 0.0,
      double(sync_max) / 1000.0);
  return line;
}

Figures run(const Options& o, std::size_t n, const std::vector<BenchGame>& games) {
  Figures f;
  f.boards = n;
  const double warmup_s = o.warmup_s > 0 ? o.warmup_s : (n >= 500 ? 15.0 : 10.0);
  const double window_s = o.window_s > 0 ? o.window_s : (n >= 500 ? 45.0 : 30.0);
  // Enough plies for start-up, warm-up, window and the grace after it at the fastest pace.
  const auto plies = static_cast<std::size_t>((warmup_s + window_s + 40.0) * 1000.0 / double(o.move_min_ms));

  const fs::path dir = fs::path(o.state_base) /
                       ("eboard-bench-daemon-" + std::to_string(::getpid()) + "-" + std::to_string(n));
  fs::remove_all(dir);
  fs::create_directories(dir);

  asio::io_context io;
  std::vector<std::unique_ptr<session::BoardPlayer>> players;
  std::vector<BoardTrack> tracks(n);
  std::size_t started = 0;
  std::string config = "state_dir = \"" + (dir / "state").string() +
                       "\"\n\n[http]\nlisten = \"127.0.0.1:0\"\nmax_clients = 8\n";
  if (o.sync_ms >= 0) config += "\n[journal]\nsync_ms = " + std::to_string(o.sync_ms) + "\n";
  for (std::size_t i = 0; i < n; ++i) {
    auto pty = session::open_pseudo_terminal();
    if (!pty) {
      f.error = "pty " + std::to_string(i) + ": " + pty.error();
      return f;
    }
    const sim::Timeline tl = blitz_timeline(games[i % games.size()], plies, o, o.seed * 100003 + i);
    auto p = std::make_unique<session::BoardPlayer>(io, drivers::dgt::Emulator{},
                                                    session::script_from_events(tl.events),
                                                    session::PlayerConfig{.wait_for_host = true});
    BoardTrack& track = tracks[i];
    p->on_board_write = [&track](std::span<const std::uint8_t> bytes) {
      const std::int64_t t = now_ns();
      track.scratch.clear();
      track.decoder.feed(bytes, track.scratch);
      for (const auto& m : track.scratch) {
        const auto* c = std::get_if<drivers::dgt::ClockTimes>(&m);
        if (!c) continue;
        if (track.right_lever_high && *track.right_lever_high != c->right_lever_high) {
          track.press_ns.push_back(t);
          track.press_unix_us.push_back(unix_us());
        }
        track.right_lever_high = c->right_lever_high;
      }
    };
    p->on_started = [&started] { ++started; };
    p->attach(pty->master_fd);
    p->start();
    players.push_back(std::move(p));
    char id[24];
    std::snprintf(id, sizeof id, "b%04zu", i);
    config += "\n[[board]]\nid = \"" + std::string(id) + "\"\nport = \"" + pty->slave_path +
              "\"\nprotocol = \"dgt\"\n";
  }
  const fs::path config_path = dir / "eboardd.toml";
  std::ofstream(config_path) << config;

  const fs::path log_path = dir / "eboardd.log";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (o.nice != 0) ::setpriority(PRIO_PROCESS, 0, o.nice);
    ::execl(o.eboardd.c_str(), o.eboardd.c_str(), "--config", config_path.c_str(), nullptr);
    ::dprintf(2, "cannot run %s: %s\n", o.eboardd.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  if (pid < 0) {
    f.error = "fork failed";
    return f;
  }
  bool exited = false;
  const auto daemon_alive = [&] {
    if (exited) return false;
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) == pid) exited = true;
    return !exited;
  };
  const auto run_until = [&](std::chrono::steady_clock::time_point deadline, const auto& done) {
    while (std::chrono::steady_clock::now() < deadline && !done() && daemon_alive()) io.run_for(50ms);
  };

  // Where it listens (port 0: chosen by the kernel).
  std::uint16_t port = 0;
  run_until(std::chrono::steady_clock::now() + 60s, [&] {
    std::ifstream in(dir / "state" / "eboardd.listen");
    std::string where;
    if (!(in >> where)) return false;
    port = static_cast<std::uint16_t>(std::stoi(where.substr(where.rfind(':') + 1)));
    return true;
  });
  WsReader ws;
  if (port == 0) {
    f.error = "eboardd did not start listening (see " + log_path.string() + ")";
  } else if (auto err = ws.connect(port)) {
    f.error = *err;
  }

  std::int64_t w0 = 0;  // the window, on now_ns()
  std::int64_t w1 = 0;
  if (f.error.empty()) {
    // Every board opened and read by the daemon (the script clocks start at the host's first byte).
    run_until(std::chrono::steady_clock::now() + 60s, [&] { return started == n; });
    f.started = started;
    run_until(std::chrono::steady_clock::now() + std::chrono::milliseconds(std::int64_t(warmup_s * 1000)),
              [] { return false; });

    w0 = now_ns();
    const std::optional<double> d0 = process_cpu_s(pid);
    const double s0 = self_cpu_s();
    const MachineCpu m0 = machine_cpu();
    const Scheduling c0 = process_scheduling(pid);
    const double r0 = ws.run_delay_s();
    const std::size_t ws0 = ws.count();
    run_until(std::chrono::steady_clock::now() + std::chrono::milliseconds(std::int64_t(window_s * 1000)),
              [] { return false; });
    w1 = now_ns();
    const std::optional<double> d1 = process_cpu_s(pid);
    const double s1 = self_cpu_s();
    const MachineCpu m1 = machine_cpu();
    const Scheduling c1 = process_scheduling(pid);
    const double r1 = ws.run_delay_s();
    f.ws_messages = ws.count() - ws0;
    f.memory = process_memory(pid);
    f.daemon_fds = open_fds(pid);
    f.window_s = double(w1 - w0) / 1e9;
    if (d0 && d1) f.daemon_cpu_pct = 100.0 * (*d1 - *d0) / f.window_s;
    f.driver_cpu_pct = 100.0 * (s1 - s0) / f.window_s;
    f.run_delay_ms_per_s = 1000.0 * (c1.run_delay_s - c0.run_delay_s) / f.window_s;
    f.sleeps_per_s = double(c1.sleeps - c0.sleeps) / f.window_s;
    f.reader_delay_ms_per_s = 1000.0 * (r1 - r0) / f.window_s;
    if (m1.total > m0.total)
      f.machine_busy_pct = 100.0 * double(m1.busy - m0.busy) / double(m1.total - m0.total);
    // Grace: the events of the window's last presses.
    run_until(std::chrono::steady_clock::now() + 2s, [] { return false; });
    if (auto st = get_status(port)) f.journal = journal_summary(*st, double(st->value("uptime_s", 0)));

    if (!daemon_alive()) f.error = "eboardd exited during the run (see " + log_path.string() + ")";
  }

  // Stop the daemon, then the boards.
  if (daemon_alive()) ::kill(pid, SIGTERM);
  run_until(std::chrono::steady_clock::now() + 30s, [] { return false; });
  if (daemon_alive()) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  ws.join();
  players.clear();
  if (f.error.empty()) {
    // Pair the presses with the move events.
    std::vector<std::map<int, const Arrival*>> move_at(n);
    std::vector<std::map<int, std::string>> uci_at(n);
    std::vector<std::map<int, std::int64_t>> t_at(n);
    for (const Arrival& a : ws.arrivals()) {
      auto j = nlohmann::json::parse(a.text, nullptr, false);
      if (j.is_discarded() || j.value("type", "") != "move") continue;
      const std::string board = j.value("board", "");
      if (board.size() < 2 || board[0] != 'b') continue;
      const auto b = static_cast<std::size_t>(std::stoul(board.substr(1)));
      const int ply = j.value("ply", 0);
      if (b >= n || ply <= 0 || move_at[b].count(ply)) continue;  // the first arrival counts
      move_at[b][ply] = &a;
      ++f.move_events;
      uci_at[b][ply] = j.value("uci", "");
      t_at[b][ply] = j.value("t", std::int64_t{0});
    }
    std::vector<std::int64_t> lat;
    std::vector<std::int64_t> read_ns;   // press written -> the daemon's time stamp of it
    std::vector<std::int64_t> after_ns;  // that time stamp -> read from /ws
    for (std::size_t b = 0; b < n; ++b) {
      const BenchGame& g = games[b % games.size()];
      for (const auto& [ply, a] : move_at[b]) {
        const std::string& want = std::size_t(ply) <= g.uci.size() ? g.uci[std::size_t(ply) - 1] : "";
        if (uci_at[b][ply] != want) ++f.wrong_uci;
        if (std::size_t(ply) > tracks[b].press_ns.size()) ++f.without_press;
      }
      for (std::size_t k = 0; k < tracks[b].press_ns.size(); ++k) {
        const std::int64_t t = tracks[b].press_ns[k];
        if (t < w0 || t >= w1) continue;
        auto it = move_at[b].find(int(k) + 1);
        if (it == move_at[b].end()) {
          ++f.missing;
          continue;
        }
        lat.push_back(it->second->t_ns - t);
        const std::int64_t read = (t_at[b][int(k) + 1] * 1000 - tracks[b].press_unix_us[k]) * 1000;
        read_ns.push_back(read);
        after_ns.push_back(lat.back() - read);
      }
    }
    std::sort(lat.begin(), lat.end());
    f.moves = lat.size();
    f.p50_ms = percentile_ms(lat, 0.5);
    f.p90_ms = percentile_ms(lat, 0.9);
    f.p99_ms = percentile_ms(lat, 0.99);
    f.max_ms = lat.empty() ? -1 : double(lat.back()) / 1e6;
    std::sort(read_ns.begin(), read_ns.end());
    std::sort(after_ns.begin(), after_ns.end());
    f.read_p50_ms = percentile_ms(read_ns, 0.5);
    f.read_p99_ms = percentile_ms(read_ns, 0.99);
    f.after_p50_ms = percentile_ms(after_ns, 0.5);
    f.after_p99_ms = percentile_ms(after_ns, 0.99);
    // A daemon too slow to answer in time is a figure; one that never sends a move is broken.
    if (f.move_events == 0) f.error = "no move event came back on /ws";
  }
  f.ok = f.error.empty();
  if (!f.ok) {
    // What the daemon said about it.
    std::ifstream log(log_path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(log, line);) lines.push_back(line);
    for (std::size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i)
      std::printf("  eboardd.log: %s\n", lines[i].c_str());
  }
  if (o.keep || !f.ok)
    std::printf("kept %s\n", dir.c_str());
  else
    fs::remove_all(dir);
  return f;
}

void print_header() {
  std::printf("%6s %7s %8s %8s %8s %8s %10s %8s %8s %9s %8s   %s\n", "boards", "moves", "p50 ms", "p90 ms",
              "p99 ms", "max ms", "daemon %", "RSS MiB", "HWM MiB", "driver %", "machine", "goals");
}

void print_row(const Figures& f) {
  // (The CPU goal is stated for 1,000 boards; fewer boards are held to the same bar.)
  const bool cpu_ok = f.daemon_cpu_pct < GOAL_CPU_PCT;
  const bool p99_ok = f.p99_ms >= 0 && f.p99_ms < GOAL_P99_MS;
  std::printf(
      "%6zu %7zu %8.2f %8.2f %8.2f %8.2f %9.1f%% %8.1f %8.1f %8.1f%% %7.0f%%   p99 %.2f ms vs goal < %.0f ms "
      "(%s); CPU %.1f%% vs goal < %.0f%% of one core at 1,000 boards (%s)\n",
      f.boards, f.moves, f.p50_ms, f.p90_ms, f.p99_ms, f.max_ms, f.daemon_cpu_pct,
      double(f.memory.rss_kb) / 1024.0, double(f.memory.hwm_kb) / 1024.0, f.driver_cpu_pct,
      f.machine_busy_pct, f.p99_ms, GOAL_P99_MS, p99_ok ? "met" : "MISSED", f.daemon_cpu_pct, GOAL_CPU_PCT,
      cpu_ok ? "met" : "MISSED");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"eboardd under load: N emulated boards on ptys at blitz pace; CPU, memory, /ws latency"};
  app.add_option("--boards", o.boards, "Board counts to run, e.g. --boards 10 100 1000")->delimiter(',');
  app.add_option("--eboardd", o.eboardd, "The eboardd binary");
  app.add_option("--warmup", o.warmup_s,
                 "Seconds after every board started before measuring (default 10/15)");
  app.add_option("--window", o.window_s, "Seconds of measurement (default 30, 45 from 500 boards)");
  app.add_option("--seed", o.seed, "Seed of the simulated hands");
  app.add_option("--state-base", o.state_base,
                 "Directory for the daemon's state (default: the temporary directory; /dev/shm: no disk)");
  app.add_option("--nice", o.nice,
                 "Scheduling priority of the driver and eboardd, e.g. -10 (needs privilege)");
  app.add_option("--sync-ms", o.sync_ms,
                 "The daemon's journal.sync_ms: the longest a sensor or raw record waits for its fdatasync "
                 "(default: the daemon's default, 50)");
  app.add_flag("--keep", o.keep, "Keep the state directories (journals, PGN, eboardd.log)");
  CLI11_PARSE(app, argc, argv);

  const std::size_t most = *std::max_element(o.boards.begin(), o.boards.end());
  std::vector<BenchGame> games = load_games(60, std::min<std::size_t>(most, 400));
  if (games.empty()) {
    std::printf("skipped: no corpus games in %s/corpora/pgn/standard\n", EBOARD_SHARED_DIR);
    return 0;
  }
  if (::access(o.eboardd.c_str(), X_OK) != 0) {
    std::printf("eboardd not found at %s (give --eboardd)\n", o.eboardd.c_str());
    return 1;
  }
  // Each board is a pty master here and a pty plus a journal there: raise the fd limit to the hard one
  // (eboardd inherits it).
  rlimit nofile{};
  ::getrlimit(RLIMIT_NOFILE, &nofile);
  nofile.rlim_cur = nofile.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &nofile);
  std::ifstream pty_max_in("/proc/sys/kernel/pty/max");
  long pty_max = -1;
  pty_max_in >> pty_max;
  std::printf(
      "%zu corpus games (60+ plies); a move every %.0f-%.0f s per board; fd limit %llu, pty max %ld\n",
      games.size(), double(o.move_min_ms) / 1000, double(o.move_max_ms) / 1000,
      static_cast<unsigned long long>(nofile.rlim_cur), pty_max);
  std::signal(SIGPIPE, SIG_IGN);
  if (o.nice != 0 && ::setpriority(PRIO_PROCESS, 0, o.nice) != 0)
    std::printf("--nice %d: %s (running at the default priority)\n", o.nice, std::strerror(errno));
  if (o.nice != 0) std::printf("driver and eboardd at nice %d\n", ::getpriority(PRIO_PROCESS, 0));

  std::vector<Figures> all;
  int status = 0;
  for (std::size_t n : o.boards) {
    if (2 * n + 64 > nofile.rlim_cur || (pty_max > 0 && long(n) > pty_max)) {
      std::printf("%zu boards: skipped (fd limit %llu, pty max %ld)\n", n,
                  static_cast<unsigned long long>(nofile.rlim_cur), pty_max);
      continue;
    }
    Figures f = run(o, n, games);
    std::printf("\n%zu boards: %zu started, window %.1f s, %zu /ws messages in it, %zu daemon fds\n", n,
                f.started, f.window_s, f.ws_messages, f.daemon_fds);
    std::printf(
        "  %zu move events received in the run (late ones included); presses in the window whose "
        "move event never came: %zu; move events not the game's move: %zu; without a press of their "
        "own: %zu\n",
        f.move_events, f.missing, f.wrong_uci, f.without_press);
    std::printf("  daemon: waited %.1f ms per second for a CPU while runnable; %.0f wake-ups per second\n",
                f.run_delay_ms_per_s, f.sleeps_per_s);
    std::printf("  driver: its /ws reader waited %.1f ms per second for a CPU while runnable\n",
                f.reader_delay_ms_per_s);
    std::printf(
        "  latency split at the daemon's time stamp of the press (whole ms, so +-1 ms): written -> stamped "
        "p50 %.1f p99 %.1f ms; stamped -> read from /ws p50 %.1f p99 %.1f ms\n",
        f.read_p50_ms, f.read_p99_ms, f.after_p50_ms, f.after_p99_ms);
    if (!f.journal.empty()) std::printf("  %s\n", f.journal.c_str());
    if (!f.ok) {
      std::printf("  FAILED: %s\n", f.error.c_str());
      status = 1;
    }
    print_header();
    print_row(f);
    std::fflush(stdout);
    all.push_back(f);
  }
  std::printf("\nlatency: clock-press BWTIME written on the pty -> its move event read from /ws\n");
  std::printf("daemon %%, driver %%: CPU of one core over the window; machine: all %u cores busy\n",
              std::thread::hardware_concurrency());
  print_header();
  for (const auto& f : all) print_row(f);
  return status;
}
