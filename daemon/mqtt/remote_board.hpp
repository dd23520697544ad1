// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// An aggregator's view of one board of another host, built from what the hall carries: its events
// (moves applied to a rules game, so that PGN comes out; clocks; the result) and its retained state
// (tags, the start position, link). Pure: the caller feeds it decoded payloads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/mqtt/topics.hpp"
#include "rules/game.hpp"
#include "rules/pgn.hpp"

namespace eboard::mqtt {

class RemoteBoard {
 public:
  // What one board may hold, whatever its host sends: events of one game (beyond, the game's later
  // events are dropped and counted, until a new game begins), problems told, tags taken from a state.
  static constexpr std::size_t MAX_GAME_EVENTS = 20000;
  static constexpr std::size_t MAX_PROBLEMS = 64;
  static constexpr std::size_t MAX_TAGS = 64;
  static constexpr std::size_t MAX_TAG_BYTES = 1024;
  static constexpr std::size_t MAX_ALERTS = 64;

  RemoteBoard(std::string host, std::string board);

  // The id the aggregator serves the board under: "<host>:<board>".
  const std::string& id() const { return id_; }
  const std::string& host() const { return host_; }
  const std::string& board() const { return board_; }

  // Takes an event: false for a duplicate (its id is not above the last one taken) or a malformed one.
  // A game number above the current one, or a first move while the game has moves, begins a new game.
  // A live move after a hole (events lost on the way: an aggregator killed after the broker handed them
  // over) is not taken: the board waits for its host to send them again (hole()), taking only what is
  // resent, and goes on from there. A hole in what is resent is a problem: the host has no more.
  // `kept`: read back from what this aggregator kept, all of which it took once: no hole is opened again.
  bool take(const Envelope& e, bool kept = false);
  // While waiting for a resend: the last event taken before the hole.
  const std::optional<EventId>& hole() const { return hole_; }
  // The host has nothing to resend after hole() (or refused to: `why`): the moves are lost, and the board
  // says so and goes on.
  void nothing_to_resend(const std::string& why = "the host has nothing to send again");
  // A board first heard of mid-stream (an aggregator started late, or without what it had kept): it waits
  // for its host to publish its history again, as after a hole at its very start.
  void expect_history() {
    if (!hole_ && taken_ == 0) hole_ = last_;
  }
  // The host's retained state for the board: tags, start position, variant, link, open alerts.
  void take_state(const nlohmann::json& state);
  void set_host_online(bool online) { host_online_ = online; }
  // Whether the board answers: its host is online and, when the host told its link, the link is up.
  bool online() const {
    return host_online_ && !(link_.is_object() && link_.contains("online") && link_["online"] == false);
  }

  // The event as the aggregator serves it: the §3 event with the board's aggregator id, and where it came
  // from ("host", "journal", "seq": its id, so that a reader can check order and duplicates).
  std::string served_line(const Envelope& e) const;

  // The games this board finished (or left) before the current one, as they stood (at most 64).
  struct Earlier {
    rules::Game game;
    rules::PgnTags tags;
    std::int64_t started_ms = 0;
    int number = 0;
    std::int64_t ended_ms = 0;  // its last event's time: the broadcast delay lets it out after that
  };
  const std::vector<Earlier>& earlier() const { return earlier_; }
  const rules::Game& game() const { return game_; }
  // The current game as the public may see it at `cutoff` (Unix ms; the broadcast delay): without the
  // moves made after it, and without a result told after it.
  rules::Game public_game(std::int64_t cutoff) const;
  int game_number() const { return game_number_; }
  std::int64_t started_ms() const { return started_ms_; }
  const rules::PgnTags& tags() const { return tags_; }
  EventId last() const { return last_; }
  // The current game's events as served, in order (a new WebSocket client's snapshot).
  const std::vector<std::string>& lines() const { return lines_; }
  std::uint64_t taken() const { return taken_; }
  std::uint64_t duplicates() const { return duplicates_; }
  // Events dropped because the game held MAX_GAME_EVENTS already.
  std::uint64_t over_limit() const { return over_limit_; }
  // Moves that could not be applied (a move after a hole, an illegal move the host could not have let
  // stand): the PGN stops there.
  std::vector<std::string> problems() const;
  nlohmann::json status() const;
  // The board as /status lists a local one (id, device, link, game, control, link_state), so that what
  // reads /status (the operator's page) shows it beside them; "remote" says where it is.
  nlohmann::json board_status() const;

