// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/board_runtime.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "daemon/core/event_json.hpp"
#include "daemon/journal/syncer.hpp"
#include "daemon/outputs/archive_guard.hpp"
#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/atomic_file.hpp"
#include "daemon/outputs/background_work.hpp"
#include "daemon/outputs/text_encoding.hpp"
#include "daemon/session/board_protocol.hpp"
#include "rules/gap_share.hpp"
#include "rules/notation.hpp"

namespace eboard::eboardd {

namespace fs = std::filesystem;
using namespace eboard::rules;

namespace {

// A clock's time as its face shows it (whole seconds, rounded up): "2:31", "1:02:05"; "-" unknown.
std::string clock_text(std::int64_t ms) {
  if (ms < 0) return "-";
  const std::int64_t s = (ms + 999) / 1000;
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  return buf;
}

std::int64_t system_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The io_context's durable-write threads, shared by its boards: created with the first board that wants
// them, stopped (after finishing what was asked) when the io_context shuts down.
class Durability : public boost::asio::execution_context::service {
 public:
  using key_type = Durability;
  inline static boost::asio::execution_context::id id;

  explicit Durability(boost::asio::execution_context& ctx)
      : boost::asio::execution_context::service(ctx),
        syncer(SYNC_THREADS),
        files(
            [](const fs::path& path, const std::string& error) {
              if (error.empty())
                spdlog::info("{}: written again", path.string());
              else
                spdlog::error("{}", error);
            },
            std::chrono::milliseconds(50), PGN_INTERVAL) {}

  // fdatasyncs of different journals run in parallel (the disk merges them); one file never twice.
  static constexpr unsigned SYNC_THREADS = 4;
  // A game's PGN file is rewritten at most this often while the game goes on (at once when it ends with a
  // result, when its tags change, and at stop). The live game is on /games.pgn and /ws; the journal holds
  // every move durably before it is published; the file is the archive. One rewrite per move (an inode
  // created, fsynced, renamed over the old one) cost a third of the daemon's CPU at 1,000 boards.
  static constexpr std::chrono::milliseconds PGN_INTERVAL{30000};
  journal::Syncer syncer;
  outputs::AsyncFileWriter files;
  outputs::BackgroundWork work;

