// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What a board's journal holds, as values, and their encoding in journal records (journal_file.hpp).
//
//   H header     {"format":1,"board":"A","created":ms}                       first record of a file
//                a file begun by a rotation adds "previous_game":n, "previous_file":"<kept name>",
//                "tags":[["Event","..."],...]: what the kept games leave to the next (rotation.hpp)
//   N new game   {"t":ms,"profile":"fide-standard","chess960":false,"fen":""}  a fresh reconstruction
//   S sensor     {"t":ms,"lift":"e2"} {"t":ms,"place":"e4","piece":"P"} {"t":ms,"board":"<placement>"}
//                {"t":ms,"clock":{...}} {"t":ms,"link":true}                   the truth, in order
//   A advance    {"t":ms}                                                      a timer advanced
//   reconstruction E event      a CONTRACTS §3 event as its JSON line                         what was
//   published T tags       {"t":ms,"tags":{"White":"Carlsen",...}}                       PGN tags of the game
//   R raw        binary: t (i64 LE), direction (0 from board, 1 to board), the bytes
//   C control    {"t":ms,"action":"resign","side":"white","value":""}        arbiter input (control.hpp)
//
// Sensor events, advances and new-game records are the inputs of reconstruction: replaying them gives the
// events again (recovery checks it against the E records). Raw records are the wire, for `.cap` export.
// An advance is journaled only when it produced events (the rest would change nothing on replay).
//
// The two boards of a bughouse match add `"seq":n` to their inputs (N, S, A, C): the match's order of
// arrival across both journals, which match recovery (match_recovery.hpp) replays. Readers that do not
// know the field ignore it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <tl/expected.hpp>

#include "drivers/capture.hpp"
#include "rules/pgn.hpp"
#include "rules/sensor.hpp"

namespace eboard::journal {

struct HeaderEntry {
  HeaderEntry() = default;
  HeaderEntry(int format_, std::string board_, std::int64_t created)
      : format(format_), board(std::move(board_)), created_ms(created) {}
  int format = 1;
  std::string board;
  std::int64_t created_ms = 0;
  // Set in a file that a journal rotation began (rotation.hpp): the number of the last game of the file
  // kept before it, that file's name in journal/<board>/, and the board's PGN tags at the rotation, so
  // that game numbers and the tags that outlive a game go on without reading the kept files.
  int previous_game = 0;
  std::string previous_file;
  rules::PgnTags tags;
};

struct NewGameEntry {
  std::int64_t t_ms = 0;
  std::string profile = "fide-standard";
  bool chess960 = false;
  std::string fen;  // empty: the profile variant's standard start
  // A board without a clock: moves complete when the board rests this long (ReconstructConfig); 0: a clock.
  std::int64_t complete_after_ms = 0;
  // A gap its clock does not count is told with its length open, the moves since held back
  // (ReconstructConfig::hold_uncounted_gaps; [gaps] hold_uncounted).
  bool hold_uncounted = false;
};

struct AdvanceEntry {
  std::int64_t t_ms = 0;
};

struct EventEntry {
  std::string json;  // one §3 event, as published
};

struct TagsEntry {
  std::int64_t t_ms = 0;
  rules::PgnTags tags;  // set these (an empty value removes the tag)
};

struct RawEntry {
  std::int64_t t_ms = 0;
  drivers::Direction direction = drivers::Direction::FromBoard;
  std::vector<std::uint8_t> bytes;
};

// Arbiter input through the control interface, an input of reconstruction like a sensor event: resign
// (side), draw, promotion (side, value: the piece letter), adjourn (side, value: the sealed move), resume,
// ack (value: the alert's number in the game).
struct ControlEntry {
  std::int64_t t_ms = 0;
  std::string action;
  std::string side;  // "white" / "black" for the actions that have one
  std::string value;
  // "move" (a board without wood): the clock times after the move, when the arbiter gave them (-1: not).
  std::int64_t white_ms = -1;
  std::int64_t black_ms = -1;
};

// The order a waiting gap's candidates are shown in, numbered for `recover N`, when it is not the one its
// moves-missed alert published (an engine ranked them since): each candidate's moves (UCI), in that order.
// Not an input: replay derives nothing from it; a restart shows the gap in it again
// (Recovery::published_gap).
struct GapOrderEntry {
  std::int64_t t_ms = 0;
  int first_ply = 0;
  std::vector<std::vector<std::string>> candidates;
};

using Entry = std::variant<HeaderEntry, NewGameEntry, rules::SensorEvent, AdvanceEntry, EventEntry, TagsEntry,
                           RawEntry, ControlEntry, GapOrderEntry>;

char record_type(const Entry& e);
std::string encode_body(const Entry& e);
tl::expected<Entry, std::string> decode_entry(char type, std::string_view body);

// The piece placement field of a FEN for a board array (a1 = 0), and back.
std::string placement(const std::array<rules::Piece, 64>& board);
tl::expected<std::array<rules::Piece, 64>, std::string> parse_placement(std::string_view text);

}  // namespace eboard::journal
