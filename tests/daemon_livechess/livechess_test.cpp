// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The LiveChess local API without sockets: what lichess' DGT page (lila ui/dgt) sends, answered as it reads
// the answers; feeds sending only what changed; every malformed request answered with an error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/livechess/listener.hpp"
#include "daemon/livechess/protocol.hpp"
#include "daemon/livechess/session.hpp"

using namespace eboard::livechess;
using nlohmann::json;

namespace {

const std::string START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

BoardView board_a() {
  BoardView v;
  v.serialnr = "12345";
  v.board_id = "A";
  v.device = "/dev/ttyUSB0";
  v.online = true;
  v.board = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
  v.start = START;
  v.clock = ClockView{300000, 300000, std::nullopt, 0};
  return v;
}

// The boards as a test sets them; setup and flip as the daemon would take them (recorded).
class TestHost : public Host {
 public:
  std::vector<BoardView> list{board_a()};
  std::vector<std::pair<std::string, std::string>> setups;  // board id, fen
  std::vector<std::pair<std::string, bool>> flips;
  std::string refuse;  // non-empty: setup fails with this

  std::vector<BoardView> boards() override { return list; }
  tl::expected<void, std::string> setup(const BoardView& b, const std::string& fen) override {
    if (!refuse.empty()) return tl::unexpected(refuse);
    setups.emplace_back(b.board_id, fen);
    return {};
  }
  tl::expected<void, std::string> flip(const BoardView& b, bool f) override {
    flips.emplace_back(b.board_id, f);
    return {};
  }
  std::int64_t now_ms() override { return 1700000000000; }
};

std::vector<json> parsed(const std::vector<std::string>& messages) {
  std::vector<json> out;
  for (const auto& m : messages) out.push_back(json::parse(m));
  return out;
}

// Subscribes as lila does (request id 2, feed id 1) and returns the ack and the first feed message.
std::vector<json> lila_subscribe(Session& s, const std::string& serialnr) {
  return parsed(
      s.handle(R"({"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":")" +
               serialnr + R"("}}})"));
}

}  // namespace

TEST(LiveChess, EboardsAnswersAsLilaReadsIt) {
  TestHost host;
  Session s(host);
  auto out = parsed(s.handle(R"({"id":1,"call":"eboards"})"));
  ASSERT_EQ(out.size(), 1u);
  // lila: message.response == 'call' && message.id == '1'; boards[0].serialnr, boards[0].state.
  EXPECT_EQ(out[0]["response"], "call");
  EXPECT_EQ(out[0]["id"], 1);
  EXPECT_EQ(out[0]["time"], 1700000000000);
  ASSERT_TRUE(out[0]["param"].is_array());
  const json& b = out[0]["param"][0];
  EXPECT_EQ(b["serialnr"], "12345");
  EXPECT_EQ(b["state"], "ACTIVE");
  EXPECT_EQ(b["source"], "/dev/ttyUSB0");
  EXPECT_EQ(b["board"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
  EXPECT_EQ(b["flipped"], false);
  EXPECT_EQ(b["clock"]["white"], 300);
  EXPECT_TRUE(b["clock"]["run"].is_null());

  host.list[0].online = false;
  host.list[0].device.clear();
  host.list[0].clock.reset();
  auto again = parsed(s.handle(R"({"id":"x","call":"eboards"})"));
  EXPECT_EQ(again[0]["id"], "x");
  EXPECT_EQ(again[0]["param"][0]["state"], "NOTRESPONDING");
  EXPECT_TRUE(again[0]["param"][0]["source"].is_null());
  EXPECT_TRUE(again[0]["param"][0]["clock"].is_null());
}

TEST(LiveChess, SubscribeAcksThenSendsTheWholeBoard) {
  TestHost host;
  Session s(host);
  auto out = lila_subscribe(s, "12345");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["response"], "call");
  EXPECT_EQ(out[0]["id"], 2);
  EXPECT_TRUE(out[0]["param"].is_null());
  EXPECT_EQ(out[1]["response"], "feed");
  EXPECT_EQ(out[1]["id"], 1);  // the feed id
  const json& p = out[1]["param"];
  EXPECT_EQ(p["serialnr"], "12345");
  EXPECT_EQ(p["board"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
  EXPECT_EQ(p["start"], START);
  EXPECT_EQ(p["san"], json::array());
  EXPECT_EQ(p["flipped"], false);
  EXPECT_EQ(p["clock"]["black"], 300);
  EXPECT_EQ(s.feeds(), 1u);
}

TEST(LiveChess, FeedsSendOnlyWhatChangedAndNothingWhenNothingDid) {
  TestHost host;
  Session s(host);
  lila_subscribe(s, "12345");
  EXPECT_TRUE(s.changed(host.boards()).empty());

  // 1. e4: board, clock and san change.
  BoardView& v = host.list[0];
  v.board = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
  v.san = {"e4"};
  v.clock = ClockView{297500, 300000, false, 1700000001000};
  auto out = parsed(s.changed(host.boards()));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]["response"], "feed");
  EXPECT_EQ(out[0]["param"]["san"], json::array({"e4"}));
  EXPECT_EQ(out[0]["param"]["board"], v.board);
  EXPECT_EQ(out[0]["param"]["clock"]["white"], 297);
  EXPECT_EQ(out[0]["param"]["clock"]["run"], false);
  EXPECT_EQ(out[0]["param"]["clock"]["time"], 1700000001000);

  // Flipped only: board and clock left out, san still there (lila reads it on every message).
  v.flipped = true;
  out = parsed(s.changed(host.boards()));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0]["param"].contains("board"));
  EXPECT_FALSE(out[0]["param"].contains("clock"));
  EXPECT_EQ(out[0]["param"]["flipped"], true);
  EXPECT_EQ(out[0]["param"]["san"], json::array({"e4"}));

  // Another board's change is not this feed's business.
  BoardView b = board_a();
  b.serialnr = "99999";
  b.san = {"d4"};
  host.list.push_back(b);
  EXPECT_TRUE(s.changed(host.boards()).empty());
}

