// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// How long the event loop is blocked at a game's end (issue 28): a board whose journal holds a long game
// (moves, plus the raw board messages of hours of play) ends it with a result, its archive is signed
// (the journal read back), and a new game rotates the journal (the call of new_game() holds it). Every
// handler the loop runs from the result until the signature is on disk and the rotation made is timed,
// besides the calls into the runtime that a control request makes (the result, the new game); meanwhile
// another thread keeps the disk busy (writes and fdatasyncs of a file of its own in the same directory).
// Then the arbiter corrects the finished game's result (its record kept, rewritten, signed again), and gives
// a result on the current game, each timed the same way until its answer is made.
// Prints figures; asserts nothing.
//
//   bench_game_end [--journal-mb N] [--rounds R] [--dir PATH] [--no-load]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/eboardd/arbiter.hpp"
#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/eboardd/round.hpp"
#include "daemon/journal/signing.hpp"
#include "daemon/outputs/async_file.hpp"
#include "tests/daemon_journal/manual_source.hpp"

using namespace eboard;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Writes 1 MiB and fdatasyncs it, again and again, into a file of its own: the disk other boards and
// programs keep busy.
class DiskLoad {
 public:
  explicit DiskLoad(const fs::path& file) {
    thread_ = std::thread([this, file] {
      const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) return;
      std::string block(1 << 20, 'x');
      std::uint64_t at = 0;
      while (!stop_) {
        if (::pwrite(fd, block.data(), block.size(), off_t(at)) < 0) break;
        ::fdatasync(fd);
        at = (at + block.size()) % (64u << 20);  // a 64 MiB file, rewritten in a ring
      }
      ::close(fd);
      ::unlink(file.c_str());
    });
  }
  ~DiskLoad() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

struct Phase {
  double longest_handler_ms = 0;  // of the loop's handlers (poll_one)
  double handlers_ms = 0;         // all of them together
  int handlers = 0;
  double call_ms = 0;  // the call into the runtime that began it (a control request's handler)
  double wall_ms = 0;  // until done
};

