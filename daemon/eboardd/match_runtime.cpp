// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/match_runtime.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "daemon/eboardd/bus_source.hpp"
#include "daemon/eboardd/serial_source.hpp"
#include "daemon/eboardd/session_feed.hpp"
#include "daemon/outputs/arbiter_result.hpp"
#include "daemon/outputs/archive_guard.hpp"
#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/atomic_file.hpp"
#include "daemon/outputs/background_work.hpp"
#include "daemon/outputs/pgn_output.hpp"
#include "daemon/session/board_session.hpp"
#include "rules/display.hpp"
#include "rules/notation.hpp"

namespace eboard::eboardd {

namespace fs = std::filesystem;
using namespace eboard::rules;

// One board of the match as its BoardRuntime sees it.
class MatchBoardSource : public BoardSource {
 public:
  MatchBoardSource(MatchRuntime& match, int board) : match_(match), board_(board) {}
  void start() override { match_.source_started(board_, true); }
  void stop() override { match_.source_started(board_, false); }
  const Game& game() const override { return match_.match().board(board_).game(); }
  std::string link() const override {
    return match_.feed_ ? match_.feed_->link(board_) : (match_.feeding_ ? "manual" : "stopped");
  }
  nlohmann::json info() const override {
    nlohmann::json j = match_.feed_ ? match_.feed_->info(board_) : nlohmann::json::object();
    j["match"] = match_.name();
    return j;
  }
  tl::expected<void, std::string> new_game(const journal::NewGameEntry&) override {
    return tl::unexpected(std::string("a match board starts a new game with its match"));
  }
  tl::expected<std::vector<Event>, std::string> control(const journal::ControlEntry& c) override {
    return match_.control(board_, c);
  }
  const Reconstructor* reconstructor() const override { return &match_.match().board(board_); }
  tl::expected<void, std::string> clock_settable() const override {
    if (!match_.feed_ || !match_.feeding_)
      return tl::unexpected("board " + match_.boards_[std::size_t(board_)]->id() +
                            " is not running: its clock cannot be reached");
    return match_.feed_->clock_settable(board_);
  }
  tl::expected<void, std::string> clock_command(const session::ClockRequest& request,
                                                ClockDone done) override {
    if (auto ok = clock_settable(); !ok) return ok;
    return match_.feed_->clock_command(board_, request, std::move(done));
  }

