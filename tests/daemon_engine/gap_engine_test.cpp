// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The engine ranker of missed gaps (daemon/engine, daemon/eboardd/gap_judge, issue 30), against the real
// engine (Debian's Stockfish) where it is installed, and against stand-ins that fail as engines do: missing,
// killed mid-gap, hung. Every failure gives no order (the caller keeps the rules' order), and no engine
// process outlives it: each is reaped, none is left a zombie.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/eboardd/gap_judge.hpp"
#include "daemon/engine/gap_engine_ranker.hpp"
#include "daemon/engine/uci_process.hpp"
#include "rules/gap_rank.hpp"
#include "rules/gap_search.hpp"
#include "rules/notation.hpp"

using namespace eboard;
using namespace eboard::rules;

namespace {

const char* kStockfish = "/usr/games/stockfish";
bool have_stockfish() { return access(kStockfish, X_OK) == 0; }

// The processes whose parent is this one (zombies included), from /proc.
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) == 2 && ppid == getpid())
      out.push_back(pid_t(std::stol(name)));
  }
  return out;
}

bool reaped(pid_t pid) { return waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD; }

// A stand-in that speaks UCI's handshake and then never answers a search (a hung engine).
std::filesystem::path hung_engine() {
  const auto path = std::filesystem::temp_directory_path() / ("hung_engine_" + std::to_string(getpid()));
  std::ofstream(path) << "#!/bin/sh\n"
                         "while read line; do\n"
                         "  case \"$line\" in\n"
                         "    uci) echo uciok ;;\n"
                         "    isready) echo readyok ;;\n"
                         "    quit) exit 0 ;;\n"
                         "  esac\n"
                         "done\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

struct GapCase {
  Position from;
  std::vector<std::vector<Move>> candidates;
};

// A 4-ply gap from the start: 1.e4 e5 2.Nf3 Nc6, which other orders reach too.
GapCase opening_gap() {
  GapCase g{Position::start(), {}};
  Position end = g.from;
  for (const char* m : {"e2e4", "e7e5", "g1f3", "b8c6"}) end.do_move(*parse_uci(end, m));
  GapQuery q;
  q.from = g.from;
  q.board = end.board();
  q.max_plies = 4;
  g.candidates = search_gap(q).sequences;
  return g;
}

std::vector<Move> line(const Position& from, std::initializer_list<const char*> uci) {
  Position p = from;
  std::vector<Move> out;
  for (const char* m : uci) {
    out.push_back(*parse_uci(p, m));
    p.do_move(out.back());
  }
  return out;
}

// SIGPIPE is left as it is (it would end this test): a dead engine's pipe must be an error value.
class GapEngine : public ::testing::Test {};

TEST(UciInfoScore, ReadsCentipawnsAndMates) {
  EXPECT_EQ(engine::uci_info_score("info depth 5 seldepth 6 multipv 1 score cp 34 nodes 1000 pv e2e4"), 34);
  EXPECT_EQ(engine::uci_info_score("info depth 9 score cp -125 lowerbound nodes 900"), -125);
  EXPECT_EQ(engine::uci_info_score("info depth 3 score mate 2 pv d1h5"), 1000);
  EXPECT_EQ(engine::uci_info_score("info depth 0 score mate 0"), -1000);
  EXPECT_EQ(engine::uci_info_score("info depth 3 score mate -1 pv g2g3"), -1000);
  EXPECT_EQ(engine::uci_info_score("info depth 3 score cp 99999999"), 1000);
  EXPECT_FALSE(engine::uci_info_score("info string NNUE evaluation using nn-ad9b42354671.nnue enabled"));
  EXPECT_FALSE(engine::uci_info_score("info depth 3 score cp"));
  EXPECT_FALSE(engine::uci_info_score("info depth 3 score cp 12x"));
  EXPECT_FALSE(engine::uci_info_score("info depth 3 score wdl 300 400 300"));
  EXPECT_FALSE(engine::uci_info_score("bestmove e2e4 ponder e7e5"));
}

TEST_F(GapEngine, MissingEngineGivesNoOrder) {
  engine::GapEngineRanker ranker({"/nonexistent/stockfish"});
  const GapCase g = opening_gap();
  ASSERT_GE(g.candidates.size(), 2u);
  auto order = ranker.rank(g.from, g.candidates);
  ASSERT_FALSE(order);
  EXPECT_NE(order.error().find("/nonexistent/stockfish"), std::string::npos) << order.error();
  EXPECT_EQ(ranker.engine_pid(), -1);
  EXPECT_TRUE(children().empty());
}

TEST_F(GapEngine, StockfishJudgesTheHeadAndKeepsTheTail) {
  if (!have_stockfish()) GTEST_SKIP() << kStockfish << " is not installed";
  const GapCase g = opening_gap();
  ASSERT_GE(g.candidates.size(), 3u);
  engine::GapEngineSettings s{kStockfish};
  s.top = 2;  // the first two reordered, the rest as the rules put them
  engine::GapEngineRanker ranker(s);
  const auto pure = rank_gap_candidates(g.from, g.candidates);
  auto order = ranker.rank(g.from, g.candidates);
  ASSERT_TRUE(order) << order.error();
  auto sorted = *order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> all(g.candidates.size());
  std::iota(all.begin(), all.end(), std::size_t(0));
  EXPECT_EQ(sorted, all);  // a permutation
  EXPECT_TRUE(std::equal(order->begin() + 2, order->end(), pure.begin() + 2));
  EXPECT_TRUE(std::is_permutation(order->begin(), order->begin() + 2, pure.begin()));

  // The engine's costs: 1.Nf3 e5?! leaves the pawn to the knight, 1.e4 e5 2.Nf3 Nc6 loses nothing.
  const auto main_line = line(g.from, {"e2e4", "e7e5", "g1f3", "b8c6"});
  const auto hanging = line(g.from, {"g1f3", "e7e5", "e2e4", "b8c6"});
  auto costs = ranker.engine_costs(g.from, {main_line, hanging},
                                   std::chrono::steady_clock::now() + std::chrono::seconds(20));
  ASSERT_TRUE(costs) << costs.error();
  EXPECT_LT((*costs)[0], (*costs)[1]);
  EXPECT_GT((*costs)[1], 0.5);
  const pid_t pid = ranker.engine_pid();
  ASSERT_GT(pid, 0);
  ranker.stop();
  EXPECT_TRUE(reaped(pid));
}

TEST_F(GapEngine, Chess960IsJudgedToo) {
  if (!have_stockfish()) GTEST_SKIP() << kStockfish << " is not installed";
  auto from =
      Position::from_fen("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1", Variant::Chess, true);
  ASSERT_TRUE(from) << from.error();
  Position end = *from;
  for (const char* m : {"e2e4", "e7e5", "c1d3", "c8d6"}) {
    auto mv = parse_uci(end, m);
    ASSERT_TRUE(mv) << m;
    end.do_move(*mv);
  }
  GapQuery q;
  q.from = *from;
  q.board = end.board();
  q.max_plies = 4;
  const auto found = search_gap(q);
  ASSERT_GE(found.sequences.size(), 2u);
  engine::GapEngineRanker ranker({kStockfish});
  auto order = ranker.rank(*from, found.sequences);
  ASSERT_TRUE(order) << order.error();
  EXPECT_EQ(order->size(), found.sequences.size());
}

TEST_F(GapEngine, KilledEngineGivesNoOrderIsReapedAndRestarts) {
  if (!have_stockfish()) GTEST_SKIP() << kStockfish << " is not installed";
  const GapCase g = opening_gap();
  engine::GapEngineRanker ranker({kStockfish});
  ASSERT_TRUE(ranker.rank(g.from, g.candidates));
  const pid_t first = ranker.engine_pid();
  ASSERT_GT(first, 0);
  ASSERT_EQ(kill(first, SIGKILL), 0);
  auto order = ranker.rank(g.from, g.candidates);
  EXPECT_FALSE(order);
  EXPECT_EQ(ranker.engine_pid(), -1);
  EXPECT_TRUE(reaped(first));
  // The next gap starts the engine again.
  auto again = ranker.rank(g.from, g.candidates);
  ASSERT_TRUE(again) << again.error();
  EXPECT_GT(ranker.engine_pid(), 0);
  EXPECT_NE(ranker.engine_pid(), first);
}

TEST_F(GapEngine, HungEngineTimesOutAndIsKilled) {
  const auto path = hung_engine();
  engine::GapEngineSettings s{path.string()};
  s.timeout_ms = 300;
  engine::GapEngineRanker ranker(s);
  const GapCase g = opening_gap();
  auto order = ranker.rank(g.from, g.candidates);
  std::filesystem::remove(path);
  ASSERT_FALSE(order);
  EXPECT_NE(order.error().find("no answer in time"), std::string::npos) << order.error();
  EXPECT_EQ(ranker.engine_pid(), -1);
  EXPECT_TRUE(children().empty());
}

// The engine keeps none of the daemon's descriptors (a state directory's lock held by an orphaned engine
// would keep a restarted daemon out).
TEST_F(GapEngine, TheEngineInheritsNoDescriptor) {
  const auto held = std::filesystem::temp_directory_path() / ("held_" + std::to_string(getpid()));
  const int fd = ::open(held.c_str(), O_CREAT | O_RDWR, 0600);  // not close-on-exec, as a careless caller's
  ASSERT_GE(fd, 0);
  const auto path = hung_engine();
  engine::UciProcess engine;
  ASSERT_TRUE(engine.start(path.string(), std::chrono::steady_clock::now() + std::chrono::seconds(20)));
  std::vector<std::string> open_files;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(engine.pid()) + "/fd")) {
    std::error_code ec;
    open_files.push_back(std::filesystem::read_symlink(e.path(), ec).string());
  }
  const pid_t pid = engine.pid();
  engine.stop();
  ::close(fd);
  std::filesystem::remove(held);
  std::filesystem::remove(path);
  EXPECT_FALSE(open_files.empty());
  EXPECT_EQ(std::count(open_files.begin(), open_files.end(), held.string()), 0);
  EXPECT_TRUE(reaped(pid));
}

