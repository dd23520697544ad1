// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Recovery after a restart (a crash, kill -9, a power cut): the journal's sensor events are replayed
// through a fresh reconstruction (GameMachine, the code the live board runs) and the events that gives
// are checked, one by one, against the events the journal says were published. The board then continues
// from the replayed state.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/machine.hpp"
#include "drivers/capture.hpp"

namespace eboard::journal {

// The last moves-missed alert a journal says was published: the gap's first ply and the candidates it
// listed (UCI), likeliest first as published; none for a gap told past the search's bound.
struct PublishedGap {
  int first_ply = 0;
  std::vector<std::vector<std::string>> candidates;
  bool by_engine = false;  // the order an engine gave (GapOrderEntry), not the alert's
};
// A journaled event line's moves-missed alert, if it is one.
std::optional<PublishedGap> read_published_gap(std::string_view event_json);

struct Recovery {
  GameMachine machine;
  Ledger ledger;
  std::optional<HeaderEntry> header;
  std::size_t sensor_records = 0;
  std::size_t raw_records = 0;
  std::size_t journaled_events = 0;
  std::size_t matched_events = 0;
  std::size_t mismatched_events = 0;
  std::vector<std::string> mismatches;   // the first few, described
  std::vector<std::string> bad_records;  // records that could not be decoded (skipped)
  // Events the replay derived after the last journaled one: the process died between journaling a sensor
  // event and its events. They were never published; the board journals and publishes them now.
  std::vector<rules::Event> unjournaled;
  // The replay disagreed with the journaled events (or lacked some): the machine continues the game as
  // published (its holes filled from the replay where the two agree).
  bool continue_from_published = false;
  // The order the arbiter last read a gap in: the last moves-missed alert published, or the order journaled
  // after it (GapOrderEntry: an engine's). A gap still waiting after the replay keeps it, though the replay
  // ranks it otherwise (another book, newer weights, no engine: BoardRuntime::shown_order).
  std::optional<PublishedGap> published_gap;
  bool damaged = false;  // the scan skipped damaged records
  std::string torn;      // the scan's problem (a torn tail, damage), if any
  std::int64_t last_t = 0;

  explicit Recovery(std::string board_id) : machine(std::move(board_id)) {}
  bool exact() const { return mismatched_events == 0 && bad_records.empty(); }
};

Recovery recover(const JournalScan& scan, const std::string& board_id);

// A journaled event the daemon published about itself (journal-… alerts), not derived from the board:
// replay does not reproduce it.
bool is_daemon_note(std::string_view event_json);

// What the recoveries read of published events: a `result` string ("1-0", "0-1", "1/2-1/2"; anything else
// is Ongoing) and a move event's `clock` (unknown sides -1).
rules::Result parse_result(std::string_view text);
rules::ClockTimes event_clock(const nlohmann::json& event);

// The raw wire records of a journal as a capture (CONTRACTS §1), times from the first record, with a link
// record (`! online` / `! offline`) wherever the journal has the link's change as reconstruction got it
// (a DeviceLink sensor record), so that the capture replays to what the daemon did live. `headers` go
// into the capture's header as they are (a bus board's `bus-address`).
drivers::Capture export_capture(const JournalScan& scan, const std::string& board_id,
                                const std::string& protocol = "dgt",
                                std::vector<drivers::CaptureHeader> headers = {});

// The same capture's text, format_capture(export_capture(...)), made from the journal file piece by piece in
// bounded memory (a read block, a record, a piece): a long game's export costs no more than a short one's.
// The header takes the board named by the journal's header records before its first record.
class CaptureExport {
 public:
  static tl::expected<CaptureExport, std::string> open(const std::filesystem::path& journal,
                                                       const std::string& board_id,
                                                       const std::string& protocol = "dgt",
                                                       std::vector<drivers::CaptureHeader> headers = {});
  // The next piece of the text, about `piece` bytes (a record's line is never cut); empty at the end.
  std::string next(std::size_t piece = 64 * 1024);

 private:
  explicit CaptureExport(RecordReader reader) : reader_(std::move(reader)) {}
  void header(std::string& out);
  RecordReader reader_;
  drivers::CaptureInfo info_;
  std::optional<std::int64_t> origin_;
  std::int64_t last_ = 0;
  bool header_written_ = false;
  bool done_ = false;
};

}  // namespace eboard::journal
