// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/round.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "daemon/outputs/atomic_file.hpp"

namespace eboard::eboardd {

namespace fs = std::filesystem;

namespace {

std::string stamp(std::int64_t unix_ms) {
  std::time_t s = std::time_t(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

// "yyyymmddThhmmssZ" → Unix seconds.
std::optional<std::int64_t> parse_stamp(std::string_view s) {
  if (s.size() != 16 || s[8] != 'T' || s[15] != 'Z') return std::nullopt;
  std::tm tm{};
  int fields[6];
  const std::size_t at[6] = {0, 4, 6, 9, 11, 13}, len[6] = {4, 2, 2, 2, 2, 2};
  for (int i = 0; i < 6; ++i) {
    int v = 0;
    for (std::size_t k = 0; k < len[i]; ++k) {
      char c = s[at[i] + k];
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    fields[i] = v;
  }
  tm.tm_year = fields[0] - 1900;
  tm.tm_mon = fields[1] - 1;
  tm.tm_mday = fields[2];
  tm.tm_hour = fields[3];
  tm.tm_min = fields[4];
  tm.tm_sec = fields[5];
  return std::int64_t(timegm(&tm));
}

}  // namespace

bool valid_round_name(std::string_view name) {
  if (name.empty() || name.size() > 32 || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
           c == '_' || c == '-';
  });
}

tl::expected<std::optional<Round>, std::string> load_round(const fs::path& state_dir) {
  const fs::path path = state_dir / "round.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::optional<Round>();
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("round") || !j["round"].is_string() ||
      !j.contains("started_ms") || !j["started_ms"].is_number_integer())
    return tl::unexpected(path.string() + " is not {\"round\": \"…\", \"started_ms\": …}");
  Round r{j["round"].get<std::string>(), j["started_ms"].get<std::int64_t>()};
  if (!r.name.empty() && !valid_round_name(r.name))
    return tl::unexpected(path.string() + ": round '" + r.name + "' is not a valid round name");
  return std::optional<Round>(r);
}

tl::expected<void, std::string> save_round(const fs::path& state_dir, const Round& r) {
  return outputs::write_file_atomic(
      state_dir / "round.json",
      nlohmann::json{{"round", r.name}, {"started_ms", r.started_ms}}.dump() + "\n");
}

tl::expected<fs::path, std::string> archive_round(const fs::path& state_dir, const Round& r,
                                                  std::string_view pgn) {
  const fs::path dir = state_dir / "rounds";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return tl::unexpected("cannot make " + dir.string() + ": " + ec.message());
  const std::string base = r.name.empty() ? "round-" + stamp(r.started_ms) : r.name;
  fs::path path = dir / (base + ".pgn");
  for (int n = 2; fs::exists(path, ec); ++n) path = dir / (base + "-" + std::to_string(n) + ".pgn");
  if (auto ok = outputs::write_file_atomic(path, pgn); !ok) return tl::unexpected(ok.error());
  return path;
}

std::vector<fs::path> round_game_files(const fs::path& games_dir, std::string_view board_id,
                                       std::int64_t since_ms, int current_number) {
  std::map<int, fs::path> found;
  std::error_code ec;
  const std::string prefix = std::string(board_id) + "-";
  for (fs::directory_iterator it(games_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // "<board>-<yyyymmddThhmmssZ>-<n>.pgn"
    if (!name.starts_with(prefix) || !name.ends_with(".pgn")) continue;
    std::string_view rest(name);
    rest.remove_prefix(prefix.size());
    rest.remove_suffix(4);
    if (rest.size() < 18 || rest[16] != '-') continue;
    auto started = parse_stamp(rest.substr(0, 16));
    std::string_view number = rest.substr(17);
    if (!started || number.empty() || number.size() > 9 ||
        !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    int n = std::stoi(std::string(number));
    if (n >= current_number || *started < since_ms / 1000) continue;
    found[n] = it->path();
  }
  std::vector<fs::path> out;
  out.reserve(found.size());
  for (auto& [n, p] : found) out.push_back(std::move(p));
  return out;
}

}  // namespace eboard::eboardd