 private:
  MatchRuntime& match_;
  int board_;
};

MatchRuntime::MatchRuntime(boost::asio::io_context& io, config::MatchConfig config,
                           std::array<BoardRuntime*, 2> boards, std::shared_ptr<io::TimeBase> time)
    : io_(io), config_(std::move(config)), boards_(boards), time_(std::move(time)), timer_(time_) {}

MatchRuntime::~MatchRuntime() {
  stop();
  *alive_ = false;
}

std::int64_t MatchRuntime::now_ms() {
  last_t_ = std::max(last_t_, time_->now_ms());
  return last_t_;
}

rules::MatchConfig MatchRuntime::match_config() const {
  rules::MatchConfig mc;
  if (profile_by_name(config_.rules)) mc.board = bughouse_board_config(config_.rules.c_str());
  mc.board_ids = config_.boards;
  mc.board.reread_board = true;  // as for single boards (journal::reconstruct_config): the sessions ask
  // [gaps] hold_uncounted, as for single boards' games: a gap whose length the clock cannot count is held.
  mc.board.hold_uncounted_gaps = boards_[0]->options().hold_uncounted;
  return mc;
}

namespace {

// -1: the journal holds nothing of a match (no match start, no input with a match sequence number); else
// the number of match inputs it holds.
int match_inputs(const journal::JournalScan* scan) {
  int n = -1;
  if (!scan) return n;
  for (const auto& r : scan->records) {
    if (r.type == 'N' && n < 0) n = 0;
    if ((r.type == 'S' || r.type == 'C') && journal::record_seq(r) >= 0) n = std::max(n, 0) + 1;
  }
  return n;
}

}  // namespace

tl::expected<void, std::string> MatchRuntime::open() {
  if (!profile_by_name(config_.rules))
    return tl::unexpected("match " + name() + ": unknown rules profile '" + config_.rules + "'");
  // A match in progress on one journal and absent from the other (emptied, lost, replaced): continuing would
  // rewrite the partner's past from one side only. Both journals are written at every match start, so a
  // crash cannot cause this; a human must decide.
  for (int b = 0; b < 2; ++b) {
    if (match_inputs(boards_[std::size_t(b)]->match_scan()) > 0 &&
        match_inputs(boards_[std::size_t(b ^ 1)]->match_scan()) < 0)
      return tl::unexpected("match " + name() + ": the journal of board " + config_.boards[std::size_t(b)] +
                            " holds a match in progress but the journal of board " +
                            config_.boards[std::size_t(b ^ 1)] +
                            " holds no match at all; restore it, or move both journals away to start a new "
                            "match, then reload");
  }
  // The BPGN file shows what was published: rewritten once each board's moves are.
  for (auto* b : boards_) {
    b->set_on_record_published([this, alive = std::weak_ptr<bool>(alive_)] {
      if (!alive.expired()) write_bpgn();
    });
    b->set_on_rotation_ready([this, alive = std::weak_ptr<bool>(alive_)] {
      if (!alive.expired()) rotate_deferred();
    });
  }
  auto t0 = std::chrono::steady_clock::now();
  recovery_ = journal::recover_match(boards_[0]->match_scan(), boards_[1]->match_scan(), match_config());
  auto& r = *recovery_;
  seq_ = r.next_seq;
  last_t_ = std::max(last_t_, r.last_t);
  for (const auto& p : r.problems) spdlog::warn("match {}: journal replay: {}", name(), p);
  if (!r.match) return new_match().map([](int) {});
  match_ = std::move(r.match);
  r.match.reset();
  if (r.continue_from_published)
    spdlog::warn("match {}: continuing the match as published (plies {}/{}), not as replayed", name(),
                 match_->board(0).game().ply_count(), match_->board(1).game().ply_count());
  for (int b = 0; b < 2; ++b)
    boards_[std::size_t(b)]->match_resume(std::move(r.ledgers[std::size_t(b)]),
                                          std::move(r.unjournaled[std::size_t(b)]),
                                          match_->board(b).game().ply_count());
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  spdlog::info(
      "match {}: recovered match {} at plies {}/{} from {} inputs in {} ms ({} of {} journaled events "
      "reproduced)",
      name(), number(), match_->board(0).game().ply_count(), match_->board(1).game().ply_count(), r.inputs,
      ms, r.matched_events, r.journaled_events);
  for (auto* b : boards_) b->set_new_match([this] { return new_match(); });
  write_bpgn();
  return {};
}

tl::expected<int, std::string> MatchRuntime::new_match() {
  const std::int64_t t = now_ms();
  const int ending = std::max(1, number());  // as its archive is named
  journal::NewGameEntry g{t, config_.rules, false, ""};
  g.hold_uncounted = match_config().board.hold_uncounted_gaps;  // (journaled: the replay holds as it did)
  const std::int64_t seq = seq_++;
  // Both journals rotate as one (recovery reads them together), or neither does.
  std::array<std::string, 2> bodies;
  std::array<BoardRuntime::RotationPlan, 2> plans;
  for (std::size_t b = 0; b < 2; ++b) {
    bodies[b] = BoardRuntime::input_body(g, seq);
    plans[b] = boards_[b]->prepare_rotation(bodies[b]);
  }
  std::vector<journal::Rotation> group;
  for (const auto& p : plans)
    if (p.rotation) group.push_back(*p.rotation);
  const bool none =
      plans[0].kind == BoardRuntime::RotationPlan::none || plans[1].kind == BoardRuntime::RotationPlan::none;
  const bool deferred = !none && (plans[0].kind == BoardRuntime::RotationPlan::deferred ||
                                  plans[1].kind == BoardRuntime::RotationPlan::deferred);
  // The match ending now with events still held (a failing disk): its archive is written once both
  // boards published them.
  if (match_ && (boards_[0]->holds_events_of(number()) || boards_[1]->holds_events_of(number())))
    finished_.push_back(
        {number(), bpgn_path(), bpgn_text(std::nullopt, false), match_->result().has_value()});
  const bool keep_public = match_ && (!match_->record().moves.empty() || match_->result());
  if (keep_public)
    for (auto* b : boards_) b->keep_for_public(t);  // as the public saw them, before held events go aside
  for (auto* b : boards_) b->hold_finished_game();
  if (deferred) {
    journal::abandon(group);
    for (std::size_t b = 0; b < 2; ++b) boards_[b]->defer_rotation(bodies[b]);
  } else {
    bool rotated = false;
    if (group.size() == 2) {
      journal::CommitResult c = journal::commit(group);
      if (!c.error.empty()) spdlog::error("match {}: journal rotation: {}", name(), c.error);
      rotated = c.rotated;
    } else {
      journal::abandon(group);
    }
    for (std::size_t b = 0; b < 2; ++b) (void)boards_[b]->finish_rotation(rotated, bodies[b]);
  }
  // The public keeps seeing the match that ends here until the delay lets the next one's start out.
  if (keep_public) {
    previous_.push_back({std::move(*match_), t, ending});
    if (previous_.size() > 8) previous_.pop_front();
  }
  match_.emplace(match_config());
  if (recovery_) recovery_->inputs_since_start = 0;
  for (int b = 0; b < 2; ++b) boards_[std::size_t(b)]->match_new_game(t, match_->board(b).game());
  for (auto* b : boards_) b->set_new_match([this] { return new_match(); });
  spdlog::info("match {}: match {} began", name(), number());
  write_bpgn();
  if (feeding_ && feed_) feed_->new_match();
  reschedule();
  return number();
}

void MatchRuntime::rotate_deferred() {
  if (rotating_) return;
  rotating_ = true;
  if (boards_[0]->rotation_deferred() && boards_[1]->rotation_deferred() && boards_[0]->ready_to_rotate() &&
      boards_[1]->ready_to_rotate()) {
    if (outputs::BackgroundWork* work = boards_[0]->work()) {
      rotate_in_background(*work);
      rotating_ = false;
      return;
    }
    std::vector<journal::Rotation> group;
    for (auto* b : boards_) {
      auto r = b->write_deferred_next();
      if (!r) break;  // that board's journal is failing again: retried from its outage
      group.push_back(*r);
    }
    if (group.size() == 2) {
      journal::CommitResult c = journal::commit(group);
      if (!c.error.empty()) spdlog::error("match {}: journal rotation: {}", name(), c.error);
      rotating_ = false;
      for (auto* b : boards_) b->finish_deferred(c.rotated);
    } else {
      journal::abandon(group);
    }
  }
  rotating_ = false;
}

void MatchRuntime::rotate_in_background(outputs::BackgroundWork& work) {
  // Both boards' new files written, committed as one group and opened on the worker; each board takes its
  // result when it is posted back (or at its stop()).
  auto rotation = std::make_shared<RotationWork>();
  for (auto* b : boards_) rotation->members.push_back(*b->take_deferred_next());
  for (std::size_t i = 0; i < 2; ++i) boards_[i]->rotation_started(rotation, i);
  work.post([rotation, io = &io_, boards = boards_, alive = std::weak_ptr<bool>(alive_)] {
    rotation->run();
    boost::asio::post(*io, [rotation, boards, alive] {
      if (alive.expired()) return;
      for (std::size_t i = 0; i < 2; ++i) boards[i]->rotation_done(rotation, i);
    });
  });
}

std::unique_ptr<BoardSource> MatchRuntime::board_source(int board) {
  return std::make_unique<MatchBoardSource>(*this, board);
}

void MatchRuntime::source_started(int board, bool running) {
  started_[std::size_t(board & 1)] = running;
  if (running && started_[0] && started_[1] && !feeding_) {
    feeding_ = true;
    if (feed_) feed_->start();
    reschedule();
  } else if (!running && feeding_) {
    stop();
  }
}

void MatchRuntime::stop() {
  if (!feeding_) return;
  feeding_ = false;
  if (feed_) feed_->stop();
  timer_.cancel();
}

void MatchRuntime::on_sensor(int board, const SensorEvent& e) {
  if (!match_) return;
  last_t_ = std::max(last_t_, e.t_ms);
  boards_[std::size_t(board & 1)]->journal_input(e, seq_++);
  if (recovery_) ++recovery_->inputs_since_start;
  dispatch(match_->on_sensor(board & 1, e));
  reschedule();
}

void MatchRuntime::advance(std::int64_t now) {
  if (!match_) return;
  last_t_ = std::max(last_t_, now);
  auto evs = match_->advance(now);
  if (!evs.empty()) {
    boards_[0]->journal_input(journal::AdvanceEntry{now}, seq_++);
    dispatch(std::move(evs));
  }
  reschedule();
}

tl::expected<std::vector<Event>, std::string> MatchRuntime::control(int board, journal::ControlEntry c) {
  if (!match_) return tl::unexpected(std::string("no match"));
  c.t_ms = std::max(c.t_ms, now_ms());
  auto evs = journal::apply_match_control(*match_, board & 1, c);
  if (!evs) return evs;
  boards_[std::size_t(board & 1)]->journal_input(c, seq_++);
  boards_[std::size_t(board & 1)]->control_applied(c);
  if (recovery_ && c.action == "promotion") ++recovery_->inputs_since_start;
  dispatch(std::move(*evs));
  reschedule();
  // Published by the match, each on its own board: nothing left for the caller.
  return std::vector<Event>{};
}

void MatchRuntime::dispatch(std::vector<Event> events) {
  std::array<std::vector<Event>, 2> per;
  for (auto& e : events) {
    if (const auto* r = std::get_if<MatchResultEvent>(&e.what))
      spdlog::info("match {}: match {} over: {} ({})", name(), number(), result_string(r->result), r->reason);
    const int b = e.board == config_.boards[1] ? 1 : 0;
    // FQE 18: a reserve must stay visible; when the opponent asks (a press without a move), the clock
    // shows the official one.
    if (const auto* a = std::get_if<AlertEvent>(&e.what); a && a->code == "hidden-reserve" && feed_)
      feed_->show(b, rules::reserve_display(match_->board(b).game().position(), a->side));
    per[std::size_t(b)].push_back(std::move(e));
  }
  // Both boards see every input: a board's ledger notices a new game set up even without events.
  // The BPGN file follows once the moves are published (set_on_record_published in open()).
  for (int b = 0; b < 2; ++b) boards_[std::size_t(b)]->events(per[std::size_t(b)]);
}

void MatchRuntime::reschedule() {
  if (!feeding_ || !match_) return;
  auto d = match_->next_deadline();
  if (!d) {
    timer_.cancel();
    return;
  }
  // On the game's time: the timer dies with the runtime (its destructor cancels).
  timer_.arm(*d, [this] {
    if (!feeding_) return;
    advance(now_ms());
  });
}

std::string MatchRuntime::bpgn(std::optional<std::int64_t> cutoff) const { return bpgn_text(cutoff, true); }

int MatchRuntime::shown_number(std::optional<std::int64_t> cutoff) const {
  if (cutoff)
    for (const PreviousMatch& p : previous_)
      if (*cutoff < p.ended_ms) return p.number;
  return std::max(1, number());
}

std::string MatchRuntime::bpgn_text(std::optional<std::int64_t> cutoff, bool held_out) const {
  // Behind the delay, the match that was under way at the cutoff: an earlier one until the next one's start
  // is public.
  const rules::Match* shown = &*match_;
  if (cutoff)
    for (const PreviousMatch& p : previous_)
      if (*cutoff < p.ended_ms) {
        shown = &p.match;
        break;
      }
  const bool earlier = shown != &*match_;
  BughouseRecord rec = shown->record();
  // Without what still waits for the journal (a board's last moves, the result), or for the delay.
  bool result_held = false;
  for (int b = 0; b < 2; ++b) {
    const BoardRuntime& board = *boards_[std::size_t(b)];
    const BoardRuntime::HeldBack held = held_out && !earlier ? board.held_back() : BoardRuntime::HeldBack{};
    result_held |= held.result || held.moves > 0;
    int drop = held.moves;
    if (cutoff) {
      const rules::Game& game = shown->board(b).game();
      const int public_plies = board.public_game(*cutoff).ply_count();
      drop = game.ply_count() - public_plies;
      // A gap held with its length open stands in the record as its shortest story (Match::record).
      if (const auto& gap = shown->board(b).missed_gap();
          gap && gap->length == rules::Reconstructor::MissedGap::Length::Uncounted &&
          public_plies < gap->first_ply)
        drop += int(gap->shortest_plies()) - (shown->board(b).held_gap_end() - (gap->first_ply - 1));
      result_held |= drop > 0 || board.result_told_after(*cutoff);
    }
    for (auto it = rec.moves.end(); drop > 0 && it != rec.moves.begin();) {
      --it;
      if (it->board != b) continue;
      it = rec.moves.erase(it);
      --drop;
    }
  }
  if (result_held) rec.result = "*";
  // A board's own tags first, then the hall's [event] defaults (as a board's PGN has them).
  const rules::PgnTags defaults =
      boards_[0]->options().default_tags ? boards_[0]->options().default_tags() : rules::PgnTags{};
  auto tag = [&defaults, cutoff](const BoardRuntime* b, const char* name) {
    for (const auto& t : cutoff ? b->board_game(*cutoff).tags : b->ledger().tags())
      if (t.name == name && !t.value.empty()) return t.value;
    for (const auto& t : defaults)
      if (t.name == name && !t.value.empty()) return t.value;
    return std::string("?");
  };
  std::string event = tag(boards_[0], "Event");
  std::string date = tag(boards_[0], "Date");
  if (date == "?") {
    const std::int64_t started =
        cutoff ? boards_[0]->board_game(*cutoff).started_ms : boards_[0]->ledger().game_started_ms();
    date = started > 0 ? outputs::pgn_date(started) : "????.??.??";
  }
  std::string round = tag(boards_[0], "Round");
  rec.tags = {
      {"Event", event == "?" ? "eboardd" : event},
      {"Site", tag(boards_[0], "Site")},
      {"Date", date},
      {"Round",
       round == "?" ? std::to_string(cutoff ? boards_[0]->board_game(*cutoff).number : number()) : round},
      {"WhiteA", tag(boards_[0], "White")},
      {"BlackA", tag(boards_[0], "Black")},
      {"WhiteB", tag(boards_[1], "White")},
      {"BlackB", tag(boards_[1], "Black")},
      {"Result", rec.result},
      {"Variant", "Bughouse"},
      {"Match", name()}};
  if (std::string tc = tag(boards_[0], "TimeControl"); tc != "?") rec.tags.push_back({"TimeControl", tc});
  if (shown->result() && !result_held) {
    rec.tags.push_back({"Termination", shown->result()->reason});
    add_arbiter_tags(rec.tags, cutoff);
  }
  auto text = rules::write_bpgn(rec);
  if (!text) return "; match " + name() + ": cannot write BPGN: " + text.error() + "\n";
  return *text;
}

void MatchRuntime::add_arbiter_tags(rules::PgnTags& tags, std::optional<std::int64_t> cutoff) const {
  // The board the arbiter gave the match's result on last (its ArbiterTime, UTC, orders as text).
  int by = -1;
  std::string at;
  for (int b = 0; b < 2; ++b) {
    const BoardRuntime* board = boards_[std::size_t(b)];
    for (const auto& t : cutoff ? board->board_game(*cutoff).tags : board->ledger().tags())
      if (t.name == "ArbiterTime" && !t.value.empty() && (by < 0 || t.value > at)) {
        by = b;
        at = t.value;
      }
  }
  if (by < 0) return;
  tags.push_back({"ArbiterBoard", config_.boards[std::size_t(by)]});
  const BoardRuntime* board = boards_[std::size_t(by)];
  for (const auto& t : cutoff ? board->board_game(*cutoff).tags : board->ledger().tags()) {
    if (!t.name.starts_with("Arbiter") || t.value.empty()) continue;
    if (t.name == "ArbiterResult") {
      tags.push_back({t.name, outputs::team1_code(by, t.value)});
    } else if (t.name == "ArbiterPrevious") {
      const auto space = t.value.find(' ');
      tags.push_back({t.name, outputs::team1_code(by, t.value.substr(0, space)) +
                                  (space == std::string::npos ? "" : t.value.substr(space))});
    } else {
      tags.push_back({t.name, t.value});
    }
  }
}

void MatchRuntime::rewrite_bpgn() { write_bpgn(); }

bool MatchRuntime::archive_pending(int number) const {
  return std::any_of(finished_.begin(), finished_.end(),
                     [number](const Finished& f) { return f.number == number; });
}

fs::path MatchRuntime::bpgn_path() const { return bpgn_path(std::max(1, number())); }

fs::path MatchRuntime::bpgn_path(int number) const {
  return boards_[0]->options().state_dir / "games" /
         ("match-" + name() + "-" + std::to_string(number) + ".bpgn");
}

void MatchRuntime::write_bpgn() {
  write_finished();
  write_archive(bpgn_path(), bpgn(), number(), match_ && match_->result());
}

void MatchRuntime::write_finished() {
  while (!finished_.empty() && !boards_[0]->holds_events_of(finished_.front().number) &&
         !boards_[1]->holds_events_of(finished_.front().number)) {
    Finished f = std::move(finished_.front());
    finished_.erase(finished_.begin());
    write_archive(f.path, f.text, f.number, f.has_result);
    spdlog::info("match {}: match {}'s last events are published: its archive follows", name(), f.number);
  }
}

void MatchRuntime::write_archive(fs::path path, const std::string& text, int number, bool has_result) {
  if (guard_archive_) {
    // Until the recovered match is at least as rich as the file written before the restart, the file stays.
    if (outputs::would_impoverish(path, text)) {
      if (!archive_kept_)
        spdlog::warn(
            "match {}: {} holds more of this match than the journals gave back; it is kept, and the "
            "recovered record is written to {}",
            name(), path.string(), outputs::recovered_path(path).string());
      archive_kept_ = true;
      path = outputs::recovered_path(path);
    } else {
      guard_archive_ = false;
    }
  }
  std::optional<SignJob> sig = signature_for(path, text, number, has_result);
  if (outputs::AsyncFileWriter* files = boards_[0]->files()) {
    // Off the loop: the signature is made on the worker (the journals read back there), and the archive is
    // handed to the writer with it; the writer logs failures once and retries until the disk takes them.
    if (sig && boards_[0]->work()) return write_signature(std::move(*sig), boards_[0]->work(), files);
    files->submit(path, text, /*urgent=*/true);
    if (sig) write_signature(std::move(*sig), nullptr, files);
    return;
  }
  auto ok = outputs::write_file_atomic(path, text);
  if (ok && sig) write_signature(std::move(*sig), nullptr, nullptr);
  if (!ok) {
    if (bpgn_error_ != ok.error()) spdlog::error("match {}: {}", name(), ok.error());
    bpgn_error_ = ok.error();
  } else {
    bpgn_error_.clear();
  }
}

std::optional<SignJob> MatchRuntime::signature_for(const fs::path& archive, const std::string& text,
                                                   int number, bool has_result) {
  const auto& key = boards_[0]->options().signing_key;
  if (!key || !has_result) return std::nullopt;
  SignJob job{archive, text, {}, name(), number, now_ms(), key, "match " + name(), sign_error_};
  for (auto* b : boards_) {
    auto cut = b->journal_cut();
    if (!cut) {
      spdlog::error("match {}: {} is not signed: {}", name(), archive.string(), cut.error());
      return std::nullopt;
    }
    job.journals.push_back(std::move(*cut));
  }
  return job;
}

nlohmann::json MatchRuntime::status() const {
  nlohmann::json j{{"name", name()},
                   {"boards", {config_.boards[0], config_.boards[1]}},
                   {"rules", config_.rules},
                   {"number", number()},
                   {"bpgn", "/matches/" + name() + ".bpgn"},
                   {"file", bpgn_path().string()},
                   {"running", feeding_}};
  if (!match_) return j;
  j["result"] = match_->result() ? result_string(match_->result()->result) : "*";
  if (match_->result()) j["reason"] = match_->result()->reason;
  nlohmann::json boards = nlohmann::json::array();
  static const char* NAMES = "PNBRQ";
  for (int b = 0; b < 2; ++b) {
    const Game& g = match_->board(b).game();
    nlohmann::json reserves = nlohmann::json::object();
    for (Color c : {WHITE, BLACK}) {
      std::string s;
      for (int t = QUEEN; t >= PAWN; --t)
        s += std::string(std::size_t(match_->reserve(b, c, PieceType(t))), NAMES[t - PAWN]);
      reserves[c == WHITE ? "white" : "black"] = s;
    }
    boards.push_back({{"id", config_.boards[std::size_t(b)]},
                      {"ply", g.ply_count()},
                      {"fen", g.position().fen()},
                      {"result", g.outcome() ? result_string(g.outcome()->result) : "*"},
                      {"reserves", reserves}});
  }
  j["games"] = boards;
  if (recovery_) {
    j["recovery"] = {{"inputs", recovery_->inputs},
                     {"journaled_events", recovery_->journaled_events},
                     {"reproduced_events", recovery_->matched_events},
                     {"mismatched_events", recovery_->mismatched_events}};
  }
  return j;
}

namespace {

// One board of a match as its feed reads it: a session that reads the board's sensor events only and
// hands them to the match, on a line of its own or on a bus; the match's wiring is the same for both.
class SensorOnlyBoard {
 public:
  SensorOnlyBoard(MatchRuntime& match, int index, config::BoardConfig board)
      : match_(match), index_(index), board_(std::move(board)) {}
  virtual ~SensorOnlyBoard() = default;
  SensorOnlyBoard(const SensorOnlyBoard&) = delete;
  SensorOnlyBoard& operator=(const SensorOnlyBoard&) = delete;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual void show(const std::string& /*text*/) {}
  virtual tl::expected<void, std::string> clock_settable() const = 0;
  virtual tl::expected<void, std::string> clock_command(const session::ClockRequest& request,
                                                        BoardSource::ClockDone done) = 0;
  virtual void device_arrived(const std::string& /*device*/) {}
  virtual void device_left(const std::string& /*device*/) {}
  virtual std::string link() const = 0;
  virtual nlohmann::json info() const = 0;

