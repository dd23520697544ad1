// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// eboardd's configuration: the contract's example, the optional keys, every kind of mistake reported with
// the file and the exact line, and the diff a reload applies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "daemon/config/config.hpp"
#include "daemon/session/board_protocol.hpp"

using namespace eboard::config;
namespace session = eboard::session;

namespace {

const char* CONTRACT_EXAMPLE = R"(state_dir = "/var/lib/eboardd"

[http]
listen = "127.0.0.1:7780"

[[board]]
id = "A"
port = "/dev/ttyUSB0"
protocol = "dgt"

[[board]]
id = "B"
port = "/dev/ttyUSB1"
protocol = "dgt"

[[match]]
boards = ["A", "B"]
rules = "bughouse-fqe"
)";

Config parse_ok(const std::string& text) {
  auto c = parse_config(text, "test.toml");
  EXPECT_TRUE(c) << (c ? "" : c.error().what());
  return c ? *c : Config{};
}

// The error for `text`: its line, and the message must contain `needle`.
void expect_error(const std::string& text, int line, const std::string& needle) {
  auto c = parse_config(text, "bad.toml");
  ASSERT_FALSE(c) << "accepted:\n" << text;
  EXPECT_EQ(c.error().file, "bad.toml");
  EXPECT_EQ(c.error().line, line) << c.error().what() << "\n" << text;
  EXPECT_NE(c.error().message.find(needle), std::string::npos) << c.error().what();
  EXPECT_EQ(c.error().what().rfind("bad.toml:" + std::to_string(line) + ":", 0), 0u) << c.error().what();
}

const std::string BOARD_A = "[[board]]\nid = \"A\"\nport = \"/dev/ttyUSB0\"\n";

}  // namespace

TEST(Config, TheContractExample) {
  Config c = parse_ok(CONTRACT_EXAMPLE);
  EXPECT_EQ(c.state_dir, "/var/lib/eboardd");
  EXPECT_EQ(c.http.host, "127.0.0.1");
  EXPECT_EQ(c.http.port, 7780);
  EXPECT_TRUE(c.http.loopback);
  EXPECT_TRUE(c.http.open_read);
  EXPECT_TRUE(c.http.token.empty());
  ASSERT_EQ(c.boards.size(), 2u);
  EXPECT_EQ(c.boards[0].id, "A");
  EXPECT_EQ(c.boards[0].device(), "/dev/ttyUSB0");
  EXPECT_EQ(c.boards[1].port, "/dev/ttyUSB1");
  EXPECT_EQ(c.boards[0].line, 6);
  EXPECT_EQ(c.boards[1].line, 11);
  ASSERT_EQ(c.matches.size(), 1u);
  EXPECT_EQ(c.matches[0].name(), "A-B");
  EXPECT_EQ(c.matches[0].rules, "bughouse-fqe");
  EXPECT_EQ(c.profile_of("A"), "bughouse-fqe");  // a board in a match plays the match's rules
}

TEST(Config, OptionalKeys) {
  Config c = parse_ok(R"(
state_dir = "/srv/eboard"
log_level = "debug"
[http]
listen = "[::1]:8080"
token = "s3cret-token"
max_clients = 10
ws_queue_bytes = 65536
[journal]
sync_ms = 20
[[board]]
id = "board_1"
serial = "DGT00042"
rules = "fide-blitz"
chess960 = true
raw_log = false
)");
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_EQ(c.http.host, "::1");
  EXPECT_EQ(c.http.port, 8080);
  EXPECT_TRUE(c.http.loopback);
  EXPECT_EQ(c.http.token, "s3cret-token");
  EXPECT_EQ(c.http.max_clients, 10u);
  EXPECT_EQ(c.http.ws_queue_bytes, 65536u);
  EXPECT_EQ(c.journal.sync_ms, 20);
  // What a browser may reach and how many: the HTTP hardening keys.
  Config h = parse_ok(R"(
[http]
token = "control-token-1"
read_token = "read-token-2"
server_names = ["Hall-PC.local", "hall-pc"]
allowed_origins = ["http://Screen.local:8080/"]
max_ws_clients = 50
ws_max_lifetime_s = 3600
)");
  EXPECT_EQ(h.http.read_token, "read-token-2");
  EXPECT_EQ(h.http.server_names, (std::vector<std::string>{"hall-pc.local", "hall-pc"}));
  EXPECT_EQ(h.http.allowed_origins, (std::vector<std::string>{"http://screen.local:8080"}));
  EXPECT_EQ(h.http.max_ws_clients, 50u);
  EXPECT_EQ(h.http.ws_max_lifetime_s, 3600);
  // A read token alone publishes beyond loopback, and reading then needs a token.
  Config pub_read = parse_ok("[http]\nlisten = \"0.0.0.0:7780\"\nread_token = \"0123456789\"\n");
  EXPECT_FALSE(pub_read.http.open_read);
  ASSERT_EQ(c.boards.size(), 1u);
  EXPECT_EQ(c.boards[0].device(), "/dev/eboard/dgt-DGT00042");  // the udev rules' symlink
  EXPECT_EQ(c.profile_of("board_1"), "fide-blitz");
  EXPECT_TRUE(c.boards[0].chess960);
  EXPECT_FALSE(c.boards[0].raw_log);
  // A public address with a token: reading needs the token unless open_read says otherwise.
  Config pub = parse_ok("[http]\nlisten = \"0.0.0.0:7780\"\ntoken = \"0123456789\"\n");
  EXPECT_FALSE(pub.http.loopback);
  EXPECT_FALSE(pub.http.open_read);
  Config open = parse_ok("[http]\nlisten = \"0.0.0.0:7780\"\nopen_read = true\n");
  EXPECT_TRUE(open.http.open_read);
  // Defaults, and no boards at all.
  Config empty = parse_ok("");
  EXPECT_EQ(empty.http.listen, "127.0.0.1:7780");
  EXPECT_TRUE(empty.boards.empty());
}

TEST(Config, UnknownKeysSuggestTheRightOne) {
  expect_error("stat_dir = \"/x\"\n", 1, "unknown key 'stat_dir'; did you mean 'state_dir'?");
  expect_error(BOARD_A + "protocl = \"dgt\"\n", 4, "did you mean 'protocol'?");
  expect_error("[http]\nlisten = \"127.0.0.1:1\"\nlistne = \"x\"\n", 3,
               "unknown key 'http.listne'; did you mean 'listen'?");
  expect_error(BOARD_A + "[[match]]\nbords = [\"A\", \"B\"]\n", 5, "did you mean 'boards'?");
  expect_error("[jurnal]\nsync_ms = 5\n", 1, "did you mean 'journal'?");
  // Far from anything: the list of keys instead.
  expect_error("colour = \"blue\"\n", 1, "known keys: state_dir");
}

