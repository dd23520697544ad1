// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Irregularity scenarios written from RULES.md §1: each a short script of sensor and clock events and
// exactly the alerts (and results, claims, moves) it must produce — nothing more.
//
// Script language, one token per step (each step is 40 ms after the previous one):
//   -e2      lift the piece on e2             +e4P     set a white pawn on e4 (lowercase: black)
//   m:e2e4   lift e2, lift the victim if any, set the piece on e4, settle, press the clock
//   .        the player whose side is up presses (after an illegal move, a second press is the
//            arbiter or opponent handing the turn back)      ~1500    let 1500 ms pass
//   !L / !R  the left / right flag falls
// Every script starts with the position on the board and the clock started for the side to move
// (White on the left).
#include <gtest/gtest.h>

#include <sstream>

#include "rules/reconstruct.hpp"

using namespace eboard::rules;

namespace {

struct Scenario {
  const char* name;
  const char* fen;  // nullptr: the standard start
  const char* script;
  std::vector<std::string> alerts;  // "code" or "code/reason"
  std::vector<std::string> others;  // "result:1-0/checkmate", "claimable:threefold", "move:e2e4" (last move)
  const char* profile = "fide-standard";
  bool chess960 = false;
  const char* extra = "";  // "count=2", "penalty=loss" … checked on the last alert
  // When set: every move event in order, as UCI, an illegal move that stood (A.4.2) marked "!".
  const char* moves = nullptr;
};

Piece piece_of(char c) {
  PieceType t = piece_type_from_char(c);
  return make_piece(std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK, t);
}

struct Outcomes {
  std::vector<std::string> alerts, others;
  std::vector<AlertEvent> alert_events;
  std::vector<std::string> moves;
  std::string all_moves;  // "b1b3! e7e5": every move event, illegal ones marked
};

Outcomes play(const Scenario& sc) {
  ReconstructConfig cfg;
  cfg.profile = *profile_by_name(sc.profile);
  cfg.chess960 = sc.chess960;
  cfg.mismatch_ms = 3000;
  Outcomes run;
  auto parsed = Position::from_fen(sc.fen ? sc.fen : START_FEN, cfg.profile.variant, sc.chess960);
  if (!parsed) {
    ADD_FAILURE() << sc.name << ": " << parsed.error();
    return run;
  }
  Position start = *parsed;
  Reconstructor r(cfg, Game(start));
  std::int64_t t = 0;
  auto collect = [&run](std::vector<Event> evs) {
    for (const auto& e : evs) {
      if (auto* a = std::get_if<AlertEvent>(&e.what)) {
        std::string reason;
        for (const auto& f : a->extra)
          if (f.name == "reason") reason = f.value;
        run.alerts.push_back(reason.empty() ? a->code : a->code + "/" + reason);
        run.alert_events.push_back(*a);
      } else if (auto* res = std::get_if<ResultEvent>(&e.what)) {
        run.others.push_back("result:" + result_string(res->result) + "/" + res->reason);
      } else if (auto* c = std::get_if<ClaimableEvent>(&e.what)) {
        run.others.push_back("claimable:" + c->rule);
      } else if (auto* m = std::get_if<MoveEvent>(&e.what)) {
        run.moves.push_back(m->uci);
        run.all_moves += (run.all_moves.empty() ? "" : " ") + m->uci + (m->illegal ? "!" : "");
      }
    }
  };
  ClockReading clock{300000, 300000, true,
                     start.side_to_move() == WHITE ? ClockSide::Left : ClockSide::Right};
  auto feed = [&](decltype(SensorEvent::what) what) {
    t += 40;
    collect(r.on_sensor(SensorEvent{t, what}));
  };
  feed(BoardSnapshot{start.board()});
  feed(clock);
  auto press = [&] {
    clock.lever_up = clock.lever_up == ClockSide::Left ? ClockSide::Right : ClockSide::Left;
    feed(clock);
  };
  auto wait = [&](std::int64_t ms) {
    t += ms;
    collect(r.advance(t));
  };
  std::istringstream in(sc.script);
  for (std::string tok; in >> tok;) {
    if (tok == ".") {
      press();
    } else if (tok[0] == '~') {
      wait(std::stoll(tok.substr(1)));
    } else if (tok == "!L" || tok == "!R") {
      (tok == "!L" ? clock.left_flag : clock.right_flag) = true;
      (tok == "!L" ? clock.left_ms : clock.right_ms) = 0;
      feed(clock);
    } else if (tok[0] == '-') {
      feed(PieceLifted{parse_square(tok.substr(1, 2))});
    } else if (tok[0] == '+') {
      feed(PiecePlaced{parse_square(tok.substr(1, 2)), piece_of(tok[3])});
    } else if (tok.rfind("m:", 0) == 0) {
      Square from = parse_square(tok.substr(2, 2)), to = parse_square(tok.substr(4, 2));
      Piece p = r.physical()[from];
      if (tok.size() > 6) p = make_piece(color_of(p), piece_type_from_char(tok[6]));
      feed(PieceLifted{from});
      if (r.physical()[to] != NO_PIECE) feed(PieceLifted{to});
      feed(PiecePlaced{to, p});
      wait(300);
      press();
    } else {
      ADD_FAILURE() << sc.name << ": bad token " << tok;
    }
  }
  wait(300);
  return run;
}

const Scenario SCENARIOS[] = {
    // ---- clean play: no alert at all ----
    {"clean opening", nullptr, "m:e2e4 m:e7e5 m:g1f3 m:b8c6", {}, {}},
    {"capture victim first", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "-d5 -e4 +d5P ~300 .", {}, {}},
    {"capture mover first", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "-e4 -d5 +d5P ~300 .", {}, {}},
    {"castling king first",
     "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
     "-e1 +g1K -h1 +f1R ~300 .",
     {},
     {"move:e1g1"}},
    {"en passant, taken pawn removed last",
     "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
     "-e5 +d6P ~300 -d5 ~300 .",
     {},
     {"move:e5d6"}},
    {"en passant, taken pawn removed first",
     "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
     "-d5 -e5 +d6P ~300 .",
     {},
     {"move:e5d6"}},
    {"promotion with the queen swapped in",
     "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
     "-a7 +a8P -a8 +a8Q ~300 .",
     {},
     {"move:a7a8q"}},
    {"underpromotion to a knight", "4k3/P7/8/8/8/8/7p/4K3 w - - 0 1", "-a7 +a8N ~300 .", {}, {"move:a7a8n"}},
    {"slide across squares",
     "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
     "-a1 +a2R -a2 +a3R -a3 +a4R ~300 .",
     {},
     {"move:a1a4"}},
    {"short rest on the way is a slide",
     "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
     "-a1 +a3R ~600 -a3 +a6R ~300 .",
     {},
     {"move:a1a6"}},
    {"piece knocked over while moving", nullptr, "-g1 -f2 +f2P +f3N ~300 .", {}, {"move:g1f3"}},
    {"piece knocked just before the move, same scan", nullptr, "-f2 -g1 +f2P +f3N ~300 .", {}, {"move:g1f3"}},
    {"bounce on the target square", nullptr, "-e2 +e4P -e4 +e4P ~300 .", {}, {"move:e2e4"}},
    {"captured piece set down elsewhere for a moment",
     "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",
     "-e4 -d5 +d5P +h3p ~200 -h3 ~300 .",
     {},
     {"move:e4d5"}},
    {"holding a piece for a long time is no mismatch", nullptr, "-e2 ~10000 +e4P ~300 .", {}, {"move:e2e4"}},
    {"touching an own piece that cannot move", nullptr, "-a1 +a1R m:e2e4", {}, {"move:e2e4"}},
    {"touching an enemy piece that cannot be taken", nullptr, "-e7 +e7p m:e2e4", {}, {"move:e2e4"}},
    {"missed press recovered from two moves",
     nullptr,
     "m:e2e4 -e7 +e5p ~300 -g1 +f3N ~300 .",
     {},
     {"move:e7e5"}},
    {"opponent lifts before the press is read", nullptr, "-e2 +e4P -e7 . +e5p ~300 .", {}, {"move:e7e5"}},

    // ---- touch-move (4.3, 4.4) ----
    {"own piece touched first, another moved",
     nullptr,
     "-g1 +g1N ~500 m:e2e4",
     {"touch-move/own-piece-not-moved"},
     {"move:e2e4"}},
    {"enemy piece touched, could be taken, not taken",
     "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",
     "-d5 +d5p ~500 m:e4e5",
     {"touch-move/opponent-piece-not-taken"},
     {}},
    {"rook touched before the king, then castled",
     "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
     "-h1 +f1R ~500 -e1 +g1K ~300 .",
     {"touch-move/rook-before-king"},
     {"move:e1g1"}},
    {"both rules broken: own and enemy piece",
     "4k3/8/8/3p4/4P3/8/8/R3K3 w - - 0 1",
     "-d5 +d5p ~500 -a1 +a1R ~500 m:e4e5",
     {"touch-move/opponent-piece-not-taken", "touch-move/own-piece-not-moved"},
     {}},
    {"change of mind after setting a piece down",
     nullptr,
     "-e2 +e4P -e4 +e2P ~500 m:d2d4",
     {"touch-move/own-piece-not-moved"},
     {"move:d2d4"}},

    // ---- released piece (4.7) ----
    {"piece released on a legal square, then moved on",
     "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
     "-a1 +a3R ~1500 -a3 +a6R ~300 .",
     {"released-piece-moved"},
     {"move:a1a6"}},
    {"released then taken back and another move",
     nullptr,
     "-e2 +e4P ~1500 -e4 +e2P ~500 m:d2d4",
     {"released-piece-moved", "touch-move/own-piece-not-moved"},
     {"move:d2d4"}},

    // ---- illegal moves (7.5) ----
    {"impossible move completed", nullptr, "-b1 +b3N ~300 .", {"illegal-move/impossible-move"}, {}},
    {"move leaving the king in check",
     "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
     "-e2 +d3B ~300 .",
     {"illegal-move/king-left-in-check"},
     {}},
    {"second illegal move by the same player",
     nullptr,
     "-b1 +b3N ~300 . ~500 -b3 +b1N ~300 . -g1 +g3N ~300 .",
     {"illegal-move/impossible-move", "illegal-move/impossible-move"},
     {},
     "fide-standard",
     false,
     "count=2;penalty=loss"},
    {"first illegal move: two minutes to the opponent",
     nullptr,
     "-b1 +b3N ~300 .",
     {"illegal-move/impossible-move"},
     {},
     "fide-standard",
     false,
     "count=1;penalty=+2 min to the opponent"},
    {"blitz: one minute, if claimed",
     nullptr,
     "-b1 +b3N ~300 .",
     {"illegal-move/impossible-move"},
     {},
     "fide-blitz",
     false,
     "penalty=+1 min to the opponent if claimed before the opponent moves"},
    {"rapid: two minutes, if claimed",
     nullptr,
     "-b1 +b3N ~300 .",
     {"illegal-move/impossible-move"},
     {},
     "fide-rapid",
     false,
     "penalty=+2 min to the opponent if claimed before the opponent moves"},
    {"second illegal move against a bare king is a draw",
     "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
     "-d1 +a5Q ~300 . ~500 -a5 +d1Q ~300 . -d1 +b7Q ~300 .",
     {"illegal-move/impossible-move", "illegal-move/impossible-move"},
     {},
     "fide-standard",
     false,
     "count=2;penalty=draw (the opponent cannot mate)"},
    {"illegal move shown, corrected before the press",
     nullptr,
     "-b1 +b3N ~1200 -b3 +c3N ~300 .",
     {"illegal-move-corrected"},
     {"move:b1c3"}},
    {"pawn left on the last rank when pressing",
     "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
     "-a7 +a8P ~300 .",
     {"illegal-move/promotion-not-completed"},
     {"move:a7a8q"}},
    {"clock pressed without a move",
     nullptr,
     "m:e2e4 .",
     {"clock-without-move/clock-without-move"},
     {},
     "fide-standard",
     false,
     "count=1"},
    {"press without move then illegal move: second offence",
     nullptr,
     ". ~500 . -b1 +b3N ~300 .",
     {"clock-without-move/clock-without-move", "illegal-move/impossible-move"},
     {},
     "fide-standard",
     false,
     "count=2;penalty=loss"},
    // 7.5.1: 4.3 applies to the move replacing the illegal one: the knight must move if it can.
    {"illegal position after an illegal move is put back, another piece moves",
     nullptr,
     "-b1 +b3N ~300 . ~500 -b3 +b1N ~300 . m:e2e4",
     {"illegal-move/impossible-move", "same-piece-required"},
     {"move:e2e4"}},
    {"the move replacing an illegal one made with the same piece",
     nullptr,
     "-b1 +b3N ~300 . ~500 -b3 +b1N ~300 . m:b1c3",
     {"illegal-move/impossible-move"},
     {"move:b1c3"}},
    {"the piece of the illegal move cannot move: another piece replaces it",
     "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
     "-e2 +d3B ~300 . ~500 -d3 +e2B ~300 . m:e1d1",
     {"illegal-move/king-left-in-check"},
     {"move:e1d1"}},
    {"the replacing move made without putting the illegal one back first",
     nullptr,
     "-b1 +b3N ~300 . ~500 -b3 +b1N -e2 +e4P ~300 .",
     {"illegal-move/impossible-move", "same-piece-required"},
     {"move:e2e4"}},
    {"rapid: an illegal move claimed and put back, another piece moves",
     nullptr,
     "-b1 +b3N ~300 . ~500 -b3 +b1N ~300 . m:e2e4",
     {"illegal-move/impossible-move", "same-piece-required"},
     {"move:e2e4"},
     "fide-rapid"},

    // ---- Annex A.4.2 (rapid, blitz): an illegal move stands unless claimed before the opponent moves ----
    {"blitz: the opponent replies from the illegal position, the illegal move stands",
     nullptr,
     "-b1 +b3N ~300 . ~500 m:e7e5 ~4000 m:b3c5 ~4000",
     {"illegal-move/impossible-move"},
     {"move:b3c5"},
     "fide-blitz",
     false,
     "count=1;penalty=+1 min to the opponent if claimed before the opponent moves",
     "b1b3! e7e5 b3c5"},
    {"rapid: the opponent replies from the illegal position, the illegal move stands",
     nullptr,
     "-b1 +b3N ~300 . ~500 m:e7e5 ~4000",
     {"illegal-move/impossible-move"},
     {"move:e7e5"},
     "fide-rapid",
     false,
     "",
     "b1b3! e7e5"},
    {"blitz: the reply placed only after the opponent's press was read",
     nullptr,
     "-b1 +b3N ~300 . ~500 -e7 . +e5p ~4000",
     {"illegal-move/impossible-move"},
     {"move:e7e5"},
     "fide-blitz",
     false,
     "",
     "b1b3! e7e5"},
    {"blitz: the king left in check stands; the opponent plays on and the mover must answer the check",
     "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
     "-e2 +d3B ~300 . ~500 m:e8d8 ~500 m:e1d1 ~4000",
     {"illegal-move/king-left-in-check"},
     {"move:e1d1"},
     "fide-blitz",
     false,
     "",
     "e2d3! e8d8 e1d1"},
    {"blitz: the king left in check cannot be taken; taking it is no reply",
     "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
     "-e2 +d3B ~300 . ~500 -e1 -e7 +e1r ~300 . ~4000",
     {"illegal-move/king-left-in-check", "position-mismatch"},
     {},
     "fide-blitz",
     false,
     "",
     ""},
    {"blitz: illegal move put back (a claim upheld), the mover plays again",
     nullptr,
     "-b1 +b3N ~300 . ~500 -b3 +b1N ~300 . m:b1c3 m:e7e5",
     {"illegal-move/impossible-move"},
     {"move:e7e5"},
     "fide-blitz",
     false,
     "",
     "b1c3 e7e5"},
    {"blitz: illegal move put back, the mover plays another piece (7.5.1, 4.3)",
     nullptr,
     "-b1 +b3N ~300 . ~500 -b3 +b1N ~300 . m:e2e4 m:e7e5",
     {"illegal-move/impossible-move", "same-piece-required"},
     {"move:e7e5"},
     "fide-blitz",
     false,
     "",
     "e2e4 e7e5"},
    {"blitz: the turn handed back with the illegal move still on the board, then corrected",
     nullptr,
     "-b1 +b3N ~300 . ~1500 . ~500 -b3 +c3N ~300 . ~4000",
     {"illegal-move/impossible-move", "illegal-move-corrected"},
     {"move:b1c3"},
     "fide-blitz",
     false,
     "",
     "b1c3"},
    {"blitz: a press without a move stands as a pass when the opponent plays on (A.4.2, 7.5.3)",
     nullptr,
     "m:e2e4 . ~500 m:g1f3 ~4000",
     {"clock-without-move/clock-without-move"},
     {"move:g1f3"},
     "fide-blitz",
     false,
     "",
     "e2e4 0000! g1f3"},
    {"blitz: after a press without a move the opponent touches a piece, puts it back, then plays on",
     nullptr,
     "m:e2e4 . ~500 -g1 +g1N ~400 m:g1f3 ~4000",
     {"clock-without-move/clock-without-move"},
     {"move:g1f3"},
     "fide-blitz",
     false,
     "",
     "e2e4 0000! g1f3"},
    {"rapid: a press without a move, the turn handed back, the mover moves: no pass",
     nullptr,
     "m:e2e4 . ~500 . m:e7e5 ~4000",
     {"clock-without-move/clock-without-move"},
     {"move:e7e5"},
     "fide-rapid",
     false,
     "",
     "e2e4 e7e5"},
    // ---- Annex A.4.4: an illegal position still on the board after the next move: draw ----
    {"blitz: the pawn left on the last rank, the opponent moves: drawn (A.4.4)",
     "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
     "-a7 +a8P ~300 . ~500 m:e8d7 ~4000",
     {"illegal-move/promotion-not-completed"},
     {"result:1/2-1/2/illegal-position", "move:e8d7"},
     "fide-blitz",
     false,
     "",
     "a7a8q e8d7"},
    {"rapid: the pawn replaced by a queen before the next move: the game goes on",
     "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
     "-a7 +a8P ~300 . ~500 -a8 +a8Q ~300 m:e8d7 m:a8a1 ~4000",
     {"illegal-move/promotion-not-completed"},
     {"move:a8a1"},
     "fide-rapid",
     false,
     "",
     "a7a8q e8d7 a8a1"},
    {"blitz: the pawn on the last rank taken by the next move: the game goes on",
     "8/Pk6/8/8/8/8/8/4K2R w - - 0 1",
     "-a7 +a8P ~300 . ~500 m:b7a8 m:e1e2 ~4000",
     {"illegal-move/promotion-not-completed"},
     {"move:e1e2"},
     "fide-blitz",
     false,
     "",
     "a7a8q b7a8 e1e2"},
    {"blitz: two kings in check after an illegal move stood, the reply ends one check: play goes on",
     "8/4r2k/8/8/8/8/4B3/4K3 w - - 0 1",
     "-e2 +d3B ~300 . ~500 m:h7h8 ~4000",
     {"illegal-move/king-left-in-check"},
     {"move:h7h8"},
     "fide-blitz",
     false,
     "",
     "e2d3! h7h8"},
    {"standard: a press without a move never stands (7.5.1)",
     nullptr,
     "m:e2e4 . ~500 m:g1f3 ~4000",
     {"clock-without-move/clock-without-move", "position-mismatch"},
     {},
     "fide-standard",
     false,
     "",
     "e2e4"},
    {"standard: the opponent replies from the illegal position, which is never adopted (7.5.1)",
     nullptr,
     "-b1 +b3N ~300 . ~500 m:e7e5 ~4000",
     {"illegal-move/impossible-move", "position-mismatch"},
     {},
     "fide-standard",
     false,
     "",
     ""},
    {"blitz: a second illegal move after the first one stood: count 2, loss if claimed",
     nullptr,
     "-b1 +b3N ~300 . ~500 m:e7e5 ~500 -b3 +b6N ~300 . ~500 m:g8f6 ~4000",
     {"illegal-move/impossible-move", "illegal-move/impossible-move"},
     {"move:g8f6"},
     "fide-blitz",
     false,
     "count=2;penalty=loss if claimed before the opponent moves",
     "b1b3! e7e5 b3b6! g8f6"},

    // ---- the board and the position ----
    {"a piece from nowhere: position mismatch", nullptr, "m:e2e4 +e5Q ~300 ~4000", {"position-mismatch"}, {}},
    {"mismatch is reported once and play resumes",
     nullptr,
     "m:e2e4 +e5Q ~300 ~4000 ~4000 -e5 ~300 m:e7e5",
     {"position-mismatch"},
     {"move:e7e5"}},

    {"king and queen swapped in the setup: setup-error, then the corrected setup plays",
     nullptr,
     "-d1 -e1 +d1K +e1Q ~4000 -d1 -e1 +d1Q +e1K ~300 m:e2e4",
     {"setup-error"},
     {"move:e2e4"}},
    {"Chess960 setup with both bishops on light squares: setup-error",
     nullptr,
     "-c1 -d1 +c1Q +d1B -c8 -d8 +c8q +d8b ~4000",
     {"setup-error"},
     {},
     "fide-standard",
     true},
    {"a wrong setup being fixed within the mismatch time raises nothing",
     nullptr,
     "-g8 -h8 +g8r +h8n ~1000 -g8 -h8 +g8n +h8r ~300 m:e2e4",
     {},
     {"move:e2e4"}},

    // ---- game end and claims ----
    {"mate completes without a press",
     nullptr,
     "m:f2f3 m:e7e5 m:g2g4 -d8 +h4q ~400",
     {},
     {"result:0-1/checkmate"}},
    {"stalemate", "7k/4Q3/6K1/8/8/8/8/8 w - - 0 1", "-e7 +f7Q ~400", {}, {"result:1/2-1/2/stalemate"}},
    {"insufficient material after a capture",
     "4k3/8/8/8/8/2n5/8/3RK3 b - - 0 1",
     "-d1 -c3 +d1n ~300 .",
     {},
     {"result:1/2-1/2/dead-position"}},
    {"threefold repetition is claimable",
     nullptr,
     "m:g1f3 m:g8f6 m:f3g1 m:f6g8 m:g1f3 m:g8f6 m:f3g1 m:f6g8",
     {},
     {"claimable:threefold"}},
    {"fivefold ends the game",
     nullptr,
     "m:g1f3 m:g8f6 m:f3g1 m:f6g8 m:g1f3 m:g8f6 m:f3g1 m:f6g8 m:g1f3 m:g8f6 m:f3g1 m:f6g8 m:g1f3 m:g8f6 "
     "m:f3g1 m:f6g8",
     {},
     // each of the four positions of the cycle is claimable at its third and fourth occurrence
     {"claimable:threefold", "claimable:threefold", "claimable:threefold", "claimable:threefold",
      "claimable:threefold", "claimable:threefold", "claimable:threefold", "claimable:threefold",
      "result:1/2-1/2/fivefold"}},
    {"fifty moves claimable", "4k3/8/8/8/8/8/8/R3K3 w - - 99 80", "m:a1a2", {}, {"claimable:fifty-moves"}},
    {"seventy-five moves end the game",
     "4k3/8/8/8/8/8/8/R3K3 w - - 149 120",
     "m:a1a2",
     {},
     {"result:1/2-1/2/seventy-five-moves"}},
    {"flag fall", nullptr, "m:e2e4 !R", {}, {"result:1-0/flag"}},
    {"flag fall against a bare king is a draw",
     "4k3/8/8/8/8/8/8/Q3K3 b - - 0 1",
     "m:e8d7 !L",
     {},
     {"result:1/2-1/2/flag"}},
    {"result gesture 1-0",
     nullptr,
     "m:e2e4 m:e7e5 -e4 -e1 +e4K -e8 -d7 +d5k ~400",
     {},
     {"result:1-0/board-gesture"}},
    {"result gesture 0-1",
     nullptr,
     "m:d2d4 m:e7e5 -d4 -e1 +d4K -e5 -e8 +e5k ~400",
     {},
     {"result:0-1/board-gesture"}},

    // ---- Chess960 ----
    {"960: king off the board, rook, king",
     "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
     "-e1 -g1 +f1R +g1K ~300 .",
     {},
     {"move:e1g1"},
     "fide-standard",
     true},
    {"960: castling where the king stays, king touched",
     "1rk2r2/pppppppp/8/8/8/8/PPPPPPPP/1RK2R2 w FBfb - 0 1",
     "-c1 +c1K -b1 +d1R ~300 .",
     {},
     {"move:c1b1"},
     "fide-standard",
     true},
    // No plain rook move can pass the king that stays, so moving only the rook is castling, with the rook
    // touched first (4.4.2; guideline II: touch the king first).
    {"960: castling by moving only the rook",
     "1rk2r2/pppppppp/8/8/8/8/PPPPPPPP/1RK2R2 w FBfb - 0 1",
     "-b1 +d1R ~300 .",
     {"touch-move/rook-before-king"},
     {"move:c1b1"},
     "fide-standard",
     true},
};

}  // namespace

