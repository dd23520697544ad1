// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The per-board journal: framing with checksums, a torn tail after a power cut or kill -9 (cut at every
// byte of the last records), recovery by replay that reproduces exactly what was published, the resumed
// game continuing as if nothing happened, .cap export, and the cost of fdatasync on this machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "daemon/core/event_json.hpp"
#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/journal/crc32.hpp"
#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/records.hpp"
#include "daemon/journal/recovery.hpp"
#include "manual_source.hpp"
#include "rules/notation.hpp"

using namespace eboard;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t T0 = 1'700'000'000'000;  // a Unix time in ms

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / ("eboard-journal-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// A board runtime in a state directory, fed by a ManualSource; records what it publishes.
struct Board {
  boost::asio::io_context io;
  std::vector<std::string> published;
  std::unique_ptr<eboardd::BoardRuntime> rt;
  test_support::ManualSource* source = nullptr;

  explicit Board(const fs::path& dir, std::int64_t clock_ms = T0, bool chess960 = false) {
    eboardd::RuntimeOptions o;
    o.state_dir = dir;
    o.chess960 = chess960;
    o.sync_interval = std::chrono::milliseconds(50);  // the timer never runs here: syncs come with moves
    o.sync_in_background = false;  // the io_context never runs here: publish before events() returns
    o.clock = [clock_ms] { return clock_ms; };
    o.publish_link = [this](const std::string& line) { published.push_back(line); };
    rt = std::make_unique<eboardd::BoardRuntime>(
        io, "A", o, [this](const rules::Event&, const std::string& line) { published.push_back(line); });
    auto ok = rt->open();
    EXPECT_TRUE(ok) << (ok ? "" : ok.error());
    auto s = std::make_unique<test_support::ManualSource>(*rt, std::move(rt->recovery().machine));
    source = s.get();
    rt->attach(std::move(s));
  }
};

// What one uninterrupted live run publishes for a timeline, as JSON lines, and its game.
struct Reference {
  std::vector<std::string> events;
  std::vector<std::string> moves;
};

Reference reference_run(const sim::Timeline& tl) {
  TempDir dir("reference");
  Board b(dir.path);
  for (const auto& e : tl.events) b.source->feed(e);
  b.source->advance(tl.end_ms + 10000);
  return {b.published, test_support::move_ucis(b.rt->game())};
}

}  // namespace

TEST(Crc32, KnownValues) {
  EXPECT_EQ(journal::crc32(std::string_view("")), 0u);
  EXPECT_EQ(journal::crc32(std::string_view("123456789")), 0xCBF43926u);
  EXPECT_EQ(journal::crc32(std::string_view("The quick brown fox jumps over the lazy dog")), 0x414FA339u);
  // Computed in pieces, the same.
  EXPECT_EQ(journal::crc32(std::string_view("6789"), journal::crc32(std::string_view("12345"))), 0xCBF43926u);
}

TEST(JournalFile, WritesAndReadsRecords) {
  TempDir dir("roundtrip");
  const fs::path p = dir.path / "j";
  {
    auto w = journal::JournalWriter::open(p);
    ASSERT_TRUE(w) << w.error();
    ASSERT_TRUE(w->append('S', "first"));
    ASSERT_TRUE(w->append('E', std::string(1000, 'x')));
    ASSERT_TRUE(w->append('R', std::string("\0\1\2", 3)));
    ASSERT_TRUE(w->sync());
    EXPECT_EQ(w->stats().syncs, 1u);
    EXPECT_FALSE(w->dirty());
  }
  auto scan = journal::scan_journal(p);
  ASSERT_TRUE(scan) << scan.error();
  EXPECT_TRUE(scan->problem.empty()) << scan->problem;
  ASSERT_EQ(scan->records.size(), 3u);
  EXPECT_EQ(scan->records[0].type, 'S');
  EXPECT_EQ(scan->records[0].body, "first");
  EXPECT_EQ(scan->records[1].body.size(), 1000u);
  EXPECT_EQ(scan->records[2].body, std::string("\0\1\2", 3));
  EXPECT_EQ(scan->valid_bytes, scan->file_bytes);
  // Appending after a reopen continues the file and its chain.
  {
    auto w = journal::JournalWriter::open(p, *scan);
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->append('T', "more"));
  }
  auto again = journal::scan_journal(p);
  EXPECT_EQ(again->records.size(), 4u);
  EXPECT_TRUE(again->chain_breaks.empty());
  EXPECT_TRUE(again->problem.empty()) << again->problem;
}

