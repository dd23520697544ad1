// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/pgn.hpp"

#include <algorithm>
#include <cctype>

#include "rules/movegen.hpp"

namespace eboard::rules {

std::optional<std::string_view> find_tag(const PgnTags& tags, std::string_view name) {
  for (const PgnTag& t : tags)
    if (t.name == name) return std::string_view(t.value);
  return std::nullopt;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_symbol_char(char c) {
  return is_alnum(c) || c == '_' || c == '+' || c == '#' || c == '=' || c == ':' || c == '-' || c == '/' ||
         c == '@' || c == '!' || c == '?' || c == '.';
}
bool is_result(std::string_view s) { return s == "1-0" || s == "0-1" || s == "1/2-1/2" || s == "*"; }

std::string collapse_spaces(std::string_view s) {
  std::string out;
  bool gap = false;
  for (char c : s) {
    if (is_space(c)) {
      gap = !out.empty();
    } else {
      if (gap) out += ' ';
      gap = false;
      out += c;
    }
  }
  return out;
}

// Digits with an optional fraction, as milliseconds: "5" → 5000 (scale 1000), "0.3" → 300.
std::optional<std::int64_t> parse_decimal_ms(std::string_view s, std::int64_t scale) {
  std::size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
  if (whole.empty() || whole.size() > 9) return std::nullopt;
  std::int64_t w = 0;
  for (char c : whole) {
    if (!is_digit(c)) return std::nullopt;
    w = w * 10 + (c - '0');
  }
  if (dot != std::string_view::npos && frac.empty()) return std::nullopt;
  std::int64_t f = 0, unit = 1000;
  for (char c : frac) {
    if (!is_digit(c)) return std::nullopt;
    unit /= 10;
    f += (c - '0') * unit;  // digits past milliseconds add nothing
  }
  return w * scale + f;
}

// `h:mm:ss`, `m:ss` or `s`, each with an optional fraction; whitespace inside is ignored because
// files wrap lines in the middle of `[%emt 0:\n00:05]`.
std::optional<std::int64_t> parse_clock(std::string_view text) {
  std::string s;
  for (char c : text)
    if (!is_space(c)) s += c;
  std::int64_t total = 0;
  std::size_t start = 0;
  for (int part = 0;; ++part) {
    if (part > 2) return std::nullopt;
    std::size_t colon = s.find(':', start);
    std::string_view field =
        std::string_view(s).substr(start, colon == std::string::npos ? colon : colon - start);
    if (colon == std::string::npos) {
      auto last = parse_decimal_ms(field, 1000);
      if (!last) return std::nullopt;
      return total * 1000 * 60 + *last;
    }
    auto v = parse_decimal_ms(field, 1);
    if (!v || field.find('.') != std::string_view::npos) return std::nullopt;
    total = total * 60 + *v;
    start = colon + 1;
  }
}

struct CommentParts {
  std::string text;
  std::optional<std::int64_t> clock_ms;
  std::optional<std::int64_t> emt_ms;
};

// Takes `[%clk …]` and `[%emt …]` out of a comment; other commands stay in the text.
CommentParts split_comment(std::string_view raw) {
  CommentParts out;
  std::string rest;
  std::size_t i = 0;
  while (i < raw.size()) {
    if (raw[i] == '[' && i + 1 < raw.size() && raw[i + 1] == '%') {
      std::size_t close = raw.find(']', i);
      if (close != std::string_view::npos) {
        std::string_view command = raw.substr(i + 2, close - i - 2);
        std::size_t gap = 0;
        while (gap < command.size() && !is_space(command[gap])) ++gap;
        std::string_view name = command.substr(0, gap);
        if (name == "clk" || name == "emt") {
          if (auto ms = parse_clock(command.substr(gap))) {
            (name == "clk" ? out.clock_ms : out.emt_ms) = ms;
            i = close + 1;
            continue;
          }
        }
      }
    }
    rest += raw[i++];
  }
  out.text = collapse_spaces(rest);
  return out;
}

void append_text(std::string& to, std::string_view text) {
  if (text.empty()) return;
  if (!to.empty()) to += ' ';
  to += text;
}

int nag_of_suffix(std::string_view s) {
  static constexpr std::string_view suffixes[] = {"!", "?", "!!", "??", "!?", "?!"};
  for (int i = 0; i < 6; ++i)
    if (s == suffixes[i]) return i + 1;
  return 0;
}

// The character-level reader over a ScanState.
class Lexer {
 public:
  explicit Lexer(detail::ScanState& st) : st_(st) {}
  bool eof() const { return st_.pos >= st_.text.size(); }
  char peek(std::size_t k = 0) const { return st_.pos + k < st_.text.size() ? st_.text[st_.pos + k] : '\0'; }
  int line() const { return st_.line; }
  std::size_t pos() const { return st_.pos; }
  char get() {
    char c = st_.text[st_.pos++];
    if (c == '\n') ++st_.line;
    return c;
  }
  void advance_to(std::size_t end) {
    while (st_.pos < end) get();
  }
  bool at_line_start() const { return st_.pos == 0 || st_.text[st_.pos - 1] == '\n'; }

  void skip_space() {
    if (st_.pos == 0 && st_.text.starts_with("\xEF\xBB\xBF")) st_.pos = 3;
    for (;;) {
      while (!eof() && is_space(peek())) get();
      // A '%' in the first column escapes the whole line (PGN standard 6).
      if (!eof() && peek() == '%' && at_line_start()) {
        while (!eof() && peek() != '\n') get();
        continue;
      }
      return;
    }
  }

  // After an error: on to the next line that opens a tag section (a '[' line after a blank line, or
  // an Event tag), so one damaged game does not take the rest of the file with it.
  void skip_to_next_game() {
    bool previous_blank = false;
    while (!eof()) {
      while (!eof() && get() != '\n') {}
      std::size_t p = st_.pos;
      while (p < st_.text.size() && (st_.text[p] == ' ' || st_.text[p] == '\t' || st_.text[p] == '\r')) ++p;
      if (p < st_.text.size() && st_.text[p] == '[' &&
          (previous_blank || st_.text.substr(p).starts_with("[Event ")))
        return;
      previous_blank = p >= st_.text.size() || st_.text[p] == '\n';
    }
  }

  // `{…}` with the cursor on '{'. Nested braces are counted (some annotators nest comments), except
  // when the nested reading never closes or would run into the next game's tags: then the first '}'
  // ends it, as the standard says.
  tl::expected<std::string_view, std::string> comment() {
    std::string_view text = st_.text;
    std::size_t open = st_.pos;
    int open_line = st_.line;
    std::size_t nested_end = std::string_view::npos;
    int depth = 0;
    for (std::size_t i = open; i < text.size(); ++i) {
      char c = text[i];
      if (c == '{') {
        ++depth;
      } else if (c == '}') {
        if (--depth == 0) {
          nested_end = i;
          break;
        }
      } else if (c == '\n' && depth > 1 && i + 2 < text.size() && text[i + 1] == '[' &&
                 std::isalpha(static_cast<unsigned char>(text[i + 2]))) {
        break;
      }
    }
    std::size_t end = nested_end != std::string_view::npos ? nested_end : text.find('}', open + 1);
    if (end == std::string_view::npos)
      return tl::unexpected("unterminated comment (opened at line " + std::to_string(open_line) + ")");
    advance_to(end + 1);
    return text.substr(open + 1, end - open - 1);
  }

  std::string_view line_comment() {
    std::size_t start = st_.pos + 1;
    while (!eof() && peek() != '\n') get();
    return st_.text.substr(start, st_.pos - start);
  }

  tl::expected<PgnTag, std::string> tag() {
    int open_line = st_.line;
    auto fail = [&](std::string_view why) {
      return tl::unexpected(std::string(why) + " (tag opened at line " + std::to_string(open_line) + ")");
    };
    get();  // '['
    while (!eof() && is_space(peek())) get();
    PgnTag t;
    while (!eof() && (is_alnum(peek()) || peek() == '_')) t.name += get();
    if (t.name.empty()) return fail("tag without a name");
    while (!eof() && is_space(peek())) get();
    if (peek() != '"') return fail("tag value not in quotes");
    get();
    for (;;) {
      if (eof() || peek() == '\n') return fail("unterminated tag value");
      char c = get();
      if (c == '"') break;
      if (c == '\\' && (peek() == '"' || peek() == '\\')) c = get();
      t.value += c;
    }
    while (!eof() && is_space(peek()) && peek() != '\n') get();
    if (peek() != ']') return fail("tag not closed by ']'");
    get();
    return t;
  }

  // A run of symbol characters, with an `e8(Q)` promotion kept in one piece.
  std::string_view symbol() {
    std::size_t start = st_.pos;
    while (!eof() && is_symbol_char(peek())) get();
    if (peek() == '(' && peek(2) == ')' &&
        std::string_view("QRBNqrbn").find(peek(1)) != std::string_view::npos && st_.pos > start &&
        is_digit(st_.text[st_.pos - 1]))
      advance_to(st_.pos + 3);
    return st_.text.substr(start, st_.pos - start);
  }

 private:
  detail::ScanState& st_;
};

struct MoveNumber {
  int number = 0;
  int board = -1;  // BPGN: 0 or 1
  Color color = WHITE;
};

// "12." "12..." and in BPGN "12A." "12b.": the cursor moves past it. nullopt (cursor unmoved) when the
// digits are not a move number ("1-0", "0-0", "0000").
std::optional<MoveNumber> move_number(Lexer& lx, bool bughouse) {
  std::size_t k = 0;
  int n = 0;
  while (is_digit(lx.peek(k))) {
    if (k < 9) n = n * 10 + (lx.peek(k) - '0');
    ++k;
  }
  MoveNumber mn;
  mn.number = n;
  char c = lx.peek(k);
  if (bughouse && (c == 'A' || c == 'a' || c == 'B' || c == 'b') && lx.peek(k + 1) == '.') {
    mn.board = (c == 'A' || c == 'a') ? 0 : 1;
    mn.color = std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK;
    ++k;
  } else if (c != '.') {
    return std::nullopt;
  }
  while (lx.peek(k) == '.') ++k;
  lx.advance_to(lx.pos() + k);
  return mn;
}

PgnGame to_pgn_game(BpgnGame&& g) {
  PgnGame out;
  out.tags = std::move(g.tags);
  out.intro_comment = std::move(g.intro_comment);
  out.result = std::move(g.result);
  out.terminated = g.terminated;
  out.index = g.index;
  out.line = g.line;
  out.moves.reserve(g.moves.size());
  for (BpgnMove& m : g.moves) out.moves.push_back(std::move(static_cast<PgnMove&>(m)));
  return out;
}

}  // namespace

namespace detail {

std::optional<tl::expected<BpgnGame, std::string>> next_game(ScanState& state, bool bughouse) {
  Lexer lx(state);
  BpgnGame game;
  bool started = false, in_movetext = false;
  int variation_depth = 0, variation_line = 0;
  std::optional<MoveNumber> pending_number;
  std::string pending_intro;

  auto start_game = [&](int line) {
    if (started) return;
    started = true;
    game.index = ++state.games;
    game.line = line;
  };
  auto fail = [&](int line, const std::string& why) -> std::optional<tl::expected<BpgnGame, std::string>> {
    int index = started ? game.index : ++state.games;
    std::string what = bughouse ? "BPGN" : "PGN";
    lx.skip_to_next_game();
    return tl::unexpected(what + " game " + std::to_string(index) + ", line " + std::to_string(line) + ": " +
                          why);
  };
  auto attach_comment = [&](std::string_view raw) {
    if (variation_depth > 0) return;
    CommentParts parts = split_comment(raw);
    if (game.moves.empty()) {
      append_text(pending_intro, parts.text);
      return;
    }
    BpgnMove& last = game.moves.back();
    // BPGN: the first comment of a move that is only a number is the mover's clock, in seconds.
    if (bughouse && !last.clock_ms && !parts.clock_ms && !parts.text.empty() &&
        is_digit(parts.text.front())) {
      if (auto seconds = parse_decimal_ms(parts.text, 1000)) {
        last.clock_ms = seconds;
        parts.text.clear();
      }
    }
    append_text(last.comment, parts.text);
    if (parts.clock_ms) last.clock_ms = parts.clock_ms;
    if (parts.emt_ms) last.emt_ms = parts.emt_ms;
  };
  auto finish = [&](bool terminated) -> std::optional<tl::expected<BpgnGame, std::string>> {
    game.terminated = terminated;
    game.intro_comment = std::move(pending_intro);
    return std::move(game);
  };

  for (;;) {
    lx.skip_space();
    int line = lx.line();
    if (lx.eof()) {
      if (variation_depth > 0)
        return fail(line, "unterminated variation (opened at line " + std::to_string(variation_line) + ")");
      if (!started) return std::nullopt;
      return finish(false);
    }
    char c = lx.peek();
    if (c == '[') {
      if (variation_depth > 0) return fail(line, "'[' inside a variation");
      if (in_movetext) return finish(false);  // the next game's tags: this one had no result
      std::size_t tag_start = lx.pos();
      int tag_line = lx.line();
      auto tag = lx.tag();
      if (!tag) return fail(line, tag.error());
      // A tag name seen twice starts a new game: the previous one had tags and nothing else.
      if (started && game.tag(tag->name)) {
        state.pos = tag_start;
        state.line = tag_line;
        return finish(false);
      }
      start_game(line);
      game.tags.push_back(std::move(*tag));
    } else if (c == '{') {
      auto text = lx.comment();
      if (!text) return fail(line, text.error());
      attach_comment(*text);
    } else if (c == ';') {
      attach_comment(lx.line_comment());
    } else if (c == '(') {
      lx.get();
      start_game(line);
      in_movetext = true;
      if (variation_depth++ == 0) variation_line = line;
    } else if (c == ')') {
      if (variation_depth == 0) return fail(line, "')' without a variation to close");
      lx.get();
      --variation_depth;
    } else if (c == '$') {
      lx.get();
      int nag = 0, digits = 0;
      for (; is_digit(lx.peek()); ++digits) nag = std::min(nag * 10 + (lx.get() - '0'), 1000);
      if (digits == 0 || nag > 255) return fail(line, "'$' without a NAG number (0-255)");
      start_game(line);
      in_movetext = true;
      if (variation_depth == 0 && !game.moves.empty()) game.moves.back().nags.push_back(nag);
    } else if (c == '*') {
      lx.get();
      if (variation_depth > 0) continue;
      start_game(line);
      game.result = "*";
      return finish(true);
    } else if (auto number = is_digit(c) ? move_number(lx, bughouse) : std::nullopt) {
      start_game(line);
      in_movetext = true;
      if (variation_depth == 0) pending_number = number;
    } else if (is_symbol_char(c)) {
      std::string_view sym = lx.symbol();
      start_game(line);
      in_movetext = true;
      if (variation_depth > 0) continue;
      if (is_result(sym)) {
        game.result = std::string(sym);
        return finish(true);
      }
      std::size_t cut = sym.size();
      while (cut > 0 && (sym[cut - 1] == '!' || sym[cut - 1] == '?')) --cut;
      int suffix_nag = nag_of_suffix(sym.substr(cut));
      if (cut == 0) {  // a free-standing "!?" annotates the previous move
        if (!game.moves.empty() && suffix_nag) game.moves.back().nags.push_back(suffix_nag);
        continue;
      }
      if (sym.find_first_not_of('.') == std::string_view::npos) continue;  // stray dots
      if (sym == "e.p." || sym == "ep") continue;                          // "exd6 e.p." says nothing new
      BpgnMove m;
      m.san = std::string(sym.substr(0, cut));
      m.line = line;
      if (suffix_nag) m.nags.push_back(suffix_nag);
      if (bughouse) {
        if (!pending_number || pending_number->board < 0)
          return fail(line, "move '" + m.san + "' without a board number such as 12A. or 12a.");
        m.board = pending_number->board;
        m.color = pending_number->color;
        m.number = pending_number->number;
        pending_number.reset();
      }
      game.moves.push_back(std::move(m));
    } else {
      auto byte = static_cast<unsigned char>(c);
      std::string shown =
          byte >= 32 && byte < 127 ? std::string("'") + c + "'" : "byte " + std::to_string(byte);
      return fail(line, "unexpected " + shown + " in the movetext");
    }
  }
}

}  // namespace detail

std::optional<tl::expected<PgnGame, std::string>> PgnReader::next() {
  auto raw = detail::next_game(state_, false);
  if (!raw) return std::nullopt;
  if (!*raw) return tl::unexpected(std::move(raw->error()));
  return to_pgn_game(std::move(**raw));
}

tl::expected<std::vector<PgnGame>, std::string> read_pgn(std::string_view text) {
  std::vector<PgnGame> games;
  PgnReader reader(text);
  while (auto game = reader.next()) {
    if (!*game) return tl::unexpected(std::move(game->error()));
    games.push_back(std::move(**game));
  }
  return games;
}

tl::expected<std::vector<BpgnGame>, std::string> read_bpgn(std::string_view text) {
  std::vector<BpgnGame> games;
  BpgnReader reader(text);
  while (auto game = reader.next()) {
    if (!*game) return tl::unexpected(std::move(game->error()));
    games.push_back(std::move(**game));
  }
  return games;
}

namespace {

struct VariantChoice {
  Variant variant = Variant::Chess;
  bool chess960 = false;
};

tl::expected<VariantChoice, std::string> variant_of(std::optional<std::string_view> tag) {
  if (!tag) return VariantChoice{};
  std::string key;
  for (char c : *tag)
    if (is_alnum(c)) key += char(std::tolower(static_cast<unsigned char>(c)));
  if (key.empty() || key == "standard" || key == "chess" || key == "normal" || key == "fromposition")
    return VariantChoice{};
  if (key == "chess960" || key == "fischerandom" || key == "fischerrandom" || key == "960" || key == "frc")
    return VariantChoice{Variant::Chess, true};
  if (key == "crazyhouse" || key == "zh") return VariantChoice{Variant::Crazyhouse, false};
  if (key == "bughouse" || key == "bug") return VariantChoice{Variant::Bughouse, false};
  return tl::unexpected("unsupported variant '" + std::string(*tag) + "'");
}

tl::expected<Position, std::string> position_from(std::optional<std::string_view> fen, VariantChoice v) {
  std::string_view text = fen ? *fen : (has_drops(v.variant) ? CRAZYHOUSE_START_FEN : START_FEN);
  auto pos = Position::from_fen(text, v.variant, v.chess960);
  if (!pos) return tl::unexpected(pos.error());
  if (std::string why = pos->validate(); !why.empty())
    return tl::unexpected("FEN \"" + std::string(text) + "\": " + why);
  return pos;
}

bool is_null_move(std::string_view san) {
  return san == "--" || san == "Z0" || san == "0000" || san == "@@@@";
}

// Move numbers are counted here rather than read from the position, whose null move does not advance
// its move counter.
struct MoveCounter {
  int number;
  Color side;
  explicit MoveCounter(const Position& start) : number(start.fullmove_number()), side(start.side_to_move()) {}
  void advance() {
    if (side == BLACK) ++number;
    side = ~side;
  }
  std::string label() const { return std::to_string(number) + (side == WHITE ? "." : "..."); }
};

// SAN first, then UCI for files that hold UCI movetext.
tl::expected<Move, std::string> resolve(const Position& pos, std::string_view token) {
  auto san = parse_san(pos, token);
  if (san) return san;
  std::string_view uci_text = token;
  while (!uci_text.empty() && (uci_text.back() == '+' || uci_text.back() == '#')) uci_text.remove_suffix(1);
  if (auto uci = parse_uci(pos, uci_text)) return uci;
  return san;
}

// Plays a move or a null move; a null move may not leave a king in check.
tl::expected<void, std::string> play(Position& pos, Move m) {
  if (m.is_none()) {
    if (pos.in_check()) return tl::unexpected(std::string("null move while in check"));
    pos.do_null_move();
  } else {
    pos.do_move(m);
  }
  return {};
}

// A record's result as the movetext may end: anything else is written as unknown.
std::string_view result_text(const std::string& result) {
  return is_result(result) ? std::string_view(result) : std::string_view("*");
}

std::string two_digits(std::int64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); }

// Milliseconds as `h:mm:ss`, with a fraction only when there is one.
std::string format_clock(std::int64_t ms) {
  if (ms < 0) ms = 0;
  std::int64_t s = ms / 1000, frac = ms % 1000;
  std::string out = std::to_string(s / 3600) + ':' + two_digits(s / 60 % 60) + ':' + two_digits(s % 60);
  if (frac) {
    std::string f = std::to_string(1000 + frac).substr(1);
    while (f.back() == '0') f.pop_back();
    out += '.' + f;
  }
  return out;
}

// BPGN clocks: seconds with one decimal, or three when the time has milliseconds.
std::string format_seconds(std::int64_t ms) {
  if (ms < 0) ms = 0;
  std::string out = std::to_string(ms / 1000) + '.';
  std::int64_t frac = ms % 1000;
  out += frac % 100 == 0 ? std::to_string(frac / 100) : std::to_string(1000 + frac).substr(1);
  return out;
}

// A tag line; a name is letters, digits and '_' only, so whatever is in the record, the line reads back.
std::string quote_tag(std::string_view name, std::string_view value) {
  std::string out = "[";
  for (char c : name)
    if (is_alnum(c) || c == '_') out += c;
  if (out.size() == 1) out += "Unnamed";
  out += " \"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n' || c == '\r') c = ' ';
    out += c;
  }
  return out + "\"]\n";
}

