// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// eboardd's configuration (CONTRACTS §4): a TOML file read once at start-up and again on SIGHUP.
// Every mistake is reported with the file, the line and what is wrong; unknown keys are mistakes (a typo
// must not silently turn a setting off) and come with a "did you mean" hint.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::config {

struct HttpConfig {
  std::string listen = "127.0.0.1:7780";  // as written
  std::string host = "127.0.0.1";         // parsed from `listen` (an IP literal; "localhost" is 127.0.0.1)
  std::uint16_t port = 7780;              // 0: any free port (tests)
  bool loopback = true;                   // `host` is a loopback address
  std::string token;                      // control actions need it (it reads too); empty: no control
  std::string read_token;                 // reads (where reading is not open) but never controls
  bool open_read = true;                  // GET needs no token (default: only on a loopback listen)
  std::optional<bool> open_read_set;      // http.open_read as the file gives it; unset: derived (above)
  // Host names the daemon is reached by besides loopback names and IP addresses (a request naming another
  // host is refused: DNS rebinding), and web origins besides the daemon's own whose pages may use it.
  std::vector<std::string> server_names;
  std::vector<std::string> allowed_origins;  // "http://host[:port]", lower case
  std::size_t max_clients = 64;              // reader responses being written at once
  std::size_t max_ws_clients = 256;          // WebSocket viewers
  int ws_max_lifetime_s = 4 * 3600;          // a viewer is closed after this (it reconnects)
  std::size_t ws_queue_bytes = 1u << 20;     // a WebSocket client further behind than this is dropped
  bool operator==(const HttpConfig&) const = default;
};

// The protocol of a board without a device (a game whose moves the arbiter types, or only its result).
inline constexpr const char* NO_DEVICE = "none";

struct BoardConfig {
  std::string id;
  std::string port;    // device path, or empty when named by `serial` (or without a device)
  std::string serial;  // USB serial number: the udev symlink /dev/eboard/<protocol>-<serial>
  // "dgt", "millennium", "chessnut"; "none" (NO_DEVICE): a board without wood, no port nor serial; its
  // moves are typed through control (POST /control/<id>/moves), its result entered.
  std::string protocol = "dgt";
  std::string rules = "fide-standard";  // the profile of a board outside a match
  bool chess960 = false;                // a Chess960 start set up on the board starts a Chess960 game
  bool raw_log = true;                  // journal the raw wire bytes (for `.cap` export)
  // A board on a DGT bus ([[bus]]): its bus address (1..16383, the value of its serial number); `port` is
  // the bus line's. 0: a board of its own on `port` or `serial`.
  std::uint16_t bus_address = 0;
  // A board without a clock (millennium, chessnut): a move is complete when the board has rested on it
  // this long (or at once when the other side begins its reply).
  int settle_ms = 1500;
  int line = 0;  // where the [[board]] is in the file (not compared)

  // The device to open: `port`, or the udev symlink for `serial`; empty for a board without a device.
  std::string device() const;
  bool woodless() const { return protocol == NO_DEVICE; }
  bool same_settings(const BoardConfig& o) const;
};

// [[bus]]: DGT boards in bus mode on one serial line (CONTRACTS §4). The boards listed by address are
// BoardConfigs of their own (in Config::boards, with bus_address set), so that every board, on a bus or
// not, is a board like any other. With no `boards` the line is searched by ping: a board found gets the id
// "bus<address>" (e.g. bus1025) until the daemon stops.
struct BusConfig {
  std::string port;
  std::vector<std::uint16_t> addresses;  // the boards listed, in the file's order (empty: discovery)
  int poll_ms = 500;                     // each board is asked for its changes at most this often
  std::string rules = "fide-standard";   // the profile of boards found by discovery
  int line = 0;
  bool discovery() const { return addresses.empty(); }
  bool operator==(const BusConfig& o) const {
    return port == o.port && addresses == o.addresses && poll_ms == o.poll_ms && rules == o.rules;
  }
};

// The id a board found on a bus by discovery gets.
std::string discovered_bus_board_id(std::uint16_t address);

