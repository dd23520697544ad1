// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/round.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/atomic_file.hpp"
#include "rules/pgn.hpp"

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

nlohmann::json players_json(const std::map<std::string, rules::PgnTags, std::less<>>& players) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [board, tags] : players) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& t : tags) list.push_back({t.name, t.value});
    j[board] = list;
  }
  return j;
}

// {"<board>": [["White", "…"], …], …}
tl::expected<std::map<std::string, rules::PgnTags, std::less<>>, std::string> players_of(
    const nlohmann::json& j) {
  std::map<std::string, rules::PgnTags, std::less<>> out;
  if (!j.is_object()) return tl::unexpected(std::string("players is not {\"<board>\": [[tag, value], …]}"));
  for (const auto& [board, list] : j.items()) {
    if (!list.is_array()) return tl::unexpected("players of board " + board + " is not a list");
    rules::PgnTags tags;
    for (const auto& t : list) {
      if (!t.is_array() || t.size() != 2 || !t[0].is_string() || !t[1].is_string())
        return tl::unexpected("players of board " + board + ": an entry is not [tag, value]");
      tags.push_back({t[0].get<std::string>(), t[1].get<std::string>()});
    }
    out[board] = std::move(tags);
  }
  return out;
}

fs::path waiting_path(const fs::path& state_dir, const std::string& round) {
  return state_dir / "pairings" / (round + ".json");
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
  Round r{j["round"].get<std::string>(), j["started_ms"].get<std::int64_t>(), {}, {}};
  if (!r.name.empty() && !valid_round_name(r.name))
    return tl::unexpected(path.string() + ": round '" + r.name + "' is not a valid round name");
  if (j.contains("first_game")) {
    if (!j["first_game"].is_object())
      return tl::unexpected(path.string() + ": first_game is not {\"<board>\": <game number>, …}");
    for (const auto& [board, number] : j["first_game"].items()) {
      if (!number.is_number_integer())
        return tl::unexpected(path.string() + ": first_game of board " + board + " is not a number");
      r.first_game[board] = number.get<int>();
    }
  }
  if (j.contains("previous") && j["previous"].is_string()) r.previous = j["previous"].get<std::string>();
  if (j.contains("players")) {
    auto players = players_of(j["players"]);
    if (!players) return tl::unexpected(path.string() + ": " + players.error());
    r.players = std::move(*players);
  }
  return std::optional<Round>(r);
}

tl::expected<void, std::string> save_round(const fs::path& state_dir, const Round& r) {
  return outputs::write_file_atomic(state_dir / "round.json",
                                    nlohmann::json{{"round", r.name},
                                                   {"started_ms", r.started_ms},
                                                   {"first_game", r.first_game},
                                                   {"players", players_json(r.players)},
                                                   {"previous", r.previous}}
                                            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                                        "\n");
}

tl::expected<void, std::string> save_waiting_players(
    const fs::path& state_dir, const std::string& round,
    const std::map<std::string, rules::PgnTags, std::less<>>& players) {
  std::error_code ec;
  fs::create_directories(state_dir / "pairings", ec);
  if (ec) return tl::unexpected("cannot make " + (state_dir / "pairings").string() + ": " + ec.message());
  return outputs::write_file_atomic(waiting_path(state_dir, round),
                                    nlohmann::json{{"round", round}, {"players", players_json(players)}}.dump(
                                        -1, ' ', false, nlohmann::json::error_handler_t::replace) +
                                        "\n");
}

tl::expected<std::map<std::string, rules::PgnTags, std::less<>>, std::string> load_waiting_players(
    const fs::path& state_dir, const std::string& round) {
  const fs::path path = waiting_path(state_dir, round);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::map<std::string, rules::PgnTags, std::less<>>();
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("players"))
    return tl::unexpected(path.string() + " is not {\"round\": \"…\", \"players\": {…}}");
  auto players = players_of(j["players"]);
  if (!players) return tl::unexpected(path.string() + ": " + players.error());
  return players;
}

