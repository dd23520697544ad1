// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/notation.hpp"

#include <cctype>
#include <optional>
#include <vector>

#include "rules/movegen.hpp"

namespace eboard::rules {

namespace {

constexpr std::string_view ENGLISH_LETTERS = " PNBRQK";
constexpr std::string_view FRENCH_LETTERS = " PCFTDR";

std::string_view letters(Language language) {
  return language == Language::French ? FRENCH_LETTERS : ENGLISH_LETTERS;
}

// The piece type of an uppercase letter in `language`; NO_PIECE_TYPE for anything else.
PieceType piece_from_letter(char c, Language language) {
  if (c == ' ') return NO_PIECE_TYPE;
  auto at = letters(language).find(c);
  return at == std::string_view::npos ? NO_PIECE_TYPE : PieceType(at);
}

char upper(char c) { return char(std::toupper(static_cast<unsigned char>(c))); }
char lower(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }
bool is_file(char c) { return c >= 'a' && c <= 'h'; }
bool is_rank(char c) { return c >= '1' && c <= '8'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_king_side(Move castling) { return castling.to() > castling.from(); }

// Where the king lands, for any move: castling is stored as king → rook.
Square king_destination(const Position& pos, Move m) {
  return m.kind() == Move::CASTLING ? Position::castle_king_to(pos.side_to_move(), is_king_side(m)) : m.to();
}

tl::unexpected<std::string> san_error(std::string_view kind, std::string_view text, std::string_view why) {
  return tl::unexpected(std::string(kind) + " SAN '" + shown_text(text) + "': " + std::string(why));
}

// What a SAN string says about its move; unset fields were not written.
struct SanPattern {
  PieceType piece = PAWN;
  int from_file = -1;
  int from_rank = -1;
  Square to = SQ_NONE;
  PieceType promotion = NO_PIECE_TYPE;
};

// Splits a piece move or pawn move (not castling, not a drop) into its parts. `lowercase_piece` reads a
// lowercase first letter as a piece letter instead of a file (the `bxc3` pawn-or-bishop question).
std::optional<SanPattern> parse_pattern(std::string_view s, Language language, bool lowercase_piece) {
  SanPattern p;
  std::size_t begin = 0, end = s.size();
  if (end == 0) return std::nullopt;
  char first = s[0];
  if (PieceType t = piece_from_letter(first, language); t != NO_PIECE_TYPE && t != PAWN) {
    p.piece = t;
    begin = 1;
  } else if (lowercase_piece && std::islower(static_cast<unsigned char>(first))) {
    PieceType lt = piece_from_letter(upper(first), language);
    if (lt == NO_PIECE_TYPE || lt == PAWN) return std::nullopt;
    p.piece = lt;
    begin = 1;
  } else if (first == 'P' && end >= 3) {
    begin = 1;  // "Pe4": an explicit pawn letter, seen in old and machine-written files
  }
  // The promotion, at the end: e8=Q, e8Q, e8(Q), e8/Q, e8q.
  if (end - begin >= 5 && s[end - 1] == ')' && s[end - 3] == '(') {
    p.promotion = piece_from_letter(upper(s[end - 2]), language);
    if (p.promotion == NO_PIECE_TYPE) return std::nullopt;
    end -= 3;
  } else if (end - begin >= 3 && std::isalpha(static_cast<unsigned char>(s[end - 1])) &&
             (s[end - 2] == '=' || s[end - 2] == '/' || is_rank(s[end - 2]))) {
    p.promotion = piece_from_letter(upper(s[end - 1]), language);
    if (p.promotion == NO_PIECE_TYPE) return std::nullopt;
    --end;
    if (s[end - 1] == '=' || s[end - 1] == '/') --end;
  }
  if (p.promotion == PAWN || p.promotion == KING) return std::nullopt;
  // The squares, with capture marks and the long-algebraic dash left out.
  std::string squares;
  for (std::size_t i = begin; i < end; ++i) {
    char c = s[i];
    if (c == 'x' || c == 'X' || c == ':' || c == '-') continue;
    if (!is_file(c) && !is_rank(c)) return std::nullopt;
    squares += c;
  }
  if (squares.size() < 2 || squares.size() > 4) return std::nullopt;
  std::size_t n = squares.size();
  if (!is_file(squares[n - 2]) || !is_rank(squares[n - 1])) return std::nullopt;
  p.to = make_square(squares[n - 2] - 'a', squares[n - 1] - '1');
  std::string_view from(squares.data(), n - 2);
  if (from.size() == 2) {
    if (!is_file(from[0]) || !is_rank(from[1])) return std::nullopt;
    p.from_file = from[0] - 'a';
    p.from_rank = from[1] - '1';
  } else if (from.size() == 1 && is_file(from[0])) {
    p.from_file = from[0] - 'a';
  } else if (from.size() == 1) {
    p.from_rank = from[0] - '1';
  }
  return p;
}

std::string long_form(const Position& pos, Move m) {
  std::string s;
  PieceType t = type_of(pos.piece_on(m.from()));
  if (t != PAWN) s += piece_char(t);
  s += square_name(m.from()) + square_name(m.to());
  if (m.is_promotion()) s += piece_char(m.promotion_type());
  return s;
}

// The legal moves that fit the pattern. `castle_by_destination` also takes a king move written to the
// king's castling square (`Kg1` for O-O), which is tried only when nothing else fits.
std::vector<Move> matching_moves(const Position& pos, const MoveList& moves, const SanPattern& p,
                                 bool castle_by_destination, bool& promotion_missing) {
  std::vector<Move> found;
  for (Move m : moves) {
    if (m.is_drop()) continue;
    if (type_of(pos.piece_on(m.from())) != p.piece) continue;
    Square target = castle_by_destination ? king_destination(pos, m) : m.to();
    if (castle_by_destination && m.kind() != Move::CASTLING) continue;
    if (target != p.to) continue;
    if (p.from_file >= 0 && file_of(m.from()) != p.from_file) continue;
    if (p.from_rank >= 0 && rank_of(m.from()) != p.from_rank) continue;
    // A pawn capture names its file; without one only the straight push fits ("d5" is never "cxd5").
    if (p.piece == PAWN && p.from_file < 0 && file_of(m.from()) != file_of(m.to())) continue;
    if (m.is_promotion() != (p.promotion != NO_PIECE_TYPE)) {
      if (m.is_promotion()) promotion_missing = true;
      continue;
    }
    if (m.is_promotion() && m.promotion_type() != p.promotion) continue;
    found.push_back(m);
  }
  return found;
}

tl::expected<Move, std::string> parse_castling(const Position& pos, std::string_view text, bool king_side) {
  for (Move m : MoveList(pos))
    if (m.kind() == Move::CASTLING && is_king_side(m) == king_side) return m;
  return san_error(
      "illegal", text,
      king_side ? "castling king side is not legal here" : "castling queen side is not legal here");
}

// O-O, 0-0, o-o (and the same with three): nullopt when `s` is not castling at all.
std::optional<bool> castling_side(std::string_view s) {
  int count = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (i % 2 == 1) {
      if (c != '-') return std::nullopt;
    } else if (c == 'O' || c == 'o' || c == '0') {
      ++count;
    } else {
      return std::nullopt;
    }
  }
  if (s.size() % 2 == 0) return std::nullopt;
  if (count == 2) return true;
  if (count == 3) return false;
  return std::nullopt;
}

tl::expected<Move, std::string> parse_drop(const Position& pos, std::string_view text, std::string_view s,
                                           std::size_t at, Language language) {
  PieceType t = PAWN;
  if (at == 1) {
    t = piece_from_letter(upper(s[0]), language);
    if (t == NO_PIECE_TYPE || t == KING) return san_error("bad", text, "unknown piece to drop");
  } else if (at != 0) {
    return san_error("bad", text, "not a move");
  }
  Square to = parse_square(s.substr(at + 1));
  if (to == SQ_NONE || s.size() != at + 3) return san_error("bad", text, "not a square after '@'");
  if (!has_drops(pos.variant())) return san_error("illegal", text, "no drops in this variant");
  Move m = Move::drop(t, to);
  if (!MoveList(pos).contains(m)) {
    if (pos.pocket(pos.side_to_move(), t) == 0)
      return san_error("illegal", text, std::string("no ") + piece_name(t) + " in hand");
    return san_error("illegal", text, "cannot drop there");
  }
  return m;
}

}  // namespace

char piece_letter(PieceType t, Language language) { return letters(language)[t]; }

const char* piece_name(PieceType t) {
  static const char* const names[] = {"", "pawn", "knight", "bishop", "rook", "queen", "king"};
  return names[t];
}

std::string to_long_algebraic(const Position& before, Move m, Language language) {
  if (m.is_none() || m.is_drop()) return to_san(before, m);
  Piece pc = before.piece_on(m.from());
  std::string s;
  if (pc != NO_PIECE && type_of(pc) != PAWN) s += letters(language)[type_of(pc)];
  s += square_name(m.from());
  s += before.empty(m.to()) ? '-' : 'x';
  s += square_name(m.to());
  if (auto after = before.after_illegal_move(m.from(), m.to()); after && after->in_check()) s += '+';
  return s;
}

std::string shown_text(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 32)) out += (static_cast<unsigned char>(c) < 32 || c == 127) ? '?' : c;
  if (text.size() > 32) out += "...";
  return out;
}