// The words of a comment in braces, as units a line may be broken between. A clock command stays whole.
void comment_units(std::vector<std::string>& units, const std::vector<std::string>& commands,
                   std::string_view text) {
  std::vector<std::string> words = commands;
  std::string word;
  for (char c : text) {
    if (c == '{') c = '(';  // braces cannot appear inside a standard comment
    if (c == '}') c = ')';
    if (is_space(c)) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  if (words.empty()) return;
  words.front().insert(0, "{");
  words.back() += '}';
  for (std::string& w : words) units.push_back(std::move(w));
}

void move_comment_units(std::vector<std::string>& units, const RecordedMove& m, bool with_clocks) {
  std::vector<std::string> commands;
  if (with_clocks && m.clock_ms) commands.push_back("[%clk " + format_clock(*m.clock_ms) + "]");
  if (m.emt_ms) commands.push_back("[%emt " + format_clock(*m.emt_ms) + "]");
  comment_units(units, commands, m.comment);
}

std::string wrap(const std::vector<std::string>& units, int width) {
  std::string out, line;
  for (const std::string& unit : units) {
    if (unit.empty()) continue;
    if (!line.empty() && int(line.size() + 1 + unit.size()) > width) {
      out += line + '\n';
      line.clear();
    }
    if (!line.empty()) line += ' ';
    // A '%' in the first column would make the line an escape line: never start a line with one.
    else if (unit.front() == '%')
      line += ' ';
    line += unit;
  }
  if (!line.empty()) out += line + '\n';
  return out;
}

const char* variant_tag_value(const Position& pos) {
  switch (pos.variant()) {
    case Variant::Crazyhouse:
      return "Crazyhouse";
    case Variant::Bughouse:
      return "Bughouse";
    default:
      return pos.chess960() ? "Chess960" : nullptr;
  }
}

bool is_standard_start(const Position& pos) {
  auto fen = pos.fen();
  return fen == (has_drops(pos.variant()) ? CRAZYHOUSE_START_FEN : START_FEN);
}

bool written_elsewhere(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    if (n == name) return true;
  return false;
}

}  // namespace

