// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// One board inside eboardd, whatever feeds it: its journal (every sensor event, every published event,
// the raw wire bytes), its games' numbers and tags, its PGN files, and the fan-out of its events to the
// HTTP/WebSocket clients. The source (serial board or demo) runs reconstruction; this is its sink.
//
// Durability: every record is written (write(2)) in the loop turn that made it (one write per board and
// turn), before anything it leads to is published, so a crash of the process loses nothing published;
// fdatasync follows at once after a completed move or a result, else at most `sync_interval` later, so
// a power cut loses at most that much of the sensor stream and never a published move: a move or result
// (and every event behind it) is published, on /ws and in the PGN views, only once its journal record is
// on disk; any other event once its record is written.
//
// A journal that cannot be written (a full disk, a failing one) stops publication, never the journal's
// order: the records wait in memory (JournalWriter keeps what a failed write or sync could not store) and
// are retried with a growing delay (JOURNAL_RETRY_MIN .. JOURNAL_RETRY_MAX); the events wait behind
// them. The arbiter is told at once on /ws (alert journal-unwritable, not journaled: it is about the
// journal), /status shows journal.ok = false with the queue and the error, and `journal_health` is told
// (sd_notify STATUS). When a retry succeeds, everything waiting is published in order and one line is
// logged. Past `journal_queue_cap` bytes waiting, raw wire bytes are no longer kept (counted): the
// sensor events, advances, events and controls that replay needs always are.
//
// With `sync_in_background` (the daemon), the loop never waits for a disk: the fdatasyncs run on the
// io_context's syncer threads (journal/syncer.hpp), which batch them per file, and a move is published
// from the io_context when its sync completes (events after it wait too, to keep the order); PGN files are
// written by a background writer, latest content wins, at most once per PGN interval while the game goes
// on and at once when it ends (outputs/async_file.hpp). Without it, the sync runs
// on the calling thread and the move is published before events() returns (tests that never run the
// io_context).
//
// Rotation: a new game begins a new journal file and keeps the finished one (journal/rotation.hpp), so
// start-up replays and capture.cap exports the current game only. A game that reconstruction begins by
// itself (the pieces set up again, no new-game record) stays in the current file.
//
// With `sync_in_background`, a finished game's signature reads the journal back (JournalSealer) on the
// io_context's background worker (outputs/background_work.hpp), through the writer's open descriptor (so a
// rotation renaming the file meanwhile does not matter), up to the durable length, and is handed to the
// background writer together with its archive (the archive first). A deferred rotation (below) is made there
// too, its result posted back (rotation_done), and so is a rotation at a new game on a writable disk: the
// new game's records wait in memory (as for a deferred rotation, below) while the current file is made
// durable by the syncer and the worker writes the new file, commits and opens it. The control request that
// began the new game is answered once that is done (when_rotated), so that an answered new game survives a
// kill -9 in its own file. Without the worker it is all done on the calling thread (prepare_rotation,
// commit, finish_rotation).
//
// A game that ends while the journal cannot be written (a full disk across a game's end): the finished
// game is kept (hold_finished_game) until its last events are published, then its archive is written and
// signed from it, whatever game the board is at by then; the rotation is deferred (defer_rotation): the
// next game's records wait in memory for its new file, their events unpublished, and the rotation is made
// once the finished game's file is durable and its events out. The outage lasts until then.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "daemon/eboardd/board_source.hpp"
#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/machine.hpp"
#include "daemon/journal/recovery.hpp"
#include "daemon/journal/rotation.hpp"
#include "daemon/journal/signing.hpp"
#include "daemon/outputs/pgn_output.hpp"

namespace eboard::journal {
class Syncer;
}
namespace eboard::outputs {
class AsyncFileWriter;
class BackgroundWork;
}  // namespace eboard::outputs