 protected:
  // The match reads its sensor events and wants it read again when its reconstruction does; its link and
  // log lines go to its BoardRuntime.
  session::BoardSessionHandlers handlers() const {
    BoardRuntime* rt = match_.boards()[std::size_t(index_)];
    session::BoardSessionHandlers h;
    h.on_sensor = [&match = match_, b = index_](const SensorEvent& e) { match.on_sensor(b, e); };
    h.on_log = [rt, prefix = "board " + board_.id + ": "](session::LogLevel level, const std::string& text) {
      rt->log(level == session::LogLevel::info ? BoardSink::Level::info : BoardSink::Level::warning,
              text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text);
    };
    h.on_link = [rt](std::int64_t t, bool online, const std::string& reason) {
      rt->link_changed(t, online, reason);
    };
    return h;
  }
  std::function<std::optional<std::int64_t>()> read_wanted() const {
    return [&match = match_, b = index_] { return match.match().board(b).board_read_wanted(); };
  }
  BoardRuntime& runtime() const { return *match_.boards()[std::size_t(index_)]; }

  MatchRuntime& match_;
  int index_;
  config::BoardConfig board_;
};

// A serial DGT board (session::BoardSessionConfig::sensor_only).
class SerialSensorBoard : public SensorOnlyBoard {
 public:
  SerialSensorBoard(boost::asio::io_context& io, MatchRuntime& match, int index, config::BoardConfig board,
                    std::shared_ptr<io::TimeBase> time)
      : SensorOnlyBoard(match, index, std::move(board)),
        io_(io),
        device_(board_.device()),
        time_(std::move(time)) {}
  ~SerialSensorBoard() override { SerialSensorBoard::stop(); }

