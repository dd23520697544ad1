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

namespace {

RoundView round_of_two() {
  RoundView r;
  r.tournament_uuid = "eboardd-0123456789abcdef";
  r.name = "Lyon Open";
  r.site = "Lyon FRA";
  r.date = "2026.11.26";
  r.round = 3;
  r.serials = {"12345", "B"};
  PairingView a;
  a.nr = 1;
  a.game_uuid = "A-7";
  a.white = player_of_pgn_name("Carlsen, Magnus");
  a.white.fideid = "1503014";
  a.black = player_of_pgn_name("Anand,Viswanathan");
  a.live = true;
  a.result = "*";
  a.san = {"e4", "e5", "Nf3"};
  a.clock = ClockView{5400000, 5399000, false, 1700000000000};
  PairingView b;
  b.nr = 2;
  b.game_uuid = "B-2";
  b.white = player_of_pgn_name("Polgar");
  b.result = "0-1";
  r.pairings = {a, b};
  return r;
}

eboard::http::Request get(const std::string& path) {
  eboard::http::Request r;
  r.method = "GET";
  r.path = path;
  return r;
}

}  // namespace

// LiveChess' `match` is a boolean (lila and LiveChess clients read it as one), never null.
TEST(LiveChess, FeedMatchIsABoolean) {
  BoardView v = board_a();
  v.match = true;
  json p = feed_param(v, nullptr);
  ASSERT_TRUE(p["match"].is_boolean()) << p.dump();
  EXPECT_TRUE(p["match"].get<bool>());
  v.match = false;
  EXPECT_FALSE(feed_param(v, &v)["match"].get<bool>());
}

// The tournament calls answer with the event, its current round and its pairings, as LiveChess' local
// API does (reference/peers.md §2.2), instead of [] and 404.
TEST(LiveChess, TournamentRoundAndGameCallsAnswerWithTheRound) {
  const RoundView round = round_of_two();
  auto res = route(get("/api/v1.0/tournaments"), {}, round);
  ASSERT_EQ(res.status, 200u);
  json list = json::parse(res.body);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["uuid"], round.tournament_uuid);
  EXPECT_EQ(list[0]["description"], "Lyon Open");
  EXPECT_EQ(list[0]["rounds"], 3);

  res = route(get("/api/v1.0/tournament/" + round.tournament_uuid), {}, round);
  ASSERT_EQ(res.status, 200u);
  json t = json::parse(res.body);
  EXPECT_EQ(t["name"], "Lyon Open");
  EXPECT_EQ(t["location"], "Lyon FRA");
  EXPECT_EQ(t["eboards"], json::array({"12345", "B"}));
  EXPECT_EQ(route(get("/api/v1.0/tournament/other"), {}, round).status, 404u);

  res = route(get("/api/v1.0/round/" + round.tournament_uuid + "/3"), {}, round);
  ASSERT_EQ(res.status, 200u) << res.body;
  json r = json::parse(res.body);
  EXPECT_EQ(r["nr"], 3);
  EXPECT_EQ(r["date"], "2026.11.26");
  ASSERT_EQ(r["pairings"].size(), 2u);
  const json& p1 = r["pairings"][0];
  EXPECT_EQ(p1["nr"], 1);
  EXPECT_EQ(p1["uuid"], "A-7");
  EXPECT_EQ(p1["white"]["lname"], "Carlsen");
  EXPECT_EQ(p1["white"]["fname"], "Magnus");
  EXPECT_EQ(p1["white"]["fideid"], "1503014");
  EXPECT_EQ(p1["black"]["lname"], "Anand");
  EXPECT_EQ(p1["black"]["fname"], "Viswanathan");
  EXPECT_TRUE(p1["live"].get<bool>());
  EXPECT_TRUE(p1["result"].is_null());
  const json& p2 = r["pairings"][1];
  EXPECT_EQ(p2["white"]["lname"], "Polgar");
  EXPECT_TRUE(p2["white"]["fname"].is_null());
  EXPECT_TRUE(p2["black"]["lname"].is_null());
  EXPECT_EQ(p2["result"], "BLACKWIN");
  EXPECT_FALSE(p2["live"].get<bool>());
  // Only the current round is known.
  EXPECT_EQ(route(get("/api/v1.0/round/" + round.tournament_uuid + "/2"), {}, round).status, 404u);
  EXPECT_EQ(route(get("/api/v1.0/round/other/3"), {}, round).status, 404u);

  res = route(get("/api/v1.0/game/A-7"), {}, round);
  ASSERT_EQ(res.status, 200u);
  json g = json::parse(res.body);
  EXPECT_EQ(g["chess960"], 518);
  EXPECT_EQ(g["moves"], json::array({"e4", "e5", "Nf3"}));
  EXPECT_EQ(g["clock"]["white"], 5400);
  EXPECT_EQ(g["clock"]["black"], 5399);
  EXPECT_EQ(g["clock"]["run"], false);
  EXPECT_TRUE(g["result"].is_null());
  EXPECT_EQ(json::parse(route(get("/api/v1.0/game/B-2"), {}, round).body)["result"], "BLACKWIN");
  EXPECT_EQ(route(get("/api/v1.0/game/A-6"), {}, round).status, 404u);
}