TEST(JournalFile, TornLastRecordAtEveryByte) {
  std::string file(journal::MAGIC);
  journal::Framer framer;
  for (int i = 0; i < 4; ++i) file += framer.frame('S', "record " + std::to_string(i));
  const std::size_t last_start = file.size();
  file += framer.frame('E', R"({"t":1,"board":"A","type":"move","ply":1,"uci":"e2e4","san":"e4"})");
  TempDir dir("torn");
  const fs::path p = dir.path / "j";
  for (std::size_t cut = last_start; cut < file.size(); ++cut) {
    journal::JournalScan scan = journal::scan_journal_bytes(std::string_view(file).substr(0, cut));
    ASSERT_EQ(scan.records.size(), 4u) << "cut at " << cut;
    EXPECT_EQ(scan.valid_bytes, last_start);
    EXPECT_EQ(scan.problem.empty(), cut == last_start) << scan.problem;
    EXPECT_TRUE(scan.damaged.empty());  // a torn tail, not damage
    // A writer opened after the scan cuts the torn bytes off, so the next record is readable.
    write_file(p, std::string_view(file).substr(0, cut));
    {
      auto w = journal::JournalWriter::open(p, scan);
      ASSERT_TRUE(w) << w.error();
      ASSERT_TRUE(w->append('S', "after the crash"));
    }
    auto again = journal::scan_journal(p);
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->problem.empty()) << "cut at " << cut << ": " << again->problem;
    EXPECT_TRUE(again->chain_breaks.empty()) << "cut at " << cut;
    ASSERT_EQ(again->records.size(), 5u);
    EXPECT_EQ(again->records.back().body, "after the crash");
  }
  // Cut inside the magic: an empty journal, and a writer starts it afresh.
  for (std::size_t cut = 0; cut < journal::MAGIC.size(); ++cut) {
    journal::JournalScan scan = journal::scan_journal_bytes(std::string_view(file).substr(0, cut));
    EXPECT_TRUE(scan.records.empty());
    write_file(p, std::string_view(file).substr(0, cut));
    auto w = journal::JournalWriter::open(p, scan);
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->append('S', "fresh"));
  }
}

// Damage in the middle (a bad sector, a flipped bit) costs the damaged record only: reading finds the next
// record that checks and carries on, at every byte of every record and for every kind of change.
TEST(JournalFile, DamagedRecordCostsOnlyItself) {
  std::string file(journal::MAGIC);
  journal::Framer framer;
  std::vector<std::size_t> starts;
  for (int i = 0; i < 6; ++i) {
    starts.push_back(file.size());
    file += framer.frame(i % 2 ? 'S' : 'E', "record number " + std::to_string(i));
  }
  starts.push_back(file.size());
  for (std::size_t k = 0; k + 1 < starts.size(); ++k) {
    for (std::size_t at = starts[k]; at < starts[k + 1]; ++at) {
      for (std::uint8_t flip : {std::uint8_t(0x01), std::uint8_t(0x80), std::uint8_t(0xFF)}) {
        std::string damaged = file;
        damaged[at] = char(std::uint8_t(damaged[at]) ^ flip);
        auto scan = journal::scan_journal_bytes(damaged);
        ASSERT_EQ(scan.records.size(), 5u) << "record " << k << ", byte " << at;
        for (std::size_t i = 0, j = 0; i < 6; ++i) {
          if (i == k) continue;
          EXPECT_EQ(scan.records[j++].body, "record number " + std::to_string(i));
        }
        if (k + 2 < starts.size()) {
          // Inside the file: reported as damage, with its place and size, and the chain breaks once.
          ASSERT_EQ(scan.damaged.size(), 1u);
          EXPECT_EQ(scan.damaged[0].offset, starts[k]);
          EXPECT_EQ(scan.damaged[0].bytes, starts[k + 1] - starts[k]);
          EXPECT_EQ(scan.chain_breaks, std::vector<std::uint64_t>{starts[k + 1]});
          EXPECT_EQ(scan.valid_bytes, file.size());
        } else {
          // The last record: a torn tail (what a power cut leaves), dropped by the next writer.
          EXPECT_TRUE(scan.damaged.empty());
          EXPECT_EQ(scan.valid_bytes, starts[k]);
        }
        EXPECT_NE(scan.problem, "");
      }
    }
  }
  // Several damaged places, and garbage between records.
  std::string many = file.substr(0, starts[1]) + "garbage" + file.substr(starts[1], starts[3] - starts[1]);
  many += std::string(100, '\xE5') + file.substr(starts[4]);
  many[starts[2] + 7 + 20] ^= 0x10;
  auto scan = journal::scan_journal_bytes(many);
  ASSERT_EQ(scan.records.size(), 4u);  // 0, 1, 4, 5
  EXPECT_EQ(scan.records[1].body, "record number 1");
  EXPECT_EQ(scan.records[2].body, "record number 4");
  EXPECT_EQ(scan.damaged.size(), 2u);  // the garbage; record 2 with the run after it
}