  void start() override {
    session::BoardSessionConfig cfg;
    cfg.board_id = board_.id;
    cfg.protocol = board_.protocol;
    cfg.link.device = device_;
    cfg.sensor_only = true;
    cfg.read_wanted = read_wanted();
    cfg.time = time_;
    session::BoardSessionHandlers h = handlers();
    h.on_wire = [rt = &runtime()](std::int64_t t, drivers::Direction dir,
                                  std::span<const std::uint8_t> bytes) { rt->wire(t, dir, bytes); };
    session_ = std::make_unique<session::BoardSession>(io_, std::move(cfg), std::move(h));
    session_->start();
  }
  void stop() override {
    if (session_) session_->stop();
  }
  void show(const std::string& text) override {
    if (session_) session_->clock_command(session::ClockText{text});
  }
  tl::expected<void, std::string> clock_settable() const override {
    return serial_clock_settable(board_, session_.get(), session_ != nullptr,
                                 match_.match().board(index_).last_clock_reading());
  }
  tl::expected<void, std::string> clock_command(const session::ClockRequest& request,
                                                BoardSource::ClockDone done) override {
    if (auto ok = clock_settable(); !ok) return ok;
    return session_->clock_command(request, std::move(done));
  }
  void device_arrived(const std::string& device) override {
    if (!device.empty()) device_ = device;
    if (session_) session_->reconnect_now(device);
  }
  void device_left(const std::string& device) override {
    if (device.empty() || device == device_) return;
    device_ = device;
    if (session_) session_->reconnect_now(device);
  }
  std::string link() const override {
    if (!session_) return "stopped";
    return session_->connected() ? "connected" : "connecting";
  }
  nlohmann::json info() const override {
    nlohmann::json j{{"device", session_ ? session_->device() : device_}, {"protocol", board_.protocol}};
    if (!board_.serial.empty()) j["usb_serial"] = board_.serial;
    if (session_) {
      j["link_stats"] = link_stats_json(session_->link_stats());
      j["session_stats"] = {{"sensor_events", session_->stats().sensor_events},
                            {"board_rereads", session_->stats().board_rereads}};
      j["rotated"] = session_->rotated();  // as SerialSource tells it: the operator's page draws it so
    }
    return j;
  }