TEST(LiveChess, SetupAndFlipGoToTheBoardOfTheFeed) {
  TestHost host;
  Session s(host);
  lila_subscribe(s, "12345");
  // lila's sendBoardToLiveChess(): {id: 3, call: 'call', param: {id: 1, method: 'setup', param: {fen}}}.
  auto out = parsed(s.handle(R"({"id":3,"call":"call","param":{"id":1,"method":"setup","param":{"fen":")" +
                             START + R"("}}})"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]["response"], "call");
  EXPECT_EQ(out[0]["id"], 3);
  ASSERT_EQ(host.setups.size(), 1u);
  EXPECT_EQ(host.setups[0], (std::pair<std::string, std::string>{"A", START}));

  out = parsed(s.handle(R"({"id":4,"call":"call","param":{"id":1,"method":"flip","param":{"flip":true}}})"));
  EXPECT_EQ(out[0]["response"], "call");
  ASSERT_EQ(host.flips.size(), 1u);
  EXPECT_EQ(host.flips[0], (std::pair<std::string, bool>{"A", true}));

  // The daemon's refusal reaches the client as an error.
  host.refuse = "board A plays in a bughouse match";
  out = parsed(s.handle(R"({"id":5,"call":"call","param":{"id":1,"method":"setup","param":{"fen":"x"}}})"));
  EXPECT_EQ(out[0]["response"], "error");
  EXPECT_EQ(out[0]["id"], 5);
  EXPECT_EQ(out[0]["param"]["message"], "board A plays in a bughouse match");
}

TEST(LiveChess, UnsubscribeEndsTheFeed) {
  TestHost host;
  Session s(host);
  lila_subscribe(s, "12345");
  auto out = parsed(s.handle(R"({"id":6,"call":"unsubscribe","param":{"id":1}})"));
  EXPECT_EQ(out[0]["response"], "call");
  EXPECT_EQ(s.feeds(), 0u);
  host.list[0].san = {"e4"};
  EXPECT_TRUE(s.changed(host.boards()).empty());
  out = parsed(s.handle(R"({"id":7,"call":"call","param":{"id":1,"method":"flip","param":{"flip":false}}})"));
  EXPECT_EQ(out[0]["response"], "error");
}

TEST(LiveChess, EveryBadRequestIsAnsweredWithAnError) {
  TestHost host;
  Session s(host);
  lila_subscribe(s, "12345");
  const std::vector<std::pair<std::string, json>> bad = {
      {"", nullptr},
      {"not json", nullptr},
      {"[1,2,3]", nullptr},
      {"42", nullptr},
      {R"({"id":{"a":1},"call":"eboards"})", nullptr},
      {R"({"id":8})", 8},
      {R"({"id":9,"call":7})", 9},
      {R"({"id":10,"call":"nope"})", 10},
      {R"({"id":11,"call":"subscribe"})", 11},
      {R"({"id":12,"call":"subscribe","param":{"feed":"news","id":3,"param":{"serialnr":"12345"}}})", 12},
      {R"({"id":13,"call":"subscribe","param":{"feed":"eboardevent","id":3,"param":{"serialnr":"0"}}})", 13},
      {R"({"id":14,"call":"subscribe","param":{"feed":"eboardevent","id":[1],"param":{"serialnr":"12345"}}})",
       14},
      {R"({"id":15,"call":"subscribe","param":{"feed":"eboardevent","id":3}})", 15},
      {R"({"id":16,"call":"call","param":{"id":2,"method":"setup","param":{"fen":"x"}}})", 16},
      {R"({"id":17,"call":"call","param":{"id":1,"method":"dance"}})", 17},
      {R"({"id":18,"call":"call","param":{"id":1,"method":"setup","param":{"fen":3}}})", 18},
      {R"({"id":19,"call":"call","param":{"id":1,"method":"flip","param":{"flip":"yes"}}})", 19},
      {R"({"id":20,"call":"call","param":"setup"})", 20},
      {R"({"id":21,"call":"unsubscribe","param":{}})", 21},
  };
  for (const auto& [text, id] : bad) {
    auto out = parsed(s.handle(text));
    ASSERT_EQ(out.size(), 1u) << text;
    EXPECT_EQ(out[0]["response"], "error") << text;
    EXPECT_EQ(out[0]["id"], id) << text;
    EXPECT_TRUE(out[0]["param"]["message"].is_string()) << text;
    EXPECT_FALSE(out[0]["param"]["message"].get<std::string>().empty()) << text;
  }
  EXPECT_TRUE(host.setups.empty());
  EXPECT_TRUE(host.flips.empty());
  EXPECT_EQ(s.feeds(), 1u);
}