 private:
  void shutdown() override {
    work.stop();  // its signatures go to `files`
    syncer.stop();
    files.stop();
  }
};

}  // namespace

outputs::AsyncFileWriter& background_files(boost::asio::io_context& io) {
  return boost::asio::use_service<Durability>(io).files;
}

outputs::BackgroundWork& background_work(boost::asio::io_context& io) {
  return boost::asio::use_service<Durability>(io).work;
}

tl::expected<journal::JournalSeal, std::string> JournalCut::seal() const {
  if (!file) return tl::unexpected(std::string("the journal is not open"));
  return sealer->seal(file->fd(), path, bytes, board);
}

fs::path SignJob::sig_path() const {
  fs::path p = archive;
  p += ".sig";
  return p;
}

std::optional<std::string> SignJob::text() const {
  journal::SignedRecord r;
  for (const JournalCut& cut : journals) {
    // Read back from the file (only what was written since the board's last signature): what is signed is
    // what is on disk, not what this process believes it wrote.
    auto seal = cut.seal();
    if (!seal) {
      if (*last_error != seal.error())
        spdlog::error("{}: {} is not signed: {}", who, archive.string(), seal.error());
      *last_error = seal.error();
      return std::nullopt;
    }
    r.journals.push_back(std::move(*seal));
  }
  last_error->clear();
  r.archive = journal::seal_archive(archive.filename().string(), content);
  r.board = board;
  r.game = game;
  r.signed_ms = signed_ms;
  return journal::signature_file_text(std::move(r), *key);
}

void write_signature(SignJob job, outputs::BackgroundWork* work, outputs::AsyncFileWriter* files) {
  if (work && files) {
    // The archive and its signature are handed to the writer together, the archive first, once the
    // signature is made: the files on disk (or waiting in the writer) are a pair. The writer logs failures
    // once and retries until the disk takes them.
    work->post([job = std::move(job), files] {
      auto sig = job.text();
      files->submit(job.archive, job.content, /*urgent=*/true);
      if (sig) files->submit(job.sig_path(), std::move(*sig), /*urgent=*/true);
    });
    return;
  }
  auto sig = job.text();
  if (!sig) return;
  auto ok = files ? files->write_now(job.sig_path(), std::move(*sig))
                  : outputs::write_file_atomic(job.sig_path(), *sig);
  if (!ok) spdlog::error("{}: {}", job.who, ok.error());
}

void RotationWork::run() {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<journal::Rotation> group;
  for (const Member& m : members) group.push_back(m.rotation);
  for (const Member& m : members) {
    if (auto ok = journal::write_next(m.rotation, m.records); !ok) {
      journal::abandon(group);
      write_error = ok.error();
      break;
    }
  }
  if (write_error.empty()) {
    commit = journal::commit(group);
    if (commit.rotated)
      for (Member& m : members) m.writer = journal::JournalWriter::open(m.rotation.current);
  }
  took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  finished.set_value();
}

namespace {

bool valid_tag_name(const std::string& n) {
  return !n.empty() && n.size() <= 64 && std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

BoardRuntime::BoardRuntime(boost::asio::io_context& io, std::string id, RuntimeOptions options,
                           Publish publish)
    : io_(io),
      id_(std::move(id)),
      options_(std::move(options)),
      publish_(std::move(publish)),
      retry_timer_(io),
      sync_timer_(io) {
  if (!options_.clock) options_.clock = system_unix_ms;
  if (options_.sync_in_background) {
    auto& d = boost::asio::use_service<Durability>(io);
    syncer_ = &d.syncer;
    files_ = &d.files;
    work_ = &d.work;
  }
}

BoardRuntime::~BoardRuntime() {
  stop();
  *alive_ = false;
}

std::int64_t BoardRuntime::now_ms() {
  last_t_ = std::max(last_t_, options_.clock());
  return last_t_;
}

fs::path BoardRuntime::journal_path() const { return options_.state_dir / "journal" / (id_ + ".journal"); }

tl::expected<void, std::string> BoardRuntime::open() {
  std::error_code ec;
  fs::create_directories(options_.state_dir / "journal", ec);
  if (ec)
    return tl::unexpected("cannot create " + (options_.state_dir / "journal").string() + ": " + ec.message());
  fs::create_directories(options_.state_dir / "games", ec);
  if (ec)
    return tl::unexpected("cannot create " + (options_.state_dir / "games").string() + ": " + ec.message());

  const fs::path path = journal_path();
  recovery_.emplace(id_);
  settle_rotation();
  kept_files_ = journal::kept_journals(path).size();
  auto read = read_journal(path);
  if (!read) return tl::unexpected(read.error());
  if (options_.match_member) return open_match_member(path, std::move(*read));
  journal::JournalScan scan = read->value_or(journal::JournalScan{});
  if (*read) {
    auto t0 = std::chrono::steady_clock::now();
    *recovery_ = journal::recover(scan, id_);
    journal::Recovery& r = *recovery_;
    auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& b : r.bad_records) spdlog::warn("board {}: journal: skipped {}", id_, b);
    for (const auto& m : r.mismatches) spdlog::warn("board {}: journal replay differs: {}", id_, m);
    if (r.machine.has_game()) {
      spdlog::info(
          "board {}: recovered game {} at ply {} from {} records in {} ms ({} sensor events, {} of {} "
          "journaled events reproduced{})",
          id_, r.ledger.game_number(), r.machine.game().ply_count(), scan.records.size(), ms,
          r.sensor_records, r.matched_events, r.journaled_events,
          r.unjournaled.empty() ? "" : ", " + std::to_string(r.unjournaled.size()) + " not yet journaled");
      if (r.continue_from_published)
        spdlog::warn("board {}: continuing the game as published ({} plies), not as replayed", id_,
                     r.machine.game().ply_count());
    }
    recovery_summary_ = {{"records", scan.records.size()},
                         {"sensor_events", r.sensor_records},
                         {"raw_records", r.raw_records},
                         {"journaled_events", r.journaled_events},
                         {"reproduced_events", r.matched_events},
                         {"mismatched_events", r.mismatched_events},
                         {"unjournaled_events", r.unjournaled.size()},
                         {"torn_tail", r.torn},
                         {"replay_ms", ms}};
  }
  auto w = journal::JournalWriter::open(path, scan);
  if (!w) return tl::unexpected(w.error());
  writer_ = std::move(*w);
  journal::Recovery& r = *recovery_;
  ledger_ = std::move(r.ledger);
  last_t_ = std::max(last_t_, r.last_t);
  published_gap_ = r.published_gap;
  note_published_in(scan);
  if (!r.header) {
    journal::HeaderEntry h{1, id_, now_ms()};
    journal_created_ms_ = h.created_ms;
    append(h);
  }
  if (!r.machine.has_game()) {
    journal::NewGameEntry g{now_ms(), options_.profile,           options_.chess960,
                            "",       options_.complete_after_ms, options_.hold_uncounted};
    if (auto ok = r.machine.new_game(g); !ok) return tl::unexpected("board " + id_ + ": " + ok.error());
    append(g);
    ledger_.on_new_game(g.t_ms, r.machine.game());
    game_has_inputs_ = false;
  }
  std::vector<Event> late = std::move(r.unjournaled);
  r.unjournaled.clear();
  publish_late(late);
  announce_damage(r.machine.has_game() ? r.machine.game().ply_count() : 0);
  sync_now();
  return {};
}

tl::expected<std::optional<journal::JournalScan>, std::string> BoardRuntime::read_journal(
    const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    return tl::unexpected("cannot look at the journal " + path.string() + ": " + ec.message());
  if (!fs::exists(st)) return std::optional<journal::JournalScan>();
  // Unreadable is a configuration matter (permissions, a wrong state_dir), not damage: the board waits for
  // it to be fixed (a reload tries again) and nothing is moved or recreated.
  auto scan = journal::scan_journal(path);
  if (!scan)
    return tl::unexpected("the journal is unreadable: " + scan.error() +
                          " (fix it, or move it away to start the board afresh, then reload)");
  if (!scan->clean()) {
    // Kept byte for byte before the writer drops a torn tail, so that nothing is ever destroyed.
    auto copy = journal::keep_damaged_copy(path, options_.clock());
    if (!copy)
      return tl::unexpected("the journal " + path.string() + " is damaged (" + scan->problem +
                            ") and no copy of it could be kept, so it is left untouched: " + copy.error());
    damage_ =
        Damage{scan->problem, copy->string(), scan->damaged_bytes() + (scan->file_bytes - scan->valid_bytes),
               scan->damaged.size() + (scan->torn_tail() ? 1 : 0)};
    spdlog::error("board {}: journal {}: {}; a copy of the file as it was is kept at {}", id_, path.string(),
                  scan->problem, copy->string());
    if (!scan->damaged.empty()) {
      // Damage inside the file: the journal goes on as its intact records, so that the next start reads it
      // clean (the alert is not raised again) and new records follow records, not garbage.
      if (auto ok = journal::rewrite_intact(path, *scan); !ok)
        return tl::unexpected("the journal " + path.string() +
                              " is damaged and could not be rewritten: " + ok.error());
      auto again = journal::scan_journal(path);
      if (!again) return tl::unexpected("the rewritten journal is unreadable: " + again.error());
      // Recovery must still know that records are missing (it then trusts only what was published).
      again->damaged = std::move(scan->damaged);
      again->problem = std::move(scan->problem);
      scan = std::move(again);
    }
  }
  return std::optional<journal::JournalScan>(std::move(*scan));
}

void BoardRuntime::note_published_in(const journal::JournalScan& scan) {
  for (const auto& rec : scan.records) {
    if (rec.type == 'H') {
      if (auto h = journal::decode_entry(rec.type, rec.body);
          h && std::holds_alternative<journal::HeaderEntry>(*h))
        journal_created_ms_ = std::get<journal::HeaderEntry>(*h).created_ms;
    } else if (rec.type == 'E') {
      last_published_ = JournalPosition{journal_created_ms_, rec.offset};
    }
  }
}

void BoardRuntime::settle_rotation() {
  std::vector<fs::path> group{journal_path()};
  if (!options_.match_partner.empty())
    group.push_back(options_.state_dir / "journal" / (options_.match_partner + ".journal"));
  journal::Settled s = journal::settle(group);
  for (const auto& note : s.notes) spdlog::warn("board {}: journal: {}", id_, note);
}

void BoardRuntime::announce_damage(int ply) {
  if (!damage_ || damage_announced_) return;
  damage_announced_ = true;
  AlertEvent a;
  a.code = "journal-damaged";
  a.ply = ply;
  a.side = ply % 2 ? BLACK : WHITE;
  a.detail = "the journal of board " + id_ + " was damaged: " + std::to_string(damage_->bytes) +
             " bytes in " + std::to_string(damage_->places) +
             " place(s) could not be read and are skipped; everything intact was recovered; the file as it "
             "was is kept at " +
             damage_->copy;
  a.extra.push_back({"lost_bytes", std::to_string(damage_->bytes), true});
  a.extra.push_back({"copy", damage_->copy, false});
  Event e;
  e.t_ms = now_ms();
  e.board = id_;
  e.what = std::move(a);
  events({e});
}

tl::expected<void, std::string> BoardRuntime::open_match_member(const fs::path& path,
                                                                std::optional<journal::JournalScan> scan) {
  if (scan) match_scan_ = std::move(*scan);
  auto w = journal::JournalWriter::open(path, match_scan_ ? *match_scan_ : journal::JournalScan{});
  if (!w) return tl::unexpected(w.error());
  writer_ = std::move(*w);
  bool has_header = false;
  if (match_scan_) {
    for (const auto& r : match_scan_->records) has_header |= r.type == 'H';
    note_published_in(*match_scan_);
  }
  if (!has_header) {
    journal::HeaderEntry h{1, id_, now_ms()};
    journal_created_ms_ = h.created_ms;
    append(h);
  }
  sync_now();
  return {};
}

void BoardRuntime::publish_late(const std::vector<Event>& events) {
  // Derived on replay but never journaled nor published (the process died in between): both now.
  for (const Event& e : events) {
    last_t_ = std::max(last_t_, e.t_ms);
    std::string line = daemon::to_json_line(e);
    const std::uint64_t at = journal_end();
    append(journal::EventEntry{line});
    unpublished_.push_back(
        {journal_end(), true, e, std::move(line), at, ledger_.game_number(), current_file()});
  }
}

void BoardRuntime::match_resume(journal::Ledger ledger, std::vector<Event> unjournaled, int ply) {
  ledger_ = std::move(ledger);
  publish_late(unjournaled);
  announce_damage(ply);
  sync_now();
}

std::string BoardRuntime::input_body(const journal::Entry& e, std::int64_t seq) {
  std::string body = journal::encode_body(e);
  // The sequence number rides in the JSON body; readers that do not know it ignore it.
  if (!body.empty() && body.front() == '{')
    body.insert(1, "\"seq\":" + std::to_string(seq) + (body.size() > 2 ? "," : ""));
  return body;
}

BoardRuntime::RotationPlan BoardRuntime::prepare_rotation(const std::string& new_game_body) {
  // What the current file holds is durable and published before the file is kept: here, without the
  // background worker; with it, by the syncer before the worker rotates (ready_to_rotate), except for
  // events still waiting now (a move the same moment), published here so that the game the public keeps
  // (keep_for_public) and the finished game's archive have them.
  if (!work_ || !unpublished_.empty()) sync_now();
  // A game that saw no input leaves nothing worth a file: its successor's record follows in the same one.
  if (ledger_.game_number() == 0 || !writer_.is_open() || !game_has_inputs_) return {};
  // A failing disk: the new file is begun once the current one is whole and its events published (on the
  // background worker, if there is one). With the worker, a writable disk's rotation is made there the same
  // way (defer_rotation): the new game's records wait in memory for the moments it takes.
  if (outage_ || deferred_ || work_) return {RotationPlan::deferred, std::nullopt};
  const fs::path path = journal_path();
  journal::Rotation r{path, journal::next_path(path),
                      journal::kept_path(path, ledger_.game_number(), ledger_.game_started_ms())};
  journal::HeaderEntry h{1, id_, now_ms()};
  rotation_created_ms_ = h.created_ms;
  h.previous_game = ledger_.game_number();
  h.previous_file = r.kept.filename().string();
  h.tags = ledger_.tags();
  auto ok = journal::write_next(r, {{'H', journal::encode_body(h)}, {'N', new_game_body}});
  if (!ok) {
    journal::abandon({r});
    if (outputs::space_error(ok.error())) {
      journal_failed(ok.error());
      return {RotationPlan::deferred, std::nullopt};
    }
    spdlog::warn("board {}: the journal goes on in one file: cannot begin a new one: {}", id_, ok.error());
    return {};
  }
  return {RotationPlan::ready, r};
}

bool BoardRuntime::finish_rotation(bool rotated, const std::string& new_game_body) {
  if (rotated) {
    auto w = journal::JournalWriter::open(journal_path());
    if (w) {
      writer_ = std::move(*w);
      journal_created_ms_ = rotation_created_ms_;
      ++file_serial_;
      ++rotations_;
      ++kept_files_;
      game_has_inputs_ = false;
      return journal_result({});
    }
    (void)journal_result(tl::unexpected(w.error()));
    return false;
  }
  const bool ok = journal_result(put('N', new_game_body, false));
  if (syncer_)
    want_sync(true);
  else
    sync_now();
  game_has_inputs_ = false;
  return ok;
}

void BoardRuntime::defer_rotation(const std::string& new_game_body) {
  game_has_inputs_ = false;
  if (deferred_) {
    // Another new game before the first one's file could be begun: it follows in the same new file.
    (void)put('N', new_game_body, false);
    return;
  }
  const fs::path path = journal_path();
  Deferred d;
  d.rotation = {path, journal::next_path(path),
                journal::kept_path(path, ledger_.game_number(), ledger_.game_started_ms())};
  journal::HeaderEntry h{1, id_, now_ms()};
  h.previous_game = ledger_.game_number();
  h.previous_file = d.rotation.kept.filename().string();
  h.tags = ledger_.tags();
  d.created_ms = h.created_ms;
  d.header = journal::encode_body(h);
  d.bytes = journal::MAGIC.size() + journal::RECORD_OVERHEAD + d.header.size();
  deferred_ = std::move(d);
  (void)put('N', new_game_body, false);
  if (outage_) {
    spdlog::warn(
        "board {}: game {} ends while the journal cannot be written: the next game's records wait in memory "
        "for its new journal file, begun once game {}'s file is whole and its events published",
        id_, ledger_.game_number(), ledger_.game_number());
    return;  // the outage's retries make it
  }
  // (The new file of a rotation deferred for another reason: made once the current file is durable and its
  // events published, asked after the turn that began the new game.)
  boost::asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
    if (!alive.expired()) drain();
  });
}