namespace eboard::eboardd {

class BoardRuntime;

struct RuntimeOptions {
  std::filesystem::path state_dir;
  std::chrono::milliseconds sync_interval{5000};  // journal.sync_ms
  // Durable writes on the io_context's background threads, publication when they complete (see above).
  bool sync_in_background = true;
  std::string profile = "fide-standard";  // of new games
  bool chess960 = false;
  std::int64_t complete_after_ms = 0;  // of new games: a board without a clock (BoardConfig::settle_ms)
  bool hold_uncounted = false;         // of new games: [gaps] hold_uncounted
  bool raw_log = true;
  std::string protocol = "dgt";  // the board's wire protocol, as the capture export names it
  // A board on a bus line: its address there. Its capture then carries its row's bus dialect (`dgt-bus`)
  // and that address.
  std::uint16_t bus_address = 0;
  std::string device;  // for /status
  // One of the two boards of a bughouse match (match_runtime.hpp): the match replays the journal and
  // journals the inputs, with a sequence number, so open() neither replays nor starts a game.
  bool match_member = false;
  // The other board of the match: their journals rotate together (settled together at open()).
  std::string match_partner;
  std::string match_name;  // "A-B", as in /matches/A-B.bpgn
  // The tags below the board's own (the event's defaults, the round): read at every PGN written.
  std::function<rules::PgnTags()> default_tags;
  std::function<std::int64_t()> clock;  // Unix ms; empty: the system clock
  // Logs every completed move on a line of its own (the demo's terminal shows the games as they go).
  bool log_moves = false;
  // The daemon's key: a game's archive written once the game has a result gets a signature file beside it
  // (journal/signing.hpp). None: archives are not signed.
  std::shared_ptr<const journal::SigningKey> signing_key;
  // Bytes of journal records waiting for a failing disk beyond which raw records are dropped.
  std::size_t journal_queue_cap = 4u << 20;
  // Told when the journal becomes unwritable (`ok` false, the error) and writable again.
  std::function<void(const std::string& board, bool ok, const std::string& text)> journal_health;
  // Where the board's `link` events go (§3; the daemon's own, not rules::Events, so not through Publish):
  // the /ws feed. Empty: nowhere (/status and the snapshot still show the link).
  std::function<void(const std::string& json_line)> publish_link;
  // Told after a moves-missed alert was published and its gap waits for the arbiter (reconstructor()'s
  // missed_gap): the [gaps] engine ranker (gap_judge.hpp) judges it. Empty: nothing more is done.
  std::function<void(BoardRuntime&)> missed_gap;
};

// The io_context's background writer of whole files (outputs/async_file.hpp: the durable write, off the
// loop, retried until the disk takes it), shared by the boards, the matches and the MQTT outbox: created
// with its first user, stopped (after writing what it was given) when the io_context shuts down.
outputs::AsyncFileWriter& background_files(boost::asio::io_context& io);
// The io_context's worker for the rest of the loop's file work (outputs/background_work.hpp): rotations and
// the signing read-back. Stopped (after running what it was given) before the background writer.
outputs::BackgroundWork& background_work(boost::asio::io_context& io);

// What a signature states about a board's journal, cut on the loop (the file as written so far) and sealed
// where reading may block (JournalCut::seal, on the background worker).
struct JournalCut {
  std::shared_ptr<journal::SyncFile> file;  // the open file: read even after a rotation renamed it
  std::filesystem::path path;               // where it was written
  std::uint64_t bytes = 0;
  std::string board;
  std::shared_ptr<journal::JournalSealer> sealer;  // the board's; one thread at a time
  tl::expected<journal::JournalSeal, std::string> seal() const;
};

// A signature to make: an archive's content and the journal cuts it is signed with. `text()` reads the
// journals back (JournalCut::seal) and signs.
struct SignJob {
  std::filesystem::path archive;  // where the archive is written (the signature goes to `<archive>.sig`)
  std::string content;            // what it holds
  std::vector<JournalCut> journals;
  std::string board;  // a board's id, or a match's name
  int game = 0;
  std::int64_t signed_ms = 0;
  std::shared_ptr<const journal::SigningKey> key;
  std::string who;                          // "board A", "match A-B": for the log
  std::shared_ptr<std::string> last_error;  // logged once while it lasts; one thread at a time
  std::filesystem::path sig_path() const;
  std::optional<std::string> text() const;
};
// Writes the signature of `job`: with `work`, read back and signed there and handed to `files` (after the
// archive, submitted before this call); else here, durably, on this thread.
void write_signature(SignJob job, outputs::BackgroundWork* work, outputs::AsyncFileWriter* files);

// The file work of a rotation (journal/rotation.hpp) for a group (one board, or a match's two): each new
// file written whole and durable, the group committed, the new files opened. Run on the background worker;
// each member board takes its result on the loop (BoardRuntime::rotation_done).
struct RotationWork {
  struct Member {
    journal::Rotation rotation;
    std::vector<std::pair<char, std::string>> records;  // the new file's, header first
    tl::expected<journal::JournalWriter, std::string> writer = tl::unexpected(std::string("not opened"));
  };
  std::vector<Member> members;
  std::string write_error;  // a new file could not be written: nothing committed, the .next files gone
  journal::CommitResult commit;
  std::chrono::microseconds took{0};
  std::promise<void> finished;
  std::shared_future<void> done = finished.get_future().share();
  void run();
};

inline constexpr std::chrono::milliseconds JOURNAL_RETRY_MIN{250};
inline constexpr std::chrono::milliseconds JOURNAL_RETRY_MAX{5000};

class BoardRuntime : public BoardSink {
 public:
  using Publish = std::function<void(const rules::Event& e, const std::string& json_line)>;

