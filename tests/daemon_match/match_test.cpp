// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A bughouse match inside eboardd: the demo's simulated inputs of a corpus match are fed, in time order and
// in virtual time, to the Service's MatchRuntime (the way its feeds do), then the match is checked as the
// daemon serves it (/matches/A-B.bpgn, the .bpgn file, /status), and recovered from a copy of the state
// directory taken mid-match (what a kill -9 leaves: every record is written as it happens).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <sys/wait.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/demo_match.hpp"
#include "daemon/eboardd/service.hpp"
#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/rotation.hpp"
#include "daemon/journal/signing.hpp"
#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/background_work.hpp"
#include "daemon/outputs/pgn_output.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"
#include "tests/daemon_journal/manual_source.hpp"

namespace eboard {
namespace {

namespace fs = std::filesystem;

const fs::path BPGN =
    fs::path(EBOARD_SHARED_DIR) / "corpora" / "bughouse" / "chesscom_bughouse_20matches.bpgn";
constexpr std::int64_t T0 = 1'760'000'000'000;

fs::path fresh_dir(const std::string& name) {
  // In memory where possible: a move costs a few fdatasyncs, which a busy disk makes slow.
  const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  fs::path d = base / ("eboard-match-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The Service of a configuration with boards A and B in a match; the test is the match's feed.
class Daemon {
 public:
  // `event`: an [event] table, or nothing; `http`: more lines of [http].
  explicit Daemon(const fs::path& dir, const std::string& event = "", const std::string& http = "") {
    auto cfg = config::parse_config(event + "[http]\nlisten = \"127.0.0.1:0\"\n" + http +
                                        "[[board]]\nid = \"A\"\nport = \"/dev/eboard-test-A\"\n"
                                        "[[board]]\nid = \"B\"\nport = \"/dev/eboard-test-B\"\n"
                                        "[[match]]\nboards = [\"A\", \"B\"]\nrules = \"bughouse-fqe\"\n",
                                    "match.toml");
    EXPECT_TRUE(cfg) << cfg.error().what();
    cfg->state_dir = dir.string();
    eboardd::ServiceOptions o;
    o.clock = [this] { return now_; };
    o.match_feed_factory = [](eboardd::MatchRuntime&) { return std::unique_ptr<eboardd::MatchFeed>(); };
    service_ = std::make_unique<eboardd::Service>(io_, *cfg, o);
    auto ok = service_->start();
    EXPECT_TRUE(ok) << ok.error();
  }

  eboardd::Service& service() { return *service_; }
  eboardd::MatchRuntime& match() { return *service_->match("A-B"); }

  // One input at `t`, with the timer advances a live match makes before it (a little after each deadline).
  void feed(const eboardd::DemoMatchInput& in, std::int64_t t) {
    run_timers_until(t);
    now_ = std::max(now_, t);
    if (in.sensor) {
      rules::SensorEvent e = *in.sensor;
      e.t_ms = t;
      match().on_sensor(in.board, e);
    } else {
      journal::ControlEntry c = in.naming;
      c.t_ms = t;
      auto ok = match().control(in.board, c);
      EXPECT_TRUE(ok) << ok.error();
    }
  }
  void run_timers_until(std::int64_t t) {
    while (auto d = match().match().next_deadline()) {
      if (*d + 3 >= t) break;
      now_ = std::max(now_, *d + 3);
      match().advance(*d + 3);
    }
  }
  http::Response get(const std::string& target) {
    http::Request r;
    r.method = "GET";
    r.target = target;
    r.path = target.substr(0, target.find('?'));
    if (target.find('?') != std::string::npos) r.query = target.substr(target.find('?') + 1);
    return service_->handle(r);
  }
  // A control request with the token, its answer waited for while the loop runs (the file work of an
  // arbiter's correction is done on the background worker, and the answer made on the loop after it).
  http::Response post(const std::string& path, const std::string& body, const std::string& token) {
    http::Request r;
    r.method = "POST";
    r.target = r.path = path;
    r.body = body;
    r.authorization = "Bearer " + token;
    r.content_type = "application/json";
    http::Response res = service_->handle(r);
    if (!res.deferred) return res;
    std::atomic<bool> answered{false};
    http::Response out;
    std::thread waiter([&] {
      out = res.deferred();
      answered = true;
    });
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!answered && std::chrono::steady_clock::now() < give_up) {
      io_.restart();
      io_.run_for(std::chrono::milliseconds(2));
    }
    waiter.join();
    return out;
  }
  std::int64_t now() const { return now_; }
  // What the background writer holds for `path` is written (archives are written off the loop).
  void flush(const fs::path& path) {
    eboardd::background_work(io_).drain();  // a signature, and its archive, are handed to the writer there
    auto ok = eboardd::background_files(io_).flush(path);
    EXPECT_TRUE(ok) << ok.error();
  }
  // Everything the background writer holds for files in `dir` is written.
  void flush_dir(const fs::path& dir) {
    eboardd::background_work(io_).drain();
    for (const fs::path& p : eboardd::background_files(io_).unwritten_in(dir, "")) flush(p);
  }
  // Runs the io_context until both boards' journals have rotated to the new match's files (made on the
  // background worker, taken back on the loop), as a new-match request's answer waits for.
  void rotated() {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < give_up) {
      if (!service_->board("A")->rotation_deferred() && !service_->board("B")->rotation_deferred()) return;
      io_.restart();
      io_.run_for(std::chrono::milliseconds(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ADD_FAILURE() << "the journals did not rotate within 15 s";
  }
  // Runs the io_context until both boards have published what they journaled: a move is published (and
  // shown in the BPGN) once a syncer thread made it durable and handed it back to the loop.
  void settle() {
    // 15 s: a syncer's fdatasync can take seconds on a disk loaded by other builds.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < give_up) {
      bool waiting = false;
      for (const char* id : {"A", "B"})
        waiting |= service_->board(id)->status()["journal"]["awaiting_sync"] != 0;
      if (!waiting) return;
      io_.restart();
      io_.run_for(std::chrono::milliseconds(1));  // returns at once while nothing is posted yet
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ADD_FAILURE() << "events still waiting for the journal after 15 s";
  }

 private:
  boost::asio::io_context io_;
  std::int64_t now_ = T0;
  std::unique_ptr<eboardd::Service> service_;
};

struct Corpus {
  std::vector<rules::BughouseRecord> matches;
};

const Corpus* corpus() {
  static const Corpus c = [] {
    Corpus out;
    auto games = rules::read_bpgn(slurp(BPGN));
    if (!games) return out;
    for (const auto& g : *games)
      if (auto r = rules::replay_bughouse(g)) out.matches.push_back(std::move(*r));
    return out;
  }();
  return &c;
}

std::array<std::vector<std::string>, 2> moves_by_board(const rules::BughouseRecord& rec) {
  std::array<std::vector<std::string>, 2> out;
  std::array<rules::Position, 2> pos = rec.start;
  for (const auto& m : rec.moves) {
    out[std::size_t(m.board)].push_back(rules::to_uci(pos[std::size_t(m.board)], m.move));
    rules::play_bughouse_move(pos, m.board, m.move);
  }
  return out;
}

// The alerts both boards journaled as published.
int journaled_alerts(const fs::path& dir, std::string* first) {
  int n = 0;
  for (const char* id : {"A", "B"}) {
    auto scan = journal::scan_journal(dir / "journal" / (std::string(id) + ".journal"));
    if (!scan) continue;
    for (const auto& r : scan->records)
      if (r.type == 'E' && r.body.find("\"type\":\"alert\"") != std::string::npos) {
        if (!n++ && first) *first = r.body;
      }
  }
  return n;
}

// Every reserve of both boards (board, colour, piece type).
std::vector<int> reserves(const rules::Match& m) {
  std::vector<int> out;
  for (int b = 0; b < 2; ++b)
    for (rules::Color c : {rules::WHITE, rules::BLACK})
      for (int t = rules::PAWN; t <= rules::QUEEN; ++t) out.push_back(m.reserve(b, c, rules::PieceType(t)));
  return out;
}

constexpr std::int64_t ORIGIN = T0 + 1000;

void play(Daemon& d, const std::vector<eboardd::DemoMatchInput>& inputs, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to && i < inputs.size(); ++i) d.feed(inputs[i], ORIGIN + inputs[i].t);
}

// After the last input: the timers run out, and a resignation the record ends with is entered by the
// arbiter (the loser of that board: team 1 is White on A and Black on B).
void finish(Daemon& d, const std::vector<eboardd::DemoMatchInput>& inputs, const rules::BughouseRecord& rec) {
  std::int64_t end = ORIGIN + (inputs.empty() ? 0 : inputs.back().t) + 10000;
  d.run_timers_until(end);
  d.match().advance(end);
  for (int b = 0; b < 2 && !d.match().match().result(); ++b) {
    if (rules::find_tag(rec.tags, b == 0 ? "EndReasonA" : "EndReasonB").value_or("") != "resigned") continue;
    const bool team1_won = rec.result == "1-0";
    const bool white_lost = (b == 0) != team1_won;
    auto ok = d.match().control(b, journal::ControlEntry{end, "resign", white_lost ? "white" : "black", ""});
    EXPECT_TRUE(ok) << ok.error();
  }
  d.match().advance(end + 5000);
  d.settle();
}

// The players, as an arbiter enters them (POST /control/<id>/tags).
void set_players(Daemon& d, const rules::BughouseRecord& rec) {
  for (int b = 0; b < 2; ++b) {
    auto tag = [&](const char* n) { return std::string(rules::find_tag(rec.tags, n).value_or("?")); };
    auto ok = d.service()
                  .board(b == 0 ? "A" : "B")
                  ->update_tags({{"White", tag(b == 0 ? "WhiteA" : "WhiteB")},
                                 {"Black", tag(b == 0 ? "BlackA" : "BlackB")}});
    EXPECT_TRUE(ok) << ok.error();
  }
}

TEST(DaemonMatch, CorpusMatchesAreReconstructedAndServedAsBpgn) {
  if (!fs::exists(BPGN)) GTEST_SKIP() << "../shared is absent";
  ASSERT_EQ(corpus()->matches.size(), 20u);
  int signed_matches = 0;
  for (std::size_t k = 0; k < corpus()->matches.size(); ++k) {
    SCOPED_TRACE("corpus match " + std::to_string(k + 1));
    const rules::BughouseRecord& rec = corpus()->matches[k];
    const auto inputs = eboardd::plan_demo_match(rec, 1.0, 1000 + k).inputs;
    const fs::path dir = fresh_dir("served-" + std::to_string(k));
    auto daemon = std::make_unique<Daemon>(dir);  // gone before its directory (its writer thread)
    Daemon& d = *daemon;
    set_players(d, rec);
    play(d, inputs, 0, inputs.size());
    finish(d, inputs, rec);

    std::string first_alert;
    EXPECT_EQ(journaled_alerts(dir, &first_alert), 0) << first_alert;
    // Each board's game is the record's, but for moves made after the match was decided (the other game
    // is then stopped, FQE 4; the simulated hands are slower than chess.com's premoves).
    const auto want = moves_by_board(rec);
    const rules::Match& m = d.match().match();
    // A match lost on time is not decided here: the simulated clocks have time to spare.
    bool decided_on_board = false;
    for (const char* t : {"EndReasonA", "EndReasonB"}) {
      auto why = rules::find_tag(rec.tags, t).value_or("");
      decided_on_board |= why == "checkmated" || why == "resigned";
    }
    if (decided_on_board) {
      ASSERT_TRUE(m.result().has_value());
      EXPECT_EQ(rules::result_string(m.result()->result), rec.result);
    }
    const std::string result = m.result() ? rules::result_string(m.result()->result) : "*";
    std::array<std::vector<std::string>, 2> got;
    for (int b = 0; b < 2; ++b) {
      got[std::size_t(b)] = test_support::move_ucis(m.board(b).game());
      const auto& w = want[std::size_t(b)];
      const auto& g = got[std::size_t(b)];
      ASSERT_LE(g.size(), w.size());
      EXPECT_TRUE(std::equal(g.begin(), g.end(), w.begin())) << "board " << b;
      // Only the game the match's end stopped may miss the moves its players made after that.
      const auto& outcome = m.board(b).game().outcome();
      if (!outcome || outcome->reason != "partner-board") {
        EXPECT_EQ(g.size(), w.size()) << "board " << b;
      }
    }
    EXPECT_GT(got[0].size() + got[1].size(), 40u);

    // /matches/A-B.bpgn reads back to the same moves and result; the file holds the same text.
    http::Response res = d.get("/matches/A-B.bpgn");
    ASSERT_EQ(res.status, 200u) << res.body;
    auto games = rules::read_bpgn(res.body);
    ASSERT_TRUE(games) << games.error();
    ASSERT_EQ(games->size(), 1u);
    auto back = rules::replay_bughouse(games->front());
    ASSERT_TRUE(back) << back.error() << "\n" << res.body;
    EXPECT_EQ(moves_by_board(*back), got);
    EXPECT_EQ(back->result, result);
    for (const char* tag : {"WhiteA", "BlackA", "WhiteB", "BlackB"})
      EXPECT_EQ(rules::find_tag(back->tags, tag).value_or(""), rules::find_tag(rec.tags, tag).value_or("-"))
          << tag;
    EXPECT_NE(res.body.find("1A. "), std::string::npos);
    EXPECT_NE(res.body.find("1b. "), std::string::npos);
    EXPECT_NE(res.body.find('@'), std::string::npos);  // drops
    d.flush(d.match().bpgn_path());
    EXPECT_EQ(slurp(d.match().bpgn_path()), res.body);
    // A decided match's BPGN is signed, over both boards' journals, with the daemon's key.
    fs::path sig = d.match().bpgn_path();
    sig += ".sig";
    d.flush(sig);
    EXPECT_EQ(fs::exists(sig), m.result().has_value());
    if (m.result()) {
      ++signed_matches;
      auto signed_record = journal::parse_signature_file(slurp(sig));
      ASSERT_TRUE(signed_record) << signed_record.error();
      EXPECT_TRUE(journal::record_signature_valid(*signed_record));
      EXPECT_EQ(signed_record->key.fingerprint(), d.service().status()["signing"]["fingerprint"]);
      EXPECT_EQ(signed_record->board, "A-B");
      const journal::Finding archive = journal::check_archive(signed_record->archive, res.body);
      EXPECT_TRUE(archive.intact) << archive.text;
      ASSERT_EQ(signed_record->journals.size(), 2u);
      for (const journal::JournalSeal& seal : signed_record->journals) {
        const journal::Finding f = journal::check_sealed_journal(seal, slurp(dir / "journal" / seal.file));
        EXPECT_TRUE(f.intact) << seal.file << ": " << f.text;
      }
      std::string changed = res.body;
      changed[changed.size() / 2] ^= 1;
      EXPECT_FALSE(journal::check_archive(signed_record->archive, changed).intact);
    }

    nlohmann::json st = d.service().status();
    ASSERT_EQ(st["matches"].size(), 1u);
    EXPECT_EQ(st["matches"][0]["name"], "A-B");
    EXPECT_EQ(st["matches"][0]["result"], result);
    EXPECT_TRUE(st["matches"][0]["games"][0].contains("reserves"));
    EXPECT_EQ(d.get("/matches/A-C.bpgn").status, 404u);
    // A new WebSocket client's snapshot: both boards' moves (drops as N@f3), and the match result.
    std::array<std::vector<std::string>, 2> snap;
    int match_results = 0;
    for (const auto& line : d.service().snapshot()) {
      auto j = nlohmann::json::parse(line);
      if (j["type"] == "move") snap[j["board"] == "A" ? 0 : 1].push_back(j["uci"]);
      match_results += j["type"] == "match-result";
    }
    EXPECT_EQ(snap, got);
    EXPECT_EQ(match_results, m.result() ? 1 : 0);
    daemon.reset();
    fs::remove_all(dir);
  }
  EXPECT_GT(signed_matches, 10);  // most corpus matches end on the boards, and each is signed
  std::printf("%d of %zu corpus matches decided and signed\n", signed_matches, corpus()->matches.size());
}

TEST(DaemonMatch, KilledMidMatchResumesExactly) {
  if (!fs::exists(BPGN)) GTEST_SKIP() << "../shared is absent";
  ASSERT_FALSE(corpus()->matches.empty());
  const rules::BughouseRecord& rec = corpus()->matches[2 % corpus()->matches.size()];
  const auto inputs = eboardd::plan_demo_match(rec, 1.0, 77).inputs;
  // The match played without interruption.
  const fs::path ref_dir = fresh_dir("ref");
  std::string want_bpgn;
  {
    Daemon d(ref_dir);
    set_players(d, rec);
    play(d, inputs, 0, inputs.size());
    finish(d, inputs, rec);
    want_bpgn = d.match().bpgn();
    ASSERT_TRUE(d.match().match().result().has_value());
  }
  // The same match, its state directory copied at three points while the daemon runs (what kill -9
  // leaves), each copy recovered by a new daemon that plays on.
  for (double at : {0.2, 0.5, 0.8}) {
    SCOPED_TRACE("copied at " + std::to_string(at));
    const std::size_t cut = std::size_t(double(inputs.size()) * at);
    const fs::path dir = fresh_dir("live");
    const fs::path copy = fresh_dir("copy");
    std::string bpgn_then, status_then;
    std::array<int, 2> plies{};
    std::vector<int> reserves_then;
    {
      Daemon d(dir);
      set_players(d, rec);
      play(d, inputs, 0, cut);
      d.settle();
      bpgn_then = d.match().bpgn();
      reserves_then = reserves(d.match().match());
      for (int b = 0; b < 2; ++b) plies[std::size_t(b)] = d.match().match().board(b).game().ply_count();
      fs::copy(dir / "journal", copy / "journal", fs::copy_options::recursive);
    }
    auto daemon = std::make_unique<Daemon>(copy);
    Daemon& d = *daemon;
    EXPECT_EQ(d.match().bpgn(), bpgn_then);
    for (int b = 0; b < 2; ++b)
      EXPECT_EQ(d.match().match().board(b).game().ply_count(), plies[std::size_t(b)]);
    ASSERT_NE(d.match().recovery(), nullptr);
    EXPECT_TRUE(d.match().recovery()->exact())
        << (d.match().recovery()->problems.empty() ? "" : d.match().recovery()->problems[0]);
    EXPECT_GT(d.match().recovery()->matched_events, 0u);
    EXPECT_EQ(reserves(d.match().match()), reserves_then);
    play(d, inputs, cut, inputs.size());
    finish(d, inputs, rec);
    EXPECT_EQ(d.match().bpgn(), want_bpgn);
    daemon.reset();
    fs::remove_all(dir);
    fs::remove_all(copy);
  }
  fs::remove_all(ref_dir);
}

// Both boards' journals rotate at a new match, together: the finished match is kept under journal/A and
// journal/B, a restart replays the current match only and exactly, and a crash between the two boards'
// steps of the rotation leaves both in the same match.
TEST(DaemonMatch, NewMatchRotatesBothJournalsTogether) {
  if (!fs::exists(BPGN)) GTEST_SKIP() << "../shared is absent";
  ASSERT_GE(corpus()->matches.size(), 2u);
  const rules::BughouseRecord& rec1 = corpus()->matches[0];
  const rules::BughouseRecord& rec2 = corpus()->matches[1];
  const auto inputs1 = eboardd::plan_demo_match(rec1, 1.0, 5).inputs;
  const auto inputs2 = eboardd::plan_demo_match(rec2, 1.0, 6).inputs;
  auto play_from = [](Daemon& d, const std::vector<eboardd::DemoMatchInput>& in, std::int64_t origin,
                      std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to && i < in.size(); ++i) d.feed(in[i], origin + in[i].t);
  };
  const fs::path dir = fresh_dir("rotate");
  const fs::path copy = fresh_dir("rotate-copy");
  const std::size_t half = inputs2.size() / 2;
  std::string bpgn1, bpgn_half, want_bpgn2;
  std::int64_t origin2 = 0;
  std::size_t inputs_match1 = 0;
  {
    Daemon d(dir);
    set_players(d, rec1);
    play(d, inputs1, 0, inputs1.size());
    finish(d, inputs1, rec1);
    bpgn1 = d.match().bpgn();
    const fs::path bpgn1_file = d.match().bpgn_path();
    ASSERT_EQ(d.match().number(), 1);
    for (const char* id : {"A", "B"}) {
      auto scan = journal::scan_journal(dir / "journal" / (std::string(id) + ".journal"));
      ASSERT_TRUE(scan) << scan.error();
      for (const auto& r : scan->records) inputs_match1 += r.type == 'S';
    }
    auto n = d.match().new_match();
    ASSERT_TRUE(n) << n.error();
    EXPECT_EQ(*n, 2);
    d.rotated();
    for (const char* id : {"A", "B"}) {
      SCOPED_TRACE(id);
      const fs::path cur = dir / "journal" / (std::string(id) + ".journal");
      auto kept = journal::kept_journals(cur);
      ASSERT_EQ(kept.size(), 1u);
      EXPECT_EQ(kept[0].game, 1);
      auto scan = journal::scan_journal(cur);
      ASSERT_TRUE(scan);
      ASSERT_EQ(scan->records.size(), 2u);
      EXPECT_EQ(scan->records[0].type, 'H');
      EXPECT_EQ(scan->records[1].type, 'N');
      EXPECT_EQ(d.service().board(id)->status()["journal"]["rotations"], 1);
    }
    d.flush(bpgn1_file);
    EXPECT_EQ(slurp(bpgn1_file), bpgn1);  // the finished match's file stays
    set_players(d, rec2);
    origin2 = d.now() + 10000;
    play_from(d, inputs2, origin2, 0, half);
    d.settle();  // the BPGN shows published moves: all of what the journal holds
    bpgn_half = d.match().bpgn();
    fs::copy(dir / "journal", copy / "journal", fs::copy_options::recursive);
    play_from(d, inputs2, origin2, half, inputs2.size());
    d.settle();
    want_bpgn2 = d.match().bpgn();
  }
  {
    Daemon d(copy);
    EXPECT_EQ(d.match().number(), 2);
    EXPECT_EQ(d.match().bpgn(), bpgn_half);
    const journal::MatchRecovery* r = d.match().recovery();
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(r->exact()) << (r->problems.empty() ? "" : r->problems[0]);
    EXPECT_GT(r->matched_events, 0u);
    // The current match's inputs only: match 1's stay in the kept files.
    std::printf("restart in match 2: %zu inputs replayed (match 1 alone had %zu sensor records)\n", r->inputs,
                inputs_match1);
    EXPECT_LT(r->inputs, inputs_match1);
    play_from(d, inputs2, origin2, half, inputs2.size());
    d.settle();
    EXPECT_EQ(d.match().bpgn(), want_bpgn2);
  }
  fs::remove_all(dir);
  fs::remove_all(copy);

  // A crash inside a rotation: after both new files are written (not committed: match 1 goes on), and
  // after board A's file was kept but not B's (committed: both are in match 2).
  for (bool committed : {false, true}) {
    SCOPED_TRACE(committed ? "after A was kept" : "before the commit");
    const fs::path live = fresh_dir("rotate-cut");
    const fs::path cut = fresh_dir("rotate-cut-copy");
    std::array<int, 2> plies1{};
    {
      Daemon d(live);
      set_players(d, rec1);
      play(d, inputs1, 0, inputs1.size());
      finish(d, inputs1, rec1);
      for (int b = 0; b < 2; ++b) plies1[std::size_t(b)] = d.match().match().board(b).game().ply_count();
      journal::NewGameEntry g{d.now() + 1000, "bughouse-fqe", false, ""};
      std::vector<journal::Rotation> group;
      for (const char* id : {"A", "B"}) {
        // The rotation's first step as the background worker makes it: each board's new file written whole
        // with the records kept for it (the crash comes before the worker's commit).
        eboardd::BoardRuntime* b = d.service().board(id);
        const std::string body = eboardd::BoardRuntime::input_body(g, 1'000'000);
        ASSERT_EQ(b->prepare_rotation(body).kind, eboardd::BoardRuntime::RotationPlan::deferred);
        b->defer_rotation(body);
        auto next = b->take_deferred_next();
        ASSERT_TRUE(next.has_value());
        auto written = journal::write_next(next->rotation, next->records);
        ASSERT_TRUE(written) << written.error();
        group.push_back(next->rotation);
      }
      if (committed) {
        fs::create_directories(group[0].kept.parent_path());
        fs::rename(group[0].current, group[0].kept);
      }
      fs::copy(live / "journal", cut / "journal", fs::copy_options::recursive);
    }
    auto daemon = std::make_unique<Daemon>(cut);
    Daemon& d = *daemon;
    EXPECT_EQ(d.match().number(), committed ? 2 : 1);
    if (!committed) {
      EXPECT_EQ(d.match().bpgn(), bpgn1);
    }
    for (const char* id : {"A", "B"}) {
      const fs::path cur = cut / "journal" / (std::string(id) + ".journal");
      EXPECT_FALSE(fs::exists(journal::next_path(cur))) << id;
      EXPECT_EQ(journal::kept_journals(cur).size(), committed ? 1u : 0u) << id;
    }
    const journal::MatchRecovery* r = d.match().recovery();
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(r->exact()) << (r->problems.empty() ? "" : r->problems[0]);
    for (int b = 0; b < 2; ++b)
      EXPECT_EQ(d.match().match().board(b).game().ply_count(), committed ? 0 : plies1[std::size_t(b)]) << b;
    daemon.reset();
    fs::remove_all(live);
    fs::remove_all(cut);
  }
}

// The BPGN carries the hall's [event] tags as each board's PGN does, and the date the match began: a
// broadcast showed "eboardd", "?" and an unknown date for a match of a named event.
TEST(DaemonMatch, TheBpgnHasTheEventsTagsAndTheDateTheMatchBegan) {
  if (!fs::exists(BPGN)) GTEST_SKIP() << "../shared is absent";
  const rules::BughouseRecord& rec = corpus()->matches[0];
  const auto inputs = eboardd::plan_demo_match(rec, 1.0, 7).inputs;
  const auto tags_of = [](const std::string& text) {
    auto games = rules::read_bpgn(text);
    EXPECT_TRUE(games && games->size() == 1u) << text;
    return games && !games->empty() ? games->front().tags : rules::PgnTags{};
  };
  const auto tag = [](const rules::PgnTags& tags, const char* name) {
    return std::string(rules::find_tag(tags, name).value_or("(none)"));
  };
  for (bool named : {true, false}) {
    SCOPED_TRACE(named ? "with [event]" : "without [event]");
    const fs::path dir = fresh_dir(named ? "event-named" : "event-none");
    auto daemon = std::make_unique<Daemon>(
        dir, named ? "[event]\nname = \"Lyon Open\"\nsite = \"Lyon\"\nround = \"3\"\n" : "");
    Daemon& d = *daemon;
    set_players(d, rec);
    play(d, inputs, 0, inputs.size() / 4);
    d.settle();
    const rules::PgnTags bpgn = tags_of(d.match().bpgn());
    auto pgn = rules::read_pgn(d.get("/boards/A.pgn").body);
    ASSERT_TRUE(pgn && !pgn->empty());
    const rules::PgnTags& a = pgn->front().tags;
    // The date the games began (the board's PGN says the same), not "????.??.??".
    EXPECT_EQ(tag(bpgn, "Date"), outputs::pgn_date(ORIGIN));
    EXPECT_EQ(tag(bpgn, "Date"), tag(a, "Date"));
    EXPECT_EQ(tag(bpgn, "Event"), named ? "Lyon Open" : "eboardd");
    EXPECT_EQ(tag(bpgn, "Site"), named ? "Lyon" : "?");
    EXPECT_EQ(tag(bpgn, "Round"), named ? "3" : "1");  // else the match's number on these boards
    if (named) {
      EXPECT_EQ(tag(a, "Event"), "Lyon Open");
      EXPECT_EQ(tag(a, "Round"), "3");
    }
    EXPECT_EQ(tag(bpgn, "WhiteA"), tag(a, "White"));
    daemon.reset();
    fs::remove_all(dir);  // in /dev/shm: what a test leaves there stays until the machine restarts
  }
}

// The arbiter's result on a match board (a journaled `result` control, as POST /control/<id>/result enters
// it): it decides the match at once for that board's team, the other game stops; a correction on the
// other board decides it again; a restart replays both from the journals.
TEST(DaemonMatch, TheArbitersResultDecidesTheMatchAndIsReplayed) {
  if (!fs::exists(BPGN)) GTEST_SKIP() << "../shared is absent";
  const rules::BughouseRecord& rec = corpus()->matches[1];
  const auto inputs = eboardd::plan_demo_match(rec, 1.0, 11).inputs;
  const fs::path dir = fresh_dir("arbiter");
  std::string bpgn_then;
  std::array<int, 2> plies{};
  {
    Daemon d(dir);
    set_players(d, rec);
    play(d, inputs, 0, inputs.size() / 3);
    d.settle();
    const std::int64_t t = d.now() + 1000;
    // A forfeit on board B: B's White wins, so team 2 (White B, Black A) wins the match.
    auto ok = d.match().control(1, journal::ControlEntry{t, "result", "", "1-0 forfeit"});
    ASSERT_TRUE(ok) << ok.error();
    d.settle();
    const rules::Match& m = d.match().match();
    ASSERT_TRUE(m.result().has_value()) << "decided at once, not after the other game";
    EXPECT_EQ(rules::result_string(m.result()->result), "0-1");
    EXPECT_EQ(m.result()->reason, "forfeit");
    ASSERT_TRUE(m.board(0).game().outcome().has_value());
    EXPECT_EQ(m.board(0).game().outcome()->reason, "partner-board");
    EXPECT_EQ(rules::result_string(m.board(0).game().outcome()->result), "0-1");
    EXPECT_NE(d.match().bpgn().find("[Result \"0-1\"]"), std::string::npos) << d.match().bpgn();
    // Over: a resignation is refused, the arbiter's correction on board A is taken.
    EXPECT_FALSE(d.match().control(0, journal::ControlEntry{t + 500, "resign", "white", ""}));
    ok = d.match().control(0, journal::ControlEntry{t + 1000, "result", "", "1/2-1/2 arbiter"});
    ASSERT_TRUE(ok) << ok.error();
    d.settle();
    EXPECT_EQ(rules::result_string(m.result()->result), "1/2-1/2");
    EXPECT_EQ(m.result()->reason, "arbiter");
    EXPECT_EQ(rules::result_string(m.board(1).game().outcome()->result), "1-0") << "B's own result stays";
    bpgn_then = d.match().bpgn();
    EXPECT_NE(bpgn_then.find("[Termination \"arbiter\"]"), std::string::npos) << bpgn_then;
    for (int b = 0; b < 2; ++b) plies[std::size_t(b)] = m.board(b).game().ply_count();
  }
  auto daemon = std::make_unique<Daemon>(dir);
  Daemon& d = *daemon;
  ASSERT_NE(d.match().recovery(), nullptr);
  EXPECT_TRUE(d.match().recovery()->exact())
      << (d.match().recovery()->problems.empty() ? "" : d.match().recovery()->problems[0]);
  const rules::Match& m = d.match().match();
  ASSERT_TRUE(m.result().has_value());
  EXPECT_EQ(rules::result_string(m.result()->result), "1/2-1/2");
  EXPECT_EQ(rules::result_string(m.board(0).game().outcome()->result), "1/2-1/2");
  EXPECT_EQ(m.board(0).game().outcome()->reason, "arbiter");
  EXPECT_EQ(rules::result_string(m.board(1).game().outcome()->result), "1-0");
  for (int b = 0; b < 2; ++b) EXPECT_EQ(m.board(b).game().ply_count(), plies[std::size_t(b)]);
  EXPECT_EQ(d.match().bpgn(), bpgn_then);
  daemon.reset();
  fs::remove_all(dir);
}

// What the test knows of one ply of a match's BPGN, found on its own: the board, the ply on that board, the
// mover, the position before it, and the reserve it takes from (a drop) or feeds (a capture: the captured
// piece, as a pawn if it was promoted, goes to the capturer's partner, FQE 6).
struct PlyFact {
  int board = 0;
  int ply = 0;
  rules::Color mover = rules::WHITE;
  rules::Position before;
  rules::Move move = rules::Move::none();
  std::string san;
  std::optional<rules::PieceType> dropped, captured;
};

std::vector<PlyFact> ply_facts(const std::string& bpgn) {
  std::vector<PlyFact> out;
  auto games = rules::read_bpgn(bpgn);
  EXPECT_TRUE(games && games->size() == 1u) << bpgn;
  if (!games || games->empty()) return out;
  auto rec = rules::replay_bughouse(games->front());
  EXPECT_TRUE(rec) << rec.error();
  if (!rec) return out;
  std::array<rules::Position, 2> pos = rec->start;
  std::array<int, 2> plies{};
  for (const auto& m : rec->moves) {
    PlyFact f;
    f.board = m.board;
    f.ply = ++plies[std::size_t(m.board)];
    f.before = pos[std::size_t(m.board)];
    f.mover = f.before.side_to_move();
    f.move = m.move;
    f.san = rules::to_san(f.before, m.move);
    if (m.move.is_drop()) f.dropped = m.move.drop_type();
    if (f.before.is_capture(m.move)) {
      const bool ep = m.move.kind() == rules::Move::EN_PASSANT;
      f.captured = f.before.captured_hand_type(
          ep ? rules::Square(m.move.to() + (f.mover == rules::WHITE ? -8 : 8)) : m.move.to());
    }
    out.push_back(f);
    rules::play_bughouse_move(pos, m.board, m.move);
  }
  return out;
}

// The first drop that finds its reserve empty when the plies of `facts` are played without those of board
// `board` from index `cut` on (counting the reserves only: the other board's positions do not change).
std::optional<std::size_t> first_empty_drop(const std::vector<PlyFact>& facts, int board, std::size_t cut) {
  int reserve[2][2][8] = {};
  for (std::size_t i = 0; i < facts.size(); ++i) {
    const PlyFact& f = facts[i];
    if (i >= cut && f.board == board) continue;
    if (f.dropped) {
      int& n = reserve[f.board][f.mover][*f.dropped];
      if (n == 0) return i;
      --n;
    }
    if (f.captured) ++reserve[1 - f.board][~f.mover][*f.captured];
  }
  return std::nullopt;
}

// A legal move in `pos` that neither captures nor drops, other than `other`.
std::optional<rules::Move> quiet_move(const rules::Position& pos, rules::Move other) {
  for (rules::Move m : rules::MoveList(pos))
    if (!m.is_drop() && !pos.is_capture(m) && m != other) return m;
  return std::nullopt;
}

// Every file of a directory (name → content).
std::map<std::string, std::string> files_in(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out[e.path().filename().string()] = slurp(e.path());
  return out;
}

fs::path record_of(const fs::path& games, const std::string& board, int number) {
  for (const auto& e : fs::directory_iterator(games)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(board + "-") && name.ends_with("-" + std::to_string(number) + ".pgn"))
      return e.path();
  }
  return {};
}

// `eboardctl verify FILE`: its exit code and what it printed.
std::pair<int, std::string> verify(const fs::path& file) {
  const std::string cmd = std::string(EBOARDCTL_BIN) + " verify '" + file.string() + "' 2>&1";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// A daemon whose match A-B played corpus match `k` to its end and went on to its second match, every file
// of the first on disk; null (and `dir` removed) if that match has no result.
std::unique_ptr<Daemon> finished_match(std::size_t k, const fs::path& dir, const std::string& token) {
  const rules::BughouseRecord& rec = corpus()->matches[k];
  const auto inputs = eboardd::plan_demo_match(rec, 1.0, 300 + k).inputs;
  auto daemon = std::make_unique<Daemon>(dir, "", "token = \"" + token + "\"\n");
  Daemon& d = *daemon;
  set_players(d, rec);
  play(d, inputs, 0, inputs.size());
  finish(d, inputs, rec);
  if (!d.match().match().result()) {
    daemon.reset();
    fs::remove_all(dir);
    return nullptr;
  }
  EXPECT_EQ(d.match().new_match(), 2);
  d.rotated();
  d.settle();
  const fs::path bpgn_file = d.match().bpgn_path(1);
  d.flush_dir(dir / "games");
  d.flush(bpgn_file);
  d.flush(fs::path(bpgn_file.string() + ".sig"));
  return daemon;
}

// The arbiter corrects the moves of a board's game of a finished match (POST /control/<id>/moves with its
// game number): the match is replayed with the corrected plies in the places of those they replace, both
// boards together. A correction that takes away a capture a later drop on the partner board used is refused
// (409) naming that drop, and nothing on disk changes; a correction that leaves every drop its piece is
// written: the board's record and the match's BPGN, each kept as it was (.v1) and signed again, served by
// number, `eboardctl verify` intact for both versions; the running match's moves stay the boards'.
TEST(DaemonMatch, AnEarlierMatchsMovesAreCorrectedOnlyWhenEveryDropStillStands) {
  if (!fs::exists(BPGN)) GTEST_SKIP() << "../shared is absent";
  const std::string token = "match-moves-token";
  for (std::size_t k = 0; k < corpus()->matches.size(); ++k) {
    SCOPED_TRACE("corpus match " + std::to_string(k + 1));
    const fs::path dir = fresh_dir("moves-" + std::to_string(k));
    auto daemon = finished_match(k, dir, token);
    if (!daemon) continue;  // an undecided match has no signature to check
    Daemon& d = *daemon;
    const fs::path games = dir / "games";
    const fs::path bpgn_file = d.match().bpgn_path(1);
    const std::string before = slurp(bpgn_file);
    const std::vector<PlyFact> facts = ply_facts(before);
    const std::array<std::string, 2> ids{"A", "B"};

    // (b) A capture whose piece a later drop on the partner board needed, replaced by a quiet move.
    std::optional<std::size_t> capture, drop;
    std::optional<rules::Move> instead;
    for (std::size_t i = 0; i < facts.size() && !capture; ++i) {
      const PlyFact& f = facts[i];
      if (!f.captured) continue;
      auto empty = first_empty_drop(facts, f.board, i);
      auto quiet = quiet_move(f.before, f.move);
      if (!empty || !quiet || facts[*empty].board == f.board || *facts[*empty].dropped != *f.captured ||
          facts[*empty].mover != ~f.mover)
        continue;
      capture = i;
      drop = *empty;
      instead = *quiet;
    }
    // (a) A board's last ply that captured nothing, replaced by another quiet move and a reply to it.
    std::optional<std::size_t> last;
    for (std::size_t i = facts.size(); i-- > 0 && !last;) {
      const PlyFact& f = facts[i];
      bool later_on_board = false;
      for (std::size_t j = i + 1; j < facts.size(); ++j) later_on_board |= facts[j].board == f.board;
      if (!later_on_board && !f.captured && quiet_move(f.before, f.move)) last = i;
    }
    if (!capture || !last) {
      daemon.reset();
      fs::remove_all(dir);
      continue;
    }

    const std::map<std::string, std::string> files_before = files_in(games);
    {
      const PlyFact& c = facts[*capture];
      const PlyFact& dropped = facts[*drop];
      const nlohmann::json body{{"game", 1},
                                {"from_ply", c.ply},
                                {"moves", rules::to_san(c.before, *instead)},
                                {"reason", "the capture was misread"}};
      http::Response res = d.post("/control/" + ids[std::size_t(c.board)] + "/moves", body.dump(), token);
      ASSERT_EQ(res.status, 409u) << res.body;
      std::printf("the capture replaced: %u %s\n", res.status, res.body.c_str());
      auto j = nlohmann::json::parse(res.body);
      EXPECT_EQ(j["board"], ids[std::size_t(dropped.board)]) << res.body;
      EXPECT_EQ(j["ply"], dropped.ply) << res.body;
      EXPECT_NE(j["move"].get<std::string>().find(dropped.san), std::string::npos) << res.body;
      EXPECT_NE(j["why"].get<std::string>().find("reserve"), std::string::npos) << res.body;
      EXPECT_EQ(files_in(games), files_before) << "a refused correction changed the records";
      EXPECT_FALSE(fs::exists(dir / "arbiter.log"));
    }

    // The running match's moves are the boards'.
    {
      const nlohmann::json body{{"game", 2}, {"from_ply", 1}, {"moves", "e4"}, {"reason", "running"}};
      http::Response res = d.post("/control/A/moves", body.dump(), token);
      EXPECT_EQ(res.status, 409u) << res.body;
      EXPECT_EQ(files_in(games), files_before);
    }

    // (a) A quiet move corrected: written, kept, signed again.
    const PlyFact& f = facts[*last];
    const rules::Move m1 = *quiet_move(f.before, f.move);
    rules::Position after = f.before;
    after.do_move(m1);
    rules::MoveList replies(after);
    ASSERT_GT(replies.size(), 0u);
    const rules::Move m2 = *replies.begin();
    const std::string san1 = rules::to_san(f.before, m1), san2 = rules::to_san(after, m2);
    const std::string& id = ids[std::size_t(f.board)];
    const fs::path record = record_of(games, id, 1);
    ASSERT_FALSE(record.empty());
    const std::string record_before = slurp(record);
    const nlohmann::json body{{"game", 1},
                              {"from_ply", f.ply},
                              {"moves", san1 + " " + rules::to_uci(after, m2)},
                              {"reason", "the last move was misread"},
                              {"arbiter", "A. Arbiter"}};
    http::Response res = d.post("/control/" + id + "/moves", body.dump(), token);
    ASSERT_EQ(res.status, 200u) << res.body;
    std::printf("the quiet move replaced: %u %s\n", res.status, res.body.c_str());
    auto answer = nlohmann::json::parse(res.body);
    EXPECT_EQ(answer["corrected"], f.san);
    EXPECT_EQ(answer["match"]["number"], 1);

    // The BPGN: the board's plies before it, then the new ones, the second after the match's last ply.
    const std::string now = slurp(bpgn_file);
    const std::vector<PlyFact> corrected = ply_facts(now);
    ASSERT_EQ(corrected.size(), facts.size() + 1);
    for (std::size_t i = 0; i < facts.size(); ++i)
      if (i != *last) {
        EXPECT_EQ(corrected[i].board, facts[i].board) << i;
        EXPECT_EQ(corrected[i].san, facts[i].san) << i;
      }
    EXPECT_EQ(corrected[*last].san, san1);
    EXPECT_EQ(corrected.back().board, f.board);
    EXPECT_EQ(corrected.back().san, san2);
    EXPECT_NE(now.find("[MovesCorrected \"board " + id + ", from ply " + std::to_string(f.ply) +
                       "; was: " + f.san + "\"]"),
              std::string::npos)
        << now;
    EXPECT_EQ(slurp(bpgn_file.string() + ".v1"), before);
    EXPECT_EQ(d.get("/matches/A-B.bpgn?match=1").body, now);
    // The board's record: its moves end with the new ones; kept as it was.
    const std::string record_now = slurp(record);
    auto pgn = rules::read_pgn(record_now);
    ASSERT_TRUE(pgn && pgn->size() == 1u) << record_now;
    const auto& moves = pgn->front().moves;
    ASSERT_EQ(int(moves.size()), f.ply + 1);
    EXPECT_EQ(moves[moves.size() - 2].san, san1);
    EXPECT_EQ(moves.back().san, san2);
    EXPECT_EQ(pgn->front().tag("MovesCorrected").value_or(""),
              "from ply " + std::to_string(f.ply) + "; was: " + f.san);
    EXPECT_EQ(pgn->front().tag("ArbiterReason").value_or(""), "the last move was misread");
    EXPECT_EQ(slurp(record.string() + ".v1"), record_before);
    EXPECT_EQ(d.get("/boards/" + id + ".pgn?game=1").body, record_now);
    EXPECT_NE(d.get("/games.pgn").body.find(record_now.substr(0, record_now.find("\n\n"))),
              std::string::npos);
    // Both versions as they were signed.
    for (const fs::path& p :
         {bpgn_file, fs::path(bpgn_file.string() + ".v1"), record, fs::path(record.string() + ".v1")}) {
      auto [rc, out] = verify(p);
      EXPECT_EQ(rc, 0) << p << "\n" << out;
      EXPECT_NE(out.find("INTACT"), std::string::npos) << p << "\n" << out;
    }
    const std::string log = slurp(dir / "arbiter.log");
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_NE(log.find("\"match_number\":1"), std::string::npos) << log;
    std::printf(
        "corpus match %zu: a capture on %s (ply %d) refused for the drop on %s (ply %d); %s's ply %d "
        "corrected\n",
        k + 1, ids[std::size_t(facts[*capture].board)].c_str(), facts[*capture].ply,
        ids[std::size_t(facts[*drop].board)].c_str(), facts[*drop].ply, id.c_str(), f.ply);
    daemon.reset();
    if (!std::getenv("EBOARD_KEEP_TEST_DIR")) fs::remove_all(dir);
    return;
  }
  FAIL() << "no corpus match has a capture a later drop needed";
}

}  // namespace
}  // namespace eboard

namespace eboard {
namespace {

// A file made immutable (chattr +i) while this lives: nothing can replace, rename or remove it.
class Immutable {
 public:
  explicit Immutable(const fs::path& p) : fd_(::open(p.c_str(), O_RDONLY)) {
    int flags = 0;
    if (fd_ < 0 || ::ioctl(fd_, FS_IOC_GETFLAGS, &flags) != 0) {
      error = std::strerror(errno);
      return;
    }
    flags |= FS_IMMUTABLE_FL;
    if (::ioctl(fd_, FS_IOC_SETFLAGS, &flags) != 0) {
      error = std::strerror(errno);
      return;
    }
    set_ = true;
  }
  ~Immutable() {
    int flags = 0;
    if (set_ && ::ioctl(fd_, FS_IOC_GETFLAGS, &flags) == 0) {
      flags &= ~FS_IMMUTABLE_FL;
      (void)::ioctl(fd_, FS_IOC_SETFLAGS, &flags);
    }
    if (fd_ >= 0) ::close(fd_);
  }
  Immutable(const Immutable&) = delete;
  Immutable& operator=(const Immutable&) = delete;
  explicit operator bool() const { return set_; }
  std::string error;