TEST(LiveChess, FeedsPerConnectionAreBounded) {
  TestHost host;
  Session s(host);
  for (std::size_t i = 0; i < Session::MAX_FEEDS; ++i) {
    auto out = parsed(s.handle(R"({"id":1,"call":"subscribe","param":{"feed":"eboardevent","id":)" +
                               std::to_string(i) + R"(,"param":{"serialnr":"12345"}}})"));
    ASSERT_EQ(out[0]["response"], "call");
  }
  auto out = parsed(s.handle(
      R"({"id":1,"call":"subscribe","param":{"feed":"eboardevent","id":"more","param":{"serialnr":"12345"}}})"));
  EXPECT_EQ(out[0]["response"], "error");
  // The same id again replaces its feed (and is sent the whole board again).
  out = parsed(s.handle(
      R"({"id":1,"call":"subscribe","param":{"feed":"eboardevent","id":0,"param":{"serialnr":"12345"}}})"));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[1]["param"].contains("board"));
  EXPECT_EQ(s.feeds(), Session::MAX_FEEDS);
}

TEST(LiveChess, HttpRoutes) {
  using eboard::http::Request;
  Request r;
  r.method = "GET";
  r.path = "/api/v1.0/eboards";
  auto res = route(r, {board_a()});
  EXPECT_EQ(res.status, 200u);
  json list = json::parse(res.body);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["serialnr"], "12345");

  r.path = "/api/v1.0/tournaments";
  EXPECT_EQ(json::parse(route(r, {}).body), json::array());
  r.path = "/api/v1.0/round/abc/1";
  EXPECT_EQ(route(r, {}).status, 404u);
  r.path = "/elsewhere";
  EXPECT_EQ(route(r, {}).status, 404u);
  r.method = "POST";
  r.path = "/api/v1.0/eboards";
  EXPECT_EQ(route(r, {}).status, 405u);

  Request up;
  up.method = "GET";
  up.websocket = true;
  up.path = "/api/v1.0";
  EXPECT_EQ(route(up, {}).status, 101u);
  up.path = "/api/v1.0/";
  EXPECT_EQ(route(up, {}).status, 101u);
  up.path = "/ws";
  EXPECT_EQ(route(up, {}).status, 404u);
}

TEST(LiveChess, StrayBytesInTextNeverBreakAnAnswer) {
  // An invalid UTF-8 board comment (from a device name, say) is replaced, not thrown on.
  BoardView v = board_a();
  v.comment = std::string("bad \xff byte");
  std::string m = response("call", 1, json::array({eboard_json(v)}), 0);
  json back = json::parse(m, nullptr, false);
  ASSERT_FALSE(back.is_discarded()) << m;
  EXPECT_EQ(back["param"][0]["comment"].get<std::string>().rfind("bad ", 0), 0u);
}

TEST(LiveChess, OnlyListedWebPagesMayUseIt) {
  const std::vector<std::string> lichess{"https://lichess.org"};
  EXPECT_TRUE(origin_allowed("", lichess));  // not a browser
  EXPECT_TRUE(origin_allowed("https://lichess.org", lichess));
  EXPECT_TRUE(origin_allowed("HTTPS://Lichess.org", lichess));
  EXPECT_FALSE(origin_allowed("https://evil.example", lichess));
  EXPECT_FALSE(origin_allowed("https://lichess.org.evil.example", lichess));
  EXPECT_FALSE(origin_allowed("null", lichess));
  EXPECT_FALSE(origin_allowed("https://lichess.org", {}));
  EXPECT_TRUE(origin_allowed("https://evil.example", {"*"}));
}