  BoardRuntime(boost::asio::io_context& io, std::string id, RuntimeOptions options, Publish publish);
  ~BoardRuntime() override;
  BoardRuntime(const BoardRuntime&) = delete;
  BoardRuntime& operator=(const BoardRuntime&) = delete;

  // Opens the journal, recovering the game it holds (or starting the board's first game). Fails only
  // when the state directory cannot be used.
  tl::expected<void, std::string> open();
  // The recovery open() made; a source takes the replayed reconstruction from it.
  journal::Recovery& recovery() { return *recovery_; }
  // Starts feeding from `source`.
  void attach(std::unique_ptr<BoardSource> source);
  // Stops the source and syncs the journal.
  void stop();

  // Bughouse match members (match_runtime.hpp). The journal as open() found it (null if there was none).
  const journal::JournalScan* match_scan() const { return match_scan_ ? &*match_scan_ : nullptr; }
  // Takes the match's recovery of this board: its ledger, and its events the replay derived but the
  // journal does not hold (journaled and published now).
  void match_resume(journal::Ledger ledger, std::vector<rules::Event> unjournaled, int ply);
  // Journals an input of the match (new game, sensor event, advance, control) with the match's sequence
  // number, the order in which recovery feeds the inputs of both boards.
  void journal_input(const journal::Entry& e, std::int64_t seq);
  // The match began a new game on this board.
  void match_new_game(std::int64_t t_ms, const rules::Game& g);
  // A control was applied to this board's game (by the board itself or its match), before its events:
  // the ledger learns what it changed (journal::Ledger::after_control).
  void control_applied(const journal::ControlEntry& c) { ledger_.after_control(c, game()); }
  // The body of a match input's record: `e`'s with the match's sequence number in it.
  static std::string input_body(const journal::Entry& e, std::int64_t seq);
  // A new game's journal rotation, in two steps so that a match rotates both boards as one
  // (journal/rotation.hpp). Prepare makes what is journaled durable and published, then writes the new file
  // beside the current one, its first input the new-game record `new_game_body`: `ready` with the
  // rotation; `none` (no rotation: no game yet, a game without input, or a new file that cannot be made
  // for another reason than space); `deferred` when the journal is failing (or the new file found no
  // space), and always with the background worker, which makes the rotation (defer_rotation). Finish
  // continues in the new file once the group is committed (`rotated`), or else journals the new game in the
  // current file; false if it could journal it nowhere.
  struct RotationPlan {
    enum Kind { none, ready, deferred } kind = none;
    std::optional<journal::Rotation> rotation;
  };
  RotationPlan prepare_rotation(const std::string& new_game_body);
  bool finish_rotation(bool rotated, const std::string& new_game_body);
  // A rotation deferred (a full disk across a game's end): the new game's records, from its new-game record
  // `new_game_body` on, wait in memory for the new file, and their events wait to be published. Once the
  // current file is durable and its events published (its finished game's archive written from them), the
  // rotation is made: by this board, or (a match member) by the match when both boards are ready
  // (set_on_rotation_ready). Until then the journal counts as failing (retried with the outage's delays).
  void defer_rotation(const std::string& new_game_body);
  // A deferred rotation whose current file is written, durable, and whose events are all published (made
  // so here, if the disk lets it): its new file may be written.
  bool ready_to_rotate();
  // Writes the new file of a deferred rotation with the records kept so far, durably; nullopt (the journal
  // failing again) if it cannot.
  std::optional<journal::Rotation> write_deferred_next();
  // After the group was committed (`rotated`: the new file is the current one, opened as `writer` if given),
  // or not (the kept records are appended to the current file): the new game's events are published once
  // durable.
  void finish_deferred(bool rotated, std::optional<journal::JournalWriter> writer = std::nullopt);
  // Calls `f` (on this thread) once the new game's journal file, whose rotation new_game() (or the board's
  // match) left under way on the background worker, is committed with its new-game record durable in it,
  // or the rotation is over otherwise (given up: the game goes on in the current file; or the journal
  // failing, its records waiting in memory as in any outage). At once when no rotation is under way or the
  // journal is failing. A control's answer waits for it, so that it means what it meant when the rotation
  // was made on the loop: the new game survives a kill -9 in its own file.
  void when_rotated(std::function<void()> f);
  // The rotation `work` (this board its member `member`) is to be made on the background worker: the
  // board's result is taken by rotation_done(), once.
  void rotation_started(const std::shared_ptr<RotationWork>& work, std::size_t member);
  void rotation_done(const std::shared_ptr<RotationWork>& work, std::size_t member);
  bool rotation_running() const { return rotation_work_ != nullptr; }
  // The records of a deferred rotation's new file (the header first), taken now: those journaled later
  // follow them in the new file once it is the current one.
  std::optional<RotationWork::Member> take_deferred_next();
  bool rotation_deferred() const { return deferred_.has_value(); }
  void set_on_rotation_ready(std::function<void()> f) { on_rotation_ready_ = std::move(f); }
  // The game that ends now (a new one begins) while some of its events still wait for the journal: its
  // archive (and signature) is written once they are published, whatever game the board is at by then.
  void hold_finished_game();
  // Whether events of game `game` (or an earlier one) still wait to be published.
  bool holds_events_of(int game) const;
  // The io_context's background file writer (outputs/async_file.hpp); null without sync_in_background.
  outputs::AsyncFileWriter* files() const { return files_; }
  // What POST /control/<id>/new-game does on a match board (a new match).
  void set_new_match(std::function<tl::expected<int, std::string>()> f) { new_match_ = std::move(f); }
  journal::Ledger& ledger_mut() { return ledger_; }