struct MatchConfig {
  std::array<std::string, 2> boards;
  std::string rules = "bughouse-fqe";
  int line = 0;
  // "A-B": the name in /matches/<A>-<B>.bpgn.
  std::string name() const { return boards[0] + "-" + boards[1]; }
  bool operator==(const MatchConfig& o) const { return boards == o.boards && rules == o.rules; }
};

struct JournalConfig {
  // A sensor or raw record is fdatasync'ed at most this long after it is written, or sooner with the next
  // completed move (whose sync covers every record before it; a move is published only once durable).
  // A power cut loses at most this much of the sensor stream: the part of a move not yet completed,
  // which the board dump after the restart shows again. 50 ms cost ~1 fdatasync per board and second
  // (a clock sends a reading every second); 5 s lets most of them ride with the next move's sync.
  int sync_ms = 5000;
  bool operator==(const JournalConfig&) const = default;
};

// [discovery]: boards nobody configured. With usb = true every known USB board (by vendor and product
// id) that arrives and matches no [[board]] (by serial number or device path) becomes a board of its own,
// id "<protocol>-<serial>" (e.g. dgt-A1B2C3), until it is unplugged; its journal stays in state_dir, so
// when it comes back its game continues.
struct DiscoveryConfig {
  bool usb = false;
  // Also claim generic USB-serial bridges (FT232, Microchip CDC) whose descriptors do not name a board.
  bool generic_bridges = false;
  bool operator==(const DiscoveryConfig&) const = default;
};

// [event]: the tags every game's PGN gets unless the board's own tags (the arbiter's, a pairings file)
// say otherwise: Event, Site, Date, Round (until a round is started by control), TimeControl. Empty: not set.
struct EventConfig {
  std::string name, site, date, round, time_control;
  bool operator==(const EventConfig&) const = default;
};

// [broadcast]: what the public sees. delay_s holds every public output (GET /games.pgn, BPGN,
// /boards/<id>.pgn and the /ws feed of a reader without a token) this far behind the events; the
// arbiter's views (/status, a token holder's feed, control) stay live. `listen` opens a second, public
// listener that serves only those outputs, always delayed, never control or /status: the world is sent
// there, so that no delay can be bypassed from its side.
struct BroadcastConfig {
  int delay_s = 0;
  std::string listen;  // empty: no public listener
  std::string host;    // parsed from `listen`
  std::uint16_t port = 0;
  bool operator==(const BroadcastConfig&) const = default;
};

// [push.lichess]: the round's public games pushed to lichess' broadcast push API (a hall behind NAT).
// A lichess broadcast has a round of its own for each round of the event, and takes at most 64 games a
// round: an eboardd round is pushed to one lichess round or several (its games split, 64 each, in board
// order), named per round in `rounds`, else by `round`.
struct LichessPushConfig {
  std::vector<std::string> round;  // the lichess round ids of every round `rounds` does not name
  std::map<std::string, std::vector<std::string>, std::less<>> rounds;  // eboardd round name → ids
  std::string token_file;  // holds a lichess token with the study:write scope (kept out of the config)
  std::string url = "https://lichess.org";
  int interval_s = 3;  // at most one push this often
  int timeout_s = 10;  // a push not answered by then failed
  bool enabled() const { return !round.empty() || !rounds.empty(); }
  // The lichess rounds eboardd round `name` is pushed to (none: it is not pushed).
  const std::vector<std::string>& targets(std::string_view name) const {
    auto it = rounds.find(name);
    return it != rounds.end() ? it->second : round;
  }
  // The push endpoint: <url>/api/broadcast/round/<id>/push.
  std::string push_url(const std::string& id) const { return url + "/api/broadcast/round/" + id + "/push"; }
  std::string push_url() const { return round.empty() ? std::string() : push_url(round.front()); }
  bool operator==(const LichessPushConfig&) const = default;
};

