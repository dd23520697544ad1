// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/records.hpp"
#include "daemon/journal/rotation.hpp"
#include "daemon/mqtt/outbox.hpp"
#include "daemon/mqtt/remote_board.hpp"
#include "daemon/mqtt/takeover.hpp"
#include "daemon/mqtt/topics.hpp"
#include "daemon/outputs/pgn_output.hpp"
#include "rules/notation.hpp"

namespace fs = std::filesystem;
using namespace eboard;
using namespace eboard::mqtt;
using nlohmann::json;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("eboard-mqtt-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string move_line(int ply, const std::string& uci, std::int64_t t = 1000) {
  return json{{"t", t}, {"board", "A"}, {"type", "move"}, {"ply", ply}, {"uci", uci}, {"san", "?"}}.dump();
}

// A move found after a gap, as a host tells it (the gap settled by its arbiter).
std::string recovered_line(int ply, const std::string& uci) {
  json line = json::parse(move_line(ply, uci));
  line["recovered"] = true;
  return line.dump();
}

// A moves-missed alert of a gap of known length from `first_ply`, its candidates in UCI.
std::string gap_alert(int first_ply, const std::vector<std::vector<std::string>>& candidates) {
  const int last_ply = first_ply + int(candidates.front().size()) - 1;
  return json{{"t", 5},
              {"board", "A"},
              {"type", "alert"},
              {"code", "moves-missed"},
              {"ply", first_ply},
              {"first_ply", first_ply},
              {"last_ply", last_ply},
              {"candidates", candidates},
              {"detail", "gap"},
              {"side", "white"},
              {"candidates_total", candidates.size()}}
      .dump();
}

Envelope envelope(std::uint64_t seq, const std::string& line, std::int64_t journal = 100, int game = 1) {
  return Envelope{"h1", "A", game, EventId{journal, seq}, json::parse(line), 0, std::nullopt};
}

}  // namespace

TEST(Topics, TreeAndParse) {
  Topics t("main-hall", "room2");
  EXPECT_EQ(t.status(), "eboard/main-hall/room2/status");
  EXPECT_EQ(t.event("12"), "eboard/main-hall/room2/board/12/event");
  EXPECT_EQ(t.state("12"), "eboard/main-hall/room2/board/12/state");
  EXPECT_EQ(t.command("room3", "arbiter"), "eboard/main-hall/room3/command/arbiter");
  EXPECT_EQ(t.commands_filter(), "eboard/main-hall/room2/command/+");
  EXPECT_EQ(t.answer("arbiter"), "eboard/main-hall/room2/answer/arbiter");
  EXPECT_EQ(t.hall_filter(), "eboard/main-hall/#");

  auto p = parse_topic("main-hall", "eboard/main-hall/room2/board/12/event");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, TopicParts::Kind::Event);
  EXPECT_EQ(p->host, "room2");
  EXPECT_EQ(p->name, "12");
  p = parse_topic("main-hall", "eboard/main-hall/room2/command/arbiter");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, TopicParts::Kind::Command);
  EXPECT_EQ(p->name, "arbiter");
  p = parse_topic("main-hall", "eboard/main-hall/room2/status");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, TopicParts::Kind::Status);
  for (const char* bad :
       {"eboard/other-hall/room2/status", "eboard/main-hall/room2", "eboard/main-hall//status",
        "eboard/main-hall/room2/board/12", "eboard/main-hall/room2/board/12/event/x",
        "eboard/main-hall/room2/command/", "x/main-hall/room2/status", ""})
    EXPECT_FALSE(parse_topic("main-hall", bad)) << bad;
}

TEST(Topics, EnvelopeRoundTripAndRejects) {
  Envelope e = envelope(4242, move_line(3, "g1f3"), 1795708288137, 2);
  auto back = decode_envelope(encode_envelope(e));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->host, "h1");
  EXPECT_EQ(back->board, "A");
  EXPECT_EQ(back->game, 2);
  EXPECT_EQ(back->id, (EventId{1795708288137, 4242}));
  EXPECT_EQ(back->event["uci"], "g1f3");
  EXPECT_EQ(back->resend, 0);
  EXPECT_FALSE(back->after);
  e.resend = 2;  // the last of a resend batch
  back = decode_envelope(encode_envelope(e));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->resend, 2);
  e.after = EventId{1795708288137, 4100};
  back = decode_envelope(encode_envelope(e));
  ASSERT_TRUE(back);
  ASSERT_TRUE(back->after);
  EXPECT_EQ(*back->after, (EventId{1795708288137, 4100}));
  // A malformed "after" is as none: the event itself is still good.
  json j = json::parse(encode_envelope(e));
  j["after"]["seq"] = -3;
  back = decode_envelope(j.dump());
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->after);
  for (const char* bad :
       {"", "[]", "{", "{\"host\":\"h1\"}",
        "{\"host\":\"h1\",\"board\":\"A\",\"game\":1,\"journal\":1,\"seq\":-1,"
        "\"event\":{\"type\":\"move\"}}",
        "{\"host\":\"h1\",\"board\":\"A\",\"game\":1,\"journal\":1,\"seq\":2,\"event\":{}}",
        "{\"host\":1,\"board\":\"A\",\"game\":1,\"journal\":1,\"seq\":2,\"event\":{\"type\":\"move\"}}"})
    EXPECT_FALSE(decode_envelope(bad)) << bad;
}

