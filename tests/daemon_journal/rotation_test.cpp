// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Journal rotation (journal/rotation.hpp): a new game keeps the finished game's file intact and begins a
// compact one, so a restart replays the current game only and capture.cap exports it; a crash at each
// step of the rotation loses nothing and begins no game twice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/records.hpp"
#include "daemon/journal/rotation.hpp"
#include "manual_source.hpp"

using namespace eboard;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t T0 = 1'700'000'000'000;  // 2023-11-14 22:13:20 UTC

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / ("eboard-rotation-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// A board runtime in a state directory fed by a ManualSource, its clock set by the test.
struct Board {
  boost::asio::io_context io;
  std::int64_t now = T0;
  std::vector<std::string> published;
  std::unique_ptr<eboardd::BoardRuntime> rt;
  test_support::ManualSource* source = nullptr;

  explicit Board(const fs::path& dir, std::int64_t t = T0) : now(t) {
    eboardd::RuntimeOptions o;
    o.state_dir = dir;
    o.sync_in_background = false;  // publish before events() returns
    o.clock = [this] { return now; };
    rt = std::make_unique<eboardd::BoardRuntime>(
        io, "A", o, [this](const rules::Event&, const std::string& line) { published.push_back(line); });
    auto ok = rt->open();
    EXPECT_TRUE(ok) << (ok ? "" : ok.error());
    auto s = std::make_unique<test_support::ManualSource>(*rt, std::move(rt->recovery().machine));
    source = s.get();
    rt->attach(std::move(s));
  }
  // A short game from `t0`, its raw bytes journaled as a serial board's would be.
  void play(std::int64_t t0, std::uint64_t seed, std::uint8_t marker) {
    const sim::Timeline tl = test_support::short_game(t0, seed, 6);
    for (const auto& e : tl.events) {
      now = std::max(now, e.t_ms);
      rt->wire(e.t_ms, drivers::Direction::FromBoard, std::vector<std::uint8_t>{marker, 0x01});
      source->feed(e);
    }
    now = tl.end_ms + 5000;
    source->advance(now);
  }
};

fs::path current(const fs::path& dir) { return dir / "journal" / "A.journal"; }

std::vector<char> record_types(const fs::path& p) {
  auto scan = journal::scan_journal(p);
  EXPECT_TRUE(scan) << scan.error();
  std::vector<char> out;
  if (scan)
    for (const auto& r : scan->records) out.push_back(r.type);
  return out;
}

std::size_t count(const std::vector<char>& v, char c) {
  return std::size_t(std::count(v.begin(), v.end(), c));
}

// Every record of the raw bytes of a capture carries this first byte.
bool all_records_start_with(const std::string& cap_text, std::uint8_t marker, std::size_t* n) {
  auto cap = drivers::parse_capture(cap_text);
  EXPECT_TRUE(cap) << cap.error();
  if (!cap) return false;
  *n = cap->records.size();
  return std::all_of(cap->records.begin(), cap->records.end(),
                     [&](const auto& r) { return !r.bytes.empty() && r.bytes[0] == marker; });
}

}  // namespace