// [livechess]: a second listener speaking DGT LiveChess' local API (/api/v1.0, HTTP and WebSocket), for
// programs written for LiveChess such as lichess' DGT board page (daemon/livechess). LiveChess asks for no
// credentials: its `setup` call (a new game on a board) and `flip` are obeyed from a client that sent
// [http] token on its WebSocket upgrade, or from any client once the operator sets `control`. Requests
// must name this computer in Host, as [http]'s do. Web pages reach it from the browser of the hall's
// computer: only those of `allowed_origins` (lichess by default) may. On an address other than loopback,
// a client without the token sees the boards behind [broadcast] delay_s.
struct LiveChessConfig {
  bool enabled = false;                   // the table is present
  std::string listen = "127.0.0.1:1982";  // as written
  std::string host = "127.0.0.1";
  std::uint16_t port = 1982;
  bool loopback = true;
  bool control = false;  // `setup` and `flip` are obeyed from every client; false: only with the token
  // Web origins ("https://host[:port]", lower case) whose pages may use it; "*": any. Requests without an
  // Origin header (programs other than browsers) are not concerned.
  std::vector<std::string> allowed_origins{"https://lichess.org"};
  // The boards listed (eboardd ids, a remote board as "host:board"), in this order; empty: every board.
  // Clients written for one board (lichess' DGT page) take the first.
  std::vector<std::string> boards;
  bool operator==(const LiveChessConfig&) const = default;
};

// [mqtt]: the hall over an MQTT broker (daemon/mqtt, README "Many hosts, one hall"). Every host publishes
// its boards under eboard/<hall>/<host>/...; with aggregate = true it also serves every board of the hall.
// Credentials are the broker's: a username and a password kept in a file of its own, or TLS client
// certificates. Commands from aggregators are obeyed only from the broker usernames in `trusted`.
struct MqttConfig {
  bool enabled = false;  // the table is present
  std::string broker = "mqtt://127.0.0.1:1883";
  bool tls = false;                       // parsed from `broker`: mqtts://
  std::string broker_host = "127.0.0.1";  // parsed from `broker`
  std::uint16_t broker_port = 1883;       // parsed from `broker` (8883 by default for mqtts)
  std::string hall = "main-hall";
  std::string host;  // this host's name in the topics; empty: the machine's name
  bool aggregate = false;
  bool publish = true;  // publish this host's boards (an aggregator may have none)
  std::string username;
  std::string password_file;                 // holds the password (kept out of the config)
  std::string ca_file, cert_file, key_file;  // TLS: the broker's CA, this host's certificate and key
  std::vector<std::string> trusted;          // broker usernames whose commands this host obeys
  int keepalive_s = 30;
  // The MQTT client id; empty: "eboardd-<hall>-<host>-<8 hex digits of the state directory's path>", so
  // that two daemons of one machine (a host and an aggregator) are two sessions at the broker.
  std::string client_id;
  // The largest payload taken from the broker (bytes): a bigger one is dropped whole and counted
  // (/status mqtt.messages_too_large), whoever published it.
  std::size_t max_message = std::size_t(1) << 20;
  bool operator==(const MqttConfig&) const = default;
};

// The opening lines the gap ranking reads when [gaps] openings is not set: Debian's pgn-extract ECO file.
inline constexpr const char* kDefaultOpenings = "/usr/share/pgn-extract/eco.pgn";

// [gaps]: the order of a missed gap's candidates for the arbiter (issue 30). ranker = "rules" (the default):
// the pure ranking (rules/gap_rank.hpp) only. "stockfish": the daemon also asks the UCI engine at `engine`
// (Chess960 too; not with drops) for its judgement, off the event loop: the moves-missed alert goes out in
// the rules' order at once, and /status's missed_gap shows the engine's order once it answers (ranked_by).
// A failing engine leaves the rules' order, with a log line. Read at start-up (a change needs a restart).
struct GapsConfig {
  std::string ranker = "rules";  // "rules" or "stockfish"
  std::string engine = "/usr/games/stockfish";
  int engine_nodes = 1000;       // searched per position
  int engine_timeout_ms = 5000;  // per gap; past it the engine is stopped and the rules' order stands
  // A PGN file of opening lines (rules/gap_openings.hpp): the orders of a gap's moves that pass through
  // positions a line reaches come first. Unset: Debian's pgn-extract ECO file when it is installed
  // (kDefaultOpenings), else none. "": none. A path: that file (one that cannot be read, or holds no line,
  // stops the start). Read before the boards replay their journals.
  std::optional<std::string> openings;
  // A gap of 4 plies or more on a clock without increment (whose presses do not count the moves), or shorter
  // with each side's time used over it fitting one move more, is told with its length open, and the board's
  // moves since are held back until the arbiter settles it: none goes out at a ply a detour (Bc1-e3-d2 for
  // Bc1-d2) would change (the default: nothing uncertain goes out as a move). Off: they go out live, numbered
  // after the shortest story (ReconstructConfig::hold_uncounted_gaps). Of new games.
  bool hold_uncounted = true;
  bool operator==(const GapsConfig&) const = default;
};