tl::expected<Position, std::string> start_position(const PgnTags& tags) {
  auto variant = variant_of(find_tag(tags, "Variant"));
  if (!variant) return tl::unexpected(variant.error());
  return position_from(find_tag(tags, "FEN"), *variant);
}

tl::expected<GameRecord, std::string> replay(const PgnGame& game) {
  std::string where = "game " + std::to_string(game.index) + " (line " + std::to_string(game.line) + ")";
  auto start = start_position(game.tags);
  if (!start) return tl::unexpected(where + ": " + start.error());
  GameRecord record;
  record.tags = game.tags;
  record.intro_comment = game.intro_comment;
  record.start = *start;
  record.result = game.result;
  record.moves.reserve(game.moves.size());
  Position pos = *start;
  MoveCounter counter(pos);
  for (const PgnMove& token : game.moves) {
    std::string label = "game " + std::to_string(game.index) + ", line " + std::to_string(token.line) +
                        ", move " + counter.label() + " " + token.san + ": ";
    Move m = Move::none();
    if (!is_null_move(token.san)) {
      auto resolved = resolve(pos, token.san);
      if (!resolved) return tl::unexpected(label + resolved.error());
      m = *resolved;
    }
    if (auto played = play(pos, m); !played) return tl::unexpected(label + played.error());
    counter.advance();
    record.moves.push_back(RecordedMove{m, token.clock_ms, token.emt_ms, token.comment, token.nags});
  }
  return record;
}

