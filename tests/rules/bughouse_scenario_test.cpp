// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Bughouse scenarios written from RULES.md §2 (FQE "blitz à 4"): each a short script of sensor and clock
// events on the two boards of a match, and exactly the alerts, results and claims it must produce.
// A few crazyhouse scenarios (one board, the capturer's own reserve) close the table.
//
// Script language, one token per step (each step is 40 ms after the previous one):
//   A / B     the following tokens act on board A / board B (A at the start)
//   -e2       lift the piece on e2             +e4P     set a white pawn on e4 (lowercase: black)
//   m:e2e4    lift e2, lift the victim if any, set the piece on e4 (m:a7a8Q sets a queen instead of
//             the pawn), settle, press the clock
//   m:N@f3    set a knight of the side to move on f3 (from its reserve), settle, press the clock
//   .         the player whose side is up presses        ~1500    let 1500 ms pass
//   !L / !R   the left / right flag falls        =N   the side to move names a knight for his promotion
//   R:w / R:b White / Black resigns on this board          D        both teams agree a draw
//   X:1-0/forfeit   the arbiter gives this board's game the result 1-0 (0-1, 1/2-1/2) with that reason
//   ||  /  >  this board's clock is stopped / runs again (FQE 23)
// Every board starts with its position on the board and its clock started for the side to move (White
// on the left). Expectations name the board: "B:illegal-move/drop-not-in-reserve", "A:result:1-0/checkmate",
// "match:1-0/checkmate", "A:move:e2e4" (the board's last move), "B:moves=0" (how many moves it completed),
// "B:match-paused" / "A:match-resumed" (FQE 23, with the board whose clock reading did it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>

#include "rules/match.hpp"

using namespace eboard::rules;

namespace {

constexpr const char* START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";

struct Scenario {
  const char* name;
  const char* fen_a;  // nullptr: the standard start
  const char* fen_b;
  const char* script;
  std::vector<std::string> alerts;  // "board:code" or "board:code/reason", in order
  std::vector<std::string> others;  // results, match result, claims in order; moves: last move per board
  const char* profile = "bughouse-fqe";
  const char* extra = "";   // "reserve=qn;claimant=white" … checked on the last alert
  bool crazyhouse = false;  // one board (A), Variant::Crazyhouse, fide-standard profile
};

Piece piece_of(char c) {
  PieceType t = piece_type_from_char(c);
  return make_piece(std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK, t);
}

struct Outcomes {
  std::vector<std::string> alerts, others;
  std::vector<AlertEvent> alert_events;
  std::map<std::string, std::vector<std::string>> moves;  // by board id
};

// Either a match (two boards) or one crazyhouse board behind the same small interface.
class Driver {
 public:
  Driver(const Scenario& sc, Position a, Position b) {
    if (sc.crazyhouse) {
      ReconstructConfig cfg;
      cfg.profile = *profile_by_name("fide-standard");
      cfg.profile.variant = Variant::Crazyhouse;
      cfg.mismatch_ms = 3000;
      single_ = std::make_unique<Reconstructor>(cfg, Game(a));
    } else {
      MatchConfig cfg;
      cfg.board = bughouse_board_config(sc.profile);
      cfg.board.mismatch_ms = 3000;
      match_ = std::make_unique<Match>(cfg, Game(a), Game(b));
    }
  }
  std::vector<Event> sensor(int board, const SensorEvent& e) {
    return match_ ? match_->on_sensor(board, e) : single_->on_sensor(e);
  }
  std::vector<Event> advance(std::int64_t t) { return match_ ? match_->advance(t) : single_->advance(t); }
  const Reconstructor& board(int b) const { return match_ ? match_->board(b) : *single_; }
  Match* match() { return match_.get(); }

