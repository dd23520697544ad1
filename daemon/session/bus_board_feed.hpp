// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// One board of a bus line between its answers and its reconstruction, sans I/O and in no dialect's terms
// (bus_line.hpp): the line's session (bus_session) drives it live from the line's events, and a bus
// board's capture replay (the row's replay_bus) drives it from the capture's records in virtual time, so
// that a board's answers become the same sensor events, link changes and reconstruction events both
// ways. Its answers are read by its dialect's BusBoardReader.
//
// Its rules (the hold-until-dump of a bus board): a board's first changes answer holds its history since
// power-up: it is dropped and the board is read whole (board, clock) instead; until that dump is in, piece
// changes are dropped (the dump shows them) and readings held back. A board that stopped answering is
// `offline` for itself only; its first answer afterwards holds what it recorded meanwhile, delivered
// then, with the return told first (timed before those records), and a dump read right after checks the
// result. A changes-from-start answer (data was lost) is answered with a dump too. Event times: a dump's
// and a reading's are the time the answer arrived; a changes answer's records are timed by the reader
// between the previous answer (or a decision the previous answer left open, taken first) and this one's
// arrival.
// Reconstruction is advanced no further than the board's last reply (`due`, `advance`): what it did
// after is not known until its next reply.
//
// Times are the caller's (Unix ms live, the capture's in replay). Every call may call the attached
// handlers; a handler may detach the board (the feed then stops delivering that input).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "daemon/session/board_session.hpp"
#include "daemon/session/bus_line.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::session {

// A board's reconstruction, as BoardSessionConfig gives it.
struct BusBoardConfig {
  std::string board_id;
  rules::ReconstructConfig rules;
  std::shared_ptr<rules::Game> game;                     // see BoardSessionConfig
  std::shared_ptr<rules::Reconstructor> reconstruction;  // see BoardSessionConfig
  // Sensor events only, as BoardSessionConfig::sensor_only (a bughouse match reconstructs its boards
  // together, elsewhere): on_sensor gets them, `rules`/`game`/`reconstruction` are unused, on_event never
  // fires and no deadline is given for the board.
  bool sensor_only = false;
  // With sensor_only: whether the reconstruction elsewhere wants the board read again.
  std::function<std::optional<std::int64_t>()> read_wanted;
  // With sensor_only: the time the reconstruction elsewhere has been advanced to. A changes reply's
  // records are timed after it, as they are after the board's own reconstruction's time (an event before
  // a deadline that already fired would rewrite what was decided).
  std::function<std::int64_t()> reached;
};

struct BusBoardStats {
  std::uint64_t changes_replies = 0;
  std::uint64_t sensor_events = 0;
  std::uint64_t events = 0;
  std::uint64_t dumps = 0;
  std::uint64_t clock_reads = 0;
  std::uint64_t board_rereads = 0;  // dumps asked for mid-game (a press with no move, a return)
  std::uint64_t lost = 0;           // times it stopped answering
  std::uint64_t from_start = 0;     // changes-from-start answers (data was lost)
};

class BusBoardFeed {
 public:
  // `where`: the board's place for log lines ("address N on the bus /dev/…"); `reader`: its dialect's.
  BusBoardFeed(std::uint16_t address, std::string where, std::unique_ptr<BusBoardReader> reader);

  // Asked when the feed wants the board read whole (board, then clock): live, the session queues the two
  // requests (once until answered); replay does nothing (the capture holds what was asked and answered).
  std::function<void()> on_read_wanted;

  // The board's reconstruction runs here and reports to `handlers` (on_event, on_sensor, on_log, on_link)
  // until detach(). A new reconstruction starts from the board as it stands: the board is read whole
  // (after its history is flushed, if that was not done yet).
  void attach(BusBoardConfig config, BoardSessionHandlers handlers);
  void detach();
  [[nodiscard]] bool attached() const { return static_cast<bool>(attached_); }
  [[nodiscard]] rules::Reconstructor& reconstructor();
  [[nodiscard]] const rules::Reconstructor& reconstructor() const;

  // The board's answer, at its arrival `t`.
  void answer(std::int64_t t, const BusAnswer& answer);
  // It stopped answering (`lost`, counted) or the line went (`gone`): offline, told at `t`.
  void lost(std::int64_t t, const std::string& reason);
  void gone(std::int64_t t, const std::string& reason);
  // The line connected again: a board seen before continues from its memory (its first answer is read
  // then checked by a dump), not from a history to flush.
  void line_connected();
  // A board read whole goes on from there: any later changes reply is its news, not its history (live,
  // the history is always flushed first; a replay may begin after it).
  void history_flushed() { polled_before_ = true; }

  // The board's wire as the line saw it (the commands to its address, its frames), for the attached
  // handlers' on_wire: what the board's capture export is made of.
  void wire(std::int64_t t, drivers::Direction direction, std::span<const std::uint8_t> bytes) const;

  // When the attached reconstruction must be advanced (to the board's last reply), if it must be: its next
  // deadline, once the last reply reached it.
  [[nodiscard]] std::optional<std::int64_t> due() const;
  void advance();  // to the board's last reply
  // Reconstruction found a press with no move on a board at rest: the board is to be read once per
  // press. True once for each such press (counted as a re-read), when the board answers and is not being
  // read already.
  bool take_reread();

  [[nodiscard]] std::uint16_t address() const { return address_; }
  [[nodiscard]] const std::optional<bool>& online() const { return online_; }
  [[nodiscard]] const BusBoardStats& stats() const { return stats_; }
  [[nodiscard]] const BusBoardReader& reader() const { return *reader_; }
  [[nodiscard]] bool awaiting_dump() const { return awaiting_dump_; }
  // The time the attached reconstruction has been advanced to.
  [[nodiscard]] std::int64_t board_time() const;
  // Counts the attaches: an attachment's timer knows it is still the one it was armed for.
  [[nodiscard]] std::uint64_t attachment() const { return attachment_; }
  // Whether the line's session runs: a stopped one delivers nothing more.
  void set_running(bool running) { running_ = running; }

 private:
  struct Attached;

  void set_online(std::int64_t t, bool online, const std::string& reason,
                  std::optional<std::int64_t> link_t = {});
  void request_read();
  void deliver(const rules::SensorEvent& e);
  void deliver_all(const std::vector<rules::SensorEvent>& events);
  void release_held(std::int64_t t);
  void changes(std::int64_t t, const BusAnswer& answer);
  void log(LogLevel level, const std::string& text) const;

  std::uint16_t address_;
  std::string where_;
  std::unique_ptr<BusBoardReader> reader_;
  std::optional<bool> online_;         // unknown until it answers or is given up
  std::int64_t known_until_ = 0;       // the time of its last reply
  bool polled_before_ = false;         // its first changes reply (its history) has been flushed
  bool awaiting_dump_ = false;         // changes wait for the dump asked for
  bool reread_after_changes_ = false;  // read from the start: the board is read after the next changes
  bool running_ = true;
  std::uint64_t attachment_ = 0;
  std::vector<rules::SensorEvent> held_;
  BusBoardStats stats_;
  std::shared_ptr<Attached> attached_;
};

}  // namespace eboard::session