bool BoardRuntime::ready_to_rotate() {
  if (!deferred_ || rotation_work_) return false;
  if (syncer_ && !outage_) {
    // Written now, made durable by the syncer: its completion drains, and the rotation is tried again.
    if (writer_.buffered() > 0) flush_journal();
    if (outage_) return false;
    if (writer_.dirty()) {
      want_sync(true);
      return false;
    }
  } else if (writer_.buffered() > 0 || writer_.dirty()) {
    // Whatever the current file still has to take, written and made durable now (rare: an outage's retry
    // has done it already), then its events published.
    if (auto ok = writer_.sync(); !ok) {
      journal_failed(ok.error());
      return false;
    }
  }
  publish_durable();
  return unpublished_.empty() || unpublished_.front().file != file_serial_;
}

std::optional<RotationWork::Member> BoardRuntime::take_deferred_next() {
  if (!deferred_) return std::nullopt;
  RotationWork::Member m;
  m.rotation = deferred_->rotation;
  m.records.reserve(deferred_->records.size() + 1);
  m.records.emplace_back('H', deferred_->header);
  m.records.insert(m.records.end(), deferred_->records.begin(), deferred_->records.end());
  deferred_->taken = deferred_->records.size();
  return m;
}

std::optional<journal::Rotation> BoardRuntime::write_deferred_next() {
  auto m = take_deferred_next();
  if (!m) return std::nullopt;
  auto ok = journal::write_next(m->rotation, m->records);
  if (!ok) {
    journal::abandon({m->rotation});
    rotation_failed(ok.error());
    return std::nullopt;
  }
  return m->rotation;
}

void BoardRuntime::rotation_started(const std::shared_ptr<RotationWork>& work, std::size_t member) {
  rotation_work_ = work;
  rotation_member_ = member;
}

void BoardRuntime::rotation_done(const std::shared_ptr<RotationWork>& work, std::size_t member) {
  if (!work || rotation_work_ != work) return;  // taken already (at stop())
  rotation_work_.reset();
  if (!deferred_) return;
  if (!work->write_error.empty()) {
    // Space (or a disk failing already): the journal counts as failing, and its retries make the rotation
    // again. Anything else: the new game goes on in the current file.
    if (outage_ || outputs::space_error(work->write_error)) return rotation_failed(work->write_error);
    spdlog::warn("board {}: the journal goes on in one file: cannot begin a new one: {}", id_,
                 work->write_error);
    return finish_deferred(false);
  }
  if (!work->commit.error.empty()) spdlog::error("board {}: journal rotation: {}", id_, work->commit.error);
  std::optional<journal::JournalWriter> writer;
  if (work->commit.rotated && member < work->members.size() && work->members[member].writer)
    writer = std::move(*work->members[member].writer);
  spdlog::debug("board {}: journal rotated on the background worker in {} us", id_, work->took.count());
  finish_deferred(work->commit.rotated, std::move(writer));
}

void BoardRuntime::rotation_failed(const std::string& error) {
  if (outage_)
    outage_->error = error;
  else
    journal_failed(error);
}

void BoardRuntime::when_rotated(std::function<void()> f) {
  if (!deferred_ || outage_) return f();
  rotation_waiters_.push_back(std::move(f));
}

void BoardRuntime::rotation_settled() {
  auto waiters = std::move(rotation_waiters_);
  rotation_waiters_.clear();
  for (auto& f : waiters) f();
}

void BoardRuntime::finish_deferred(bool rotated, std::optional<journal::JournalWriter> writer) {
  if (!deferred_) return;
  finish_deferred_files(rotated, std::move(writer));
  rotation_settled();
}

void BoardRuntime::finish_deferred_files(bool rotated, std::optional<journal::JournalWriter> writer) {
  Deferred d = std::move(*deferred_);
  deferred_.reset();
  if (rotated) {
    auto w = writer ? tl::expected<journal::JournalWriter, std::string>(std::move(*writer))
                    : journal::JournalWriter::open(journal_path());
    if (!w) {
      // The new file is in place but cannot be opened: its events stay held, as in an outage.
      spdlog::error("board {}: journal: {}", id_, w.error());
      ++file_serial_;
      return rotation_failed(w.error());
    }
    writer_ = std::move(*w);
    journal_created_ms_ = d.created_ms;
    ++file_serial_;
    ++rotations_;
    ++kept_files_;
    // Records journaled while the new file was being written follow there, in order (one write, at the
    // end of this loop turn).
    for (std::size_t i = d.taken; i < d.records.size(); ++i)
      (void)writer_.buffer(d.records[i].first, d.records[i].second);
    if (outage_)
      spdlog::info("board {}: journal: the new game's file is begun ({} records that waited in memory)", id_,
                   d.records.size());
    if (writer_.buffered() > 0) {
      if (!syncer_) return sync_now();
      if (outage_) journal_recovered();
      flush_journal();
      want_sync(true);
      return drain();
    }
  } else {
    // The new game goes on in the current file, after the finished one: its events' places move there.
    const std::uint64_t base = writer_.size();
    const std::uint64_t first = journal::MAGIC.size() + journal::RECORD_OVERHEAD + d.header.size();
    for (const auto& [type, body] : d.records) (void)writer_.buffer(type, body);
    for (Unpublished& u : unpublished_) {
      if (u.file != file_serial_ + 1) continue;
      u.file = file_serial_;
      u.journal_at = u.journal_at - first + base;
      u.journal_end = u.journal_end - first + base;
    }
    if (syncer_ && !outage_) {
      flush_journal();
      want_sync(true);
      return drain();
    }
    if (auto ok = writer_.sync(); !ok) return journal_failed(ok.error());
  }
  if (outage_) return journal_recovered();
  drain();
}