Position final_position(const GameRecord& record) {
  Position pos = record.start;
  for (const RecordedMove& m : record.moves) (void)play(pos, m.move);
  return pos;
}

tl::expected<std::string, std::string> write_pgn(const GameRecord& record, const PgnWriteOptions& options) {
  std::string out;
  static constexpr std::pair<std::string_view, std::string_view> roster[] = {
      {"Event", "?"}, {"Site", "?"}, {"Date", "????.??.??"}, {"Round", "?"}, {"White", "?"}, {"Black", "?"}};
  for (auto [name, fallback] : roster) out += quote_tag(name, find_tag(record.tags, name).value_or(fallback));
  out += quote_tag("Result", result_text(record.result));
  if (const char* variant = variant_tag_value(record.start)) out += quote_tag("Variant", variant);
  if (record.start.chess960() || !is_standard_start(record.start)) {
    out += quote_tag("SetUp", "1");
    out += quote_tag("FEN", record.start.fen());
  }
  for (const PgnTag& t : record.tags)
    if (!written_elsewhere(t.name, {"Event", "Site", "Date", "Round", "White", "Black", "Result", "Variant",
                                    "SetUp", "FEN"}))
      out += quote_tag(t.name, t.value);
  out += '\n';

  std::vector<std::string> units;
  comment_units(units, {}, record.intro_comment);
  Position pos = record.start;
  MoveCounter counter(pos);
  bool number_needed = true;  // Black's move needs "n..." after a comment or at the start
  for (std::size_t i = 0; i < record.moves.size(); ++i) {
    const RecordedMove& rm = record.moves[i];
    if (!rm.move.is_none() && !MoveList(pos).contains(rm.move)) {
      // A bughouse drop of a piece the partner board sent: the game knew it, this record's pockets do not.
      if (!rm.san.empty() && rm.move.is_drop() && pos.pocket(pos.side_to_move(), rm.move.drop_type()) == 0)
        pos.set_pocket(pos.side_to_move(), rm.move.drop_type(), 1);
      if (!MoveList(pos).contains(rm.move))
        return tl::unexpected("move " + std::to_string(i + 1) + " of the record is illegal");
    }
    std::string unit;
    if (counter.side == WHITE || number_needed) unit = counter.label() + ' ';
    unit += rm.san.empty() ? to_san(pos, rm.move, options.san) : rm.san;
    units.push_back(std::move(unit));
    for (int nag : rm.nags) units.push_back("$" + std::to_string(nag));
    std::size_t before = units.size();
    move_comment_units(units, rm, true);
    number_needed = units.size() != before || !rm.nags.empty();
    if (auto played = play(pos, rm.move); !played) return tl::unexpected(played.error());
    counter.advance();
  }
  units.emplace_back(result_text(record.result));
  out += wrap(units, options.width);
  return out;
}

