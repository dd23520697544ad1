// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Durable writes off the event loop: the syncer threads (one fdatasync per file covers every request
// queued for it), the background PGN writer (latest content wins, one write per file at a time), and a
// board runtime that publishes a move only once its journal record is on disk, from its io_context, with
// exactly the events (and order) the synchronous runtime publishes.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <thread>

#include <boost/asio/io_context.hpp>

#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "daemon/eboardd/arbiter.hpp"
#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/eboardd/round.hpp"
#include "daemon/http/server.hpp"
#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/signing.hpp"
#include "daemon/journal/syncer.hpp"
#include "daemon/outputs/archive_guard.hpp"
#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/background_work.hpp"
#include "drivers/capture.hpp"
#include "manual_source.hpp"
#include "tests/daemon_journal/file_size_limit.hpp"

using namespace eboard;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t T0 = 1'700'000'000'000;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / ("eboard-durability-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int moves(const std::vector<std::string>& lines) {
  int n = 0;
  for (const auto& line : lines) n += line.find("\"type\":\"move\"") != std::string::npos;
  return n;
}

struct Board {
  boost::asio::io_context io;
  std::vector<std::string> published;
  // Called with each event line as it is published (after it is added to `published`), if set.
  std::function<void(const std::string&)> on_event;
  std::unique_ptr<eboardd::BoardRuntime> rt;
  test_support::ManualSource* source = nullptr;

  Board(const fs::path& dir, bool background, std::size_t queue_cap = 4u << 20,
        std::shared_ptr<const journal::SigningKey> key = nullptr) {
    eboardd::RuntimeOptions o;
    o.state_dir = dir;
    o.signing_key = std::move(key);
    o.journal_queue_cap = queue_cap;
    o.sync_in_background = background;
    o.clock = [] { return T0; };
    o.publish_link = [this](const std::string& line) { published.push_back(line); };
    rt = std::make_unique<eboardd::BoardRuntime>(io, "A", o,
                                                 [this](const rules::Event&, const std::string& line) {
                                                   published.push_back(line);
                                                   if (on_event) on_event(line);
                                                 });
    auto ok = rt->open();
    EXPECT_TRUE(ok) << (ok ? "" : ok.error());
    auto s = std::make_unique<test_support::ManualSource>(*rt, std::move(rt->recovery().machine));
    source = s.get();
    rt->attach(std::move(s));
  }
  // Runs the io_context until `n` events are published (or `limit` passes).
  // Runs the loop until `n` events are published or `limit` passed (generous: a loaded machine's fdatasync
  // can take seconds; a test that needs the events fails below when they never come).
  void run_until(std::size_t n, std::chrono::milliseconds limit = 15s) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (published.size() < n && std::chrono::steady_clock::now() < end) {
      io.restart();
      io.run_for(1ms);
    }
  }
};

using test_support::FileSizeLimit;

std::vector<std::string> bodies(const fs::path& journal, char type) {
  auto scan = journal::scan_journal(journal);
  EXPECT_TRUE(scan) << (scan ? "" : scan.error());
  std::vector<std::string> out;
  if (scan) {
    EXPECT_EQ(scan->problem, "");
    for (const auto& r : scan->records)
      if (r.type == type) out.push_back(r.body);
  }
  return out;
}

int count(const std::vector<std::string>& lines, const std::string& what) {
  int n = 0;
  for (const auto& line : lines) n += line.find(what) != std::string::npos;
  return n;
}

}  // namespace

// A write that fails half way (the file size limit, as a full disk) leaves the file as it was and loses
// no record: every record stays buffered, in order, and goes out with the first write that works.
TEST(JournalWriterFailure, KeepsEveryRecordInOrderUntilAWriteWorks) {
  TempDir dir("writer-full");
  const fs::path path = dir.path / "j";
  auto w = journal::JournalWriter::open(path);
  ASSERT_TRUE(w);
  ASSERT_TRUE(w->append('S', "before"));
  ASSERT_TRUE(w->sync());
  const std::uint64_t full = w->size() + 20;  // room for part of the next record, not all of it
  std::vector<std::string> want{"before"};
  {
    FileSizeLimit limit(full);
    for (int i = 0; i < 5; ++i) {
      const std::string body = "record " + std::to_string(i) + " that does not fit in the 20 bytes left";
      want.push_back(body);
      auto ok = i % 2 ? w->append('S', body) : (w->buffer('S', body), w->flush());
      ASSERT_FALSE(ok);
      EXPECT_NE(ok.error().find("File too large"), std::string::npos) << ok.error();
      EXPECT_EQ(fs::file_size(path), w->written());  // the short write was cut back
      EXPECT_EQ(w->buffered_records(), std::uint64_t(i + 1));
    }
    EXPECT_FALSE(w->sync());
    EXPECT_EQ(w->durable(), w->written());
    EXPECT_EQ(w->stats().write_errors, 6u);
  }
  ASSERT_TRUE(w->sync());
  EXPECT_EQ(w->buffered(), 0u);
  EXPECT_EQ(w->durable(), w->size());
  EXPECT_EQ(bodies(path, 'S'), want);
}

// After a failed fdatasync the written bytes cannot be trusted: the writer cuts the file back to what
// was durable and writes those records again, before the ones buffered since, once each.
TEST(JournalWriterFailure, RewindsToDurableAndWritesTheRecordsAgain) {
  TempDir dir("writer-rewind");
  const fs::path path = dir.path / "j";
  auto w = journal::JournalWriter::open(path);
  ASSERT_TRUE(w);
  ASSERT_TRUE(w->append('S', "durable"));
  ASSERT_TRUE(w->sync());
  const std::uint64_t durable = w->durable();
  ASSERT_TRUE(w->append('S', "written 1"));
  ASSERT_TRUE(w->append('S', "written 2"));
  ASSERT_TRUE(w->buffer('S', "buffered"));
  ASSERT_TRUE(w->rewind_to_durable());
  EXPECT_EQ(fs::file_size(path), durable);
  EXPECT_EQ(w->written(), durable);
  EXPECT_EQ(w->buffered_records(), 3u);
  ASSERT_TRUE(w->sync());
  EXPECT_EQ((bodies(path, 'S')), (std::vector<std::string>{"durable", "written 1", "written 2", "buffered"}));
  // Part of what was written durable: only the rest is written again.
  ASSERT_TRUE(w->append('S', "a"));
  ASSERT_TRUE(w->file()->sync_to(w->written()));
  ASSERT_TRUE(w->append('S', "b"));
  ASSERT_TRUE(w->rewind_to_durable());
  EXPECT_EQ(w->buffered_records(), 1u);
  ASSERT_TRUE(w->sync());
  EXPECT_EQ((bodies(path, 'S')),
            (std::vector<std::string>{"durable", "written 1", "written 2", "buffered", "a", "b"}));
}