void BoardRuntime::hold_finished_game() {
  if (ledger_.game_number() == 0 || !holds_events_of(ledger_.game_number())) return;
  finished_.push_back({ledger_.game_number(), game(), ledger_.tags(), ledger_.game_started_ms()});
}

bool BoardRuntime::holds_events_of(int game) const {
  return !unpublished_.empty() && unpublished_.front().game <= game;
}

void BoardRuntime::journal_input(const journal::Entry& e, std::int64_t seq) {
  const std::string body = input_body(e, seq);
  if (!std::holds_alternative<journal::NewGameEntry>(e) && !std::holds_alternative<journal::TagsEntry>(e))
    game_has_inputs_ = true;
  const char type = journal::record_type(e);
  if (outage_ || deferred_) {
    // Kept for the retry (or the new file), in order, whatever the cap: the match replays every input.
    journal_result(put(type, body, false));
    return;
  }
  journal_result(writer_.append(type, body));  // after what is buffered
  if (std::holds_alternative<journal::NewGameEntry>(e))
    sync_now();
  else  // a control: durable off the loop, its answer waits for it (when_durable)
    want_sync(std::holds_alternative<journal::ControlEntry>(e));
}

void BoardRuntime::match_new_game(std::int64_t t_ms, const Game& g) {
  last_t_ = std::max(last_t_, t_ms);
  if (previous_.empty() || previous_.back().ended_ms != t_ms) keep_for_public(t_ms);
  ledger_.on_new_game(t_ms, g);
  finish_game_file();
  game_began();
  write_pgn(files_ == nullptr);  // the new game's first file: by the background writer, if there is one
}

void BoardRuntime::attach(std::unique_ptr<BoardSource> source) {
  source_ = std::move(source);
  write_pgn();
  source_->start();
}

void BoardRuntime::stop() {
  if (source_) source_->stop();
  sync_timer_.cancel();
  sync_pending_ = false;
  retry_timer_.cancel();
  retry_pending_ = false;
  // A rotation being made: its result taken now. One still deferred: its records go on in the current file
  // rather than be lost.
  if (rotation_work_) {
    auto work = rotation_work_;
    work->done.wait();
    rotation_done(work, rotation_member_);
  }
  if (deferred_) finish_deferred(false);
  sync_now();
  // Signatures being made are handed to the writer first.
  if (work_) work_->drain();
  // The PGN file as the game stands (the last background write, if one is waiting, done here).
  if (files_ && !pgn_path_.empty()) {
    if (auto ok = files_->flush(pgn_path_); !ok) spdlog::error("board {}: {}", id_, ok.error());
  }
  if (files_ && !sig_path_.empty()) {
    // The signed archive (handed to the writer with its signature, maybe not the current game's) first.
    const std::string archive = sig_path_.substr(0, sig_path_.size() - 4);
    if (auto ok = files_->flush(archive); !ok) spdlog::error("board {}: {}", id_, ok.error());
    if (auto ok = files_->flush(sig_path_); !ok) spdlog::error("board {}: {}", id_, ok.error());
  }
}

BoardRuntime::HeldBack BoardRuntime::held_back() const {
  HeldBack h;
  for (const Unpublished& u : unpublished_) {
    if (u.game != ledger_.game_number()) continue;  // of a finished game
    h.moves += std::holds_alternative<MoveEvent>(u.event.what);
    h.result |= std::holds_alternative<ResultEvent>(u.event.what) ||
                std::holds_alternative<MatchResultEvent>(u.event.what);
  }
  // And the moves the reconstruction holds behind a gap of unknown length: the game's last plies.
  if (const rules::Reconstructor* rec = reconstructor()) h.moves += rec->held_moves();
  return h;
}

const Game& BoardRuntime::published_game() const {
  const HeldBack held = held_back();
  if (held.moves == 0 && !held.result) {
    published_view_.reset();
    return game();
  }
  if (published_view_)
    *published_view_ = game();
  else
    published_view_ = std::make_unique<Game>(game());
  for (int i = 0; i < held.moves; ++i) published_view_->undo();
  published_view_->clear_outcome();
  return *published_view_;
}

bool BoardRuntime::result_told_after(std::int64_t cutoff) const {
  if (const Previous* p = previous_at(cutoff))
    return std::any_of(p->result_times.begin(), p->result_times.end(),
                       [cutoff](std::int64_t t) { return t > cutoff; });
  for (const Event& e : ledger_.notes())
    if ((std::holds_alternative<ResultEvent>(e.what) || std::holds_alternative<MatchResultEvent>(e.what)) &&
        e.t_ms > cutoff)
      return true;
  return false;
}

namespace {

// `published` without the moves completed after `cutoff`, and without its result when `result_hidden`:
// `published` itself when nothing is hidden, else a copy made in `view`.
const Game& behind_cutoff(const Game& published, std::int64_t cutoff, bool result_hidden,
                          std::unique_ptr<Game>& view) {
  int hidden = 0;
  const auto& plies = published.plies();
  while (hidden < int(plies.size()) && plies[plies.size() - 1 - std::size_t(hidden)].time_ms > cutoff)
    ++hidden;
  result_hidden = result_hidden && published.outcome();
  if (hidden == 0 && !result_hidden) {
    view.reset();
    return published;
  }
  if (view)
    *view = published;
  else
    view = std::make_unique<Game>(published);
  for (int i = 0; i < hidden; ++i) view->undo();
  view->clear_outcome();
  return *view;
}

}  // namespace

const BoardRuntime::Previous* BoardRuntime::previous_at(std::int64_t cutoff) const {
  for (const Previous& p : previous_)
    if (cutoff < p.ended_ms) return &p;
  return nullptr;
}

const Game& BoardRuntime::public_game(std::int64_t cutoff) const {
  if (const Previous* p = previous_at(cutoff)) {
    return behind_cutoff(p->game, cutoff, result_told_after(cutoff), previous_view_);
  }
  return behind_cutoff(published_game(), cutoff, result_told_after(cutoff), public_view_);
}

void BoardRuntime::keep_for_public(std::int64_t t_ms) {
  const Game& published = published_game();
  if (published.ply_count() == 0 && !published.outcome()) return;  // nothing of it to see
  Previous p{published, ledger_.tags(), ledger_.game_started_ms(), ledger_.game_number(), t_ms, {}};
  for (const Event& e : ledger_.notes())
    if (std::holds_alternative<ResultEvent>(e.what) || std::holds_alternative<MatchResultEvent>(e.what))
      p.result_times.push_back(e.t_ms);
  previous_view_.reset();  // may point into a game about to go
  previous_.push_back(std::move(p));
  if (previous_.size() > MAX_PREVIOUS) previous_.pop_front();
}

const Game& BoardRuntime::game() const {
  if (source_) return source_->game();
  if (recovery_ && recovery_->machine.has_game()) return recovery_->machine.game();
  static const Game none(Position::start());
  return none;
}

bool BoardRuntime::append(const journal::Entry& e, bool buffered) {
  const char type = journal::record_type(e);
  // Wire bytes only help to diagnose (replay works from the sensor events; an advance is journaled only
  // when it made events, so replay needs it too): on a failing disk, past the cap, they are given up.
  if ((outage_ || deferred_) && type == 'R' && waiting_bytes() >= options_.journal_queue_cap) {
    ++dropped_records_;
    return false;
  }
  const std::string body = journal::encode_body(e);
  if (type != 'H' && type != 'N' && type != 'T' && type != 'O') game_has_inputs_ = true;
  return journal_result(put(type, body, buffered));
}

tl::expected<void, std::string> BoardRuntime::put(char type, const std::string& body, bool buffered) {
  if (deferred_) {
    deferred_->bytes += journal::RECORD_OVERHEAD + body.size();
    deferred_->records.emplace_back(type, body);
    return {};
  }
  if (outage_) return writer_.buffer(type, body);  // the retry timer writes it
  if (buffered && syncer_) {
    auto ok = writer_.buffer(type, body);
    flush_soon();
    return ok;
  }
  return writer_.append(type, body);
}

bool BoardRuntime::journal_result(const tl::expected<void, std::string>& ok) {
  if (!ok) journal_failed(ok.error());
  return ok.has_value();
}