TEST(Topics, CommandsAndAnswers) {
  Command c{"agg-1", "A", "tags", {{"White", "X"}}};
  auto back = decode_command(encode_command(c));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->id, "agg-1");
  EXPECT_EQ(back->action, "tags");
  EXPECT_EQ(back->body["White"], "X");
  EXPECT_FALSE(decode_command("{\"id\":\"1\",\"board\":\"A\"}"));
  EXPECT_FALSE(decode_command("{\"id\":\"1\",\"board\":\"A\",\"action\":\"x\",\"body\":[1]}"));
  EXPECT_EQ(back->deadline_ms, 0);  // none given: obeyed whenever it comes
  EXPECT_EQ(encode_command(c).find("deadline_ms"), std::string::npos);
  Command timed{"agg-2", "A", "clock", {{"left", "5:00"}, {"right", "5:00"}}, 1795896944334};
  auto timed_back = decode_command(encode_command(timed));
  ASSERT_TRUE(timed_back);
  EXPECT_EQ(timed_back->deadline_ms, 1795896944334);
  EXPECT_FALSE(
      decode_command("{\"id\":\"1\",\"board\":\"A\",\"action\":\"clock\",\"deadline_ms\":\"soon\"}"));
  EXPECT_FALSE(decode_command("{\"id\":\"1\",\"board\":\"A\",\"action\":\"clock\",\"deadline_ms\":-5}"));
  Answer a{"agg-1", "A", 403, {{"error", "no"}}};
  auto ab = decode_answer(encode_answer(a));
  ASSERT_TRUE(ab);
  EXPECT_EQ(ab->status, 403);
  EXPECT_FALSE(decode_answer("{\"id\":\"1\"}"));
}

TEST(Outbox, EventIdsOrderAcrossFiles) {
  EXPECT_LT((EventId{100, 900}), (EventId{101, 10}));
  EXPECT_LT((EventId{100, 10}), (EventId{100, 11}));
  EXPECT_TRUE(EventId{}.none());
}

TEST(Outbox, AcknowledgedPrefixMovesTheMark) {
  AckTracker t;
  t.set_acked({1, 5});
  t.sent({1, 10});
  t.sent({1, 20});
  t.sent({1, 30});
  // PUBACKs out of order: the mark waits for the earliest.
  EXPECT_FALSE(t.acknowledge({1, 20}));
  EXPECT_EQ(t.acked(), (EventId{1, 5}));
  EXPECT_TRUE(t.acknowledge({1, 10}));
  EXPECT_EQ(t.acked(), (EventId{1, 20}));
  EXPECT_EQ(t.inflight(), 1u);
  t.reset();  // connection lost: 30 is sent again from the journal
  EXPECT_EQ(t.inflight(), 0u);
  EXPECT_EQ(t.acked(), (EventId{1, 20}));
  EXPECT_FALSE(t.acknowledge({1, 30}));  // a stray PUBACK of the old connection moves nothing
  EXPECT_EQ(t.acked(), (EventId{1, 20}));
}

TEST(Outbox, AckedFileRoundTripAndDamage) {
  TempDir d;
  const fs::path f = d.path / "mqtt" / "acked.json";
  EXPECT_TRUE(load_acked(f).empty());
  ASSERT_TRUE(save_acked(f, {{"A", {1795708288137, 4242}}, {"12", {7, 8}}}));
  auto m = load_acked(f);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m["A"], (EventId{1795708288137, 4242}));
  EXPECT_EQ(m["12"], (EventId{7, 8}));
  std::ofstream(f) << "{\"A\": {\"journal\": 1, \"se";  // torn: nothing is taken, everything is republished
  EXPECT_TRUE(load_acked(f).empty());
}