  const std::string& id() const { return id_; }
  const RuntimeOptions& options() const { return options_; }

  // Control: a new game (from the standard start, or `fen`); returns its number.
  tl::expected<int, std::string> new_game(const std::string& fen = "");
  // Control: PGN tags of the current game (an empty value removes one).
  tl::expected<void, std::string> update_tags(const rules::PgnTags& tags);
  // Tags for game `number` and after (a round's pairings): set now when that game has begun, else kept
  // (not journaled, so a restart hands them again) and set as it begins; the games before it keep theirs.
  // Checked like update_tags.
  tl::expected<void, std::string> update_tags_from_game(int number, const rules::PgnTags& tags);
  // What update_tags refuses: a reserved or malformed name, a value too long, not UTF-8 or with a control
  // character.
  static tl::expected<void, std::string> check_tags(const rules::PgnTags& tags);
  // The game number whose tags wait, 0 if none.
  int tags_waiting_for() const { return next_tags_ ? next_tags_->first : 0; }

  // The live game, as reconstruction has it (moves not yet durable included).
  const rules::Game& game() const;
  // The game as published: without the moves and result still waiting for the journal, nor the moves the
  // reconstruction holds behind a gap of unknown length (rules::Reconstructor::held_moves).
  const rules::Game& published_game() const;
  // What published_game() leaves out: moves and a result (of the game or the match) still waiting.
  struct HeldBack {
    int moves = 0;
    bool result = false;
  };
  HeldBack held_back() const;
  // The game as the public may see it at `cutoff` (Unix ms; the broadcast delay): published, without the
  // moves completed after it, nor a result told after it.
  const rules::Game& public_game(std::int64_t cutoff) const;
  // Whether the result of the game (or of its match) was told after `cutoff`.
  bool result_told_after(std::int64_t cutoff) const;
  // A new game begins at `t_ms` (new-game, LiveChess setup, the next match): the game as published so
  // far is kept for the public, who see it, behind the delay, until the delay lets the new game's start
  // out (board_game(cutoff) with cutoff < t_ms). Called before the game is replaced.
  void keep_for_public(std::int64_t t_ms);