// Read from its file a block at a time, a journal gives what scanning it whole gives: the same records, the
// same damage and problems, also where damage, a sync marker or a record spans a block's end, a record is
// longer than a block, and the tail is torn.
TEST(JournalFile, ReadingAFileRecordByRecordFindsWhatAScanFinds) {
  TempDir dir("reader");
  std::string file(journal::MAGIC);
  journal::Framer framer;
  std::vector<std::size_t> starts;
  for (int i = 0; file.size() < 3 * journal::RecordReader::READ_BLOCK; ++i) {
    starts.push_back(file.size());
    const std::size_t len =
        i == 40 ? journal::RecordReader::READ_BLOCK + 777 : std::size_t(20 + (i * 37) % 400);
    file += framer.frame(i % 3 ? 'S' : 'R', std::string(len, char('a' + i % 26)));
  }
  for (std::size_t k : {std::size_t(3), starts.size() / 2, starts.size() - 5})
    file[starts[k] + 30] ^= 0x20;  // three damaged records
  // Garbage holding a sync marker across the first block's end.
  const std::size_t block_end = journal::RecordReader::READ_BLOCK;
  const std::size_t at = *std::lower_bound(starts.begin(), starts.end(), block_end - 2);
  file.insert(at, std::string("xx") + std::string(journal::SYNC) + "yy");
  file += framer.frame('S', "torn").substr(0, 20);
  const fs::path path = dir.path / "A.journal";
  std::ofstream(path, std::ios::binary) << file;

  const journal::JournalScan whole = journal::scan_journal_bytes(file);
  auto reader = journal::RecordReader::open(path);
  ASSERT_TRUE(reader) << reader.error();
  std::vector<journal::FileRecord> records;
  while (auto r = reader->next()) records.push_back(std::move(*r));
  ASSERT_EQ(records.size(), whole.records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].offset, whole.records[i].offset);
    EXPECT_EQ(records[i].type, whole.records[i].type);
    EXPECT_EQ(records[i].body, whole.records[i].body);
  }
  const journal::JournalScan& read = reader->scan();
  EXPECT_EQ(read.problem, whole.problem);
  EXPECT_EQ(read.valid_bytes, whole.valid_bytes);
  EXPECT_EQ(read.damaged.size(), whole.damaged.size());
  EXPECT_EQ(read.chain_breaks, whole.chain_breaks);
  EXPECT_EQ(read.chain, whole.chain);
  EXPECT_GE(whole.damaged.size(), 4u);
  EXPECT_TRUE(whole.torn_tail());
  EXPECT_FALSE(journal::RecordReader::open(dir.path / "absent.journal"));
  std::ofstream(dir.path / "other", std::ios::binary) << "NOTOURS!";
  auto other = journal::RecordReader::open(dir.path / "other");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().find("wrong magic"), std::string::npos);
}

// The chain shows an edited record even when its checksum was recomputed, and a removed or inserted one.
TEST(JournalFile, ChainShowsAlteredRecords) {
  std::string file(journal::MAGIC);
  journal::Framer framer;
  std::vector<std::string> frames;
  for (int i = 0; i < 5; ++i) frames.push_back(framer.frame('E', "event " + std::to_string(i)));
  for (const auto& f : frames) file += f;
  auto clean = journal::scan_journal_bytes(file);
  EXPECT_TRUE(clean.chain_breaks.empty());
  EXPECT_EQ(clean.chain, framer.chain());
  // Record 2 rewritten with a valid checksum but its original link: record 3 no longer follows it.
  journal::Framer forger(2, journal::chain_start());
  for (int i = 0; i < 2; ++i) forger.frame('E', "event " + std::to_string(i));
  std::string edited = std::string(journal::MAGIC) + frames[0] + frames[1] + forger.frame('E', "event X") +
                       frames[3] + frames[4];
  auto scan = journal::scan_journal_bytes(edited);
  EXPECT_EQ(scan.records.size(), 5u);
  EXPECT_TRUE(scan.damaged.empty());
  ASSERT_EQ(scan.chain_breaks.size(), 1u);
  EXPECT_EQ(scan.chain_breaks[0], scan.records[3].offset);
  EXPECT_NE(scan.problem.find("does not link"), std::string::npos) << scan.problem;
  // A record removed.
  std::string removed = std::string(journal::MAGIC) + frames[0] + frames[2] + frames[3] + frames[4];
  EXPECT_EQ(journal::scan_journal_bytes(removed).chain_breaks.size(), 1u);
}

TEST(JournalFile, VersionOneFilesAreStillReadAndContinued) {
  std::string file(journal::MAGIC_V1);
  journal::Framer v1(1);
  file += v1.frame('S', "one");
  file += v1.frame('S', "two");
  auto scan = journal::scan_journal_bytes(file);
  EXPECT_EQ(scan.version, 1);
  ASSERT_EQ(scan.records.size(), 2u);
  TempDir dir("v1");
  write_file(dir.path / "j", file);
  {
    auto w = journal::JournalWriter::open(dir.path / "j");
    ASSERT_TRUE(w) << w.error();
    ASSERT_TRUE(w->append('S', "three"));
  }
  auto again = journal::scan_journal(dir.path / "j");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->version, 1);
  ASSERT_EQ(again->records.size(), 3u);
  EXPECT_EQ(again->records[2].body, "three");
}

