// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Every game of the shared corpora replays with legal moves, survives our writer and reads back the same;
// the bughouse matches replay on two linked boards and agree with their JSON Lines twin.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "rules/movegen.hpp"
#include "rules/pgn.hpp"

using namespace eboard::rules;
namespace fs = std::filesystem;

namespace {

fs::path corpora() { return fs::path(EBOARD_SHARED_DIR) / "corpora"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> files_in(const fs::path& dir, std::string_view extension) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == extension) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool same_moves(const GameRecord& a, const GameRecord& b, std::string& why) {
  if (a.moves.size() != b.moves.size()) {
    why = std::to_string(a.moves.size()) + " moves became " + std::to_string(b.moves.size());
    return false;
  }
  for (std::size_t i = 0; i < a.moves.size(); ++i) {
    const RecordedMove &x = a.moves[i], &y = b.moves[i];
    if (x.move != y.move || x.clock_ms != y.clock_ms || x.emt_ms != y.emt_ms || x.comment != y.comment ||
        x.nags != y.nags) {
      why = "ply " + std::to_string(i + 1) + " differs";
      return false;
    }
  }
  return a.result == b.result && a.start.fen() == b.start.fen() && a.intro_comment == b.intro_comment;
}

// The longest movetext line (tag lines may be as long as their values).
std::size_t longest_movetext_line(const std::string& text) {
  std::size_t longest = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.empty() || line.front() != '[') longest = std::max(longest, line.size());
  return longest;
}

// FEN without the halfmove clock: chess.com's bughouse FENs count it their own way (see the report).
std::string without_halfmove_clock(const std::string& fen) {
  std::istringstream fields(fen);
  std::string out, field;
  for (int i = 0; fields >> field; ++i)
    if (i != 4) out += (out.empty() ? "" : " ") + field;
  return out;
}

struct Totals {
  std::size_t games = 0, moves = 0, clocks = 0, drops = 0, castlings = 0, promotions = 0, checks = 0,
              mates = 0;
};

// The check marks the file wrote agree with the position: '+' or '#' exactly when the move gives check,
// '#' only when there is no legal reply.
void check_suffixes(const PgnGame& game, const GameRecord& record, Totals& t, const std::string& where) {
  Position pos = record.start;
  for (std::size_t i = 0; i < record.moves.size(); ++i) {
    Move m = record.moves[i].move;
    if (m.is_drop()) ++t.drops;
    if (m.kind() == Move::CASTLING) ++t.castlings;
    if (m.is_promotion()) ++t.promotions;
    if (record.moves[i].clock_ms) ++t.clocks;
    if (m.is_none())
      pos.do_null_move();
    else
      pos.do_move(m);
    const std::string& san = game.moves[i].san;
    bool marked_check = san.find_first_of("+#") != std::string::npos;
    bool marked_mate = san.find('#') != std::string::npos;
    t.checks += pos.in_check();
    t.mates += marked_mate;
    EXPECT_EQ(marked_check, pos.in_check()) << where << " ply " << i + 1 << " " << san;
    if (marked_mate) {
      EXPECT_TRUE(MoveList(pos).empty()) << where << " ply " << i + 1 << " " << san;
    }
  }
}

void replay_folder(const fs::path& dir, Totals& t) {
  for (const fs::path& file : files_in(dir, ".pgn")) {
    auto games = read_pgn(slurp(file));
    EXPECT_TRUE(games) << file << ": " << games.error();
    if (!games) continue;
    for (const PgnGame& game : *games) {
      std::string where = file.filename().string() + " game " + std::to_string(game.index);
      auto record = replay(game);
      EXPECT_TRUE(record) << file << ": " << record.error();
      if (!record) continue;
      EXPECT_TRUE(game.terminated) << where;
      if (auto plies = game.tag("PlyCount")) {
        EXPECT_EQ(std::string(*plies), std::to_string(record->moves.size())) << where;
      }
      if (auto result = game.tag("Result")) {
        EXPECT_EQ(*result, game.result) << where;
      }
      check_suffixes(game, *record, t, where);
      ++t.games;
      t.moves += record->moves.size();

      // Our writer, read back: the same moves, clocks, comments; and writing again gives the same text.
      auto written = write_pgn(*record);
      ASSERT_TRUE(written) << where << ": " << written.error();
      EXPECT_LE(longest_movetext_line(*written), 80u) << where;
      auto reread = read_pgn(*written);
      ASSERT_TRUE(reread) << where << ": " << reread.error() << "\n" << *written;
      ASSERT_EQ(reread->size(), 1u) << where;
      auto again = replay(reread->front());
      ASSERT_TRUE(again) << where << ": " << again.error() << "\n" << *written;
      std::string why;
      EXPECT_TRUE(same_moves(*record, *again, why)) << where << ": " << why;
      for (const PgnTag& tag : game.tags) {
        if (tag.name == "Variant" || tag.name == "SetUp" || tag.name == "FEN") continue;  // normalised
        EXPECT_EQ(find_tag(again->tags, tag.name), std::string_view(tag.value))
            << where << " tag " << tag.name;
      }
      auto rewritten = write_pgn(*again);
      ASSERT_TRUE(rewritten);
      EXPECT_EQ(*rewritten, *written) << where;
      if (::testing::Test::HasFailure()) return;
    }
  }
}