namespace {
// The ply the record of `game` can start at: the first after the last illegal move that stood whose
// position FEN gives back; nullopt when there is none (the game ends on an unreadable position).
std::optional<int> record_start_ply(const Game& game) {
  if (game.record_since() == 0) return 0;
  for (int k = game.record_since(); k <= game.ply_count(); ++k) {
    Position p = game.position_at(k);
    if (Position::from_fen(p.fen(), p.variant(), p.chess960())) return k;
  }
  return std::nullopt;
}

// "1. e4 e5 2. Nb1-b3 (illegal move that stood, FIDE A.4.2) 2... d5": the first `plies` moves of `game`.
std::string told_moves(const Game& game, int plies) {
  std::string text;
  Position pos = game.start();
  MoveCounter counter(pos);
  bool number_needed = true;
  for (int i = 0; i < plies && i < game.ply_count(); ++i) {
    const PlyRecord& p = game.plies()[std::size_t(i)];
    if (!text.empty()) text += ' ';
    if (p.missed) {
      // A gap several sequences explain: never written as moves (moves-missed tells the candidates).
      int run = 1;
      while (i + run < plies && i + run < game.ply_count() &&
             game.plies()[static_cast<std::size_t>(i) + static_cast<std::size_t>(run)].missed)
        ++run;
      text += "(" + std::to_string(run) + (run == 1 ? " ply" : " plies") +
              " missed while the board was not followed: not witnessed, several move sequences explain it)";
      for (int k = 0; k < run; ++k) counter.advance();
      i += run - 1;
      pos = game.position_at(i + 1);
      number_needed = true;
      continue;
    }
    if (p.jump) {
      // The game was taken up from the board's position: what led there is unknown.
      int run = 1;
      while (i + run < plies && i + run < game.ply_count() &&
             game.plies()[static_cast<std::size_t>(i) + static_cast<std::size_t>(run)].jump)
        ++run;
      text +=
          "(the moves that led to the next position were not seen: the game goes on from the position "
          "the board showed)";
      for (int k = 0; k < run; ++k) counter.advance();
      i += run - 1;
      pos = game.position_at(i + 1);
      number_needed = true;
      continue;
    }
    if (counter.side == WHITE || number_needed) text += counter.label() + ' ';
    number_needed = p.illegal;
    if (p.illegal) {
      text += to_long_algebraic(pos, p.move) + " (illegal move that stood, FIDE A.4.2)";
      pos = game.position_at(i + 1);
    } else {
      text += to_san(pos, p.move);
      if (p.recovered) text += " (recovered after a gap, not witnessed)";
      pos.do_move(p.move);
    }
    counter.advance();
  }
  return text;
}
}  // namespace