// The daemon's side: the answer comes to the loop; a missing engine gives none; stop() ends a gap being
// ranked by a hung engine at once and leaves no child process behind.
TEST_F(GapEngine, JudgeAnswersOnTheLoopAndFallsBack) {
  boost::asio::io_context io;
  const GapCase g = opening_gap();
  auto ask = [&](eboardd::GapJudge& judge) {
    std::optional<std::optional<std::vector<std::size_t>>> answer;
    judge.submit({"A", 1, g.from, g.candidates, {}},
                 [&](std::optional<std::vector<std::size_t>> o) { answer = o; });
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!answer && std::chrono::steady_clock::now() < until) {
      io.run_for(std::chrono::milliseconds(20));
      io.restart();
    }
    return answer;
  };
  {
    eboardd::GapJudge missing(io, {"/nonexistent/stockfish"});
    auto answer = ask(missing);
    ASSERT_TRUE(answer);
    EXPECT_FALSE(*answer);  // no order: the rules' stands
  }
  if (have_stockfish()) {
    eboardd::GapJudge judge(io, {kStockfish});
    auto answer = ask(judge);
    ASSERT_TRUE(answer);
    ASSERT_TRUE(*answer);
    EXPECT_EQ((*answer)->size(), g.candidates.size());
    const pid_t pid = judge.engine_pid();
    EXPECT_GT(pid, 0);
    judge.stop();
    EXPECT_TRUE(reaped(pid));
  }
  EXPECT_TRUE(children().empty());
}

TEST_F(GapEngine, JudgeStopEndsAHungEngine) {
  boost::asio::io_context io;
  const auto path = hung_engine();
  engine::GapEngineSettings s{path.string()};
  s.timeout_ms = 600'000;
  eboardd::GapJudge judge(io, s);
  const GapCase g = opening_gap();
  bool answered = false;
  judge.submit({"A", 1, g.from, g.candidates, {}}, [&](auto) { answered = true; });
  // Wait for the stand-in to be running (a child of this process).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (children().empty() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_FALSE(children().empty());
  const auto t0 = std::chrono::steady_clock::now();
  judge.stop();
  const auto took = std::chrono::steady_clock::now() - t0;
  std::filesystem::remove(path);
  EXPECT_LT(took, std::chrono::seconds(10));  // not the engine's timeout: cancelled
  EXPECT_TRUE(children().empty());
  io.poll();
  EXPECT_FALSE(answered);
}

}  // namespace