// [gaps] (issue 30): the engine ranker is off unless asked for; a typo in its name or keys is an error
// naming the line, never a ranker silently off.
TEST(Config, GapRanker) {
  Config none = parse_ok("");
  EXPECT_EQ(none.gaps.ranker, "rules");
  Config sf = parse_ok(
      "[gaps]\nranker = \"stockfish\"\nengine = \"/opt/sf\"\nengine_nodes = 500\n"
      "engine_timeout_ms = 2000\n");
  EXPECT_EQ(sf.gaps.ranker, "stockfish");
  EXPECT_EQ(sf.gaps.engine, "/opt/sf");
  EXPECT_EQ(sf.gaps.engine_nodes, 500);
  EXPECT_EQ(sf.gaps.engine_timeout_ms, 2000);
  expect_error("[gaps]\nranker = \"stockfsh\"\n", 2,
               "unknown gaps.ranker 'stockfsh' (\"rules\" or \"stockfish\"); did you mean 'stockfish'?");
  expect_error("[gaps]\nrankr = \"stockfish\"\n", 2, "unknown key 'gaps.rankr'; did you mean 'ranker'?");
  expect_error("[gap]\nranker = \"stockfish\"\n", 1, "did you mean 'gaps'?");
  expect_error("[gaps]\nengine = \"stockfish\"\n", 2, "gaps.engine must be an absolute path");
  expect_error("[gaps]\nengine_nodes = 0\n", 2, "engine_nodes");
  // The hold of gaps the clock does not count: on unless turned off.
  EXPECT_TRUE(none.gaps.hold_uncounted);
  EXPECT_FALSE(parse_ok("[gaps]\nhold_uncounted = false\n").gaps.hold_uncounted);
  EXPECT_TRUE(parse_ok("[gaps]\nhold_uncounted = true\n").gaps.hold_uncounted);
  expect_error("[gaps]\nhold_uncounted = \"yes\"\n", 2, "gaps.hold_uncounted must be true or false");
  expect_error("[gaps]\nhold_uncountd = true\n", 2, "did you mean 'hold_uncounted'?");
  // The opening lines: unset (pgn-extract's file when installed), "" for none, or an absolute path.
  EXPECT_FALSE(none.gaps.openings);
  EXPECT_EQ(parse_ok("[gaps]\nopenings = \"\"\n").gaps.openings, "");
  EXPECT_EQ(parse_ok("[gaps]\nopenings = \"/srv/eco.pgn\"\n").gaps.openings, "/srv/eco.pgn");
  expect_error("[gaps]\nopenings = \"eco.pgn\"\n", 2, "gaps.openings must be an absolute path");
  expect_error("[gaps]\nopening = \"/srv/eco.pgn\"\n", 2, "did you mean 'openings'?");
}

TEST(Config, DiscoveryOfUsbBoards) {
  // Off unless asked: a configuration that names its boards runs exactly those.
  EXPECT_FALSE(parse_ok(BOARD_A).discovery.usb);
  EXPECT_TRUE(parse_ok("[discovery]\nusb = true\n").discovery.usb);
  EXPECT_FALSE(parse_ok("[discovery]\nusb = false\n" + BOARD_A).discovery.usb);
  expect_error("[discovery]\nusb = \"yes\"\n", 2, "discovery.usb must be true or false, not a string");
  expect_error("[discovery]\nubs = true\n", 2, "unknown key 'discovery.ubs'; did you mean 'usb'?");
  expect_error("[discovry]\nusb = true\n", 1, "did you mean 'discovery'?");
  expect_error("discovery = true\n", 1, "discovery must be a table [discovery]");
  // A reload that turns it on or off is a change.
  Config on = parse_ok("[discovery]\nusb = true\n" + BOARD_A);
  Config off = parse_ok(BOARD_A);
  ConfigDiff d = diff(off, on);
  EXPECT_TRUE(d.discovery_changed);
  EXPECT_FALSE(d.empty());
  EXPECT_NE(d.summary().find("discovery changed"), std::string::npos) << d.summary();
  EXPECT_EQ(d.unchanged, std::vector<std::string>{"A"});
  EXPECT_TRUE(diff(on, on).empty());
}

TEST(Config, EventTags) {
  Config c = parse_ok(
      "[event]\nname = \"Lyon Open\"\nsite = \"Lyon\"\ndate = \"2026.11.26\"\nround = \"3\"\n"
      "time_control = \"5400+30\"\n" +
      BOARD_A);
  EXPECT_EQ(c.event.name, "Lyon Open");
  EXPECT_EQ(c.event.site, "Lyon");
  EXPECT_EQ(c.event.date, "2026.11.26");
  EXPECT_EQ(c.event.round, "3");
  EXPECT_EQ(c.event.time_control, "5400+30");
  EXPECT_TRUE(parse_ok(BOARD_A).event.name.empty());
  expect_error("[event]\nnmae = \"x\"\n", 2, "unknown key 'event.nmae'; did you mean 'name'?");
  expect_error("[event]\nround = 3\n", 2, "event.round must be a string, not an integer");
  expect_error("[event]\ndate = 2026-11-26\n", 2, "event.date must be a string, not a date");
  expect_error("event = \"Open\"\n", 1, "event must be a table [event]");
  expect_error("[event]\nname = \"a\\tb\"\n", 2, "event.name: at most 256 characters, no control characters");
  ConfigDiff d = diff(parse_ok(BOARD_A), c);
  EXPECT_TRUE(d.event_changed);
  EXPECT_FALSE(d.empty());
  EXPECT_NE(d.summary().find("event tags changed"), std::string::npos);
}