void print(const char* what, const Totals& t) {
  std::printf(
      "[ corpus ] %-11s %4zu games, %6zu moves (%zu with clock, %zu drops, %zu castlings, %zu promotions, "
      "%zu checks, %zu mates)\n",
      what, t.games, t.moves, t.clocks, t.drops, t.castlings, t.promotions, t.checks, t.mates);
}

}  // namespace

TEST(CorpusReplay, Standard) {
  if (!fs::exists(corpora() / "pgn/standard")) GTEST_SKIP() << "no corpora";
  Totals t;
  replay_folder(corpora() / "pgn/standard", t);
  print("standard", t);
  EXPECT_EQ(t.games, 438u);
  EXPECT_GT(t.clocks, 0u);
}

TEST(CorpusReplay, Chess960) {
  if (!fs::exists(corpora() / "pgn/chess960")) GTEST_SKIP() << "no corpora";
  Totals t;
  replay_folder(corpora() / "pgn/chess960", t);
  print("chess960", t);
  EXPECT_EQ(t.games, 50u);
}

TEST(CorpusReplay, Crazyhouse) {
  if (!fs::exists(corpora() / "pgn/crazyhouse")) GTEST_SKIP() << "no corpora";
  Totals t;
  replay_folder(corpora() / "pgn/crazyhouse", t);
  print("crazyhouse", t);
  EXPECT_EQ(t.games, 103u);
  EXPECT_GT(t.drops, 1723u);  // the tournament file alone has 1,723 drops
}

namespace {

bool same_match(const BughouseRecord& a, const BughouseRecord& b, std::string& why) {
  if (a.moves.size() != b.moves.size()) {
    why = std::to_string(a.moves.size()) + " moves became " + std::to_string(b.moves.size());
    return false;
  }
  for (std::size_t i = 0; i < a.moves.size(); ++i) {
    const BughouseMove &x = a.moves[i], &y = b.moves[i];
    if (x.board != y.board || x.move != y.move || x.clock_ms != y.clock_ms || x.comment != y.comment) {
      why = "move " + std::to_string(i + 1) + " differs";
      return false;
    }
  }
  return a.result == b.result && a.intro_comment == b.intro_comment;
}

// The JSON Lines twin of the BPGN: one object per match, its moves with board, per-board ply, SAN, UCI and
// clock (tenths of a second), in the same real-time order.
void compare_with_json(const BpgnGame& game, const BughouseRecord& record, const nlohmann::json& j,
                       const std::string& where) {
  const auto& moves = j.at("moves");
  ASSERT_EQ(moves.size(), record.moves.size()) << where;
  EXPECT_EQ(game.tag("Result").value_or(""), j.at("result_team_WhiteA_BlackB").get<std::string>()) << where;
  EXPECT_EQ(game.tag("EndReasonA").value_or(""), j.at("end_reason_A").get<std::string>()) << where;
  EXPECT_EQ(game.tag("EndReasonB").value_or(""), j.at("end_reason_B").get<std::string>()) << where;
  std::array<Position, 2> boards = record.start;
  std::array<int, 2> plies{0, 0};
  long previous_elapsed = -1;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const auto& jm = moves[i];
    const BughouseMove& m = record.moves[i];
    std::string at = where + " move " + std::to_string(i + 1);
    EXPECT_EQ(jm.at("board").get<std::string>(), std::string(1, char('A' + m.board))) << at;
    EXPECT_EQ(jm.at("ply").get<int>(), plies[m.board]++) << at;
    EXPECT_EQ(jm.at("san").get<std::string>(), game.moves[i].san) << at;
    EXPECT_EQ(jm.at("uci").get<std::string>(), to_uci(boards[m.board], m.move)) << at;
    EXPECT_EQ(m.clock_ms, std::optional<std::int64_t>(jm.at("clock_ds").get<std::int64_t>() * 100)) << at;
    long elapsed = jm.at("elapsed_ds").get<long>();
    EXPECT_GE(elapsed, previous_elapsed) << at << ": moves not in real-time order";
    previous_elapsed = elapsed;
    play_bughouse_move(boards, m.board, m.move);
  }
  for (int b = 0; b < 2; ++b) {
    std::string key = b == 0 ? "final_fen_A" : "final_fen_B";
    EXPECT_EQ(without_halfmove_clock(boards[b].fen()), without_halfmove_clock(j.at(key).get<std::string>()))
        << where << " board " << char('A' + b);
    EXPECT_EQ(game.tag(b == 0 ? "FinalFENA" : "FinalFENB").value_or(""), j.at(key).get<std::string>())
        << where;
  }
  // A board the site ended by checkmate is in check at the end (mate itself depends on the partner).
  for (int b = 0; b < 2; ++b)
    if (j.at(b == 0 ? "is_checkmate_A" : "is_checkmate_B").get<bool>()) {
      EXPECT_TRUE(boards[b].in_check()) << where << " board " << char('A' + b);
    }
}

}  // namespace

