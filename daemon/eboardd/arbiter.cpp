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
#include "daemon/eboardd/match_runtime.hpp"
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

// The answer when archive_holding found no archive for game `number` of board b.
http::Response no_archive(const BoardRuntime& b, int number, const ArbiterContext& ctx) {
  return control_error(409, "game " + std::to_string(number) + " of board " + b.id() +
                                " belongs to an earlier round, and no round archive in " +
                                (ctx.state_dir / "rounds").string() +
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

// The current game's result given or corrected, through reconstruction (journaled).
http::Response on_current_game(BoardRuntime& b, outputs::ArbiterVerdict v, json answer,
                               const ArbiterContext& ctx) {
  const rules::Game& g = b.game();
  const bool over = g.outcome().has_value();
  std::string previous = "*", previous_termination;
  std::vector<std::string> kept;
  const fs::path path = ctx.state_dir / "games" / outputs::game_file_name(b.board_game());
  // In a match, its BPGN archive too: the result given decides the match, or corrects its result.
  std::vector<fs::path> records{path};
  if (ctx.match_runtime) records.push_back(ctx.match_runtime->bpgn_path());
  // A game over that belongs to an archived round (the board not set up again since): its round archive
  // is rewritten too.
  std::optional<fs::path> archive;
  std::string before;
  if (over) {
    previous = rules::result_string(g.outcome()->result);
    previous_termination = g.outcome()->reason;
    for (const auto& t : b.ledger().tags())
      if (t.name == "ArbiterResult") previous = t.value;
    // The signature of the result being corrected may still be made on the worker (SignJob): handed to
    // the writer first, so that the version kept has it.
    if (b.work()) b.work()->drain();
    for (const fs::path& p : records) {
      if (ctx.files) {
        (void)ctx.files->flush(p);
        (void)ctx.files->flush(sig_of(p));
      }
    }
    const outputs::BoardGame current = b.board_game();
    if (!in_round(ctx.round, b.id(), current.number, current.started_ms)) {
      before = read_text(path).value_or("");
      archive = archive_holding(ctx.state_dir, before);
      if (!archive) return no_archive(b, current.number, ctx);
    }
    for (const fs::path& p : records) {
      auto k = keep_version(p);
      if (!k) return control_error(500, "the record as it was could not be kept, so it stays: " + k.error());
      kept.insert(kept.end(), k->begin(), k->end());
    }
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
  if (MatchRuntime* m = ctx.match_runtime) {
    // Both games' results published (the partner's stopped game too), then the BPGN with the tags.
    for (BoardRuntime* board : m->boards()) board->sync_now();
    m->rewrite_bpgn();
    const auto& r = m->match().result();
    answer["match"] = {{"name", m->name()},
                       {"number", m->number()},
                       {"result", r ? rules::result_string(r->result) : "*"},
                       {"reason", r ? json(r->reason) : json(nullptr)},
                       {"bpgn", "/matches/" + m->name() + ".bpgn"},
                       {"record", records.back().string()}};
  }
  // The records and their signatures on disk before the answer.
  if (ctx.files)
    for (const fs::path& p : records) {
      (void)ctx.files->flush(p);
      (void)ctx.files->flush(sig_of(p));
    }
  if (archive) {
    auto k = rewrite_archive(*archive, before, read_text(path).value_or(""));
    if (!k) {
      spdlog::error("board {}: the result is corrected, but its round archive is not: {}", b.id(), k.error());
      answer["archive_error"] = k.error();
    } else {
      kept.insert(kept.end(), k->begin(), k->end());
      answer["archive"] = archive->string();
    }
  }
  json published = json::array();
  for (const rules::Event& e : *evs) published.push_back(daemon::to_json(e));
  answer["events"] = published;
  answer["corrected"] = over;
  answer["previous"] = over ? json(previous) : json(nullptr);
  answer["kept"] = kept;
  answer["record"] = path.string();
  answer["signed"] = b.options().signing_key != nullptr;
  if (ctx.done) ctx.done();
  return http::Response::json(200, dumped(answer));
}

// An earlier game's record rewritten by `rewrite` (its text → the new text), kept as it was first,
// signed again. `answer` gets record, kept, signed.
struct Rewritten {
  std::string before;  // the record as it was
  std::string after;   // as it is now
};
using Rewrite = std::function<tl::expected<std::string, std::string>(const std::string&)>;

// The record at `path` (game `number` of board b, or of b's match: `signer` names the board or the match)
// rewritten, kept as it was first and signed again. `answer` gets record, kept, signed.
tl::expected<Rewritten, http::Response> rewrite_file(BoardRuntime& b, const fs::path& path, int number,
                                                     const std::string& signer, const ArbiterContext& ctx,
                                                     json& answer, const Rewrite& rewrite) {
  if (b.work()) b.work()->drain();  // a signature still being made (SignJob) reaches the writer first
  if (ctx.files) {
    if (auto ok = ctx.files->flush(path); !ok)
      return tl::unexpected(control_error(500, "the record could not be written first: " + ok.error()));
    (void)ctx.files->flush(sig_of(path));
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
  auto written = ctx.files ? ctx.files->write_now(path, *next) : outputs::write_file_atomic(path, *next);
  if (!written)
    return tl::unexpected(control_error(500, "the record could not be written: " + written.error()));
  bool signed_now = false;
  if (const auto& key = b.options().signing_key) {
    journal::SignedRecord r;
    r.archive = journal::seal_archive(path.filename().string(), *next);
    r.journals = seals_for(b, number, old_sig);
    r.board = signer;
    r.game = number;
    r.signed_ms = b.now_ms();
    std::string sig = journal::signature_file_text(std::move(r), *key);
    auto ok = ctx.files ? ctx.files->write_now(sig_of(path), std::move(sig))
                        : outputs::write_file_atomic(sig_of(path), sig);
    if (!ok) spdlog::error("{}: {} is not signed again: {}", signer, path.string(), ok.error());
    signed_now = ok.has_value();
  }
  answer["kept"] = *kept;
  answer["record"] = path.string();
  answer["signed"] = signed_now;
  return Rewritten{std::move(*text), std::move(*next)};
}

// Game `number`'s record of board b rewritten (rewrite_file): an earlier game of the current round, or a
// game of an archived round, whose round archive (rounds/<round>.pgn) is then rewritten too.
tl::expected<Rewritten, http::Response> rewrite_record(BoardRuntime& b, int number, const ArbiterContext& ctx,
                                                       json& answer, const Rewrite& rewrite) {
  auto rec = find_record(ctx.state_dir / "games", b.id(), number, ctx.files);
  if (!rec)
    return tl::unexpected(control_error(400, "board " + b.id() + " keeps no record of game " +
                                                 std::to_string(number) +
                                                 " (a game with neither a move nor a result is not kept)"));
  std::optional<fs::path> archive;
  if (!in_round(ctx.round, b.id(), number, rec->started_ms)) {
    if (ctx.files) (void)ctx.files->flush(rec->path);
    auto text = read_text(rec->path);
    if (text) archive = archive_holding(ctx.state_dir, *text);
    if (!archive) return tl::unexpected(no_archive(b, number, ctx));
  }
  auto done = rewrite_file(b, rec->path, number, b.id(), ctx, answer, rewrite);
  if (!done || !archive) return done;
  auto kept = rewrite_archive(*archive, done->before, done->after);
  if (!kept) {
    spdlog::error("board {}: game {} corrected, but its round archive is not: {}", b.id(), number,
                  kept.error());
    answer["archive_error"] = kept.error();
  } else {
    for (const auto& k : *kept) answer["kept"].push_back(k);
    answer["archive"] = archive->string();
  }
  return done;
}

// The partner board's record of an earlier match whose result the arbiter gave or corrected (`team`: as team
// 1 sees it, its board the one it was given on; `behind`: that match's number less the current one's): a
// game the match stopped ("partner-board") takes the match's new result as that board sees it, as
// rules::Match does for the current match. Nothing when there is nothing to change; else what was done
// (record, kept, previous, result; or error: the result stands, the partner's record does not follow).
std::optional<json> correct_partner(BoardRuntime& partner, int behind, const outputs::ArbiterVerdict& team,
                                    const ArbiterContext& ctx) {
  const int number = partner.ledger().game_number() + behind;
  const int index = ctx.match_runtime->boards()[1] == &partner ? 1 : 0;
  const std::string result = outputs::pgn_result(outputs::team1_code(index, team.code));
  if (number < 1 || result == "*") return std::nullopt;  // -/-: both lose, the partner's game stays
  auto rec = find_record(ctx.state_dir / "games", partner.id(), number, ctx.files);
  if (!rec) return std::nullopt;
  if (ctx.files) (void)ctx.files->flush(rec->path);
  const std::string text = read_text(rec->path).value_or("");
  const std::string previous = outputs::pgn_tag(text, "Result").value_or("*");
  if (outputs::pgn_tag(text, "Termination") != "partner-board" || previous == result) return std::nullopt;
  json done{{"board", partner.id()}, {"game", number}, {"result", result}, {"previous", previous}};
  auto rewritten = rewrite_record(partner, number, ctx, done, [&](const std::string& t) {
    return outputs::apply_partner_result(t, result, team);
  });
  if (!rewritten) {
    done["error"] = json::parse(rewritten.error().body, nullptr, false).value("error", "not rewritten");
    spdlog::error("board {}: game {} keeps its partner-board result {}: {}", partner.id(), number, previous,
                  done["error"].get<std::string>());
    return done;
  }
  json e{{"t", team.at_ms},           {"board", partner.id()}, {"type", "result"},  {"result", result},
         {"reason", "partner-board"}, {"game", number},        {"corrected", true}, {"previous", previous}};
  if (partner.options().publish_link) partner.options().publish_link(dumped(e));
  spdlog::info("board {}: game {}: partner-board result {} made {} by the arbiter's result on board {}",
               partner.id(), number, previous, result, team.board);
  return done;
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
  if (MatchRuntime* m = ctx.match_runtime) {
    // The match's BPGN archive too, with the result as team 1 sees it and the board it was given on.
    const int index = m->boards()[1] == &b ? 1 : 0;
    const int match_number = number + m->number() - b.ledger().game_number();
    outputs::ArbiterVerdict team = v;
    team.code = outputs::team1_code(index, v.code);
    team.board = b.id();
    json match{{"name", m->name()}, {"number", match_number}, {"result", outputs::pgn_result(team.code)}};
    auto bpgn = rewrite_file(b, m->bpgn_path(match_number), match_number, m->name(), ctx, match,
                             [&](const std::string& text) {
                               const bool decided = outputs::pgn_tag(text, "Result").value_or("*") != "*" ||
                                                    outputs::pgn_tag(text, "ArbiterResult").has_value();
                               return outputs::apply_verdict(text, team, decided);
                             });
    if (!bpgn) return bpgn.error();
    for (const auto& k : match["kept"]) answer["kept"].push_back(k);
    answer["match"] = match;
    if (auto partner = correct_partner(*m->boards()[1 - index], match_number - m->number(), team, ctx))
      answer["partner"] = *partner;
  }
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
  if (ctx.done) ctx.done();
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
  if (ctx.done) ctx.done();
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