 private:
  std::unique_ptr<Match> match_;
  std::unique_ptr<Reconstructor> single_;
};

Outcomes play(const Scenario& sc) {
  Outcomes run;
  Variant v = sc.crazyhouse ? Variant::Crazyhouse : Variant::Bughouse;
  auto a = Position::from_fen(sc.fen_a ? sc.fen_a : START, v);
  auto b = Position::from_fen(sc.fen_b ? sc.fen_b : START, v);
  if (!a || !b) {
    ADD_FAILURE() << sc.name << ": " << (a ? b.error() : a.error());
    return run;
  }
  Driver d(sc, *a, *b);
  int boards = sc.crazyhouse ? 1 : 2;
  std::int64_t t = 0;
  const bool debug = std::getenv("EBOARD_DEBUG") != nullptr;
  auto collect = [&run, debug](const std::vector<Event>& evs) {
    for (const auto& e : evs) {
      std::string who = e.board + ":";
      if (debug) std::printf("  %lld %s %s\n", static_cast<long long>(e.t_ms), who.c_str(), event_type(e));
      if (auto* al = std::get_if<AlertEvent>(&e.what)) {
        std::string reason;
        for (const auto& f : al->extra)
          if (f.name == "reason") reason = f.value;
        run.alerts.push_back(who + (reason.empty() ? al->code : al->code + "/" + reason));
        run.alert_events.push_back(*al);
      } else if (auto* res = std::get_if<ResultEvent>(&e.what)) {
        run.others.push_back(who + "result:" + result_string(res->result) + "/" + res->reason);
      } else if (auto* mr = std::get_if<MatchResultEvent>(&e.what)) {
        run.others.push_back("match:" + result_string(mr->result) + "/" + mr->reason);
      } else if (auto* c = std::get_if<ClaimableEvent>(&e.what)) {
        run.others.push_back(who + "claimable:" + c->rule);
      } else if (std::holds_alternative<MatchPauseEvent>(e.what)) {
        run.others.push_back(who + event_type(e));
      } else if (auto* m = std::get_if<MoveEvent>(&e.what)) {
        run.moves[e.board].push_back(m->uci);
      }
    }
  };
  std::array<ClockReading, 2> clocks;
  const std::array<Position, 2> starts{*a, *b};
  for (int i = 0; i < boards; ++i) {
    clocks[std::size_t(i)] =
        ClockReading{300000, 300000, true,
                     starts[std::size_t(i)].side_to_move() == WHITE ? ClockSide::Left : ClockSide::Right};
  }
  int cur = 0;
  auto feed = [&](int board, decltype(SensorEvent::what) what) {
    t += 40;
    collect(d.sensor(board, SensorEvent{t, what}));
  };
  for (int i = 0; i < boards; ++i) feed(i, BoardSnapshot{starts[std::size_t(i)].board()});
  for (int i = 0; i < boards; ++i) feed(i, clocks[std::size_t(i)]);
  auto press = [&] {
    ClockReading& c = clocks[std::size_t(cur)];
    c.lever_up = c.lever_up == ClockSide::Left ? ClockSide::Right : ClockSide::Left;
    feed(cur, c);
  };
  auto wait = [&](std::int64_t ms) {
    t += ms;
    collect(d.advance(t));
  };
  std::istringstream in(sc.script);
  for (std::string tok; in >> tok;) {
    const Reconstructor& r = d.board(cur);
    Color to_move = r.game().position().side_to_move();
    if (tok == "A" || tok == "B") {
      cur = tok == "A" ? 0 : 1;
    } else if (tok == ".") {
      press();
    } else if (tok[0] == '~') {
      wait(std::stoll(tok.substr(1)));
    } else if (tok == "!L" || tok == "!R") {
      ClockReading& c = clocks[std::size_t(cur)];
      (tok == "!L" ? c.left_flag : c.right_flag) = true;
      (tok == "!L" ? c.left_ms : c.right_ms) = 0;
      feed(cur, c);
    } else if (tok[0] == '=') {
      if (d.match()) d.match()->set_promotion_piece(cur, to_move, piece_type_from_char(tok[1]));
    } else if (tok == "R:w" || tok == "R:b") {
      t += 40;
      if (d.match()) collect(d.match()->resign(cur, tok == "R:w" ? WHITE : BLACK, t));
    } else if (tok == "||" || tok == ">") {
      clocks[std::size_t(cur)].running = tok == ">";
      feed(cur, clocks[std::size_t(cur)]);
    } else if (tok.rfind("X:", 0) == 0) {
      const auto slash = tok.rfind('/');  // the reason has none
      const std::string code = tok.substr(2, slash - 2);
      const Result res = code == "1-0" ? Result::WhiteWins : code == "0-1" ? Result::BlackWins : Result::Draw;
      t += 40;
      if (d.match()) collect(d.match()->arbiter_result(cur, Outcome{res, tok.substr(slash + 1)}, t));
    } else if (tok == "D") {
      t += 40;
      if (d.match()) collect(d.match()->agree_draw(t));
    } else if (tok[0] == '-') {
      feed(cur, PieceLifted{parse_square(tok.substr(1, 2))});
    } else if (tok[0] == '+') {
      feed(cur, PiecePlaced{parse_square(tok.substr(1, 2)), piece_of(tok[3])});
    } else if (tok.rfind("m:", 0) == 0 && tok.size() == 6 && tok[3] == '@') {
      feed(cur,
           PiecePlaced{parse_square(tok.substr(4, 2)), make_piece(to_move, piece_type_from_char(tok[2]))});
      wait(300);
      press();
    } else if (tok.rfind("m:", 0) == 0) {
      Square from = parse_square(tok.substr(2, 2)), to = parse_square(tok.substr(4, 2));
      Piece p = r.physical()[from];
      if (tok.size() > 6) p = make_piece(color_of(p), piece_type_from_char(tok[6]));
      feed(cur, PieceLifted{from});
      if (d.board(cur).physical()[to] != NO_PIECE) feed(cur, PieceLifted{to});
      feed(cur, PiecePlaced{to, p});
      wait(300);
      press();
    } else {
      ADD_FAILURE() << sc.name << ": bad token " << tok;
    }
  }
  wait(300);
  return run;
}

// Short FENs used below.
constexpr const char* CAPTURE_READY = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq d6 0 2";
constexpr const char* BLACK_TO_MOVE = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1";
constexpr const char* WHITE_HAS_N = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1";
constexpr const char* WHITE_HAS_P = "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1";
constexpr const char* SMOTHER_READY = "kr6/pp6/8/3N4/8/8/8/7K[] w - - 0 1";
constexpr const char* PROMOTION_READY = "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1";

const Scenario SCENARIOS[] = {
    // ---- reserves: what a completed capture hands over (FQE 6, 11) ----
    {"capture hands the piece to the partner, who drops it",
     CAPTURE_READY,
     BLACK_TO_MOVE,
     "A m:e4d5 B m:P@e5",
     {},
     {"B:move:P@e5"}},
    {"the piece keeps its colour: Black A's capture gives White B a knight",
     "rnbqkbnr/ppp1pppp/8/8/3pP3/2N5/PPPP1PPP/R1BQKBNR[] b KQkq - 0 2",
     nullptr,
     "A -d4 -c3 +c3p ~300 . B m:N@e3",
     {},
     {"B:move:N@e3"}},
    {"a captured promoted piece goes over as a pawn",
     "r3k3/1P6/8/8/8/8/8/4K3[] w - - 0 1",
     nullptr,
     "A -b7 +b8P ~300 . m:a8b8 B m:P@e4",
     {},
     {"A:move:a8b8", "B:move:P@e4"}},
    {"a captured promoted piece is not a queen in the partner's reserve",
     "r3k3/1P6/8/8/8/8/8/4K3[] w - - 0 1",
     nullptr,
     "A -b7 +b8P ~300 . m:a8b8 B m:Q@e4",
     {"B:illegal-move/drop-not-in-reserve"},
     {}},
    {"en passant hands over a pawn",
     "4k3/8/8/3pP3/8/8/8/4K3[] w - d6 0 1",
     BLACK_TO_MOVE,
     "A -e5 +d6P -d5 ~300 . B m:P@d5",
     {},
     {"A:move:e5d6", "B:move:P@d5"}},
    {"a piece is dropped only after the capturer's press",
     CAPTURE_READY,
     BLACK_TO_MOVE,
     "A -e4 -d5 +d5P ~300 ~2000 . ~500 B m:P@e5",
     {},
     {"B:move:P@e5"}},

    // ---- drops read from the board, and what is not a drop (FQE 7, 18) ----
    {"drop of a piece the reserve does not hold, pressed",
     nullptr,
     nullptr,
     "B m:N@e4",
     {"B:illegal-move/drop-not-in-reserve"},
     {},
     "bughouse-fqe",
     "penalty=loss if claimed;count=1"},
    {"a piece from the other board set down and taken away before the press",
     nullptr,
     nullptr,
     "B +e4N ~200 -e4 ~300 m:e2e4",
     {},
     {"B:move:e2e4"}},
    {"a piece not in the reserve rests on the board, then taken away",
     nullptr,
     nullptr,
     "B +e4N ~1500 -e4 ~300 m:e2e4",
     {"B:illegal-move-corrected"},
     {"B:move:e2e4"}},
    {"the capture victim set down for a moment is no drop",
     CAPTURE_READY,
     nullptr,
     "A -e4 -d5 +d5P +h3p ~200 -h3 ~300 .",
     {},
     {"A:move:e4d5"}},
    {"a piece lifted and put back is nothing",
     WHITE_HAS_N,
     nullptr,
     "A -g1 +g1N ~100 m:N@e4",
     {},
     {"A:move:N@e4"}},
    {"pawn dropped on the last rank",
     WHITE_HAS_P,
     nullptr,
     "A +d8P ~300 .",
     {"A:illegal-move/pawn-drop-on-first-or-last-rank"},
     {}},
    {"drop that leaves the king in check",
     "4k3/8/8/8/8/8/4r3/4K3[N] w - - 0 1",
     nullptr,
     "A +a3N ~300 .",
     {"A:illegal-move/king-left-in-check"},
     {}},

    // ---- FQE 21b: the partner's capture must be completed first ----
    {"drop before the partner's press",
     CAPTURE_READY,
     BLACK_TO_MOVE,
     "A -e4 -d5 +d5P ~300 B +e5p ~300 . ~1500 A .",
     {"B:drop-before-partner-clock"},
     {"A:move:e4d5", "B:move:P@e5"}},
    {"drop placed before the partner's press, pressed after it",
     CAPTURE_READY,
     BLACK_TO_MOVE,
     "A -e4 -d5 +d5P ~300 B +e5p ~1500 A . ~300 B .",
     {"B:drop-before-partner-clock"},
     {"A:move:e4d5", "B:move:P@e5"}},
    {"drop a moment before the partner's press is read: the clocks' delay",
     CAPTURE_READY,
     BLACK_TO_MOVE,
     "A -e4 -d5 +d5P ~300 B +e5p ~160 A . ~300 B .",
     {},
     {"A:move:e4d5", "B:move:P@e5"}},
    {"the partner takes his capture back: the drop had no piece",
     CAPTURE_READY,
     BLACK_TO_MOVE,
     "A -e4 -d5 +d5P ~300 B +e5p ~100 A -d5 +e4P +d5p ~300 B .",
     {"B:illegal-move/drop-not-in-reserve"},
     {}},

    // ---- FQE 19: touch-move of reserve pieces ----
    {"reserve piece placed, then dropped elsewhere",
     WHITE_HAS_N,
     nullptr,
     "A +e4N ~500 -e4 +f4N ~300 .",
     {"A:reserve-touch-move"},
     {"A:move:N@f4"}},
    {"reserve piece placed, taken back, a board move instead",
     WHITE_HAS_N,
     nullptr,
     "A +e4N ~500 -e4 ~300 m:e2e4",
     {"A:reserve-touch-move"},
     {"A:move:e2e4"}},
    {"reserve piece rested a second on its square, then dropped elsewhere",
     WHITE_HAS_N,
     nullptr,
     "A +e4N ~1500 -e4 +f4N ~300 .",
     {"A:reserve-touch-move"},
     {"A:move:N@f4"}},
    {"reserve piece rested a second on its square, taken back, a board move instead",
     WHITE_HAS_N,
     nullptr,
     "A +e4N ~1500 -e4 ~300 m:e2e4",
     {"A:reserve-touch-move"},
     {"A:move:e2e4"}},
    {"clock-move: a reserve piece rested a second elsewhere first",
     WHITE_HAS_N,
     nullptr,
     "A +e4N ~1500 -e4 +f4N ~300 .",
     {},
     {"A:move:N@f4"},
     "bughouse-clock-move"},
    {"dropped piece bouncing on its square",
     WHITE_HAS_N,
     nullptr,
     "A +e4N ~100 -e4 +e4N ~300 .",
     {},
     {"A:move:N@e4"}},
    {"clock-move: a reserve piece may be placed elsewhere first",
     WHITE_HAS_N,
     nullptr,
     "A +e4N ~500 -e4 +f4N ~300 .",
     {},
     {"A:move:N@f4"},
     "bughouse-clock-move"},
    {"an own piece touched first, then a drop",
     WHITE_HAS_N,
     nullptr,
     "A -g1 +g1N ~500 m:N@e4",
     {"A:touch-move/own-piece-not-moved"},
     {"A:move:N@e4"}},

    // ---- FQE 18: hidden reserve ----
    {"press without a move asks to see the opponent's reserve",
     nullptr,
     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[qnp] w KQkq - 0 1",
     "B . ~500 . ~300 m:e2e4",
     {"B:hidden-reserve"},
     {"B:move:e2e4"},
     "bughouse-fqe",
     "reserve=qnp;claimant=white"},
    {"clock-move: a press without a move is an illegal move",
     nullptr,
     nullptr,
     "B .",
     {"B:clock-without-move/clock-without-move"},
     {},
     "bughouse-clock-move",
     "penalty=loss if claimed before the claimant's next move"},

    // ---- FQE 20, 21a: illegal moves ----
    {"illegal move completed: loss if claimed",
     nullptr,
     nullptr,
     "A -b1 +b3N ~300 .",
     {"A:illegal-move/impossible-move"},
     {},
     "bughouse-fqe",
     "penalty=loss if claimed"},
    {"illegal move corrected with the same piece",
     nullptr,
     nullptr,
     "A -b1 +b3N ~1200 -b3 +c3N ~300 .",
     {"A:illegal-move-corrected"},
     {"A:move:b1c3"}},
    {"illegal move corrected with another piece: same piece required",
     nullptr,
     nullptr,
     "A -b1 +b3N ~1200 -b3 +b1N ~300 m:e2e4",
     {"A:illegal-move-corrected", "A:same-piece-required"},
     {"A:move:e2e4"}},
    {"illegal move of a piece that cannot move, corrected with another",
     "4k3/4r3/8/8/8/8/4B3/4K3[] w - - 0 1",
     nullptr,
     "A -e2 +d3B ~1200 -d3 +e2B ~300 m:e1d1",
     {"A:illegal-move-corrected"},
     {"A:move:e1d1"}},
    {"illegal drop corrected with the same reserve piece",
     WHITE_HAS_P,
     nullptr,
     "A +d8P ~1200 -d8 +d4P ~300 .",
     {"A:illegal-move-corrected"},
     {"A:move:P@d4"}},
    {"illegal drop corrected with a board move: same piece required",
     WHITE_HAS_P,
     nullptr,
     "A +d8P ~1200 -d8 ~300 m:e1d2",
     {"A:illegal-move-corrected", "A:same-piece-required"},
     {"A:move:e1d2"}},
    {"clock-move: illegal move corrected with another piece is allowed",
     nullptr,
     nullptr,
     "A -b1 +b3N ~1200 -b3 +b1N ~300 m:e2e4",
     {"A:illegal-move-corrected"},
     {"A:move:e2e4"},
     "bughouse-clock-move"},

    {"clock-move: an illegal move stands once the opponent plays on without claiming",
     nullptr,
     nullptr,
     "A -b1 +b3N ~300 . ~500 m:e7e5 ~4000",
     {"A:illegal-move/impossible-move"},
     {"A:move:e7e5"},
     "bughouse-clock-move"},
    {"clock-move: a press without a move stands as a pass once the opponent plays on",
     nullptr,
     nullptr,
     "B . ~500 m:e7e5 ~4000",
     {"B:clock-without-move/clock-without-move"},
     {"B:move:e7e5"},
     "bughouse-clock-move"},
    {"clock-move: an illegal capture that stood hands its piece to the partner",
     "rnbqkbnr/p1pppppp/8/8/8/1p6/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
     nullptr,
     "A -b3 -b1 +b3N ~300 . ~500 m:e7e5 B m:e2e4 m:P@e5 ~4000",
     {"A:illegal-move/impossible-move"},
     {"A:move:e7e5", "B:move:P@e5"},
     "bughouse-clock-move"},
    {"FQE: an illegal move never stands; the opponent playing on is a mismatch",
     nullptr,
     nullptr,
     "A -b1 +b3N ~300 . ~500 m:e7e5 ~4000",
     {"A:illegal-move/impossible-move", "A:position-mismatch"},
     {}},

    // ---- FQE 8, 9: mate with potential drops, no stalemate ----
    {"no stalemate: a player without a move waits",
     "7k/4Q3/6K1/8/8/8/8/8[] w - - 0 1",
     nullptr,
     "A m:e7f7 ~3000",
     {},
     {"A:move:e7f7"}},
    {"a distant check a potential drop could block is not mate",
     "k7/pp6/8/8/8/8/8/4R2K[] w - - 0 1",
     nullptr,
     "A m:e1e8 ~3000",
     {},
     {"A:move:e1e8"}},
    {"smothered mate ends the game and the match",
     SMOTHER_READY,
     nullptr,
     "A m:d5c7 ~2500",
     {},
     {"A:result:1-0/checkmate", "match:1-0/checkmate", "B:result:0-1/partner-board", "A:move:d5c7"}},
    {"a mating drop is complete without a press",
     "kr6/pp6/8/8/8/8/8/7K[N] w - - 0 1",
     nullptr,
     "A +c7N ~2500",
     {},
     {"A:result:1-0/checkmate", "match:1-0/checkmate", "B:result:0-1/partner-board", "A:move:N@c7"}},

    // ---- FQE 11: promotion ----
    {"promotion: the pawn stays a pawn", PROMOTION_READY, nullptr, "A -a7 +a8P ~300 .", {}, {"A:move:a7a8q"}},
    {"the promoted pawn moves on as a queen",
     PROMOTION_READY,
     nullptr,
     "A -a7 +a8P ~300 . m:e8d7 m:a8a2",
     {},
     {"A:move:a8a2"}},
    {"the player names a knight for his promotion",
     PROMOTION_READY,
     nullptr,
     "A =N -a7 +a8P ~300 .",
     {},
     {"A:move:a7a8n"}},
    {"promotion with the queen put on the board",
     PROMOTION_READY,
     nullptr,
     "A -a7 +a8Q ~300 .",
     {},
     {"A:move:a7a8q"}},
    {"clock-move: the pawn left on the last rank",
     PROMOTION_READY,
     nullptr,
     "A -a7 +a8P ~300 .",
     {"A:illegal-move/promotion-not-completed"},
     {"A:move:a7a8q"},
     "bughouse-clock-move"},
    {"clock-move: promotion to a bishop is not allowed",
     PROMOTION_READY,
     nullptr,
     "A -a7 +a8B ~300 . ~1000",
     {"A:illegal-move/promotion-not-allowed"},
     {},
     "bughouse-clock-move"},

    // ---- FQE 22: four repetitions without drops ----
    {"fourfold repetition is claimable even though the reserve grew",
     nullptr,
     CAPTURE_READY,
     "A m:g1f3 m:g8f6 m:f3g1 m:f6g8 B m:e4d5 A m:g1f3 m:g8f6 m:f3g1 m:f6g8 m:g1f3 m:g8f6 m:f3g1 m:f6g8",
     {},
     {"A:claimable:fourfold-no-drops"}},

    // ---- FQE 4, 14-17: the match result ----
    {"first game to end decides: a flag on B",
     nullptr,
     nullptr,
     "B m:e2e4 !R ~2500",
     {},
     {"B:result:1-0/flag", "match:0-1/flag", "A:result:0-1/partner-board"}},
    {"both games lost by the same team",
     nullptr,
     nullptr,
     "B m:e2e4 A !L B !R ~2500",
     {},
     {"A:result:0-1/flag", "B:result:1-0/flag", "match:0-1/flag"}},
    {"both flags fall for opposite teams: draw",
     nullptr,
     nullptr,
     "A !L B !L ~2500",
     {},
     {"A:result:0-1/flag", "B:result:0-1/flag", "match:1/2-1/2/flag"}},
    {"mates on both boards at once: draw (FQE 16)",
     SMOTHER_READY,
     SMOTHER_READY,
     "A m:d5c7 B m:d5c7 ~2500",
     {},
     {"A:result:1-0/checkmate", "B:result:1-0/checkmate", "match:1/2-1/2/simultaneous"}},
    {"games ending apart: the first decides, the other is stopped",
     SMOTHER_READY,
     SMOTHER_READY,
     "A m:d5c7 ~2500 B m:d5c7",
     {},
     {"A:result:1-0/checkmate", "match:1-0/checkmate", "B:result:0-1/partner-board", "B:moves=0"}},
    {"resignation ends the match",
     nullptr,
     nullptr,
     "A R:w ~2500",
     {},
     {"A:result:0-1/resignation", "match:0-1/resignation", "B:result:1-0/partner-board"}},
    // ---- The arbiter's result (RULES.md: a decision, a forfeit, a flag he saw) ----
    {"the arbiter's result on board B decides the match at once, for B's team",
     nullptr,
     nullptr,
     "A m:e2e4 B X:1-0/forfeit ~2500",
     {},
     {"B:result:1-0/forfeit", "match:0-1/forfeit", "A:result:0-1/partner-board"}},
    {"the arbiter's result decides even while another game's end waits for a simultaneous one",
     SMOTHER_READY,
     nullptr,
     "A m:d5c7 ~500 B X:1/2-1/2/flag ~2500",
     {},
     {"A:result:1-0/checkmate", "B:result:1/2-1/2/flag", "match:1/2-1/2/flag"}},
    {"a correction of a finished match: the match and the stopped game take the new result",
     nullptr,
     nullptr,
     "A R:w ~2500 X:1-0/arbiter ~2500",
     {},
     {"A:result:0-1/resignation", "match:0-1/resignation", "B:result:1-0/partner-board",
      "A:result:1-0/arbiter", "match:1-0/arbiter", "B:result:0-1/partner-board"}},
    {"a correction on the stopped board: the game that ended by itself keeps its result",
     nullptr,
     nullptr,
     "A R:w ~2500 B X:1/2-1/2/arbiter ~2500",
     {},
     {"A:result:0-1/resignation", "match:0-1/resignation", "B:result:1-0/partner-board",
      "B:result:1/2-1/2/arbiter", "match:1/2-1/2/arbiter"}},
    // ---- FQE 23: a team stops both clocks and calls the arbiter ----
    {"both clocks stopped pause the match: no flag falls, play resumes when a clock runs",
     nullptr,
     nullptr,
     "A m:e2e4 || B || !L ~2500 > A > m:e7e5 ~2500",
     {},
     {"B:match-paused", "B:match-resumed", "A:move:e7e5", "B:moves=0"}},
    {"one clock stopped is no pause: a flag on the other board still falls",
     nullptr,
     nullptr,
     "A m:e2e4 || B !R ~2500",
     {},
     {"B:result:1-0/flag", "match:0-1/flag", "A:result:0-1/partner-board"}},
    {"the match resumed: a flag falls again",
     nullptr,
     nullptr,
     "A m:e2e4 || B || ~1000 > ~100 !R ~2500",
     {},
     {"B:match-paused", "B:match-resumed", "B:result:1-0/flag", "match:0-1/flag",
      "A:result:0-1/partner-board"}},
    {"draw agreed by both teams",
     nullptr,
     nullptr,
     "A m:e2e4 D",
     {},
     {"match:1/2-1/2/agreement", "A:result:1/2-1/2/agreement", "B:result:1/2-1/2/agreement"}},

    // ---- crazyhouse: one board, captures fill the capturer's own reserve ----
    {"crazyhouse: the capturer drops the captured piece",
     "4k3/8/8/3p4/4P3/8/8/4K3[] w - - 0 1",
     nullptr,
     "m:e4d5 m:e8d7 m:P@e4",
     {},
     {"A:move:P@e4"},
     "fide-standard",
     "",
     true},
    {"crazyhouse: a drop the reserve does not hold",
     "4k3/8/8/8/8/8/8/4K3[] w - - 0 1",
     nullptr,
     "m:N@e4",
     {"A:illegal-move/drop-not-in-reserve"},
     {},
     "fide-standard",
     "",
     true},
    {"crazyhouse: a drop from the reserve after a capture by the opponent",
     "4k3/8/8/3p4/4P3/8/8/4K3[] b - - 0 1",
     nullptr,
     "m:d5e4 m:e1d2 m:P@d4",
     {},
     {"A:move:P@d4"},
     "fide-standard",
     "",
     true},
};

}  // namespace