std::string to_uci(const Position& pos, Move m) {
  if (m.is_none()) return "0000";
  if (m.is_drop()) return std::string(1, piece_char(m.drop_type())) + '@' + square_name(m.to());
  Square to = pos.chess960() ? m.to() : king_destination(pos, m);
  std::string s = square_name(m.from()) + square_name(to);
  if (m.is_promotion()) s += lower(piece_char(m.promotion_type()));
  return s;
}

tl::expected<Move, std::string> parse_uci(const Position& pos, std::string_view text) {
  std::string_view s = trim(text);
  auto bad = [&](std::string_view why) {
    return tl::unexpected("bad UCI move '" + shown_text(text) + "': " + std::string(why));
  };
  MoveList moves(pos);
  if (auto at = s.find('@'); at != std::string_view::npos) {
    PieceType t = at == 0 ? PAWN : at == 1 ? piece_type_from_char(s[0]) : NO_PIECE_TYPE;
    Square to = parse_square(s.substr(at + 1));
    if (t == NO_PIECE_TYPE || t == KING || to == SQ_NONE || s.size() != at + 3) return bad("not a drop");
    Move m = Move::drop(t, to);
    if (!moves.contains(m)) return bad("illegal drop");
    return m;
  }
  if (s.size() != 4 && s.size() != 5) return bad("not a move");
  Square from = parse_square(s.substr(0, 2)), to = parse_square(s.substr(2, 2));
  if (from == SQ_NONE || to == SQ_NONE) return bad("not a move");
  PieceType promo = NO_PIECE_TYPE;
  if (s.size() == 5) {
    promo = piece_type_from_char(s[4]);
    if (promo == NO_PIECE_TYPE || promo == PAWN || promo == KING) return bad("bad promotion piece");
  }
  auto promo_fits = [&](Move m) {
    return m.is_promotion() ? m.promotion_type() == promo : promo == NO_PIECE_TYPE;
  };
  for (Move m : moves)
    if (!m.is_drop() && m.from() == from && m.to() == to && promo_fits(m)) return m;
  // Castling written king-from → king-destination (the standard-chess style), in any position.
  for (Move m : moves)
    if (m.kind() == Move::CASTLING && m.from() == from && king_destination(pos, m) == to &&
        promo == NO_PIECE_TYPE)
      return m;
  return bad("illegal move");
}