// The runtime on a journal that cannot be written: the arbiter is alerted at once, /status says so,
// no move is published (nor shown in the snapshot or the PGN) until its record is on disk; when writes
// work again every held event is published, in order, once.
TEST(JournalWriterFailure, RuntimePublishesNothingUntilDurableThenEverythingInOrder) {
  const sim::Timeline tl = test_support::short_game(T0, 9, 12);
  TempDir ref_dir("full-ref");
  std::vector<std::string> want;
  {
    Board b(ref_dir.path, false);
    for (const auto& e : tl.events) b.source->feed(e);
    want = b.published;
  }
  ASSERT_EQ(moves(want), 12);

  TempDir dir("full");
  // A cap of 200 waiting bytes: the raw records below are given up, never the sensor events nor events.
  Board b(dir.path, true, 200);
  std::size_t i = 0;
  while (b.rt->game().ply_count() < 4 && i < tl.events.size()) b.source->feed(tl.events[i++]);
  // The syncer thread hands the moves back to the loop (with nothing posted yet, run_for returns at once).
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  while (b.rt->status()["journal"]["awaiting_sync"] != 0 && std::chrono::steady_clock::now() < give_up) {
    b.io.restart();
    b.io.run_for(1ms);
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(moves(b.published), 4);
  const std::size_t before = b.published.size();
  const std::string pgn_before = b.rt->pgn();
  {
    FileSizeLimit limit(fs::file_size(b.rt->journal_path()));
    for (; i < tl.events.size(); ++i) {
      b.source->feed(tl.events[i]);
      b.io.restart();
      b.io.run_for(2ms);
    }
    EXPECT_EQ(b.rt->game().ply_count(), 12);  // reconstruction went on
    const std::uint8_t raw[] = {0x01, 0x02, 0x03};
    for (int k = 0; k < 10; ++k) b.rt->wire(T0 + 60000, drivers::Direction::FromBoard, raw);
    EXPECT_EQ(b.rt->status()["journal"]["dropped_records"], 10);
    // One line more: the alert, straight to the clients.
    ASSERT_EQ(b.published.size(), before + 1);
    EXPECT_NE(b.published.back().find("\"code\":\"journal-unwritable\""), std::string::npos)
        << b.published.back();
    EXPECT_NE(b.published.back().find("File too large"), std::string::npos) << b.published.back();
    const auto st = b.rt->status()["journal"];
    EXPECT_EQ(st["ok"], false);
    EXPECT_GT(st["outage"]["events_waiting"].get<int>(), 8);
    EXPECT_GT(st["outage"]["bytes_waiting"].get<int>(), 0);
    EXPECT_EQ(b.rt->status()["game"]["ply"], 12);
    EXPECT_EQ(b.rt->status()["game"]["published_ply"], 4);
    EXPECT_EQ(b.rt->pgn(), pgn_before);
    EXPECT_EQ(moves(b.rt->snapshot()), 4);  // a client connecting now sees the published moves only
    EXPECT_EQ(b.published.size(), before + 1);
    // Retries (250 ms, then longer) fail while the limit holds.
    b.io.restart();
    b.io.run_for(600ms);
    EXPECT_EQ(b.published.size(), before + 1);
    EXPECT_TRUE(b.rt->journal_down());
  }
  b.run_until(want.size() + 1, 20s);  // the next retry (within 5 s) writes, syncs, publishes
  EXPECT_FALSE(b.rt->journal_down());
  EXPECT_EQ(b.rt->status()["journal"]["ok"], true);
  std::vector<std::string> got = b.published;
  got.erase(got.begin() + std::ptrdiff_t(before));  // the alert
  EXPECT_EQ(got, want);
  EXPECT_EQ(count(b.published, "journal-unwritable"), 1);
  EXPECT_EQ(b.rt->status()["game"]["published_ply"], 12);
  // The journal holds every published event once.
  std::vector<std::string> journaled = bodies(b.rt->journal_path(), 'E');
  EXPECT_EQ(journaled.size(), want.size());
  for (std::size_t k = 0; k < std::min(journaled.size(), want.size()); ++k)
    EXPECT_EQ(journaled[k], want[k]) << k;
}

// A game that ends while its journal cannot be written (the next game begun during the outage): once
// writes work again, its moves are published, its archive holds all of them, and the journal rotates (the
// finished game kept on its own, the next game's records, kept in memory meanwhile, in the new file).
TEST(JournalWriterFailure, AGameEndingInAnOutageIsArchivedAndRotatedOnceWritesWork) {
  const sim::Timeline tl = test_support::short_game(T0, 9, 12);
  TempDir dir("full-end");
  Board b(dir.path, true);
  std::size_t i = 0;
  while (b.rt->game().ply_count() < 4 && i < tl.events.size()) b.source->feed(tl.events[i++]);
  for (auto end = std::chrono::steady_clock::now() + 15s;
       moves(b.published) < 4 && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
  ASSERT_EQ(moves(b.published), 4);
  const fs::path current = b.rt->journal_path();
  {
    FileSizeLimit limit(fs::file_size(current));
    for (; i < tl.events.size(); ++i) {
      b.source->feed(tl.events[i]);
      b.io.restart();
      b.io.run_for(2ms);
    }
    ASSERT_EQ(b.rt->game().ply_count(), 12);
    ASSERT_TRUE(b.rt->journal_down());
    auto n = b.rt->new_game();
    ASSERT_TRUE(n) << n.error();
    EXPECT_EQ(*n, 2);
    EXPECT_EQ(b.rt->status()["game"]["ply"], 0);
    EXPECT_EQ(b.rt->status()["game"]["published_ply"], 0);  // the new game's view holds none of game 1
    b.io.restart();
    b.io.run_for(400ms);  // retries fail while the limit holds
    EXPECT_EQ(moves(b.published), 4);
    EXPECT_TRUE(journal::kept_journals(current).empty());
    EXPECT_FALSE(fs::exists(journal::next_path(current)));
  }
  for (auto end = std::chrono::steady_clock::now() + 20s;
       (b.rt->journal_down() || moves(b.published) < 12) && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
  EXPECT_FALSE(b.rt->journal_down());
  EXPECT_EQ(moves(b.published), 12);
  const auto kept = journal::kept_journals(current);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].game, 1);
  EXPECT_EQ(moves(bodies(kept[0].path, 'E')), 12);
  const std::vector<std::string> headers = bodies(current, 'H');
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_NE(headers[0].find(kept[0].path.filename().string()), std::string::npos) << headers[0];
  EXPECT_EQ(bodies(current, 'N').size(), 1u);
  EXPECT_TRUE(bodies(current, 'E').empty() || moves(bodies(current, 'E')) == 0);
  EXPECT_EQ(b.rt->status()["journal"]["rotations"], 1);
  // Game 1's archive: every move (written by the background writer; flushed here).
  fs::path first;
  for (const auto& f : fs::directory_iterator(dir.path / "games"))
    if (f.path().string().ends_with("-1.pgn")) first = f.path();
  ASSERT_FALSE(first.empty());
  ASSERT_TRUE(eboardd::background_files(b.io).flush(first));
  EXPECT_EQ(outputs::measure_archive(slurp(first)).moves, 12) << slurp(first);
}

// A finished game's signature is made on the background worker, its journal read back through the
// writer's descriptor: whether the rotation of the next game renamed the file before the worker read it or
// not, it signs what the archive holds and the finished game's journal as it is kept, and the records
// journaled around the rotation follow the new game's record in the new file, in order.
TEST(BackgroundSync, RotationAndSignatureOffTheLoopKeepEveryRecordInOrder) {
  const sim::Timeline tl = test_support::short_game(T0, 3, 8);
  TempDir dir("bg-rotate");
  Board b(dir.path, true, 4u << 20,
          std::make_shared<const journal::SigningKey>(journal::SigningKey::generate()));
  for (const auto& e : tl.events) b.source->feed(e);
  for (auto end = std::chrono::steady_clock::now() + 15s;
       moves(b.published) < 8 && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
  ASSERT_EQ(moves(b.published), 8);
  ASSERT_TRUE(b.rt->control({tl.end_ms + 1000, "resign", "white", ""}));
  for (auto end = std::chrono::steady_clock::now() + 15s;
       count(b.published, "\"type\":\"result\"") < 1 && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
  ASSERT_EQ(count(b.published, "\"type\":\"result\""), 1);

  auto n = b.rt->new_game();
  ASSERT_TRUE(n) << n.error();
  EXPECT_EQ(*n, 2);
  auto raw = [&](std::uint8_t k) {
    const std::uint8_t bytes[] = {0x8e, k};
    b.rt->wire(tl.end_ms + 2000 + k, drivers::Direction::FromBoard, bytes);
  };
  for (std::uint8_t k = 1; k <= 5; ++k) raw(k);  // while the signature is made
  for (auto end = std::chrono::steady_clock::now() + 15s;
       b.rt->status()["journal"]["rotations"] != 1 && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
  ASSERT_EQ(b.rt->status()["journal"]["rotations"], 1);
  for (std::uint8_t k = 6; k <= 7; ++k) raw(k);  // after it
  b.rt->stop();

  const fs::path current = b.rt->journal_path();
  auto scan = journal::scan_journal(current);
  ASSERT_TRUE(scan) << scan.error();
  EXPECT_EQ(scan->problem, "");
  std::string types;
  std::vector<int> order;
  for (const auto& r : scan->records) {
    types.push_back(r.type);
    if (r.type != 'R') continue;
    auto e = journal::decode_entry(r.type, r.body);
    ASSERT_TRUE(e && std::holds_alternative<journal::RawEntry>(*e));
    order.push_back(std::get<journal::RawEntry>(*e).bytes.at(1));
  }
  EXPECT_EQ(types.substr(0, 2), "HN") << types;
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  const auto kept = journal::kept_journals(current);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].game, 1);
  EXPECT_EQ(count(bodies(kept[0].path, 'E'), "\"type\":\"result\""), 1);

  fs::path pgn, sig;
  for (const auto& f : fs::directory_iterator(dir.path / "games")) {
    if (f.path().string().ends_with("-1.pgn")) pgn = f.path();
    if (f.path().string().ends_with("-1.pgn.sig")) sig = f.path();
  }
  ASSERT_FALSE(pgn.empty());
  ASSERT_FALSE(sig.empty());
  auto record = journal::parse_signature_file(slurp(sig));
  ASSERT_TRUE(record) << record.error();
  EXPECT_TRUE(journal::record_signature_valid(*record));
  const journal::Finding archive = journal::check_archive(record->archive, slurp(pgn));
  EXPECT_TRUE(archive.intact) << archive.text;
  ASSERT_EQ(record->journals.size(), 1u);
  EXPECT_EQ(record->journals[0].path, current.string());  // signed where it was written, read as kept
  const journal::Finding j = journal::check_sealed_journal(record->journals[0], slurp(kept[0].path));
  EXPECT_TRUE(j.intact) << j.text;
}

namespace {

// Plays `plies` moves on `b` and waits for them to be published.
void play_published(Board& b, const sim::Timeline& tl, int plies) {
  for (const auto& e : tl.events) b.source->feed(e);
  for (auto end = std::chrono::steady_clock::now() + 15s;
       moves(b.published) < plies && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
}

// Holds the background worker (a disk that takes its time) until released: the jobs posted after this one
// wait.
struct HeldWorker {
  std::promise<void> release;
  explicit HeldWorker(outputs::BackgroundWork& work) {
    work.post([held = release.get_future().share()] { held.wait(); });
  }
  void let_go() { release.set_value(); }
};

}  // namespace

// A new game on a writable disk rotates the journal on the background worker, not on the loop: with the
// worker held (a slow disk), new_game() returns and the loop goes on (status, raw bytes journaled) with the
// rotation not made; once the worker runs it, the new file holds the new game's records in order and
// when_rotated() tells the control's answer. On a runtime that rotates on the loop, the rotation is made
// inside new_game() whatever the worker does, and this fails.
TEST(BackgroundSync, ANewGameRotatesOnTheWorkerNotOnTheLoop) {
  const sim::Timeline tl = test_support::short_game(T0, 5, 6);
  TempDir dir("rotate-held");
  Board b(dir.path, true);
  play_published(b, tl, 6);
  ASSERT_EQ(moves(b.published), 6);
  const fs::path current = b.rt->journal_path();

  HeldWorker held(*b.rt->work());
  auto n = b.rt->new_game();
  ASSERT_TRUE(n) << n.error();
  EXPECT_EQ(*n, 2);
  bool answered = false;
  b.rt->when_rotated([&] { answered = true; });
  const std::uint8_t first[] = {0x8e, 1};
  b.rt->wire(tl.end_ms + 2000, drivers::Direction::FromBoard, first);
  for (int i = 0; i < 50; ++i) {  // the loop's turns go on meanwhile
    b.io.restart();
    b.io.run_for(2ms);
  }
  EXPECT_EQ(b.rt->status()["journal"]["rotations"], 0);
  EXPECT_EQ(b.rt->status()["game"]["number"], 2);
  EXPECT_FALSE(answered) << "the new game was answered before its journal file was begun";
  EXPECT_FALSE(fs::exists(journal::next_path(current)));
  EXPECT_EQ(bodies(current, 'N').size(), 1u);  // game 1's only: the new game's record waits in memory

  held.let_go();
  for (auto end = std::chrono::steady_clock::now() + 15s;
       !answered && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
  ASSERT_TRUE(answered);
  EXPECT_EQ(b.rt->status()["journal"]["rotations"], 1);
  const std::uint8_t second[] = {0x8e, 2};
  b.rt->wire(tl.end_ms + 3000, drivers::Direction::FromBoard, second);
  b.rt->stop();
  auto scan = journal::scan_journal(current);
  ASSERT_TRUE(scan) << scan.error();
  std::string types;
  std::vector<int> raw;
  for (const auto& r : scan->records) {
    types.push_back(r.type);
    if (r.type != 'R') continue;
    auto e = journal::decode_entry(r.type, r.body);
    ASSERT_TRUE(e && std::holds_alternative<journal::RawEntry>(*e));
    raw.push_back(std::get<journal::RawEntry>(*e).bytes.at(1));
  }
  EXPECT_EQ(types.substr(0, 2), "HN") << types;
  EXPECT_EQ(raw, (std::vector<int>{1, 2}));
  const auto kept = journal::kept_journals(current);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(count(bodies(kept[0].path, 'E'), "\"type\":\"move\""), 6);
}

namespace {

// In a child process: a game of 6 published moves, a new game with the worker held, then SIGKILL, either
// while the rotation waits (`after_answer` false) or right after when_rotated() answered. Exit codes other
// than the kill: what went wrong before it.
void new_game_then_kill(const fs::path& dir, bool after_answer) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    {
      const sim::Timeline tl = test_support::short_game(T0, 5, 6);
      Board b(dir, true);
      play_published(b, tl, 6);
      if (moves(b.published) != 6) ::_exit(3);
      HeldWorker held(*b.rt->work());
      if (!b.rt->new_game()) ::_exit(4);
      bool answered = false;
      b.rt->when_rotated([&] { answered = true; });
      b.run_until(b.published.size() + 1, 20ms);
      if (answered) ::_exit(5);
      if (after_answer) {
        held.let_go();
        for (auto end = std::chrono::steady_clock::now() + 15s;
             !answered && std::chrono::steady_clock::now() < end;)
          b.run_until(b.published.size() + 1, 5ms);
        if (!answered) ::_exit(6);
      }
      ::kill(::getpid(), SIGKILL);
    }
    ::_exit(7);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child ended otherwise: exit " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace

// kill -9 in the rotation's asynchronous window: before the worker made it, a restart finds game 1 whole
// and current (the new game was never answered, nothing of it published); after the answer, game 2 in its
// own file and game 1 kept whole.
TEST(BackgroundSync, KillNineWhileANewGameWaitsForItsFileRecoversEitherGame) {
  for (const bool after_answer : {false, true}) {
    SCOPED_TRACE(after_answer ? "killed after the answer" : "killed before the rotation");
    TempDir dir(after_answer ? "kill-after" : "kill-before");
    new_game_then_kill(dir.path, after_answer);
    Board b(dir.path, true);
    const fs::path current = b.rt->journal_path();
    EXPECT_FALSE(fs::exists(journal::next_path(current)));
    const journal::Recovery& r = b.rt->recovery();
    EXPECT_TRUE(r.mismatches.empty()) << r.mismatches.front();
    if (!after_answer) {
      EXPECT_EQ(b.rt->ledger().game_number(), 1);
      EXPECT_EQ(b.rt->game().ply_count(), 6);
      EXPECT_TRUE(journal::kept_journals(current).empty());
    } else {
      EXPECT_EQ(b.rt->ledger().game_number(), 2);
      EXPECT_EQ(b.rt->game().ply_count(), 0);
      const auto kept = journal::kept_journals(current);
      ASSERT_EQ(kept.size(), 1u);
      EXPECT_EQ(count(bodies(kept[0].path, 'E'), "\"type\":\"move\""), 6);
    }
  }
}

TEST(Syncer, OneSyncPerFileCoversEveryRequestQueuedForIt) {
  TempDir dir("syncer");
  auto a = journal::JournalWriter::open(dir.path / "a");
  auto b = journal::JournalWriter::open(dir.path / "b");
  ASSERT_TRUE(a && b);
  journal::Syncer syncer(2);
  std::atomic<int> done{0};
  std::atomic<bool> covered{true};
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(a->append('S', "record " + std::to_string(i)));
    ASSERT_TRUE(b->append('S', "record " + std::to_string(i)));
    for (auto* w : {&*a, &*b}) {
      const std::uint64_t upto = w->size();
      auto file = w->file();
      // Within 30 ms: they pile up and are served together.
      syncer.request(file, upto, 30ms, [&, file, upto](const tl::expected<void, std::string>& r) {
        if (!r || file->durable() < upto) covered = false;
        ++done;
      });
    }
  }
  auto end = std::chrono::steady_clock::now() + 15s;
  while (done < 100 && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(done, 100);
  EXPECT_TRUE(covered);
  EXPECT_FALSE(a->dirty());
  EXPECT_FALSE(b->dirty());
  const journal::SyncerStats s = syncer.stats();
  EXPECT_EQ(s.requests, 100u);
  EXPECT_LE(s.syncs, 4u);  // one per file, perhaps two when a worker woke mid-burst
  EXPECT_GE(s.coalesced, 96u);
  // Not asked for: stop() still syncs what was asked without a deadline reached.
  ASSERT_TRUE(a->append('S', "last"));
  syncer.request(a->file(), a->size(), 10s);
  syncer.stop();
  EXPECT_FALSE(a->dirty());
  // After stop(), a request is served on the caller's thread.
  ASSERT_TRUE(b->append('S', "after"));
  bool called = false;
  syncer.request(b->file(), b->size(), 0ms, [&](const auto& r) { called = bool(r); });
  EXPECT_TRUE(called);
  EXPECT_FALSE(b->dirty());
}

TEST(AsyncFileWriter, LatestContentWins) {
  TempDir dir("files");
  const fs::path p = dir.path / "game.pgn";
  outputs::AsyncFileWriter w;
  for (int i = 0; i < 200; ++i) w.submit(p, "content " + std::to_string(i) + "\n");
  ASSERT_TRUE(w.flush(p));
  EXPECT_EQ(slurp(p), "content 199\n");
  const outputs::AsyncFileStats s = w.stats();
  EXPECT_EQ(s.submitted, 200u);
  EXPECT_LT(s.written, 200u);  // most were superseded before being written
  EXPECT_EQ(s.written + s.superseded, 200u);
  w.submit(p, "background\n");
  ASSERT_TRUE(w.write_now(p, "now\n"));
  EXPECT_EQ(slurp(p), "now\n");
  w.submit(p, "at stop\n");
  w.stop();
  EXPECT_EQ(slurp(p), "at stop\n");
  // No temporary file is left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(dir.path)) ++files;
  EXPECT_EQ(files, 1);
}

// With a minimum interval, a file written a moment ago waits (latest content wins) until the interval
// is over; an urgent submit, flush() and stop() do not wait.
TEST(AsyncFileWriter, WritesAFileAtMostOncePerInterval) {
  TempDir dir("interval");
  const fs::path p = dir.path / "game.pgn";
  const fs::path q = dir.path / "other.pgn";
  outputs::AsyncFileWriter w({}, 0ms, 2000ms);
  // The file is in place before the writer counts it: both are waited for.
  const auto wait_for = [&](const fs::path& f, const std::string& content, std::uint64_t written) {
    for (auto end = std::chrono::steady_clock::now() + 15s;
         (slurp(f) != content || w.stats().written < written) && std::chrono::steady_clock::now() < end;)
      std::this_thread::sleep_for(5ms);
  };
  const auto first = std::chrono::steady_clock::now();
  ASSERT_TRUE(w.write_now(p, "1\n"));
  w.submit(p, "2\n");
  w.submit(p, "3\n");
  std::this_thread::sleep_for(100ms);
  const std::string early = slurp(p);
  // Within the interval (unless this thread slept through it, as on a starved machine: nothing to check).
  if (std::chrono::steady_clock::now() - first < 1900ms) {
    EXPECT_EQ(early, "1\n");
  }
  wait_for(p, "3\n", 2);
  EXPECT_EQ(slurp(p), "3\n");  // once it was over, the latest
  EXPECT_EQ(w.stats().written, 2u);
  w.submit(p, "4\n", /*urgent=*/true);
  wait_for(p, "4\n", 3);
  EXPECT_EQ(slurp(p), "4\n");
  w.submit(p, "5\n");
  ASSERT_TRUE(w.flush(p));
  EXPECT_EQ(slurp(p), "5\n");
  w.submit(p, "6\n");
  w.submit(q, "other\n");  // never written before: no wait
  wait_for(q, "other\n", 5);
  EXPECT_EQ(slurp(q), "other\n");
  w.stop();
  EXPECT_EQ(slurp(p), "6\n");
}

// The same game through the background runtime: a move is not published before an fdatasync made after
// it was journaled is done, and is published on the loop's thread (the syncer thread hands it back); then
// every event comes, in the order and with the content of the synchronous runtime.
TEST(BackgroundSync, PublishesWhatTheSynchronousRuntimePublishesOnceDurable) {
  const sim::Timeline tl = test_support::short_game(T0, 5, 10);
  TempDir ref_dir("ref");
  std::vector<std::string> want;
  {
    Board b(ref_dir.path, false);
    for (const auto& e : tl.events) b.source->feed(e);
    b.source->advance(tl.end_ms + 10000);
    want = b.published;
  }
  ASSERT_GE(want.size(), 10u);

  TempDir dir("bg");
  std::string pgn_path;
  {
    Board b(dir.path, true);
    const auto syncs = [&] { return b.rt->status()["journal"]["syncs"].get<std::uint64_t>(); };
    const std::thread::id loop = std::this_thread::get_id();  // the only thread that runs b.io
    std::uint64_t syncs_at_feed = 0;
    int unsynced = 0, off_loop = 0, waited = 0, made = 0;
    b.on_event = [&](const std::string& line) {
      if (line.find("\"type\":\"move\"") == std::string::npos) return;
      unsynced += syncs() <= syncs_at_feed;
      off_loop += std::this_thread::get_id() != loop;
    };
    for (const auto& e : tl.events) {
      const int before = b.rt->game().ply_count();
      syncs_at_feed = syncs();
      b.source->feed(e);
      if (b.rt->game().ply_count() > before) {
        ++made;
        // The move is journaled; its sync runs on a syncer thread. Done before feed() returned, the move is
        // published by then; else the thread hands it back to this (not running) io_context.
        EXPECT_GE(moves(b.published), before);
        EXPECT_LE(moves(b.published), before + 1);
        if (moves(b.published) == before) {
          ++waited;
          b.run_until(b.published.size() + 1);
        }
        EXPECT_EQ(moves(b.published), before + 1);
      }
    }
    b.source->advance(tl.end_ms + 10000);
    b.run_until(want.size());
    EXPECT_EQ(made, 10);
    EXPECT_EQ(unsynced, 0);  // every move published after a sync that ended after it was fed
    EXPECT_EQ(off_loop, 0);
    std::printf("%d of %d moves published after feed() returned\n", waited, made);
    EXPECT_EQ(b.published, want);
    EXPECT_EQ(b.rt->status()["journal"]["awaiting_sync"], 0);
    b.on_event = nullptr;  // it reads the runtime, which goes before it
    // The PGN file holds the published moves.
    b.rt->stop();
    for (const auto& f : fs::directory_iterator(dir.path / "games")) pgn_path = f.path().string();
  }
  std::string pgn = slurp(pgn_path);
  EXPECT_NE(pgn.find("5. "), std::string::npos) << pgn;
}

// A game over without a result (resigned on the board) ends when the pieces are set up again. Its file is
// final then, and /games.pgn serves it from there: it is written at once, not at the end of the 30 s
// that keep a live game's file from being rewritten at every move.
TEST(BackgroundSync, GameOverWithoutAResultHasItsWholeFileWhenTheNextBegins) {
  const sim::Timeline tl = test_support::short_game(T0, 5, 10);
  TempDir dir("next");
  Board b(dir.path, true);
  for (const auto& e : tl.events) {
    b.source->feed(e);
    b.run_until(b.published.size() + 1, 5ms);
  }
  for (auto end = std::chrono::steady_clock::now() + 15s;
       moves(b.published) < 10 && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
  ASSERT_EQ(b.rt->game().ply_count(), 10);
  ASSERT_EQ(moves(b.published), 10);
  b.source->feed({tl.end_ms + 20000, rules::BoardSnapshot{rules::Position::start().board()}});
  b.source->advance(tl.end_ms + 40000);
  b.run_until(b.published.size() + 1, 50ms);
  ASSERT_EQ(b.rt->status()["game"]["number"], 2);
  fs::path first;
  for (const auto& f : fs::directory_iterator(dir.path / "games"))
    if (f.path().string().ends_with("-1.pgn")) first = f.path();
  ASSERT_FALSE(first.empty());
  std::string pgn;
  for (auto end = std::chrono::steady_clock::now() + 15s;
       pgn.find("5... Be7") == std::string::npos && std::chrono::steady_clock::now() < end;) {
    std::this_thread::sleep_for(10ms);
    pgn = slurp(first);
  }
  EXPECT_NE(pgn.find("5... Be7"), std::string::npos) << pgn;
}

// A WebSocket client that connects while a move waits for its sync: the snapshot holds what was published
// (no fdatasync runs on the loop for it), and the waiting move comes after it, once; no move twice.
TEST(BackgroundSync, SnapshotHoldsWhatWasPublishedAndTheWaitingMoveComesOnce) {
  const sim::Timeline tl = test_support::short_game(T0, 9, 4);
  TempDir dir("snap");
  Board b(dir.path, true);
  std::size_t checked = 0;
  for (const auto& e : tl.events) {
    const int before = b.rt->game().ply_count();
    b.source->feed(e);
    if (b.rt->game().ply_count() == before) continue;
    std::vector<std::string> snap = b.rt->snapshot();
    const int in_snapshot = moves(snap);
    // Published by now: the moves before, and this one if its syncer thread was done before feed() returned.
    EXPECT_EQ(in_snapshot, moves(b.published));
    EXPECT_GE(in_snapshot, before);
    EXPECT_LE(in_snapshot, before + 1);
    const std::size_t n = b.published.size();
    b.run_until(n + std::size_t(before + 1 - in_snapshot), 15s);
    int after = 0;
    for (std::size_t i = n; i < b.published.size(); ++i)
      after += b.published[i].find("\"type\":\"move\"") != std::string::npos;
    EXPECT_EQ(in_snapshot + after, before + 1);  // each move once: in the snapshot or after it
    ++checked;
  }
  EXPECT_EQ(checked, 4u);
}

// A link lost while a move waits for its sync is told after that move (the order things happened), and at
// once while the journal cannot be written: the arbiter must know the board is blind whatever the disk does.
TEST(BackgroundSync, LinkEventKeepsItsPlaceBehindAWaitingMoveButNotBehindAFullDisk) {
  const sim::Timeline tl = test_support::short_game(T0, 9, 6);
  TempDir dir("link");
  Board b(dir.path, true);
  b.rt->link_changed(T0, true, "connected on /dev/pts/3");
  std::size_t i = 0;
  while (b.rt->game().ply_count() < 1 && i < tl.events.size()) b.source->feed(tl.events[i++]);
  ASSERT_EQ(b.rt->game().ply_count(), 1);
  // Runs the loop until `done` (or 20 s pass: a failure below).
  const auto run_while_not = [&](const std::function<bool()>& done) {
    for (auto end = std::chrono::steady_clock::now() + 20s;
         !done() && std::chrono::steady_clock::now() < end;) {
      b.io.restart();
      b.io.run_for(1ms);
    }
  };
  const auto at = [&](const std::string& what) {
    for (std::size_t k = 0; k < b.published.size(); ++k)
      if (b.published[k].find(what) != std::string::npos) return std::ptrdiff_t(k);
    return std::ptrdiff_t(-1);
  };
  b.rt->link_changed(tl.events[i - 1].t_ms, false, "device removed: Input/output error");
  run_while_not([&] { return at("\"type\":\"move\"") >= 0 && at("\"type\":\"link\"") >= 0; });
  ASSERT_GE(at("\"type\":\"move\""), 0);
  ASSERT_GE(at("\"type\":\"link\""), 0);
  EXPECT_LT(at("\"type\":\"move\""), at("\"type\":\"link\""));
  b.rt->link_changed(tl.events[i - 1].t_ms + 1, true, "connected on /dev/pts/4");
  EXPECT_EQ(count(b.published, "\"type\":\"link\""), 2);  // nothing waits: at once

  // The disk is full: the next move is held back, a link lost meanwhile goes out at once.
  run_while_not([&] { return b.rt->status()["journal"]["awaiting_sync"] == 0; });
  {
    FileSizeLimit limit(fs::file_size(b.rt->journal_path()));
    while (b.rt->game().ply_count() < 3 && i < tl.events.size()) {
      b.source->feed(tl.events[i++]);
      b.io.restart();
      b.io.run_for(2ms);
    }
    ASSERT_TRUE(b.rt->journal_down());
    EXPECT_LT(b.rt->status()["game"]["published_ply"].get<int>(), 3);
    const std::size_t n = b.published.size();
    b.rt->link_changed(tl.events[i - 1].t_ms, false, "device removed: Input/output error");
    ASSERT_EQ(b.published.size(), n + 1);
    EXPECT_NE(b.published.back().find("\"state\":\"offline\""), std::string::npos) << b.published.back();
  }
  // The next retry (within 5 s) writes and publishes what was held.
  run_while_not([&] { return b.rt->status()["game"]["published_ply"] == 3; });
  EXPECT_FALSE(b.rt->journal_down());
  EXPECT_EQ(b.rt->status()["game"]["published_ply"], 3);
  EXPECT_EQ(count(b.published, "\"type\":\"link\""), 3);
  for (const auto& body : bodies(b.rt->journal_path(), 'E'))
    EXPECT_EQ(body.find("\"type\":\"link\""), std::string::npos) << body;
}

namespace {

// The record of game `number` of board A in `dir`/games, empty if none.
fs::path game_record(const fs::path& dir, int number) {
  const std::string suffix = "-" + std::to_string(number) + ".pgn";
  std::error_code ec;
  for (fs::directory_iterator it(dir / "games", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("A-") && name.ends_with(suffix)) return it->path();
  }
  return {};
}

// An arbiter's control request as the server makes it: its answer taken on a thread of its own (the
// server's worker: a deferred response waits there), while the test runs the loop.
struct ArbiterRequest {
  std::atomic<unsigned> status{0};
  std::string body;
  std::thread answer;
  ArbiterRequest(Board& b, const fs::path& dir, const eboardd::Round& round, const nlohmann::json& request) {
    auto res =
        eboardd::arbiter_action(*b.rt, "result", request,
                                eboardd::ArbiterContext{dir, round, b.rt->files(), "test", "", nullptr, {}});
    EXPECT_TRUE(res.has_value());
    answer = std::thread([this, res = std::move(res)] {
      if (!res) return;
      http::Response r = res->deferred ? res->deferred() : *res;
      body = r.body;  // before the status, which tells the loop it is there
      status = r.status;
    });
  }
  ~ArbiterRequest() {
    if (answer.joinable()) answer.join();
  }
  void wait(Board& b) {
    for (auto end = std::chrono::steady_clock::now() + 20s;
         status == 0 && std::chrono::steady_clock::now() < end;)
      b.run_until(b.published.size() + 1, 5ms);
    answer.join();
  }
};

// Runs the loop's turns for a while and says whether a handler posted meanwhile ran (the loop not held)
// and what /status shows then.
nlohmann::json status_while_running(Board& b) {
  nlohmann::json status;
  boost::asio::post(b.io, [&] { status = b.rt->status(); });
  for (int i = 0; i < 50; ++i) {
    b.io.restart();
    b.io.run_for(2ms);
  }
  return status;
}

std::size_t lines_of(const fs::path& p) {
  const std::string text = slurp(p);
  return std::size_t(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

// An arbiter's result and corrections do their file work (the record kept as .v1, rewritten, signed again,
// arbiter.log synced) on the background worker: with the worker held (a slow disk) the request is not
// answered, nothing of it is on disk, and the loop goes on (a handler posted runs, /status answers); once
// the worker is let go, the answer is 200 and everything it says is on disk. On a runtime that does that work
// inside arbiter_action() on the loop, the request is answered (or blocks) before the worker is let go, and
// this fails.
TEST(BackgroundSync, AnArbitersCorrectionWorksOnTheWorkerWhileTheLoopGoesOn) {
  const sim::Timeline tl = test_support::short_game(T0, 5, 6);
  TempDir dir("arbiter-held");
  auto key = std::make_shared<const journal::SigningKey>(journal::SigningKey::generate());
  Board b(dir.path, true, 4u << 20, key);
  play_published(b, tl, 6);
  ASSERT_EQ(moves(b.published), 6);
  ASSERT_TRUE(b.rt->control({T0 + 1000, "resign", "white", ""}));
  const fs::path record = game_record(dir.path, 1);
  fs::path sig = record;
  sig += ".sig";
  for (auto end = std::chrono::steady_clock::now() + 15s;
       !fs::exists(sig) && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
  ASSERT_TRUE(fs::exists(sig));
  eboardd::Round whole;  // every game of the board in it

  // The current game, over: its result corrected.
  {
    HeldWorker held(*b.rt->work());
    ArbiterRequest req(b, dir.path, whole, {{"result", "1/2-1/2"}, {"reason", "held"}});
    const nlohmann::json status = status_while_running(b);
    ASSERT_TRUE(status.is_object()) << "the loop did not run a handler while the worker was held";
    EXPECT_EQ(status["game"]["number"], 1);
    EXPECT_EQ(req.status, 0u) << "answered before the record was kept: " << req.body;
    EXPECT_FALSE(fs::exists(record.string() + ".v1"));
    EXPECT_FALSE(fs::exists(dir.path / "arbiter.log"));
    EXPECT_EQ(b.rt->game().outcome()->result, rules::Result::BlackWins);
    held.let_go();
    req.wait(b);
    ASSERT_EQ(req.status, 200u) << req.body;
    // What the answer says is on disk when it is given.
    EXPECT_NE(slurp(record).find("[ArbiterResult \"1/2-1/2\"]"), std::string::npos) << slurp(record);
    EXPECT_NE(slurp(record.string() + ".v1").find("[Result \"0-1\"]"), std::string::npos);
    EXPECT_TRUE(fs::exists(record.string() + ".v1.sig"));
    EXPECT_EQ(lines_of(dir.path / "arbiter.log"), 1u);
    EXPECT_EQ(b.rt->published_game().outcome()->result, rules::Result::Draw);
  }

  // The next game; then game 1, an earlier game, corrected again.
  ASSERT_TRUE(b.rt->new_game());
  for (auto end = std::chrono::steady_clock::now() + 15s;
       b.rt->status()["journal"]["rotations"] != 1 && std::chrono::steady_clock::now() < end;)
    b.run_until(b.published.size() + 1, 10ms);
  {
    const std::string sig_before = slurp(sig);
    HeldWorker held(*b.rt->work());
    ArbiterRequest req(b, dir.path, whole, {{"result", "1-0"}, {"reason", "held again"}, {"game", 1}});
    const nlohmann::json status = status_while_running(b);
    ASSERT_TRUE(status.is_object()) << "the loop did not run a handler while the worker was held";
    EXPECT_EQ(status["game"]["number"], 2);
    EXPECT_EQ(req.status, 0u) << "answered before the record was rewritten: " << req.body;
    EXPECT_FALSE(fs::exists(record.string() + ".v2"));
    EXPECT_EQ(lines_of(dir.path / "arbiter.log"), 1u);
    held.let_go();
    req.wait(b);
    ASSERT_EQ(req.status, 200u) << req.body;
    EXPECT_NE(slurp(record).find("[ArbiterResult \"1-0\"]"), std::string::npos) << slurp(record);
    EXPECT_TRUE(fs::exists(record.string() + ".v2"));
    EXPECT_NE(slurp(sig), sig_before);  // signed again
    auto signed_record = journal::parse_signature_file(slurp(sig));
    ASSERT_TRUE(signed_record) << signed_record.error();
    EXPECT_TRUE(journal::record_signature_valid(*signed_record));
    EXPECT_TRUE(journal::check_archive(signed_record->archive, slurp(record)).intact);
    EXPECT_EQ(lines_of(dir.path / "arbiter.log"), 2u);
  }
}

namespace {

// In a child process: game 1 played and resigned, game 2 begun, then game 1's result corrected with the
// worker held, and SIGKILL either while the request waits (`after_answer` false) or right after its 200.
void correction_then_kill(const fs::path& dir, bool after_answer) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    {
      const sim::Timeline tl = test_support::short_game(T0, 5, 6);
      Board b(dir, true);
      play_published(b, tl, 6);
      if (moves(b.published) != 6) ::_exit(3);
      if (!b.rt->control({T0 + 1000, "resign", "white", ""})) ::_exit(4);
      if (!b.rt->new_game()) ::_exit(5);
      for (auto end = std::chrono::steady_clock::now() + 15s;
           b.rt->status()["journal"]["rotations"] != 1 && std::chrono::steady_clock::now() < end;)
        b.run_until(b.published.size() + 1, 10ms);
      if (b.rt->status()["journal"]["rotations"] != 1) ::_exit(6);
      // Game 1's archive on disk with its result (the background writer's), as the correction finds it.
      for (auto end = std::chrono::steady_clock::now() + 15s;
           slurp(game_record(dir, 1)).find("[Result \"0-1\"]") == std::string::npos &&
           std::chrono::steady_clock::now() < end;)
        b.run_until(b.published.size() + 1, 10ms);
      eboardd::Round whole;
      HeldWorker held(*b.rt->work());
      ArbiterRequest req(b, dir, whole, {{"result", "1/2-1/2"}, {"reason", "kill"}, {"game", 1}});
      (void)status_while_running(b);
      if (req.status != 0) ::_exit(7);
      if (after_answer) {
        held.let_go();
        req.wait(b);
        if (req.status != 200) ::_exit(8);
      }
      ::kill(::getpid(), SIGKILL);
    }
    ::_exit(9);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child ended otherwise: exit " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace

// kill -9 while an arbiter's correction waits for the worker: nothing answered is lost. Before the answer,
// game 1's record is whole, as it was (0-1); after it, the record holds the correction, the version it
// replaced is kept, and arbiter.log has the entry; either way the restart finds game 2 current.
TEST(BackgroundSync, KillNineWhileACorrectionWaitsLosesNothingAnswered) {
  for (const bool after_answer : {false, true}) {
    SCOPED_TRACE(after_answer ? "killed after the answer" : "killed before it");
    TempDir dir(after_answer ? "arbiter-kill-after" : "arbiter-kill-before");
    correction_then_kill(dir.path, after_answer);
    const fs::path record = game_record(dir.path, 1);
    ASSERT_FALSE(record.empty());
    const std::string text = slurp(record);
    if (!after_answer) {
      EXPECT_NE(text.find("[Result \"0-1\"]"), std::string::npos) << text;
      EXPECT_EQ(text.find("ArbiterResult"), std::string::npos) << text;
    } else {
      EXPECT_NE(text.find("[ArbiterResult \"1/2-1/2\"]"), std::string::npos) << text;
      EXPECT_NE(slurp(record.string() + ".v1").find("[Result \"0-1\"]"), std::string::npos);
      EXPECT_EQ(lines_of(dir.path / "arbiter.log"), 1u);
    }
    Board b(dir.path, true);
    EXPECT_EQ(b.rt->ledger().game_number(), 2);
    EXPECT_TRUE(b.rt->recovery().mismatches.empty());
  }
}
