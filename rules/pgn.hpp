// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// PGN and BPGN (bughouse) game records: reading text into raw games, replaying them on positions, writing.
// Reading needs no position: a raw game is tags plus the move tokens as written, with their comments,
// clock times and NAGs. `replay` resolves the tokens against the rules; the writers go the other way.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "rules/game.hpp"
#include "rules/notation.hpp"
#include "rules/position.hpp"

namespace eboard::rules {

struct PgnTag {
  std::string name;
  std::string value;
};
using PgnTags = std::vector<PgnTag>;
std::optional<std::string_view> find_tag(const PgnTags& tags, std::string_view name);

// One move of the movetext as written, not yet checked against any position.
struct PgnMove {
  std::string san;                       // the token, `!`/`?` suffixes moved to `nags`; may be UCI or `--`
  std::vector<int> nags;                 // `$n`, and `!` `?` `!!` `??` `!?` `?!` as $1–$6
  std::string comment;                   // the comments after the move, whitespace collapsed, clocks removed
  std::optional<std::int64_t> clock_ms;  // `[%clk h:mm:ss.f]` (BPGN: `{123.4}`): time left after the move
  std::optional<std::int64_t> emt_ms;    // `[%emt h:mm:ss.f]`: time spent on the move
  int line = 0;                          // where the token is in the text (1-based)
};

// A BPGN move carries its board and side from its number: `12A.` White on A, `12a.` Black on A, `12B.`
// `12b.`.
struct BpgnMove : PgnMove {
  int board = 0;  // 0 = A, 1 = B
  Color color = WHITE;
  int number = 0;
};

template <class MoveToken>
struct RawGame {
  PgnTags tags;
  std::string intro_comment;  // comments before the first move
  std::vector<MoveToken> moves;
  std::string result = "*";  // the movetext's termination marker
  bool terminated = false;   // false when the game ended without one (cut off, or the next game began)
  int index = 0;             // 1-based position in the text
  int line = 0;              // line where the game starts
  std::optional<std::string_view> tag(std::string_view name) const { return find_tag(tags, name); }
};
using PgnGame = RawGame<PgnMove>;
using BpgnGame = RawGame<BpgnMove>;

namespace detail {
struct ScanState {
  std::string_view text;
  std::size_t pos = 0;
  int line = 1;
  int games = 0;
};
std::optional<tl::expected<BpgnGame, std::string>> next_game(ScanState& state, bool bughouse);
}  // namespace detail

// Reads games one after another. Tolerates a byte-order mark, CRLF, blank lines anywhere, `%` escape lines,
// `;` comments, nested `{}` comments and skips variations. A game that cannot be read gives a one-line
// error naming the game and the line; reading then resumes at the next tag section. The reader keeps a
// view of `text`, which must outlive it.
class PgnReader {
 public:
  explicit PgnReader(std::string_view text) : state_{text} {}
  // nullopt when the text is exhausted.
  std::optional<tl::expected<PgnGame, std::string>> next();

 private:
  detail::ScanState state_;
};

class BpgnReader {
 public:
  explicit BpgnReader(std::string_view text) : state_{text} {}
  std::optional<tl::expected<BpgnGame, std::string>> next() { return detail::next_game(state_, true); }

 private:
  detail::ScanState state_;
};

// Every game of the text, or the first error.
tl::expected<std::vector<PgnGame>, std::string> read_pgn(std::string_view text);
tl::expected<std::vector<BpgnGame>, std::string> read_bpgn(std::string_view text);

// A game resolved against the rules: what the writers take and `replay` gives.
struct RecordedMove {
  Move move;  // Move::none() is a null move (`--`, `Z0`, `0000`)
  std::optional<std::int64_t> clock_ms;
  std::optional<std::int64_t> emt_ms;
  std::string comment;
  std::vector<int> nags;
  // The move's SAN as the game knew it, when the record's own start and moves cannot tell it: a bughouse
  // board's drop of a piece its partner captured is legal in the game, not on this board alone. Empty:
  // the writer computes it.
  std::string san = {};  // (initialised: records built as aggregates need not name it)
};

struct GameRecord {
  PgnTags tags;
  std::string intro_comment;
  Position start = Position::start();
  std::vector<RecordedMove> moves;
  std::string result = "*";
};

// The start position a game's tags describe: `Variant` (Standard, Chess960/fischerandom, Crazyhouse,
// Bughouse; anything else is refused) and `FEN` (X-FEN or Shredder-FEN castling).
tl::expected<Position, std::string> start_position(const PgnTags& tags);
// Resolves every move; the error names the game, the move number and the token. A token that is not SAN
// is tried as UCI (some files hold UCI movetext).
tl::expected<GameRecord, std::string> replay(const PgnGame& game);
// The position after all the moves of a record (which must be legal, as `replay` gives them).
Position final_position(const GameRecord& record);

struct PgnWriteOptions {
  int width = 80;  // longest movetext line
  SanOptions san;  // export format is English; French only for display
};
// PGN export format: the Seven Tag Roster, then Variant/SetUp/FEN when needed, then the other tags; SAN
// movetext with `{[%clk h:mm:ss]}` comments, wrapped; the result. Fails only on an illegal move in `record`;
// a drop with its `san` given whose piece is not in the pocket (it came from a bughouse partner) is written
// as given, the piece added to the pocket first.
tl::expected<std::string, std::string> write_pgn(const GameRecord& record,
                                                 const PgnWriteOptions& options = {});

// Sets `record`'s start, moves (with the clock of each mover) and intro comment from a game; tags and
// result stay the caller's. An illegal move that stood (FIDE A.4.2) cannot be movetext: SAN names legal
// moves only, and a reader replaying it would stop there. So the record then starts afresh (SetUp/FEN)
// from the first position after the last such move that FEN can give (the illegal move may have left
// the mover's own king attacked, which no FEN reader accepts: then the position after the reply), and the
// intro comment tells every move before it, the illegal ones in long algebraic notation marked as such.
// Bughouse: every move gets its `san` from the game's own positions (pockets fed by the partner).
// A reader sees the position the players are in and every move since with its clock; the moves before
// are there to be read, not replayed. A game without such a move is written from its start as before.
void set_record_moves(GameRecord& record, const Game& game);

// Bughouse: two boards, A (0) and B (1). Team 1 is White on A and Black on B.
struct BughouseMove : RecordedMove {
  int board = 0;
};

struct BughouseRecord {
  PgnTags tags;
  std::string intro_comment;
  std::array<Position, 2> start{Position::start(Variant::Bughouse), Position::start(Variant::Bughouse)};
  std::vector<BughouseMove> moves;  // both boards, in the order they were played
  std::string result = "*";         // for team White A + Black B
};

// Plays a legal move on `boards[board]`; a captured piece goes, in its own colour, to the pocket of that
// colour on the other board (FQE 6): promoted pieces go over as pawns, en passant gives a pawn.
void play_bughouse_move(std::array<Position, 2>& boards, int board, Move m);
// Replays a BPGN match. Starts from `FENA`/`FENB` tags when present (else the standard position).
tl::expected<BughouseRecord, std::string> replay_bughouse(const BpgnGame& game);
std::array<Position, 2> final_positions(const BughouseRecord& record);
// BPGN as chess.com and bughouse.net write it: `1A. e4{119.9} 1a. e5{118.2} 1B. d4{120.0}`, clock seconds.
tl::expected<std::string, std::string> write_bpgn(const BughouseRecord& record,
                                                  const PgnWriteOptions& options = {});

}  // namespace eboard::rules