std::string to_san(const Position& pos, Move m, const SanOptions& options) {
  if (m.is_none()) return "--";
  std::string s;
  std::string_view alphabet = letters(options.language);
  if (m.kind() == Move::CASTLING) {
    s = is_king_side(m) ? "O-O" : "O-O-O";
  } else if (m.is_drop()) {
    s += alphabet[m.drop_type()];
    s += '@';
    s += square_name(m.to());
  } else {
    Square from = m.from(), to = m.to();
    PieceType t = type_of(pos.piece_on(from));
    bool capture = pos.is_capture(m);
    if (t == PAWN) {
      if (capture) s += char('a' + file_of(from));
    } else {
      s += alphabet[t];
      // Disambiguate against the other legal moves of the same piece type to the same square.
      Bitboard rivals = 0;
      for (Move x : MoveList(pos))
        if (!x.is_drop() && x.kind() != Move::CASTLING && x.to() == to && x.from() != from &&
            type_of(pos.piece_on(x.from())) == t)
          rivals |= square_bb(x.from());
      if (rivals) {
        if (!(rivals & file_bb(file_of(from))))
          s += char('a' + file_of(from));
        else if (!(rivals & rank_bb(rank_of(from))))
          s += char('1' + rank_of(from));
        else
          s += square_name(from);
      }
    }
    if (capture) s += 'x';
    s += square_name(to);
    if (m.is_promotion()) {
      s += '=';
      s += alphabet[m.promotion_type()];
    }
  }
  // Copy rather than do/undo on `pos`: the caller's position may really be const.
  Position after = pos;
  after.do_move(m);
  if (after.in_check()) {
    bool mate = false;
    if (options.mate_suffix) mate = options.is_mate ? options.is_mate(after) : MoveList(after).empty();
    s += mate ? '#' : '+';
  }
  return s;
}