TEST(LiveChess, ResultsAndNamesAsLiveChessHasThem) {
  EXPECT_EQ(result_json("1-0"), "WHITEWIN");
  EXPECT_EQ(result_json("0-1"), "BLACKWIN");
  EXPECT_EQ(result_json("1/2-1/2"), "DRAW");
  EXPECT_TRUE(result_json("*").is_null());
  EXPECT_EQ(player_of_pgn_name(" Kasparov , Garry ").lname, "Kasparov");
  EXPECT_EQ(player_of_pgn_name(" Kasparov , Garry ").fname, "Garry");
  EXPECT_EQ(player_of_pgn_name("?"), PlayerView{});
}

// [livechess] boards: which boards are listed, in that order (lichess' page plays the first).
TEST(LiveChess, ChosenBoardsInTheirOrder) {
  BoardView a = board_a(), b = board_a(), c = board_a();
  b.board_id = "B";
  b.serialnr = "B";
  c.board_id = "host2:C";
  c.serialnr = "host2:C";
  auto ids = [](const std::vector<BoardView>& v) {
    std::vector<std::string> out;
    for (const auto& x : v) out.push_back(x.board_id);
    return out;
  };
  EXPECT_EQ(ids(chosen_boards({a, b, c}, {})), (std::vector<std::string>{"A", "B", "host2:C"}));
  EXPECT_EQ(ids(chosen_boards({a, b, c}, {"host2:C", "A"})), (std::vector<std::string>{"host2:C", "A"}));
  EXPECT_EQ(ids(chosen_boards({a, b}, {"Z", "B"})), (std::vector<std::string>{"B"}));
}

// Its own server options: a LiveChess client is never told to go (a reconnect replays the first feed as
// new moves in lila's page), whatever [http] says of viewers.
TEST(LiveChess, ClientsHaveNoLifetime) {
  const auto o = ListenerOptions::default_server_options();
  EXPECT_EQ(o.ws_max_lifetime.count(), 0);
  EXPECT_EQ(ListenerOptions{}.http.ws_max_lifetime.count(), 0);
  EXPECT_FALSE(ListenerOptions{}.control);  // setup and flip need the token unless the operator says so
}

// Issue 28's doors: the Host header names this computer (DNS rebinding), a page's origin is allowed, and
// setup and flip need the control token unless `control` is set; beyond loopback (`delayed`), a client
// without the token sees the boards behind the broadcast delay.
TEST(LiveChess, AdmissionChecksHostOriginAndToken) {
  ListenerOptions o;
  o.allowed_origins = {"https://lichess.org"};
  o.host_allowed = [](std::string_view h) { return h == "localhost:1982" || h == "127.0.0.1:1982"; };
  o.token_right = [](std::string_view t) {
    return t == "s3cret" ? TokenRight::control : t == "reader" ? TokenRight::read : TokenRight::none;
  };
  auto req = [](std::string host, std::string origin = "", std::string auth = "") {
    eboard::http::Request r;
    r.method = "GET";
    r.path = "/api/v1.0";
    r.websocket = true;
    r.host = std::move(host);
    r.origin = std::move(origin);
    r.authorization = std::move(auth);
    return r;
  };
  Admission a = admit(req("rebound.evil.example:1982", "https://lichess.org"), o);
  ASSERT_TRUE(a.refused);
  EXPECT_EQ(a.refused->status, 421u);
  a = admit(req("localhost:1982", "https://evil.example"), o);
  ASSERT_TRUE(a.refused);
  EXPECT_EQ(a.refused->status, 403u);

  a = admit(req("localhost:1982", "https://lichess.org"), o);
  ASSERT_FALSE(a.refused);
  EXPECT_FALSE(a.control);
  EXPECT_TRUE(a.live);
  a = admit(req("127.0.0.1:1982", "", "Bearer s3cret"), o);
  ASSERT_FALSE(a.refused);
  EXPECT_TRUE(a.control);
  a = admit(req("127.0.0.1:1982", "", "Bearer guess"), o);
  ASSERT_TRUE(a.refused);
  EXPECT_EQ(a.refused->status, 401u);

  o.control = true;
  EXPECT_TRUE(admit(req("localhost:1982", "https://lichess.org"), o).control);

  o.control = false;
  a = admit(req("127.0.0.1:1982", "", "Bearer reader"), o);  // the read token reads, never controls
  ASSERT_FALSE(a.refused);
  EXPECT_FALSE(a.control);

  o.delayed = true;
  EXPECT_FALSE(admit(req("localhost:1982"), o).live);
  EXPECT_TRUE(admit(req("localhost:1982", "", "Bearer s3cret"), o).live);
  EXPECT_TRUE(admit(req("localhost:1982", "", "Bearer reader"), o).live);
}