 private:
  // The games before the current one, as published when the next began (keep_for_public), oldest first.
  struct Previous {
    rules::Game game;
    rules::PgnTags tags;
    std::int64_t started_ms = 0;
    int number = 0;
    std::int64_t ended_ms = 0;               // when the next game began
    std::vector<std::int64_t> result_times;  // when its result (or its match's) was told
  };
  static constexpr std::size_t MAX_PREVIOUS = 8;
  // The game that was current at `cutoff`, if an earlier one than the current.
  const Previous* previous_at(std::int64_t cutoff) const;

 public:
  // Called once the events waiting for the journal that change the game record are published (a match
  // rewrites its BPGN file).
  void set_on_record_published(std::function<void()> f) { on_record_published_ = std::move(f); }
  // The journal cannot be written now (events are held back).
  bool journal_down() const { return outage_.has_value(); }
  const journal::Ledger& ledger() const { return ledger_; }
  outputs::BoardGame board_game() const;
  // The same behind the broadcast delay: public_game(cutoff).
  outputs::BoardGame board_game(std::int64_t cutoff) const;
  std::string pgn() const;
  // The current state as §3 events: every move so far, then the game's alerts, claims and result. Only
  // what was published: events still waiting for their sync are made durable and published first.
  std::vector<std::string> snapshot();
  nlohmann::json status() const;
  std::filesystem::path journal_path() const;
  // The journal a capture file of the raw bytes journaled (CONTRACTS §1) is made from: of the current game
  // (`game` 0 or its number), or of a kept game; an unknown game fails. journal::CaptureExport reads it
  // (files only: on a worker thread).
  tl::expected<std::filesystem::path, std::string> capture_journal(int game = 0) const;
  // The capture's whole text.
  tl::expected<std::string, std::string> capture(int game = 0) const;
  // The capture's header (CONTRACTS §1): the protocol as a capture names it, the board, a bus address.
  drivers::CaptureInfo capture_info() const;
  // What a signature states about this board's journal as written so far (records buffered are written
  // first, so that the sealed length ends on a record).
  tl::expected<journal::JournalSeal, std::string> seal_journal();
  // The same, cut now and sealed later (JournalCut::seal); in the background, at the durable length.
  tl::expected<JournalCut, std::string> journal_cut();
  // The io_context's background worker; null without sync_in_background.
  outputs::BackgroundWork* work() const { return work_; }
  // The loop, for a worker's job to post its result back to, and a token that expires with this runtime.
  boost::asio::io_context& io() const { return io_; }
  std::weak_ptr<bool> alive_token() const { return alive_; }
  std::int64_t now_ms();

  // BoardSink
  void sensor(const rules::SensorEvent& e) override;
  void events(const std::vector<rules::Event>& events) override;
  void tick(std::int64_t now_ms) override;
  void wire(std::int64_t t_ms, drivers::Direction dir, std::span<const std::uint8_t> bytes) override;
  void request_new_game() override;
  int game_number() const override { return ledger_.game_number(); }
  const rules::PgnTags& tags() const override { return ledger_.tags(); }
  void set_tags(const rules::PgnTags& tags) override;
  void log(Level level, const std::string& text) override;
  // Link news from the source. Once per change: a loss while offline already (the retries that fail) says
  // nothing new. The first report of a board's link is told only when it is offline (a board absent at
  // start): a board that came up with the daemon was never missing.
  void link_changed(std::int64_t t_ms, bool online, const std::string& reason) override;
  // The link as last reported; none while the source has not reported (or has no link: the demo).
  struct LinkState {
    bool online = false;
    std::int64_t since_ms = 0;  // Unix ms (the daemon's clock) of the change
    std::string reason;
  };
  const std::optional<LinkState>& link_state() const { return link_; }