void BoardRuntime::journal_failed(const std::string& error) {
  if (outage_) {
    outage_->error = error;
    return;
  }
  outage_ = Outage{now_ms(), std::chrono::steady_clock::now(), error};
  rotation_settled();  // a new game waiting for its file is answered as in any outage: its records wait
  spdlog::error("board {}: journal cannot be written ({}); holding events back ({} waiting) until it can",
                id_, error, unpublished_.size());
  // Straight to the clients: the journal is what cannot take it.
  const Game& g = published_game();
  AlertEvent a{"journal-unwritable",
               g.ply_count(),
               g.position().side_to_move(),
               "The journal cannot be written (" + error +
                   "): moves are held back and published, in order, once they are on disk.",
               {{"error", error, false}}};
  Event alert{outage_->since_ms, id_, a};
  if (publish_) publish_(alert, daemon::to_json_line(alert));
  // A board gone blind is told whatever the disk does: link events no longer wait for held events.
  for (const WaitingLink& w : waiting_links_) publish_link_line(w.line);
  waiting_links_.clear();
  if (options_.journal_health) options_.journal_health(id_, false, error);
  retry_delay_ = JOURNAL_RETRY_MIN;
  schedule_retry();
}

void BoardRuntime::schedule_retry() {
  if (retry_pending_) return;
  retry_pending_ = true;
  retry_timer_.expires_after(retry_delay_);
  retry_timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    retry_pending_ = false;
    sync_now();
    if (!outage_) return;
    retry_delay_ = std::min(retry_delay_ * 2, JOURNAL_RETRY_MAX);
    schedule_retry();
  });
}

void BoardRuntime::journal_recovered() {
  const auto lasted = std::chrono::duration<double>(std::chrono::steady_clock::now() - outage_->since);
  outage_.reset();
  retry_timer_.cancel();
  retry_pending_ = false;
  const std::size_t waiting = unpublished_.size();
  drain();
  spdlog::info("board {}: journal writable again after {:.1f} s, {} events published{}", id_, lasted.count(),
               waiting - unpublished_.size(),
               dropped_records_ ? " (" + std::to_string(dropped_records_) +
                                      " raw records were not kept, past the queue cap)"
                                : std::string());
  if (options_.journal_health) options_.journal_health(id_, true, "");
}

void BoardRuntime::flush_soon() {
  if (flush_posted_) return;
  flush_posted_ = true;
  boost::asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
    if (alive.expired()) return;
    flush_posted_ = false;
    if (writer_.buffered() == 0) return;  // written already, with a move's sync
    flush_journal();
    want_sync(false);
    drain();  // events that wait only for their write
  });
}

void BoardRuntime::flush_journal() {
  if (outage_) return;  // the retry timer writes
  journal_result(writer_.flush());
}

void BoardRuntime::want_sync(bool urgent) {
  if (outage_) return;  // the retry timer makes it durable, then publishes
  if (!writer_.dirty()) {
    if (urgent) drain();
    return;
  }
  if (!syncer_) {
    if (urgent) return sync_now();
    return schedule_sync();
  }
  // What is buffered waits for the end of the loop turn (flush_soon), unless a move waits for it.
  if (!urgent) {
    if (writer_.buffered() > 0) return;
    syncer_->request(writer_.file(), writer_.written(),
                     std::max(options_.sync_interval, std::chrono::milliseconds(0)));
    return;
  }
  flush_journal();
  if (outage_) return;
  // Done on a syncer thread: hand the result to the loop, which publishes what it made durable.
  syncer_->request(
      writer_.file(), writer_.written(), std::chrono::milliseconds(0),
      [this, io = &io_, alive = std::weak_ptr<bool>(alive_)](const tl::expected<void, std::string>& result) {
        std::string error = result ? std::string() : result.error();
        boost::asio::post(*io, [this, alive, error = std::move(error)] {
          if (alive.expired()) return;
          // The next write rewinds to what is durable (JournalWriter::flush).
          if (!error.empty()) journal_failed(error);
          drain();
        });
      });
}

void BoardRuntime::drain() {
  publish_durable();
  try_deferred_rotation();
}

void BoardRuntime::publish_durable() {
  const std::uint64_t durable = writer_.durable();
  const std::uint64_t written = writer_.written();
  while (!unpublished_.empty()) {
    Unpublished& u = unpublished_.front();
    if (u.file != file_serial_) break;  // in the new file of a rotation not made yet
    if (u.journal_end > (u.needs_sync ? durable : written)) break;
    if (std::holds_alternative<MoveEvent>(u.event.what) ||
        std::holds_alternative<ResultEvent>(u.event.what) ||
        std::holds_alternative<MatchResultEvent>(u.event.what))
      pgn_due_ = true;
    ++events_published_;
    last_published_ = JournalPosition{journal_created_ms_, u.journal_at};
    publishing_ = true;
    if (publish_) publish_(u.event, u.line);
    publishing_ = false;
    unpublished_.pop_front();
    for (WaitingLink& w : waiting_links_) --w.ahead;
    while (!waiting_links_.empty() && waiting_links_.front().ahead == 0) {
      publish_link_line(waiting_links_.front().line);
      waiting_links_.pop_front();
    }
  }
  write_finished();
  // The PGN file shows published moves only: written when none is waiting.
  if (pgn_due_ && unpublished_.empty()) {
    pgn_due_ = false;
    write_pgn(files_ == nullptr);
    if (on_record_published_) on_record_published_();
  }
}

void BoardRuntime::write_finished() {
  bool wrote = false;
  while (!finished_.empty() && !holds_events_of(finished_.front().number)) {
    const Finished& f = finished_.front();
    outputs::BoardGame g = board_game();
    g.game = &f.game;
    g.tags = f.tags;
    g.started_ms = f.started_ms;
    g.number = f.number;
    write_archive(g, files_ == nullptr, /*over=*/true);
    spdlog::info("board {}: game {}'s last events are published: its archive follows", id_, f.number);
    finished_.pop_front();
    wrote = true;
  }
  if (wrote && on_record_published_) on_record_published_();
}

void BoardRuntime::try_deferred_rotation() {
  if (!deferred_ || rotating_) return;
  rotating_ = true;
  if (ready_to_rotate()) {
    if (options_.match_member) {
      if (on_rotation_ready_) on_rotation_ready_();  // the match rotates both boards as one
    } else if (work_) {
      // Off the loop; the result comes back by a post (or is taken at stop()).
      auto work = std::make_shared<RotationWork>();
      work->members.push_back(*take_deferred_next());
      rotation_started(work, 0);
      work_->post([work, io = &io_, this, alive = std::weak_ptr<bool>(alive_)] {
        work->run();
        boost::asio::post(*io, [work, this, alive] {
          if (!alive.expired()) rotation_done(work, 0);
        });
      });
    } else if (auto r = write_deferred_next()) {
      journal::CommitResult c = journal::commit({*r});
      if (!c.error.empty()) spdlog::error("board {}: journal rotation: {}", id_, c.error);
      rotating_ = false;
      finish_deferred(c.rotated);
    }
  }
  rotating_ = false;
}

void BoardRuntime::schedule_sync() {
  if (!writer_.dirty() || sync_pending_) return;
  if (options_.sync_interval.count() <= 0) return sync_now();
  sync_pending_ = true;
  sync_timer_.expires_after(options_.sync_interval);
  sync_timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    sync_pending_ = false;
    sync_now();
  });
}

void BoardRuntime::sync_now() {
  if (sync_pending_) {
    sync_timer_.cancel();
    sync_pending_ = false;
  }
  // After a failed write or sync (a disk still full), nothing here is published: the events wait.
  if (auto ok = writer_.sync(); !ok)
    journal_failed(ok.error());
  else if (outage_ && !deferred_)
    return journal_recovered();
  // With a rotation deferred, the outage ends when its new file is written (finish_deferred()).
  drain();
}

void BoardRuntime::sensor(const SensorEvent& e) {
  last_t_ = std::max(last_t_, e.t_ms);
  append(e, true);
  want_sync(false);
}

