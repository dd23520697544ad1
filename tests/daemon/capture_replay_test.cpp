// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The two real DGT captures (arnsholt/dgtdriver, in ../shared) replay to exactly their recorded moves.
// The corpus stays outside the repository: the .inbytes logs are imported into captures at test time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/core/event_json.hpp"
#include "daemon/session/replay.hpp"
#include "rules/pgn.hpp"

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

session::ReplayResult replay(const char* name) {
  auto capture = drivers::import_dgt_inbytes(slurp(DGT_DIR / (std::string(name) + ".inbytes")));
  EXPECT_TRUE(capture) << (capture ? "" : capture.error());
  auto result = session::replay_capture(*capture, rules::ReconstructConfig{});
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

// FIDE A.4.2: an illegal move that stood is a move event with the added field "illegal"; no other move
// event carries it (CONTRACTS §3: fields are added, never changed).
TEST(StoodIllegalMove, MoveEventSaysIllegalOnlyWhenItIs) {
  rules::MoveEvent stood{1, "b1b3", "Nb1-b3", {}, true};
  auto j = daemon::to_json(rules::Event{5, "A", stood});
  EXPECT_EQ(j.at("type"), "move");
  EXPECT_EQ(j.at("uci"), "b1b3");
  EXPECT_EQ(j.at("illegal"), true);
  rules::MoveEvent legal{2, "e7e5", "e5", {}};
  EXPECT_FALSE(daemon::to_json(rules::Event{6, "A", legal}).contains("illegal"));
}

// CONTRACTS §3 `link`: t, board, type, state online/offline and the reason, nothing else; a reason with
// quotes and control characters stays one valid JSON line.
TEST(LinkEvent, CarriesTheContractFieldsOnOneLine) {
  auto off =
      daemon::to_json(daemon::LinkEvent{1700000000123, "A", false, "device removed: Input/output error"});
  EXPECT_EQ(off, nlohmann::json::parse(R"({"t":1700000000123,"board":"A","type":"link","state":"offline",)"
                                       R"("reason":"device removed: Input/output error"})"));
  auto on = daemon::to_json(daemon::LinkEvent{1700000004000, "12", true, "connected on /dev/ttyUSB0"});
  EXPECT_EQ(on.at("state"), "online");
  EXPECT_EQ(on.at("board"), "12");
  const std::string odd = "read error: \"x\"\n\ttab";
  const std::string line = daemon::to_json_line(daemon::LinkEvent{7, "B", false, odd});
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto back = nlohmann::json::parse(line);
  EXPECT_EQ(back.at("reason"), odd);
  EXPECT_EQ(back.at("type"), "link");
}

// The board's PGN (/games.pgn) after such a move: SetUp/FEN from the position it left, still readable.
TEST(StoodIllegalMove, GamePgnStartsFromThePositionItLeft) {
  rules::Game g(rules::Position::start());
  rules::Position before = g.position();
  auto after = before.after_illegal_move(rules::parse_square("b1"), rules::parse_square("b3"));
  ASSERT_TRUE(after);
  g.play_illegal(rules::Move::make(rules::parse_square("b1"), rules::parse_square("b3")), *after,
                 rules::ClockTimes{290000, 300000});
  g.play(*rules::parse_uci(g.position(), "e7e5"), rules::ClockTimes{290000, 295000});
  auto text = rules::write_pgn(daemon::game_record(g, "A"));
  ASSERT_TRUE(text) << text.error();
  EXPECT_NE(text->find("[Board \"A\"]"), std::string::npos) << *text;
  EXPECT_NE(text->find("[FEN \"" + after->fen() + "\"]"), std::string::npos) << *text;
  EXPECT_NE(text->find("Nb1-b3 (illegal move that stood, FIDE A.4.2)"), std::string::npos) << *text;
  EXPECT_NE(text->find("1... e5 {[%clk 0:04:55]}"), std::string::npos) << *text;
  auto games = rules::read_pgn(*text);
  ASSERT_TRUE(games) << games.error();
  auto replayed = rules::replay((*games)[0]);
  ASSERT_TRUE(replayed) << replayed.error();
  EXPECT_EQ(rules::final_position(*replayed).fen(), g.position().fen());
}

// A press without a move that stood (A.4.2 with 7.5.3): the pass is the null move, and the board's PGN
// starts from the position it left, the other side to move, still readable.
TEST(StoodIllegalMove, PassThatStoodKeepsThePgnReadable) {
  rules::Game g(rules::Position::start());
  g.play(*rules::parse_uci(g.position(), "e2e4"), rules::ClockTimes{295000, 300000});
  rules::Position after = g.position();
  after.do_null_move();
  g.play_illegal(rules::Move::none(), after, rules::ClockTimes{295000, 298000});
  g.play(*rules::parse_uci(g.position(), "g1f3"), rules::ClockTimes{290000, 298000});
  auto text = rules::write_pgn(daemon::game_record(g, "A"));
  ASSERT_TRUE(text) << text.error();
  EXPECT_NE(text->find("-- (illegal move that stood, FIDE A.4.2)"), std::string::npos) << *text;
  auto games = rules::read_pgn(*text);
  ASSERT_TRUE(games) << games.error();
  auto replayed = rules::replay((*games)[0]);
  ASSERT_TRUE(replayed) << replayed.error();
  EXPECT_EQ(rules::final_position(*replayed).fen(), g.position().fen());
}

// FQE 23: the pause of a bughouse match is an event of its own, no alert, with the reason.
TEST(MatchPause, PausedAndResumedEvents) {
  auto paused = daemon::to_json(rules::Event{7, "B", rules::MatchPauseEvent{true, "both-clocks-stopped"}});
  EXPECT_EQ(paused.at("type"), "match-paused");
  EXPECT_EQ(paused.at("board"), "B");
  EXPECT_EQ(paused.at("reason"), "both-clocks-stopped");
  EXPECT_FALSE(paused.contains("code"));
  auto resumed = daemon::to_json(rules::Event{9, "A", rules::MatchPauseEvent{false, "clock-running"}});
  EXPECT_EQ(resumed.at("type"), "match-resumed");
  EXPECT_EQ(resumed.at("reason"), "clock-running");
}