  // Where a published event's record lies: the journal file (its header's creation time, Unix ms) and the
  // record's offset in it. The MQTT outbox (daemon/mqtt) names events by it. last_published() is the
  // latest event published (the one being published, inside the Publish callback); publishing() is true
  // only inside that callback for a journaled event (an alert about the journal itself is not).
  struct JournalPosition {
    std::int64_t journal = 0;
    std::uint64_t at = 0;
  };
  JournalPosition last_published() const { return last_published_; }
  bool publishing() const { return publishing_; }
  // What the journal holds made durable now (fdatasync on this thread) and every event waiting for it
  // published: an arbiter's answer follows what both boards of a match published (arbiter.hpp).
  void sync_now();
  // Calls `f` on the loop once every record journaled so far is durable and every event waiting for it is
  // published: the fdatasync runs on a syncer thread, not on the loop (without a syncer: here, now). A
  // rotation under way: once its new file is committed. A failing journal: at once (the records wait in
  // memory, their events unpublished, as for any outage). Not if the runtime is gone by then. A control's
  // answer waits for it (a result, tags), so that a 200 means the change is durable and a GET shows it.
  void when_durable(std::function<void()> f);

 private:
  // Journals `e`: written at once, or (`buffered`, with a syncer) at the end of the loop turn with the
  // turn's other records (flush_soon), or before a move's sync, whichever comes first. Nothing is
  // published before its bytes are written and synced, so the buffer never holds what the world saw.
  bool append(const journal::Entry& e, bool buffered = false);
  // Enters the outage state on an error (logged, alerted once); returns `ok`.
  bool journal_result(const tl::expected<void, std::string>& ok);
  void journal_failed(const std::string& error);
  // Everything waiting is durable again: publishes it, logs once.
  void journal_recovered();
  void schedule_retry();
  // Posts the write of what append() buffered (once per loop turn), then its sync request.
  void flush_soon();
  // Writes what is buffered now.
  void flush_journal();
  // The records written so far are to be durable: at once (`urgent`: a move waits for it) or within
  // sync_interval.
  void want_sync(bool urgent);
  void schedule_sync();
  // Publishes the events waiting for their sync whose journal bytes are durable now (in order), writes
  // the archives of finished games whose events are all out, and the PGN file once no move is waiting;
  // then makes a deferred rotation that became possible.
  void drain();
  void publish_durable();
  void write_finished();
  void try_deferred_rotation();
  // A deferred rotation's new file could not be written: the journal is failing (retried).
  void rotation_failed(const std::string& error);
  void finish_deferred_files(bool rotated, std::optional<journal::JournalWriter> writer);
  // Calls the when_rotated() callbacks.
  void rotation_settled();
  std::vector<std::function<void()>> rotation_waiters_;
  // Writes one record: to the current file (at once, or buffered for the end of the loop turn; in an outage
  // kept for the retry), or, while a rotation is deferred, kept for the new file.
  tl::expected<void, std::string> put(char type, const std::string& body, bool buffered);
  // Where the next record ends up: its file (file_serial_, or the next while a rotation is deferred) and
  // the file's length before it.
  std::uint64_t journal_end() const { return deferred_ ? deferred_->bytes : writer_.size(); }
  std::uint64_t current_file() const { return file_serial_ + (deferred_ ? 1 : 0); }
  // Bytes of records waiting in memory (a failing disk, a deferred rotation).
  std::uint64_t waiting_bytes() const { return writer_.buffered() + (deferred_ ? deferred_->bytes : 0); }
  // The PGN file of the current game: on this thread (`now`), or by the background writer. Once the game
  // has a result, with its signature file (written after it, from the same content).
  void write_pgn(bool now = true);
  // The same for `g` (the current game, or a finished one: `over`, written without waiting for the PGN
  // interval).
  void write_archive(const outputs::BoardGame& g, bool now, bool over = false);
  // A new game began: the previous game's file, which may wait for its interval (ended without a result),
  // is written now. /games.pgn serves finished games from their files.
  void finish_game_file();
  // The signature to make of `pgn` (game `number`) written at `archive`, when the game has a result and there
  // is a key.
  std::optional<SignJob> signature_for(const std::filesystem::path& archive, const std::string& pgn,
                                       int number, bool has_result);
  tl::expected<void, std::string> open_match_member(const std::filesystem::path& path,
                                                    std::optional<journal::JournalScan> scan);
  // The journal as read at start-up: none when absent; an error when it cannot be read. A damaged one is
  // copied aside first (damage_).
  tl::expected<std::optional<journal::JournalScan>, std::string> read_journal(
      const std::filesystem::path& path);
  // Journals and publishes events a recovery derived that the journal did not hold yet.
  void publish_late(const std::vector<rules::Event>& events);
  // Publishes the journal-damaged alert once, when the journal was damaged at start-up.
  void announce_damage(int ply);
  struct Damage {
    std::string problem;
    std::string copy;  // where the file as it was is kept
    std::uint64_t bytes = 0;
    std::size_t places = 0;
  };
  std::optional<Damage> damage_;
  bool damage_announced_ = false;
  // The first archive writes after start-up must not replace a richer file (outputs/archive_guard.hpp).
  bool guard_archive_ = true;
  bool archive_kept_ = false;
  // Finishes or undoes a rotation a crash cut short (this board's file, and its match partner's).
  void settle_rotation();
  // The journal file's creation time and its last event record, from the scan open() read.
  void note_published_in(const journal::JournalScan& scan);
  std::int64_t journal_created_ms_ = 0;
  std::int64_t rotation_created_ms_ = 0;  // of the file a rotation being made begins
  JournalPosition last_published_;
  bool publishing_ = false;

