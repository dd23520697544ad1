// The two real DGT captures (arnsholt/dgtdriver, in ../shared) replay to exactly their recorded moves.
// The corpus stays outside the repository: the .inbytes logs are imported into captures at test time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/core/replay.hpp"

using namespace eboard;

namespace {

const std::filesystem::path DGT_DIR = std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "dgt";

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Move tokens of a .uci or movetext .pgn file: everything but move numbers and results.
std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    if (w.back() == '.' || w == "*" || w == "1-0" || w == "0-1" || w == "1/2-1/2") continue;
    out.push_back(w);
  }
  return out;
}

daemon::ReplayResult replay(const char* name) {
  auto capture = drivers::import_dgt_inbytes(slurp(DGT_DIR / (std::string(name) + ".inbytes")));
  EXPECT_TRUE(capture) << (capture ? "" : capture.error());
  auto result = daemon::replay_capture(*capture, rules::ReconstructConfig{});
  EXPECT_TRUE(result);
  return *result;
}

struct Summary {
  std::vector<std::string> uci, san, alerts;
  std::vector<rules::ResultEvent> results;
};

Summary summarize(const std::vector<rules::Event>& events) {
  Summary s;
  for (const auto& e : events) {
    if (auto* m = std::get_if<rules::MoveEvent>(&e.what)) {
      s.uci.push_back(m->uci);
      s.san.push_back(m->san);
    } else if (auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
      s.alerts.push_back(a->code);
    } else if (auto* r = std::get_if<rules::ResultEvent>(&e.what)) {
      s.results.push_back(*r);
    }
  }
  return s;
}

}  // namespace

TEST(CaptureReplay, ArnsholtGameOneReplaysToItsMoves) {
  if (!std::filesystem::exists(DGT_DIR)) GTEST_SKIP() << "../shared is absent";
  Summary s = summarize(replay("arnsholt-dgtdriver_1").events);
  EXPECT_EQ(s.uci, tokens(slurp(DGT_DIR / "arnsholt-dgtdriver_1.uci")));
  EXPECT_TRUE(s.alerts.empty()) << s.alerts.front();
}

TEST(CaptureReplay, JohanReplaysToItsMovesAndEndsOneNil) {
  if (!std::filesystem::exists(DGT_DIR)) GTEST_SKIP() << "../shared is absent";
  auto result = replay("arnsholt-dgtdriver_johan");
  Summary s = summarize(result.events);
  EXPECT_EQ(s.san, tokens(slurp(DGT_DIR / "arnsholt-dgtdriver_johan.pgn")));
  EXPECT_TRUE(s.alerts.empty());
  // Black's flag falls, then both kings go to the central light squares (the DGT 1-0 gesture): the
  // game ends 1-0 and the king placement is not taken for a move.
  ASSERT_EQ(s.results.size(), 1u);
  EXPECT_EQ(s.results[0].result, rules::Result::WhiteWins);
  EXPECT_EQ(result.game.ply_count(), int(s.san.size()));
}

TEST(CaptureReplay, MovesCarryClockTimes) {
  if (!std::filesystem::exists(DGT_DIR)) GTEST_SKIP() << "../shared is absent";
  for (const auto& e : replay("arnsholt-dgtdriver_1").events)
    if (auto* m = std::get_if<rules::MoveEvent>(&e.what)) {
      EXPECT_TRUE(m->clock.known()) << m->uci;
      EXPECT_GT(m->clock.white_ms, 0);
    }
}

TEST(CaptureReplay, SameInputSameOutput) {
  if (!std::filesystem::exists(DGT_DIR)) GTEST_SKIP() << "../shared is absent";
  auto a = summarize(replay("arnsholt-dgtdriver_1").events);
  auto b = summarize(replay("arnsholt-dgtdriver_1").events);
  EXPECT_EQ(a.uci, b.uci);
}