// Runs the loop's handlers one at a time, timing each, until `done` or 60 s.
template <typename Done>
void run_timed(boost::asio::io_context& io, Phase& p, Done done) {
  const auto t0 = Clock::now();
  while (!done() && ms_since(t0) < 60000) {
    io.restart();
    const auto h0 = Clock::now();
    const std::size_t n = io.poll_one();
    if (n == 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    const double h = ms_since(h0);
    p.longest_handler_ms = std::max(p.longest_handler_ms, h);
    p.handlers_ms += h;
    ++p.handlers;
  }
  p.wall_ms = ms_since(t0);
}

void print(const char* what, const Phase& p) {
  std::printf(
      "  %-34s call %8.2f ms | loop: longest handler %8.2f ms, %4d handlers %8.2f ms | done after %8.1f ms\n",
      what, p.call_ms, p.longest_handler_ms, p.handlers, p.handlers_ms, p.wall_ms);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t journal_mb = 8;
  int rounds = 3;
  bool load = true;
  fs::path base = fs::temp_directory_path();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--journal-mb" && i + 1 < argc)
      journal_mb = std::stoull(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc)
      rounds = std::stoi(argv[++i]);
    else if (a == "--dir" && i + 1 < argc)
      base = argv[++i];
    else if (a == "--no-load")
      load = false;
  }
  const fs::path dir = base / ("eboard-bench-game-end-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::printf(
      "bench_game_end: a game with a %llu MB journal ends with a result (signed) and a new game rotates "
      "the journal; %s; state in %s\n",
      static_cast<unsigned long long>(journal_mb),
      load ? "another thread writes and fdatasyncs 1 MiB at a time meanwhile" : "no other disk load",
      dir.c_str());
  std::unique_ptr<DiskLoad> disk_load;
  if (load) disk_load = std::make_unique<DiskLoad>(dir / "load.bin");

  constexpr std::int64_t T0 = 1'700'000'000'000;
  std::vector<Phase> sign_phases, rotate_phases, correct_phases, current_phases;
  for (int round = 0; round < rounds; ++round) {
    const fs::path state = dir / ("state-" + std::to_string(round));
    fs::create_directories(state);
    boost::asio::io_context io;
    std::int64_t now = T0;
    eboardd::RuntimeOptions o;
    o.state_dir = state;
    o.clock = [&now] { return now; };
    o.signing_key = std::make_shared<const journal::SigningKey>(journal::SigningKey::generate());
    auto rt =
        std::make_unique<eboardd::BoardRuntime>(io, "A", o, [](const rules::Event&, const std::string&) {});
    if (auto ok = rt->open(); !ok) {
      std::fprintf(stderr, "open: %s\n", ok.error().c_str());
      return 1;
    }
    auto src = std::make_unique<test_support::ManualSource>(*rt, std::move(rt->recovery().machine));
    auto* source = src.get();
    rt->attach(std::move(src));

    // The game: a dozen moves, and between them the raw messages of a long game (a board dump is ~70
    // bytes; a field update 5), up to the journal size asked for.
    const sim::Timeline tl = test_support::short_game(T0, 7, 12);
    const std::uint64_t raw_target = journal_mb << 20;
    std::vector<std::uint8_t> dump(72, 0x86);
    std::uint64_t raw = 0;
    const std::uint64_t per_event = raw_target / std::max<std::size_t>(1, tl.events.size());
    for (const auto& e : tl.events) {
      now = e.t_ms;
      for (std::uint64_t b = 0; b < per_event; b += dump.size() + 40) {
        rt->wire(now, drivers::Direction::FromBoard, dump);
        raw += dump.size() + 40;
      }
      source->feed(e);
      Phase ignore;
      run_timed(io, ignore, [&] { return rt->status()["game"]["published_ply"] == rt->game().ply_count(); });
    }
    const fs::path journal = rt->journal_path();
    const double journal_bytes = double(fs::file_size(journal));

    // The result: White resigns (a control request), the archive and its signature follow.
    Phase sign;
    now += 1000;
    auto t0 = Clock::now();
    auto r = rt->control({now, "resign", "white", ""});
    sign.call_ms = ms_since(t0);
    if (!r) {
      std::fprintf(stderr, "resign: %s\n", r.error().c_str());
      return 1;
    }
    fs::path sig;
    run_timed(io, sign, [&] {
      for (const auto& f : fs::directory_iterator(state / "games"))
        if (f.path().extension() == ".sig") sig = f.path();
      return !sig.empty();
    });
    sign_phases.push_back(sign);

    // The next game: the journal rotates.
    Phase rotate;
    now += 1000;
    t0 = Clock::now();
    auto n = rt->new_game();
    rotate.call_ms = ms_since(t0);
    if (!n) {
      std::fprintf(stderr, "new game: %s\n", n.error().c_str());
      return 1;
    }
    run_timed(io, rotate, [&] { return rt->status()["journal"]["rotations"] == 1; });
    rotate_phases.push_back(rotate);

    // The arbiter corrects game 1's result (a control request): its record kept, rewritten and signed
    // again, arbiter.log synced. The answer is made by the server's worker thread (a deferred response)
    // where there is one: here a thread of the bench's, while the loop runs.
    Phase correct;
    now += 1000;
    eboardd::Round whole;  // every game of the board in it
    t0 = Clock::now();
    auto res = eboardd::arbiter_action(
        *rt, "result", nlohmann::json{{"result", "1/2-1/2"}, {"reason", "bench"}, {"game", 1}},
        eboardd::ArbiterContext{state, whole, rt->files(), "bench", "", nullptr, {}});
    correct.call_ms = ms_since(t0);
    std::atomic<unsigned> status{0};
    std::thread answer([&] {
      status = res && res->deferred ? res->deferred().status : res ? res->status : 0;
    });
    run_timed(io, correct, [&] { return status != 0; });
    answer.join();
    if (status != 200) {
      std::fprintf(stderr, "correction: %u\n", status.load());
      return 1;
    }
    correct_phases.push_back(correct);

    // The arbiter's result on the current game (game 2, not over: a forfeit): journaled, its tags too, the
    // answer once they are durable and the record written, arbiter.log synced.
    Phase current;
    now += 1000;
    t0 = Clock::now();
    auto cres =
        eboardd::arbiter_action(*rt, "result", nlohmann::json{{"result", "+/-"}, {"reason", "bench"}},
                                eboardd::ArbiterContext{state, whole, rt->files(), "bench", "", nullptr, {}});
    current.call_ms = ms_since(t0);
    std::atomic<unsigned> cstatus{0};
    std::thread canswer([&] {
      cstatus = cres && cres->deferred ? cres->deferred().status : cres ? cres->status : 0;
    });
    run_timed(io, current, [&] { return cstatus != 0; });
    canswer.join();
    if (cstatus != 200) {
      std::fprintf(stderr, "result on the current game: %u\n", cstatus.load());
      return 1;
    }
    current_phases.push_back(current);

    std::printf("round %d: journal %.1f MB (%.1f MB of raw messages), signature %s\n", round + 1,
                journal_bytes / 1e6, double(raw) / 1e6, sig.empty() ? "MISSING" : "written");
    print("result + signature:", sign);
    print("new game + rotation:", rotate);
    print("arbiter's correction of game 1:", correct);
    print("arbiter's result on game 2:", current);
    rt.reset();
    io.restart();
    io.poll();
    fs::remove_all(state);
  }
  auto worst = [](const std::vector<Phase>& v, auto field) {
    double m = 0;
    for (const Phase& p : v) m = std::max(m, p.*field);
    return m;
  };
  std::printf(
      "worst of %d rounds: result+signature: call %.2f ms, longest loop handler %.2f ms; new game+rotation: "
      "call %.2f ms, longest loop handler %.2f ms; arbiter's correction: call %.2f ms, longest loop handler "
      "%.2f ms; arbiter's result on the current game: call %.2f ms, longest loop handler %.2f ms\n",
      rounds, worst(sign_phases, &Phase::call_ms), worst(sign_phases, &Phase::longest_handler_ms),
      worst(rotate_phases, &Phase::call_ms), worst(rotate_phases, &Phase::longest_handler_ms),
      worst(correct_phases, &Phase::call_ms), worst(correct_phases, &Phase::longest_handler_ms),
      worst(current_phases, &Phase::call_ms), worst(current_phases, &Phase::longest_handler_ms));
  disk_load.reset();
  fs::remove_all(dir);
  return 0;
}