 private:
  boost::asio::io_context& io_;
  // The node the link opens: the configured device, or the tty hotplug last found for the board.
  std::string device_;
  std::shared_ptr<io::TimeBase> time_;
  std::unique_ptr<session::BoardSession> session_;
};

// A board on a DGT bus line (session::BusBoardConfig::sensor_only), the line shared with its other boards.
// Its records are timed after the match's time, as after its own reconstruction's. No bus command shows
// text on a bus board's clock: show() is ignored.
class BusSensorBoard : public SensorOnlyBoard {
 public:
  BusSensorBoard(MatchRuntime& match, int index, config::BoardConfig board,
                 std::shared_ptr<session::BusSession> line)
      : SensorOnlyBoard(match, index, std::move(board)), line_(std::move(line)) {}
  ~BusSensorBoard() override { BusSensorBoard::stop(); }

  void start() override {
    if (running_) return;
    running_ = true;
    session::BusBoardConfig cfg;
    cfg.board_id = board_.id;
    cfg.sensor_only = true;
    cfg.read_wanted = read_wanted();
    cfg.reached = [&match = match_] { return match.time_reached(); };
    line_->attach(board_.bus_address, std::move(cfg), handlers());
  }
  void stop() override {
    if (!running_) return;
    running_ = false;
    line_->detach(board_.bus_address);
  }
  std::string link() const override { return bus_board_link(*line_, board_.bus_address, running_); }
  tl::expected<void, std::string> clock_settable() const override {
    return tl::unexpected(bus_clock_refusal(board_.id));
  }
  tl::expected<void, std::string> clock_command(const session::ClockRequest&,
                                                BoardSource::ClockDone) override {
    return clock_settable();
  }
  nlohmann::json info() const override { return bus_board_info(*line_, board_); }

