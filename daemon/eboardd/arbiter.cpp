// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/arbiter.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <system_error>
#include <tuple>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "daemon/core/event_json.hpp"
#include "daemon/eboardd/control.hpp"
#include "daemon/eboardd/match_runtime.hpp"
#include "daemon/journal/rotation.hpp"
#include "daemon/journal/signing.hpp"
#include "daemon/outputs/arbiter_result.hpp"
#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/atomic_file.hpp"
#include "daemon/outputs/background_work.hpp"
#include "daemon/outputs/match_moves.hpp"
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

// What the file work of an arbiter's correction needs from the board, copied on the loop: that work runs on
// the background worker (below), which never touches the BoardRuntime.
struct FileJob {
  fs::path state_dir;
  std::string board;
  int current = 0;  // the board's current game number when the request came
  Round round;
  outputs::AsyncFileWriter* files = nullptr;
  std::shared_ptr<const journal::SigningKey> key;
  fs::path journal_path;          // the board's current journal (its kept files beside it)
  std::optional<JournalCut> cut;  // the board's journal as written when the request came
  std::int64_t signed_ms = 0;
};

FileJob file_job(BoardRuntime& b, const ArbiterContext& ctx) {
  FileJob job{ctx.state_dir,    b.id(),       b.ledger().game_number(),
              ctx.round,        ctx.files,    b.options().signing_key,
              b.journal_path(), std::nullopt, b.now_ms()};
  if (job.key)
    if (auto cut = b.journal_cut()) job.cut = std::move(*cut);
  return job;
}