void set_record_moves(GameRecord& record, const Game& game) {
  std::optional<int> from = record_start_ply(game);
  int first = from.value_or(game.ply_count());
  record.start = from && first > 0 ? game.position_at(first) : game.start();
  record.moves.clear();
  if (first > 0) record.intro_comment = "Moves before this position: " + told_moves(game, first);
  if (!from) return;
  Color mover = record.start.side_to_move();
  const bool partner_pockets = game.start().variant() == Variant::Bughouse;
  for (int i = first; i < game.ply_count(); ++i) {
    const PlyRecord& p = game.plies()[std::size_t(i)];
    RecordedMove m;
    m.move = p.move;
    // The pockets the partner fed are in the game's positions only (a check a drop can stop is no mate).
    if (partner_pockets) m.san = to_san(game.position_at(i), p.move);
    if (p.clock.known()) m.clock_ms = mover == WHITE ? p.clock.white_ms : p.clock.black_ms;
    if (p.recovered) m.comment = "recovered after a gap, not witnessed";
    record.moves.push_back(std::move(m));
    mover = ~mover;
  }
}

void play_bughouse_move(std::array<Position, 2>& boards, int board, Move m) {
  Position& pos = boards[board & 1];
  Position& partner = boards[(board & 1) ^ 1];
  if (!m.is_none() && pos.is_capture(m)) {
    Color mover = pos.side_to_move();
    Square taken = m.kind() == Move::EN_PASSANT ? Square(m.to() + (mover == WHITE ? -8 : 8)) : m.to();
    PieceType t = pos.captured_hand_type(taken);
    partner.set_pocket(~mover, t, partner.pocket(~mover, t) + 1);
  }
  if (m.is_none())
    pos.do_null_move();
  else
    pos.do_move(m);
}