 private:
  void begin_game(int number, std::int64_t t_ms);
  // Replays the current game's events again in `v` (the state told a bughouse board, or a drop came first).
  void use_variant(rules::Variant v);
  // The current game again from `start`, its events (lines_) applied anew: its start or its variant was
  // told after some of them.
  void replay_from(const rules::Position& start);
  // One event of the current game applied to game_ (a move, a result); what cannot be applied is a
  // game problem.
  void apply(const nlohmann::json& ev);
  // A moves-missed alert of a gap whose length is known: the host goes on after it, from its first
  // candidate (missed), and the arbiter's moves come later as recovered moves.
  struct ToldGap {
    int first_ply = 0, last_ply = 0;
    std::vector<std::string> first;  // the first candidate, UCI
  };
  static std::optional<ToldGap> told_gap(const nlohmann::json& ev);
  void hold_gap(const ToldGap& gap, std::int64_t t_ms);
  // A recovered move at a ply of the held gap: gathered until the gap's last ply, then put in the
  // candidate's place (true: taken so).
  bool settle_held_gap(int ply, const std::string& uci, rules::ClockTimes clock, std::int64_t t);
  struct Settling {
    std::string uci;
    rules::ClockTimes clock;
    std::int64_t t_ms = 0;
  };
  std::optional<ToldGap> held_gap_;
  std::vector<Settling> settling_;
  // A drop of a `t` (the host took it): the board is a bughouse one, and the reserve held the piece.
  void take_drop(rules::PieceType t);

  std::optional<EventId> hole_;
  std::uint64_t waiting_ = 0;  // live events not taken while waiting for a resend
  bool gap_told_ = false;      // this game has a hole its host could not fill: no resend asked again
  int last_move_ply_ = 0;      // the highest ply the host told of the current game (a move, a gap)
  bool over_limit_told_ = false;
  std::string host_, board_, id_;
  std::vector<Earlier> earlier_;
  rules::Game game_;
  int game_number_ = 0;
  std::int64_t started_ms_ = 0;
  std::int64_t result_ms_ = 0;  // when the current game's result was told (0: none)
  std::int64_t last_event_ms_ = 0;
  std::string start_fen_;  // of the state's game, when it said one
  int start_fen_game_ = 0;
  bool start_chess960_ =
      false;  // the state said so (or, from a host that does not, another start than chess')
  // A bughouse board is replayed as one: each drop the host took is taken, its piece put in the reserve
  // first when the replay has none there. Only the host sees the partner's captures (its match), and its
  // record is the host's (the match topic): the replay needs the reserve only to apply the drop, so what
  // the host did is trusted rather than the partner's captures followed here a second time.
  rules::Variant variant_ = rules::Variant::Chess;
  rules::PgnTags tags_;
  EventId last_;
  std::vector<std::string> lines_;
  std::uint64_t taken_ = 0, duplicates_ = 0, over_limit_ = 0;
  std::vector<std::string> problems_;  // of the transport: holes, events over the limit
  std::vector<std::string>
      game_problems_;              // of applying the current game's events (derived again on a replay)
  void problem(std::string text);  // told, up to MAX_PROBLEMS
  void game_problem(std::string text);
  bool host_online_ = true;
  nlohmann::json link_;    // the state's link (null: unknown)
  bool woodless_ = false;  // a board without a device on its host (its moves typed there)
  nlohmann::json alerts_;  // the state's open alerts
};

}  // namespace eboard::mqtt