// The ids the daemon gives live (the writer's size before the event record) are the offsets a scan of the
// journal finds, across a rotation: what was published and what is republished have the same ids.
TEST(Outbox, JournalEventsAfterAMark) {
  TempDir d;
  const fs::path current = d.path / "journal" / "A.journal";
  fs::create_directories(current.parent_path());
  std::vector<EventId> live;
  auto write_file = [&](const fs::path& path, journal::HeaderEntry h, const std::vector<std::string>& lines) {
    auto w = journal::JournalWriter::open(path);
    ASSERT_TRUE(w) << w.error();
    ASSERT_TRUE(w->append('H', journal::encode_body(h)));
    ASSERT_TRUE(w->append(
        'N', journal::encode_body(journal::NewGameEntry{h.created_ms, "fide-standard", false, ""})));
    for (const auto& line : lines) {
      ASSERT_TRUE(w->append('S', journal::encode_body(rules::SensorEvent{1, rules::PieceLifted{12}})));
      live.push_back({h.created_ms, w->size()});
      ASSERT_TRUE(w->append('E', journal::encode_body(journal::EventEntry{line})));
    }
    ASSERT_TRUE(w->sync());
  };
  const fs::path kept = journal::kept_path(current, 1, 1000);
  fs::create_directories(kept.parent_path());
  write_file(kept, journal::HeaderEntry{1, "A", 1000}, {move_line(1, "e2e4"), move_line(2, "e7e5")});
  journal::HeaderEntry second{1, "A", 2000};
  second.previous_game = 1;
  second.previous_file = kept.filename().string();
  write_file(
      current, second,
      {move_line(1, "d2d4"), "{\"t\":5,\"board\":\"A\",\"type\":\"alert\",\"code\":\"journal-damaged\"}",
       move_line(2, "d7d5")});
  ASSERT_EQ(live.size(), 5u);

  auto all = journal_events_after(current, EventId{});
  ASSERT_TRUE(all) << all.error();
  ASSERT_EQ(all->size(), 4u);  // the daemon's note about its journal is not an event of the board
  EXPECT_EQ((*all)[0].id, live[0]);
  EXPECT_EQ((*all)[1].id, live[1]);
  EXPECT_EQ((*all)[2].id, live[2]);
  EXPECT_EQ((*all)[3].id, live[4]);
  EXPECT_EQ((*all)[0].game, 1);
  EXPECT_EQ((*all)[2].game, 2);
  EXPECT_NE((*all)[3].line.find("d7d5"), std::string::npos);

  auto rest = journal_events_after(current, live[0]);
  ASSERT_TRUE(rest);
  ASSERT_EQ(rest->size(), 3u);
  EXPECT_EQ(rest->front().id, live[1]);
  rest = journal_events_after(current, live[2]);
  ASSERT_TRUE(rest);
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_EQ(rest->front().id, live[4]);
  rest = journal_events_after(current, live[4]);
  ASSERT_TRUE(rest);
  EXPECT_TRUE(rest->empty());
  auto none = journal_events_after(d.path / "journal" / "B.journal", EventId{});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(RemoteBoard, MovesBecomeTheGameAndDuplicatesAreDropped) {
  RemoteBoard rb("h1", "A");
  EXPECT_EQ(rb.id(), "h1:A");
  EXPECT_TRUE(rb.take(envelope(10, move_line(1, "e2e4"))));
  EXPECT_TRUE(rb.take(envelope(20, move_line(2, "e7e5"))));
  EXPECT_FALSE(rb.take(envelope(20, move_line(2, "e7e5"))));  // republished
  EXPECT_FALSE(rb.take(envelope(10, move_line(1, "e2e4"))));
  EXPECT_TRUE(rb.take(envelope(30, move_line(3, "g1f3"))));
  EXPECT_EQ(rb.game().ply_count(), 3);
  EXPECT_EQ(rb.duplicates(), 2u);
  EXPECT_EQ(rb.lines().size(), 3u);
  auto served = json::parse(rb.lines().back());
  EXPECT_EQ(served["board"], "h1:A");
  EXPECT_EQ(served["host"], "h1");
  EXPECT_EQ(served["seq"], 30);
  EXPECT_TRUE(rb.take(envelope(
      40, json{{"t", 5}, {"board", "A"}, {"type", "result"}, {"result", "0-1"}, {"reason", "resignation"}}
              .dump())));
  rb.take_state(json{{"game", 1}, {"tags", {{"White", "Ana"}, {"Black", "Bo"}}}});
  std::string pgn =
      outputs::game_pgn({rb.id(), &rb.game(), rb.tags(), rb.started_ms(), rb.game_number(), {}, "", ""});
  EXPECT_NE(pgn.find("1. e4"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("2. Nf3"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[White \"Ana\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("0-1"), std::string::npos) << pgn;
  EXPECT_TRUE(rb.problems().empty());
}

TEST(RemoteBoard, ANewGameKeepsTheFinishedOne) {
  RemoteBoard rb("h1", "A");
  ASSERT_TRUE(rb.take(envelope(10, move_line(1, "e2e4"))));
  ASSERT_TRUE(rb.take(envelope(20, move_line(2, "c7c5"))));
  // The next game's first move, in the next journal file.
  ASSERT_TRUE(rb.take(envelope(5, move_line(1, "d2d4"), 200, 2)));
  EXPECT_EQ(rb.game().ply_count(), 1);
  EXPECT_EQ(rb.game_number(), 2);
  ASSERT_EQ(rb.earlier().size(), 1u);
  EXPECT_EQ(rb.earlier()[0].game.ply_count(), 2);
  EXPECT_EQ(rb.lines().size(), 1u);
}

// A gap from the first ply settled by the host's arbiter with another length: its plies and those since
// are told again as recovered moves, from ply 1. The same game, taken back to the first ply that differs.
TEST(RemoteBoard, AGapToldAgainFromTheFirstPlyIsTheSameGame) {
  RemoteBoard rb("h1", "A");
  std::uint64_t seq = 0;
  ASSERT_TRUE(rb.take(envelope(++seq, recovered_line(1, "g1f3"))));
  ASSERT_TRUE(rb.take(envelope(++seq, recovered_line(2, "g8f6"))));
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(3, "d2d4"))));
  const std::string before = rb.game().position().fen();
  // The arbiter's six plies (a knight each out and back first) reach the same position.
  for (const auto& [ply, uci] : std::vector<std::pair<int, std::string>>{
           {1, "b1c3"}, {2, "b8c6"}, {3, "c3b1"}, {4, "c6b8"}, {5, "g1f3"}, {6, "g8f6"}, {7, "d2d4"}})
    ASSERT_TRUE(rb.take(envelope(++seq, recovered_line(ply, uci))));
  EXPECT_EQ(rb.game_number(), 1);
  EXPECT_TRUE(rb.earlier().empty());
  ASSERT_EQ(rb.game().ply_count(), 7);
  const std::string after = rb.game().position().fen();
  EXPECT_EQ(after.substr(0, after.find(' ') + 2), before.substr(0, before.find(' ') + 2));
  EXPECT_EQ(rules::to_uci(rb.game().position_at(0), rb.game().plies()[0].move), "b1c3");
  EXPECT_TRUE(rb.problems().empty());
}

// A Chess960 board: the host reads its set-up once the board is read, and its state (start_fen, chess960)
// may come before or after the game's first events. Either way the game is the host's, from its start
// (the moves taken from the standard start before the state came are applied again).
TEST(RemoteBoard, AChess960StartToldAfterTheFirstMovesIsTheGamesStart) {
  const auto start = rules::Position::from_fen("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1",
                                               rules::Variant::Chess, true);
  ASSERT_TRUE(start) << start.error();
  const json state{{"game", 1}, {"start_fen", start->fen()}, {"chess960", true}};
  const std::vector<std::string> moves{"h1g3", "h8g6", "f1g1"};  // 3.O-O, the king onto its rook
  for (const bool state_first : {false, true}) {
    RemoteBoard rb("h1", "A");
    if (state_first) rb.take_state(state);
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (i == 2 && !state_first) rb.take_state(state);
      ASSERT_TRUE(rb.take(envelope(i + 1, move_line(int(i) + 1, moves[i]))));
    }
    EXPECT_EQ(rb.game().start().fen(), start->fen()) << state_first;
    ASSERT_EQ(rb.game().ply_count(), 3) << state_first;
    EXPECT_EQ(rb.game().position().piece_on(rules::parse_square("g1")), rules::W_KING) << state_first;
    EXPECT_TRUE(rb.problems().empty()) << state_first << ": " << rb.problems().front();
    EXPECT_EQ(rb.game_number(), 1);
    const std::string pgn =
        outputs::game_pgn({rb.id(), &rb.game(), rb.tags(), rb.started_ms(), rb.game_number(), {}, "", ""});
    EXPECT_NE(pgn.find("1. Ng3 Ng6 2. O-O"), std::string::npos) << pgn;
  }
}

// A gap of known length told by a moves-missed alert: the host goes on after it (the moves since at their
// plies, no hole), and the arbiter's moves come later, recovered, in place of the gap's plies; the moves
// since stay. The alert told again from the same ply gives the held plies way.
TEST(RemoteBoard, AGapOfKnownLengthIsHeldAndItsMovesComeLater) {
  RemoteBoard rb("h1", "A");
  std::uint64_t seq = 0;
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(1, "e2e4"))));
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(2, "e7e5"))));
  ASSERT_TRUE(rb.take(
      envelope(++seq, gap_alert(3, {{"b1c3", "b8c6", "f1c4", "g8f6"}, {"g1f3", "g8f6", "f1c4", "b8c6"}}))));
  // Told again (another ranking): the held plies are the new first candidate's.
  // (The candidates reach one board, each with its own count of moves since a pawn's: not one FEN.)
  ASSERT_TRUE(rb.take(
      envelope(++seq, gap_alert(3, {{"d2d3", "b8c6", "g1f3", "g8f6"}, {"g1f3", "g8f6", "d2d3", "b8c6"}}))));
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(7, "f1e2"))));
  EXPECT_FALSE(rb.hole().has_value()) << "the move after a told gap is no hole";
  ASSERT_EQ(rb.game().ply_count(), 7);
  EXPECT_TRUE(rb.game().plies()[2].missed);
  for (const auto& [ply, uci] :
       std::vector<std::pair<int, std::string>>{{3, "g1f3"}, {4, "g8f6"}, {5, "d2d3"}, {6, "b8c6"}})
    ASSERT_TRUE(rb.take(envelope(++seq, recovered_line(ply, uci))));
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(8, "f8e7"))));
  ASSERT_EQ(rb.game().ply_count(), 8);
  EXPECT_EQ(rules::to_uci(rb.game().position_at(2), rb.game().plies()[2].move), "g1f3");
  EXPECT_TRUE(rb.game().plies()[2].recovered);
  EXPECT_FALSE(rb.game().plies()[2].missed);
  EXPECT_EQ(rules::to_uci(rb.game().position_at(6), rb.game().plies()[6].move), "f1e2");
  EXPECT_TRUE(rb.problems().empty()) << rb.problems().front();
  const std::string pgn =
      outputs::game_pgn({rb.id(), &rb.game(), rb.tags(), rb.started_ms(), rb.game_number(), {}, "", ""});
  EXPECT_NE(pgn.find("2. Nf3 {recovered"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("4. Be2 Be7"), std::string::npos) << pgn;
}