TEST(JournalFile, UnreadableJournalsSayWhy) {
  TempDir dir("magic");
  write_file(dir.path / "j", "not a journal at all");
  auto bad = journal::scan_journal(dir.path / "j");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("not an eboardd journal"), std::string::npos);
  fs::create_directories(dir.path / "d");
  auto directory = journal::scan_journal(dir.path / "d");
  ASSERT_FALSE(directory);
  EXPECT_NE(directory.error().find("not a regular file"), std::string::npos) << directory.error();
  if (::geteuid() != 0) {  // root reads anything
    write_file(dir.path / "locked", std::string(journal::MAGIC));
    fs::permissions(dir.path / "locked", fs::perms::none);
    auto denied = journal::scan_journal(dir.path / "locked");
    ASSERT_FALSE(denied);
    EXPECT_NE(denied.error().find("Permission denied"), std::string::npos) << denied.error();
  }
  // The copy kept aside is the file, byte for byte.
  write_file(dir.path / "k", "eboardJ2 whatever bytes \x01\x02");
  auto copy = journal::keep_damaged_copy(dir.path / "k", 1234);
  ASSERT_TRUE(copy) << copy.error();
  EXPECT_EQ(copy->filename(), "k.damaged-1234");
  EXPECT_EQ(read_file(*copy), read_file(dir.path / "k"));
}

TEST(Records, EveryKindRoundTrips) {
  rules::ClockReading clock;
  clock.left_ms = 61000;
  clock.right_ms = 59000;
  clock.running = true;
  clock.lever_up = rules::ClockSide::Right;
  clock.right_flag = true;
  std::vector<journal::Entry> entries = {
      journal::HeaderEntry{1, "A", T0},
      journal::NewGameEntry{T0, "fide-blitz", true,
                            "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1"},
      journal::NewGameEntry{T0, "fide-standard", false, "", 0, true},
      rules::SensorEvent{T0 + 1, rules::PieceLifted{12}},
      rules::SensorEvent{T0 + 2, rules::PiecePlaced{28, rules::W_PAWN}},
      rules::SensorEvent{T0 + 3, rules::BoardSnapshot{rules::Position::start().board()}},
      rules::SensorEvent{T0 + 4, clock},
      rules::SensorEvent{T0 + 5, rules::DeviceLink{false}},
      journal::AdvanceEntry{T0 + 6},
      journal::EventEntry{R"({"t":1,"type":"move"})"},
      journal::TagsEntry{T0 + 7, {{"White", "Anna \"the rook\""}, {"Round", ""}}},
      journal::RawEntry{T0 + 8, drivers::Direction::ToBoard, {0x42, 0x00, 0xff}},
      journal::GapOrderEntry{T0 + 9, 3, {{"g1f3", "b8c6"}, {"b1c3", "g8f6"}}},
  };
  for (const auto& e : entries) {
    auto back = journal::decode_entry(journal::record_type(e), journal::encode_body(e));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(journal::encode_body(*back), journal::encode_body(e));
    EXPECT_EQ(back->index(), e.index());
  }
  EXPECT_FALSE(std::get<journal::NewGameEntry>(*journal::decode_entry('N', journal::encode_body(entries[1])))
                   .hold_uncounted);
  EXPECT_TRUE(std::get<journal::NewGameEntry>(*journal::decode_entry('N', journal::encode_body(entries[2])))
                  .hold_uncounted);
  auto snap = std::get<rules::SensorEvent>(*journal::decode_entry('S', journal::encode_body(entries[5])));
  EXPECT_EQ(std::get<rules::BoardSnapshot>(snap.what).squares, rules::Position::start().board());
  auto c = std::get<rules::ClockReading>(
      std::get<rules::SensorEvent>(*journal::decode_entry('S', journal::encode_body(entries[6]))).what);
  EXPECT_EQ(c.left_ms, 61000);
  EXPECT_EQ(c.lever_up, rules::ClockSide::Right);
  EXPECT_TRUE(c.right_flag);
  EXPECT_FALSE(journal::decode_entry('S', R"({"t":1,"lift":"z9"})"));
  EXPECT_FALSE(journal::decode_entry('S', "not json"));
  const auto order =
      std::get<journal::GapOrderEntry>(*journal::decode_entry('O', journal::encode_body(entries[12])));
  EXPECT_EQ(order.first_ply, 3);
  EXPECT_EQ(order.candidates[1], (std::vector<std::string>{"b1c3", "g8f6"}));
  EXPECT_FALSE(journal::decode_entry('O', R"({"t":1,"first_ply":3,"candidates":[["e2e4"],[7]]})"));
  EXPECT_FALSE(journal::decode_entry('Q', "{}"));
}

