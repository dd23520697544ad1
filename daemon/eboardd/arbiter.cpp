// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/arbiter.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <system_error>

#include <spdlog/spdlog.h>

#include "daemon/core/event_json.hpp"
#include "daemon/eboardd/control.hpp"
#include "daemon/journal/signing.hpp"
#include "daemon/outputs/arbiter_result.hpp"
#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/atomic_file.hpp"
#include "daemon/outputs/pgn_output.hpp"
#include "daemon/outputs/text_encoding.hpp"

namespace eboard::eboardd {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

fs::path sig_of(const fs::path& path) {
  fs::path p = path;
  p += ".sig";
  return p;
}

// "yyyymmddThhmmssZ" → Unix ms.
std::optional<std::int64_t> stamp_ms(std::string_view s) {
  if (s.size() != 16 || s[8] != 'T' || s[15] != 'Z') return std::nullopt;
  std::tm tm{};
  int f[6];
  const std::size_t at[6] = {0, 4, 6, 9, 11, 13}, len[6] = {4, 2, 2, 2, 2, 2};
  for (int i = 0; i < 6; ++i) {
    f[i] = 0;
    for (std::size_t k = 0; k < len[i]; ++k) {
      const char c = s[at[i] + k];
      if (c < '0' || c > '9') return std::nullopt;
      f[i] = f[i] * 10 + (c - '0');
    }
  }
  tm.tm_year = f[0] - 1900;
  tm.tm_mon = f[1] - 1;
  tm.tm_mday = f[2];
  tm.tm_hour = f[3];
  tm.tm_min = f[4];
  tm.tm_sec = f[5];
  return std::int64_t(timegm(&tm)) * 1000;
}

struct Record {
  fs::path path;
  std::int64_t started_ms = 0;
};

// Game `number`'s file of board `id` in state_dir/games ("<id>-<yyyymmddThhmmssZ>-<n>.pgn"), on disk or
// still with the writer.
std::optional<Record> find_record(const fs::path& dir, const std::string& id, int number,
                                  outputs::AsyncFileWriter* files) {
  const std::string prefix = id + "-", suffix = "-" + std::to_string(number) + ".pgn";
  std::vector<fs::path> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path());
  if (files)
    for (const fs::path& p : files->unwritten_in(dir, prefix)) names.push_back(p);
  std::optional<Record> found;
  for (const fs::path& p : names) {
    const std::string name = p.filename().string();
    if (name.size() != prefix.size() + 16 + suffix.size() || !name.starts_with(prefix) ||
        !name.ends_with(suffix))
      continue;
    auto started = stamp_ms(std::string_view(name).substr(prefix.size(), 16));
    if (!started) continue;
    if (!found || p.filename() > found->path.filename()) found = Record{p, *started};  // the latest start
  }
  return found;
}

// Copies `path` (and its .sig) to the first free `<path>.v<k>`; returns what it kept.
tl::expected<std::vector<std::string>, std::string> keep_version(const fs::path& path) {
  std::vector<std::string> kept;
  auto text = read_text(path);
  if (!text) return kept;  // nothing written yet: nothing to keep
  fs::path to;
  std::error_code ec;
  for (int k = 1;; ++k) {
    to = path;
    to += ".v" + std::to_string(k);
    if (!fs::exists(to, ec)) break;
  }
  if (auto ok = outputs::write_file_atomic(to, *text); !ok) return tl::unexpected(ok.error());
  kept.push_back(to.string());
  if (auto sig = read_text(sig_of(path))) {
    if (auto ok = outputs::write_file_atomic(sig_of(to), *sig); !ok) return tl::unexpected(ok.error());
    kept.push_back(sig_of(to).string());
  }
  return kept;
}

