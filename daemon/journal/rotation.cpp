// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/rotation.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/records.hpp"
#include "daemon/outputs/atomic_file.hpp"

namespace eboard::journal {

namespace fs = std::filesystem;

namespace {

// The renames of a rotation survive a power cut once their directories are synced (the durable write's
// directory step, outputs/atomic_file.hpp). A failed directory sync is not undone: the renames stand.
void sync_dir(const fs::path& dir) { (void)outputs::sync_directory(dir); }

// The kept name a .next file's header gives; empty if it names none.
std::string kept_name_in(const fs::path& next) {
  auto scan = scan_journal(next);
  if (!scan) return {};
  for (const FileRecord& r : scan->records) {
    if (r.type != 'H') continue;
    auto h = decode_entry(r.type, r.body);
    if (h && std::holds_alternative<HeaderEntry>(*h)) return std::get<HeaderEntry>(*h).previous_file;
  }
  return {};
}

}  // namespace

fs::path next_path(const fs::path& current) {
  fs::path p = current;
  p += ".next";
  return p;
}

fs::path kept_dir(const fs::path& current) { return current.parent_path() / current.stem(); }

fs::path kept_path(const fs::path& current, int game, std::int64_t started_ms) {
  const std::time_t secs = std::time_t(started_ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  char number[16];
  std::snprintf(number, sizeof number, "%06d", std::max(0, game));
  const std::string base = std::string(number) + "-" + stamp;
  const fs::path dir = kept_dir(current);
  fs::path p = dir / (base + ".journal");
  // Game numbers begin again if a state directory lost its journal: never overwrite a kept game.
  for (int k = 2; fs::exists(p); ++k) p = dir / (base + "-" + std::to_string(k) + ".journal");
  return p;
}

tl::expected<void, std::string> write_next(const Rotation& r,
                                           const std::vector<std::pair<char, std::string>>& records) {
  std::error_code ec;
  fs::remove(r.next, ec);  // a stale one would be appended to
  auto w = JournalWriter::open(r.next);
  if (!w) return tl::unexpected(w.error());
  for (const auto& [type, body] : records)
    if (auto ok = w->append(type, body); !ok) return ok;
  return w->sync();
}

void abandon(const std::vector<Rotation>& group) {
  std::error_code ec;
  for (const Rotation& r : group) fs::remove(r.next, ec);
  if (!group.empty()) sync_dir(group.front().current.parent_path());
}

CommitResult commit(const std::vector<Rotation>& group) {
  CommitResult out;
  std::vector<fs::path> currents;
  currents.reserve(group.size());
  for (const Rotation& r : group) currents.push_back(r.current);
  auto fail = [&](const std::string& what, std::error_code ec) {
    out.error = what + ": " + ec.message();
    Settled s = settle(currents);
    out.rotated = s.rolled_forward;
    return out;
  };
  std::error_code ec;
  for (const Rotation& r : group) {
    fs::create_directories(r.kept.parent_path(), ec);
    if (ec) {
      abandon(group);
      out.error = "cannot create " + r.kept.parent_path().string() + ": " + ec.message();
      return out;
    }
  }
  for (const Rotation& r : group) {
    fs::rename(r.current, r.kept, ec);
    if (ec) return fail("cannot rename " + r.current.string() + " to " + r.kept.string(), ec);
  }
  for (const Rotation& r : group) sync_dir(r.kept.parent_path());
  sync_dir(group.front().current.parent_path());
  for (const Rotation& r : group) {
    fs::rename(r.next, r.current, ec);
    if (ec) return fail("cannot rename " + r.next.string() + " to " + r.current.string(), ec);
  }
  sync_dir(group.front().current.parent_path());
  out.rotated = true;
  return out;
}

Settled settle(const std::vector<fs::path>& currents) {
  Settled s;
  std::error_code ec;
  bool pending = false, committed = false;
  for (const fs::path& c : currents) {
    const bool has_next = fs::exists(next_path(c), ec);
    pending |= has_next;
    committed |= has_next && !fs::exists(c, ec);
  }
  if (!pending) return s;
  if (!committed) {
    for (const fs::path& c : currents)
      if (fs::remove(next_path(c), ec))
        s.notes.push_back("removed " + next_path(c).string() + ": a rotation not committed before a crash");
    sync_dir(currents.front().parent_path());
    s.rolled_back = true;
    return s;
  }
  for (const fs::path& c : currents) {
    const fs::path next = next_path(c);
    if (!fs::exists(next, ec)) continue;
    if (fs::exists(c, ec)) {
      std::string name = kept_name_in(next);
      fs::path kept = name.empty() ? kept_path(c, 0, 0) : kept_dir(c) / name;
      if (fs::exists(kept, ec)) kept = kept_path(c, 0, 0);
      fs::create_directories(kept.parent_path(), ec);
      fs::rename(c, kept, ec);
      if (ec) {
        s.notes.push_back("cannot keep " + c.string() + " as " + kept.string() + ": " + ec.message());
        continue;
      }
      sync_dir(kept.parent_path());
      s.notes.push_back("kept " + c.string() + " as " + kept.string() + " (a rotation cut short by a crash)");
    }
    fs::rename(next, c, ec);
    if (ec)
      s.notes.push_back("cannot rename " + next.string() + " to " + c.string() + ": " + ec.message());
    else
      s.notes.push_back("finished the rotation of " + c.string() + " cut short by a crash");
  }
  sync_dir(currents.front().parent_path());
  s.rolled_forward = true;
  return s;
}

std::vector<KeptJournal> kept_journals(const fs::path& current) {
  std::vector<KeptJournal> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kept_dir(current), ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".journal" || name.size() < 7 || name[6] != '-') continue;
    int game = 0;
    bool digits = true;
    for (std::size_t i = 0; i < 6; ++i) {
      digits &= name[i] >= '0' && name[i] <= '9';
      game = game * 10 + (name[i] - '0');
    }
    if (digits) out.push_back({game, entry.path()});
  }
  std::sort(out.begin(), out.end(), [](const KeptJournal& a, const KeptJournal& b) {
    return a.game != b.game ? a.game < b.game : a.path < b.path;
  });
  return out;
}

}  // namespace eboard::journal