// A typed move (a board without wood) keeps its clocks; a control record without them reads as before.
TEST(Records, TypedMoveControlKeepsItsClocks) {
  journal::ControlEntry typed{T0, "move", "", "Nbd7", 5350000, 5300000};
  auto back = journal::decode_entry('C', journal::encode_body(typed));
  ASSERT_TRUE(back) << back.error();
  const auto& c = std::get<journal::ControlEntry>(*back);
  EXPECT_EQ(c.value, "Nbd7");
  EXPECT_EQ(c.white_ms, 5350000);
  EXPECT_EQ(c.black_ms, 5300000);
  const std::string old_body = R"({"action":"resign","side":"black","t":5,"value":""})";
  auto plain = journal::decode_entry('C', old_body);
  ASSERT_TRUE(plain) << plain.error();
  EXPECT_EQ(std::get<journal::ControlEntry>(*plain).white_ms, -1);
  EXPECT_EQ(journal::encode_body(*plain), old_body);  // written as before: no clock fields
}

// A clock reading's body is written by hand (one a second per board): byte for byte the JSON tree's dump,
// so journals stay the same whichever wrote them.
TEST(Records, ClockReadingBodyIsTheJsonDump) {
  for (int i = 0; i < 64; ++i) {
    rules::ClockReading c;
    c.left_ms = i * 977 - 3000;
    c.right_ms = std::int64_t{i} * 123456789;
    c.running = (i & 1) != 0;
    c.lever_up = (i & 2) ? rules::ClockSide::Right : rules::ClockSide::Left;
    c.left_flag = (i & 4) != 0;
    c.right_flag = (i & 8) != 0;
    c.present = (i & 16) != 0;
    const std::int64_t t = T0 + i * (i & 32 ? -1 : 1);
    const nlohmann::json want{{"t", t},
                              {"clock",
                               {{"left", c.left_ms},
                                {"right", c.right_ms},
                                {"running", c.running},
                                {"up", c.lever_up == rules::ClockSide::Left ? "left" : "right"},
                                {"left_flag", c.left_flag},
                                {"right_flag", c.right_flag},
                                {"present", c.present}}}};
    EXPECT_EQ(journal::encode_body(rules::SensorEvent{t, c}), want.dump());
  }
}

// A game played half, the daemon gone (the journal as it was written), a new daemon on the same state
// directory: the replay reproduces every published event, and the game continues exactly as a run
// without the interruption.
TEST(Recovery, ReplayReproducesEventsAndTheGameContinuesExactly) {
  const sim::Timeline tl = test_support::short_game(T0);
  const Reference ref = reference_run(tl);
  ASSERT_EQ(ref.moves.size(), 12u);

  TempDir dir("resume");
  std::vector<std::string> all;
  const std::size_t half = tl.events.size() / 2;
  {
    Board first(dir.path);
    for (std::size_t i = 0; i < half; ++i) first.source->feed(tl.events[i]);
    all = first.published;
  }  // gone (what it wrote is in the file: every record is written at once)
  Board second(dir.path);
  const journal::Recovery& r = second.rt->recovery();
  EXPECT_TRUE(r.exact()) << (r.mismatches.empty() ? "" : r.mismatches[0]);
  EXPECT_EQ(r.journaled_events, all.size());
  EXPECT_EQ(r.matched_events, all.size());
  EXPECT_TRUE(r.torn.empty()) << r.torn;
  EXPECT_GT(second.source->machine().game().ply_count(), 2);
  for (std::size_t i = half; i < tl.events.size(); ++i) second.source->feed(tl.events[i]);
  second.source->advance(tl.end_ms + 10000);
  all.insert(all.end(), second.published.begin(), second.published.end());
  EXPECT_EQ(all, ref.events);
  EXPECT_EQ(test_support::move_ucis(second.rt->game()), ref.moves);
  EXPECT_EQ(second.rt->ledger().game_number(), 1);
}

// kill -9 (or a power cut after the last sync) in the middle of writing one of the last records: the
// journal ends with part of a record. Recovery keeps everything before it, reproduces what was
// journaled, and re-derives what the lost records would have said: nothing published is lost or doubled.
TEST(Recovery, CutAtEveryByteOfTheLastRecords) {
  const sim::Timeline tl = test_support::short_game(T0, 11);
  TempDir dir("cut");
  std::vector<std::string> published;
  {
    Board b(dir.path);
    for (const auto& e : tl.events) b.source->feed(e);
    published = b.published;
  }
  const fs::path jpath = dir.path / "journal" / "A.journal";
  const std::string full = read_file(jpath);
  auto scan = journal::scan_journal_bytes(full);
  ASSERT_TRUE(scan.problem.empty());
  ASSERT_GE(scan.records.size(), 8u);
  int cuts = 0;
  for (std::size_t k = scan.records.size() - 6; k < scan.records.size(); ++k) {
    const std::size_t start = scan.records[k].offset;
    const std::size_t end = k + 1 < scan.records.size() ? scan.records[k + 1].offset : full.size();
    for (std::size_t cut = start; cut < end; ++cut, ++cuts) {
      auto s = journal::scan_journal_bytes(std::string_view(full).substr(0, cut));
      ASSERT_EQ(s.records.size(), k);
      journal::Recovery r = journal::recover(s, "A");
      ASSERT_TRUE(r.exact()) << "cut at " << cut << ": " << (r.mismatches.empty() ? "" : r.mismatches[0]);
      ASSERT_EQ(r.matched_events, r.journaled_events);
      // Journaled plus re-derived = a prefix of what the live board published, in order.
      std::vector<std::string> got;
      for (std::size_t i = 0; i < r.journaled_events; ++i) got.push_back(published[i]);
      for (const auto& e : r.unjournaled) got.push_back(daemon::to_json_line(e));
      ASSERT_LE(got.size(), published.size());
      EXPECT_TRUE(std::equal(got.begin(), got.end(), published.begin())) << "cut at " << cut;
    }
  }
  EXPECT_GT(cuts, 100);

  // And the daemon itself on such a journal: the torn tail is cut off, the game goes on.
  const std::size_t cut = scan.records.back().offset + 5;
  write_file(jpath, std::string_view(full).substr(0, cut));
  {
    Board b(dir.path);
    EXPECT_FALSE(b.rt->recovery().torn.empty());
    EXPECT_TRUE(b.rt->recovery().exact());
  }
  auto after = journal::scan_journal(jpath);
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->problem.empty()) << after->problem;
}