// The arbiter's moves for a held gap of another number than its candidates' (a detour no board shows): the
// host tells them, then every ply since at its ply now, all recovered; the game goes on from them.
TEST(RemoteBoard, AHeldGapSettledLongerTakesTheGameBackAndTheMovesSinceComeAgain) {
  RemoteBoard rb("h1", "A");
  std::uint64_t seq = 0;
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(1, "e2e4"))));
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(2, "e7e5"))));
  ASSERT_TRUE(rb.take(envelope(++seq, gap_alert(3, {{"g1f3", "b8c6", "f1c4", "g8f6"}}))));
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(7, "e1g1"))));
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(8, "f8c5"))));
  // Eight plies to the same board (Bf1-d3-e2-c4, Ng8-h6-g8-f6), then 4.O-O Bc5 again at plies 11 and 12.
  int ply = 3;
  for (const char* uci : {"g1f3", "g8h6", "f1d3", "h6g8", "d3e2", "b8c6", "e2c4", "g8f6", "e1g1", "f8c5"})
    ASSERT_TRUE(rb.take(envelope(++seq, recovered_line(ply++, uci))));
  EXPECT_FALSE(rb.hole().has_value());
  ASSERT_EQ(rb.game().ply_count(), 12);
  EXPECT_EQ(rules::to_uci(rb.game().position_at(4), rb.game().plies()[4].move), "f1d3");
  EXPECT_EQ(rules::to_uci(rb.game().position_at(10), rb.game().plies()[10].move), "e1g1");
  for (const auto& p : rb.game().plies()) EXPECT_FALSE(p.missed);
  EXPECT_TRUE(rb.problems().empty()) << rb.problems().front();
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(13, "d2d3"))));
  EXPECT_EQ(rb.game().ply_count(), 13);
}

