// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/routes.hpp"

#include <charconv>

namespace eboard::eboardd {

namespace {

// The column /index.txt's paths start in, and the one their summaries start in.
constexpr std::size_t PATH_COLUMN = 5;
constexpr std::size_t SUMMARY_COLUMN = 33;

bool segment_matches(std::string_view pattern, std::string_view segment) {
  if (pattern.empty() || pattern.front() != '<') return pattern == segment;
  const auto close = pattern.find('>');
  const std::string_view suffix = close == std::string_view::npos ? "" : pattern.substr(close + 1);
  return segment.size() > suffix.size() && segment.ends_with(suffix);
}

std::string index_line(std::string_view method, std::string_view path, std::string_view summary) {
  std::string line(method);
  line.append(line.size() < PATH_COLUMN ? PATH_COLUMN - line.size() : 1, ' ');
  line += path;
  line.append(line.size() < SUMMARY_COLUMN ? SUMMARY_COLUMN - line.size() : 1, ' ');
  // A summary's later lines start in its column too.
  for (char c : summary) {
    line += c;
    if (c == '\n') line.append(SUMMARY_COLUMN, ' ');
  }
  return line + "\n";
}

}  // namespace

Door door_of(const http::Request& r) {
  if (r.path.starts_with("/control/") || r.path == "/control") return Door::control;
  if ((r.path == "/boards" && !r.websocket) || (r.method == "DELETE" && r.path.starts_with("/boards/")))
    return Door::control;
  if (r.path == "/auth/ticket") return Door::ticket;
  if (r.method == "GET" && !r.websocket &&
      ((r.path == "/" && r.query_value("format") != "text") || r.path == "/index.html" ||
       r.path.starts_with("/web/")))
    return Door::page;
  return Door::read;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  while (!path.empty()) {
    if (path.front() == '/') {
      path.remove_prefix(1);
      continue;
    }
    auto slash = path.find('/');
    parts.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash);
  }
  return parts;
}

bool path_matches(Door door, std::string_view pattern, std::string_view path) {
  const bool by_segments = door == Door::control || pattern.find('<') != std::string_view::npos;
  if (!by_segments) {
    if (pattern.ends_with("/*")) return path.starts_with(pattern.substr(0, pattern.size() - 1));
    return pattern == path;
  }
  const std::vector<std::string> want = split_path(pattern), have = split_path(path);
  const bool rest = !want.empty() && want.back() == "*";
  const std::size_t fixed = want.size() - (rest ? 1 : 0);
  if (rest ? have.size() < fixed : have.size() != fixed) return false;
  for (std::size_t i = 0; i < fixed; ++i)
    if (!segment_matches(want[i], have[i])) return false;
  return true;
}

const Route* find_route(std::span<const Route> table, Door door, const http::Request& r) {
  for (const auto& route : table)
    if (route.door == door && route.method == r.method && (!route.accepts || route.accepts(r)) &&
        path_matches(door, route.path, r.path))
      return &route;
  return nullptr;
}

std::string index_text(std::string_view heading, std::span<const Route> table) {
  std::string out(heading);
  for (const auto& route : table)
    if (!route.summary.empty())
      out += index_line(route.method, route.shown.empty() ? route.path : route.shown, route.summary);
  return out;
}

std::optional<int> record_number(std::string_view s) {
  int n = 0;
  const char* end = s.data() + s.size();
  auto [ptr, err] = std::from_chars(s.data(), end, n);
  if (err != std::errc() || ptr != end || n < 1) return std::nullopt;
  return n;
}

std::string numbers_text(std::vector<int> numbers, int current) {
  if (current >= 1) {
    std::erase_if(numbers, [current](int n) { return n >= current; });
    numbers.push_back(current);
  }
  if (numbers.empty()) return "none yet";
  std::string out;
  for (std::size_t i = 0; i < numbers.size(); ++i)
    out += (i == 0 ? "" : i + 1 == numbers.size() ? " and " : ", ") + std::to_string(numbers[i]);
  return out + (current >= 1 ? " (the current one)" : "");
}

http::Response pgn_response(std::string text) {
  http::Response res = http::Response::text(200, std::move(text));
  res.content_type = "application/x-chess-pgn; charset=utf-8";
  return res;
}

}  // namespace eboard::eboardd
