// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/pairings.hpp"

#include "daemon/outputs/text_encoding.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace eboard::outputs {

namespace {

using Lines = std::vector<std::pair<int, std::string_view>>;  // line number, text without the line end

tl::expected<Lines, std::string> split_lines(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  Lines lines;
  int number = 0;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({++number, line});
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string at_line(int line, const std::string& what) {
  return "line " + std::to_string(line) + ": " + what;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int> small_number(std::string_view s) {
  s = trim(s);
  if (!all_digits(s) || s.size() > 6) return std::nullopt;
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// A player's name or a rating as a PGN tag value may hold it: no control characters, at most 256 bytes.
tl::expected<std::string, std::string> tag_text(std::string_view s, std::string_view what) {
  s = trim(s);
  if (s.size() > 256) return tl::unexpected(std::string(what) + " is longer than 256 characters");
  if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    return tl::unexpected(std::string(what) + " holds a control character");
  return std::string(s);
}

tl::expected<std::string, std::string> rating(std::string_view s, std::string_view what) {
  s = trim(s);
  if (s.empty() || s == "0") return std::string();  // unrated
  if (!all_digits(s) || s.size() > 4)
    return tl::unexpected(std::string(what) + " '" + std::string(s) + "' is not a rating (up to 4 digits)");
  return std::string(s);
}

// One CSV record's fields; quotes as RFC 4180 has them, within the line.
tl::expected<std::vector<std::string>, std::string> csv_fields(std::string_view line, char delimiter) {
  std::vector<std::string> fields;
  std::string field;
  std::size_t i = 0;
  for (;;) {
    field.clear();
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == '"') {
      ++i;
      for (;;) {
        if (i >= line.size()) return tl::unexpected(std::string("a quoted field is not closed"));
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += line[i++];
      }
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < line.size() && line[i] != delimiter)
        return tl::unexpected(std::string("text after a quoted field's closing quote"));
    } else {
      while (i < line.size() && line[i] != delimiter) {
        if (line[i] == '"') return tl::unexpected(std::string("a quote inside an unquoted field"));
        field += line[i++];
      }
    }
    fields.push_back(std::string(trim(field)));
    if (i >= line.size()) return fields;
    ++i;  // the delimiter
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

tl::expected<void, std::string> check_boards(const std::vector<Pairing>& pairings) {
  std::map<int, int> seen;  // board → line
  for (const Pairing& p : pairings) {
    auto [it, fresh] = seen.emplace(p.board, p.line);
    if (!fresh)
      return tl::unexpected(at_line(p.line, "board " + std::to_string(p.board) +
                                                " is paired already on line " + std::to_string(it->second)));
  }
  return {};
}

// A 001 line's fields (columns are 1-based in the standard, 0-based here).
struct TrfPlayer {
  int rank = 0;
  PlayerEntry entry;
  int line = 0;
  std::string_view text;
};

// Columns counted in characters: the text is UTF-8 by now, and a pairing program counts a name's "ö" as
// one column whatever its encoding took for it.
std::string_view columns(std::string_view line, std::size_t first, std::size_t last) {  // 1-based, inclusive
  return utf8_columns(line, first - 1, last - first + 1);
}

// The header's delimiter: ',' unless the header has none and a ';' (a spreadsheet of a locale whose decimal
// separator is the comma) or a tab.
char csv_delimiter(std::string_view header) {
  bool quoted = false;
  int comma = 0, semicolon = 0, tab = 0;
  for (char c : header) {
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    comma += c == ',';
    semicolon += c == ';';
    tab += c == '\t';
  }
  if (comma == 0 && semicolon > 0) return ';';
  if (comma == 0 && tab > 0) return '\t';
  return ',';
}

struct TrfRound {
  int opponent = 0;  // 0: bye or not paired
  char colour = '-';
  char result = ' ';
};

tl::expected<TrfRound, std::string> trf_round(const TrfPlayer& p, int round) {
  const std::size_t start = 92 + std::size_t(round - 1) * 10;
  TrfRound r;
  std::string_view opp = trim(columns(p.text, start, start + 3));
  if (!opp.empty()) {
    auto n = small_number(opp);
    if (!n)
      return tl::unexpected(at_line(p.line, "round " + std::to_string(round) + ": opponent '" +
                                                std::string(opp) + "' is not a starting rank"));
    r.opponent = *n;
  }
  std::string_view colour = columns(p.text, start + 5, start + 5);
  r.colour = colour.empty() || colour[0] == ' ' ? '-' : colour[0];
  if (r.colour != 'w' && r.colour != 'b' && r.colour != '-')
    return tl::unexpected(at_line(p.line, "round " + std::to_string(round) + ": colour '" +
                                              std::string(1, r.colour) + "' is not w, b or -"));
  std::string_view result = columns(p.text, start + 7, start + 7);
  r.result = result.empty() ? ' ' : result[0];
  return r;
}

tl::expected<std::vector<Pairing>, std::string> csv_utf8(std::string_view text) {
  auto lines = split_lines(text);
  if (!lines) return tl::unexpected(lines.error());
  std::vector<Pairing> out;
  std::map<std::string, std::size_t> column;  // name → index
  char delimiter = ',';
  for (const auto& [number, line] : *lines) {
    if (trim(line).empty() || trim(line).starts_with('#')) continue;
    if (column.empty()) delimiter = csv_delimiter(line);
    auto fields = csv_fields(line, delimiter);
    if (!fields) return tl::unexpected(at_line(number, fields.error()));
    if (column.empty()) {
      for (std::size_t i = 0; i < fields->size(); ++i) {
        std::string name = lower((*fields)[i]);
        // result and termination: what results_csv adds; a file exported reads back as the pairings.
        if (name != "board" && name != "white" && name != "black" && name != "white_elo" &&
            name != "black_elo" && name != "result" && name != "termination")
          return tl::unexpected(at_line(
              number,
              "unknown column '" + (*fields)[i] + "' (the header is board,white,black,white_elo,black_elo)"));
        if (!column.emplace(name, i).second)
          return tl::unexpected(at_line(number, "column '" + name + "' twice"));
      }
      for (const char* needed : {"board", "white", "black"})
        if (!column.count(needed))
          return tl::unexpected(at_line(number, std::string("the header has no '") + needed +
                                                    "' column (board,white,black,white_elo,black_elo)"));
      continue;
    }
    if (fields->size() != column.size())
      return tl::unexpected(at_line(number, std::to_string(fields->size()) + " fields where the header has " +
                                                std::to_string(column.size())));
    auto field = [&](const char* name) -> std::string {
      auto it = column.find(name);
      return it == column.end() ? std::string() : (*fields)[it->second];
    };
    Pairing p;
    p.line = number;
    auto board = small_number(field("board"));
    if (!board || *board < 1 || *board > 9999)
      return tl::unexpected(at_line(number, "board '" + field("board") + "' is not a number from 1 to 9999"));
    p.board = *board;
    for (auto [name, to] : {std::pair{"white", &p.white.name}, std::pair{"black", &p.black.name}}) {
      auto v = tag_text(field(name), name);
      if (!v) return tl::unexpected(at_line(number, v.error()));
      *to = *v;
    }
    for (auto [name, to] : {std::pair{"white_elo", &p.white.elo}, std::pair{"black_elo", &p.black.elo}}) {
      auto v = rating(field(name), name);
      if (!v) return tl::unexpected(at_line(number, v.error()));
      *to = *v;
    }
    out.push_back(std::move(p));
  }
  if (column.empty()) return tl::unexpected(std::string("the file is empty (no header line)"));
  if (auto ok = check_boards(out); !ok) return tl::unexpected(ok.error());
  return out;
}

tl::expected<std::vector<Pairing>, std::string> trf_utf8(std::string_view text, int round) {
  if (round < 1 || round > 999) return tl::unexpected("round " + std::to_string(round) + " is not 1 to 999");
  auto lines = split_lines(text);
  if (!lines) return tl::unexpected(lines.error());
  std::map<int, TrfPlayer> players;
  for (const auto& [number, line] : *lines) {
    if (!line.starts_with("001")) continue;
    TrfPlayer p;
    p.line = number;
    p.text = line;
    auto rank = small_number(columns(line, 5, 8));
    if (!rank || *rank < 1 || *rank > 9999)
      return tl::unexpected(at_line(number, "the starting rank (columns 5-8) '" +
                                                std::string(columns(line, 5, 8)) + "' is not 1 to 9999"));
    p.rank = *rank;
    p.entry.rank = *rank;
    auto name = tag_text(columns(line, 15, 47), "the name (columns 15-47)");
    if (!name) return tl::unexpected(at_line(number, name.error()));
    p.entry.name = *name;
    auto title = tag_text(columns(line, 11, 13), "the title");
    if (!title) return tl::unexpected(at_line(number, title.error()));
    p.entry.title = *title;
    auto elo = rating(columns(line, 49, 52), "the rating (columns 49-52)");
    if (!elo) return tl::unexpected(at_line(number, elo.error()));
    p.entry.elo = *elo;
    std::string_view id = trim(columns(line, 58, 68));
    if (!id.empty() && !all_digits(id))
      return tl::unexpected(
          at_line(number, "the FIDE number (columns 58-68) '" + std::string(id) + "' is not a number"));
    if (id != "0") p.entry.fide_id = std::string(id);
    auto [it, fresh] = players.emplace(p.rank, p);
    if (!fresh)
      return tl::unexpected(at_line(number, "starting rank " + std::to_string(p.rank) + " is on line " +
                                                std::to_string(it->second.line) + " already"));
  }
  if (players.empty()) return tl::unexpected(std::string("no player lines (001) in the file"));

  // Scores before the round, and the round's games as seen from White.
  std::map<int, int> halves;
  for (const auto& [rank, p] : players) {
    for (int r = 1; r < round; ++r) {
      auto rr = trf_round(p, r);
      if (!rr) return tl::unexpected(rr.error());
      halves[rank] += half_points(rr->result);
    }
  }
  std::vector<Pairing> out;
  struct Order {
    int high_halves, sum_halves, high_rank;
  };
  std::vector<Order> order;
  std::set<int> seen_black;
  for (const auto& [rank, p] : players) {
    auto rr = trf_round(p, round);
    if (!rr) return tl::unexpected(rr.error());
    if (rr->opponent == 0 || rr->colour == '-') continue;
    auto opp = players.find(rr->opponent);
    if (opp == players.end())
      return tl::unexpected(at_line(p.line, "round " + std::to_string(round) + ": opponent " +
                                                std::to_string(rr->opponent) + " has no 001 line"));
    if (rr->opponent == rank)
      return tl::unexpected(at_line(p.line, "round " + std::to_string(round) + ": paired with itself"));
    auto back = trf_round(opp->second, round);
    if (!back) return tl::unexpected(back.error());
    if (back->opponent != rank || back->colour == rr->colour || back->colour == '-')
      return tl::unexpected(at_line(p.line, "round " + std::to_string(round) + ": plays " +
                                                std::to_string(rr->opponent) + " with " +
                                                (rr->colour == 'w' ? "white" : "black") + ", but line " +
                                                std::to_string(opp->second.line) + " does not say so"));
    if (rr->colour != 'w') continue;  // the pair is taken from White's line
    Pairing pairing;
    pairing.white = p.entry;
    pairing.black = opp->second.entry;
    pairing.line = p.line;
    int hw = halves[rank], hb = halves[rr->opponent];
    int high = hw > hb || (hw == hb && rank < rr->opponent) ? rank : rr->opponent;
    order.push_back({halves[high], hw + hb, high});
    out.push_back(std::move(pairing));
  }
  if (out.empty())
    return tl::unexpected("no games in round " + std::to_string(round) + " (columns " +
                          std::to_string(92 + (round - 1) * 10) + "-" +
                          std::to_string(100 + (round - 1) * 10) + " of the 001 lines)");
  std::vector<std::size_t> index(out.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) {
    const Order &x = order[a], &y = order[b];
    if (x.high_halves != y.high_halves) return x.high_halves > y.high_halves;
    if (x.sum_halves != y.sum_halves) return x.sum_halves > y.sum_halves;
    return x.high_rank < y.high_rank;
  });
  std::vector<Pairing> boards;
  for (std::size_t i = 0; i < index.size(); ++i) {
    boards.push_back(out[index[i]]);
    boards.back().board = int(i + 1);
  }
  return boards;
}

// The file as UTF-8; the size is checked before anything is made of it.
tl::expected<DecodedText, std::string> decoded(std::string_view bytes, std::string_view encoding) {
  if (bytes.size() > MAX_PAIRINGS_TEXT_BYTES)
    return tl::unexpected("the file is larger than " + std::to_string(MAX_PAIRINGS_TEXT_BYTES >> 20) +
                          " MiB");
  return decode_text(bytes, encoding);
}

}  // namespace

int half_points(char result) {
  switch (result) {
    case '1':
    case '+':
    case 'W':
    case 'F':
      return 2;
    case '=':
    case 'D':
    case 'H':
      return 1;
    default:
      return 0;
  }
}

bool is_trf(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text.starts_with("001") || text.starts_with("012") || text.find("\n001") != std::string_view::npos ||
         text.find("\n012") != std::string_view::npos;
}

tl::expected<std::vector<Pairing>, std::string> parse_pairings_csv(std::string_view bytes,
                                                                   std::string_view encoding) {
  auto text = decoded(bytes, encoding);
  if (!text) return tl::unexpected(text.error());
  return csv_utf8(text->text);
}

tl::expected<std::vector<Pairing>, std::string> parse_trf(std::string_view bytes, int round,
                                                          std::string_view encoding) {
  auto text = decoded(bytes, encoding);
  if (!text) return tl::unexpected(text.error());
  return trf_utf8(text->text, round);
}

tl::expected<std::vector<Pairing>, std::string> parse_pairings(std::string_view bytes, int round,
                                                               std::string_view encoding) {
  auto text = decoded(bytes, encoding);
  if (!text) return tl::unexpected(text.error());
  return is_trf(text->text) ? trf_utf8(text->text, round) : csv_utf8(text->text);
}

rules::PgnTags pairing_tags(const Pairing& p) {
  return {{"White", p.white.name},          {"Black", p.black.name},         {"WhiteElo", p.white.elo},
          {"BlackElo", p.black.elo},        {"WhiteTitle", p.white.title},   {"BlackTitle", p.black.title},
          {"WhiteFideId", p.white.fide_id}, {"BlackFideId", p.black.fide_id}};
}

}  // namespace eboard::outputs