namespace {
std::string bpgn_label(int board, Color color, int number) {
  char letter = char((board == 0 ? 'A' : 'B') + (color == BLACK ? 'a' - 'A' : 0));
  return std::to_string(number) + letter + '.';
}
}  // namespace

tl::expected<BughouseRecord, std::string> replay_bughouse(const BpgnGame& game) {
  std::string where = "match " + std::to_string(game.index) + " (line " + std::to_string(game.line) + ")";
  BughouseRecord record;
  for (int b = 0; b < 2; ++b) {
    auto fen = find_tag(game.tags, b == 0 ? "FENA" : "FENB");
    auto pos = position_from(fen, VariantChoice{Variant::Bughouse, false});
    if (!pos) return tl::unexpected(where + ": board " + char('A' + b) + ": " + pos.error());
    record.start[b] = *pos;
  }
  record.tags = game.tags;
  record.intro_comment = game.intro_comment;
  record.result = game.result;
  std::array<Position, 2> boards = record.start;
  std::array<MoveCounter, 2> counters{MoveCounter(boards[0]), MoveCounter(boards[1])};
  for (const BpgnMove& token : game.moves) {
    Position& pos = boards[token.board];
    MoveCounter& counter = counters[token.board];
    std::string label = "match " + std::to_string(game.index) + ", line " + std::to_string(token.line) +
                        ", move " + bpgn_label(token.board, token.color, token.number) + " " + token.san +
                        ": ";
    if (token.color != counter.side)
      return tl::unexpected(label + "it is " + (counter.side == WHITE ? "White" : "Black") +
                            "'s turn on board " + char('A' + token.board));
    if (token.number != counter.number)
      return tl::unexpected(label + "board " + char('A' + token.board) + " is at move " +
                            std::to_string(counter.number));
    Move m = Move::none();
    if (!is_null_move(token.san)) {
      auto resolved = resolve(pos, token.san);
      if (!resolved) return tl::unexpected(label + resolved.error());
      m = *resolved;
    } else if (pos.in_check()) {
      return tl::unexpected(label + "null move while in check");
    }
    play_bughouse_move(boards, token.board, m);
    counter.advance();
    BughouseMove bm;
    static_cast<RecordedMove&>(bm) = RecordedMove{m, token.clock_ms, token.emt_ms, token.comment, token.nags};
    bm.board = token.board;
    record.moves.push_back(std::move(bm));
  }
  return record;
}