void remove_waiting_players(const fs::path& state_dir, const std::string& round) {
  std::error_code ec;
  fs::remove(waiting_path(state_dir, round), ec);
}

bool round_archived(const fs::path& state_dir, const std::string& name) {
  std::error_code ec;
  return !name.empty() && fs::exists(state_dir / "rounds" / (name + ".pgn"), ec);
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

bool in_round(const Round& r, std::string_view board_id, int number, std::int64_t started_ms) {
  if (auto it = r.first_game.find(board_id); it != r.first_game.end()) return number >= it->second;
  return started_ms / 1000 >= r.started_ms / 1000;
}

namespace {

struct GameFileName {
  std::string board;
  int number = 0;
  std::int64_t started_ms = 0;
};

// "<board>-<yyyymmddThhmmssZ>-<n>.pgn", read from the right: a board id may hold '-'.
std::optional<GameFileName> parse_game_file_name(const std::string& name) {
  if (!name.ends_with(".pgn")) return std::nullopt;
  std::string_view rest(name);
  rest.remove_suffix(4);
  const auto dash = rest.rfind('-');
  if (dash == std::string_view::npos || dash < 18 || rest[dash - 17] != '-') return std::nullopt;
  std::string_view number = rest.substr(dash + 1);
  auto started = parse_stamp(rest.substr(dash - 16, 16));
  if (!started || number.empty() || number.size() > 9 ||
      !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return GameFileName{std::string(rest.substr(0, dash - 17)), std::stoi(std::string(number)),
                      *started * 1000};
}

// A finished game's PGN as the feeds show it: one game with a move, a result (the arbiter's too: a double
// forfeit's PGN result is "*"), or a comment, ending in a blank line. Nothing: not a game worth a broadcast.
std::optional<std::string> broadcast_text(std::string pgn) {
  auto games = rules::read_pgn(pgn);
  if (!games || games->size() != 1) return std::nullopt;
  const auto& g = games->front();
  if (g.moves.empty() && g.result == "*" && g.intro_comment.empty() && !g.tag("ArbiterResult"))
    return std::nullopt;
  if (!pgn.ends_with("\n\n")) pgn += pgn.ends_with('\n') ? "\n" : "\n\n";
  return pgn;
}

}  // namespace

void FinishedGames::relist() {
  std::error_code ec;
  const auto dir_time = fs::last_write_time(dir_, ec);
  if (ec) {
    boards_.clear();
    listed_.reset();
    return;
  }
  if (listed_ && *listed_ == dir_time) return;
  // The folder's time is read before it is listed: a file added during the listing makes the next call
  // list again.
  listed_ = dir_time;
  std::map<std::string, std::map<int, File>, std::less<>> found;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    auto name = parse_game_file_name(it->path().filename().string());
    if (!name) continue;
    // One number twice: the latest start is the game (a game begun in place of one nothing was played in,
    // a Chess960 set-up read after the standard start, keeps its number: journal::Ledger).
    if (auto b = found.find(name->board); b != found.end())
      if (auto have = b->second.find(name->number);
          have != b->second.end() && have->second.started_ms > name->started_ms)
        continue;
    File f{it->path(), name->started_ms, {}, 0, false, std::nullopt};
    // What was read before stays read, unless the file is another one now.
    if (auto b = boards_.find(name->board); b != boards_.end())
      if (auto old = b->second.find(name->number); old != b->second.end() && old->second.path == f.path)
        f = std::move(old->second);
    found[name->board][name->number] = std::move(f);
  }
  boards_ = std::move(found);
}

std::map<int, FinishedGames::File>* FinishedGames::files_of(std::string_view board_id) {
  relist();
  if (files_)
    for (const fs::path& path : files_->unwritten_in(dir_, std::string(board_id) + "-")) {
      auto name = parse_game_file_name(path.filename().string());
      if (!name || name->board != board_id) continue;
      auto& slot = boards_[name->board];
      if (auto old = slot.find(name->number);
          old == slot.end() || (old->second.path != path && old->second.started_ms <= name->started_ms))
        slot[name->number] = File{path, name->started_ms, {}, 0, false, std::nullopt};
    }
  auto b = boards_.find(board_id);
  return b == boards_.end() ? nullptr : &b->second;
}

const std::optional<FinishedGames::Game>& FinishedGames::game_of(File& f) {
  if (files_)
    if (auto text = files_->unwritten(f.path)) {
      // Not on disk yet: as it will be, written now as far as the delay is concerned.
      std::optional<Game>& g = unwritten_.emplace_back();
      if (auto pgn = broadcast_text(std::move(*text)))
        g = Game{std::move(*pgn), std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count()};
      return g;
    }
  std::error_code ec;
  const auto time = fs::last_write_time(f.path, ec);
  const auto size = ec ? 0 : fs::file_size(f.path, ec);
  if (ec) {
    f.read = false;
    f.game.reset();
    return f.game;
  }
  if (f.read && time == f.time && size == f.size) return f.game;
  f.read = true;
  f.time = time;
  f.size = size;
  f.game.reset();
  std::ifstream in(f.path, std::ios::binary);
  if (!in) return f.game;
  std::stringstream text;
  text << in.rdbuf();
  auto pgn = broadcast_text(text.str());
  if (!pgn) return f.game;
  const auto written_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::file_clock::to_sys(time).time_since_epoch())
                              .count();
  f.game = Game{std::move(*pgn), written_ms};
  return f.game;
}