// A hole in what the host published again: it has no more, so the record stops there and says so.
TEST(RemoteBoard, AHoleStopsTheRecordAndSaysSo) {
  RemoteBoard rb("h1", "A");
  ASSERT_TRUE(rb.take(envelope(10, move_line(1, "e2e4"))));
  Envelope resent = envelope(30, move_line(3, "g1f3"));  // ply 2 never came
  resent.resend = 2;
  ASSERT_TRUE(rb.take(resent));
  EXPECT_EQ(rb.game().ply_count(), 1);
  ASSERT_EQ(rb.problems().size(), 1u);
  EXPECT_NE(rb.problems()[0].find("hole"), std::string::npos);
  EXPECT_TRUE(rb.take(envelope(40, move_line(4, "zzzz"))));  // garbage from the wire does not crash
  rb.take_state(json("not an object"));
  rb.take_state(json{{"tags", 5}, {"start_fen", 7}});
}

TEST(RemoteBoard, AnIllegalMoveThatStoodGoesOnFromWhereItLeftThePieces) {
  RemoteBoard rb("h1", "A");
  ASSERT_TRUE(rb.take(envelope(10, move_line(1, "e2e4"))));
  ASSERT_TRUE(rb.take(envelope(20, move_line(2, "e7e5"))));
  // A knight from g1 to g3 (no rule allows it); black played on without claiming (FIDE A.4.2).
  json illegal = json::parse(move_line(3, "g1g3"));
  illegal["illegal"] = true;
  ASSERT_TRUE(rb.take(envelope(30, illegal.dump())));
  ASSERT_TRUE(rb.take(envelope(40, move_line(4, "b8c6"))));
  ASSERT_TRUE(rb.take(envelope(50, move_line(5, "g3f5"))));  // a knight's move from where it stood
  EXPECT_TRUE(rb.problems().empty()) << rb.problems().front();
  EXPECT_EQ(rb.game().ply_count(), 5);
  std::string pgn =
      outputs::game_pgn({rb.id(), &rb.game(), rb.tags(), rb.started_ms(), rb.game_number(), {}, "", ""});
  // The record goes on past the illegal move: a new segment from the position it left.
  EXPECT_NE(pgn.find("[SetUp \"1\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("Nf5"), std::string::npos) << pgn;

  // One that cannot have stood (a square off the board, a king taken) is told, not played.
  RemoteBoard bad("h1", "B");
  json off = json::parse(move_line(1, "e2"));
  off["illegal"] = true;
  ASSERT_TRUE(bad.take(envelope(10, off.dump())));
  json king = json::parse(move_line(1, "d1e8"));
  king["illegal"] = true;
  ASSERT_TRUE(bad.take(envelope(20, king.dump())));
  EXPECT_EQ(bad.game().ply_count(), 0);
  EXPECT_EQ(bad.problems().size(), 2u);
}

TEST(RemoteBoard, ThePublicGameLeavesOutWhatCameAfterTheCutoff) {
  RemoteBoard rb("h1", "A");
  ASSERT_TRUE(rb.take(envelope(10, move_line(1, "e2e4", 1000))));
  ASSERT_TRUE(rb.take(envelope(20, move_line(2, "e7e5", 2000))));
  ASSERT_TRUE(rb.take(envelope(30, move_line(3, "g1f3", 3000))));
  ASSERT_TRUE(rb.take(envelope(
      40, json{{"t", 4000}, {"board", "A"}, {"type", "result"}, {"result", "1-0"}, {"reason", "resignation"}}
              .dump())));
  EXPECT_EQ(rb.public_game(999).ply_count(), 0);
  const auto two = rb.public_game(2500);
  EXPECT_EQ(two.ply_count(), 2);
  EXPECT_FALSE(two.outcome());
  const auto moves_only = rb.public_game(3999);
  EXPECT_EQ(moves_only.ply_count(), 3);
  EXPECT_FALSE(moves_only.outcome());
  const auto all = rb.public_game(4000);
  EXPECT_EQ(all.ply_count(), 3);
  EXPECT_TRUE(all.outcome());
  // The next game's first move: the finished one is public from its last event's time on.
  ASSERT_TRUE(rb.take(envelope(5, move_line(1, "d2d4", 9000), 200, 2)));
  ASSERT_EQ(rb.earlier().size(), 1u);
  EXPECT_EQ(rb.earlier()[0].ended_ms, 4000);
}

TEST(RemoteBoard, ItsStatusLooksLikeALocalBoardsAndBadStatesDoNotThrow) {
  RemoteBoard rb("h2", "B");
  ASSERT_TRUE(rb.take(envelope(10, move_line(1, "e2e4"))));
  rb.take_state(json{{"game", 1},
                     {"tags", {{"White", "Ana"}}},
                     {"link", {{"online", false}, {"since", 5}}},
                     {"alerts", json::array({{{"code", "clock-without-move"}, {"ply", 1}, {"detail", "x"}},
                                             {{"code", 7}, {"ply", "two"}},
                                             "not an alert"})}});
  json s = rb.board_status();
  EXPECT_EQ(s["id"], "h2:B");
  EXPECT_EQ(s["game"]["ply"], 1);
  EXPECT_EQ(s["game"]["last_move"], "e2e4");
  EXPECT_EQ(s["game"]["tags"]["White"], "Ana");
  EXPECT_EQ(s["link_state"]["state"], "offline");  // the host told its link is down
  ASSERT_EQ(s["control"]["alerts"].size(), 2u);
  EXPECT_EQ(s["control"]["alerts"][0]["code"], "clock-without-move");
  EXPECT_EQ(s["control"]["alerts"][1]["code"], "");  // a code of the wrong type left out
  EXPECT_EQ(s["control"]["unacknowledged_alerts"], 2);
  EXPECT_EQ(s["control"]["alerts"][0]["number"], 1);  // a host that does not number them: in order
  // The host's numbers are the ones its "ack" takes: alerts 1 and 2 acknowledged there, 3 and 5 open.
  rb.take_state(json{{"game", 1},
                     {"alerts", json::array({{{"number", 3}, {"code", "touch-move"}, {"ply", 4}},
                                             {{"number", 5}, {"code", "illegal-move"}, {"ply", 9}},
                                             {{"number", -1}, {"code", "touch-move"}, {"ply", 9}}})}});
  s = rb.board_status();
  ASSERT_EQ(s["control"]["alerts"].size(), 3u);
  EXPECT_EQ(s["control"]["alerts"][0]["number"], 3);
  EXPECT_EQ(s["control"]["alerts"][1]["number"], 5);
  EXPECT_EQ(s["control"]["alerts"][2]["number"], 3);  // no number of its own: its place in the list
  rb.take_state(json{{"game", 1}, {"link", {{"online", true}}}});
  rb.set_host_online(false);
  EXPECT_EQ(rb.board_status()["link_state"]["state"], "offline");  // its host is gone
  rb.set_host_online(true);
  EXPECT_EQ(rb.board_status()["link_state"]["state"], "online");
}

TEST(Topics, MatchTopic) {
  Topics t("main-hall", "room2");
  EXPECT_EQ(t.match("A-B"), "eboard/main-hall/room2/match/A-B");
  auto p = parse_topic("main-hall", t.match("A-B"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, TopicParts::Kind::Match);
  EXPECT_EQ(p->host, "room2");
  EXPECT_EQ(p->name, "A-B");
  EXPECT_FALSE(parse_topic("main-hall", "eboard/main-hall/room2/match/"));
}

// A bughouse board's drop: the piece came from the partner's capture, which only the host saw; the replay
// takes the drop the host took (the board becomes a bughouse game), with no problem.
TEST(RemoteBoard, BughouseDropsAreReplayed) {
  RemoteBoard rb("h1", "A");
  std::uint64_t seq = 0;
  for (const auto& [ply, uci] : std::vector<std::pair<int, std::string>>{
           {1, "e2e4"}, {2, "e7e5"}, {3, "g1f3"}, {4, "N@f6"}, {5, "P@d5"}, {6, "f6d5"}})
    ASSERT_TRUE(rb.take(envelope(++seq, move_line(ply, uci))));
  EXPECT_TRUE(rb.problems().empty()) << rb.problems().front();
  EXPECT_EQ(rb.game().ply_count(), 6);
  EXPECT_EQ(rb.game().position().variant(), rules::Variant::Bughouse);
  // A drop on an occupied square is still refused: the replay checks what it can.
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(7, "Q@e4"))));
  EXPECT_EQ(rb.problems().size(), 1u);
  EXPECT_EQ(rb.game().ply_count(), 6);
}

