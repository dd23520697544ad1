// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/position.hpp"

#include <cctype>
#include <charconv>
#include <sstream>

#include "rules/movegen.hpp"

namespace eboard::rules {

namespace zobrist {
namespace {
struct Keys {
  Key psq[PIECE_NB][64];
  Key pocket[PIECE_NB][64];
  Key ep_file[8];
  Key castling[16];
  Key side;
  Keys() {
    std::uint64_t s = 1070372;
    auto next = [&s] {  // xorshift64*: deterministic keys
      s ^= s >> 12;
      s ^= s << 25;
      s ^= s >> 27;
      return s * 2685821657736338717ULL;
    };
    for (auto& row : psq)
      for (auto& k : row) k = next();
    for (auto& row : pocket) {
      row[0] = 0;  // an empty pocket contributes nothing, so chess positions hash as usual
      for (int i = 1; i < 64; ++i) row[i] = next();
    }
    for (auto& k : ep_file) k = next();
    for (auto& k : castling) k = next();
    side = next();
  }
};
const Keys keys;
}  // namespace
Key piece_square(Piece p, Square s) { return keys.psq[p][s]; }
Key pocket(Piece p, int count) { return keys.pocket[p][count & 63]; }
Key side() { return keys.side; }
Key ep_file(int f) { return keys.ep_file[f]; }
Key castling(int cr) { return keys.castling[cr]; }
}  // namespace zobrist

namespace {
// FIDE 9.2.3: positions are the same only if the same en-passant captures are possible, so the square is
// kept (and hashed) only when some en-passant capture is legal, not merely when a pawn stands next to it.
bool legal_en_passant_exists(const Position& pos, Square ep) {
  Color us = pos.side_to_move();
  Square capsq = Square(us == WHITE ? ep - 8 : ep + 8);
  Square ksq = pos.king_square(us);
  for (Bitboard b = pawn_attacks(~us, ep) & pos.pieces(us, PAWN); b;) {
    Square from = pop_lsb(b);
    Bitboard after = (pos.pieces() ^ square_bb(from) ^ square_bb(capsq)) | square_bb(ep);
    if (!(pos.attackers_to(ksq, after) & pos.pieces(~us) & ~square_bb(capsq))) return true;
  }
  return false;
}
}  // namespace

void Position::put_piece(Piece p, Square s) {
  board_[s] = p;
  by_color_[color_of(p)] |= square_bb(s);
  by_type_[type_of(p)] |= square_bb(s);
}

void Position::remove_piece(Square s) {
  Piece p = board_[s];
  by_color_[color_of(p)] ^= square_bb(s);
  by_type_[type_of(p)] ^= square_bb(s);
  board_[s] = NO_PIECE;
}

void Position::move_piece(Square from, Square to) {
  Piece p = board_[from];
  Bitboard fromto = square_bb(from) | square_bb(to);
  by_color_[color_of(p)] ^= fromto;
  by_type_[type_of(p)] ^= fromto;
  board_[from] = NO_PIECE;
  board_[to] = p;
}

void Position::set_pocket(Color c, PieceType t, int n) {
  Piece p = make_piece(c, t);
  Key& k = states_.back().key;
  k ^= zobrist::pocket(p, pockets_[c][t]) ^ zobrist::pocket(p, n);
  pockets_[c][t] = std::uint8_t(n);
}

Bitboard Position::attackers_to(Square s, Bitboard occ) const {
  return (pawn_attacks(BLACK, s) & pieces(WHITE, PAWN)) | (pawn_attacks(WHITE, s) & pieces(BLACK, PAWN)) |
         (knight_attacks(s) & by_type_[KNIGHT]) | (king_attacks(s) & by_type_[KING]) |
         (rook_attacks(s, occ) & (by_type_[ROOK] | by_type_[QUEEN])) |
         (bishop_attacks(s, occ) & (by_type_[BISHOP] | by_type_[QUEEN]));
}

Bitboard Position::blockers_for_king(Color c) const {
  Square ksq = king_square(c);
  Bitboard snipers = ((pseudo_attacks(ROOK, ksq) & pieces(ROOK, QUEEN)) |
                      (pseudo_attacks(BISHOP, ksq) & pieces(BISHOP, QUEEN))) &
                     pieces(~c);
  Bitboard occ = pieces() ^ snipers;
  Bitboard blockers = 0;
  while (snipers) {
    Square s = pop_lsb(snipers);
    Bitboard b = between(ksq, s) & ~square_bb(s) & occ;
    if (b && !more_than_one(b)) blockers |= b;
  }
  return blockers;
}

void Position::refresh_checkers() {
  states_.back().checkers = attackers_to(king_square(side_)) & pieces(~side_);
}

Key Position::key_without_pockets() const {
  Key k = state().key;
  for (Color c : {WHITE, BLACK})
    for (int t = PAWN; t <= KING; ++t) k ^= zobrist::pocket(make_piece(c, PieceType(t)), pockets_[c][t]);
  return k;
}

Key Position::key_after(Move m) const {
  Key k = state().key ^ zobrist::side();
  if (state().ep != SQ_NONE) k ^= zobrist::ep_file(file_of(state().ep));
  if (m.is_drop()) {
    const Piece pc = make_piece(side_, m.drop_type());
    const int n = pockets_[side_][m.drop_type()];
    return k ^ zobrist::pocket(pc, n) ^ zobrist::pocket(pc, n - 1) ^ zobrist::piece_square(pc, m.to());
  }
  const Piece pc = board_[m.from()];
  k ^= zobrist::piece_square(pc, m.from()) ^ zobrist::piece_square(pc, m.to());
  if (const Piece captured = board_[m.to()]; captured != NO_PIECE && m.kind() != Move::CASTLING) {
    k ^= zobrist::piece_square(captured, m.to());
    if (variant_ == Variant::Crazyhouse) {
      const PieceType t = (promoted_ & square_bb(m.to())) ? PAWN : type_of(captured);
      const int n = pockets_[side_][t];
      k ^= zobrist::pocket(make_piece(side_, t), n) ^ zobrist::pocket(make_piece(side_, t), n + 1);
    }
  }
  return k;
}

Key Position::compute_key() const {
  Key k = 0;
  for (Square s = 0; s < 64; ++s)
    if (board_[s]) k ^= zobrist::piece_square(board_[s], s);
  for (Color c : {WHITE, BLACK})
    for (int t = PAWN; t <= KING; ++t) k ^= zobrist::pocket(make_piece(c, PieceType(t)), pockets_[c][t]);
  const StateInfo& st = states_.back();
  if (st.ep != SQ_NONE) k ^= zobrist::ep_file(file_of(st.ep));
  k ^= zobrist::castling(st.castling);
  if (side_ == BLACK) k ^= zobrist::side();
  return k;
}

void Position::add_castling_right(Color c, Square rook) {
  Square ksq = king_square(c);
  bool king_side = rook > ksq;
  int idx = castling_index(c, king_side);
  std::uint8_t cr = std::uint8_t(1 << idx);
  states_.back().castling |= cr;
  castling_rook_[idx] = rook;
  castling_mask_[ksq] |= cr;
  castling_mask_[rook] |= cr;
  Square kto = castle_king_to(c, king_side), rto = castle_rook_to(c, king_side);
  Bitboard king_span = between(ksq, kto) | square_bb(ksq);
  Bitboard rook_span = between(rook, rto) | square_bb(rook);
  castling_king_path_[idx] = king_span;
  castling_path_[idx] = (king_span | rook_span) & ~(square_bb(ksq) | square_bb(rook));
}

namespace {
tl::unexpected<std::string> fen_error(std::string_view what, std::string_view fen) {
  return tl::unexpected("bad FEN \"" + std::string(fen) + "\": " + std::string(what));
}
}  // namespace

tl::expected<Position, std::string> Position::from_fen(std::string_view fen, Variant v, bool chess960) {
  Position pos;
  pos.variant_ = v;
  pos.chess960_ = chess960;
  pos.states_.reserve(256);
  pos.states_.emplace_back();
  std::string_view rest = fen;
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
  std::size_t board_end = rest.find(' ');
  std::string_view board = rest.substr(0, board_end);
  rest = board_end == std::string_view::npos ? std::string_view{} : rest.substr(board_end + 1);
  if (board.empty()) return fen_error("empty", fen);

  // Pockets: "[...]" after the board, or a ninth "rank" of piece letters.
  std::string_view pocket_text;
  bool has_pocket = false;
  if (auto lb = board.find('['); lb != std::string_view::npos) {
    auto rb = board.find(']', lb);
    if (rb == std::string_view::npos || rb != board.size() - 1) return fen_error("unclosed pocket", fen);
    pocket_text = board.substr(lb + 1, rb - lb - 1);
    board = board.substr(0, lb);
    has_pocket = true;
  }
  int rank = 7, file = 0, ranks_seen = 1;
  std::size_t i = 0;
  for (; i < board.size(); ++i) {
    char c = board[i];
    if (c == '/') {
      if (file != 8) return fen_error("a rank does not have 8 squares", fen);
      if (rank == 0) {  // ninth rank: the pockets
        if (has_pocket) return fen_error("two pockets", fen);
        pocket_text = board.substr(i + 1);
        has_pocket = true;
        break;
      }
      --rank;
      ++ranks_seen;
      file = 0;
    } else if (c >= '1' && c <= '8') {
      file += c - '0';
      if (file > 8) return fen_error("a rank has more than 8 squares", fen);
    } else if (c == '~') {
      if (file == 0 || pos.board_[make_square(file - 1, rank)] == NO_PIECE)
        return fen_error("'~' does not follow a piece", fen);
      pos.promoted_ |= square_bb(make_square(file - 1, rank));
    } else {
      PieceType t = piece_type_from_char(c);
      if (t == NO_PIECE_TYPE) return fen_error(std::string("unexpected character '") + c + "'", fen);
      if (file > 7) return fen_error("a rank has more than 8 squares", fen);
      pos.put_piece(make_piece(std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK, t),
                    make_square(file, rank));
      ++file;
    }
  }
  if (ranks_seen != 8 || file != 8) return fen_error("the board does not have 8 ranks of 8 squares", fen);
  if (has_pocket) {
    if (!has_drops(v)) return fen_error("pockets in a variant without drops", fen);
    for (char c : pocket_text) {
      PieceType t = piece_type_from_char(c);
      if (t == NO_PIECE_TYPE || t == KING) return fen_error("bad pocket piece", fen);
      Color col = std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK;
      if (pos.pockets_[col][t] >= 62) return fen_error("pocket too large", fen);
      ++pos.pockets_[col][t];
    }
  }
  if (popcount(pos.pieces(WHITE, KING)) != 1 || popcount(pos.pieces(BLACK, KING)) != 1)
    return fen_error("each side needs exactly one king", fen);
  // No game reaches a pawn on the first or last rank (it promotes on arriving there), so such a FEN is a
  // typing mistake, refused here where every caller (perft, PGN, a daemon's new game) sees it. Pockets are
  // not on the board: crazyhouse and bughouse pawns in hand are unaffected.
  if (pos.pieces(PAWN) & (rank_bb(0) | rank_bb(7)))
    return fen_error("a pawn stands on the first or last rank", fen);

  auto next_field = [&rest]() {
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    std::size_t e = rest.find(' ');
    std::string_view f = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view{} : rest.substr(e);
    return f;
  };
  std::string_view side = next_field(), castling = next_field(), ep = next_field();
  std::string_view half = next_field(), full = next_field();
  if (side.empty()) side = "w";
  if (side == "w")
    pos.side_ = WHITE;
  else if (side == "b")
    pos.side_ = BLACK;
  else
    return fen_error("side to move is not 'w' or 'b'", fen);

  if (!castling.empty() && castling != "-") {
    for (char c : castling) {
      Color col = std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK;
      char u = char(std::toupper(static_cast<unsigned char>(c)));
      Square ksq = pos.king_square(col);
      if (relative_rank(col, ksq) != 0)
        return fen_error("castling right without the king on its first rank", fen);
      Piece rook = make_piece(col, ROOK);
      Square rsq = SQ_NONE;
      int back = col == WHITE ? 0 : 7;
      if (u == 'K') {
        for (int f = 7; f > file_of(ksq); --f)
          if (pos.board_[make_square(f, back)] == rook) {
            rsq = make_square(f, back);
            break;
          }
      } else if (u == 'Q') {
        for (int f = 0; f < file_of(ksq); ++f)
          if (pos.board_[make_square(f, back)] == rook) {
            rsq = make_square(f, back);
            break;
          }
      } else if (u >= 'A' && u <= 'H') {
        rsq = make_square(u - 'A', back);
        if (pos.board_[rsq] != rook) return fen_error("castling file without a rook", fen);
      } else {
        return fen_error(std::string("bad castling character '") + c + "'", fen);
      }
      if (rsq == SQ_NONE) return fen_error("castling right without its rook", fen);
      // Castling from other than e/a/h is a Chess960 castling: the position says so itself (X-FEN).
      if (file_of(ksq) != 4 || (file_of(rsq) != 0 && file_of(rsq) != 7)) pos.chess960_ = true;
      pos.add_castling_right(col, rsq);
    }
  }
  if (!ep.empty() && ep != "-") {
    Square s = parse_square(ep);
    if (s == SQ_NONE || relative_rank(pos.side_, s) != 5) return fen_error("bad en-passant square", fen);
    // Keep the square only if a pawn could take there: then equal positions hash equally (FIDE 9.2.3).
    Color us = pos.side_;
    Square pushed = Square(us == WHITE ? s - 8 : s + 8);
    if ((pawn_attacks(~us, s) & pos.pieces(us, PAWN)) && pos.board_[pushed] == make_piece(~us, PAWN) &&
        pos.empty(s))
      pos.states_.back().ep = s;
  }
  auto parse_int = [](std::string_view f, int& out) {
    if (f.empty()) return true;
    auto r = std::from_chars(f.data(), f.data() + f.size(), out);
    return r.ec == std::errc() && r.ptr == f.data() + f.size() && out >= 0;
  };
  int halfmove = 0, fullmove = 1;
  if (!parse_int(half, halfmove) || !parse_int(full, fullmove)) return fen_error("bad move counters", fen);
  // Six fields are the whole FEN: anything after them is a mistake (a pasted EPD operation, two FENs run
  // together), and silently dropping it would start a game from a position the user did not check.
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
  if (!rest.empty()) return fen_error("unexpected text after the move counters", fen);
  pos.states_.back().rule50 = std::uint16_t(std::min(halfmove, 60000));
  pos.fullmove_ = std::max(1, std::min(fullmove, 1000000));
  pos.game_ply_ = 2 * (pos.fullmove_ - 1) + (pos.side_ == BLACK);
  pos.refresh_checkers();
  if (pos.states_.back().ep != SQ_NONE && !legal_en_passant_exists(pos, pos.states_.back().ep))
    pos.states_.back().ep = SQ_NONE;
  pos.states_.back().key = pos.compute_key();
  if (pos.attackers_to(pos.king_square(~pos.side_)) & pos.pieces(pos.side_))
    return fen_error("the side not to move is in check", fen);
  return pos;
}

Position Position::start(Variant v) {
  return *from_fen(has_drops(v) ? CRAZYHOUSE_START_FEN : START_FEN, v, false);
}

std::string Position::fen(bool shredder) const {
  std::string s;
  for (int r = 7; r >= 0; --r) {
    int empty_run = 0;
    for (int f = 0; f < 8; ++f) {
      Square sq = make_square(f, r);
      if (board_[sq] == NO_PIECE) {
        ++empty_run;
        continue;
      }
      if (empty_run) s += char('0' + empty_run);
      empty_run = 0;
      s += piece_char(board_[sq]);
      if (promoted_ & square_bb(sq)) s += '~';
    }
    if (empty_run) s += char('0' + empty_run);
    if (r) s += '/';
  }
  if (has_drops(variant_)) {
    s += '[';
    for (Color c : {WHITE, BLACK})
      for (PieceType t : {QUEEN, ROOK, BISHOP, KNIGHT, PAWN})
        s.append(pockets_[c][t], piece_char(make_piece(c, t)));
    s += ']';
  }
  s += side_ == WHITE ? " w " : " b ";
  std::string cr;
  for (Color c : {WHITE, BLACK})
    for (bool ks : {true, false}) {
      int idx = castling_index(c, ks);
      if (!(state().castling & (1 << idx))) continue;
      Square rsq = castling_rook_[idx];
      // X-FEN: KQkq when the castling rook is the outermost one on its side, else the rook's file.
      bool outermost = true;
      for (int f = ks ? file_of(rsq) + 1 : 0; f < (ks ? 8 : file_of(rsq)); ++f)
        if (board_[make_square(f, rank_of(rsq))] == make_piece(c, ROOK)) outermost = false;
      char ch = (shredder || !outermost) ? char('A' + file_of(rsq)) : (ks ? 'K' : 'Q');
      cr += c == WHITE ? ch : char(std::tolower(ch));
    }
  s += cr.empty() ? "-" : cr;
  s += ' ';
  s += square_name(state().ep);
  s += ' ' + std::to_string(state().rule50) + ' ' + std::to_string(fullmove_);
  return s;
}

PieceType Position::captured_hand_type(Square s) const {
  if (board_[s] == NO_PIECE) return NO_PIECE_TYPE;
  return (promoted_ & square_bb(s)) ? PAWN : type_of(board_[s]);
}

void Position::do_castling(Color us, Square from, Square& to, Square& rook_from, Square& rook_to, bool undo) {
  bool king_side = to > from;
  rook_from = to;
  rook_to = castle_rook_to(us, king_side);
  to = castle_king_to(us, king_side);
  Piece king = make_piece(us, KING), rook = make_piece(us, ROOK);
  // Remove both first: in Chess960 the king and rook may land on each other's squares.
  remove_piece(undo ? to : from);
  remove_piece(undo ? rook_to : rook_from);
  put_piece(king, undo ? from : to);
  put_piece(rook, undo ? rook_from : rook_to);
}

void Position::do_move(Move m) {
  states_.push_back(states_.back());
  StateInfo& st = states_.back();
  st.captured = NO_PIECE;
  st.captured_promoted = false;
  st.moved_promoted = false;
  ++st.rule50;
  ++st.plies_from_null;
  Key k = st.key ^ zobrist::side();
  Color us = side_, them = ~us;
  if (st.ep != SQ_NONE) {
    k ^= zobrist::ep_file(file_of(st.ep));
    st.ep = SQ_NONE;
  }
  Square from = m.from(), to = m.to();
  if (m.is_drop()) {
    PieceType t = m.drop_type();
    Piece pc = make_piece(us, t);
    k ^= zobrist::pocket(pc, pockets_[us][t]) ^ zobrist::pocket(pc, pockets_[us][t] - 1);
    --pockets_[us][t];
    put_piece(pc, to);
    k ^= zobrist::piece_square(pc, to);
    if (t == PAWN) st.rule50 = 0;
  } else if (m.kind() == Move::CASTLING) {
    Square rfrom, rto;
    do_castling(us, from, to, rfrom, rto, false);
    Piece king = make_piece(us, KING), rook = make_piece(us, ROOK);
    k ^= zobrist::piece_square(king, from) ^ zobrist::piece_square(king, to) ^
         zobrist::piece_square(rook, rfrom) ^ zobrist::piece_square(rook, rto);
    k ^= zobrist::castling(st.castling);
    st.castling &= std::uint8_t(~(castling_mask_[from] | castling_mask_[rfrom]));
    k ^= zobrist::castling(st.castling);
  } else {
    Piece pc = board_[from];
    Square capsq = m.kind() == Move::EN_PASSANT ? Square(us == WHITE ? to - 8 : to + 8) : to;
    Piece captured = board_[capsq];
    if (captured) {
      st.captured = captured;
      st.captured_promoted = (promoted_ & square_bb(capsq)) != 0;
      if (variant_ == Variant::Crazyhouse) {
        // The capturer's pocket gets the piece in its colour; a promoted piece goes back as a pawn.
        PieceType t = st.captured_promoted ? PAWN : type_of(captured);
        Piece hand = make_piece(us, t);
        k ^= zobrist::pocket(hand, pockets_[us][t]) ^ zobrist::pocket(hand, pockets_[us][t] + 1);
        ++pockets_[us][t];
      }
      promoted_ &= ~square_bb(capsq);
      remove_piece(capsq);
      k ^= zobrist::piece_square(captured, capsq);
      st.rule50 = 0;
    }
    st.moved_promoted = (promoted_ & square_bb(from)) != 0;
    if (st.moved_promoted) promoted_ ^= square_bb(from) | square_bb(to);
    move_piece(from, to);
    k ^= zobrist::piece_square(pc, from) ^ zobrist::piece_square(pc, to);
    if (type_of(pc) == PAWN) {
      st.rule50 = 0;
      if ((from ^ to) == 16) {
        Square ep = Square((from + to) / 2);
        if (pawn_attacks(us, ep) & pieces(them, PAWN)) {
          st.ep = ep;
          k ^= zobrist::ep_file(file_of(ep));
        }
      } else if (m.is_promotion()) {
        Piece promo = make_piece(us, m.promotion_type());
        remove_piece(to);
        put_piece(promo, to);
        if (has_drops(variant_)) promoted_ |= square_bb(to);
        k ^= zobrist::piece_square(pc, to) ^ zobrist::piece_square(promo, to);
      }
    }
    std::uint8_t lost = castling_mask_[from] | castling_mask_[to];
    if (lost & st.castling) {
      k ^= zobrist::castling(st.castling);
      st.castling &= std::uint8_t(~lost);
      k ^= zobrist::castling(st.castling);
    }
  }
  side_ = them;
  ++game_ply_;
  if (us == BLACK) ++fullmove_;
  st.key = k;
  st.checkers = attackers_to(king_square(them)) & pieces(us);
  if (st.ep != SQ_NONE && !legal_en_passant_exists(*this, st.ep)) {
    st.key ^= zobrist::ep_file(file_of(st.ep));
    st.ep = SQ_NONE;
  }
}

tl::expected<Position, std::string> Position::after_illegal_move(Square from, Square to) const {
  if (!is_ok(from) || !is_ok(to) || from == to) return tl::unexpected(std::string("not a move"));
  Piece pc = board_[from];
  if (pc == NO_PIECE || color_of(pc) != side_)
    return tl::unexpected(std::string("no piece of the side to move"));
  if (board_[to] != NO_PIECE && (color_of(board_[to]) == side_ || type_of(board_[to]) == KING))
    return tl::unexpected(std::string("the square holds an own piece or a king"));
  if (type_of(pc) == PAWN && (rank_of(to) == 0 || rank_of(to) == 7))
    return tl::unexpected(std::string("a pawn on the first or last rank"));
  Position p = *this;
  // A plain piece move does all the bookkeeping (capture, castling rights, counters, key); a pawn's
  // double step may leave an en-passant square, which an illegal one must not.
  p.do_move(Move::make(from, to));
  StateInfo& st = p.states_.back();
  if (st.ep != SQ_NONE) {
    st.key ^= zobrist::ep_file(file_of(st.ep));
    st.ep = SQ_NONE;
  }
  return p;
}

void Position::undo_move(Move m) {
  const StateInfo& st = states_.back();
  side_ = ~side_;
  Color us = side_;
  --game_ply_;
  if (us == BLACK) --fullmove_;
  Square from = m.from(), to = m.to();
  if (m.is_drop()) {
    remove_piece(to);
    ++pockets_[us][m.drop_type()];
  } else if (m.kind() == Move::CASTLING) {
    Square rfrom, rto;
    do_castling(us, from, to, rfrom, rto, true);
  } else {
    if (m.is_promotion()) {
      remove_piece(to);
      put_piece(make_piece(us, PAWN), to);
      promoted_ &= ~square_bb(to);
    }
    move_piece(to, from);
    if (st.moved_promoted) promoted_ ^= square_bb(from) | square_bb(to);
    if (st.captured) {
      Square capsq = m.kind() == Move::EN_PASSANT ? Square(us == WHITE ? to - 8 : to + 8) : to;
      put_piece(st.captured, capsq);
      if (st.captured_promoted) promoted_ |= square_bb(capsq);
      if (variant_ == Variant::Crazyhouse) --pockets_[us][st.captured_promoted ? PAWN : type_of(st.captured)];
    }
  }
  states_.pop_back();
}

void Position::do_null_move() {
  states_.push_back(states_.back());
  StateInfo& st = states_.back();
  st.key ^= zobrist::side();
  if (st.ep != SQ_NONE) st.key ^= zobrist::ep_file(file_of(st.ep));
  st.ep = SQ_NONE;
  st.captured = NO_PIECE;
  st.plies_from_null = 0;
  ++st.rule50;
  side_ = ~side_;
  st.checkers = attackers_to(king_square(side_)) & pieces(~side_);
}

void Position::undo_null_move() {
  states_.pop_back();
  side_ = ~side_;
}

bool Position::is_legal(Move m) const {
  MoveList list(*this);
  for (Move x : list)
    if (x == m) return true;
  return false;
}

bool Position::gives_check(Move m) const {
  auto& self = const_cast<Position&>(*this);  // do/undo leaves the position as it was
  self.do_move(m);
  bool check = in_check();
  self.undo_move(m);
  return check;
}

std::string Position::validate() const {
  for (Color c : {WHITE, BLACK})
    if (popcount(pieces(c, KING)) != 1) return "each side needs exactly one king";
  if (pieces(PAWN) & (rank_bb(0) | rank_bb(7))) return "a pawn stands on the first or last rank";
  if (attackers_to(king_square(~side_)) & pieces(side_)) return "the side not to move is in check";
  if (popcount(checkers()) > 2) return "the king is attacked by more than two pieces";
  return {};
}

}  // namespace eboard::rules