  boost::asio::io_context& io_;
  std::string id_;
  RuntimeOptions options_;
  Publish publish_;
  journal::JournalWriter writer_;
  struct Outage {
    std::int64_t since_ms = 0;  // Unix ms, for /status
    std::chrono::steady_clock::time_point since;
    std::string error;  // the latest
  };
  std::optional<Outage> outage_;
  boost::asio::steady_timer retry_timer_;
  bool retry_pending_ = false;
  std::chrono::milliseconds retry_delay_{JOURNAL_RETRY_MIN};
  std::uint64_t dropped_records_ = 0;  // raw records not kept during outages
  journal::Ledger ledger_;
  std::optional<journal::Recovery> recovery_;
  nlohmann::json recovery_summary_;
  std::unique_ptr<BoardSource> source_;
  boost::asio::steady_timer sync_timer_;  // without a syncer
  bool sync_pending_ = false;
  bool flush_posted_ = false;
  journal::Syncer* syncer_ = nullptr;            // the io_context's, with sync_in_background
  outputs::AsyncFileWriter* files_ = nullptr;    // likewise
  outputs::BackgroundWork* work_ = nullptr;      // likewise
  std::shared_ptr<RotationWork> rotation_work_;  // a rotation being made on the worker
  std::size_t rotation_member_ = 0;
  // Events journaled but not yet published, in order. A move or result waits until the journal is
  // durable up to `journal_end`; an event behind it waits for it.
  struct Unpublished {
    std::uint64_t journal_end = 0;
    bool needs_sync = false;
    rules::Event event;
    std::string line;
    std::uint64_t journal_at = 0;  // where its record begins in the journal file
    int game = 0;                  // the board's game number when it was journaled
    std::uint64_t file = 0;        // the journal file it is in (file_serial_ when published)
  };
  // A deferred rotation (defer_rotation()).
  struct Deferred {
    journal::Rotation rotation;
    std::string header;  // the new file's header record
    std::int64_t created_ms = 0;
    std::vector<std::pair<char, std::string>> records;  // after the header
    std::uint64_t bytes = 0;                            // the new file's length with them
    std::size_t taken = 0;  // records already in a new file being written (take_deferred_next)
  };
  std::optional<Deferred> deferred_;
  std::uint64_t file_serial_ = 0;  // counts the rotations made since open()
  bool rotating_ = false;
  std::function<void()> on_rotation_ready_;
  // Games that ended while events of them waited for the journal (hold_finished_game()).
  struct Finished {
    int number = 0;
    rules::Game game;
    rules::PgnTags tags;
    std::int64_t started_ms = 0;
  };
  std::deque<Finished> finished_;
  std::deque<Unpublished> unpublished_;
  // A link event is not journaled (see link_changed()) but keeps its place on the feed: it waits until the
  // `ahead` events that were waiting when it happened are published.
  struct WaitingLink {
    std::size_t ahead = 0;
    std::string line;
  };
  std::deque<WaitingLink> waiting_links_;
  std::optional<LinkState> link_;
  void publish_link_line(const std::string& line);
  // published_game()'s copy while moves wait for the journal, and public_game()'s behind the broadcast
  // delay. On the heap, and only while needed: most boards of a daemon never need the second, and need
  // the first only for a moment after a move.
  mutable std::unique_ptr<rules::Game> published_view_;
  mutable std::unique_ptr<rules::Game> public_view_;
  std::optional<std::pair<int, rules::PgnTags>> next_tags_;  // update_tags_from_game's, not set yet
  void game_began();                                         // after the ledger counted a new game
  std::deque<Previous> previous_;
  mutable std::unique_ptr<rules::Game> previous_view_;
  bool pgn_due_ = false;  // a move or result was published since the PGN file was written
  std::string pgn_path_;  // of the last PGN written in the background
  std::string sig_path_;  // of the last signature file written in the background
  // The last signing failure (logged once), and the journal's seal carried on as it grows: touched by the
  // thread that signs (the background worker, with sync_in_background).
  std::shared_ptr<std::string> sign_error_ = std::make_shared<std::string>();
  std::shared_ptr<journal::JournalSealer> sealer_ = std::make_shared<journal::JournalSealer>();
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::int64_t last_t_ = 0;
  std::string pgn_error_;  // the last PGN write failure (logged once)
  std::uint64_t events_published_ = 0;
  std::size_t kept_files_ = 0;  // in journal/<id>/
  std::uint64_t rotations_ = 0;
  bool game_has_inputs_ = true;  // since its new-game record (unknown after a restart: yes)
  std::optional<journal::JournalScan> match_scan_;
  std::function<tl::expected<int, std::string>()> new_match_;
  std::function<void()> on_record_published_;

