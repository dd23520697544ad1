// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/arbiter_result.hpp"

#include <algorithm>
#include <ctime>
#include <tuple>
#include <vector>

#include "daemon/outputs/pgn_output.hpp"
#include "daemon/outputs/text_encoding.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"

namespace eboard::outputs {

namespace {

bool is_pgn_result(std::string_view t) { return t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*"; }

std::string escaped(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The tag line's name and value, if `line` is one.
std::optional<std::pair<std::string, std::string>> tag_line(std::string_view line) {
  while (line.ends_with('\r')) line.remove_suffix(1);
  if (line.size() < 4 || line.front() != '[' || line.back() != ']') return std::nullopt;
  const auto space = line.find(' ');
  const auto q1 = line.find('"');
  if (space == std::string_view::npos || q1 == std::string_view::npos || q1 < space) return std::nullopt;
  std::string value;
  std::size_t i = q1 + 1;
  for (; i < line.size() && line[i] != '"'; ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) ++i;
    value += line[i];
  }
  if (i >= line.size()) return std::nullopt;
  return std::pair{std::string(line.substr(1, space - 1)), value};
}

// A record's tag section, as lines [first, end): the tag lines after any blank lines that begin the record,
// up to the first line that is not a tag (a tag-like line in the movetext is no tag).
std::pair<std::size_t, std::size_t> tag_section(const std::vector<std::string>& lines) {
  std::size_t first = 0;
  while (first < lines.size() && lines[first].find_first_not_of(" \t\r") == std::string::npos) ++first;
  std::size_t end = first;
  while (end < lines.size() && tag_line(lines[end])) ++end;
  return {first, end};
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto end = text.find('\n', at);
    if (end == std::string_view::npos) {
      lines.emplace_back(text.substr(at));
      break;
    }
    lines.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

}  // namespace

std::string team1_code(int board, std::string_view code) {
  if (board == 0) return std::string(code);
  static constexpr std::pair<std::string_view, std::string_view> SWAPPED[] = {
      {"1-0", "0-1"}, {"0-1", "1-0"}, {"+/-", "-/+"}, {"-/+", "+/-"}};
  for (const auto& [from, to] : SWAPPED)
    if (code == from) return std::string(to);
  return std::string(code);
}

bool valid_arbiter_code(std::string_view code) {
  return code == "1-0" || code == "0-1" || code == "1/2-1/2" || code == "+/-" || code == "-/+" ||
         code == "-/-";
}

tl::expected<ArbiterVerdict, std::string> make_verdict(std::string_view code, std::string_view kind,
                                                       std::string_view rule, std::string_view reason) {
  ArbiterVerdict v;
  if (code == "1/2" || code == "=" || code == "½-½") code = "1/2-1/2";
  if (!valid_arbiter_code(code))
    return tl::unexpected(
        "\"result\" must be 1-0, 0-1, 1/2-1/2 (a decision or a flag), +/-, -/+ (a forfeit) "
        "or -/- (a double forfeit), not \"" +
        utf8_or_replaced(code.substr(0, 20)) + "\"");
  v.code = std::string(code);
  const bool forfeit = code.find('+') != std::string_view::npos || code == "-/-";
  if (kind.empty()) kind = forfeit ? "forfeit" : "decision";
  if (kind != "decision" && kind != "forfeit" && kind != "flag")
    return tl::unexpected("\"kind\" must be decision, forfeit or flag, not \"" +
                          utf8_or_replaced(kind.substr(0, 20)) + "\"");
  if ((kind == "forfeit") != forfeit)
    return tl::unexpected(forfeit ? "a forfeit's result is +/-, -/+ or -/-, and " + v.code + " is one"
                                  : "a forfeit's result is +/-, -/+ or -/-, not " + v.code);
  v.kind = std::string(kind);
  if (rule.empty()) rule = kind == "forfeit" ? "6.7.1" : kind == "flag" ? "6.9" : "12.2";
  if (rule.size() > 32 || !valid_utf8(rule) ||
      std::any_of(rule.begin(), rule.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    return tl::unexpected(
        std::string("\"rule\" is the FIDE article (e.g. \"6.7.1\"), at most 32 characters"));
  v.rule = std::string(rule);
  if (reason.empty() || reason.size() > 200 || !valid_utf8(reason) ||
      std::any_of(reason.begin(), reason.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    return tl::unexpected(
        std::string("\"reason\" is the arbiter's words, 1 to 200 characters on one line (it goes into the "
                    "record)"));
  v.reason = std::string(reason);
  return v;
}

std::string pgn_result(std::string_view code) {
  if (code == "+/-") return "1-0";
  if (code == "-/+") return "0-1";
  if (code == "-/-") return "*";
  return std::string(code);
}

std::string event_reason(std::string_view kind) {
  if (kind == "forfeit") return "forfeit";
  if (kind == "flag") return "flag";
  return "arbiter";
}

std::optional<std::pair<char, char>> trf_codes(std::string_view code) {
  if (code == "1-0") return std::pair{'1', '0'};
  if (code == "0-1") return std::pair{'0', '1'};
  if (code == "1/2-1/2") return std::pair{'=', '='};
  if (code == "+/-") return std::pair{'+', '-'};
  if (code == "-/+") return std::pair{'-', '+'};
  if (code == "-/-") return std::pair{'-', '-'};
  return std::nullopt;
}

std::optional<std::string> pgn_tag(std::string_view pgn, std::string_view name) {
  const std::vector<std::string> lines = split_lines(pgn);
  const auto [first, end] = tag_section(lines);
  for (std::size_t i = first; i < end; ++i)
    if (auto t = tag_line(lines[i]); t->first == name) return t->second;
  return std::nullopt;
}

tl::expected<std::string, std::string> apply_verdict(std::string_view pgn, const ArbiterVerdict& v,
                                                     bool correction) {
  std::vector<std::string> lines = split_lines(pgn);
  std::size_t first_tag = 0, end_tags = 0;
  std::tie(first_tag, end_tags) = tag_section(lines);
  if (end_tags == first_tag) return tl::unexpected(std::string("the record has no tags"));
  // The movetext's last token is the result.
  std::size_t last = lines.size();
  while (last > end_tags && lines[last - 1].find_first_not_of(" \t\r") == std::string::npos) --last;
  if (last == end_tags) return tl::unexpected(std::string("the record has no movetext"));
  std::string& tail = lines[last - 1];
  const auto token_end = tail.find_last_not_of(" \t\r") + 1;
  const auto space = tail.find_last_of(" \t", token_end - 1);
  const std::size_t token_begin = space == std::string::npos ? 0 : space + 1;
  if (!is_pgn_result(std::string_view(tail).substr(token_begin, token_end - token_begin)))
    return tl::unexpected(std::string("the record's movetext does not end in a result"));
  const std::string result = pgn_result(v.code);
  tail.replace(token_begin, token_end - token_begin, result);

  std::string old_result = "*", old_termination;
  for (std::size_t i = first_tag; i < end_tags; ++i) {
    auto t = tag_line(lines[i]);
    if (t->first == "Result") old_result = t->second;
    if (t->first == "Termination") old_termination = t->second;
  }
  std::vector<std::pair<std::string, std::string>> set{{"Result", result},
                                                       {"Termination", event_reason(v.kind)},
                                                       {"ArbiterResult", v.code},
                                                       {"ArbiterRule", v.rule},
                                                       {"ArbiterReason", v.reason}};
  if (!v.by.empty()) set.push_back({"ArbiterBy", v.by});
  if (!v.board.empty()) set.push_back({"ArbiterBoard", v.board});
  if (v.at_ms > 0) {
    std::time_t s = std::time_t(v.at_ms / 1000);
    std::tm tm{};
    ::gmtime_r(&s, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    set.push_back({"ArbiterTime", buf});
  }
  if (correction)
    set.push_back({"ArbiterPrevious", old_result + (old_termination.empty() ? "" : " " + old_termination)});
  for (const auto& tag : set) {
    const std::string& name = tag.first;
    const std::string line = "[" + name + " \"" + escaped(tag.second) + "\"]";
    auto it = std::find_if(lines.begin() + std::ptrdiff_t(first_tag),
                           lines.begin() + std::ptrdiff_t(end_tags), [&](const std::string& l) {
                             auto t = tag_line(l);
                             return t && t->first == name;
                           });
    if (it != lines.begin() + std::ptrdiff_t(end_tags)) {
      *it = line;
    } else {
      lines.insert(lines.begin() + std::ptrdiff_t(end_tags), line);
      ++end_tags;
    }
  }
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() ? "\n" : "");
  return out;
}

tl::expected<std::string, std::string> apply_partner_result(std::string_view pgn, std::string_view result,
                                                            const ArbiterVerdict& v) {
  if (result != "1-0" && result != "0-1" && result != "1/2-1/2")
    return tl::unexpected("a partner board's result is 1-0, 0-1 or 1/2-1/2, not " + std::string(result));
  ArbiterVerdict as_partner = v;
  as_partner.code = std::string(result);
  as_partner.kind = "decision";
  auto applied = apply_verdict(pgn, as_partner, true);
  if (!applied) return applied;
  // apply_verdict's tags, made the partner's: the game was stopped by its partner board, not decided here.
  // In the tag section only (the blank lines before it, then its tags); the movetext is kept as it is.
  std::vector<std::string> kept;
  bool tags = true, seen_tag = false;
  for (const std::string& line : split_lines(*applied)) {
    auto t = tags ? tag_line(line) : std::nullopt;
    if (tags && !t && (seen_tag || line.find_first_not_of(" \t\r") != std::string::npos)) tags = false;
    seen_tag = seen_tag || t.has_value();
    if (t && (t->first == "ArbiterResult" || t->first == "ArbiterRule")) continue;
    kept.push_back(t && t->first == "Termination" ? "[Termination \"partner-board\"]" : line);
  }
  std::string out;
  for (std::size_t i = 0; i < kept.size(); ++i) out += kept[i] + (i + 1 < kept.size() ? "\n" : "");
  return out;
}

tl::expected<std::string, std::string> replace_moves(std::string_view pgn, int from_ply,
                                                     std::string_view moves, const ArbiterVerdict& v) {
  auto games = rules::read_pgn(pgn);
  if (!games) return tl::unexpected("the record cannot be read: " + games.error());
  if (games->size() != 1) return tl::unexpected(std::string("the record is not one game"));
  auto record = rules::replay(games->front());
  if (!record) return tl::unexpected("the record cannot be replayed: " + record.error());
  rules::GameRecord r = std::move(*record);
  if (from_ply < 1 || std::size_t(from_ply) > r.moves.size() + 1)
    return tl::unexpected("\"from_ply\" must be 1 to " + std::to_string(r.moves.size() + 1) +
                          " (the record has " + std::to_string(r.moves.size()) + " plies)");
  rules::Position pos = r.start;
  for (int i = 0; i + 1 < from_ply; ++i) pos.do_move(r.moves[std::size_t(i)].move);
  std::string was;
  {
    rules::Position p = pos;
    for (std::size_t i = std::size_t(from_ply - 1); i < r.moves.size(); ++i) {
      const rules::Move m = r.moves[i].move;
      was += (was.empty() ? "" : " ") + (m == rules::Move::none() ? std::string("--") : rules::to_san(p, m));
      p.do_move(m);
    }
  }
  r.moves.resize(std::size_t(from_ply - 1));
  int ply = from_ply;
  for (const std::string& token : typed_move_tokens(moves)) {
    auto m = parse_typed_move(pos, token);
    if (!m)
      return tl::unexpected("ply " + std::to_string(ply) + ": \"" +
                            utf8_or_replaced(std::string_view(token).substr(0, 16)) +
                            "\" is no legal move there (" + m.error() + ")");
    rules::RecordedMove rm;
    rm.move = *m;
    r.moves.push_back(rm);
    pos.do_move(*m);
    ++ply;
  }
  if (was.size() > 180) was = std::string(utf8_columns(was, 0, 180)) + " …";
  set_correction_tags(r.tags, "from ply " + std::to_string(from_ply) + "; was: " + (was.empty() ? "-" : was),
                      v);
  auto text = rules::write_pgn(r);
  if (!text) return tl::unexpected("the corrected record cannot be written: " + text.error());
  std::string out = std::move(*text);
  if (!out.ends_with("\n\n")) out += out.ends_with('\n') ? "\n" : "\n\n";
  return out;
}

std::vector<std::string> typed_move_tokens(std::string_view moves) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < moves.size();) {
    const auto end = std::min(moves.find_first_of(" \t\r\n", at), moves.size());
    std::string_view token = moves.substr(at, end - at);
    at = end + 1;
    if (token.empty()) continue;
    const auto dot = token.rfind('.');
    if (dot != std::string_view::npos) token = token.substr(dot + 1);  // "12.e4", "12...", "12."
    if (token.empty() || std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    out.emplace_back(token);
  }
  return out;
}

tl::expected<rules::Move, std::string> parse_typed_move(const rules::Position& pos, std::string_view token) {
  auto m = rules::parse_san(pos, token);
  if (m) return m;
  std::string_view uci = token;
  while (!uci.empty() && (uci.back() == '+' || uci.back() == '#')) uci.remove_suffix(1);
  if (auto u = rules::parse_uci(pos, uci)) return u;
  return tl::unexpected(m.error());
}

void set_correction_tags(rules::PgnTags& tags, const std::string& corrected, const ArbiterVerdict& v) {
  set_pgn_tag(tags, "MovesCorrected", corrected);
  set_pgn_tag(tags, "ArbiterReason", v.reason);
  if (!v.by.empty()) set_pgn_tag(tags, "ArbiterBy", v.by);
  if (v.at_ms > 0) {
    std::time_t s = std::time_t(v.at_ms / 1000);
    std::tm tm{};
    ::gmtime_r(&s, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    set_pgn_tag(tags, "ArbiterTime", buf);
  }
}

}  // namespace eboard::outputs