// The state says the variant before any drop: the game is replayed as bughouse from there on.
TEST(RemoteBoard, StateVariantMakesABughouseGame) {
  RemoteBoard rb("h1", "A");
  ASSERT_TRUE(rb.take(envelope(1, move_line(1, "e2e4"))));
  rb.take_state(json{{"game", 1}, {"variant", "bughouse"}});
  EXPECT_EQ(rb.game().position().variant(), rules::Variant::Bughouse);
  EXPECT_EQ(rb.game().ply_count(), 1);
  ASSERT_TRUE(rb.take(envelope(2, move_line(2, "B@e5"))));
  EXPECT_TRUE(rb.problems().empty());
}

// A crazyhouse board: the state says so, the pockets come from the board's own captures, and a drop of a
// piece no capture gave is a problem (in bughouse the partner's board would have given it).
TEST(RemoteBoard, StateVariantMakesACrazyhouseGame) {
  RemoteBoard rb("h1", "A");
  std::uint64_t seq = 0;
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(1, "e2e4"))));
  rb.take_state(json{{"game", 1}, {"variant", "crazyhouse"}});
  EXPECT_EQ(rb.game().position().variant(), rules::Variant::Crazyhouse);
  for (const auto& [ply, uci] : std::vector<std::pair<int, std::string>>{
           {2, "d7d5"}, {3, "e4d5"}, {4, "d8d5"}, {5, "g1f3"}, {6, "P@e4"}})
    ASSERT_TRUE(rb.take(envelope(++seq, move_line(ply, uci))));
  EXPECT_TRUE(rb.problems().empty()) << rb.problems().front();
  EXPECT_EQ(rb.game().ply_count(), 6);
  EXPECT_EQ(rb.game().position().variant(), rules::Variant::Crazyhouse);
  EXPECT_EQ(rb.game().position().pocket(rules::WHITE, rules::PAWN), 1);  // from exd5
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(7, "N@e5"))));           // White captured no knight
  EXPECT_EQ(rb.problems().size(), 1u);
  EXPECT_EQ(rb.game().ply_count(), 6);
}