// An event a timer made, journaled without the tick saying when the timer ran, last in the journal (kill -9
// before anything else came): replay runs the timers to the event's own time and makes it again. Tried
// after every sensor event of a game with a timer due.
TEST(Recovery, ATimersEventWithoutItsTickIsMadeAgainAtTheJournalsEnd) {
  const sim::Timeline tl = test_support::short_game(T0, 5);
  int timed = 0;
  for (std::size_t n = 1; n <= tl.events.size(); ++n) {
    TempDir dir("untimed");
    std::size_t published = 0;
    {
      Board b(dir.path);
      for (std::size_t i = 0; i < n; ++i) b.source->feed(tl.events[i]);
      const auto due = b.source->machine().next_deadline();
      if (!due) continue;
      const std::size_t before = b.published.size();
      b.source->advance_untimed(*due + 1);
      if (b.published.size() == before) continue;
      ++timed;
      published = b.published.size();
    }
    Board again(dir.path);
    const journal::Recovery& r = again.rt->recovery();
    EXPECT_TRUE(r.exact()) << "after event " << n << ": " << (r.mismatches.empty() ? "" : r.mismatches[0]);
    EXPECT_EQ(r.journaled_events, published) << "after event " << n;
    EXPECT_EQ(r.matched_events, published) << "after event " << n;
  }
  EXPECT_GT(timed, 5);
}

TEST(Runtime, NewGamesAndTagsSurviveARestart) {
  TempDir dir("tags");
  const sim::Timeline tl = test_support::short_game(T0, 3, 6);
  {
    Board b(dir.path);
    EXPECT_EQ(b.rt->ledger().game_number(), 1);
    for (const auto& e : tl.events) b.source->feed(e);
    b.source->advance(tl.end_ms + 5000);
    EXPECT_EQ(b.rt->game().ply_count(), 6);
    ASSERT_TRUE(b.rt->update_tags({{"White", "Anna"}, {"Black", "Boris"}, {"Event", "Club"}}));
    EXPECT_FALSE(b.rt->update_tags({{"Result", "1-0"}}));
    EXPECT_FALSE(b.rt->update_tags({{"Bad Name", "x"}}));
    auto n = b.rt->new_game();
    ASSERT_TRUE(n) << n.error();
    EXPECT_EQ(*n, 2);
    EXPECT_EQ(b.source->new_games, 1);
    EXPECT_EQ(b.rt->game().ply_count(), 0);
    ASSERT_TRUE(b.rt->update_tags({{"White", "Carla"}}));
    EXPECT_FALSE(b.rt->new_game("not a fen"));
  }
  Board b(dir.path);
  EXPECT_EQ(b.rt->ledger().game_number(), 2);
  EXPECT_EQ(b.rt->game().ply_count(), 0);
  std::string pgn = b.rt->pgn();
  EXPECT_NE(pgn.find("[White \"Carla\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[Event \"Club\"]"), std::string::npos) << pgn;  // the event stays with the board
  // The players stay too, until named again: the next game on the board is theirs as well.
  EXPECT_NE(pgn.find("[Black \"Boris\"]"), std::string::npos) << pgn;
  // Both games have their PGN file; the first holds its moves and tags.
  int files = 0;
  bool first_found = false;
  for (const auto& f : fs::directory_iterator(dir.path / "games")) {
    ++files;
    std::string text = read_file(f.path());
    if (text.find("Anna") != std::string::npos) first_found = text.find("1. e4") != std::string::npos;
  }
  EXPECT_EQ(files, 2);
  EXPECT_TRUE(first_found);
}