 private:
  int fd_ = -1;
  bool set_ = false;
};

// A correction of an earlier match's moves is all or nothing on disk: when the match's BPGN cannot be
// written after the board's record was (the BPGN is immutable: it cannot be replaced), the record is put
// back as it was, the answer says that nothing is changed, no later retry writes the refused BPGN, and the
// same correction asked again once the disk takes it is written whole.
TEST(DaemonMatch, AMovesCorrectionTheDiskRefusesHalfwayChangesNothing) {
  if (!fs::exists(BPGN)) GTEST_SKIP() << "../shared is absent";
  const std::string token = "match-moves-token";
  for (std::size_t k = 0; k < corpus()->matches.size(); ++k) {
    SCOPED_TRACE("corpus match " + std::to_string(k + 1));
    const fs::path dir = fresh_dir("half-" + std::to_string(k));
    auto daemon = finished_match(k, dir, token);
    if (!daemon) continue;
    Daemon& d = *daemon;
    const fs::path bpgn_file = d.match().bpgn_path(1);
    const std::string bpgn_before = slurp(bpgn_file);
    const std::vector<PlyFact> facts = ply_facts(bpgn_before);
    // A board's last ply, quiet, replaced by another quiet move (as in the test above).
    std::optional<std::size_t> last;
    for (std::size_t i = facts.size(); i-- > 0 && !last;) {
      bool later_on_board = false;
      for (std::size_t j = i + 1; j < facts.size(); ++j) later_on_board |= facts[j].board == facts[i].board;
      if (!later_on_board && !facts[i].captured && quiet_move(facts[i].before, facts[i].move)) last = i;
    }
    const std::string id = last ? std::string(facts[*last].board == 0 ? "A" : "B") : "";
    const fs::path record = last ? record_of(dir / "games", id, 1) : fs::path();
    const std::string record_before = record.empty() ? "" : slurp(record);
    if (!last || record.empty()) {
      daemon.reset();
      fs::remove_all(dir);
      continue;
    }
    const PlyFact& f = facts[*last];
    const nlohmann::json body{{"game", 1},
                              {"from_ply", f.ply},
                              {"moves", rules::to_san(f.before, *quiet_move(f.before, f.move))},
                              {"reason", "the last move was misread"}};
    {
      // The BPGN cannot be replaced (its copy .v1 can be made): rename(2) over it fails.
      Immutable frozen(bpgn_file);
      if (!frozen) GTEST_SKIP() << "cannot make a file immutable here (needs root): " << frozen.error;
      http::Response res = d.post("/control/" + id + "/moves", body.dump(), token);
      std::printf("the BPGN refused: %u %s\n", res.status, res.body.c_str());
      EXPECT_EQ(res.status, 500u) << res.body;
      EXPECT_NE(res.body.find("nothing is changed"), std::string::npos) << res.body;
    }
    d.flush(record);
    d.flush(bpgn_file);
    d.settle();
    EXPECT_EQ(slurp(record), record_before);
    EXPECT_EQ(slurp(bpgn_file), bpgn_before);
    EXPECT_FALSE(fs::exists(dir / "arbiter.log"));
    auto [rc, out] = verify(record);
    EXPECT_EQ(rc, 0) << out;

    http::Response again = d.post("/control/" + id + "/moves", body.dump(), token);
    ASSERT_EQ(again.status, 200u) << again.body;
    d.flush(bpgn_file);
    EXPECT_NE(slurp(bpgn_file), bpgn_before);
    EXPECT_NE(slurp(record), record_before);
    daemon.reset();
    if (!std::getenv("EBOARD_KEEP_TEST_DIR")) fs::remove_all(dir);
    return;
  }
  FAIL() << "no corpus match has a record small enough beside its BPGN";
}

}  // namespace
}  // namespace eboard