class Scenarios : public ::testing::TestWithParam<Scenario> {};

TEST_P(Scenarios, ExactlyTheExpectedAlerts) {
  const Scenario& sc = GetParam();
  Outcomes run = play(sc);
  EXPECT_EQ(run.alerts, sc.alerts) << sc.name;
  // Results and claims must match exactly; moves are checked for the listed last move only.
  std::vector<std::string> others, expected_others;
  for (const auto& o : run.others) others.push_back(o);
  std::string last_move;
  for (const auto& o : sc.others)
    if (o.rfind("move:", 0) == 0)
      last_move = o.substr(5);
    else
      expected_others.push_back(o);
  EXPECT_EQ(others, expected_others) << sc.name;
  if (!last_move.empty()) {
    ASSERT_FALSE(run.moves.empty()) << sc.name;
    EXPECT_EQ(run.moves.back(), last_move) << sc.name;
  }
  if (sc.moves) {
    EXPECT_EQ(run.all_moves, sc.moves) << sc.name;
  }
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

INSTANTIATE_TEST_SUITE_P(Rules, Scenarios, ::testing::ValuesIn(SCENARIOS),
                         [](const ::testing::TestParamInfo<Scenario>& p) {
                           std::string n;
                           for (char c : std::string(p.param.name))
                             n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

TEST(Scenarios, AtLeastFortyIrregularityScenarios) { EXPECT_GE(std::size(SCENARIOS), 40u); }
