// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/archive_guard.hpp"

#include <cctype>
#include <fstream>
#include <iterator>

namespace eboard::outputs {

namespace {

bool is_result(std::string_view t) { return t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*"; }

// "12.", "12...", "3A.", "3b." (BPGN): a move number, not a move.
bool is_move_number(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0) return false;
  if (i < t.size() && std::isalpha(static_cast<unsigned char>(t[i]))) ++i;
  if (i == t.size()) return true;  // a bare number
  while (i < t.size() && t[i] == '.') ++i;
  return i == t.size();
}

}  // namespace

ArchiveMeasure measure_archive(std::string_view text) {
  ArchiveMeasure m;
  std::size_t i = 0;
  int depth = 0;  // inside ( … ) variations
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '[' && depth == 0 && (i == 0 || text[i - 1] == '\n')) {
      // [Name "Value"]
      std::size_t end = text.find('\n', i);
      std::string_view line =
          text.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i);
      std::size_t q1 = line.find('"'), q2 = line.rfind('"');
      if (q1 != std::string_view::npos && q2 > q1) {
        std::string_view value = line.substr(q1 + 1, q2 - q1 - 1);
        if (value == "*") {
          // the Result tag of a game in progress
        } else if (line.substr(1, 7) == "Result ") {
          m.result = true;
        } else if (!value.empty() && value != "?" && value.find("??") == std::string_view::npos) {
          ++m.named_tags;
        }
      }
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (c == '{') {
      std::size_t end = text.find('}', i);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (c == ';') {
      std::size_t end = text.find('\n', i);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (c == '(') {
      ++depth, ++i;
    } else if (c == ')') {
      depth = depth > 0 ? depth - 1 : 0;
      ++i;
    } else {
      std::size_t end = i;
      while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != '{' &&
             text[end] != '(' && text[end] != ')')
        ++end;
      std::string_view token = text.substr(i, end - i);
      i = end;
      if (depth > 0 || token.empty() || token[0] == '$' || is_result(token) || is_move_number(token))
        continue;
      // "1.e4": a number glued to its move.
      std::size_t dot = token.rfind('.');
      if (dot != std::string_view::npos && dot + 1 < token.size() && is_move_number(token.substr(0, dot + 1)))
        token = token.substr(dot + 1);
      if (!token.empty()) ++m.moves;
    }
  }
  return m;
}

bool poorer(const ArchiveMeasure& next, const ArchiveMeasure& existing) {
  return next.moves < existing.moves || (existing.result && !next.result) ||
         next.named_tags < existing.named_tags;
}

std::filesystem::path recovered_path(const std::filesystem::path& path) {
  std::filesystem::path p = path;
  p += ".recovered";
  return p;
}

bool would_impoverish(const std::filesystem::path& path, std::string_view content) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string existing((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return poorer(measure_archive(content), measure_archive(existing));
}

}  // namespace eboard::outputs