// The journal seals of a new signature of game `number`'s record: those the earlier signature made (what
// was sealed stays what it was), else the game's kept journal, else the board's journal now.
std::vector<journal::JournalSeal> seals_for(BoardRuntime& b, int number,
                                            const std::optional<std::string>& old_sig) {
  if (old_sig)
    if (auto r = journal::parse_signature_file(*old_sig); r && !r->journals.empty()) return r->journals;
  if (number != b.ledger().game_number())
    if (auto kept = b.capture_journal(number)) {
      std::error_code ec;
      const auto size = fs::file_size(*kept, ec);
      if (!ec)
        if (auto s = journal::seal_journal(*kept, size, b.id())) {
          // Named as the board's journal: a reader finds it among that journal's kept files.
          s->file = b.journal_path().filename().string();
          return {*s};
        }
    }
  if (auto s = b.seal_journal()) return {*s};
  return {};
}

void log_entry(const fs::path& state_dir, const json& entry) {
  const fs::path path = state_dir / "arbiter.log";
  const std::string line = dumped(entry) + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && ::write(fd, line.data(), line.size()) == ssize_t(line.size()) && ::fdatasync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok) spdlog::error("arbiter: cannot append to {}: the entry was {}", path.string(), line);
}

std::string utc(std::int64_t ms) {
  std::time_t s = std::time_t(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

tl::expected<std::string, http::Response> string_field(const json& body, const char* key, std::size_t max) {
  if (!body.contains(key)) return std::string();
  if (!body[key].is_string() || body[key].get<std::string>().size() > max)
    return tl::unexpected(control_error(
        400, std::string("\"") + key + "\" must be a string of at most " + std::to_string(max) + " bytes"));
  return body[key].get<std::string>();
}

// The current game's result given or corrected, through reconstruction (journaled).
http::Response on_current_game(BoardRuntime& b, outputs::ArbiterVerdict v, json answer,
                               const ArbiterContext& ctx) {
  const rules::Game& g = b.game();
  const bool over = g.outcome().has_value();
  std::string previous = "*", previous_termination;
  std::vector<std::string> kept;
  const fs::path path = ctx.state_dir / "games" / outputs::game_file_name(b.board_game());
  if (over) {
    previous = rules::result_string(g.outcome()->result);
    previous_termination = g.outcome()->reason;
    for (const auto& t : b.ledger().tags())
      if (t.name == "ArbiterResult") previous = t.value;
    if (ctx.files) {
      (void)ctx.files->flush(path);
      (void)ctx.files->flush(sig_of(path));
    }
    auto k = keep_version(path);
    if (!k) return control_error(500, "the record as it was could not be kept, so it stays: " + k.error());
    kept = *k;
  }
  journal::ControlEntry c;
  c.action = "result";
  c.value = outputs::pgn_result(v.code) + " " + outputs::event_reason(v.kind);
  auto evs = b.control(c);
  if (!evs) return control_error(409, evs.error());
  b.set_tags({{"ArbiterResult", v.code},
              {"ArbiterRule", v.rule},
              {"ArbiterReason", v.reason},
              {"ArbiterBy", v.by},
              {"ArbiterTime", utc(v.at_ms)},
              {"ArbiterPrevious",
               over ? previous + (previous_termination.empty() ? "" : " " + previous_termination) : ""}});
  // The record and its signature on disk before the answer.
  if (ctx.files) {
    (void)ctx.files->flush(path);
    (void)ctx.files->flush(sig_of(path));
  }
  json published = json::array();
  for (const rules::Event& e : *evs) published.push_back(daemon::to_json(e));
  answer["events"] = published;
  answer["corrected"] = over;
  answer["previous"] = over ? json(previous) : json(nullptr);
  answer["kept"] = kept;
  answer["record"] = path.string();
  answer["signed"] = b.options().signing_key != nullptr;
  return http::Response::json(200, dumped(answer));
}

// An earlier game's record rewritten by `rewrite` (its text → the new text), kept as it was first,
// signed again. `answer` gets record, kept, signed.
struct Rewritten {
  std::string before;  // the record as it was
};
tl::expected<Rewritten, http::Response> rewrite_record(
    BoardRuntime& b, int number, const ArbiterContext& ctx, json& answer,
    const std::function<tl::expected<std::string, std::string>(const std::string&)>& rewrite) {
  const fs::path dir = ctx.state_dir / "games";
  auto rec = find_record(dir, b.id(), number, ctx.files);
  if (!rec)
    return tl::unexpected(control_error(400, "board " + b.id() + " keeps no record of game " +
                                                 std::to_string(number) +
                                                 " (a game with neither a move nor a result is not kept)"));
  if (!in_round(ctx.round, b.id(), number, rec->started_ms))
    return tl::unexpected(control_error(409, "game " + std::to_string(number) + " of board " + b.id() +
                                                 " belongs to an earlier round, archived already: only the "
                                                 "current round's games are corrected"));
  if (ctx.files) {
    if (auto ok = ctx.files->flush(rec->path); !ok)
      return tl::unexpected(control_error(500, "the record could not be written first: " + ok.error()));
    (void)ctx.files->flush(sig_of(rec->path));
  }
  auto text = read_text(rec->path);
  if (!text) return tl::unexpected(control_error(500, "cannot read " + rec->path.string()));
  auto next = rewrite(*text);
  if (!next)
    return tl::unexpected(control_error(409, "game " + std::to_string(number) + ": " + next.error()));
  auto kept = keep_version(rec->path);
  if (!kept)
    return tl::unexpected(
        control_error(500, "the record as it was could not be kept, so it stays: " + kept.error()));
  const auto old_sig = read_text(sig_of(rec->path));
  auto written =
      ctx.files ? ctx.files->write_now(rec->path, *next) : outputs::write_file_atomic(rec->path, *next);
  if (!written)
    return tl::unexpected(control_error(500, "the record could not be written: " + written.error()));
  bool signed_now = false;
  if (const auto& key = b.options().signing_key) {
    journal::SignedRecord r;
    r.archive = journal::seal_archive(rec->path.filename().string(), *next);
    r.journals = seals_for(b, number, old_sig);
    r.board = b.id();
    r.game = number;
    r.signed_ms = b.now_ms();
    std::string sig = journal::signature_file_text(std::move(r), *key);
    auto ok = ctx.files ? ctx.files->write_now(sig_of(rec->path), std::move(sig))
                        : outputs::write_file_atomic(sig_of(rec->path), sig);
    if (!ok) spdlog::error("board {}: {} is not signed again: {}", b.id(), rec->path.string(), ok.error());
    signed_now = ok.has_value();
  }
  answer["kept"] = *kept;
  answer["record"] = rec->path.string();
  answer["signed"] = signed_now;
  return Rewritten{std::move(*text)};
}

// An earlier game of the round: its result given or corrected in its record.
http::Response on_earlier_game(BoardRuntime& b, int number, outputs::ArbiterVerdict v, json answer,
                               const ArbiterContext& ctx) {
  std::string previous = "*";
  bool correction = false;
  auto done = rewrite_record(b, number, ctx, answer, [&](const std::string& text) {
    previous =
        outputs::pgn_tag(text, "ArbiterResult").value_or(outputs::pgn_tag(text, "Result").value_or("*"));
    correction = previous != "*";
    return outputs::apply_verdict(text, v, correction);
  });
  if (!done) return done.error();
  json published = json::array();
  if (v.code != "-/-") {
    // The §3 result event, with what says which game it is and what it replaces.
    json e{{"t", v.at_ms},
           {"board", b.id()},
           {"type", "result"},
           {"result", outputs::pgn_result(v.code)},
           {"reason", outputs::event_reason(v.kind)},
           {"game", number},
           {"corrected", correction},
           {"previous", previous},
           {"rule", v.rule},
           {"detail", v.reason}};
    if (b.options().publish_link) b.options().publish_link(dumped(e));
    published.push_back(e);
  }
  answer["events"] = published;
  answer["corrected"] = correction;
  answer["previous"] = previous;
  return http::Response::json(200, dumped(answer));
}

// POST /control/<board>/moves: the moves of an earlier game of the round corrected in its record.
http::Response moves_action(BoardRuntime& b, const json& body, const ArbiterContext& ctx) {
  for (const auto& [k, v] : body.items())
    if (k != "game" && k != "from_ply" && k != "moves" && k != "reason" && k != "arbiter")
      return control_error(400, "unknown field \"" + outputs::utf8_or_replaced(k.substr(0, 32)) +
                                    "\" (game, from_ply, moves, reason, arbiter)");
  auto moves = string_field(body, "moves", 4000);
  auto reason = string_field(body, "reason", 200);
  auto arbiter = string_field(body, "arbiter", 64);
  for (const auto* f : {&moves, &reason, &arbiter})
    if (!*f) return f->error();
  if (!body.contains("moves"))
    return control_error(400,
                         "missing \"moves\": the game's moves from ply from_ply on, SAN or UCI (\"\": none)");
  // The reason is checked as a result's is (the code is a placeholder).
  auto v = outputs::make_verdict("1-0", "", "", *reason);
  if (!v) return control_error(400, v.error());
  if (!ctx.match.empty())
    return control_error(409, "board " + b.id() + " is in the bughouse match " + ctx.match +
                                  ": its moves are the match's record (not supported yet)");
  const int current = b.ledger().game_number();
  const json& n = body.contains("game") ? body["game"] : json();
  if (!n.is_number_integer() || n.get<long long>() < 1 || n.get<long long>() > current)
    return control_error(400, "\"game\" must be one of board " + b.id() + "'s earlier game numbers, 1 to " +
                                  std::to_string(current - 1) + ", not " + n.dump());
  const int number = int(n.get<long long>());
  if (number == current)
    return control_error(409, "game " + std::to_string(number) +
                                  " is the board's current game: its moves are "
                                  "the board's; correct them once the board is set up for the next game");
  const json& p = body.contains("from_ply") ? body["from_ply"] : json();
  if (!p.is_number_integer() || p.get<long long>() < 1 || p.get<long long>() > 10000)
    return control_error(
        400, "\"from_ply\" must be the first ply replaced (1 = White's first move), not " + p.dump());
  const int from_ply = int(p.get<long long>());
  v->at_ms = b.now_ms();
  v->by = (arbiter->empty() ? "" : *arbiter + ", ") + "control token from " +
          (ctx.client.empty() ? std::string("?") : ctx.client);
  json answer{{"board", b.id()}, {"action", "moves"}, {"game", number}, {"from_ply", from_ply},
              {"moves", *moves}, {"text", v->reason}, {"by", v->by}};
  std::string corrected;
  auto done = rewrite_record(b, number, ctx, answer, [&](const std::string& text) {
    auto out = outputs::replace_moves(text, from_ply, *moves, *v);
    if (out) corrected = outputs::pgn_tag(*out, "MovesCorrected").value_or("");
    return out;
  });
  if (!done) return done.error();
  answer["corrected"] = corrected;
  log_entry(ctx.state_dir, json{{"t", v->at_ms},
                                {"utc", utc(v->at_ms)},
                                {"board", b.id()},
                                {"game", number},
                                {"action", "moves"},
                                {"from_ply", from_ply},
                                {"moves", *moves},
                                {"was", corrected},
                                {"why", v->reason},
                                {"who", v->by},
                                {"kept", answer["kept"]}});
  spdlog::info("board {}: game {}: the arbiter corrected the moves from ply {} by {}", b.id(), number,
               from_ply, v->by);
  return http::Response::json(200, dumped(answer));
}

}  // namespace

std::optional<http::Response> arbiter_action(BoardRuntime& b, const std::string& action, const json& body,
                                             const ArbiterContext& ctx) {
  // "moves" with a game (or a ply to start from, or a reason) corrects an earlier game's record; without,
  // it is moves typed on a board without wood (control.cpp).
  if (action == "moves" && body.is_object() &&
      (body.contains("game") || body.contains("from_ply") || body.contains("reason")))
    return moves_action(b, body, ctx);
  if (action == "moves") return std::nullopt;
  if (action != "result") return std::nullopt;
  for (const auto& [k, v] : body.items())
    if (k != "result" && k != "reason" && k != "kind" && k != "rule" && k != "game" && k != "arbiter")
      return control_error(400, "unknown field \"" + outputs::utf8_or_replaced(k.substr(0, 32)) +
                                    "\" (result, reason, kind, rule, game, arbiter)");
  if (!body.contains("result"))
    return control_error(400, "missing \"result\" (1-0, 0-1, 1/2-1/2, +/-, -/+ or -/-)");
  auto code = string_field(body, "result", 16);
  auto reason = string_field(body, "reason", 200);
  auto kind = string_field(body, "kind", 16);
  auto rule = string_field(body, "rule", 32);
  auto arbiter = string_field(body, "arbiter", 64);
  for (const auto* f : {&code, &reason, &kind, &rule, &arbiter})
    if (!*f) return f->error();
  if (!arbiter->empty() && (!outputs::valid_utf8(*arbiter) ||
                            std::any_of(arbiter->begin(), arbiter->end(),
                                        [](char c) { return static_cast<unsigned char>(c) < 0x20; })))
    return control_error(400, "\"arbiter\" is a name on one line (UTF-8)");
  auto verdict = outputs::make_verdict(*code, *kind, *rule, *reason);
  if (!verdict) return control_error(400, verdict.error());
  if (!ctx.match.empty())
    return control_error(409, "board " + b.id() + " is in the bughouse match " + ctx.match +
                                  ": an arbiter's result there is the match's (not supported yet)");
  const int current = b.ledger().game_number();
  int number = current;
  if (body.contains("game")) {
    const json& n = body["game"];
    if (!n.is_number_integer() || n.get<long long>() < 1 || n.get<long long>() > current)
      return control_error(400, "\"game\" must be one of board " + b.id() + "'s game numbers, 1 to " +
                                    std::to_string(current) + " (the current game), not " + n.dump());
    number = int(n.get<long long>());
  }
  verdict->at_ms = b.now_ms();
  verdict->by = (arbiter->empty() ? "" : *arbiter + ", ") + "control token from " +
                (ctx.client.empty() ? std::string("?") : ctx.client);
  if (number == current && verdict->code == "-/-")
    return control_error(409,
                         "a double forfeit (-/-) has no result the live game can take: set up the next game "
                         "(new-game), then enter -/- for game " +
                             std::to_string(current));
  json answer{{"board", b.id()},
              {"action", "result"},
              {"game", number},
              {"code", verdict->code},
              {"result", outputs::pgn_result(verdict->code)},
              {"kind", verdict->kind},
              {"reason", outputs::event_reason(verdict->kind)},
              {"rule", verdict->rule},
              {"text", verdict->reason},
              {"by", verdict->by}};
  http::Response res = number == current ? on_current_game(b, *verdict, answer, ctx)
                                         : on_earlier_game(b, number, *verdict, answer, ctx);
  if (res.status == 200) {
    json done = json::parse(res.body, nullptr, false);
    log_entry(ctx.state_dir, json{{"t", verdict->at_ms},
                                  {"utc", utc(verdict->at_ms)},
                                  {"board", b.id()},
                                  {"game", number},
                                  {"result", verdict->code},
                                  {"kind", verdict->kind},
                                  {"rule", verdict->rule},
                                  {"why", verdict->reason},
                                  {"who", verdict->by},
                                  {"corrected", done.value("corrected", false)},
                                  {"previous", done.contains("previous") ? done["previous"] : json(nullptr)},
                                  {"kept", done.contains("kept") ? done["kept"] : json::array()}});
    spdlog::info("board {}: game {}: the arbiter's result {} ({}, rule {}) by {}", b.id(), number,
                 verdict->code, verdict->kind, verdict->rule, verdict->by);
  }
  return res;
}

}  // namespace eboard::eboardd