std::vector<const FinishedGames::Game*> FinishedGames::of_round(const Round& r, std::string_view board_id,
                                                                int current_number) {
  unwritten_.clear();
  std::vector<const Game*> out;
  std::map<int, File>* files = files_of(board_id);
  if (!files) return out;
  for (auto& [n, f] : *files) {
    if (n >= current_number) break;
    if (!in_round(r, board_id, n, f.started_ms)) continue;
    if (const auto& g = game_of(f)) out.push_back(&*g);
  }
  return out;
}

std::optional<FinishedGames::Game> FinishedGames::record_at(const fs::path& path) const {
  if (files_)
    if (auto text = files_->unwritten(path))
      return Game{std::move(*text), std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count()};
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  // The time is read after the text: a file replaced in between is then taken as the newer one, which the
  // delay holds back longer, never shorter.
  std::error_code ec;
  const auto time = fs::last_write_time(path, ec);
  if (ec) return std::nullopt;
  return Game{text.str(), std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::file_clock::to_sys(time).time_since_epoch())
                              .count()};
}

std::optional<FinishedGames::Game> FinishedGames::board_record(std::string_view board_id, int number) {
  std::map<int, File>* files = files_of(board_id);
  if (!files) return std::nullopt;
  auto it = files->find(number);
  return it == files->end() ? std::nullopt : record_at(it->second.path);
}

std::vector<int> FinishedGames::board_numbers(std::string_view board_id) {
  std::vector<int> out;
  if (std::map<int, File>* files = files_of(board_id))
    for (const auto& [n, f] : *files) out.push_back(n);
  return out;
}

std::optional<FinishedGames::Game> FinishedGames::match_record(std::string_view name, int number) const {
  return record_at(dir_ / ("match-" + std::string(name) + "-" + std::to_string(number) + ".bpgn"));
}

std::vector<int> FinishedGames::match_numbers(std::string_view name) const {
  const std::string prefix = "match-" + std::string(name) + "-";
  std::vector<int> out;
  // "match-<name>-<n>.bpgn": only digits between the prefix and the suffix, so match A-B never counts
  // the files of a match A-B-1 (a board id may hold '-').
  auto number_of = [&prefix](const std::string& file) -> std::optional<int> {
    if (!file.starts_with(prefix) || !file.ends_with(".bpgn")) return std::nullopt;
    const std::string digits = file.substr(prefix.size(), file.size() - prefix.size() - 5);
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    return std::stoi(digits);
  };
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec))
    if (auto n = number_of(it->path().filename().string())) out.push_back(*n);
  if (files_)
    for (const fs::path& path : files_->unwritten_in(dir_, prefix))
      if (auto n = number_of(path.filename().string())) out.push_back(*n);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace eboard::eboardd