struct Config {
  std::string source;  // the file name, for messages
  std::string state_dir = "/var/lib/eboardd";
  std::string log_level = "info";  // trace, debug, info, warn, error
  HttpConfig http;
  JournalConfig journal;
  DiscoveryConfig discovery;
  EventConfig event;
  BroadcastConfig broadcast;
  LichessPushConfig push_lichess;
  LiveChessConfig livechess;
  MqttConfig mqtt;
  GapsConfig gaps;
  std::vector<BoardConfig> boards;
  std::vector<BusConfig> buses;
  std::vector<MatchConfig> matches;

  const BoardConfig* board(std::string_view id) const;
  // The profile a board's games are played under: its match's rules, else its own.
  std::string profile_of(std::string_view board_id) const;
};

struct ConfigError {
  std::string file;
  int line = 0;  // 0: the file as a whole
  int column = 0;
  std::string message;
  // "FILE:LINE:COL: MESSAGE" (or "FILE: MESSAGE")
  std::string what() const;
};

tl::expected<Config, ConfigError> parse_config(std::string_view text, const std::string& source_name);
tl::expected<Config, ConfigError> load_config(const std::filesystem::path& path);

// HOST:PORT or [V6]:PORT → host and port; false with a reason when malformed.
struct ListenAddress {
  std::string host;
  std::uint16_t port = 0;
  bool loopback = false;
};
tl::expected<ListenAddress, std::string> parse_listen(std::string_view text);

// Listens on `listen` instead (eboardd --listen), under the rule the file's [http] listen obeys: open_read
// is derived again for the new address, and an address beyond loopback without http.token or
// http.open_read = true is refused with the same message. `what` names the setting in that message.
tl::expected<void, std::string> override_listen(HttpConfig& http, std::string_view listen,
                                                std::string_view what = "--listen");

// What a reload changes. Boards are compared by id: a board whose settings are the same keeps running.
struct ConfigDiff {
  std::vector<std::string> added, removed, changed, unchanged;
  bool http_changed = false;         // listen or limits: needs a restart (the listening socket is not moved)
  bool http_access_changed = false;  // tokens, open_read, names, origins: checked per request, apply at once
  bool state_dir_changed = false;    // needs a restart
  bool matches_changed = false;
  bool log_level_changed = false;
  bool journal_changed = false;
  bool discovery_changed = false;
  bool event_changed = false;      // [event]: applies at once (the next PGN written)
  bool broadcast_changed = false;  // needs a restart
  bool livechess_changed = false;  // needs a restart
  bool buses_changed = false;      // a line's port, poll or discovery: needs a restart (its boards reload)
  bool mqtt_changed = false;       // needs a restart
  bool empty() const {
    return added.empty() && removed.empty() && changed.empty() && !http_changed && !http_access_changed &&
           !state_dir_changed && !matches_changed && !log_level_changed && !journal_changed &&
           !discovery_changed && !event_changed && !broadcast_changed && !livechess_changed &&
           !buses_changed && !mqtt_changed;
  }
  std::string summary() const;
};
ConfigDiff diff(const Config& before, const Config& after);

// mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (1883 and 8883 by default).
struct BrokerAddress {
  bool tls = false;
  std::string host;
  std::uint16_t port = 1883;
};
tl::expected<BrokerAddress, std::string> parse_broker_url(std::string_view url);
// A name that can be one MQTT topic level here (hall, host, board id, username): 1 to 64 of A-Z a-z 0-9 . _ -
bool valid_topic_name(std::string_view name);

// Edit distance (for "did you mean").
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace eboard::config
