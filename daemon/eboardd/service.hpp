// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// eboardd as a whole, minus the process (main.cpp): the boards (each a BoardRuntime fed by a serial
// source, or by its bughouse match), the HTTP/WebSocket server and its routes, and configuration reloads.
// Everything runs on the one io_context the caller runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/access.hpp"
#include "daemon/eboardd/board_directory.hpp"
#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/eboardd/delay_line.hpp"
#include "daemon/eboardd/gap_judge.hpp"
#include "daemon/eboardd/hall.hpp"
#include "daemon/eboardd/lichess_push.hpp"
#include "daemon/eboardd/lifecycle.hpp"
#include "daemon/eboardd/match_runtime.hpp"
#include "daemon/eboardd/round.hpp"
#include "daemon/eboardd/routes.hpp"
#include "daemon/hotplug/usb_boards.hpp"
#include "daemon/http/server.hpp"
#include "daemon/journal/signing.hpp"
#include "daemon/livechess/listener.hpp"
#include "daemon/session/bus_session.hpp"

namespace eboard::eboardd {

class SerialSource;

struct ServiceOptions {
  // The boards are the demo's emulated ones (demo.hpp): no USB watching, "demo" on /status.
  bool demo = false;
  bool log_moves = false;  // every completed move on a log line (RuntimeOptions::log_moves)
  // The game's time for every board, bus line and match (io/time_base.hpp), on the service's io_context:
  // eboardd's --clock-rate gives a scaled one, tests a scaled or a manual one. Empty: a time base at the
  // real pace reading `clock` when it is set, else the system's. `clock` empty: the time base's reading.
  std::shared_ptr<io::TimeBase> time;
  std::function<std::int64_t()> clock;  // Unix ms
  // Makes a board's source (tests); empty: a serial board.
  std::function<std::unique_ptr<BoardSource>(const config::BoardConfig&, BoardRuntime&)> source_factory;
  // Makes a match's feed (tests; null: the test feeds MatchRuntime itself); empty: two serial boards.
  std::function<std::unique_ptr<MatchFeed>(MatchRuntime&)> match_feed_factory;
  // Limits and timeouts; max_clients, max_ws_clients, ws_max_lifetime and ws_queue_bytes come from the
  // config.
  http::ServerOptions http;
  // USB boards (daemon/hotplug): one watcher for the process, on the io_context. Arrivals and departures
  // are logged; a configured board whose device arrives reconnects at once; a board named by `serial`
  // opens the tty found in sysfs where no udev symlink exists; [discovery] usb = true makes unconfigured
  // boards boards of their own. Never in demo mode. Tests give a fake sysfs tree and dev directory here.
  bool usb_watch = true;
  hotplug::WatchOptions usb;
  std::chrono::milliseconds ticket_ttl{30000};  // a WebSocket ticket (POST /auth/ticket) is good this long
  std::string version = "0.1.0";
  // Told when a board's journal becomes unwritable or writable again: a sentence naming the boards whose
  // journal cannot be written now, empty once none (main's sd_notify STATUS=).
  std::function<void(const std::string& problem)> journal_health;
};

class Service {
 public:
  Service(boost::asio::io_context& io, config::Config config, ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Starts the service's parts in their order (add_parts(): the state directory locked, the round and key
  // read, the boards recovered and started, the listeners, push, hall and LiveChess, last eboardd.listen).
  // Fails on what stops the whole daemon (state directory, a listening socket, the hall's password): the
  // parts started before it are stopped again and the error names the part. A board that cannot start is
  // reported (failed_boards()) and skipped.
  tl::expected<void, std::string> start();
  // Stops the started parts in the reverse order: every listener, then every board, line and USB watch.
  // When it returns, every file they wrote is on disk (the background writer is drained and stopped; a
  // later write, as at a restart on the same io_context, is synchronous). The state directory stays
  // locked until the service is destroyed. Safe after a failed start and twice.
  void stop();
  // Applies a new configuration: boards that did not change keep running (and keep their clients);
  // removed ones stop, changed ones restart (their game continues from the journal), new ones start.
  // The tokens, open_read, server_names and allowed_origins apply at once (tickets go with a changed
  // token); the rest of [http] and state_dir need a restart: they
  // keep their old values, with a warning. Refused (nothing changes) when `next` would remove every
  // running configured board and has no [discovery] usb = true: that is an emptied file, not a plan.
  tl::expected<config::ConfigDiff, std::string> reload(config::Config next);

  const config::Config& config() const { return config_; }
  std::optional<boost::asio::ip::tcp::endpoint> endpoint() const { return endpoint_; }
  // The LiveChess listener's address ([livechess]); none without one.
  std::optional<boost::asio::ip::tcp::endpoint> livechess_endpoint() const { return livechess_endpoint_; }
  BoardRuntime* board(std::string_view id);
  const std::vector<std::unique_ptr<BoardRuntime>>& boards() const { return boards_; }
  // Configured boards that are not running, and why (an unreadable journal, a failed match start …).
  const std::map<std::string, std::string>& failed_boards() const { return failed_; }
  MatchRuntime* match(std::string_view name);
  const std::vector<std::unique_ptr<MatchRuntime>>& matches() const { return matches_; }
  http::Server& http_server() { return *http_; }

  http::Response handle(const http::Request& r);
  // The public listener ([broadcast] listen): reading only, behind the delay.
  http::Response handle_public(const http::Request& r);
  std::optional<boost::asio::ip::tcp::endpoint> public_endpoint() const { return public_endpoint_; }
  // The state as §3 event lines (a WebSocket client's first messages), every board's game as PGN; delayed:
  // as the public may see it now ([broadcast] delay_s). The PGN holds every game of the current round,
  // board after board: the finished ones (from state_dir/games; delayed: those whose file was last written
  // before the delay's cutoff), then the current one (unless it is a finished game of an earlier round, or
  // an empty game after one).
  std::vector<std::string> snapshot(bool delayed = false) const;
  std::string games_pgn(bool delayed = false) const;
  const Round& round() const { return round_; }
  // The tags every board's games get below their own: [event] and the round.
  rules::PgnTags default_tags() const;
  // Board `b`'s (null: not made yet): the round its game belongs to (a game of the round before keeps
  // that round's name).
  rules::PgnTags default_tags_of(const BoardRuntime* b) const;
  // The board a pairings file's board number names: the board whose id is that number, else the board at
  // that position (1-based) in the configuration's [[board]] list; null if neither.
  BoardRuntime* board_of_number(int number);
  nlohmann::json status() const;
  // Every board the outputs serve, this host's and (aggregating) other hosts', as one interface.
  BoardDirectory directory() const;

  // The WebSocket feeds: the arbiter's (a token holder's) is live; the public's goes through the delay.
  static constexpr int LIVE_FEED = 0;
  static constexpr int DELAYED_FEED = 1;

 private:
  friend class Hall;  // publishes remote boards' events, runs trusted commands as control requests
  // The parts start() starts, in their order, each with its stop (lifecycle.hpp).
  void add_parts();
  tl::expected<void, std::string> lock_state_dir();
  // round.json read (or made from [event] round) and the finished games' directory.
  tl::expected<void, std::string> open_round();
  tl::expected<void, std::string> load_signing_key();
  // [gaps] openings: the book the reconstructors rank missed gaps with (rules/gap_openings.hpp), read here
  // (a book that cannot be read, or holds no line, stops the start), before the boards replay their
  // journals.
  tl::expected<void, std::string> load_opening_lines();
  tl::expected<void, std::string> start_gap_judge();
  tl::expected<void, std::string> start_usb_watch();
  // The configured boards and matches recovered and started, the bus lines' discovery.
  tl::expected<void, std::string> start_boards();
  void stop_boards();
  // The USB boards present now assigned to boards (or discovered); reports acted on from now.
  tl::expected<void, std::string> assign_present_usb();
  tl::expected<void, std::string> listen_http();
  tl::expected<void, std::string> listen_public();
  tl::expected<void, std::string> start_hall();
  // The events of the last delay_s, which the public has not seen yet, queued behind the delay again.
  tl::expected<void, std::string> requeue_delayed();
  tl::expected<void, std::string> start_livechess();
  tl::expected<void, std::string> write_listen_file();
  void add_board(const config::BoardConfig& b);
  // The DGT bus line on `port` ([[bus]], service_bus.cpp), started on first use and shared by its boards.
  std::shared_ptr<session::BusSession> bus_line(const std::string& port);
  void start_bus_discovery();
  void on_bus_board_found(const std::string& port, std::uint16_t address);
  void remove_board(const std::string& id);
  void add_match(const config::MatchConfig& m);
  const config::MatchConfig* match_of(const std::string& board_id) const;
  // The running match's feed that holds the board's link, and the board's index in the match; null if
  // the board plays in no running match (or its match has no feed).
  std::pair<MatchFeed*, int> match_feed_of(const std::string& board_id);
  void order_boards();
  // An event line to the live feed now, and to the public feeds behind the delay.
  void publish(const std::string& board, std::int64_t t_ms, const std::string& line);
  void start_push();
  // The pushers of the current round's lichess rounds ([push.lichess] rounds, else round): made again
  // when the round changes to one pushed elsewhere.
  void retarget_push();
  // The current round's public games as its lichess rounds take them.
  PushPlan push_plan() const;
  // /status broadcast.push_lichess: each target's pushes, and the games left out with the reason.
  nlohmann::json push_status() const;
  void publish_line(const std::string& line);
  void release(const std::string& line);
  // The HTTP side (service_routes.cpp). Every path either listener answers is a row of routes() or
  // public_routes(): its door (what a request must carry, checked by handle() or control() before the
  // route runs), its method and pattern, its line in /index.txt and its handler.
  static std::span<const Route> routes();
  static std::span<const Route> public_routes();
  // The endpoint lists (GET /index.txt), printed from those tables.
  static std::string index_text();
  std::string public_index_text() const;
  static http::Response for_any_origin(http::Response res);
  static http::Response websocket_output(const RouteCall& c);
  // The broadcast delay's cutoff for a reader behind it (`delayed`), none for a live one.
  std::optional<std::int64_t> cutoff_of(bool delayed) const;
  // The reading routes (`delayed`: as the public may see them).
  http::Response games_output(bool delayed) const;
  http::Response match_output(const std::string& name, const http::Request& r, bool delayed);
  http::Response board_output(const std::string& id, const http::Request& r, bool delayed);
  http::Response status_output() const;
  http::Response capture_output(const std::string& id, const http::Request& r, bool delayed);
  // /matches/<name>.bpgn?match=N (`cutoff`: the delay's, for a public reader).
  http::Response numbered_match(const MatchRuntime& m, std::string_view number,
                                std::optional<std::int64_t> cutoff);
  // GET /round/results.trf (`trf`) and .csv (?round=<name>, ?encoding=<name>): the round's results for the
  // pairing program, from its PGN (behind the delay for `delayed`), into its TRF pairings file when one was
  // loaded.
  http::Response results_output(const http::Request& r, bool delayed, bool trf);
  // The board's number in a pairings file (the inverse of board_of_number), 0 if it has none.
  int number_of_board(std::string_view id) const;
  // The control door: the method, the token and the body checked, then the control route.
  http::Response control(const http::Request& r);
  // A control route for a request whose token was checked (or that the hall's broker vouched for).
  http::Response control_authorized(const http::Request& r);
  // POST /boards, DELETE /boards/<id>.
  http::Response add_board_control(const http::Request& r);
  http::Response remove_board_control(const std::string& id);
  // POST /control/round and /control/pairings: the body, a JSON object, given to `act`.
  http::Response round_control(const RouteCall& c, http::Response (Service::*act)(const nlohmann::json&));
  // POST /control/<id>/<action>: the body (a JSON object, or none), then the board: another host's is
  // sent its command over the hall; a board of this host is given to `act` with the action and body.
  using BoardControl = http::Response (Service::*)(BoardRuntime&, const std::string& action,
                                                   const nlohmann::json& body, const http::Request& r);
  http::Response board_control(const RouteCall& c, BoardControl act);
  http::Response new_game_control(BoardRuntime& b, const std::string& action, const nlohmann::json& body,
                                  const http::Request& r);
  http::Response tags_control(BoardRuntime& b, const std::string& action, const nlohmann::json& body,
                              const http::Request& r);
  // Every other action: the clock's, the arbiter's (result, moves), control.hpp's; 404 for an unknown one.
  http::Response board_action(BoardRuntime& b, const std::string& action, const nlohmann::json& body,
                              const http::Request& r);
  // `res`, the answer of a control that journaled a change of board `b` (tags, a draw, a resignation …),
  // given once that change is durable and its events published (BoardRuntime::when_durable: the fdatasync
  // off the loop); the hall is told then.
  http::Response once_durable(BoardRuntime& b, http::Response res);
  // POST /control/<board>/result and /moves (arbiter.hpp); nothing for another action.
  std::optional<http::Response> arbiter_control(BoardRuntime& b, const std::string& action,
                                                const nlohmann::json& body, const std::string& match,
                                                const std::string& client);
  // POST /control/round {"round": "3"}: archives the round's PGN, starts the next. Answered once the
  // archive and round.json are on disk (written on the background worker); 409 while a change is under way.
  http::Response start_round(const nlohmann::json& body);
  // The loop's part once they are: the next round taken, its players handed to the boards; the answer.
  http::Response round_started(Round next, const std::filesystem::path& archived);
  // POST /control/pairings {"text": "<CSV or TRF-16>", "round": 3}: sets the boards' player tags.
  // Pairings of a round not begun wait for it (state_dir/pairings); those of a round archived are refused.
  http::Response load_pairings(const nlohmann::json& body);
  // Gives board `b` the players the current round's pairings named for it: now if its game is of the
  // round, else from its next game. `waiting_only`: only in that second case (at start-up: the first was
  // journaled). Returns whether the board has players in the round's pairings (and they were accepted).
  bool hand_players(BoardRuntime& b, bool waiting_only);
  http::Response issue_ticket(const http::Request& r);
  // What the request may do: its Authorization token, else (reading only) the read token in the URL.
  Right right_of(const http::Request& r) const;
  bool is_control(const http::Request& r) const;

  // USB boards.
  void on_usb(const hotplug::UsbChange& change, bool initial);
  // The configured board (a [[board]], or one added by POST /boards) that `u` is: same serial number,
  // or its port names the same node (the tty, the udev symlink, any symlink to the same device).
  const config::BoardConfig* configured_for(const hotplug::UsbBoard& u) const;
  // The node to open for `b`: its port; for a board named by serial, the udev symlink if it exists,
  // else the tty of that serial number in sysfs (no udev), else the symlink (the link waits for it).
  std::string device_for(const config::BoardConfig& b) const;
  // Discovery claims a USB board that names itself one, and generic bridges only when told to.
  bool discoverable(const hotplug::UsbBoard& u) const;
  void discover(const hotplug::UsbBoard& u);
  // Drops discovered boards that the configuration now names (or all, with discovery off), then assigns
  // every present USB board again and discovers the unassigned ones: after a reload.
  void drop_claimed_discovered();
  void reassign_usb();

  boost::asio::io_context& io_;
  config::Config config_;
  ServiceOptions options_;
  std::unique_ptr<GapJudge> gap_judge_;  // [gaps] ranker = "stockfish"; from start() to stop()
  Tickets tickets_;
  std::unique_ptr<http::Server> http_;
  std::optional<boost::asio::ip::tcp::endpoint> endpoint_;
  std::unique_ptr<DelayLine> delay_;           // with [broadcast] delay_s > 0
  std::unique_ptr<http::Server> public_http_;  // with [broadcast] listen
  std::optional<boost::asio::ip::tcp::endpoint> public_endpoint_;
  // With [push.lichess]: one pusher a lichess round of the current round (push_targets_, in order).
  std::vector<std::unique_ptr<LichessPush>> pushes_;
  std::vector<std::string> push_targets_;
  std::string push_token_;    // read from token_file at the start
  std::string push_problem_;  // why it is off
  // Before boards_: a match board's source uses its match until the board is destroyed.
  std::vector<std::unique_ptr<MatchRuntime>> matches_;
  std::vector<std::unique_ptr<BoardRuntime>> boards_;
  std::map<std::string, std::string> failed_;        // board id → why it is not running
  std::map<std::string, std::string> journal_down_;  // board id → why its journal cannot be written
  // RuntimeOptions::journal_health: notes it in journal_down_, tells options_.journal_health.
  void on_journal_health(const std::string& board, bool ok, const std::string& text);
  int lock_fd_ = -1;  // eboardd.lock: the holder's PID
  int dir_fd_ = -1;   // the state directory, flock'ed: one daemon per state directory
  std::int64_t started_ms_ = 0;
  Round round_;                  // state_dir/round.json
  bool round_changing_ = false;  // start_round's files being written on the worker
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // what the worker posts back checks it
  mutable FinishedGames finished_games_{""};                    // state_dir/games, read for the PGN feeds
  // Signs finished games' archives (state_dir/keys, journal/signing.hpp); loaded or made at start().
  std::shared_ptr<const journal::SigningKey> signing_key_;
  Lifecycle lifecycle_;  // the parts of add_parts()
  // Serial boards outside matches, owned by their BoardRuntime in boards_: for hotplug nudges.
  std::map<std::string, SerialSource*> serial_sources_;
  std::map<std::string, std::shared_ptr<session::BusSession>> bus_lines_;  // by port
  std::map<std::string, hotplug::UsbBoard> discovered_;  // board id → the USB board it was made for
  std::map<std::string, std::string> usb_served_;        // USB board's device node → the board id it serves
  // After boards_: destroyed first, so that no USB report comes to a half-destroyed service.
  std::unique_ptr<hotplug::UsbWatcher> usb_;
  bool usb_ready_ = false;  // boards are in place: reports are acted on (before: only recorded)

  // The LiveChess local API ([livechess], daemon/livechess). Its feed shows the published games as they
  // are, like /status, to a client on loopback or with the control token (lichess' DGT page plays through
  // it); `live` false: as the public sees them, behind the broadcast delay (a listener beyond loopback).
  // What the feed shows is only ever what these return. Last: destroyed first, before the boards it reads.
  std::vector<livechess::BoardView> livechess_boards(bool live) const;
  livechess::BoardView livechess_view(const DirectoryBoard& b, bool live) const;
  // The event, its round and every board's game (tags, result) for the tournament calls.
  livechess::RoundView livechess_round(bool live) const;
  // The game's part of a view (board, start, san, clock), kept per board id until the game changes.
  // `key`: the cache's (the board id, with DELAYED_VIEW after it for the public's view).
  void livechess_game_view(int game_number, const rules::Game& g, livechess::BoardView& v,
                           const std::string& key) const;
  static inline const std::string DELAYED_VIEW = "#delayed";
  // The serial number LiveChess clients know the board by: its USB serial number when the daemon knows
  // one (configured, discovered or read from the port), else its id.
  std::string livechess_serial(const BoardRuntime& b) const;
  tl::expected<void, std::string> livechess_setup(const std::string& board_id, const std::string& fen);
  // A board's game, clock or link changed: the LiveChess feeds catch up.
  void livechess_changed() {
    if (livechess_) livechess_->boards_changed();
  }
  // What a board's published game was when its LiveChess view was made (the view is kept until it changes).
  struct LiveChessGameStamp {
    int game = 0;
    std::uint64_t start_key = 0;
    int plies = 0;
    std::uint64_t last_key = 0;
    int record_since = 0;
    bool ended = false;
    rules::ClockTimes clock;  // the start's is read after the game began
    bool operator==(const LiveChessGameStamp&) const = default;
  };
  mutable std::map<std::string, std::pair<LiveChessGameStamp, livechess::BoardView>> livechess_games_;
  std::unique_ptr<livechess::Listener> livechess_;
  std::optional<boost::asio::ip::tcp::endpoint> livechess_endpoint_;
  // The hall over MQTT ([mqtt]): this host's boards published, other hosts' served (aggregate = true).
  // Last: destroyed first, before the boards it reads.
  std::unique_ptr<Hall> hall_;
};

}  // namespace eboard::eboardd
