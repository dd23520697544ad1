// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// eboardd's part in a hall over MQTT ([mqtt], daemon/mqtt): publishing this host's boards (events from
// the journal as outbox, retained states, online/offline), obeying trusted aggregators' commands, and,
// with aggregate = true, the views of every other host's boards that the service serves beside its own.
// Everything runs on the service's loop.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/answer_waits.hpp"
#include "daemon/http/server.hpp"
#include "daemon/mqtt/client.hpp"
#include "daemon/mqtt/outbox.hpp"
#include "daemon/mqtt/remote_board.hpp"
#include "daemon/mqtt/takeover.hpp"
#include "daemon/mqtt/topics.hpp"
#include "rules/pgn.hpp"

namespace eboard::eboardd {

class Service;
class BoardRuntime;

class Hall {
 public:
  Hall(boost::asio::io_context& io, const config::Config& config, Service& service);
  ~Hall();
  Hall(const Hall&) = delete;
  Hall& operator=(const Hall&) = delete;

  // Reads the password file, connects (in the background: the broker may come later).
  tl::expected<void, std::string> start();
  void stop();

  // A board of this host published an event (the Publish callback) or changed otherwise (link, tags).
  void published(BoardRuntime& b, const std::string& line);
  void changed(const std::string& board);

  // Aggregating: the other hosts' boards.
  // The outputs (PGN, /ws, LiveChess, the delay, the lichess push) serve these beside the local boards.
  // With a cutoff (Unix ms; the broadcast delay), the games as the public may see them then.
  bool is_remote(const std::string& id) const { return remote_.count(id) > 0; }
  const std::map<std::string, std::unique_ptr<mqtt::RemoteBoard>>& remote_boards() const { return remote_; }
  // One remote board's games of the round as /games.pgn holds them (a match board's as its host printed
  // them).
  std::string round_pgn(const mqtt::RemoteBoard& rb, const rules::PgnTags& defaults,
                        std::optional<std::int64_t> cutoff = {}) const;
  std::optional<std::string> board_pgn(const std::string& id, const rules::PgnTags& defaults,
                                       std::optional<std::int64_t> cutoff = {}) const;
  // The BPGN of another host's match "<host>:<match>", as that host serves it (nothing: no such match).
  std::optional<std::string> match_bpgn(const std::string& id, std::optional<std::int64_t> cutoff = {}) const;
  // Records by number (`query`: the N of ?game=N, ?match=N) as the aggregator saw them, as local boards' are
  // served: a remote board's game N (a match board's: of its match N, as its host printed it), a remote
  // match's last record of number N; 400 for a query that is no number, 404 naming the numbers it has. With
  // a cutoff, what the public may see then. The match: nothing when there is no such remote match.
  http::Response numbered_board_pgn(const std::string& id, std::string_view query,
                                    const rules::PgnTags& defaults,
                                    std::optional<std::int64_t> cutoff = {}) const;
  std::optional<http::Response> numbered_match_bpgn(const std::string& id, std::string_view query,
                                                    std::optional<std::int64_t> cutoff = {}) const;
  // POST /control/<host:board>/<action> on the aggregator: sent to the board's host (202), the answer
  // shown in /status (mqtt.commands) when it comes. The clock (action "clock") is answered with the host's
  // answer (its clock's ACK checked there), or 504 when none came in time: the command's deadline keeps the
  // host from obeying it later.
  http::Response send_command(const std::string& id, const std::string& action, const nlohmann::json& body);

  nlohmann::json status() const;

 private:
  struct Local {
    mqtt::AckTracker acks;
    bool caught_up = false;  // everything published so far was handed to this connection
    // The last event handed to this connection as the journal holds them (daemon notes aside): the next
    // one's `after`. None until a catch-up tells it.
    std::optional<mqtt::EventId> chain;
    bool state_due = false;
  };
  std::map<std::string, std::string> match_published_;  // local match → the record last published
  void on_connected();
  void on_disconnected(const std::string& why);
  void on_ack(int mid);
  void on_message(const std::string& topic, std::string_view payload);
  // Publishes an event of a local board; `resend` (an aggregator asked for it again) is outside the outbox
  // and the chain of `after`s.
  void send(const std::string& board, mqtt::EventId id, int game, const std::string& line, int resend = 0);
  // Host: an aggregator lost events of a board on the way: those after body's {journal, seq}, published
  // again from the journal (up to what is published). Returns the answer.
  mqtt::Answer resend(const mqtt::Command& c);
  // Aggregator: asks the board's host to send again what came after its hole (at most every RESEND_RETRY).
  // False when it cannot ask (no broker identity to ask with).
  bool ask_resend(const mqtt::RemoteBoard& rb);
  void catch_up(BoardRuntime& b);
  void publish_state(BoardRuntime& b);
  void publish_matches(bool all);
  void schedule_state();
  void schedule_save();
  void run_command(const std::string& user, std::string_view payload);
  // Host: sets a board's clock for an aggregator's command and answers when the clock has (bounded).
  void clock_command(const std::string& user, const mqtt::Command& c);
  // Aggregating: what was taken of each remote board is kept in state_dir/mqtt/remote/<host>:<board>.jsonl
  // (envelopes and states, one per line, as received), so that a restarted aggregator serves the games
  // whole; its persistent session at the broker holds what came meanwhile.
  // Nothing when the hall holds MAX_REMOTE_BOARDS already (a broker user inventing board names).
  mqtt::RemoteBoard* remote_board(const std::string& host, const std::string& board);
  // The aggregator keeps what it took of other hosts under state_dir/mqtt: each remote board's events
  // (remote/<host>:<board>.jsonl) and each remote match's records (matches/<host>:<match>.jsonl), read back
  // at start: a restart serves what the broker will not send again (a retained match topic holds the last
  // record only, and a broker without persistence not even that).
  void load_remote();
  // Each file "<host>:<name>.jsonl" of state_dir/mqtt/`folder`, whole. Returns how many.
  using KeptFile = std::function<void(const std::filesystem::path& file, const std::string& host,
                                      const std::string& name, const std::vector<std::string>& lines)>;
  std::size_t read_kept(const char* folder, const KeptFile& take);
  void keep_remote(const mqtt::RemoteBoard& rb, std::string_view line);
  void keep_match(const std::string& host, const std::string& name, std::string_view payload);
  // Appends `line` to `folder`/`file` under state_dir/mqtt (the folder made once).
  void append_kept(const char* folder, const std::string& file, std::string_view line);