 public:
  // Control (control.hpp): arbiter input. Applied to reconstruction by the source; once accepted it is
  // journaled as a control record (replayed on recovery like a sensor event), then its events are
  // journaled and published like reconstruction's. Refused input leaves no trace. A match member's input
  // goes to its match, which journals and publishes it (an acknowledgement there is not journaled).
  tl::expected<std::vector<rules::Event>, std::string> control(journal::ControlEntry c);
  // The live reconstruction (its adjournment), if the source exposes it.
  const rules::Reconstructor* reconstructor() const { return source_ ? source_->reconstructor() : nullptr; }
  // The source, for what is no game input (the clock set by the arbiter: clock_control.hpp); null if none.
  BoardSource* source() const { return source_.get(); }
  // The order an engine gave the missed gap's candidates (indices into its candidates, the first shown
  // first), kept while that gap, with those candidates, is the one waiting; null otherwise. Journaled as the
  // order the gap is shown in (journal::GapOrderEntry), so that a restart whose engine cannot rank it again
  // still numbers it as the arbiter read it; `recover N` is journaled as the moves of the candidate shown as
  // N (control.cpp).
  void set_engine_order(int first_ply, std::vector<std::vector<rules::Move>> candidates,
                        std::vector<std::size_t> order);
  const std::vector<std::size_t>* engine_order() const;
  // The order the arbiter read the missed gap's candidates in before a restart (the last moves-missed
  // alert's, or the engine's journaled after it), where the replay ranks them otherwise (another book, newer
  // weights, no engine): the candidates listed first, in that order, then the rest; null when the gap
  // waiting is not that one, or is ranked alike by the rules (an engine's order is kept even then: it says
  // whose judgement the list is).
  const std::vector<std::size_t>* published_order() const;
  // The order the candidates are shown and numbered in: the engine's, else the one published, else null
  // (the rules' order as ranked now).
  const std::vector<std::size_t>* shown_order() const;
  // Whether shown_order() is an engine's (this start's, or one journaled before a restart).
  bool shown_by_engine() const;
  // The share of each of the missed gap's candidates (rules/gap_share.hpp; in the candidates' order),
  // weighed once per gap, at the first call; null while no gap waits or where its candidates have none
  // (lengths that differ).
  const std::vector<double>* gap_shares() const;

 private:
  struct EngineOrder {
    int first_ply = 0;
    std::vector<std::vector<rules::Move>> candidates;
    std::vector<std::size_t> order;
  };
  std::optional<EngineOrder> engine_order_;
  std::optional<journal::PublishedGap> published_gap_;  // the journal's last moves-missed alert
  mutable std::optional<EngineOrder> published_order_;  // published_order()'s, for the gap it was made for
  struct GapShares {
    int first_ply = 0;
    std::vector<std::vector<rules::Move>> candidates;
    std::vector<double> shares;
  };
  mutable std::optional<GapShares> gap_shares_;  // gap_shares()'s, for the gap they were weighed for
};

}  // namespace eboard::eboardd