TEST(Config, LiveChessListener) {
  EXPECT_FALSE(parse_ok(BOARD_A).livechess.enabled);
  Config c = parse_ok("[livechess]\n" + BOARD_A);
  EXPECT_TRUE(c.livechess.enabled);
  EXPECT_EQ(c.livechess.host, "127.0.0.1");
  EXPECT_EQ(c.livechess.port, 1982);
  // setup and flip need the control token unless the operator says any client may (issue 28).
  EXPECT_FALSE(c.livechess.control);
  c = parse_ok("[livechess]\nlisten = \"127.0.0.1:0\"\ncontrol = true\n" + BOARD_A);
  EXPECT_EQ(c.livechess.port, 0);
  EXPECT_TRUE(c.livechess.control);
  expect_error("[livechess]\nlisten = \"nowhere\"\n", 2, "livechess.listen: 'nowhere' is not HOST:PORT");
  expect_error("[livechess]\nlisen = \"127.0.0.1:1982\"\n", 2, "did you mean 'listen'?");
  expect_error("livechess = true\n", 1, "livechess must be a table [livechess]");
  // Beyond loopback as on it: the token, unless the file says otherwise.
  EXPECT_FALSE(parse_ok("[livechess]\nlisten = \"0.0.0.0:1982\"\n").livechess.control);
  EXPECT_FALSE(parse_ok("[livechess]\nlisten = \"0.0.0.0:1982\"\n").livechess.loopback);
  EXPECT_TRUE(parse_ok("[livechess]\nlisten = \"0.0.0.0:1982\"\ncontrol = true\n").livechess.control);
  EXPECT_FALSE(parse_ok("[livechess]\nlisten = \"0.0.0.0:1982\"\ncontrol = false\n").livechess.control);
  // Web pages: lichess' unless the file says otherwise.
  EXPECT_EQ(parse_ok("[livechess]\n").livechess.allowed_origins,
            std::vector<std::string>{"https://lichess.org"});
  EXPECT_EQ(parse_ok("[livechess]\nallowed_origins = [\"HTTP://hall.local:8080/\", \"*\"]\n")
                .livechess.allowed_origins,
            (std::vector<std::string>{"http://hall.local:8080", "*"}));
  expect_error("[livechess]\nallowed_origins = [\"lichess.org\"]\n", 2, "is not a web origin");
  // Which boards are listed, in which order.
  EXPECT_TRUE(parse_ok("[livechess]\n").livechess.boards.empty());
  EXPECT_EQ(parse_ok("[livechess]\nboards = [\"B\", \"A\", \"host2:C\"]\n").livechess.boards,
            (std::vector<std::string>{"B", "A", "host2:C"}));
  expect_error("[livechess]\nboards = [\"A\", \"A\"]\n", 2, "listed twice");
  // A change needs a restart, and says so.
  ConfigDiff d = diff(parse_ok(BOARD_A), parse_ok("[livechess]\n" + BOARD_A));
  EXPECT_TRUE(d.livechess_changed);
  EXPECT_FALSE(d.empty());
  EXPECT_NE(d.summary().find("livechess changed"), std::string::npos) << d.summary();
}

TEST(Config, BroadcastDelayAndPublicListener) {
  EXPECT_EQ(parse_ok(BOARD_A).broadcast.delay_s, 0);
  Config c = parse_ok("[broadcast]\ndelay_s = 900\nlisten = \"0.0.0.0:8080\"\n" + BOARD_A);
  EXPECT_EQ(c.broadcast.delay_s, 900);
  EXPECT_EQ(c.broadcast.host, "0.0.0.0");
  EXPECT_EQ(c.broadcast.port, 8080);
  expect_error("[broadcast]\ndelay_s = -5\n", 2, "broadcast.delay_s");
  expect_error("[broadcast]\ndelay = 900\n", 2, "did you mean 'delay_s'?");
  expect_error("[broadcast]\nlisten = \"nowhere\"\n", 2, "broadcast.listen");
  // The arbiter's own address: the public would reach control and the live views.
  expect_error("[http]\nlisten = \"127.0.0.1:7780\"\n[broadcast]\nlisten = \"127.0.0.1:7780\"\n", 4,
               "broadcast.listen must differ from http.listen");
  ConfigDiff d = diff(parse_ok(BOARD_A), c);
  EXPECT_TRUE(d.broadcast_changed);
  EXPECT_NE(d.summary().find("broadcast or push changed (needs a restart)"), std::string::npos)
      << d.summary();
}

TEST(Config, LichessPushPerRoundAndSplit) {
  // Every round to two lichess rounds (a round of up to 128 games), round 2 and 3 to their own.
  Config c = parse_ok(
      "[push.lichess]\nround = [\"abCD1234\", \"abCD5678\"]\ntoken_file = \"/t\"\n"
      "rounds = { \"2\" = \"efGH5678\", \"3\" = [\"ijKL9012\", \"mnOP3456\", \"qrST7890\"] }\n" +
      BOARD_A);
  EXPECT_EQ(c.push_lichess.targets("1"), (std::vector<std::string>{"abCD1234", "abCD5678"}));
  EXPECT_EQ(c.push_lichess.targets("2"), (std::vector<std::string>{"efGH5678"}));
  EXPECT_EQ(c.push_lichess.targets("3").size(), 3u);
  EXPECT_EQ(c.push_lichess.push_url("efGH5678"), "https://lichess.org/api/broadcast/round/efGH5678/push");
  // Only `rounds`: a round it does not name is not pushed.
  c = parse_ok("[push.lichess]\ntoken_file = \"/t\"\nrounds = { \"1\" = \"abCD1234\" }\n" + BOARD_A);
  EXPECT_TRUE(c.push_lichess.enabled());
  EXPECT_TRUE(c.push_lichess.targets("2").empty());
  expect_error("[push.lichess]\ntoken_file = \"/t\"\n", 1, "needs the broadcast round's id");
  expect_error("[push.lichess]\ntoken_file = \"/t\"\nround = []\n", 3, "is an empty list");
  expect_error("[push.lichess]\ntoken_file = \"/t\"\nround = [\"abCD1234\", \"abCD1234\"]\n", 3, "twice");
  expect_error("[push.lichess]\ntoken_file = \"/t\"\nrounds = { \"1\" = \"x\" }\n", 3,
               "push.lichess.rounds.1 'x' is not a round id");
  expect_error("[push.lichess]\ntoken_file = \"/t\"\nrounds = \"abCD1234\"\n", 3,
               "is a table of eboardd rounds");
}

TEST(Config, LichessPush) {
  EXPECT_FALSE(parse_ok(BOARD_A).push_lichess.enabled());
  Config c = parse_ok("[push.lichess]\nround = \"abCD1234\"\ntoken_file = \"/etc/eboardd/lichess.token\"\n" +
                      BOARD_A);
  EXPECT_TRUE(c.push_lichess.enabled());
  EXPECT_EQ(c.push_lichess.push_url(), "https://lichess.org/api/broadcast/round/abCD1234/push");
  EXPECT_EQ(c.push_lichess.interval_s, 3);
  c = parse_ok(
      "[push.lichess]\nround = \"abCD1234\"\ntoken_file = \"/t\"\nurl = \"http://127.0.0.1:9000/\"\n" +
      BOARD_A);
  EXPECT_EQ(c.push_lichess.push_url(), "http://127.0.0.1:9000/api/broadcast/round/abCD1234/push");
  expect_error("[push.lichess]\nround = \"abc\"\ntoken_file = \"/t\"\n", 2, "is not a round id");
  expect_error("[push.lichess]\nround = \"abCD1234\"\n", 1, "needs token_file");
  expect_error("[push.lichess]\nround = \"abCD1234\"\ntoken = \"lip_x\"\n", 3,
               "unknown key 'push.lichess.token'");
  expect_error("[push.lichess]\nround = \"abCD1234\"\ntoken_file = \"/t\"\nurl = \"ftp://x\"\n", 4,
               "must be http:// or https://");
  expect_error("[push.lichss]\nround = \"abCD1234\"\n", 1, "did you mean 'lichess'?");
}