// The journal seals of a new signature of game `number`'s record: those the earlier signature made (what
// was sealed stays what it was), else the game's kept journal, else the board's journal as cut.
std::vector<journal::JournalSeal> seals_for(const FileJob& job, int number,
                                            const std::optional<std::string>& old_sig) {
  if (old_sig)
    if (auto r = journal::parse_signature_file(*old_sig); r && !r->journals.empty()) return r->journals;
  if (number != job.current) {
    fs::path kept;
    for (const auto& k : journal::kept_journals(job.journal_path))
      if (k.game == number) kept = k.path;  // the last kept under that number
    std::error_code ec;
    const auto size = kept.empty() ? 0 : fs::file_size(kept, ec);
    if (!kept.empty() && !ec)
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

// Runs `job` on the board's background worker, after what was posted there before it (a signature still
// being made reaches the writer first), then `then` with its result on the loop, unless the board is gone
// by then. Without a worker (a runtime without background threads), both here, now.
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

// Appended to state_dir/arbiter.log and made durable (outputs::append_durable).
void log_entry(const fs::path& state_dir, const json& entry) {
  const fs::path path = state_dir / "arbiter.log";
  const std::string line = dumped(entry) + "\n";
  if (auto ok = outputs::append_durable(path, line); !ok)
    spdlog::error("arbiter: cannot append to {} ({}): the entry was {}", path.string(), ok.error(), line);
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

std::string trimmed(std::string_view text) {
  const auto end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(0, end == std::string_view::npos ? 0 : end + 1));
}

// The archive of an earlier round (state_dir/rounds/*.pgn, not a kept version) that holds `record` as it is
// written, once: where an archived game's record is to be replaced. Nothing when none or more than one does.
std::optional<fs::path> archive_holding(const fs::path& state_dir, const std::string& record) {
  const std::string wanted = trimmed(record);
  if (wanted.empty()) return std::nullopt;
  std::optional<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(state_dir / "rounds", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".pgn") continue;
    auto text = read_text(it->path());
    if (!text) continue;
    const auto at = text->find(wanted);
    if (at == std::string::npos) continue;
    if (found || text->find(wanted, at + 1) != std::string::npos) return std::nullopt;
    found = it->path();
  }
  return found;
}

// The answer when archive_holding found no archive for game `number` of board `board`.
http::Response no_archive(const std::string& board, int number, const fs::path& state_dir) {
  return control_error(409, "game " + std::to_string(number) + " of board " + board +
                                " belongs to an earlier round, and no round archive in " +
                                (state_dir / "rounds").string() +
                                " holds its record as written (once): correct that archive by hand");
}

// The record `before` replaced by `after` in the round archive at `path`, kept as it was first.
tl::expected<std::vector<std::string>, std::string> rewrite_archive(const fs::path& path,
                                                                    const std::string& before,
                                                                    const std::string& after) {
  auto text = read_text(path);
  if (!text) return tl::unexpected("cannot read " + path.string());
  const std::string old = trimmed(before);
  const auto at = text->find(old);
  if (at == std::string::npos) return tl::unexpected(path.string() + " no longer holds the record");
  auto kept = keep_version(path);
  if (!kept) return kept;
  text->replace(at, old.size(), trimmed(after));
  if (auto ok = outputs::write_file_atomic(path, *text); !ok) return tl::unexpected(ok.error());
  return kept;
}

// The records and their signatures as the writer has them (pending versions written first).
void flush_records(outputs::AsyncFileWriter* files, const std::vector<fs::path>& records) {
  if (!files) return;
  for (const fs::path& p : records) {
    (void)files->flush(p);
    (void)files->flush(sig_of(p));
  }
}

// The arbiter's result as arbiter.log keeps it, with what the answer says was done.
json result_log(const std::string& board, int number, const outputs::ArbiterVerdict& v, const json& done) {
  return json{{"t", v.at_ms},
              {"utc", utc(v.at_ms)},
              {"board", board},
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

// --- The current game's result (on_current_game): the loop asks, the worker keeps the records as they
// were (keep_current), the loop applies the result (apply_current), the worker writes what follows and
// logs it (finish_current), the loop answers.

struct KeptBefore {
  std::vector<std::string> kept;
  std::optional<fs::path> archive;  // the round archive that holds the record (a game of an archived round)
  std::string before;               // the record as it was, as that archive holds it
};
using KeptOrRefused = tl::expected<KeptBefore, http::Response>;

// On the worker. The current game's records (its PGN, and its match's BPGN) as the writer has them, kept
// as `.v<k>` when the game is over already (a correction); for a game of an archived round (`archived`),
// the round archive that holds its record is found first (none: refused, nothing kept).
KeptOrRefused keep_current(const FileJob& job, const std::vector<fs::path>& records, bool over,
                           bool archived) {
  KeptBefore k;
  if (!over) return k;
  flush_records(job.files, records);
  if (archived) {
    k.before = read_text(records.front()).value_or("");
    k.archive = archive_holding(job.state_dir, k.before);
    if (!k.archive) return tl::unexpected(no_archive(job.board, job.current, job.state_dir));
  }
  for (const fs::path& p : records) {
    auto kept = keep_version(p);
    if (!kept)
      return tl::unexpected(
          control_error(500, "the record as it was could not be kept, so it stays: " + kept.error()));
    k.kept.insert(k.kept.end(), kept->begin(), kept->end());
  }
  return k;
}

// On the worker, after apply_current: the records with the result and their signatures on disk (the
// signature the loop asked for is made on this worker before this runs), the round archive rewritten,
// the entry appended to arbiter.log and synced. Returns the answer.
json finish_current(const FileJob& job, const std::vector<fs::path>& records, KeptBefore k, json answer,
                    const outputs::ArbiterVerdict& v) {
  flush_records(job.files, records);
  if (k.archive) {
    auto kept = rewrite_archive(*k.archive, k.before, read_text(records.front()).value_or(""));
    if (!kept) {
      spdlog::error("board {}: the result is corrected, but its round archive is not: {}", job.board,
                    kept.error());
      answer["archive_error"] = kept.error();
    } else {
      k.kept.insert(k.kept.end(), kept->begin(), kept->end());
      answer["archive"] = k.archive->string();
    }
  }
  answer["kept"] = k.kept;
  log_entry(job.state_dir, result_log(job.board, job.current, v, answer));
  return answer;
}

// A result on the current game, as the loop takes it (on_current_game) and carries it between the steps.
struct CurrentResult {
  outputs::ArbiterVerdict v;
  json answer;
  bool over = false;  // the game was over already: a correction
  int number = 0;     // the game's number
  std::string previous, previous_termination;
  fs::path path;                  // the game's record
  std::vector<fs::path> records;  // it, and its match's BPGN
  MatchRuntime* match = nullptr;
  std::function<void()> done;  // ArbiterContext::done
  std::function<void(http::Response)> settle;
};

// Calls `f` on the loop once what each of `boards` journaled so far is durable and its events published
// (BoardRuntime::when_durable, one board after the other); never if one of them is gone by then.
void after_durable(std::vector<BoardRuntime*> boards, std::function<void()> f) {
  if (boards.empty()) return f();
  BoardRuntime* first = boards.front();
  boards.erase(boards.begin());
  first->when_durable([boards = std::move(boards), f = std::move(f)]() mutable {
    after_durable(std::move(boards), std::move(f));
  });
}

// On the loop, once apply_current's result is durable and published (a match's: both games' results, the
// partner's stopped game too): a match's BPGN rewritten, then finish_current posted, and the answer given
// once it is done.
void record_current(BoardRuntime& b, const FileJob& job, CurrentResult r, KeptBefore k) {
  json& answer = r.answer;
  if (MatchRuntime* m = r.match) {
    m->rewrite_bpgn();
    const auto& mr = m->match().result();
    answer["match"] = {{"name", m->name()},
                       {"number", m->number()},
                       {"result", mr ? rules::result_string(mr->result) : "*"},
                       {"reason", mr ? json(mr->reason) : json(nullptr)},
                       {"bpgn", "/matches/" + m->name() + ".bpgn"},
                       {"record", r.records.back().string()}};
  }
  off_loop<json>(
      b,
      [job, records = r.records, k = std::move(k), answer, v = r.v]() mutable {
        return finish_current(job, records, std::move(k), std::move(answer), v);
      },
      [id = b.id(), number = r.number, v = r.v, done = r.done, settle = r.settle](json written) {
        spdlog::info("board {}: game {}: the arbiter's result {} ({}, rule {}) by {}", id, number, v.code,
                     v.kind, v.rule, v.by);
        if (done) done();
        settle(http::Response::json(200, dumped(written)));
      });
}

// On the loop, once keep_current kept the records: the result journaled (the game's own `result` control,
// and the Arbiter* tags), then record_current once that is durable.
void apply_current(BoardRuntime& b, const FileJob& job, CurrentResult r, KeptBefore k) {
  // The board may have moved on while the worker kept its record (a new game, a result meanwhile).
  if (b.ledger().game_number() != r.number || b.game().outcome().has_value() != r.over)
    return r.settle(control_error(409, "game " + std::to_string(r.number) + " of board " + b.id() +
                                           " changed while its record was kept: ask again"));
  journal::ControlEntry c;
  c.action = "result";
  c.value = outputs::pgn_result(r.v.code) + " " + outputs::event_reason(r.v.kind);
  auto evs = b.control(c);
  if (!evs) return r.settle(control_error(409, evs.error()));
  b.set_tags(
      {{"ArbiterResult", r.v.code},
       {"ArbiterRule", r.v.rule},
       {"ArbiterReason", r.v.reason},
       {"ArbiterBy", r.v.by},
       {"ArbiterTime", utc(r.v.at_ms)},
       {"ArbiterPrevious",
        r.over ? r.previous + (r.previous_termination.empty() ? "" : " " + r.previous_termination) : ""}});
  json& answer = r.answer;
  json published = json::array();
  for (const rules::Event& e : *evs) published.push_back(daemon::to_json(e));
  answer["events"] = published;
  answer["corrected"] = r.over;
  answer["previous"] = r.over ? json(r.previous) : json(nullptr);
  answer["record"] = r.path.string();
  answer["signed"] = b.options().signing_key != nullptr;
  // Once the control and the tags are durable (the syncer, off the loop) and the result published; in a
  // match, on both boards.
  std::vector<BoardRuntime*> boards{&b};
  if (r.match) boards.assign(r.match->boards().begin(), r.match->boards().end());
  after_durable(std::move(boards), [&b, job, r = std::move(r), k = std::move(k)]() mutable {
    record_current(b, job, std::move(r), std::move(k));
  });
}

// The current game's result given or corrected, through reconstruction (journaled). Answered once the
// records, their signatures, a round archive and arbiter.log are on disk.
http::Response on_current_game(BoardRuntime& b, outputs::ArbiterVerdict v, json answer,
                               const ArbiterContext& ctx) {
  const rules::Game& g = b.game();
  CurrentResult r;
  r.v = std::move(v);
  r.answer = std::move(answer);
  r.over = g.outcome().has_value();
  r.previous = "*";
  const outputs::BoardGame current = b.board_game();
  r.number = current.number;
  r.path = ctx.state_dir / "games" / outputs::game_file_name(current);
  // In a match, its BPGN archive too: the result given decides the match, or corrects its result.
  r.records = {r.path};
  r.match = ctx.match_runtime;
  if (r.match) r.records.push_back(r.match->bpgn_path());
  if (r.over) {
    r.previous = rules::result_string(g.outcome()->result);
    r.previous_termination = g.outcome()->reason;
    for (const auto& t : b.ledger().tags())
      if (t.name == "ArbiterResult") r.previous = t.value;
  }
  // A game over that belongs to an archived round (the board not set up again since): its round archive
  // is rewritten too.
  const bool archived = r.over && !in_round(ctx.round, b.id(), current.number, current.started_ms);
  LaterAnswer later = later_answer(b.io(), std::chrono::seconds(60), "the arbiter's result");
  r.done = ctx.done;
  r.settle = later.settle;
  FileJob job = file_job(b, ctx);
  std::function<KeptOrRefused()> keep = [job, records = r.records, over = r.over, archived] {
    return keep_current(job, records, over, archived);
  };
  off_loop<KeptOrRefused>(b, std::move(keep), [&b, job, r = std::move(r)](KeptOrRefused k) mutable {
    if (!k) return r.settle(k.error());
    apply_current(b, job, std::move(r), std::move(*k));
  });
  return later.response();
}

// --- An earlier game's record (on_earlier_game, moves_action): the loop asks, the worker rewrites the
// files and logs it (rewrite_record, correct_earlier), the loop publishes and answers.

// The record as it was and as it is now.
struct Rewritten {
  std::string before;
  std::string after;
};
using Rewrite = std::function<tl::expected<std::string, std::string>(const std::string&)>;

// On the worker. The record at `path` (game `number` of the board, or of its match: `signer` names the
// board or the match) rewritten, kept as it was first and signed again. `answer` gets record, kept, signed.
tl::expected<Rewritten, http::Response> rewrite_file(const FileJob& job, const fs::path& path, int number,
                                                     const std::string& signer, json& answer,
                                                     const Rewrite& rewrite) {
  if (job.files) {
    if (auto ok = job.files->flush(path); !ok)
      return tl::unexpected(control_error(500, "the record could not be written first: " + ok.error()));
    (void)job.files->flush(sig_of(path));
  }
  auto text = read_text(path);
  if (!text) return tl::unexpected(control_error(500, "cannot read " + path.string()));
  auto next = rewrite(*text);
  if (!next)
    return tl::unexpected(control_error(409, "game " + std::to_string(number) + ": " + next.error()));
  auto kept = keep_version(path);
  if (!kept)
    return tl::unexpected(
        control_error(500, "the record as it was could not be kept, so it stays: " + kept.error()));
  const auto old_sig = read_text(sig_of(path));
  auto written = job.files ? job.files->replace_now(path, *next) : outputs::write_file_atomic(path, *next);
  if (!written)
    return tl::unexpected(control_error(500, "the record could not be written: " + written.error()));
  bool signed_now = false;
  if (job.key) {
    journal::SignedRecord r;
    r.archive = journal::seal_archive(path.filename().string(), *next);
    r.journals = seals_for(job, number, old_sig);
    r.board = signer;
    r.game = number;
    r.signed_ms = job.signed_ms;
    std::string sig = journal::signature_file_text(std::move(r), *job.key);
    auto ok = job.files ? job.files->write_now(sig_of(path), std::move(sig))
                        : outputs::write_file_atomic(sig_of(path), sig);
    if (!ok) spdlog::error("{}: {} is not signed again: {}", signer, path.string(), ok.error());
    signed_now = ok.has_value();
  }
  answer["kept"] = *kept;
  answer["record"] = path.string();
  answer["signed"] = signed_now;
  return Rewritten{std::move(*text), std::move(*next)};
}

// On the worker. Game `number`'s record of the board rewritten (rewrite_file): an earlier game of the
// current round, or a game of an archived round, whose round archive (rounds/<round>.pgn) is then
// rewritten too.
tl::expected<Rewritten, http::Response> rewrite_record(const FileJob& job, int number, json& answer,
                                                       const Rewrite& rewrite) {
  auto rec = find_record(job.state_dir / "games", job.board, number, job.files);
  if (!rec)
    return tl::unexpected(control_error(400, "board " + job.board + " keeps no record of game " +
                                                 std::to_string(number) +
                                                 " (a game with neither a move nor a result is not kept)"));
  std::optional<fs::path> archive;
  if (!in_round(job.round, job.board, number, rec->started_ms)) {
    if (job.files) (void)job.files->flush(rec->path);
    auto text = read_text(rec->path);
    if (text) archive = archive_holding(job.state_dir, *text);
    if (!archive) return tl::unexpected(no_archive(job.board, number, job.state_dir));
  }
  auto done = rewrite_file(job, rec->path, number, job.board, answer, rewrite);
  if (!done || !archive) return done;
  auto kept = rewrite_archive(*archive, done->before, done->after);
  if (!kept) {
    spdlog::error("board {}: game {} corrected, but its round archive is not: {}", job.board, number,
                  kept.error());
    answer["archive_error"] = kept.error();
  } else {
    for (const auto& k : *kept) answer["kept"].push_back(k);
    answer["archive"] = archive->string();
  }
  return done;
}

// The partner board of an earlier match's game, copied on the loop (its job, its game's number).
struct PartnerPart {
  FileJob job;
  int number = 0;  // the partner board's number of that match's game
  int index = 0;   // its index in the match
};

// On the worker. The partner board's record of an earlier match whose result the arbiter gave or corrected
// (`team`: as team 1 sees it, its board the one it was given on): a game the match stopped ("partner-board")
// takes the match's new result as that board sees it, as rules::Match does for the current match. Nothing
// when there is nothing to change; else what was done (record, kept, previous, result; or error: the result
// stands, the partner's record does not follow) and the §3 event to publish on the partner board.
std::optional<std::pair<json, json>> correct_partner(const PartnerPart& p,
                                                     const outputs::ArbiterVerdict& team) {
  const std::string result = outputs::pgn_result(outputs::team1_code(p.index, team.code));
  if (p.number < 1 || result == "*") return std::nullopt;  // -/-: both lose, the partner's game stays
  auto rec = find_record(p.job.state_dir / "games", p.job.board, p.number, p.job.files);
  if (!rec) return std::nullopt;
  if (p.job.files) (void)p.job.files->flush(rec->path);
  const std::string text = read_text(rec->path).value_or("");
  const std::string previous = outputs::pgn_tag(text, "Result").value_or("*");
  if (outputs::pgn_tag(text, "Termination") != "partner-board" || previous == result) return std::nullopt;
  json done{{"board", p.job.board}, {"game", p.number}, {"result", result}, {"previous", previous}};
  auto rewritten = rewrite_record(p.job, p.number, done, [&](const std::string& t) {
    return outputs::apply_partner_result(t, result, team);
  });
  if (!rewritten) {
    done["error"] = json::parse(rewritten.error().body, nullptr, false).value("error", "not rewritten");
    spdlog::error("board {}: game {} keeps its partner-board result {}: {}", p.job.board, p.number, previous,
                  done["error"].get<std::string>());
    return std::pair{std::move(done), json()};
  }
  json e{{"t", team.at_ms},           {"board", p.job.board}, {"type", "result"},  {"result", result},
         {"reason", "partner-board"}, {"game", p.number},     {"corrected", true}, {"previous", previous}};
  spdlog::info("board {}: game {}: partner-board result {} made {} by the arbiter's result on board {}",
               p.job.board, p.number, previous, result, team.board);
  return std::pair{std::move(done), std::move(e)};
}

// An earlier game's result, as the worker leaves it for the loop: the answer (or the refusal) and the §3
// event to publish (null: none, for -/-).
struct EarlierDone {
  tl::expected<json, http::Response> answer;
  json event;
  json partner_event;  // on the partner board of a match (null: none)
};

// The match an earlier game of a match board belongs to, copied on the loop.
struct MatchPart {
  std::string name;
  int number = 0;  // the match's number of that game
  fs::path bpgn;   // its archive
  int index = 0;   // the board's index in the match (0: team 1 plays White there)
  std::optional<PartnerPart> partner;
};

// On the worker. Game `number`'s result given or corrected in its record (and in its match's BPGN, the
// result as team 1 sees it), logged; the event to publish made.
EarlierDone correct_earlier(const FileJob& job, int number, const outputs::ArbiterVerdict& v, json answer,
                            const std::optional<MatchPart>& match) {
  std::string previous = "*";
  bool correction = false;
  auto done = rewrite_record(job, number, answer, [&](const std::string& text) {
    previous =
        outputs::pgn_tag(text, "ArbiterResult").value_or(outputs::pgn_tag(text, "Result").value_or("*"));
    correction = previous != "*";
    return outputs::apply_verdict(text, v, correction);
  });
  if (!done) return {tl::unexpected(done.error()), json(), json()};
  json partner_event;
  if (match) {
    // The match's BPGN archive too, with the result as team 1 sees it and the board it was given on.
    outputs::ArbiterVerdict team = v;
    team.code = outputs::team1_code(match->index, v.code);
    team.board = job.board;
    json m{{"name", match->name}, {"number", match->number}, {"result", outputs::pgn_result(team.code)}};
    auto bpgn = rewrite_file(job, match->bpgn, match->number, match->name, m, [&](const std::string& text) {
      const bool decided = outputs::pgn_tag(text, "Result").value_or("*") != "*" ||
                           outputs::pgn_tag(text, "ArbiterResult").has_value();
      return outputs::apply_verdict(text, team, decided);
    });
    if (!bpgn) return {tl::unexpected(bpgn.error()), json(), json()};
    for (const auto& k : m["kept"]) answer["kept"].push_back(k);
    answer["match"] = m;
    if (match->partner)
      if (auto partner = correct_partner(*match->partner, team)) {
        answer["partner"] = std::move(partner->first);
        partner_event = std::move(partner->second);
      }
  }
  json e;
  if (v.code != "-/-") {
    // The §3 result event, with what says which game it is and what it replaces.
    e = json{{"t", v.at_ms},
             {"board", job.board},
             {"type", "result"},
             {"result", outputs::pgn_result(v.code)},
             {"reason", outputs::event_reason(v.kind)},
             {"game", number},
             {"corrected", correction},
             {"previous", previous},
             {"rule", v.rule},
             {"detail", v.reason}};
  }
  answer["events"] = e.is_null() ? json::array() : json::array({e});
  answer["corrected"] = correction;
  answer["previous"] = previous;
  log_entry(job.state_dir, result_log(job.board, number, v, answer));
  return {std::move(answer), std::move(e), std::move(partner_event)};
}

// An earlier game of the round: its result given or corrected in its record (on the worker), then its
// event published and the answer given (on the loop).
http::Response on_earlier_game(BoardRuntime& b, int number, outputs::ArbiterVerdict v, json answer,
                               const ArbiterContext& ctx) {
  std::optional<MatchPart> match;
  BoardRuntime* partner = nullptr;  // lives as long as `b`: a match's boards go with it
  if (MatchRuntime* m = ctx.match_runtime) {
    const int match_number = number + m->number() - b.ledger().game_number();
    const int index = m->boards()[1] == &b ? 1 : 0;
    match = MatchPart{m->name(), match_number, m->bpgn_path(match_number), index, std::nullopt};
    partner = m->boards()[1 - index];
    match->partner = PartnerPart{file_job(*partner, ctx),
                                 partner->ledger().game_number() + match_number - m->number(), 1 - index};
  }
  LaterAnswer later =
      later_answer(b.io(), std::chrono::seconds(60), "the correction of game " + std::to_string(number));
  off_loop<EarlierDone>(
      b,
      [job = file_job(b, ctx), number, v, answer = std::move(answer), match] {
        return correct_earlier(job, number, v, answer, match);
      },
      [&b, partner, number, v, done = ctx.done, settle = later.settle](EarlierDone d) {
        if (!d.answer) return settle(d.answer.error());
        if (!d.event.is_null() && b.options().publish_link) b.options().publish_link(dumped(d.event));
        if (partner && !d.partner_event.is_null() && partner->options().publish_link)
          partner->options().publish_link(dumped(d.partner_event));
        spdlog::info("board {}: game {}: the arbiter's result {} ({}, rule {}) by {}", b.id(), number, v.code,
                     v.kind, v.rule, v.by);
        if (done) done();
        settle(http::Response::json(200, dumped(*d.answer)));
      });
  return later.response();
}

// --- The moves of a board's game of an earlier bughouse match (on_match_moves): the loop asks, the worker
// replays the match with the corrected plies (outputs::replace_match_moves) and, when every ply stands,
// rewrites the board's record, the match's BPGN and the partner's record if its text changes (each kept
// first and signed again), the loop answers.

// The earlier match of a match board's game whose moves are corrected, copied on the loop.
struct MatchMovesPart {
  std::string name;
  int number = 0;  // the match's number of that game
  fs::path bpgn;   // its archive
  int index = 0;   // the board's index in the match
  std::array<std::string, 2> ids;
  PartnerPart partner;
};

// On the worker. What replace_match_moves refused, as the 409 says it: the ply that no longer stands.
http::Response match_moves_refused(const MatchMovesPart& m, const outputs::MatchMovesRefusal& r) {
  json body{{"error", "match " + std::to_string(m.number) + " of " + m.name +
                          " does not stand with these moves, so nothing is changed: " +
                          outputs::refusal_text(r, m.ids)},
            {"board", m.ids[std::size_t(r.board & 1)]}};
  if (r.ply > 0) {
    body["ply"] = r.ply;
    body["move"] = r.move;
  }
  body["why"] = r.why;
  return http::Response::json(409, dumped(body));
}

// On the worker. The corrected texts replace the records (rewrite_record, rewrite_file), each only if it is
// still the text the correction was made from.
Rewrite replaced_by(const std::string& from, const std::string& to) {
  return [from, to](const std::string& text) -> tl::expected<std::string, std::string> {
    if (text != from)
      return tl::unexpected(std::string("the record changed while it was corrected: ask again"));
    return to;
  };
}

// On the worker. The board's record put back as it was (`done` undone, kept and signed again like any
// rewrite) after the match's BPGN could not follow it, so that the two never disagree and the arbiter can
// ask again; `failed` is the BPGN's answer. If the record cannot be put back either, the answer says which
// file holds what.
http::Response undo_record(const FileJob& job, int number, const Rewritten& done,
                           const http::Response& failed, const MatchMovesPart& m) {
  auto error_of = [](const http::Response& r, const char* otherwise) {
    const json j = json::parse(r.body, nullptr, false);
    return j.is_object() ? j.value("error", otherwise) : std::string(otherwise);
  };
  json body{{"error", error_of(failed, "the match's BPGN could not be written")}};
  const std::string why = body["error"];
  json undone;
  auto back = rewrite_record(job, number, undone, replaced_by(done.after, done.before));
  if (back) {
    body["error"] = why + "; board " + job.board + "'s record is as it was: nothing is changed";
    return http::Response::json(failed.status, dumped(body));
  }
  const std::string left = error_of(back.error(), "not written");
  spdlog::error("board {}: game {} keeps the corrected moves but match {}'s BPGN does not: {}", job.board,
                number, m.number, left);
  body["error"] = why + "; board " + job.board + "'s record keeps the corrected moves (" + left +
                  "): the match's BPGN " + m.bpgn.string() + " does not";
  return http::Response::json(500, dumped(body));
}

// On the worker. Game `number` of the board (game m.number of match m.name) corrected from ply `from_ply`
// on, the match replayed; the answer, or the refusal (nothing written).
tl::expected<json, http::Response> correct_match_moves(const FileJob& job, int number, int from_ply,
                                                       const std::string& moves,
                                                       const outputs::ArbiterVerdict& v, json answer,
                                                       const MatchMovesPart& m) {
  const PartnerPart& p = m.partner;
  flush_records(job.files, {m.bpgn});
  auto bpgn = read_text(m.bpgn);
  if (!bpgn)
    return tl::unexpected(control_error(409, "match " + std::to_string(m.number) + " of " + m.name +
                                                 " has no BPGN on disk yet (" + m.bpgn.string() +
                                                 "): ask again once it is written"));
  std::array<std::string, 2> texts;
  for (const auto& [j, n, index] :
       {std::tuple{&job, number, m.index}, std::tuple{&p.job, p.number, p.index}}) {
    auto rec = find_record(j->state_dir / "games", j->board, n, j->files);
    if (!rec)
      return tl::unexpected(control_error(409, "board " + j->board + " keeps no record of game " +
                                                   std::to_string(n) + " (match " + std::to_string(m.number) +
                                                   "): the match's records are not complete"));
    flush_records(j->files, {rec->path});
    texts[std::size_t(index)] = read_text(rec->path).value_or("");
  }
  auto fixed = outputs::replace_match_moves(*bpgn, texts, m.index, from_ply, moves, v, m.ids);
  if (!fixed) return tl::unexpected(match_moves_refused(m, fixed.error()));
  // The board's record first: it is the one refused when its round archive cannot follow.
  auto own = rewrite_record(job, number, answer,
                            replaced_by(texts[std::size_t(m.index)], *fixed->records[std::size_t(m.index)]));
  if (!own) return tl::unexpected(own.error());
  json mj{{"name", m.name}, {"number", m.number}};
  auto match = rewrite_file(job, m.bpgn, m.number, m.name, mj, replaced_by(*bpgn, fixed->bpgn));
  if (!match) return tl::unexpected(undo_record(job, number, *own, match.error(), m));
  for (const auto& k : mj["kept"]) answer["kept"].push_back(k);
  answer["match"] = mj;
  if (const auto& other = fixed->records[std::size_t(p.index)]) {
    json pj{{"board", p.job.board}, {"game", p.number}};
    auto partner = rewrite_record(p.job, p.number, pj, replaced_by(texts[std::size_t(p.index)], *other));
    if (!partner) {
      pj["error"] = json::parse(partner.error().body, nullptr, false).value("error", "not rewritten");
      spdlog::error("board {}: game {} keeps its text after match {}'s moves were corrected: {}", p.job.board,
                    p.number, m.number, pj["error"].get<std::string>());
    } else {
      for (const auto& k : pj["kept"]) answer["kept"].push_back(k);
    }
    answer["partner"] = pj;
  }
  answer["corrected"] = fixed->was;
  log_entry(job.state_dir, json{{"t", v.at_ms},
                                {"utc", utc(v.at_ms)},
                                {"board", job.board},
                                {"game", number},
                                {"match", m.name},
                                {"match_number", m.number},
                                {"action", "moves"},
                                {"from_ply", from_ply},
                                {"moves", moves},
                                {"was", fixed->was},
                                {"why", v.reason},
                                {"who", v.by},
                                {"kept", answer["kept"]}});
  return answer;
}

// POST /control/<board>/moves on a board of a running match, for its game `number` of an earlier match.
http::Response on_match_moves(BoardRuntime& b, int number, int from_ply, std::string moves,
                              outputs::ArbiterVerdict v, json answer, const ArbiterContext& ctx) {
  MatchRuntime& mr = *ctx.match_runtime;
  const int match_number = number + mr.number() - b.ledger().game_number();
  if (match_number < 1 || match_number >= mr.number())
    return control_error(409, "game " + std::to_string(number) + " of board " + b.id() +
                                  " is no game of an earlier match of " + mr.name());
  if (mr.archive_pending(match_number))
    return control_error(409, "match " + std::to_string(match_number) + " of " + mr.name() +
                                  " is not written yet (its last events wait for the journal): ask again");
  const int index = mr.boards()[1] == &b ? 1 : 0;
  BoardRuntime& partner = *mr.boards()[std::size_t(1 - index)];
  MatchMovesPart m{mr.name(),
                   match_number,
                   mr.bpgn_path(match_number),
                   index,
                   {mr.boards()[0]->id(), mr.boards()[1]->id()},
                   PartnerPart{file_job(partner, ctx),
                               partner.ledger().game_number() + match_number - mr.number(), 1 - index}};
  answer["match"] = {{"name", m.name}, {"number", match_number}};
  LaterAnswer later = later_answer(b.io(), std::chrono::seconds(60),
                                   "the correction of match " + std::to_string(match_number));
  using Done = tl::expected<json, http::Response>;
  off_loop<Done>(
      b,
      [job = file_job(b, ctx), number, from_ply, moves = std::move(moves), v, answer = std::move(answer),
       m = std::move(m)]() mutable -> Done {
        return correct_match_moves(job, number, from_ply, moves, v, std::move(answer), m);
      },
      [id = b.id(), number, match_number, from_ply, by = v.by, done = ctx.done,
       settle = later.settle](Done d) {
        if (!d) return settle(d.error());
        spdlog::info("board {}: game {} (match {}): the arbiter corrected the moves from ply {} by {}", id,
                     number, match_number, from_ply, by);
        if (done) done();
        settle(http::Response::json(200, dumped(*d)));
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
  if (!ctx.match.empty() && (!b.options().match_member || !ctx.match_runtime))
    return control_error(409, "board " + b.id() + " is in the bughouse match " + ctx.match +
                                  ": its moves are not corrected while the match is not running");
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
  if (ctx.match_runtime) return on_match_moves(b, number, from_ply, *moves, *v, std::move(answer), ctx);
  // The record rewritten and the entry logged on the worker; the answer once they are on disk.
  LaterAnswer later =
      later_answer(b.io(), std::chrono::seconds(60), "the correction of game " + std::to_string(number));
  using Done = tl::expected<json, http::Response>;
  off_loop<Done>(
      b,
      [job = file_job(b, ctx), number, from_ply, moves = *moves, v = *v, answer]() mutable -> Done {
        std::string corrected;
        auto done = rewrite_record(job, number, answer, [&](const std::string& text) {
          auto out = outputs::replace_moves(text, from_ply, moves, v);
          if (out) corrected = outputs::pgn_tag(*out, "MovesCorrected").value_or("");
          return out;
        });
        if (!done) return tl::unexpected(done.error());
        answer["corrected"] = corrected;
        log_entry(job.state_dir, json{{"t", v.at_ms},
                                      {"utc", utc(v.at_ms)},
                                      {"board", job.board},
                                      {"game", number},
                                      {"action", "moves"},
                                      {"from_ply", from_ply},
                                      {"moves", moves},
                                      {"was", corrected},
                                      {"why", v.reason},
                                      {"who", v.by},
                                      {"kept", answer["kept"]}});
        return answer;
      },
      [id = b.id(), number, from_ply, by = v->by, done = ctx.done, settle = later.settle](Done d) {
        if (!d) return settle(d.error());
        spdlog::info("board {}: game {}: the arbiter corrected the moves from ply {} by {}", id, number,
                     from_ply, by);
        if (done) done();
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
  // A configured match whose boards run alone (the match could not open): its result would not be the
  // match's, as the other controls are refused there (control.cpp).
  if (!ctx.match.empty() && (!b.options().match_member || !ctx.match_runtime))
    return control_error(409, "board " + b.id() + " is in the bughouse match " + ctx.match +
                                  ": a result is not taken while the match is not running");
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
  // Each logs its entry in arbiter.log before it answers.
  return number == current ? on_current_game(b, *verdict, answer, ctx)
                           : on_earlier_game(b, number, *verdict, answer, ctx);
}

}  // namespace eboard::eboardd
