// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// DGT LiveChess' local API (reference/peers.md §2.2) as JSON, with no I/O: what an e-board looks like
// (the `eboards` list and the `eboardevent` feed), and the WebSocket's requests {id, call, param} and
// answers {response, id, param, time}. Programs written for LiveChess (lichess' DGT board page) read these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

namespace eboard::livechess {

// LiveChess' clock: seconds left, which side runs (none: stopped), and when it was read.
struct ClockView {
  std::int64_t white_ms = 0;
  std::int64_t black_ms = 0;
  std::optional<bool> white_runs;  // true: White's clock runs, false: Black's, none: stopped
  std::int64_t time_ms = 0;        // Unix ms of the reading (a client extrapolates a running clock)
  bool operator==(const ClockView&) const = default;
};

// One board as LiveChess shows it.
struct BoardView {
  std::string serialnr;  // the key clients use
  std::string board_id;  // eboardd's own id (not sent: for the owner)
  std::string device;    // the source; empty: none (sent as null)
  bool online = false;   // ACTIVE, else NOTRESPONDING
  std::string comment;
  std::string board;  // FEN piece placement of the position
  bool flipped = false;
  std::optional<ClockView> clock;
  std::string start;             // FEN the san list starts from
  std::vector<std::string> san;  // the moves since `start`
  // LiveChess' `match`: the board follows its game (it is read, and the feed's position is the game's).
  bool match = false;
  bool operator==(const BoardView&) const = default;
};

// A player as LiveChess' round records name one.
struct PlayerView {
  std::string fname, lname, title, federation, fideid;  // empty: unknown (sent as null)
  bool operator==(const PlayerView&) const = default;
};
// "Last, First" (a PGN name) as a LiveChess player; a name without a comma is all last name.
PlayerView player_of_pgn_name(std::string_view name);

// One board's game in the round, as eboardd's PGN record has it.
struct PairingView {
  int nr = 0;             // the board's place in the list (1 = first)
  std::string game_uuid;  // "<board>-<game number>": the game call's key
  PlayerView white, black;
  bool live = false;   // under way (no result yet)
  std::string result;  // PGN result: "1-0", "0-1", "1/2-1/2", "*"
  std::optional<ClockView> clock;
  std::vector<std::string> san;  // from the standard start, or from `fen`
  std::string fen;               // the game's start when not the standard one (empty: standard)
  bool chess960 = false;
  bool operator==(const PairingView&) const = default;
};

// The event and its current round as eboardd knows them: the one "tournament" LiveChess clients see.
struct RoundView {
  std::string tournament_uuid;  // stable for the event
  std::string name, site, date;
  int round = 1;                     // the current round's number (LiveChess numbers rounds)
  std::vector<std::string> serials;  // the boards' serial numbers, by board number
  std::vector<PairingView> pairings;
  bool operator==(const RoundView&) const = default;
};
// GET tournaments: [{uuid, description, rounds}].
nlohmann::json tournaments_json(const RoundView& r);
// GET tournament/{uuid}: {uuid, name, description, location, country, rounds, eboards}.
nlohmann::json tournament_json(const RoundView& r);
// GET round/{uuid}/{n} for the current round: {nr, date, pairings[{nr, uuid, white, black, live, result}]}.
nlohmann::json round_json(const RoundView& r);
// GET game/{uuid}: {chess960 (518: standard), result, comment, clock, moves}.
nlohmann::json game_json(const PairingView& p);
// LiveChess' result names: WHITEWIN, BLACKWIN, DRAW; null while under way.
nlohmann::json result_json(std::string_view pgn_result);

// The EBoard record of `eboards` (serialnr, source, state, battery, comment, board, flipped, clock).
nlohmann::json eboard_json(const BoardView& v);
// A `sources` entry: {type, device, name, present, active, status}.
nlohmann::json source_json(const BoardView& v);
// The param of an `eboardevent` feed message. `previous`: what this subscriber was sent last; board and
// clock are left out when they did not change since (as LiveChess does). serialnr, flipped, start and
// san are always there.
nlohmann::json feed_param(const BoardView& v, const BoardView* previous);
// LiveChess' clock record {white, black (seconds), run, time}.
nlohmann::json clock_json(const ClockView& c);

struct Request {
  nlohmann::json id;  // as the client sent it (a number in practice), echoed in the answer
  std::string call;
  nlohmann::json param;  // null when absent
};

struct RequestError {
  nlohmann::json id;  // the request's id when it could be read, else null
  std::string message;
};

// A WebSocket text message as a request. Not JSON, not an object, no `call` string: an error to answer.
tl::expected<Request, RequestError> parse_request(std::string_view text);

// {"response": kind, "id": id, "param": param, "time": time_ms}, kind "call" or "feed".
std::string response(std::string_view kind, const nlohmann::json& id, const nlohmann::json& param,
                     std::int64_t time_ms);
// {"response": "error", "id": id, "param": {"message": ..., "stacktrace": null}, "time": ...}.
std::string error_response(const nlohmann::json& id, const std::string& message, std::int64_t time_ms);

}  // namespace eboard::livechess