std::array<Position, 2> final_positions(const BughouseRecord& record) {
  std::array<Position, 2> boards = record.start;
  for (const BughouseMove& m : record.moves) play_bughouse_move(boards, m.board, m.move);
  return boards;
}

tl::expected<std::string, std::string> write_bpgn(const BughouseRecord& record,
                                                  const PgnWriteOptions& options) {
  std::string out;
  for (std::string_view name : {"Event", "Site", "Date"})
    out += quote_tag(name, find_tag(record.tags, name).value_or("?"));
  if (auto round = find_tag(record.tags, "Round")) out += quote_tag("Round", *round);
  for (std::string_view name : {"WhiteA", "BlackA", "WhiteB", "BlackB"})
    out += quote_tag(name, find_tag(record.tags, name).value_or("?"));
  out += quote_tag("Result", result_text(record.result));
  for (int b = 0; b < 2; ++b)
    if (!is_standard_start(record.start[b]))
      out += quote_tag(b == 0 ? "FENA" : "FENB", record.start[b].fen());
  for (const PgnTag& t : record.tags)
    if (!written_elsewhere(t.name, {"Event", "Site", "Date", "Round", "WhiteA", "BlackA", "WhiteB", "BlackB",
                                    "Result", "FENA", "FENB"}))
      out += quote_tag(t.name, t.value);
  out += '\n';

  std::vector<std::string> units;
  comment_units(units, {}, record.intro_comment);
  std::array<Position, 2> boards = record.start;
  std::array<MoveCounter, 2> counters{MoveCounter(boards[0]), MoveCounter(boards[1])};
  for (std::size_t i = 0; i < record.moves.size(); ++i) {
    const BughouseMove& bm = record.moves[i];
    Position& pos = boards[bm.board & 1];
    MoveCounter& counter = counters[bm.board & 1];
    if (bm.move.is_none() ? pos.in_check() : !MoveList(pos).contains(bm.move))
      return tl::unexpected("move " + std::to_string(i + 1) + " of the record is illegal");
    std::string unit =
        bpgn_label(bm.board & 1, counter.side, counter.number) + ' ' + to_san(pos, bm.move, options.san);
    if (bm.clock_ms) unit += '{' + format_seconds(*bm.clock_ms) + '}';
    units.push_back(std::move(unit));
    for (int nag : bm.nags) units.push_back("$" + std::to_string(nag));
    RecordedMove rest = bm;
    rest.clock_ms.reset();  // written above, BPGN style
    move_comment_units(units, rest, false);
    play_bughouse_move(boards, bm.board, bm.move);
    counter.advance();
  }
  units.emplace_back(result_text(record.result));
  out += wrap(units, options.width);
  return out;
}

}  // namespace eboard::rules
