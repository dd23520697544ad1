// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A board's deterministic state, driven by journal entries: the live daemon and recovery run the same
// code, so replaying a journal's entries reproduces what the board published.
//
// GameMachine is reconstruction with its game replaced on a new-game entry. Ledger is what the daemon
// keeps about the games a board plays: their numbers, PGN tags, and the alerts and results of the current
// one (for a new WebSocket client's snapshot). It notices when reconstruction starts a new game by itself
// (the pieces set up in the start position again).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/journal/records.hpp"
#include "rules/events.hpp"
#include "rules/game.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::journal {

// The reconstruction settings of a new-game entry (profile by name, Chess960 starts), for `board_id`.
tl::expected<rules::ReconstructConfig, std::string> reconstruct_config(const std::string& board_id,
                                                                       const NewGameEntry& g);
// The start position of a new-game entry.
tl::expected<rules::Position, std::string> start_position(const NewGameEntry& g);

// Applies arbiter input to a reconstruction (GameMachine::control; sources that hold their reconstruction
// elsewhere call it directly). Fails, changing nothing, on input that does not fit the game (a side not
// on move, a game already over, an unknown action); "ack" changes nothing here (the Ledger keeps it).
tl::expected<std::vector<rules::Event>, std::string> apply_control(rules::Reconstructor& rec,
                                                                   const ControlEntry& c);

// The parts of a control entry both kinds of game read: its side ("white"/"black"), and for "promotion"
// its piece (one of q, r, b, n).
tl::expected<rules::Color, std::string> control_side(const ControlEntry& c);
tl::expected<rules::PieceType, std::string> control_promotion_piece(const ControlEntry& c);
// A `result` control's outcome: value "<1-0|0-1|1/2-1/2> <arbiter|forfeit|flag>" (the arbiter's result,
// daemon/outputs/arbiter_result.hpp).
tl::expected<rules::Outcome, std::string> control_outcome(const ControlEntry& c);
// "adopt": its side when one was given (empty: the reconstruction decides who is on move).
tl::expected<std::optional<rules::Color>, std::string> control_optional_side(const ControlEntry& c);
// "recover" settles the gap of a moves-missed alert: the value is a candidate's number, 1-based as the
// arbiter sees them (/status, the alert), or the moves as typed (UCI or SAN, separated by spaces).
// Returns the 0-based candidate index, or nullopt when the value holds moves.
tl::expected<std::optional<std::size_t>, std::string> control_recover_choice(const ControlEntry& c);

class GameMachine {
 public:
  explicit GameMachine(std::string board_id);

  // Starts a fresh game; fails (and keeps the current one) on an unknown profile or a bad FEN.
  tl::expected<void, std::string> new_game(const NewGameEntry& g);
  // Continues `game` (a game rebuilt from what was published) under the current game's settings.
  void resume(rules::Game game);
  // Sensor input (a default game is started first if there is none).
  std::vector<rules::Event> on_sensor(const rules::SensorEvent& e);
  std::vector<rules::Event> advance(std::int64_t now_ms);
  std::optional<std::int64_t> next_deadline() const;
  tl::expected<std::vector<rules::Event>, std::string> control(const ControlEntry& c);

  bool has_game() const { return rec_ != nullptr; }
  const rules::Reconstructor& reconstructor() const { return *rec_; }
  // Hands the reconstruction over to whoever goes on with it (a board's source after a restart), so that
  // a board does not keep a second one for its life; has_game() is false afterwards.
  std::unique_ptr<rules::Reconstructor> take_reconstructor() { return std::move(rec_); }
  const rules::Game& game() const;
  const NewGameEntry& current() const { return current_; }
  const std::string& board_id() const { return board_id_; }
  std::size_t sensor_events() const { return sensors_; }  // since the last new game
  std::int64_t last_t() const { return last_t_; }

 private:
  std::string board_id_;
  std::unique_ptr<rules::Reconstructor> rec_;
  NewGameEntry current_;
  std::size_t sensors_ = 0;
  std::int64_t last_t_ = 0;
};

class Ledger {
 public:
  int game_number() const { return number_; }  // 0 before the first game
  std::int64_t game_started_ms() const { return started_ms_; }
  const rules::PgnTags& tags() const { return tags_; }
  // Alerts, claimable draws and results of the current game, in order (at most the last 64).
  const std::vector<rules::Event>& notes() const { return notes_; }

  // An explicit new game (a new-game entry).
  void on_new_game(std::int64_t t_ms, const rules::Game& g);
  // Goes on from the games of a kept journal file (a rotated file's header): `last_game` played, with
  // these tags; the file's new-game entry follows.
  void continue_after(int last_game, const rules::PgnTags& tags);
  // After every input: returns true when reconstruction started a new game by itself: another Game
  // (rules::Game::identity) with fewer plies than seen, an outcome gone, or another start. The same Game
  // told shorter (a gap held with its length open: its plies become one jump) is the same game. A game
  // begun in place of one with no ply and no result keeps that one's number and tags (its start time and
  // notes are the new game's): a board read with a Chess960 set-up plays its game 1.
  bool observe(const rules::Game& g, std::int64_t t_ms);
  // After the arbiter's control `c` was applied to the current game, now `g`: a `recover` may rewrite its
  // record shorter (a gap settled with fewer plies than the candidate the game went on from, or none:
  // `recover --moves none`), and it is the same game, not a new one. Every path that applies a control
  // tells the ledger so (the live board, a live match, the journal's replay).
  void after_control(const ControlEntry& c, const rules::Game& g);
  void on_event(const rules::Event& e);
  // Recovery: the notes (and the count of alerts) are the ones published, whatever the replay derived
  // (after damage it may derive alerts that never were); acknowledgements beyond the count are dropped.
  void replace_notes(std::vector<rules::Event> notes, int alerts);
  void set_tags(const TagsEntry& t);
  // Alerts of the current game are numbered from 1 in the order published; the arbiter acknowledges one
  // (control "ack"). False for a number not published yet.
  int alert_count() const { return alerts_; }
  bool acknowledge(int alert);
  bool acknowledged(int alert) const;

 private:
  void begin(std::int64_t t_ms, const rules::Game& g);
  void replace(std::int64_t t_ms, const rules::Game& g);  // the current game's number kept
  int number_ = 0;
  std::int64_t started_ms_ = 0;
  rules::PgnTags tags_;
  std::vector<rules::Event> notes_;
  int seen_plies_ = 0;
  bool seen_outcome_ = false;
  std::string seen_start_;
  std::uint64_t seen_identity_ = 0;
  int alerts_ = 0;
  std::vector<int> acknowledged_;
};

}  // namespace eboard::journal