TEST(Config, DuplicateBoardIds) {
  expect_error(BOARD_A + "\n[[board]]\nid = \"A\"\nport = \"/dev/ttyUSB1\"\n", 6,
               "duplicate board id 'A' (first defined on line 1)");
}

TEST(Config, MatchOfUnknownBoards) {
  expect_error(BOARD_A + "[[match]]\nboards = [\"A\", \"C\"]\n", 5, "unknown board 'C' (boards defined: A)");
  expect_error(BOARD_A + "[[match]]\nboards = [\"A\", \"A\"]\n", 5, "two different boards");
  expect_error(BOARD_A + "[[match]]\nboards = [\"A\"]\n", 5, "two board ids");
  expect_error(BOARD_A +
                   "[[board]]\nid=\"B\"\nport=\"/dev/b\"\n[[match]]\nboards = [\"A\", \"B\"]\nrules = "
                   "\"fide-blitz\"\n",
               9, "must be a bughouse profile");
  expect_error(BOARD_A +
                   "[[board]]\nid=\"B\"\nport=\"/dev/b\"\n[[match]]\nboards = [\"A\", "
                   "\"B\"]\n[[match]]\nboards = [\"B\", \"A\"]\n",
               10, "already in the match on line 7");
}

TEST(Config, BadListenAddresses) {
  expect_error("[http]\nlisten = \"127.0.0.1\"\n", 2, "is not HOST:PORT");
  expect_error("[http]\nlisten = \"127.0.0.1:99999\"\n", 2, "at most 65535");
  expect_error("[http]\nlisten = \"127.0.0.1:http\"\n", 2, "must be a number");
  expect_error("[http]\nlisten = \"example.org:80\"\n", 2, "not an IP address");
  expect_error("[http]\nlisten = \"::1:80\"\n", 2, "brackets");
  expect_error("[http]\nlisten = \"0.0.0.0:7780\"\n", 1, "not a loopback address: set http.token");
  expect_error("[http]\ntoken = \"short\"\n", 2, "too short");
  expect_error("[http]\nread_token = \"short\"\n", 2, "too short");
  expect_error("[http]\ntoken = \"same-token-1\"\nread_token = \"same-token-1\"\n", 3,
               "must differ from http.token");
  expect_error("[http]\nserver_names = [\"hall pc\"]\n", 2, "is not a host name");
  expect_error("[http]\nserver_names = \"hall-pc\"\n", 2, "must be a list of strings");
  expect_error("[http]\nallowed_origins = [\"screen.local\"]\n", 2, "is not a web origin");
  expect_error("[http]\nallowed_origins = [\"http://screen.local/page\"]\n", 2, "is not a web origin");
  expect_error("[http]\nws_max_lifetime_s = 5\n", 2, "must be between 60 and");
  expect_error("[http]\nmax_ws_clinets = 5\n", 2, "did you mean 'max_ws_clients'?");
  EXPECT_TRUE(parse_listen("localhost:7780"));
  EXPECT_EQ(parse_listen("localhost:7780")->host, "127.0.0.1");
  EXPECT_FALSE(parse_listen("192.168.1.10:80")->loopback);
}

TEST(Config, BadProfilesAndValues) {
  expect_error(BOARD_A + "rules = \"fide-standrd\"\n", 4,
               "unknown rules profile 'fide-standrd'; did you mean 'fide-standard'?");
  expect_error(BOARD_A +
                   "[[board]]\nid=\"B\"\nport=\"/dev/b\"\n[[match]]\nboards = [\"A\", \"B\"]\nrules = "
                   "\"bughose-fqe\"\n",
               9, "unknown rules profile 'bughose-fqe'; did you mean 'bughouse-fqe'?");
  expect_error("log_level = \"verbose\"\n", 1, "unknown log_level 'verbose'");
  expect_error("state_dir = 5\n", 1, "state_dir must be a string, not an integer");
  expect_error("state_dir = \"relative/dir\"\n", 1, "absolute path");
  expect_error("[[board]]\nport = \"/dev/ttyUSB0\"\n", 1, "needs an id");
  expect_error("[[board]]\nid = \"A\"\n", 1, "needs port = ");
  expect_error("[[board]]\nid = \"A\"\nport = \"/dev/x\"\nserial = \"123\"\n", 4, "port or serial, not both");
  expect_error("[[board]]\nid = \"A/B\"\nport = \"/dev/x\"\n", 2, "letters, digits");
  expect_error("[[board]]\nid = \"A\"\nport = \"ttyUSB0\"\n", 3, "device path");
  expect_error("[[board]]\nid = \"A\"\nport = \"/dev/x\"\nprotocol = \"certabo\"\n", 4,
               "not supported by the daemon yet");
  expect_error("[[board]]\nid = \"A\"\nport = \"/dev/x\"\nraw_log = \"yes\"\n", 4, "true or false");
  expect_error("[journal]\nsync_ms = -1\n", 2, "between 0 and 10000");
  expect_error("[board]\nid = \"A\"\n", 1, "[[board]]");
  expect_error("http = 5\n", 1, "must be a table");
}

