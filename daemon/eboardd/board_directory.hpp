// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The boards the daemon serves, as one interface whatever feeds them: a board of this host (alone, or one
// of a bughouse match's two: its BoardRuntime either way) or another host's (an aggregator's view of it
// over MQTT). Every output (/games.pgn, /status, the WebSocket's snapshot, /boards/<id>.pgn, LiveChess, the
// round's archive, the lichess push) iterates the directory and asks each board the same questions; the
// live events of both kinds reach Service::publish alike. Everything runs on the service's loop.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/http/server.hpp"
#include "rules/game.hpp"
#include "rules/pgn.hpp"

namespace eboard::mqtt {
class RemoteBoard;
}

namespace eboard::eboardd {

class BoardRuntime;
class FinishedGames;
class Hall;
struct Round;

// A board's current game as a reader of the round's games is told of it (LiveChess' pairings).
struct GameRecord {
  rules::PgnTags tags;
  int number = 0;
  std::optional<rules::Outcome> outcome;
  bool chess960 = false;  // a Chess960 game from a position other than the standard one
};

// One board. A `cutoff` (Unix ms, the broadcast delay's) asks for what the public may see then; none, for
// what is published now.
class DirectoryBoard {
 public:
  virtual ~DirectoryBoard() = default;
  virtual const std::string& id() const = 0;
  // The runtime when this host runs the board; null for another host's. For control (which acts on a
  // runtime, or sends the command to the board's host) and for what only this host has (the wire's
  // capture), never for output.
  virtual BoardRuntime* runtime() const = 0;
  // The board's current state as §3 event lines, in order (a new WebSocket client's first messages).
  virtual std::vector<std::string> snapshot() const = 0;
  // The board's entry in /status "boards".
  virtual nlohmann::json status() const = 0;
  // Whether it answers (a board without a link always does), where it is, and the serial number a
  // LiveChess client knows it by.
  virtual bool online() const = 0;
  virtual std::string device() const = 0;
  virtual std::string serial() const = 0;
  // The current game's number and the game.
  virtual int game_number() const = 0;
  virtual rules::Game game(std::optional<std::int64_t> cutoff) const = 0;
  virtual GameRecord record(std::optional<std::int64_t> cutoff) const = 0;
  // GET /boards/<id>.pgn: the current game; ?game=N (`query`: the N): game N as its record holds it, 400
  // for a query that is no number, 404 naming the numbers it has.
  virtual std::string pgn(std::optional<std::int64_t> cutoff) const = 0;
  virtual http::Response numbered(std::string_view query, std::optional<std::int64_t> cutoff) const = 0;
  // The board's games of the current round as /games.pgn holds them: the finished ones, then the current.
  virtual std::string round_pgn(std::optional<std::int64_t> cutoff) const = 0;
};

class BoardDirectory {
 public:
  struct Parts {
    const std::vector<std::unique_ptr<BoardRuntime>>& local;  // this host's, in their order
    const Hall* hall = nullptr;                               // another host's boards (aggregate), if any
    FinishedGames& finished;                                  // state_dir/games
    const Round& round;
    rules::PgnTags defaults;                                 // the tags every game gets below its own
    std::function<std::string(const BoardRuntime&)> serial;  // a local board's serial number
  };
  explicit BoardDirectory(Parts parts) : parts_(std::make_shared<const Parts>(std::move(parts))) {}

  // Every board: this host's in their order, then other hosts' (by id).
  std::vector<std::unique_ptr<DirectoryBoard>> boards() const;
  // The board by id; null if there is none.
  std::unique_ptr<DirectoryBoard> find(std::string_view id) const;

 private:
  std::unique_ptr<DirectoryBoard> local(BoardRuntime& b) const;
  std::unique_ptr<DirectoryBoard> remote(const mqtt::RemoteBoard& rb) const;
  std::shared_ptr<const Parts> parts_;  // shared with the boards it gives out, which may outlive it
};

}  // namespace eboard::eboardd