 private:
  std::shared_ptr<session::BusSession> line_;
  bool running_ = false;
};

class BoardsMatchFeed : public MatchFeed {
 public:
  explicit BoardsMatchFeed(std::array<std::unique_ptr<SensorOnlyBoard>, 2> boards)
      : boards_(std::move(boards)) {}
  ~BoardsMatchFeed() override { BoardsMatchFeed::stop(); }

  void start() override {
    for (auto& b : boards_) b->start();
  }
  void stop() override {
    for (auto& b : boards_) b->stop();
  }
  void show(int b, const std::string& text) override { boards_[std::size_t(b & 1)]->show(text); }
  tl::expected<void, std::string> clock_settable(int b) const override {
    return boards_[std::size_t(b & 1)]->clock_settable();
  }
  tl::expected<void, std::string> clock_command(int b, const session::ClockRequest& request,
                                                BoardSource::ClockDone done) override {
    return boards_[std::size_t(b & 1)]->clock_command(request, std::move(done));
  }
  void device_arrived(int b, const std::string& device) override {
    boards_[std::size_t(b & 1)]->device_arrived(device);
  }
  void device_left(int b, const std::string& device) override {
    boards_[std::size_t(b & 1)]->device_left(device);
  }
  std::string link(int b) const override { return boards_[std::size_t(b & 1)]->link(); }
  nlohmann::json info(int b) const override { return boards_[std::size_t(b & 1)]->info(); }

 private:
  std::array<std::unique_ptr<SensorOnlyBoard>, 2> boards_;
};

}  // namespace

std::unique_ptr<MatchFeed> make_board_feed(boost::asio::io_context& io, MatchRuntime& match,
                                           std::array<config::BoardConfig, 2> boards,
                                           std::shared_ptr<io::TimeBase> time, const BusLineOf& bus_line) {
  std::array<std::unique_ptr<SensorOnlyBoard>, 2> members;
  for (int b = 0; b < 2; ++b) {
    config::BoardConfig& bc = boards[std::size_t(b)];
    if (bc.bus_address != 0) {
      auto line = bus_line(bc.port);
      members[std::size_t(b)] = std::make_unique<BusSensorBoard>(match, b, std::move(bc), std::move(line));
    } else {
      members[std::size_t(b)] = std::make_unique<SerialSensorBoard>(io, match, b, std::move(bc), time);
    }
  }
  return std::make_unique<BoardsMatchFeed>(std::move(members));
}

}  // namespace eboard::eboardd
