// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The journal as the outbox of a board's events. What the broker acknowledged (PUBACK) is remembered per
// board in state_dir/mqtt/acked.json; whatever follows it in the journal is published again after a
// broker outage or a restart, in journal order. The file is written with the daemon's durable write
// (outputs/atomic_file.hpp: data, rename and directory fsynced); a stale one (a power cut between two
// saves) makes the host publish some events again, which receivers drop by their ids (topics.hpp); it can
// never name an event that was not acknowledged, so nothing is skipped.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/mqtt/topics.hpp"

namespace eboard::mqtt {

// A published event as the journal holds it.
struct JournalEvent {
  EventId id;
  int game = 0;
  std::string line;  // the CONTRACTS §3 event line
};

// The events of a board's journal (`current`: journal/<id>.journal) after `after`, in order: the rest of
// the file `after` lies in and every file since (kept files are followed back through their headers'
// previous_file, at most `max_files` in all). Events the daemon wrote about its journal are left out
// (journal-… alerts). Fails only when the current file cannot be read.
tl::expected<std::vector<JournalEvent>, std::string> journal_events_after(
    const std::filesystem::path& current, EventId after, int max_files = 16);

// The ids sent and not yet acknowledged, in order; the acknowledged prefix moves `acked` on.
class AckTracker {
 public:
  EventId acked() const { return acked_; }
  void set_acked(EventId id) { acked_ = id; }
  void sent(EventId id) { inflight_.push_back({id, false}); }
  // Marks `id` acknowledged; true when `acked()` moved.
  bool acknowledge(EventId id);
  // The connection is gone: whatever was not acknowledged is sent again from acked().
  void reset() { inflight_.clear(); }
  std::size_t inflight() const { return inflight_.size(); }

 private:
  struct Pending {
    EventId id;
    bool acked = false;
  };
  EventId acked_;
  std::deque<Pending> inflight_;
};

// state_dir/mqtt/acked.json: {"<board>": {"journal": ms, "seq": offset}, ...}. A missing or unreadable
// file is empty (everything in the journals is published again).
std::map<std::string, EventId> load_acked(const std::filesystem::path& file);
tl::expected<void, std::string> save_acked(const std::filesystem::path& file,
                                           const std::map<std::string, EventId>& acked);
// The file's content (what save_acked() writes; the daemon hands it to its background writer).
std::string acked_text(const std::map<std::string, EventId>& acked);

}  // namespace eboard::mqtt
