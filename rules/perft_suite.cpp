// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/perft_suite.hpp"

#include <charconv>

namespace eboard::rules {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

template <typename T>
bool parse_number(std::string_view s, T& out) {
  s = trim(s);
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

tl::unexpected<std::string> line_error(int line, std::string_view what) {
  return tl::unexpected("line " + std::to_string(line) + ": " + std::string(what));
}

}  // namespace

tl::expected<std::vector<PerftCase>, std::string> parse_perft_suite(std::string_view text) {
  std::vector<PerftCase> cases;
  PerftCase* block = nullptr;  // the current python-chess block, if any
  std::string pending_id;
  int line_no = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    if (line.rfind("id ", 0) == 0) {
      pending_id = std::string(trim(line.substr(3)));
      block = nullptr;
    } else if (line.rfind("epd ", 0) == 0) {
      PerftCase c;
      c.id = pending_id.empty() ? "line " + std::to_string(line_no) : pending_id;
      c.fen = std::string(trim(line.substr(4)));
      c.line = line_no;
      pending_id.clear();
      cases.push_back(std::move(c));
      block = &cases.back();
    } else if (line.rfind("perft ", 0) == 0) {
      if (!block) return line_error(line_no, "'perft' outside an 'epd' block");
      std::string_view rest = trim(line.substr(6));
      std::size_t sp = rest.find(' ');
      PerftExpectation e{};
      if (sp == std::string_view::npos || !parse_number(rest.substr(0, sp), e.depth) ||
          !parse_number(rest.substr(sp + 1), e.nodes) || e.depth < 0)
        return line_error(line_no, "expected 'perft DEPTH NODES'");
      block->expected.push_back(e);
    } else if (line.find(';') != std::string_view::npos) {
      // EPD: FEN ;D1 20 ;D2 400 …
      PerftCase c;
      c.id = "line " + std::to_string(line_no);
      c.line = line_no;
      std::size_t semi = line.find(';');
      c.fen = std::string(trim(line.substr(0, semi)));
      std::string_view ops = line.substr(semi + 1);
      while (!ops.empty()) {
        std::size_t next = ops.find(';');
        std::string_view op = trim(ops.substr(0, next));
        ops = next == std::string_view::npos ? std::string_view{} : ops.substr(next + 1);
        if (op.empty()) continue;
        if (op.front() != 'D') continue;  // other EPD operations (id, bm …) are not ours to check
        std::size_t sp = op.find(' ');
        PerftExpectation e{};
        if (sp == std::string_view::npos || !parse_number(op.substr(1, sp - 1), e.depth) ||
            !parse_number(op.substr(sp + 1), e.nodes))
          return line_error(line_no, "expected ';Dn NODES'");
        c.expected.push_back(e);
      }
      cases.push_back(std::move(c));
      block = nullptr;
    } else {
      return line_error(line_no, "not a perft suite line: '" + std::string(line.substr(0, 40)) + "'");
    }
  }
  return cases;
}

}  // namespace eboard::rules
