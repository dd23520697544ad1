// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/round_results.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include "daemon/outputs/arbiter_result.hpp"
#include "daemon/outputs/text_encoding.hpp"
#include "rules/pgn.hpp"

namespace eboard::outputs {

namespace {

std::string tag_or(const rules::PgnGame& g, std::string_view name, std::string_view otherwise = "") {
  auto v = g.tag(name);
  return std::string(v ? *v : otherwise);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// A fixed-width line as characters (UTF-8 sequences), 1-based columns.
class Columns {
 public:
  explicit Columns(std::string_view line) {
    for (std::size_t i = 0; i < line.size();) {
      std::string_view c = utf8_columns(line.substr(i), 0, 1);
      if (c.empty()) break;
      chars_.emplace_back(c);
      i += c.size();
    }
  }
  // `text` in columns first … first + width − 1, right-aligned or left, cut to the width.
  void put(std::size_t first, std::size_t width, std::string_view text, bool right) {
    Columns t(text);
    std::vector<std::string> cells(width, " ");
    const std::size_t n = std::min(width, t.chars_.size());
    for (std::size_t k = 0; k < n; ++k) cells[right ? width - n + k : k] = t.chars_[k];
    if (chars_.size() < first - 1 + width) chars_.resize(first - 1 + width, " ");
    for (std::size_t k = 0; k < width; ++k) chars_[first - 1 + k] = cells[k];
  }
  std::string get(std::size_t first, std::size_t width) const {
    std::string out;
    for (std::size_t k = first - 1; k < first - 1 + width && k < chars_.size(); ++k) out += chars_[k];
    return out;
  }
  std::string text() const {
    std::string out;
    for (const auto& c : chars_) out += c;
    while (out.ends_with(' ')) out.pop_back();
    return out;
  }

 private:
  std::vector<std::string> chars_;
};

// TRF-16's result of a game as one player's line has it (`code`: GameResult::code()).
char trf_result(const std::string& code, bool white) {
  auto c = trf_codes(code);
  if (!c) return ' ';
  return white ? c->first : c->second;
}

std::size_t round_column(int round) { return 92 + std::size_t(round - 1) * 10; }

void put_round(Columns& line, int round, int opponent, char colour, char result) {
  const std::size_t at = round_column(round);
  line.put(at, 4, std::to_string(opponent), true);
  line.put(at + 4, 1, " ", false);
  line.put(at + 5, 1, std::string(1, colour), false);
  line.put(at + 6, 1, " ", false);
  line.put(at + 7, 1, std::string(1, result), false);
}

// Columns 81-84: the points of the rounds up to `round`.
void put_points(Columns& line, int round) {
  int halves = 0;
  for (int r = 1; r <= round; ++r) {
    const std::string code = line.get(round_column(r) + 7, 1);
    if (!code.empty()) halves += half_points(code[0]);
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "%d.%d", halves / 2, halves % 2 ? 5 : 0);
  line.put(81, 4, buf, true);
}

Columns player_line(int rank, const PlayerEntry& p) {
  Columns line("001");
  line.put(5, 4, std::to_string(rank), true);
  line.put(11, 3, p.title, true);
  line.put(15, 33, p.name, false);
  line.put(49, 4, p.elo, true);
  line.put(58, 11, p.fide_id, true);
  line.put(86, 4, std::to_string(rank), true);
  return line;
}

}  // namespace

tl::expected<std::vector<GameResult>, std::string> round_results(
    std::string_view pgn, const std::function<int(std::string_view)>& board_number) {
  std::map<int, GameResult> by_board;
  rules::PgnReader reader(pgn);
  while (auto next = reader.next()) {
    if (!*next) continue;  // a game that cannot be read gives no result (the others still do)
    const rules::PgnGame& g = **next;
    GameResult r;
    r.board_id = tag_or(g, "Board");
    r.board = board_number(r.board_id);
    if (r.board <= 0) continue;
    r.white = {tag_or(g, "White", "?"), tag_or(g, "WhiteElo"), tag_or(g, "WhiteTitle"),
               tag_or(g, "WhiteFideId"), 0};
    r.black = {tag_or(g, "Black", "?"), tag_or(g, "BlackElo"), tag_or(g, "BlackTitle"),
               tag_or(g, "BlackFideId"), 0};
    r.result = g.result;
    if (r.result == "*") r.result = tag_or(g, "Result", "*");
    if (r.result != "1-0" && r.result != "0-1" && r.result != "1/2-1/2") r.result = "*";
    if (auto a = g.tag("ArbiterResult"); a && valid_arbiter_code(*a) && pgn_result(*a) == r.result)
      r.arbiter = std::string(*a);
    const bool over = r.code() != "*";
    r.termination = over ? tag_or(g, "Termination") : "";
    auto it = by_board.find(r.board);
    // The board's last finished game stands; a game set up after it (not begun) does not replace it.
    if (it == by_board.end() || over || it->second.code() == "*") by_board[r.board] = std::move(r);
  }
  std::vector<GameResult> out;
  out.reserve(by_board.size());
  for (auto& [n, r] : by_board) out.push_back(std::move(r));
  return out;
}

std::string results_csv(const std::vector<GameResult>& results) {
  std::string out = "board,white,black,white_elo,black_elo,result,termination\r\n";
  for (const auto& r : results)
    out += std::to_string(r.board) + "," + csv_field(r.white.name) + "," + csv_field(r.black.name) + "," +
           r.white.elo + "," + r.black.elo + "," + (r.code() == "*" ? "" : r.code()) + "," +
           csv_field(r.termination) + "\r\n";
  return out;
}

tl::expected<std::string, std::string> results_trf(const std::vector<GameResult>& results, int round,
                                                   std::string_view source, std::string_view event) {
  if (round < 1 || round > 999)
    return tl::unexpected("TRF-16 numbers its rounds: round " + std::to_string(round) + " is not 1 to 999");
  std::string out;
  if (source.empty() && results.size() > 4999)
    return tl::unexpected(std::string("TRF-16 numbers at most 9999 players"));
  if (source.empty()) {
    out += "012 " + utf8_or_replaced(event.empty() ? "eboardd" : event) + "\r\n";
    int rank = 0;
    for (const auto& r : results) {
      Columns white = player_line(++rank, r.white);
      Columns black = player_line(++rank, r.black);
      put_round(white, round, rank, 'w', trf_result(r.code(), true));
      put_round(black, round, rank - 1, 'b', trf_result(r.code(), false));
      put_points(white, round);
      put_points(black, round);
      out += white.text() + "\r\n" + black.text() + "\r\n";
    }
    return out;
  }
  auto pairings = parse_trf(source, round, "UTF-8");
  if (!pairings) return tl::unexpected("the round's TRF pairings: " + pairings.error());
  // Starting rank → (opponent, colour, result) of the round.
  std::map<int, std::tuple<int, char, char>> games;
  for (const auto& p : *pairings) {
    auto r =
        std::find_if(results.begin(), results.end(), [&](const GameResult& g) { return g.board == p.board; });
    const std::string result = r == results.end() ? "*" : r->code();
    games[p.white.rank] = {p.black.rank, 'w', trf_result(result, true)};
    games[p.black.rank] = {p.white.rank, 'b', trf_result(result, false)};
  }
  std::size_t at = 0;
  if (source.starts_with("\xEF\xBB\xBF")) at = 3;
  while (at < source.size()) {
    std::size_t end = source.find('\n', at);
    std::string_view line = source.substr(at, (end == std::string_view::npos ? source.size() : end) - at);
    at = end == std::string_view::npos ? source.size() : end + 1;
    while (line.ends_with('\r')) line.remove_suffix(1);
    if (!line.starts_with("001")) {
      out += std::string(line) + "\r\n";
      continue;
    }
    Columns c(line);
    std::string rank_text = c.get(5, 4);
    int rank = 0;
    for (char ch : rank_text)
      if (ch >= '0' && ch <= '9') rank = rank * 10 + (ch - '0');
    if (auto g = games.find(rank); g != games.end()) {
      auto [opponent, colour, result] = g->second;
      put_round(c, round, opponent, colour, result);
    }
    put_points(c, round);  // a bye's too
    out += c.text() + "\r\n";
  }
  return out;
}

}  // namespace eboard::outputs
