// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/board_directory.hpp"

#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/eboardd/hall.hpp"
#include "daemon/eboardd/round.hpp"
#include "daemon/eboardd/routes.hpp"
#include "daemon/mqtt/remote_board.hpp"
#include "daemon/outputs/pgn_output.hpp"

namespace eboard::eboardd {

namespace {

// A board this host runs: its runtime, and its finished games' records in state_dir/games.
class LocalBoard final : public DirectoryBoard {
 public:
  LocalBoard(BoardRuntime& b, std::shared_ptr<const BoardDirectory::Parts> parts)
      : b_(b), parts_(std::move(parts)) {}

  const std::string& id() const override { return b_.id(); }
  BoardRuntime* runtime() const override { return &b_; }
  std::vector<std::string> snapshot() const override { return b_.snapshot(); }
  nlohmann::json status() const override { return b_.status(); }
  // A board with a link (serial) is online while it answers; one without (the demo) always is.
  bool online() const override { return b_.link_state() ? b_.link_state()->online : true; }
  std::string device() const override { return b_.options().device; }
  std::string serial() const override { return parts_->serial(b_); }
  int game_number() const override { return b_.ledger().game_number(); }
  rules::Game game(std::optional<std::int64_t> cutoff) const override {
    return cutoff ? b_.public_game(*cutoff) : b_.published_game();
  }
  GameRecord record(std::optional<std::int64_t> cutoff) const override {
    const outputs::BoardGame bg = board_game(cutoff);
    return {outputs::game_record(bg).tags, bg.number, bg.game->outcome(),
            b_.options().chess960 && bg.game->start().fen() != rules::Position::start().fen()};
  }
  std::string pgn(std::optional<std::int64_t> cutoff) const override {
    return cutoff ? outputs::game_pgn(b_.board_game(*cutoff)) : b_.pgn();
  }
  // The current record as the path without the query serves it, a finished one as its archive holds it,
  // once the delay has passed its last write. A number the reader may not see yet is answered as one that
  // does not exist.
  http::Response numbered(std::string_view query, std::optional<std::int64_t> cutoff) const override {
    const std::optional<int> n = record_number(query);
    if (!n) return http::Response::text(400, "game must be a game number: 1, 2, … (see /status)");
    const outputs::BoardGame current = board_game(cutoff);
    if (*n == current.number) return pgn_response(outputs::game_pgn(current));
    if (*n < current.number)
      if (auto g = parts_->finished.board_record(b_.id(), *n)) {
        if (cutoff && g->written_ms > *cutoff)
          return http::Response::text(404, "game " + std::to_string(*n) + " of board " + b_.id() +
                                               " is not public yet (broadcast delay)");
        return pgn_response(std::move(g->text));
      }
    return http::Response::text(
        404, "board " + b_.id() + " has no game " + std::to_string(*n) + " on record; its games: " +
                 numbers_text(parts_->finished.board_numbers(b_.id()), current.number));
  }
  std::string round_pgn(std::optional<std::int64_t> cutoff) const override {
    std::string out;
    const outputs::BoardGame current = board_game(cutoff);
    bool earlier = false;
    for (const FinishedGames::Game* g : parts_->finished.of_round(parts_->round, b_.id(), current.number))
      if (!cutoff || g->written_ms <= *cutoff) {  // the game's end is public
        out += g->text;
        earlier = true;
      }
    const bool before_round = !in_round(parts_->round, b_.id(), current.number, current.started_ms);
    if (before_round && current.game->outcome()) return out;  // last round's, archived with it
    if (earlier && current.game->ply_count() == 0 && !current.game->outcome()) return out;  // set up again
    return out + outputs::game_pgn(current);
  }

 private:
  outputs::BoardGame board_game(std::optional<std::int64_t> cutoff) const {
    return cutoff ? b_.board_game(*cutoff) : b_.board_game();
  }
  BoardRuntime& b_;
  std::shared_ptr<const BoardDirectory::Parts> parts_;
};

// Another host's board, as this aggregator took it from the hall: the records are the hall's.
class RemoteBoard final : public DirectoryBoard {
 public:
  RemoteBoard(const mqtt::RemoteBoard& rb, std::shared_ptr<const BoardDirectory::Parts> parts)
      : rb_(rb), parts_(std::move(parts)) {}

  const std::string& id() const override { return rb_.id(); }
  BoardRuntime* runtime() const override { return nullptr; }
  std::vector<std::string> snapshot() const override { return rb_.lines(); }
  nlohmann::json status() const override { return rb_.board_status(); }
  bool online() const override { return rb_.online(); }
  std::string device() const override { return "mqtt:" + rb_.host(); }
  // Its host's serial number is not in the hall; the id is unique there.
  std::string serial() const override { return rb_.id(); }
  int game_number() const override { return rb_.game_number(); }
  rules::Game game(std::optional<std::int64_t> cutoff) const override {
    return cutoff ? rb_.public_game(*cutoff) : rb_.game();
  }
  GameRecord record(std::optional<std::int64_t> cutoff) const override {
    return {rb_.tags(), rb_.game_number(), game(cutoff).outcome(), false};
  }
  std::string pgn(std::optional<std::int64_t> cutoff) const override {
    return parts_->hall->board_pgn(rb_.id(), parts_->defaults, cutoff).value_or("");
  }
  http::Response numbered(std::string_view query, std::optional<std::int64_t> cutoff) const override {
    return parts_->hall->numbered_board_pgn(rb_.id(), query, parts_->defaults, cutoff);
  }
  std::string round_pgn(std::optional<std::int64_t> cutoff) const override {
    return parts_->hall->round_pgn(rb_, parts_->defaults, cutoff);
  }

 private:
  const mqtt::RemoteBoard& rb_;
  std::shared_ptr<const BoardDirectory::Parts> parts_;
};

}  // namespace

std::unique_ptr<DirectoryBoard> BoardDirectory::local(BoardRuntime& b) const {
  return std::make_unique<LocalBoard>(b, parts_);
}

std::unique_ptr<DirectoryBoard> BoardDirectory::remote(const mqtt::RemoteBoard& rb) const {
  return std::make_unique<RemoteBoard>(rb, parts_);
}

std::vector<std::unique_ptr<DirectoryBoard>> BoardDirectory::boards() const {
  std::vector<std::unique_ptr<DirectoryBoard>> out;
  for (const auto& b : parts_->local) out.push_back(local(*b));
  if (parts_->hall)
    for (const auto& [id, rb] : parts_->hall->remote_boards()) out.push_back(remote(*rb));
  return out;
}

std::unique_ptr<DirectoryBoard> BoardDirectory::find(std::string_view id) const {
  for (const auto& b : parts_->local)
    if (b->id() == id) return local(*b);
  if (parts_->hall)
    if (auto it = parts_->hall->remote_boards().find(std::string(id));
        it != parts_->hall->remote_boards().end())
      return remote(*it->second);
  return nullptr;
}

}  // namespace eboard::eboardd