void BoardRuntime::events(const std::vector<Event>& evs) {
  bool record_changed = false;
  bool gap_missed = false;
  for (const Event& e : evs) {
    std::string line = daemon::to_json_line(e);
    const std::uint64_t at = journal_end();
    append(journal::EventEntry{line}, true);
    ledger_.on_event(e);
    const bool completes =
        std::holds_alternative<MoveEvent>(e.what) || std::holds_alternative<ResultEvent>(e.what);
    unpublished_.push_back(
        {journal_end(), completes, e, std::move(line), at, ledger_.game_number(), current_file()});
    record_changed |= completes;
    if (const auto* m = std::get_if<MoveEvent>(&e.what); m && options_.log_moves)
      spdlog::info("{}  {}{} {}  ({} / {})", id_, (m->ply + 1) / 2, m->ply % 2 ? "." : "...", m->san,
                   clock_text(m->clock.white_ms), clock_text(m->clock.black_ms));
    if (const auto* a = std::get_if<AlertEvent>(&e.what)) {
      spdlog::info("board {}: alert {} at ply {}: {}", id_, a->code, a->ply, a->detail);
      gap_missed |= a->code == "moves-missed";
      // A gap told now is listed as this daemon ranks it: the order published before a restart was another's.
      if (a->code == "moves-missed") published_gap_.reset();
    }
    if (const auto* r = std::get_if<ResultEvent>(&e.what))
      spdlog::info("board {}: game {} over: {} ({})", id_, ledger_.game_number(), result_string(r->result),
                   r->reason);
  }
  if (source_ && ledger_.observe(source_->game(), now_ms())) {
    spdlog::info("board {}: game {} began (the pieces were set up again)", id_, ledger_.game_number());
    finish_game_file();
    game_began();
    record_changed = true;
    pgn_due_ = true;
  }
  // A published move is never lost, even to a power cut: it waits for its sync (drain() publishes it).
  want_sync(record_changed);
  drain();
  if (gap_missed && options_.missed_gap && reconstructor() && reconstructor()->missed_gap())
    options_.missed_gap(*this);
}

namespace {
// A candidate's moves from `before`, as UCI (what the alert and journal::GapOrderEntry list).
std::vector<std::string> ucis_of(Position before, const std::vector<Move>& sequence) {
  std::vector<std::string> ucis;
  ucis.reserve(sequence.size());
  for (Move m : sequence) {
    ucis.push_back(to_uci(before, m));
    before.do_move(m);
  }
  return ucis;
}
}  // namespace

void BoardRuntime::set_engine_order(int first_ply, std::vector<std::vector<Move>> candidates,
                                    std::vector<std::size_t> order) {
  engine_order_ = EngineOrder{first_ply, std::move(candidates), std::move(order)};
  const std::vector<std::size_t>* shown = engine_order();
  if (!shown) return;  // not the gap waiting now
  journal::GapOrderEntry entry{now_ms(), first_ply, {}};
  const Position before = reconstructor()->game().position_at(std::max(0, first_ply - 1));
  for (std::size_t i : *shown) entry.candidates.push_back(ucis_of(before, engine_order_->candidates[i]));
  append(entry, true);
}

const std::vector<std::size_t>* BoardRuntime::engine_order() const {
  const Reconstructor* rec = reconstructor();
  if (!engine_order_ || !rec || !rec->missed_gap()) return nullptr;
  const auto& gap = *rec->missed_gap();
  if (gap.first_ply != engine_order_->first_ply || gap.candidates != engine_order_->candidates)
    return nullptr;
  return &engine_order_->order;
}

const std::vector<std::size_t>* BoardRuntime::published_order() const {
  const Reconstructor* rec = reconstructor();
  if (!published_gap_ || !rec || !rec->missed_gap()) return nullptr;
  const auto& gap = *rec->missed_gap();
  if (gap.first_ply != published_gap_->first_ply) return nullptr;
  if (!published_order_ || published_order_->first_ply != gap.first_ply ||
      published_order_->candidates != gap.candidates) {
    // Each candidate published found in the gap's list as it is ranked now, in the order published; those
    // the alert did not list after them, as ranked now. A candidate published that the list lacks: another
    // gap, its order not kept.
    std::map<std::vector<std::string>, std::size_t> index;
    const Position before = rec->game().position_at(std::max(0, gap.first_ply - 1));
    for (std::size_t i = 0; i < gap.candidates.size(); ++i)
      index.emplace(ucis_of(before, gap.candidates[i]), i);
    std::vector<std::size_t> order;
    std::vector<bool> placed(gap.candidates.size(), false);
    for (const auto& seq : published_gap_->candidates) {
      const auto at = index.find(seq);
      if (at == index.end() || placed[at->second]) {
        order.clear();
        break;
      }
      placed[at->second] = true;
      order.push_back(at->second);
    }
    if (!order.empty())
      for (std::size_t i = 0; i < gap.candidates.size(); ++i)
        if (!placed[i]) order.push_back(i);
    bool kept = false;
    for (std::size_t i = 0; i < order.size() && !kept; ++i) kept = order[i] != i;
    published_order_ = EngineOrder{gap.first_ply, gap.candidates,
                                   kept || published_gap_->by_engine ? order : std::vector<std::size_t>{}};
  }
  return published_order_->order.empty() ? nullptr : &published_order_->order;
}

const std::vector<std::size_t>* BoardRuntime::shown_order() const {
  const std::vector<std::size_t>* engine = engine_order();
  return engine ? engine : published_order();
}

bool BoardRuntime::shown_by_engine() const {
  return engine_order() || (published_order() && published_gap_->by_engine);
}

const std::vector<double>* BoardRuntime::gap_shares() const {
  const Reconstructor* rec = reconstructor();
  if (!rec || !rec->missed_gap()) return nullptr;
  const auto& gap = *rec->missed_gap();
  if (!gap_shares_ || gap_shares_->first_ply != gap.first_ply || gap_shares_->candidates != gap.candidates)
    gap_shares_ =
        GapShares{gap.first_ply, gap.candidates,
                  rules::gap_sequence_shares(rec->game().position_at(std::max(0, gap.first_ply - 1)),
                                             gap.candidates, gap.evidence)};
  return gap_shares_->shares.empty() ? nullptr : &gap_shares_->shares;
}

void BoardRuntime::tick(std::int64_t now) {
  last_t_ = std::max(last_t_, now);
  append(journal::AdvanceEntry{now}, true);
}

void BoardRuntime::wire(std::int64_t t_ms, drivers::Direction dir, std::span<const std::uint8_t> bytes) {
  if (!options_.raw_log || bytes.empty()) return;
  append(journal::RawEntry{t_ms, dir, std::vector<std::uint8_t>(bytes.begin(), bytes.end())}, true);
  want_sync(false);
}

void BoardRuntime::request_new_game() {
  if (auto n = new_game(); !n) spdlog::error("board {}: cannot start a new game: {}", id_, n.error());
}

tl::expected<int, std::string> BoardRuntime::new_game(const std::string& fen) {
  if (options_.match_member) {
    if (!fen.empty())
      return tl::unexpected(std::string("a bughouse match starts from the standard position"));
    if (!new_match_) return tl::unexpected(std::string("the match is not running"));
    return new_match_();
  }
  journal::NewGameEntry g{now_ms(), options_.profile,           options_.chess960,
                          fen,      options_.complete_after_ms, options_.hold_uncounted};
  auto start = journal::start_position(g);
  if (!start) return tl::unexpected("bad start position: " + start.error());
  const std::string body = journal::encode_body(g);
  RotationPlan plan = prepare_rotation(body);
  keep_for_public(g.t_ms);  // as the public saw it, before its held events are set aside
  hold_finished_game();
  if (plan.kind == RotationPlan::deferred) {
    defer_rotation(body);
  } else {
    bool rotated = false;
    if (plan.rotation) {
      journal::CommitResult c = journal::commit({*plan.rotation});
      if (!c.error.empty()) spdlog::error("board {}: journal rotation: {}", id_, c.error);
      rotated = c.rotated;
    }
    if (!finish_rotation(rotated, body)) return tl::unexpected(std::string("the journal cannot be written"));
  }
  ledger_.on_new_game(g.t_ms, Game(*start));
  if (source_) {
    if (auto ok = source_->new_game(g); !ok) return tl::unexpected(ok.error());
  }
  spdlog::info("board {}: game {} began{}", id_, ledger_.game_number(), fen.empty() ? "" : " from " + fen);
  finish_game_file();
  game_began();
  write_pgn(files_ == nullptr);  // the new game's first file: by the background writer, if there is one
  return ledger_.game_number();
}