class BughouseScenarios : public ::testing::TestWithParam<Scenario> {};

TEST_P(BughouseScenarios, ExactlyTheExpectedAlerts) {
  const Scenario& sc = GetParam();
  Outcomes run = play(sc);
  EXPECT_EQ(run.alerts, sc.alerts) << sc.name;
  std::vector<std::string> expected_others;
  for (const auto& o : sc.others) {
    std::string board = o.substr(0, o.find(':'));
    std::string rest = o.substr(o.find(':') + 1);
    if (rest.rfind("move:", 0) == 0) {
      const auto& moves = run.moves[board];
      ASSERT_FALSE(moves.empty()) << sc.name << ": no move on " << board;
      EXPECT_EQ(moves.back(), rest.substr(5)) << sc.name;
    } else if (rest.rfind("moves=", 0) == 0) {
      EXPECT_EQ(run.moves[board].size(), std::stoul(rest.substr(6))) << sc.name;
    } else {
      expected_others.push_back(o);
    }
  }
  EXPECT_EQ(run.others, expected_others) << sc.name;
  if (*sc.extra) {
    ASSERT_FALSE(run.alert_events.empty());
    const AlertEvent& a = run.alert_events.back();
    std::istringstream in(sc.extra);
    for (std::string kv; std::getline(in, kv, ';');) {
      std::string key = kv.substr(0, kv.find('=')), value = kv.substr(kv.find('=') + 1);
      bool found = false;
      for (const auto& f : a.extra)
        if (f.name == key) {
          EXPECT_EQ(f.value, value) << sc.name << " field " << key;
          found = true;
        }
      EXPECT_TRUE(found) << sc.name << ": no field " << key;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fqe, BughouseScenarios, ::testing::ValuesIn(SCENARIOS),
                         [](const ::testing::TestParamInfo<Scenario>& p) {
                           std::string n;
                           for (char c : std::string(p.param.name))
                             n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

TEST(BughouseScenarios, AtLeastThirtyScenarios) { EXPECT_GE(std::size(SCENARIOS), 30u); }

// The match record: both boards' moves in the order they were completed, as BPGN.
TEST(BughouseMatch, RecordIsBpgnInCompletionOrder) {
  MatchConfig cfg;
  cfg.tags = {{"WhiteA", "Ann"}, {"BlackA", "Bob"}, {"WhiteB", "Cid"}, {"BlackB", "Dee"}};
  auto a = Position::from_fen(CAPTURE_READY, Variant::Bughouse);
  auto b = Position::from_fen(BLACK_TO_MOVE, Variant::Bughouse);
  ASSERT_TRUE(a && b);
  Match m(cfg, Game(*a), Game(*b));
  std::int64_t t = 0;
  auto feed = [&](int board, decltype(SensorEvent::what) what) {
    m.on_sensor(board, SensorEvent{t += 40, what});
  };
  feed(0, BoardSnapshot{a->board()});
  feed(1, BoardSnapshot{b->board()});
  ClockReading ca{300000, 300000, true, ClockSide::Left}, cb{300000, 300000, true, ClockSide::Right};
  feed(0, ca);
  feed(1, cb);
  feed(0, PieceLifted{parse_square("e4")});
  feed(0, PieceLifted{parse_square("d5")});
  feed(0, PiecePlaced{parse_square("d5"), W_PAWN});
  m.advance(t += 300);
  ca.lever_up = ClockSide::Right;
  ca.left_ms = 295000;
  feed(0, ca);
  m.advance(t += 300);
  EXPECT_EQ(m.reserve(1, BLACK, PAWN), 1);
  feed(1, PiecePlaced{parse_square("e5"), B_PAWN});
  m.advance(t += 300);
  cb.lever_up = ClockSide::Left;
  cb.right_ms = 291500;
  feed(1, cb);
  m.advance(t += 1000);
  EXPECT_EQ(m.reserve(1, BLACK, PAWN), 0);
  auto text = write_bpgn(m.record());
  ASSERT_TRUE(text) << text.error();
  EXPECT_NE(text->find("[WhiteA \"Ann\"]"), std::string::npos) << *text;
  EXPECT_NE(text->find("[FENA "), std::string::npos) << *text;
  EXPECT_NE(text->find("2A. exd5{295.0} 1b. P@e5{291.5} *"), std::string::npos) << *text;
}

// FQE 23 at the edges: clocks standing still before the start are no pause; a flag read in the same
// reading that stops the last running clock fell before the pause and counts.
TEST(BughouseMatch, PauseOnlyOnceTheClocksRanAndNotOverAFlagThatStoppedAClock) {
  Match m{MatchConfig{}};
  std::int64_t t = 0;
  std::vector<std::string> types;
  auto feed = [&](int board, decltype(SensorEvent::what) what) {
    for (const auto& e : m.on_sensor(board, SensorEvent{t += 40, what})) types.push_back(event_type(e));
  };
  const Position start = Position::start(Variant::Bughouse);
  feed(0, BoardSnapshot{start.board()});
  feed(1, BoardSnapshot{start.board()});
  ClockReading ca{300000, 300000, false, ClockSide::Left}, cb{300000, 300000, false, ClockSide::Left};
  feed(0, ca);
  feed(1, cb);
  EXPECT_FALSE(m.paused());
  ca.running = cb.running = true;
  feed(0, ca);
  feed(1, cb);
  ca.running = false;
  feed(0, ca);
  EXPECT_FALSE(m.paused());
  cb.running = false;
  cb.left_flag = true;
  cb.left_ms = 0;
  feed(1, cb);
  m.advance(t += 3000);
  EXPECT_FALSE(m.paused());
  ASSERT_TRUE(m.result().has_value());
  EXPECT_EQ(m.result()->reason, "flag");
  EXPECT_EQ(std::count(types.begin(), types.end(), std::string("match-paused")), 0);
}