TEST(Config, TomlSyntaxErrorsNameTheLine) {
  auto c = parse_config("state_dir = \"/x\"\n\n[http\nlisten = \"1\"\n", "syntax.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().line, 3);
  EXPECT_NE(c.error().message.find("TOML syntax"), std::string::npos) << c.error().what();
  c = parse_config("a = \"unterminated\n", "syntax.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().line, 1);
}

TEST(Config, LoadsFiles) {
  auto missing = load_config("/nonexistent/eboardd.toml");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().what(), "/nonexistent/eboardd.toml: cannot open the file");
  // The configuration installed as /etc/eboardd/eboardd.toml is valid: no boards, discovery on.
  const auto shipped =
      std::filesystem::path(EBOARD_TEST_DATA).parent_path().parent_path() / "config" / "eboardd.toml";
  auto example = load_config(shipped);
  ASSERT_TRUE(example) << example.error().what();
  EXPECT_TRUE(example->boards.empty());
  EXPECT_TRUE(example->discovery.usb);
  // Its commented examples are valid too once uncommented: "# key = ..." and "# [table]" lines.
  std::ifstream in(shipped);
  std::string line, uncommented;
  // "# [table]" or "# key = value" (a key of lower-case letters, digits and '_').
  auto example_line = [](const std::string& l) {
    if (l.rfind("# ", 0) != 0 || l.size() < 3) return false;
    if (l[2] == '[') return true;
    std::size_t i = 2;
    while (i < l.size() && (std::islower(static_cast<unsigned char>(l[i])) ||
                            std::isdigit(static_cast<unsigned char>(l[i])) || l[i] == '_'))
      ++i;
    return i > 2 && l.compare(i, 3, " = ") == 0;
  };
  while (std::getline(in, line)) uncommented += (example_line(line) ? line.substr(2) : line) + "\n";
  const auto dir =
      std::filesystem::temp_directory_path() / ("eboardd-config-example-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "eboardd.toml") << uncommented;
  auto all = load_config(dir / "eboardd.toml");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(all) << all.error().what();
  EXPECT_EQ(all->boards.size(),
            6u);  // A, B and C, the board without wood, and the two of the [[bus]] example
  EXPECT_EQ(all->buses.size(), 1u);
  EXPECT_EQ(all->matches.size(), 1u);
}

namespace {

// Every table and key parse_config accepts, as the parser itself tells them: a key it does not know is
// refused with the list of those it knows ("(known keys: a, b, …)"). Asking it, rather than keeping a list
// here, is what makes a key added to the parser and left out of the shipped file fail this test.
const std::string PROBE = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";

std::optional<std::vector<std::string>> keys_listed(const std::string& text) {
  auto c = parse_config(text, "probe.toml");
  if (c) return std::nullopt;
  const std::string& m = c.error().message;
  const auto at = m.find("(known keys: ");
  if (m.find("unknown key") == std::string::npos || m.find(PROBE) == std::string::npos ||
      at == std::string::npos)
    return std::nullopt;
  const auto end = m.find(')', at);
  std::vector<std::string> keys;
  std::string list = m.substr(at + 13, end - at - 13);
  for (std::size_t from = 0; from <= list.size();) {
    const auto comma = list.find(", ", from);
    keys.push_back(list.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 2;
  }
  return keys;
}

struct Section {
  std::string header;  // "" (the top level), "[http]", "[[board]]", "[push.lichess]" …
  std::vector<std::string> lines;
};

std::string trim_comment_mark(const std::string& l) { return l.rfind("# ", 0) == 0 ? l.substr(2) : l; }

bool is_header(const std::string& l) {
  const std::string t = trim_comment_mark(l);
  return t.size() > 2 && t[0] == '[' && t.find(']') != std::string::npos &&
         std::all_of(t.begin() + 1, t.begin() + std::ptrdiff_t(t.find(']')), [](char c) {
           return std::islower(static_cast<unsigned char>(c)) || c == '[' || c == '.' || c == '_';
         });
}

std::string header_of(const std::string& l) {
  std::string t = trim_comment_mark(l);
  return t.substr(0, t.rfind(']') + 1);
}

// The file's sections; a header written as a comment ("# [mqtt]") counts.
std::vector<Section> sections(const std::string& text) {
  std::vector<Section> out{{"", {}}};
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (is_header(line))
      out.push_back({header_of(line), {}});
    else
      out.back().lines.push_back(line);
  }
  return out;
}

// A line giving `key` a value, commented or not, with a comment saying what it is: on the line, or the
// next line continuing one ("#    …").
bool documented(const std::vector<Section>& file, const std::string& header, const std::string& key) {
  for (const auto& s : file) {
    if (s.header != header) continue;
    for (std::size_t i = 0; i < s.lines.size(); ++i) {
      const std::string l = trim_comment_mark(s.lines[i]);
      if (l.rfind(key + " = ", 0) != 0) continue;
      if (l.find('#', key.size()) != std::string::npos) return true;
    }
  }
  return false;
}

// A key of an inline table (bus boards' `address`): named in its table's section.
bool mentioned(const std::vector<Section>& file, const std::string& header, const std::string& key) {
  for (const auto& s : file)
    if (s.header == header)
      for (const auto& l : s.lines)
        if (l.find(key) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(Config, EveryAcceptedKeyIsInTheShippedFileWithItsComment) {
  const auto shipped =
      std::filesystem::path(EBOARD_TEST_DATA).parent_path().parent_path() / "config" / "eboardd.toml";
  std::ifstream in(shipped);
  ASSERT_TRUE(in) << shipped;
  std::stringstream buf;
  buf << in.rdbuf();
  const std::vector<Section> file = sections(buf.str());
  // The uncommented examples: the context a table's keys are probed in (a [[bus]] needs its port first).
  std::string uncommented;
  for (const auto& s : file) {
    if (!s.header.empty()) uncommented += s.header + "\n";
    for (const auto& l : s.lines) uncommented += trim_comment_mark(l) + "\n";
  }
  const std::vector<Section> examples = sections(uncommented);
  auto context = [&](const std::string& header, const std::string& without) {
    std::string text = header + "\n";
    for (const auto& s : examples)
      if (s.header == header) {
        for (const auto& l : s.lines)
          if (l.rfind(without + " =", 0) != 0 && l.find('=') != std::string::npos &&
              l.find(" = ") != std::string::npos && std::islower(static_cast<unsigned char>(l[0])))
            text += l + "\n";
        break;
      }
    return text;
  };

  auto root = keys_listed(PROBE + " = 1\n");
  ASSERT_TRUE(root) << "the parser no longer lists the keys it knows";
  int tables = 0, keys = 0;
  for (const auto& k : *root) {
    std::optional<std::vector<std::string>> inside;
    std::string header;
    for (std::string h : {"[" + k + "]", "[[" + k + "]]"})
      if ((inside = keys_listed(h + "\n" + PROBE + " = 1\n"))) {
        header = h;
        break;
      }
    if (!inside) {
      EXPECT_TRUE(documented(file, "", k))
          << "top-level key " << k << " is not in " << shipped << " with a comment";
      ++keys;
      continue;
    }
    bool plain_keys = false;
    for (const auto& j : *inside) {
      // A sub-table ([push.lichess]), a list of inline tables (a [[bus]]'s boards), or a key.
      if (auto sub = keys_listed("[" + k + "." + j + "]\n" + PROBE + " = 1\n")) {
        const std::string sh = "[" + k + "." + j + "]";
        ++tables;
        EXPECT_TRUE(std::any_of(file.begin(), file.end(), [&](const Section& s) { return s.header == sh; }))
            << "table " << sh << " is not in " << shipped;
        for (const auto& x : *sub) {
          EXPECT_TRUE(documented(file, sh, x))
              << sh << " " << x << " is not in " << shipped << " with a comment";
          ++keys;
        }
        continue;
      }
      plain_keys = true;
      ++keys;
      EXPECT_TRUE(documented(file, header, j))
          << header << " " << j << " is not in " << shipped << " with a comment";
      if (auto items = keys_listed(context(header, j) + j + " = [ { " + PROBE + " = 1 } ]\n"))
        for (const auto& x : *items) {
          EXPECT_TRUE(mentioned(file, header, x))
              << header << " " << j << ": its entries' key " << x << " is not in " << shipped;
          ++keys;
        }
    }
    if (plain_keys) {
      ++tables;
      EXPECT_TRUE(std::any_of(file.begin(), file.end(), [&](const Section& s) { return s.header == header; }))
          << "table " << header << " is not in " << shipped;
    }
  }
  // What the parser accepted when this test was written: it only grows.
  EXPECT_GE(tables, 11) << "tables found: " << tables;
  EXPECT_GE(keys, 60) << "keys found: " << keys;
}

TEST(ConfigDiff, AddedRemovedChangedUnchanged) {
  Config a = parse_ok(R"(
[[board]]
id = "A"
port = "/dev/ttyUSB0"
[[board]]
id = "B"
port = "/dev/ttyUSB1"
[[board]]
id = "C"
port = "/dev/ttyUSB2"
)");
  Config b = parse_ok(R"(
log_level = "debug"

[[board]]
id = "A"
port = "/dev/ttyUSB0"
[[board]]
id = "C"
port = "/dev/ttyUSB9"
[[board]]
id = "D"
port = "/dev/ttyUSB3"
)");
  ConfigDiff d = diff(a, b);
  EXPECT_EQ(d.unchanged, std::vector<std::string>{"A"});  // moved lines do not make a change
  EXPECT_EQ(d.changed, std::vector<std::string>{"C"});
  EXPECT_EQ(d.added, std::vector<std::string>{"D"});
  EXPECT_EQ(d.removed, std::vector<std::string>{"B"});
  EXPECT_TRUE(d.log_level_changed);
  EXPECT_FALSE(d.http_changed);
  EXPECT_FALSE(d.empty());
  EXPECT_NE(d.summary().find("changed C"), std::string::npos) << d.summary();
  EXPECT_TRUE(diff(a, a).empty());

  // Joining a match changes a board's rules: it is a changed board.
  Config m = parse_ok(std::string(CONTRACT_EXAMPLE));
  Config no_match = m;
  no_match.matches.clear();
  ConfigDiff md = diff(no_match, m);
  EXPECT_EQ(md.changed, (std::vector<std::string>{"A", "B"}));
  EXPECT_TRUE(md.matches_changed);
  Config other_port = m;
  other_port.http.port = 7781;
  EXPECT_TRUE(diff(m, other_port).http_changed);
  // The token is checked per request: its change applies on reload, not after a restart.
  Config other_token = m;
  other_token.http.token = "another-token";
  ConfigDiff td = diff(m, other_token);
  EXPECT_TRUE(td.http_access_changed);
  EXPECT_FALSE(td.http_changed);
  EXPECT_FALSE(td.empty());
  // So are the read token, the server names and the allowed origins.
  for (auto change : {+[](Config& c) { c.http.read_token = "a-read-token"; },
                      +[](Config& c) { c.http.server_names = {"hall-pc"}; },
                      +[](Config& c) { c.http.allowed_origins = {"http://screen:80"}; }}) {
    Config other = m;
    change(other);
    EXPECT_TRUE(diff(m, other).http_access_changed);
    EXPECT_FALSE(diff(m, other).http_changed);
  }
}

TEST(Config, ListenOverrideHasTheFilesExposureCheck) {
  // The same words as the file's [http] listen, naming --listen.
  const std::string why =
      " is not a loopback address: set http.token (reading then needs it) or http.open_read = true to "
      "publish the games to everyone who can connect";
  expect_error("[http]\nlisten = \"0.0.0.0:7780\"\n", 1, "http.listen 0.0.0.0:7780" + why);
  Config plain = parse_ok("");
  auto refused = override_listen(plain.http, "0.0.0.0:7780");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), "--listen 0.0.0.0:7780" + why);
  EXPECT_EQ(plain.http.listen, "127.0.0.1:7780");  // untouched when refused
  EXPECT_FALSE(override_listen(plain.http, "nonsense"));

  // With a token: published, and reading needs the token, as with the address in the file.
  Config token = parse_ok("[http]\ntoken = \"0123456789\"\n");
  EXPECT_TRUE(token.http.open_read);  // loopback
  ASSERT_TRUE(override_listen(token.http, "0.0.0.0:7780"));
  EXPECT_FALSE(token.http.loopback);
  EXPECT_FALSE(token.http.open_read);
  // open_read = true publishes on purpose; back on loopback, reading is open again.
  Config open = parse_ok("[http]\nopen_read = true\n");
  ASSERT_TRUE(override_listen(open.http, "[::]:7780"));
  EXPECT_TRUE(open.http.open_read);
  ASSERT_TRUE(override_listen(token.http, "127.0.0.1:7781"));
  EXPECT_TRUE(token.http.open_read);
}

TEST(Config, EditDistance) {
  EXPECT_EQ(edit_distance("port", "port"), 0u);
  EXPECT_EQ(edit_distance("prot", "port"), 1u);  // a swap is one slip
  EXPECT_EQ(edit_distance("stat_dir", "state_dir"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

// [[bus]]: the contract's keys; each listed board is a board of its own; no list means discovery.
TEST(Config, BusLines) {
  Config c = parse_ok(
      "[[bus]]\nport = \"/dev/ttyUSB0\"\n"
      "boards = [ { address = 1025, id = \"12\" }, { address = 1026, id = \"13\", rules = \"fide-blitz\" } "
      "]\n"
      "[[bus]]\nport = \"/dev/ttyUSB1\"\npoll_ms = 250\nrules = \"fide-rapid\"\n");
  ASSERT_EQ(c.buses.size(), 2u);
  EXPECT_EQ(c.buses[0].port, "/dev/ttyUSB0");
  EXPECT_EQ(c.buses[0].addresses, (std::vector<std::uint16_t>{1025, 1026}));
  EXPECT_FALSE(c.buses[0].discovery());
  EXPECT_EQ(c.buses[0].poll_ms, 500);
  EXPECT_TRUE(c.buses[1].discovery());
  EXPECT_EQ(c.buses[1].poll_ms, 250);
  EXPECT_EQ(c.buses[1].rules, "fide-rapid");
  ASSERT_EQ(c.boards.size(), 2u);
  const BoardConfig* b12 = c.board("12");
  ASSERT_NE(b12, nullptr);
  EXPECT_EQ(b12->bus_address, 1025);
  EXPECT_EQ(b12->port, "/dev/ttyUSB0");
  EXPECT_EQ(b12->line, 3);
  EXPECT_EQ(c.profile_of("12"), "fide-standard");
  EXPECT_EQ(c.profile_of("13"), "fide-blitz");
  EXPECT_EQ(discovered_bus_board_id(1025), "bus1025");
}

TEST(Config, BusMistakes) {
  expect_error("[[bus]]\nport = \"/dev/ttyUSB0\"\nspeed = 9600\n", 3, "unknown key 'bus.speed'");
  expect_error("[[bus]]\nport = \"/dev/ttyUSB0\"\nboards = [ { adress = 1025, id = \"1\" } ]\n", 3,
               "did you mean 'address'?");
  expect_error("[[bus]]\nboards = [ { address = 1025, id = \"1\" } ]\n", 1, "needs port");
  expect_error("[[bus]]\nport = \"ttyUSB0\"\n", 2, "must be a device path");
  expect_error("[[bus]]\nport = \"/dev/x\"\nboards = [ { address = 0, id = \"1\" } ]\n", 3,
               "between 1 and 16383");
  expect_error("[[bus]]\nport = \"/dev/x\"\nboards = [ { id = \"1\" } ]\n", 3, "needs its address");
  expect_error("[[bus]]\nport = \"/dev/x\"\nboards = [ { address = 5 } ]\n", 3, "needs an id");
  expect_error("[[bus]]\nport = \"/dev/x\"\nboards = [ 1025 ]\n", 3, "{ address = 1025");
  expect_error("[[bus]]\nport = \"/dev/x\"\nboards = []\n", 3, "leave it out");
  expect_error(
      "[[bus]]\nport = \"/dev/x\"\nboards = [ { address = 5, id = \"a\" }, { address = 5, id = \"b\" } ]\n",
      3, "address 5 is twice");
  expect_error(BOARD_A + "[[bus]]\nport = \"/dev/x\"\nboards = [ { address = 5, id = \"A\" } ]\n", 6,
               "duplicate board id 'A'");
  expect_error(BOARD_A + "[[bus]]\nport = \"/dev/ttyUSB0\"\n", 5, "is the port of board A");
  expect_error("[[bus]]\nport = \"/dev/x\"\n[[bus]]\nport = \"/dev/x\"\n", 4, "already the bus of line 1");
  expect_error("[[bus]]\nport = \"/dev/x\"\npoll_ms = 5\n", 3, "between 20 and 60000");
  expect_error("[bus]\nport = \"/dev/x\"\n", 1, "[[bus]]");
  // A match cannot wait for a board discovery may find: it must be listed.
  expect_error("[[bus]]\nport = \"/dev/x\"\n[[match]]\nboards = [\"bus5\", \"bus6\"]\n", 4,
               "list it in its [[bus]] boards");
}

TEST(Config, MatchOfBusBoards) {
  // A serial board and a bus board, or two boards of one line: each a match board like any other.
  Config mixed = parse_ok(BOARD_A +
                          "[[bus]]\nport = \"/dev/x\"\nboards = [ { address = 5, id = \"B\" } ]\n"
                          "[[match]]\nboards = [\"A\", \"B\"]\n");
  ASSERT_EQ(mixed.matches.size(), 1u);
  EXPECT_EQ(mixed.board("B")->bus_address, 5);
  Config one_line = parse_ok(
      "[[bus]]\nport = \"/dev/x\"\nboards = [ { address = 5, id = \"A\" }, { address = 6, id = \"B\" } ]\n"
      "[[match]]\nboards = [\"A\", \"B\"]\nrules = \"bughouse-clock-move\"\n");
  ASSERT_EQ(one_line.matches.size(), 1u);
  EXPECT_EQ(one_line.matches[0].rules, "bughouse-clock-move");
  // A bus board's own rules must still agree with its match's.
  expect_error(
      "[[bus]]\nport = \"/dev/x\"\nboards = [ { address = 5, id = \"A\", rules = \"fide-blitz\" },"
      " { address = 6, id = \"B\" } ]\n[[match]]\nboards = [\"A\", \"B\"]\n",
      5, "but its match plays");
}

TEST(ConfigDiff, BusLines) {
  Config a = parse_ok("[[bus]]\nport = \"/dev/x\"\nboards = [ { address = 5, id = \"B\" } ]\n");
  Config b =
      parse_ok("[[bus]]\nport = \"/dev/x\"\npoll_ms = 100\nboards = [ { address = 5, id = \"B\" } ]\n");
  Config moved = parse_ok("[[bus]]\nport = \"/dev/x\"\nboards = [ { address = 6, id = \"B\" } ]\n");
  EXPECT_TRUE(diff(a, a).empty());
  ConfigDiff d = diff(a, b);
  EXPECT_TRUE(d.buses_changed);
  EXPECT_NE(d.summary().find("[[bus]]"), std::string::npos);
  ConfigDiff d2 = diff(a, moved);
  EXPECT_TRUE(d2.buses_changed);
  EXPECT_EQ(d2.changed, std::vector<std::string>{"B"});
}

TEST(Config, MqttHall) {
  // The contract's keys alone.
  Config c = parse_ok(
      BOARD_A + "[mqtt]\nbroker = \"mqtt://127.0.0.1:1883\"\nhall = \"main-hall\"\naggregate = false\n");
  EXPECT_TRUE(c.mqtt.enabled);
  EXPECT_TRUE(c.mqtt.client_id.empty());  // made from the hall, host and state directory
  EXPECT_EQ(parse_ok("[mqtt]\nclient_id = \"hall-pc-aggregator\"\n").mqtt.client_id, "hall-pc-aggregator");
  expect_error("[mqtt]\nclient_id = \"two words\"\n", 2, "mqtt.client_id");
  EXPECT_EQ(c.mqtt.broker_host, "127.0.0.1");
  EXPECT_EQ(c.mqtt.broker_port, 1883);
  EXPECT_FALSE(c.mqtt.tls);
  EXPECT_FALSE(c.mqtt.aggregate);
  EXPECT_FALSE(parse_ok(BOARD_A).mqtt.enabled);
  c = parse_ok(
      "[mqtt]\nbroker = \"mqtts://broker.hall.lan\"\nhall = \"olympiad\"\nhost = \"room-2\"\naggregate = "
      "true\n"
      "username = \"room-2\"\npassword_file = \"/etc/eboardd/mqtt.pw\"\nca_file = \"/etc/eboardd/ca.pem\"\n"
      "trusted = [\"arbiter\", \"arbiter-2\"]\n");
  EXPECT_TRUE(c.mqtt.tls);
  EXPECT_EQ(c.mqtt.broker_port, 8883);
  EXPECT_EQ(c.mqtt.broker_host, "broker.hall.lan");
  EXPECT_EQ(c.mqtt.host, "room-2");
  EXPECT_EQ(c.mqtt.trusted, (std::vector<std::string>{"arbiter", "arbiter-2"}));
  EXPECT_TRUE(c.mqtt.aggregate);

  expect_error("[mqtt]\nbroker = \"tcp://x:1883\"\n", 2, "mqtt://HOST");
  expect_error("[mqtt]\nbroker = \"mqtt://x:99999\"\n", 2, "port");
  expect_error("[mqtt]\nbroker = \"mqtt://user:pw@x\"\n", 2, "credentials");
  expect_error("[mqtt]\nhall = \"a/b\"\n", 2, "topic level");
  expect_error("[mqtt]\nhost = \"+\"\n", 2, "topic level");
  expect_error("[mqtt]\npassword_file = \"/x\"\n", 2, "needs mqtt.username");
  expect_error("[mqtt]\nusername = \"u\"\npassword_file = \"pw\"\n", 3, "absolute");
  expect_error("[mqtt]\nca_file = \"/ca.pem\"\n", 1, "mqtts://");
  expect_error("[mqtt]\nbroker = \"mqtts://x\"\ncert_file = \"/c.pem\"\n", 1, "go together");
  expect_error("[mqtt]\npassword = \"inline\"\n", 2, "password");
  expect_error("[mqtt]\ntrusted = [\"a#\"]\n", 2, "trusted");
}

// Issue 13: boards of other makers; settle_ms for the ones without a clock.
TEST(Config, MillenniumAndChessnutBoardsWithTheirSettleTime) {
  Config c = parse_ok(
      "[[board]]\nid = \"M\"\nport = \"/dev/ttyACM0\"\nprotocol = \"millennium\"\nsettle_ms = 900\n"
      "[[board]]\nid = \"C\"\nport = \"/dev/hidraw0\"\nprotocol = \"chessnut\"\n");
  ASSERT_EQ(c.boards.size(), 2u);
  EXPECT_EQ(c.boards[0].protocol, "millennium");
  EXPECT_EQ(c.boards[0].settle_ms, 900);
  EXPECT_EQ(c.boards[1].protocol, "chessnut");
  EXPECT_EQ(c.boards[1].settle_ms, 1500);  // the default
  BoardConfig other = c.boards[0];
  other.settle_ms = 1000;
  EXPECT_FALSE(other.same_settings(c.boards[0]));  // a reload restarts the board with its new time
  expect_error("[[board]]\nid = \"A\"\nport = \"/dev/x\"\nsettle_ms = 900\n", 4, "boards without a clock");
  expect_error("[[board]]\nid = \"A\"\nport = \"/dev/x\"\nprotocol = \"millennium\"\nsettle_ms = 50\n", 5,
               "between 200 and 60000");
  expect_error(
      "[[board]]\nid = \"A\"\nport = \"/dev/a\"\nprotocol = \"millennium\"\n"
      "[[board]]\nid = \"B\"\nport = \"/dev/b\"\n[[match]]\nboards = [\"A\", \"B\"]\n",
      9, "has no clock");
}

// A make is described by its protocol row alone: the configuration takes every row's name, and its
// settle_ms and match checks follow the row's clock, with no list of its own to keep in step.
TEST(Config, EveryProtocolRowIsABoardTheConfigurationTakes) {
  for (const auto& row : session::board_protocols()) {
    const std::string name(row.name);
    const std::string board = "[[board]]\nid = \"A\"\nport = \"/dev/a\"\nprotocol = \"" + name + "\"\n";
    Config c = parse_ok(board);
    ASSERT_EQ(c.boards.size(), 1u) << name;
    EXPECT_EQ(c.boards[0].protocol, name);
    if (row.has_clock) {
      expect_error(board + "settle_ms = 900\n", 5, "completed by its clock");
    } else {
      EXPECT_EQ(parse_ok(board + "settle_ms = 900\n").boards[0].settle_ms, 900) << name;
      expect_error(board + "[[board]]\nid = \"B\"\nport = \"/dev/b\"\n[[match]]\nboards = [\"A\", \"B\"]\n",
                   9, "has no clock");
    }
  }
  expect_error("[[board]]\nid = \"A\"\nport = \"/dev/a\"\nprotocol = \"certabo\"\n", 4,
               "supported: " + session::protocol_names());
}

// The shipped file's comment on a board's `protocol` names every make the rows know, and "none"; a row
// added without telling the file's reader fails here.
TEST(Config, TheShippedFilesProtocolCommentNamesEveryRow) {
  std::ifstream in(std::filesystem::path(EBOARD_TEST_DATA).parent_path().parent_path() / "config" /
                   "eboardd.toml");
  std::string line, comment;
  bool in_comment = false;
  while (std::getline(in, line)) {
    if (line.rfind("# protocol = \"dgt\"  ", 0) == 0 && comment.empty()) {
      in_comment = true;
    } else if (in_comment && line.rfind("#                                # ", 0) != 0) {
      break;
    }
    if (in_comment) comment += line.substr(line.find(" # ", 2) + 3) + " ";
  }
  ASSERT_FALSE(comment.empty()) << "no commented protocol = \"dgt\" key with its explanation";
  for (const auto& row : session::board_protocols())
    EXPECT_NE(comment.find(std::string(row.name) + ":"), std::string::npos) << row.name << " in: " << comment;
  EXPECT_NE(comment.find("none:"), std::string::npos) << comment;
}

// A board without wood (issue 27): declared with protocol = "none", never by a port left out.
TEST(Config, BoardWithoutWood) {
  Config c = parse_ok(BOARD_A + "[[board]]\nid = \"7\"\nprotocol = \"none\"\nrules = \"fide-rapid\"\n");
  ASSERT_EQ(c.boards.size(), 2u);
  const BoardConfig& b = c.boards[1];
  EXPECT_TRUE(b.woodless());
  EXPECT_FALSE(c.boards[0].woodless());
  EXPECT_EQ(b.device(), "");
  EXPECT_EQ(b.rules, "fide-rapid");
  EXPECT_FALSE(b.raw_log);  // no wire to log
  // A forgotten port stays a mistake, and its message names the way to say "no device".
  expect_error("[[board]]\nid = \"7\"\n", 1, "protocol = \"none\"");
  for (const char* key :
       {"port = \"/dev/ttyUSB0\"", "serial = \"A1B2\"", "settle_ms = 1500", "raw_log = true"})
    expect_error(std::string("[[board]]\nid = \"7\"\nprotocol = \"none\"\n") + key + "\n", 4,
                 "board without a device");
  expect_error("[[board]]\nid = \"7\"\nprotocol = \"nnone\"\n", 3, "\"none\" for a board without a device");
  // A bughouse match is played on clocks.
  expect_error(BOARD_A + "[[board]]\nid = \"B\"\nprotocol = \"none\"\n\n[[match]]\nboards = [\"A\", \"B\"]\n",
               9, "without a device");
}
