// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/arbiter.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <system_error>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "daemon/core/event_json.hpp"
#include "daemon/eboardd/control.hpp"
#include "daemon/journal/rotation.hpp"
#include "daemon/journal/signing.hpp"
#include "daemon/outputs/arbiter_result.hpp"
#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/atomic_file.hpp"
#include "daemon/outputs/background_work.hpp"
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

// What an earlier game's record needs rewritten, copied on the loop: the rewrite runs on the board's
// background worker (rewrite_record), which reads, keeps, writes and signs the files.
struct RewriteJob {
  fs::path state_dir;
  std::string board;
  int number = 0;
  Round round;
  outputs::AsyncFileWriter* files = nullptr;
  std::shared_ptr<const journal::SigningKey> key;
  fs::path journal_path;          // the board's current journal (its kept files beside it)
  std::optional<JournalCut> cut;  // the board's journal as written when the request came
  std::int64_t signed_ms = 0;
};

RewriteJob rewrite_job(BoardRuntime& b, int number, const ArbiterContext& ctx) {
  RewriteJob job{ctx.state_dir,           b.id(),           number,       ctx.round, ctx.files,
                 b.options().signing_key, b.journal_path(), std::nullopt, b.now_ms()};
  if (job.key)
    if (auto cut = b.journal_cut()) job.cut = std::move(*cut);
  return job;
}

// The journal seals of a new signature of game `number`'s record: those the earlier signature made (what
// was sealed stays what it was), else the game's kept journal, else the board's journal as cut.
std::vector<journal::JournalSeal> seals_for(const RewriteJob& job,
                                            const std::optional<std::string>& old_sig) {
  if (old_sig)
    if (auto r = journal::parse_signature_file(*old_sig); r && !r->journals.empty()) return r->journals;
  fs::path kept;
  for (const auto& k : journal::kept_journals(job.journal_path))
    if (k.game == job.number) kept = k.path;  // the last kept under that number
  if (!kept.empty()) {
    std::error_code ec;
    const auto size = fs::file_size(kept, ec);
    if (!ec)
      if (auto s = journal::seal_journal(kept, size, job.board)) {
        // Named as the board's journal: a reader finds it among that journal's kept files.
        s->file = job.journal_path.filename().string();
        return {*s};
      }
  }
  if (job.cut)
    if (auto s = job.cut->seal()) return {*s};
  return {};
}

