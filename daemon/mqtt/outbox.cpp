// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/mqtt/outbox.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/records.hpp"
#include "daemon/journal/recovery.hpp"
#include "daemon/journal/rotation.hpp"
#include "daemon/outputs/atomic_file.hpp"

namespace eboard::mqtt {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct FileEvents {
  std::int64_t created = 0;
  std::string previous_file;
  std::vector<JournalEvent> events;
};

tl::expected<FileEvents, std::string> read_file_events(const fs::path& path) {
  auto scan = journal::scan_journal(path);
  if (!scan) return tl::unexpected(scan.error());
  FileEvents f;
  int game = 0;
  for (const auto& rec : scan->records) {
    if (rec.type != 'H' && rec.type != 'N' && rec.type != 'E') continue;
    auto entry = journal::decode_entry(rec.type, rec.body);
    if (!entry) continue;
    if (const auto* h = std::get_if<journal::HeaderEntry>(&*entry)) {
      f.created = h->created_ms;
      f.previous_file = h->previous_file;
      game = h->previous_game;
    } else if (std::holds_alternative<journal::NewGameEntry>(*entry)) {
      ++game;
    } else if (const auto* e = std::get_if<journal::EventEntry>(&*entry)) {
      if (journal::is_daemon_note(e->json)) continue;
      f.events.push_back({EventId{f.created, rec.offset}, game, e->json});
    }
  }
  return f;
}

}  // namespace

tl::expected<std::vector<JournalEvent>, std::string> journal_events_after(const fs::path& current,
                                                                          EventId after, int max_files) {
  std::error_code ec;
  if (!fs::exists(current, ec)) return std::vector<JournalEvent>{};
  auto newest = read_file_events(current);
  if (!newest) return tl::unexpected(newest.error());
  // Newest first, back to the file `after` lies in (or the oldest one kept).
  std::vector<FileEvents> files{std::move(*newest)};
  while (int(files.size()) < max_files && files.back().created > after.journal &&
         !files.back().previous_file.empty()) {
    auto older = read_file_events(journal::kept_dir(current) / files.back().previous_file);
    if (!older) break;  // pruned or unreadable: what it held is gone for the outbox too
    files.push_back(std::move(*older));
  }
  std::vector<JournalEvent> out;
  for (auto it = files.rbegin(); it != files.rend(); ++it)
    for (auto& e : it->events)
      if (after < e.id) out.push_back(std::move(e));
  return out;
}

bool AckTracker::acknowledge(EventId id) {
  for (auto& p : inflight_)
    if (p.id == id) p.acked = true;
  bool moved = false;
  while (!inflight_.empty() && inflight_.front().acked) {
    if (acked_ < inflight_.front().id) {
      acked_ = inflight_.front().id;
      moved = true;
    }
    inflight_.pop_front();
  }
  return moved;
}

std::map<std::string, EventId> load_acked(const fs::path& file) {
  std::map<std::string, EventId> out;
  std::ifstream in(file);
  if (!in) return out;
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& [board, v] : j.items()) {
    if (!v.is_object() || !v.contains("journal") || !v.contains("seq") || !v["journal"].is_number_integer() ||
        !v["seq"].is_number_unsigned())
      continue;
    out[board] = EventId{v["journal"].get<std::int64_t>(), v["seq"].get<std::uint64_t>()};
  }
  return out;
}

std::string acked_text(const std::map<std::string, EventId>& acked) {
  json j = json::object();
  for (const auto& [board, id] : acked) j[board] = {{"journal", id.journal}, {"seq", id.seq}};
  return j.dump() + "\n";
}

tl::expected<void, std::string> save_acked(const fs::path& file,
                                           const std::map<std::string, EventId>& acked) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  return outputs::write_file_atomic(file, acked_text(acked));
}

}  // namespace eboard::mqtt