  // The answer of a command that ran as a control request (`res`), published to `user`.
  void publish_answer(const std::string& user, const std::string& action, mqtt::Answer a,
                      const http::Response& res);
  boost::asio::io_context& io_;
  config::MqttConfig cfg_;
  std::string state_dir_;
  std::int64_t delay_ms_ = 0;  // the broadcast delay: how long a remote match's older records are needed
  Service& service_;
  mqtt::Topics topics_;
  std::unique_ptr<mqtt::Client> client_;
  std::map<std::string, Local> local_;
  std::map<int, std::pair<std::string, mqtt::EventId>> inflight_;  // message id → board, event
  boost::asio::steady_timer state_timer_, save_timer_;
  bool state_pending_ = false, save_pending_ = false;
  std::uint64_t sent_ = 0, acked_ = 0, republished_ = 0;
  std::string last_disconnect_;
  std::string client_id_;
  // Another client with this one's id throwing it out again and again (told in the log and /status).
  mqtt::TakeoverWatch takeover_;
  // Aggregating.
  // Another host's bughouse match: the records it published (its match topic), oldest first. Its BPGN and
  // its boards' games are served as the host wrote them: only the host follows the partner's captures
  // (a drop's piece came from the other board), so this side does not write a second version.
  struct RemoteMatch {
    struct Record {
      std::int64_t t_ms = 0;  // when the host published it (the broadcast delay lets it out after that)
      int number = 0;
      std::string bpgn;
      std::map<std::string, std::string> games;  // board → its game's PGN (Board tags named <host>:<id>)
      std::string payload;                       // as published: what is kept on disk
    };
    std::vector<Record> records;
    // As the public may see it at `cutoff`: the last record of each match number published by then.
    std::vector<const Record*> seen(std::optional<std::int64_t> cutoff) const;
  };
  // True when the record is new (not one taken already: the retained topic sends the last one again).
  bool take_match(const std::string& host, const std::string& name, std::string_view payload);
  // The remote match "<host>:<match>" that `board` ("<host>:<id>") plays in, if any.
  const RemoteMatch* match_of_remote(const std::string& board) const;
  std::map<std::string, RemoteMatch> remote_matches_;                 // "<host>:<match>" →
  std::map<std::string, std::string> remote_board_match_;             // "<host>:<board>" → "<host>:<match>"
  std::map<std::string, std::unique_ptr<mqtt::RemoteBoard>> remote_;  // "<host>:<board>" →
  std::map<std::string, std::vector<std::string>> finished_;          // earlier games' PGN, per remote board
  std::map<std::string, bool> hosts_;                                 // host → online
  std::uint64_t command_seq_ = 0;
  std::int64_t started_ms_ = 0;
  std::map<std::string, nlohmann::json> commands_;  // id → what was sent and the answer
  // Aggregator: clock commands whose HTTP answer waits for the host's.
  struct ClockAwaited {
    std::function<void(http::Response)> settle;
    std::shared_ptr<boost::asio::steady_timer> timer;  // the deadline
    std::string board;                                 // "<host>:<board>"
  };
  std::map<std::string, ClockAwaited> clock_awaited_;  // command id →
  struct ResendAsked {
    mqtt::EventId after;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::string, ResendAsked> resend_asked_;  // remote board → the last resend asked
  std::map<std::string, std::string> resends_;       // command id → the remote board it asked for
  std::uint64_t commands_refused_ = 0;
  // Host: resends each requester may ask of each board, a token bucket (RESEND_BURST, one more every
  // RESEND_REFILL); beyond, refused (429) and counted.
  struct ResendBudget {
    double tokens = 0;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::pair<std::string, std::string>, ResendBudget> resend_budget_;  // (user, board) →
  bool resend_allowed(const std::string& user, const std::string& board);
  std::uint64_t resends_limited_ = 0;
  // Aggregating: payloads above mqtt.max_message dropped, and boards or matches not taken for the caps.
  std::uint64_t messages_too_large_ = 0;
  std::uint64_t remote_refused_ = 0;
  bool remote_write_error_ = false;
  std::set<std::string> kept_dirs_;                // folders of state_dir/mqtt made
  std::map<std::string, std::string> kept_state_;  // remote board → its tags and start as last kept
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  // Commands answered once their effect is durable: waited for off the loop, joined at stop().
  AnswerWaits answer_waits_{io_};
};

}  // namespace eboard::eboardd