TEST(CorpusReplay, BughouseMatches) {
  auto files = files_in(corpora() / "bughouse", ".bpgn");
  if (files.empty()) GTEST_SKIP() << "no corpora";
  std::size_t matches = 0, moves = 0, drops = 0, captures_sent = 0;
  std::array<std::size_t, 2> per_board{0, 0};
  for (const fs::path& file : files) {
    auto games = read_bpgn(slurp(file));
    ASSERT_TRUE(games) << file << ": " << games.error();
    std::vector<nlohmann::json> json;
    fs::path twin = fs::path(file).replace_extension(".jsonl");
    if (fs::exists(twin)) {
      std::istringstream lines(slurp(twin));
      for (std::string line; std::getline(lines, line);)
        if (!line.empty()) json.push_back(nlohmann::json::parse(line));
      EXPECT_EQ(json.size(), games->size()) << twin;
    }
    for (std::size_t g = 0; g < games->size(); ++g) {
      const BpgnGame& game = (*games)[g];
      std::string where = file.filename().string() + " match " + std::to_string(game.index);
      auto record = replay_bughouse(game);
      ASSERT_TRUE(record) << record.error();
      EXPECT_TRUE(game.terminated) << where;
      ++matches;
      moves += record->moves.size();
      std::array<Position, 2> boards = record->start;
      for (const BughouseMove& m : record->moves) {
        ++per_board[m.board];
        drops += m.move.is_drop();
        captures_sent += boards[m.board].is_capture(m.move);
        play_bughouse_move(boards, m.board, m.move);
      }
      if (g < json.size()) compare_with_json(game, *record, json[g], where);

      auto written = write_bpgn(*record);
      ASSERT_TRUE(written) << where << ": " << written.error();
      EXPECT_LE(longest_movetext_line(*written), 80u) << where;
      auto reread = read_bpgn(*written);
      ASSERT_TRUE(reread) << where << ": " << reread.error();
      ASSERT_EQ(reread->size(), 1u);
      auto again = replay_bughouse(reread->front());
      ASSERT_TRUE(again) << where << ": " << again.error() << "\n" << *written;
      std::string why;
      EXPECT_TRUE(same_match(*record, *again, why)) << where << ": " << why;
      for (const PgnTag& tag : game.tags)
        EXPECT_EQ(find_tag(again->tags, tag.name), std::string_view(tag.value))
            << where << " tag " << tag.name;
      auto rewritten = write_bpgn(*again);
      ASSERT_TRUE(rewritten);
      EXPECT_EQ(*rewritten, *written) << where;
    }
  }
  std::printf(
      "[ corpus ] bughouse    %4zu matches, %6zu moves (board A %zu, board B %zu; %zu drops, %zu captures "
      "sent to the partner)\n",
      matches, moves, per_board[0], per_board[1], drops, captures_sent);
  EXPECT_EQ(matches, 20u);
}