// Events lost on the way (an aggregator killed after the broker handed them over, or started mid-game): a
// live move after the hole is not taken, nor anything live after it, until the host publishes again what
// came after the last event taken; the game then goes on from there, whole.
TEST(RemoteBoard, AHoleWaitsForTheResendAndTheGameGoesOnWhole) {
  RemoteBoard rb("h1", "A");
  const std::vector<std::string> ucis{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"};
  auto at = [&](int ply, int resend = 0) {
    Envelope e = envelope(std::uint64_t(ply) * 10, move_line(ply, ucis[std::size_t(ply - 1)]));
    e.resend = resend;
    return e;
  };
  ASSERT_TRUE(rb.take(at(1)));
  ASSERT_TRUE(rb.take(at(2)));
  EXPECT_FALSE(rb.take(at(4)));  // ply 3 lost
  ASSERT_TRUE(rb.hole());
  EXPECT_EQ(*rb.hole(), (EventId{100, 20}));
  EXPECT_FALSE(rb.take(at(5)));  // live, after the hole: it comes again in the resend
  EXPECT_EQ(rb.game().ply_count(), 2);
  EXPECT_TRUE(rb.problems().empty());
  ASSERT_TRUE(rb.take(at(3, 1)));
  ASSERT_TRUE(rb.take(at(4, 1)));
  ASSERT_TRUE(rb.take(at(5, 2)));  // the last of the resend
  EXPECT_FALSE(rb.hole());
  ASSERT_TRUE(rb.take(at(6)));
  EXPECT_EQ(rb.game().ply_count(), 6);
  EXPECT_TRUE(rb.problems().empty()) << rb.problems().front();
  EXPECT_EQ(rb.status()["held_for_resend"], 2);
  EXPECT_FALSE(rb.take(at(5, 1)));  // a second resend of the same: duplicates
}

// A game's tail lost on the way (an aggregator killed right after the broker handed it over): the next
// game's first move fits, but its `after` names an event never taken, so the board waits for the resend
// and the finished game comes out whole.
TEST(RemoteBoard, ALostTailOfAGameIsAHoleToo) {
  RemoteBoard rb("h1", "A");
  const std::vector<std::string> ucis{"f2f3", "e7e5", "g2g4", "d8h4"};
  auto at = [&](int ply, int resend = 0) {
    Envelope e = envelope(std::uint64_t(ply) * 10, move_line(ply, ucis[std::size_t(ply - 1)]));
    if (ply > 1) e.after = EventId{100, std::uint64_t(ply - 1) * 10};
    e.resend = resend;
    return e;
  };
  ASSERT_TRUE(rb.take(at(1)));
  ASSERT_TRUE(rb.take(at(2)));
  // Plies 3 and 4 and the result lost; the next game (the next journal file) begins.
  Envelope next = envelope(5, move_line(1, "d2d4"), 200, 2);
  next.after = EventId{100, 50};  // the result
  EXPECT_FALSE(rb.take(next));
  ASSERT_TRUE(rb.hole());
  EXPECT_EQ(*rb.hole(), (EventId{100, 20}));
  EXPECT_EQ(rb.game().ply_count(), 2);
  ASSERT_TRUE(rb.take(at(3, 1)));
  ASSERT_TRUE(rb.take(at(4, 1)));
  Envelope result =
      envelope(50, json{{"t", 2000}, {"board", "A"}, {"type", "result"}, {"result", "0-1"}}.dump());
  result.resend = 1;
  ASSERT_TRUE(rb.take(result));
  next.resend = 2;
  ASSERT_TRUE(rb.take(next));
  EXPECT_FALSE(rb.hole());
  ASSERT_EQ(rb.earlier().size(), 1u);
  EXPECT_EQ(rb.earlier()[0].game.ply_count(), 4);
  EXPECT_EQ(rb.game().ply_count(), 1);
  EXPECT_TRUE(rb.problems().empty()) << rb.problems().front();
  // An event whose `after` was taken is taken at once; a daemon's note between two events is not in the
  // chain (a resend from the journal has none), so one lost on the way is no hole.
  Envelope second = envelope(9, move_line(2, "d7d5"), 200, 2);
  second.after = EventId{200, 5};
  EXPECT_TRUE(rb.take(second));
  Envelope third = envelope(12, move_line(3, "c2c4"), 200, 2);
  third.after = EventId{200, 9};  // a note at 11 was lost
  EXPECT_TRUE(rb.take(third));
  EXPECT_FALSE(rb.hole());
  EXPECT_EQ(rb.game().ply_count(), 3);
}

// The host has nothing more (its journal was pruned, or it cannot publish the board): the record stops at
// the hole with a problem, and no resend is asked again for that game; the next game is whole again.
TEST(RemoteBoard, AHoleTheHostCannotFillStopsTheGameOnce) {
  RemoteBoard rb("h1", "A");
  std::uint64_t seq = 0;
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(1, "e2e4"))));
  EXPECT_FALSE(rb.take(envelope(++seq, move_line(3, "g1f3"))));
  ASSERT_TRUE(rb.hole());
  rb.nothing_to_resend();
  EXPECT_FALSE(rb.hole());
  EXPECT_EQ(rb.problems().size(), 1u);
  EXPECT_TRUE(rb.take(envelope(++seq, move_line(4, "b8c6"))));  // taken, and told: no second hole
  EXPECT_FALSE(rb.hole());
  EXPECT_EQ(rb.problems().size(), 2u);
  EXPECT_EQ(rb.game().ply_count(), 1);
  // Read back from what the aggregator kept (every event it took), the hole is not opened again.
  RemoteBoard back("h1", "A");
  EXPECT_TRUE(back.take(envelope(1, move_line(1, "e2e4")), true));
  EXPECT_TRUE(back.take(envelope(4, move_line(4, "b8c6")), true));
  EXPECT_FALSE(back.hole());
  EXPECT_EQ(back.lines().size(), rb.lines().size());
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(1, "d2d4"))));   // pieces set up again
  EXPECT_FALSE(rb.take(envelope(++seq, move_line(3, "c2c4"))));  // a new hole in the new game is asked
  EXPECT_TRUE(rb.hole());
}