void BoardRuntime::set_tags(const PgnTags& tags) {
  journal::TagsEntry t{now_ms(), tags};
  append(t);
  ledger_.set_tags(t);
  // Durable off the loop (the syncer); the PGN file follows once it is.
  want_sync(true);
  when_durable([this] { write_pgn(); });
}

void BoardRuntime::when_durable(std::function<void()> f) {
  // A rotation under way: the records wait in memory for the new file, durable once it is committed.
  if (deferred_ && !outage_)
    return when_rotated([this, f = std::move(f)]() mutable { when_durable(std::move(f)); });
  // A failing journal: the records wait in memory, their events unpublished (as for any outage).
  if (outage_ || !writer_.is_open()) return f();
  if (!syncer_) {
    sync_now();
    return f();
  }
  flush_journal();
  if (outage_) return f();
  syncer_->request(writer_.file(), writer_.written(), std::chrono::milliseconds(0),
                   [this, io = &io_, alive = std::weak_ptr<bool>(alive_),
                    f = std::move(f)](const tl::expected<void, std::string>& result) mutable {
                     std::string error = result ? std::string() : result.error();
                     boost::asio::post(*io, [this, alive, error = std::move(error), f = std::move(f)] {
                       if (alive.expired()) return;
                       if (!error.empty()) journal_failed(error);
                       drain();
                       f();
                     });
                   });
}

tl::expected<void, std::string> BoardRuntime::update_tags_from_game(int number, const PgnTags& tags) {
  if (ledger_.game_number() >= number) return update_tags(tags);
  if (auto ok = check_tags(tags); !ok) return ok;
  next_tags_ = {number, tags};
  return {};
}

void BoardRuntime::game_began() {
  if (!next_tags_ || ledger_.game_number() < next_tags_->first) return;
  const PgnTags tags = std::move(next_tags_->second);
  next_tags_.reset();
  spdlog::info("board {}: game {} takes the players its round's pairings gave", id_, ledger_.game_number());
  set_tags(tags);
}