TEST(Rotation, NewGameKeepsTheFinishedFileAndRestartReplaysTheCurrentGameOnly) {
  TempDir dir("keep");
  std::vector<std::string> game1_moves;
  std::size_t game1_records = 0;
  {
    Board b(dir.path);
    ASSERT_TRUE(b.rt->update_tags({{"Event", "Club"}, {"White", "Anna"}}));
    b.play(T0 + 1000, 3, 0xA1);
    game1_moves = test_support::move_ucis(b.rt->game());
    ASSERT_EQ(game1_moves.size(), 6u);
    game1_records = journal::scan_journal(current(dir.path))->records.size();
    b.now += 60000;
    auto n = b.rt->new_game();
    ASSERT_TRUE(n) << n.error();
    EXPECT_EQ(*n, 2);
    EXPECT_EQ(b.rt->status()["journal"]["rotations"], 1);
    EXPECT_EQ(b.rt->status()["journal"]["kept_files"], 1);
    // The new file: a header carrying game 1 and the tags that outlive it, the new-game record.
    EXPECT_EQ(record_types(current(dir.path)), (std::vector<char>{'H', 'N'}));
    EXPECT_FALSE(fs::exists(journal::next_path(current(dir.path))));
    b.play(b.now + 1000, 5, 0xB2);
    EXPECT_EQ(test_support::move_ucis(b.rt->game()).size(), 6u);
  }
  // Game 1 is kept whole, under its number and start time.
  auto kept = journal::kept_journals(current(dir.path));
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].game, 1);
  EXPECT_EQ(kept[0].path.filename().string().substr(0, 6), "000001");
  EXPECT_NE(kept[0].path.filename().string().find("20231114-2213"), std::string::npos) << kept[0].path;
  auto kept_scan = journal::scan_journal(kept[0].path);
  ASSERT_TRUE(kept_scan) << kept_scan.error();
  EXPECT_TRUE(kept_scan->problem.empty()) << kept_scan->problem;
  EXPECT_EQ(kept_scan->records.size(), game1_records);
  auto kept_recovery = journal::recover(*kept_scan, "A");
  EXPECT_TRUE(kept_recovery.exact());
  EXPECT_EQ(test_support::move_ucis(kept_recovery.machine.game()), game1_moves);

  // A restart replays game 2 only, and goes on numbering and with the board's tags.
  Board b(dir.path, T0 + 500000);
  EXPECT_EQ(b.rt->ledger().game_number(), 2);
  EXPECT_EQ(b.rt->game().ply_count(), 6);
  const journal::Recovery& r = b.rt->recovery();
  EXPECT_TRUE(r.exact()) << (r.mismatches.empty() ? "" : r.mismatches[0]);
  const nlohmann::json summary = b.rt->status()["journal"]["recovery"];
  std::printf("restart after one kept game: %d records replayed (game 1 alone had %zu)\n",
              summary["records"].get<int>(), game1_records);
  EXPECT_EQ(summary["records"].get<std::size_t>(), journal::scan_journal(current(dir.path))->records.size());
  EXPECT_EQ(r.sensor_records, count(record_types(current(dir.path)), 'S'));
  EXPECT_NE(b.rt->pgn().find("[Event \"Club\"]"), std::string::npos);
  // The players stay with the board (the next game on it is theirs too), through the rotated file's header.
  EXPECT_NE(b.rt->pgn().find("[White \"Anna\"]"), std::string::npos);
  EXPECT_EQ(b.rt->status()["journal"]["kept_files"], 1);

  // capture.cap: the current game's bytes; ?game=1 the kept game's; no other game.
  std::size_t n2 = 0, n1 = 0;
  auto now_cap = b.rt->capture();
  ASSERT_TRUE(now_cap) << now_cap.error();
  EXPECT_TRUE(all_records_start_with(*now_cap, 0xB2, &n2));
  EXPECT_GT(n2, 10u);
  auto first_cap = b.rt->capture(1);
  ASSERT_TRUE(first_cap) << first_cap.error();
  EXPECT_TRUE(all_records_start_with(*first_cap, 0xA1, &n1));
  EXPECT_GT(n1, 10u);
  EXPECT_EQ(b.rt->capture(2).value_or(""), *now_cap);
  EXPECT_FALSE(b.rt->capture(3));

  // A third game: a second kept file, numbers in order.
  ASSERT_EQ(b.rt->new_game().value_or(0), 3);
  kept = journal::kept_journals(current(dir.path));
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].game, 2);
}

// kill -9 at each step of a rotation (the steps done by hand up to the crash): the board comes back with
// game 1 whole and not yet ended (before the commit), or in game 2 with game 1 kept (after it); never
// both, never neither.
TEST(Rotation, CrashAtEveryStepLosesNothingAndBeginsNoGameTwice) {
  enum Step { next_torn, next_written, old_kept, next_renamed };
  for (Step step : {next_torn, next_written, old_kept, next_renamed}) {
    SCOPED_TRACE("crash after step " + std::to_string(int(step)));
    TempDir dir("crash-" + std::to_string(int(step)));
    std::vector<std::string> moves;
    std::size_t game1_records = 0;
    {
      Board b(dir.path);
      b.play(T0 + 1000, 9, 0xA1);
      moves = test_support::move_ucis(b.rt->game());
      b.now += 60000;
      journal::NewGameEntry g{b.now, "fide-standard", false, ""};
      auto r = b.rt->prepare_rotation(journal::encode_body(g)).rotation;
      ASSERT_TRUE(r.has_value());
      game1_records = journal::scan_journal(r->current)->records.size();
      if (step == next_torn) fs::resize_file(r->next, fs::file_size(r->next) - 3);
      if (step >= old_kept) {
        fs::create_directories(r->kept.parent_path());
        fs::rename(r->current, r->kept);
      }
      if (step >= next_renamed) fs::rename(r->next, r->current);
      b.rt.reset();  // what the process leaves: every record was written at once
    }
    Board b(dir.path, T0 + 900000);
    const auto kept = journal::kept_journals(current(dir.path));
    EXPECT_FALSE(fs::exists(journal::next_path(current(dir.path))));
    if (step <= next_written) {
      EXPECT_EQ(b.rt->ledger().game_number(), 1);
      EXPECT_EQ(test_support::move_ucis(b.rt->game()), moves);
      EXPECT_TRUE(kept.empty());
      EXPECT_EQ(count(record_types(current(dir.path)), 'N'), 1u);
    } else {
      EXPECT_EQ(b.rt->ledger().game_number(), 2);
      EXPECT_EQ(b.rt->game().ply_count(), 0);
      ASSERT_EQ(kept.size(), 1u);
      EXPECT_EQ(kept[0].game, 1);
      auto scan = journal::scan_journal(kept[0].path);
      ASSERT_TRUE(scan);
      EXPECT_EQ(scan->records.size(), game1_records);
      EXPECT_EQ(test_support::move_ucis(journal::recover(*scan, "A").machine.game()), moves);
      EXPECT_EQ(record_types(current(dir.path)), (std::vector<char>{'H', 'N'}));
    }
    EXPECT_TRUE(b.rt->recovery().exact());
    // The board goes on: its next new game rotates again, numbered after what survived.
    auto n = b.rt->new_game();
    ASSERT_TRUE(n) << n.error();
    EXPECT_EQ(*n, step <= next_written ? 2 : 3);
  }
}