// Whatever a host sends, one board holds a bounded record: events of one game up to MAX_GAME_EVENTS (the
// rest dropped and counted, told once), tags and open alerts up to their caps; a new game takes again.
TEST(RemoteBoard, KeptStateIsBounded) {
  RemoteBoard rb("h1", "A");
  std::uint64_t seq = 0;
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(1, "e2e4"))));
  const std::string alert = R"({"t":1000,"board":"A","type":"alert","code":"x","ply":1,"side":"white"})";
  for (std::size_t i = 1; i < RemoteBoard::MAX_GAME_EVENTS; ++i) ASSERT_TRUE(rb.take(envelope(++seq, alert)));
  EXPECT_EQ(rb.lines().size(), RemoteBoard::MAX_GAME_EVENTS);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(rb.take(envelope(++seq, alert)));
  EXPECT_FALSE(rb.take(envelope(++seq, move_line(2, "e7e5"))));
  EXPECT_EQ(rb.lines().size(), RemoteBoard::MAX_GAME_EVENTS);
  EXPECT_EQ(rb.over_limit(), 6u);
  EXPECT_EQ(rb.problems().size(), 1u);
  EXPECT_EQ(rb.status()["over_limit_dropped"], 6);
  EXPECT_FALSE(rb.hole());
  ASSERT_TRUE(rb.take(envelope(++seq, move_line(1, "d2d4"))));  // a new game
  EXPECT_EQ(rb.lines().size(), 1u);
  EXPECT_TRUE(rb.problems().empty());

  json tags = json::object();
  for (int i = 0; i < 200; ++i) tags["T" + std::to_string(i)] = std::string(5000, 'x');
  json alerts = json::array();
  for (int i = 0; i < 200; ++i) alerts.push_back({{"code", "x"}, {"number", i + 1}});
  rb.take_state(json{{"game", 2}, {"tags", tags}, {"alerts", alerts}});
  EXPECT_EQ(rb.tags().size(), RemoteBoard::MAX_TAGS);
  for (const auto& t : rb.tags()) EXPECT_LE(t.value.size(), RemoteBoard::MAX_TAG_BYTES);
  EXPECT_EQ(rb.board_status()["control"]["alerts"].size(), RemoteBoard::MAX_ALERTS);
}

// The host's tags in its own order (its PGN's): a JSON object would give them sorted.
TEST(RemoteBoard, TagsKeepTheHostsOrder) {
  RemoteBoard rb("h1", "A");
  rb.take_state(json{{"game", 1},
                     {"tags", {{"White", "Ana"}, {"Black", "Bo"}, {"Event", "Open"}, {"Annotator", "x"}}},
                     {"tag_order", {"Event", "White", "Black", 7, "Missing"}}});
  std::vector<std::string> names;
  for (const auto& t : rb.tags()) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Event", "White", "Black", "Annotator"}));
  rb.take_state(json{{"game", 1}, {"tags", {{"White", "Ana"}, {"Black", "Bo"}}}});  // an older host
  names.clear();
  for (const auto& t : rb.tags()) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Black", "White"}));
}

// Two clients with one client id throw each other out right after each CONNACK: told after three such
// sessions in a row, once; a session that lasts, or a failure to connect at all, is not a takeover.
TEST(MqttTakeover, ShortSessionsInARowAreATakeover) {
  using eboard::mqtt::TakeoverWatch;
  using namespace std::chrono_literals;
  TakeoverWatch w;
  TakeoverWatch::Clock::time_point t{};
  // A broker restart or a network failure after a long session: not a takeover.
  w.connected(t);
  EXPECT_FALSE(w.lost(t += 10min));
  // Refused or unreachable: no session, nothing said.
  EXPECT_FALSE(w.lost(t += 1s));
  EXPECT_FALSE(w.taken_over());
  // Thrown out 200 ms after each connection.
  w.connected(t += 200ms);
  EXPECT_FALSE(w.lost(t += 20ms));
  w.connected(t += 200ms);
  EXPECT_FALSE(w.lost(t += 20ms));
  EXPECT_FALSE(w.taken_over());
  w.connected(t += 200ms);
  EXPECT_TRUE(w.lost(t += 20ms));  // the third in a row: told now
  EXPECT_TRUE(w.taken_over());
  w.connected(t += 200ms);
  EXPECT_FALSE(w.lost(t += 20ms));  // told once, still taken over
  EXPECT_TRUE(w.taken_over());
  EXPECT_EQ(w.short_sessions(), 4u);
  // The other client went away: a session lasts (told while it does), and the count starts again.
  w.connected(t += 200ms);
  EXPECT_TRUE(w.taken_over_at(t + 1s));
  EXPECT_FALSE(w.taken_over_at(t + 5s));
  EXPECT_FALSE(w.lost(t += 1h));
  EXPECT_FALSE(w.taken_over());
  EXPECT_EQ(w.short_in_a_row(), 0);
}

// A board without a device on its host (issue 27) is shown as one by an aggregator; a wrong type is not.
TEST(RemoteBoard, BoardWithoutWoodIsToldAsSuch) {
  RemoteBoard rb("h1", "7");
  EXPECT_FALSE(rb.board_status()["woodless"].get<bool>());
  rb.take_state(json{{"game", 1}, {"woodless", true}});
  EXPECT_TRUE(rb.board_status()["woodless"].get<bool>());
  rb.take_state(json{{"game", 1}, {"woodless", "yes"}});
  EXPECT_FALSE(rb.board_status()["woodless"].get<bool>());
}