// Runs `job` on the board's background worker, then `then` with its result on the loop (not if the board
// is gone by then); without a worker (a runtime without background threads) both here, now.
template <typename R>
void off_loop(BoardRuntime& b, std::function<R()> job, std::function<void(R)> then) {
  outputs::BackgroundWork* work = b.work();
  if (!work) return then(job());
  work->post([job = std::move(job), then = std::move(then), io = &b.io(), alive = b.alive_token()] {
    auto result = std::make_shared<R>(job());
    boost::asio::post(*io, [result, then, alive] {
      if (!alive.expired()) then(std::move(*result));
    });
  });
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

// The arbiter's result as arbiter.log keeps it, with what the answer says was done.
json log_of(const BoardRuntime& b, int number, const outputs::ArbiterVerdict& v, const json& done) {
  return json{{"t", v.at_ms},
              {"utc", utc(v.at_ms)},
              {"board", b.id()},
              {"game", number},
              {"result", v.code},
              {"kind", v.kind},
              {"rule", v.rule},
              {"why", v.reason},
              {"who", v.by},
              {"corrected", done.value("corrected", false)},
              {"previous", done.contains("previous") ? done["previous"] : json(nullptr)},
              {"kept", done.contains("kept") ? done["kept"] : json::array()}};
}

// The current game's result given or corrected, through reconstruction (journaled). On the worker: the
// record as it was kept first (a game over already), then, after the control on the loop, the record and
// its signature on disk and the log entry synced; the answer once that is done.
http::Response on_current_game(BoardRuntime& b, outputs::ArbiterVerdict v, json answer,
                               const ArbiterContext& ctx) {
  const rules::Game& g = b.game();
  const bool over = g.outcome().has_value();
  std::string previous = "*", previous_termination;
  const fs::path path = ctx.state_dir / "games" / outputs::game_file_name(b.board_game());
  if (over) {
    previous = rules::result_string(g.outcome()->result);
    previous_termination = g.outcome()->reason;
    for (const auto& t : b.ledger().tags())
      if (t.name == "ArbiterResult") previous = t.value;
  }
  LaterAnswer later = later_answer(std::chrono::seconds(60), "the arbiter's result");
  using Kept = tl::expected<std::vector<std::string>, std::string>;
  outputs::AsyncFileWriter* files = ctx.files;
  off_loop<Kept>(
      b,
      [over, path, files]() -> Kept {
        if (!over) return std::vector<std::string>{};
        if (files) {
          (void)files->flush(path);
          (void)files->flush(sig_of(path));
        }
        return keep_version(path);
      },
      [&b, v, answer, over, previous, previous_termination, path, files, state_dir = ctx.state_dir,
       settle = later.settle, done = ctx.done](Kept kept) mutable {
        if (!kept)
          return settle(
              control_error(500, "the record as it was could not be kept, so it stays: " + kept.error()));
        journal::ControlEntry c;
        c.action = "result";
        c.value = outputs::pgn_result(v.code) + " " + outputs::event_reason(v.kind);
        auto evs = b.control(c);
        if (!evs) return settle(control_error(409, evs.error()));
        b.set_tags(
            {{"ArbiterResult", v.code},
             {"ArbiterRule", v.rule},
             {"ArbiterReason", v.reason},
             {"ArbiterBy", v.by},
             {"ArbiterTime", utc(v.at_ms)},
             {"ArbiterPrevious",
              over ? previous + (previous_termination.empty() ? "" : " " + previous_termination) : ""}});
        json published = json::array();
        for (const rules::Event& e : *evs) published.push_back(daemon::to_json(e));
        answer["events"] = published;
        answer["corrected"] = over;
        answer["previous"] = over ? json(previous) : json(nullptr);
        answer["kept"] = *kept;
        answer["record"] = path.string();
        answer["signed"] = b.options().signing_key != nullptr;
        const int number = b.ledger().game_number();
        // The record and its signature on disk before the answer (the signature, posted to the worker by
        // set_tags, is handed to the writer before this runs), and the log entry synced.
        off_loop<bool>(
            b,
            [files, path, state_dir, entry = log_of(b, number, v, answer)] {
              if (files) {
                (void)files->flush(path);
                (void)files->flush(sig_of(path));
              }
              log_entry(state_dir, entry);
              return true;
            },
            [id = b.id(), number, v, answer, settle, done](bool) {
              if (done) done();
              spdlog::info("board {}: game {}: the arbiter's result {} ({}, rule {}) by {}", id, number,
                           v.code, v.kind, v.rule, v.by);
              settle(http::Response::json(200, dumped(answer)));
            });
      });
  return later.response();
}

// An earlier game's record rewritten by `rewrite` (its text → the new text), kept as it was first,
// signed again: on the background worker. `answer` gets record, kept, signed.
using Rewrite = std::function<tl::expected<std::string, std::string>(const std::string&)>;
tl::expected<json, http::Response> rewrite_record(const RewriteJob& job, json answer,
                                                  const Rewrite& rewrite) {
  const fs::path dir = job.state_dir / "games";
  const std::string number = std::to_string(job.number);
  auto rec = find_record(dir, job.board, job.number, job.files);
  if (!rec)
    return tl::unexpected(control_error(400, "board " + job.board + " keeps no record of game " + number +
                                                 " (a game with neither a move nor a result is not kept)"));
  if (!in_round(job.round, job.board, job.number, rec->started_ms))
    return tl::unexpected(control_error(409, "game " + number + " of board " + job.board +
                                                 " belongs to an earlier round, archived already: only the "
                                                 "current round's games are corrected"));
  if (job.files) {
    if (auto ok = job.files->flush(rec->path); !ok)
      return tl::unexpected(control_error(500, "the record could not be written first: " + ok.error()));
    (void)job.files->flush(sig_of(rec->path));
  }
  auto text = read_text(rec->path);
  if (!text) return tl::unexpected(control_error(500, "cannot read " + rec->path.string()));
  auto next = rewrite(*text);
  if (!next) return tl::unexpected(control_error(409, "game " + number + ": " + next.error()));
  auto kept = keep_version(rec->path);
  if (!kept)
    return tl::unexpected(
        control_error(500, "the record as it was could not be kept, so it stays: " + kept.error()));
  const auto old_sig = read_text(sig_of(rec->path));
  auto written =
      job.files ? job.files->write_now(rec->path, *next) : outputs::write_file_atomic(rec->path, *next);
  if (!written)
    return tl::unexpected(control_error(500, "the record could not be written: " + written.error()));
  bool signed_now = false;
  if (job.key) {
    journal::SignedRecord r;
    r.archive = journal::seal_archive(rec->path.filename().string(), *next);
    r.journals = seals_for(job, old_sig);
    r.board = job.board;
    r.game = job.number;
    r.signed_ms = job.signed_ms;
    std::string sig = journal::signature_file_text(std::move(r), *job.key);
    auto ok = job.files ? job.files->write_now(sig_of(rec->path), std::move(sig))
                        : outputs::write_file_atomic(sig_of(rec->path), sig);
    if (!ok) spdlog::error("board {}: {} is not signed again: {}", job.board, rec->path.string(), ok.error());
    signed_now = ok.has_value();
  }
  answer["kept"] = *kept;
  answer["record"] = rec->path.string();
  answer["signed"] = signed_now;
  return answer;
}

// An earlier game of the round: its result given or corrected in its record (on the worker, with the log
// entry), then its event published and the answer given (on the loop).
http::Response on_earlier_game(BoardRuntime& b, int number, outputs::ArbiterVerdict v, json answer,
                               const ArbiterContext& ctx) {
  struct Done {
    tl::expected<json, http::Response> answer;
    json event;  // null: none (-/-)
  };
  LaterAnswer later =
      later_answer(std::chrono::seconds(60), "the correction of game " + std::to_string(number));
  off_loop<Done>(
      b,
      [job = rewrite_job(b, number, ctx), v, answer, id = b.id(), number]() -> Done {
        std::string previous = "*";
        bool correction = false;
        auto done = rewrite_record(job, answer, [&](const std::string& text) {
          previous = outputs::pgn_tag(text, "ArbiterResult")
                         .value_or(outputs::pgn_tag(text, "Result").value_or("*"));
          correction = previous != "*";
          return outputs::apply_verdict(text, v, correction);
        });
        if (!done) return {tl::unexpected(done.error()), json()};
        json e;
        if (v.code != "-/-") {
          // The §3 result event, with what says which game it is and what it replaces.
          e = json{{"t", v.at_ms},
                   {"board", id},
                   {"type", "result"},
                   {"result", outputs::pgn_result(v.code)},
                   {"reason", outputs::event_reason(v.kind)},
                   {"game", number},
                   {"corrected", correction},
                   {"previous", previous},
                   {"rule", v.rule},
                   {"detail", v.reason}};
        }
        json& a = *done;
        a["events"] = e.is_null() ? json::array() : json::array({e});
        a["corrected"] = correction;
        a["previous"] = previous;
        json entry{
            {"t", v.at_ms},     {"utc", utc(v.at_ms)},     {"board", id},          {"game", number},
            {"result", v.code}, {"kind", v.kind},          {"rule", v.rule},       {"why", v.reason},
            {"who", v.by},      {"corrected", correction}, {"previous", previous}, {"kept", a["kept"]}};
        log_entry(job.state_dir, entry);
        return {std::move(a), std::move(e)};
      },
      [&b, v, number, settle = later.settle, done = ctx.done](Done d) {
        if (!d.answer) return settle(d.answer.error());
        if (done) done();
        if (!d.event.is_null() && b.options().publish_link) b.options().publish_link(dumped(d.event));
        spdlog::info("board {}: game {}: the arbiter's result {} ({}, rule {}) by {}", b.id(), number, v.code,
                     v.kind, v.rule, v.by);
        settle(http::Response::json(200, dumped(*d.answer)));
      });
  return later.response();
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
  // The record rewritten and the log entry synced on the worker; the answer once they are.
  using Done = tl::expected<json, http::Response>;
  LaterAnswer later =
      later_answer(std::chrono::seconds(60), "the correction of game " + std::to_string(number));
  off_loop<Done>(
      b,
      [job = rewrite_job(b, number, ctx), v = *v, answer, from_ply, moves = *moves, id = b.id(),
       number]() -> Done {
        std::string corrected;
        auto done = rewrite_record(job, answer, [&](const std::string& text) {
          auto out = outputs::replace_moves(text, from_ply, moves, v);
          if (out) corrected = outputs::pgn_tag(*out, "MovesCorrected").value_or("");
          return out;
        });
        if (!done) return done;
        (*done)["corrected"] = corrected;
        log_entry(job.state_dir, json{{"t", v.at_ms},
                                      {"utc", utc(v.at_ms)},
                                      {"board", id},
                                      {"game", number},
                                      {"action", "moves"},
                                      {"from_ply", from_ply},
                                      {"moves", moves},
                                      {"was", corrected},
                                      {"why", v.reason},
                                      {"who", v.by},
                                      {"kept", (*done)["kept"]}});
        return done;
      },
      [id = b.id(), number, from_ply, by = v->by, settle = later.settle, done = ctx.done](Done d) {
        if (!d) return settle(d.error());
        if (done) done();
        spdlog::info("board {}: game {}: the arbiter corrected the moves from ply {} by {}", id, number,
                     from_ply, by);
        settle(http::Response::json(200, dumped(*d)));
      });
  return later.response();
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
  // Logged (arbiter.log) before the answer, by either.
  return number == current ? on_current_game(b, *verdict, answer, ctx)
                           : on_earlier_game(b, number, *verdict, answer, ctx);
}

}  // namespace eboard::eboardd