tl::expected<Move, std::string> parse_san(const Position& pos, std::string_view text, Language language) {
  std::string_view s = trim(text);
  // Annotations and check marks say nothing about which move it is.
  for (bool again = true; again;) {
    again = false;
    while (!s.empty() && (s.back() == '+' || s.back() == '#' || s.back() == '!' || s.back() == '?')) {
      s.remove_suffix(1);
      again = true;
    }
    for (std::string_view ep : {"e.p.", "ep"})
      if (s.size() > ep.size() + 1 && s.ends_with(ep)) {
        s.remove_suffix(ep.size());
        s = trim(s);
        again = true;
      }
  }
  if (s.empty()) return san_error("bad", text, "empty");
  if (auto side = castling_side(s)) return parse_castling(pos, text, *side);
  if (auto at = s.find_first_of("@*"); at != std::string_view::npos)
    return parse_drop(pos, text, s, at, language);

  MoveList moves(pos);
  bool promotion_missing = false;
  std::optional<SanPattern> pattern = parse_pattern(s, language, false);
  std::vector<Move> found;
  if (pattern) found = matching_moves(pos, moves, *pattern, false, promotion_missing);
  // A lowercase first letter was read as a file; if no pawn move fits, read it as a piece letter,
  // unless the text is square-to-square: "b8d7" is UCI for a knight, not a bishop from the 8th rank.
  bool square_to_square = s.size() >= 4 && is_file(s[0]) && is_rank(s[1]) && is_file(s[2]) && is_rank(s[3]);
  if (found.empty() && std::islower(static_cast<unsigned char>(s[0])) && !square_to_square) {
    if (auto as_piece = parse_pattern(s, language, true)) {
      std::vector<Move> piece_moves = matching_moves(pos, moves, *as_piece, false, promotion_missing);
      if (!piece_moves.empty() || !pattern) {
        pattern = as_piece;
        found = std::move(piece_moves);
      }
    }
  }
  if (!pattern) return san_error("bad", text, "not a move");
  if (found.empty() && pattern->piece == KING)
    found = matching_moves(pos, moves, *pattern, true, promotion_missing);
  if (found.size() == 1) return found.front();
  if (found.empty()) {
    if (promotion_missing) return san_error("illegal", text, "the promotion piece is missing");
    return san_error(
        "illegal", text,
        std::string("no legal ") + piece_name(pattern->piece) + " move to " + square_name(pattern->to));
  }
  std::string list;
  for (Move m : found) list += (list.empty() ? "" : ", ") + long_form(pos, m);
  return san_error("ambiguous", text, list);
}

}  // namespace eboard::rules