tl::expected<void, std::string> BoardRuntime::check_tags(const PgnTags& tags) {
  // The arbiter's result has its own control (arbiter.hpp): its tags are written with it, never alone.
  static const char* reserved[] = {"Result", "FEN",           "SetUp",          "Variant",
                                   "Board",  "ArbiterResult", "ArbiterPrevious"};
  for (const auto& t : tags) {
    if (!valid_tag_name(t.name))
      return tl::unexpected("bad tag name '" + t.name + "' (letters, digits, '_')");
    for (const char* r : reserved)
      if (t.name == r)
        return tl::unexpected(
            "tag " + t.name + " is set by the daemon, not by hand" +
            (t.name == "Result" || t.name.starts_with("Arbiter")
                 ? std::string(": an arbiter's result or correction is POST /control/<board>/result "
                               "(eboardctl result)")
                 : std::string()));
    if (t.value.size() > 256) return tl::unexpected("tag " + t.name + ": value longer than 256 characters");
    if (std::any_of(t.value.begin(), t.value.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
      return tl::unexpected("tag " + t.name + ": control characters are not allowed");
    if (!outputs::valid_utf8(t.value)) return tl::unexpected("tag " + t.name + ": the value is not UTF-8");
  }
  return {};
}

tl::expected<void, std::string> BoardRuntime::update_tags(const PgnTags& tags) {
  if (auto ok = check_tags(tags); !ok) return ok;
  set_tags(tags);
  return {};
}

void BoardRuntime::log(Level level, const std::string& text) {
  switch (level) {
    case Level::debug:
      spdlog::debug("board {}: {}", id_, text);
      break;
    case Level::info:
      spdlog::info("board {}: {}", id_, text);
      break;
    case Level::warning:
      spdlog::warn("board {}: {}", id_, text);
      break;
    case Level::error:
      spdlog::error("board {}: {}", id_, text);
      break;
  }
}

// Not journaled. The journal holds the link's changes already, as the DeviceLink sensor records that
// reconstruction got (and replays); a `link` event record beside them would be an event replay cannot
// derive (recovery would count it a mismatch, the ledger would keep it as a note of the game) and its
// state would be stale after a restart anyway: the daemon learns the link afresh from the device, and
// tells `offline` again if the board is still away.
void BoardRuntime::link_changed(std::int64_t t_ms, bool online, const std::string& reason) {
  if (link_ && link_->online == online) return;
  const bool first = !link_;
  last_t_ = std::max(last_t_, t_ms);
  link_ = LinkState{online, t_ms, reason};
  if (first && online) return;
  const std::string line = daemon::to_json_line(daemon::LinkEvent{t_ms, id_, online, reason});
  if (unpublished_.empty() || outage_) return publish_link_line(line);
  waiting_links_.push_back({unpublished_.size(), line});
}

void BoardRuntime::publish_link_line(const std::string& line) {
  ++events_published_;
  if (options_.publish_link) options_.publish_link(line);
}

outputs::BoardGame BoardRuntime::board_game() const {
  outputs::BoardGame g;
  g.board_id = id_;
  g.game = &published_game();
  g.tags = ledger_.tags();
  g.started_ms = ledger_.game_started_ms();
  g.number = ledger_.game_number();
  if (options_.default_tags) g.defaults = options_.default_tags();
  if (options_.match_member) {
    g.match = options_.match_name;
    g.partner = options_.match_partner;
  }
  return g;
}

outputs::BoardGame BoardRuntime::board_game(std::int64_t cutoff) const {
  outputs::BoardGame g = board_game();
  if (const Previous* p = previous_at(cutoff)) {
    g.tags = p->tags;
    g.started_ms = p->started_ms;
    g.number = p->number;
  }
  g.game = &public_game(cutoff);
  return g;
}

std::string BoardRuntime::pgn() const { return outputs::game_pgn(board_game()); }

void BoardRuntime::write_pgn(bool now) { write_archive(board_game(), now); }

void BoardRuntime::write_archive(const outputs::BoardGame& g, bool now, bool over) {
  fs::path path = options_.state_dir / "games" / outputs::game_file_name(g);
  std::string pgn = outputs::game_pgn(g);
  if (guard_archive_) {
    // Until the recovered game is at least as rich as the file written before the restart, the file stays.
    if (outputs::would_impoverish(path, pgn)) {
      if (!archive_kept_)
        spdlog::warn(
            "board {}: {} holds more of this game than the journal gave back; it is kept, and the "
            "recovered record is written to {}",
            id_, path.string(), outputs::recovered_path(path).string());
      archive_kept_ = true;
      path = outputs::recovered_path(path);
    } else {
      guard_archive_ = false;
    }
  }
  const bool has_result = g.game->outcome().has_value();
  std::optional<SignJob> sig = signature_for(path, pgn, g.number, has_result);
  if (files_ && !now) {
    // Errors are the writer's to log (once per file while they last), and it retries what the disk
    // refused. An archive with a signature goes with it, from the worker, once it is made.
    pgn_path_ = path.string();
    if (sig && work_) {
      sig_path_ = sig->sig_path().string();
      return write_signature(std::move(*sig), work_, files_);  // the archive with it
    }
    files_->submit(path, std::move(pgn), /*urgent=*/has_result || over);
    if (sig) write_signature(std::move(*sig), nullptr, files_);
    return;
  }
  auto ok = files_ ? files_->write_now(path, std::move(pgn)) : outputs::write_file_atomic(path, pgn);
  if (ok && sig) {
    // The archive is on disk: its signature follows (in the background, after any earlier one of it).
    if (work_) sig_path_ = sig->sig_path().string();
    write_signature(std::move(*sig), work_, files_);
  }
  if (!ok) {
    if (pgn_error_ != ok.error()) spdlog::error("board {}: {}", id_, ok.error());
    pgn_error_ = ok.error();
  } else {
    pgn_error_.clear();
  }
}

void BoardRuntime::finish_game_file() {
  if (files_ && !pgn_path_.empty()) files_->hurry(pgn_path_);
}

tl::expected<JournalCut, std::string> BoardRuntime::journal_cut() {
  if (!writer_.is_open()) return tl::unexpected(std::string("the journal is not open"));
  flush_journal();
  // Read later, on the worker: only bytes no failed fdatasync can cut back
  // (JournalWriter::rewind_to_durable), which hold every published event.
  return JournalCut{writer_.file(), writer_.path(), work_ ? writer_.durable() : writer_.size(), id_, sealer_};
}

tl::expected<journal::JournalSeal, std::string> BoardRuntime::seal_journal() {
  auto cut = journal_cut();
  if (!cut) return tl::unexpected(cut.error());
  if (work_) work_->drain();  // the sealer is the worker's while it signs
  return cut->seal();
}

std::optional<SignJob> BoardRuntime::signature_for(const fs::path& archive, const std::string& pgn,
                                                   int number, bool has_result) {
  if (!options_.signing_key || !has_result) return std::nullopt;
  auto cut = journal_cut();
  if (!cut) {
    spdlog::error("board {}: {} is not signed: {}", id_, archive.string(), cut.error());
    return std::nullopt;
  }
  return SignJob{archive,        pgn,        {std::move(*cut)}, id_, number, now_ms(), options_.signing_key,
                 "board " + id_, sign_error_};
}

std::vector<std::string> BoardRuntime::snapshot() {
  // A new client is sent the snapshot, then every event published after it: the snapshot shows what was
  // published only (events waiting for their sync are left out, to come when published), so nothing
  // comes twice and no fdatasync runs on the loop for it.
  std::vector<std::string> lines;
  const Game& g = published_game();
  Position pos = g.start();
  int ply = 0;
  for (const PlyRecord& p : g.plies()) {
    if (p.jump || p.missed) {
      // Not told as moves: a gap several sequences explain (its moves-missed alert is among the notes), or
      // the game taken up from the board's position (position-adopted).
      pos = g.position_at(++ply);
      continue;
    }
    if (p.illegal) {  // an illegal move that stood (A.4.2): told as the reconstruction told it
      MoveEvent m{++ply, to_uci(pos, p.move), to_long_algebraic(pos, p.move), p.clock, true};
      lines.push_back(daemon::to_json_line(Event{p.time_ms, id_, m}));
      pos = g.position_at(ply);
      continue;
    }
    MoveEvent m{++ply, to_uci(pos, p.move), to_san(pos, p.move), p.clock};
    m.recovered = p.recovered;
    lines.push_back(daemon::to_json_line(Event{p.time_ms, id_, m}));
    // A bughouse drop's piece came from the partner's board: this replay has no reserve for it.
    if (p.move.is_drop() && pos.pocket(pos.side_to_move(), p.move.drop_type()) == 0)
      pos.set_pocket(pos.side_to_move(), p.move.drop_type(), 1);
    pos.do_move(p.move);
  }
  std::size_t waiting_notes = 0;  // the ledger notes every event but moves when it is journaled
  for (const Unpublished& u : unpublished_)
    waiting_notes += u.game == ledger_.game_number() && !std::holds_alternative<MoveEvent>(u.event.what) &&
                     !std::holds_alternative<ProvisionalMoveEvent>(u.event.what);
  const auto& notes = ledger_.notes();
  for (std::size_t i = 0; i + waiting_notes < notes.size(); ++i)
    lines.push_back(daemon::to_json_line(notes[i]));
  // A board that is blind now says so, as the event that told it (a client that missed it must know).
  if (link_ && !link_->online)
    lines.push_back(daemon::to_json_line(daemon::LinkEvent{link_->since_ms, id_, false, link_->reason}));
  return lines;
}

nlohmann::json BoardRuntime::status() const {
  // The board as reconstruction has it (what the arbiter sees in front of them); published_ply tells
  // how much of it /ws and the PGN views show.
  const Game& g = game();
  nlohmann::json game{{"number", ledger_.game_number()},
                      {"started", ledger_.game_started_ms()},
                      {"ply", g.ply_count()},
                      {"fen", g.position().fen()},
                      {"result", g.outcome() ? result_string(g.outcome()->result) : "*"}};
  if (g.outcome()) game["reason"] = g.outcome()->reason;
  game["published_ply"] = published_game().ply_count();
  if (g.ply_count() > 0) game["last_move"] = to_uci(g.position_at(g.ply_count() - 1), g.plies().back().move);
  // The clock times after the last move (or at the start), in ms, when the board has a clock.
  if (ClockTimes c = g.clock_at(g.ply_count()); c.known())
    game["clock"] = {{"white", c.white_ms}, {"black", c.black_ms}};
  // The clock as last read, and whose runs: what a view needs to run it between readings.
  if (const Reconstructor* rec = reconstructor())
    if (auto c = rec->clock_now())
      game["clock_now"] = {{"white", c->times.white_ms},
                           {"black", c->times.black_ms},
                           {"running", c->running ? nlohmann::json(c->running == WHITE ? "white" : "black")
                                                  : nlohmann::json(nullptr)},
                           {"read", c->read_ms}};
  nlohmann::json tags = nlohmann::json::object();
  for (const auto& t : ledger_.tags()) tags[t.name] = t.value;
  game["tags"] = tags;
  const auto& ws = writer_.stats();
  nlohmann::json journal{{"path", journal_path().string()},
                         {"bytes", writer_.size()},
                         {"records_written", ws.records},
                         {"syncs", ws.syncs},
                         {"sync_avg_us", ws.syncs ? ws.sync_total.count() / std::int64_t(ws.syncs) : 0},
                         {"sync_max_us", ws.sync_max.count()},
                         {"write_errors", ws.write_errors},
                         {"awaiting_sync", unpublished_.size()},
                         {"kept_dir", journal::kept_dir(journal_path()).string()},
                         {"kept_files", kept_files_},
                         {"rotations", rotations_},
                         {"ok", !outage_},
                         {"dropped_records", dropped_records_}};
  if (outage_) {
    journal["outage"] = {{"since", outage_->since_ms},
                         {"error", outage_->error},
                         {"events_waiting", unpublished_.size()},
                         {"bytes_waiting", writer_.buffered()},
                         {"records_waiting", writer_.buffered_records()},
                         {"next_retry_ms", retry_delay_.count()}};
  }
  if (!recovery_summary_.is_null()) journal["recovery"] = recovery_summary_;
  if (damage_)
    journal["damaged_at_start"] = {{"problem", damage_->problem},
                                   {"lost_bytes", damage_->bytes},
                                   {"places", damage_->places},
                                   {"copy", damage_->copy}};
  nlohmann::json j{{"id", id_},
                   {"device", options_.device},
                   {"profile", options_.profile},
                   {"link", source_ ? source_->link() : "stopped"},
                   {"game", game},
                   {"journal", journal},
                   {"events_published", events_published_}};
  if (link_)
    j["link_state"] = {{"state", link_->online ? "online" : "offline"},
                       {"since", link_->since_ms},
                       {"reason", link_->reason}};
  // A board without wood (protocol "none"): link "none", no device; its moves are typed.
  j["woodless"] = options_.protocol == "none";
  if (source_) j["source"] = source_->info();
  return j;
}

tl::expected<fs::path, std::string> BoardRuntime::capture_journal(int game) const {
  fs::path path = journal_path();
  if (game != 0 && game != ledger_.game_number()) {
    path.clear();
    for (const auto& k : journal::kept_journals(journal_path()))
      if (k.game == game) path = k.path;  // the last kept under that number
    if (path.empty())
      return tl::unexpected("board " + id_ + " keeps no journal of game " + std::to_string(game));
  }
  return path;
}

drivers::CaptureInfo BoardRuntime::capture_info() const {
  drivers::CaptureInfo info;
  info.board = id_;
  info.protocol = session::capture_protocol_name(options_.protocol, options_.bus_address != 0);
  if (options_.bus_address != 0) {
    info.other_headers.push_back({drivers::kBusAddressHeader, std::to_string(options_.bus_address)});
  }
  return info;
}

tl::expected<std::string, std::string> BoardRuntime::capture(int game) const {
  auto path = capture_journal(game);
  if (!path) return tl::unexpected(path.error());
  const drivers::CaptureInfo info = capture_info();
  auto exporter = journal::CaptureExport::open(*path, info.board, info.protocol, info.other_headers);
  if (!exporter) return tl::unexpected(exporter.error());
  std::string text;
  for (std::string piece; !(piece = exporter->next()).empty();) text += piece;
  return text;
}

}  // namespace eboard::eboardd