// A board of Chess960 games shows the standard start until it is read; its set-up then begins the game
// played, and that game is the board's game 1 with the tags the arbiter gave before it (a game with no ply
// and no result is not counted), after a restart too. The game after it is game 2.
TEST(Runtime, AChess960SetUpReadFirstIsTheBoardsGameOne) {
  TempDir dir("chess960");
  const std::string fen = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1";
  const auto start = rules::Position::from_fen(fen, rules::Variant::Chess, true);
  ASSERT_TRUE(start) << start.error();
  {
    Board b(dir.path, T0, true);
    EXPECT_EQ(b.rt->ledger().game_number(), 1);
    ASSERT_TRUE(b.rt->update_tags({{"Round", "4"}, {"White", "Anna"}}));
    b.source->feed({T0 + 1'000, rules::BoardSnapshot{start->board()}});
    EXPECT_EQ(b.rt->game().start().board(), start->board()) << b.rt->game().start().fen();
    EXPECT_EQ(b.rt->ledger().game_number(), 1) << "the standard start nobody played is no game";
    const std::string pgn = b.rt->pgn();
    EXPECT_NE(pgn.find("[Round \"4\"]"), std::string::npos) << pgn;
    EXPECT_NE(pgn.find("[White \"Anna\"]"), std::string::npos) << pgn;
    EXPECT_NE(pgn.find("bqnbrkrn/pppppppp"), std::string::npos) << pgn;
  }
  Board b(dir.path, T0 + 2'000, true);
  EXPECT_TRUE(b.rt->recovery().exact())
      << (b.rt->recovery().mismatches.empty() ? "" : b.rt->recovery().mismatches[0]);
  EXPECT_EQ(b.rt->ledger().game_number(), 1);
  EXPECT_EQ(b.rt->game().start().board(), start->board());
  EXPECT_NE(b.rt->pgn().find("[Round \"4\"]"), std::string::npos) << b.rt->pgn();
  // Played, then set up again: the next game is counted.
  sim::TimelineSpec spec;
  spec.start = *start;
  for (const char* m : {"g2g3", "g7g6"}) {
    spec.moves.push_back(*rules::parse_uci(spec.start, m));
    spec.start.do_move(spec.moves.back());
  }
  spec.start = *start;
  spec.white = spec.black = sim::HandStyle::tidy();
  spec.start_ms = T0 + 3'000;
  const sim::Timeline tl = sim::build_timeline(spec);
  for (const auto& e : tl.events) b.source->feed(e);
  b.source->advance(tl.end_ms + 5'000);
  ASSERT_EQ(b.rt->game().ply_count(), 2);
  b.source->feed({tl.end_ms + 20'000, rules::BoardSnapshot{start->board()}});
  EXPECT_EQ(b.rt->game().ply_count(), 0);
  EXPECT_EQ(b.rt->ledger().game_number(), 2);
}

// CONTRACTS §3 `link`: once per change, told on the feed and in /status, in the snapshot while the board is
// away, never journaled as an event (replay must not see it), and forgotten by a restart (learned afresh).
TEST(Runtime, LinkEventsOncePerChangeInStatusAndSnapshotNotJournaled) {
  TempDir dir("link");
  const sim::Timeline tl = test_support::short_game(T0, 3, 4);
  const auto link_lines = [](const std::vector<std::string>& lines) {
    std::vector<nlohmann::json> out;
    for (const auto& l : lines)
      if (auto j = nlohmann::json::parse(l, nullptr, false); j.is_object() && j.value("type", "") == "link")
        out.push_back(j);
    return out;
  };
  {
    Board b(dir.path);
    EXPECT_FALSE(b.rt->status().contains("link_state"));  // the source has not reported a link
    b.rt->link_changed(T0 + 1, true, "connected on /dev/pts/7");
    EXPECT_TRUE(link_lines(b.published).empty());  // came up with the daemon: never missing
    EXPECT_EQ(
        b.rt->status()["link_state"],
        nlohmann::json({{"state", "online"}, {"since", T0 + 1}, {"reason", "connected on /dev/pts/7"}}));
    for (std::size_t i = 0; i < tl.events.size() / 2; ++i) b.source->feed(tl.events[i]);
    b.rt->link_changed(T0 + 50000, false, "device removed: Input/output error");
    b.rt->link_changed(T0 + 50200, false, "device absent: /dev/pts/7: no such device");  // a retry
    b.rt->link_changed(T0 + 50600, false, "device absent: /dev/pts/7: no such device");
    auto told = link_lines(b.published);
    ASSERT_EQ(told.size(), 1u);
    EXPECT_EQ(told[0], nlohmann::json({{"t", T0 + 50000},
                                       {"board", "A"},
                                       {"type", "link"},
                                       {"state", "offline"},
                                       {"reason", "device removed: Input/output error"}}));
    EXPECT_EQ(b.rt->status()["link_state"]["since"], T0 + 50000);
    EXPECT_EQ(b.rt->status()["link_state"]["reason"], "device removed: Input/output error");
    // A client connecting now is told, last, with the event that told it.
    auto snap = b.rt->snapshot();
    ASSERT_FALSE(snap.empty());
    EXPECT_EQ(nlohmann::json::parse(snap.back()), told[0]);
    EXPECT_EQ(link_lines(snap).size(), 1u);
    b.rt->link_changed(T0 + 52000, true, "connected on /dev/pts/8");
    told = link_lines(b.published);
    ASSERT_EQ(told.size(), 2u);
    EXPECT_EQ(told[1]["state"], "online");
    EXPECT_EQ(told[1]["reason"], "connected on /dev/pts/8");
    EXPECT_TRUE(link_lines(b.rt->snapshot()).empty());
    for (std::size_t i = tl.events.size() / 2; i < tl.events.size(); ++i) b.source->feed(tl.events[i]);
    EXPECT_EQ(b.rt->game().ply_count(), 4);
  }
  auto scan = journal::scan_journal(dir.path / "journal" / "A.journal");
  ASSERT_TRUE(scan) << scan.error();
  for (const auto& r : scan->records) {
    if (r.type != 'E') continue;
    EXPECT_EQ(r.body.find("\"link\""), std::string::npos) << r.body;
  }
  Board b(dir.path);
  EXPECT_EQ(b.rt->game().ply_count(), 4);
  EXPECT_EQ(b.rt->status()["journal"]["recovery"]["mismatched_events"], 0);
  EXPECT_FALSE(b.rt->status().contains("link_state"));
  EXPECT_TRUE(link_lines(b.rt->snapshot()).empty());
  EXPECT_TRUE(link_lines(b.published).empty());
}

TEST(Runtime, ExportsTheRawBytesAsACapture) {
  TempDir dir("cap");
  Board b(dir.path);
  const std::vector<std::uint8_t> hello = {0x86, 0x00, 0x43}, more = {0x08, 0x09}, cmd = {0x42};
  b.rt->wire(T0 + 100, drivers::Direction::ToBoard, cmd);
  b.rt->wire(T0 + 350, drivers::Direction::FromBoard, hello);
  b.rt->wire(T0 + 351, drivers::Direction::FromBoard, more);
  auto text = b.rt->capture();
  ASSERT_TRUE(text) << text.error();
  auto cap = drivers::parse_capture(*text);
  ASSERT_TRUE(cap) << cap.error() << "\n" << *text;
  EXPECT_EQ(cap->info.board, "A");
  EXPECT_EQ(cap->info.protocol, "dgt");
  ASSERT_EQ(cap->records.size(), 3u);
  EXPECT_EQ(cap->records[0].t_ms, 0);
  EXPECT_EQ(cap->records[0].direction, drivers::Direction::ToBoard);
  EXPECT_EQ(cap->records[1].t_ms, 250);
  EXPECT_EQ(cap->records[1].bytes, hello);
  EXPECT_EQ(cap->records[2].bytes, more);
}

// The export streamed in small pieces is the capture made whole from a scan, line for line.
TEST(Runtime, TheStreamedCaptureIsTheWholeOne) {
  TempDir dir("cap-stream");
  Board b(dir.path);
  for (int i = 0; i < 3000; ++i)
    b.rt->wire(T0 + 100 + i, i % 2 ? drivers::Direction::ToBoard : drivers::Direction::FromBoard,
               std::vector<std::uint8_t>(std::size_t(1 + i % 40), std::uint8_t(i)));
  b.rt->stop();
  auto scan = journal::scan_journal(b.rt->journal_path());
  ASSERT_TRUE(scan) << scan.error();
  const std::string whole = drivers::format_capture(journal::export_capture(*scan, "A"));
  auto exporter = journal::CaptureExport::open(b.rt->journal_path(), "A");
  ASSERT_TRUE(exporter) << exporter.error();
  std::string streamed;
  std::size_t pieces = 0, longest = 0;
  for (std::string piece; !(piece = exporter->next(1000)).empty(); ++pieces) {
    longest = std::max(longest, piece.size());
    streamed += piece;
  }
  EXPECT_EQ(streamed, whole);
  EXPECT_GT(pieces, 100u);
  EXPECT_LT(longest, 1000u + 200u);  // a piece ends at the first line past the size asked
  EXPECT_TRUE(exporter->next(1000).empty());
}

// Not a pass/fail test: what fdatasync costs here, for the batching policy (printed in the test log).
TEST(Fsync, CostOnThisMachine) {
  TempDir dir("fsync");
  auto w = journal::JournalWriter::open(dir.path / "j");
  ASSERT_TRUE(w);
  const std::string sensor = R"({"t":1700000000000,"place":"e4","piece":"P"})";
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(w->append('S', sensor));
    ASSERT_TRUE(w->sync());
  }
  const auto& s = w->stats();
  std::printf("fdatasync after every record (%s): %llu syncs, mean %lld us, max %lld us\n",
              dir.path.parent_path().c_str(), static_cast<unsigned long long>(s.syncs),
              static_cast<long long>(s.sync_total.count() / std::int64_t(s.syncs)),
              static_cast<long long>(s.sync_max.count()));
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(w->append('S', sensor));
  auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
  std::printf("write(2) without sync: %.1f us per record\n", double(us) / 1000.0);
  EXPECT_EQ(s.syncs, 100u);
}
