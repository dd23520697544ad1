// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Journal rotation: at a new game a board's current file (journal/<id>.journal) is kept, whole, as
// journal/<id>/<game>-<yyyymmdd-hhmmss>.journal (the game's number and its start, UTC), and a fresh current
// file begins with a header carrying what the kept games leave to the next (records.hpp: the last game's
// number, the tags), then the new game's record. Start-up and the capture export read the current game only.
//
// A group is rotated together: one board, or the two boards of a bughouse match (recovered from both
// journals at once, so both must hold the same match). The steps, so that a crash anywhere loses nothing
// and begins no game twice:
//   1. every <id>.journal.next is written whole (header, new-game record) and made durable;
//   2. every <id>.journal is renamed to its kept name;                  <- the first rename commits
//   3. every <id>.journal.next is renamed to <id>.journal; directories are fsynced after 2 and 3.
// settle(), at start-up, finishes a rotation cut short: a group with a .next and no current file was
// committed and is rolled forward (the kept name is in the .next's header); otherwise the .next files are
// removed and the boards go on with the game they had (the new one was never begun: its record was
// nowhere but in a .next, and nothing of it was published).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::journal {

struct Rotation {
  std::filesystem::path current;  // journal/<id>.journal
  std::filesystem::path next;     // journal/<id>.journal.next
  std::filesystem::path kept;     // journal/<id>/<game>-<yyyymmdd-hhmmss>.journal
};

std::filesystem::path next_path(const std::filesystem::path& current);
// journal/<id>/: a board's kept files.
std::filesystem::path kept_dir(const std::filesystem::path& current);
// A name not yet taken in kept_dir(current) for game `game`, begun at `started_ms` (Unix ms).
std::filesystem::path kept_path(const std::filesystem::path& current, int game, std::int64_t started_ms);

// Step 1: the magic, then `records` (type, body), in r.next, durable.
tl::expected<void, std::string> write_next(const Rotation& r,
                                           const std::vector<std::pair<char, std::string>>& records);

struct CommitResult {
  bool rotated = false;  // the current files are the new ones
  std::string error;     // what went wrong, if anything (the group was settled after it)
};
// Steps 2 and 3 for a group whose .next files are written.
CommitResult commit(const std::vector<Rotation>& group);
// Removes the .next files of a group that will not be committed.
void abandon(const std::vector<Rotation>& group);

struct Settled {
  bool rolled_forward = false;
  bool rolled_back = false;
  std::vector<std::string> notes;  // what was done, for the log
};
// Finishes or undoes a rotation of the group of these current files that a crash cut short.
Settled settle(const std::vector<std::filesystem::path>& currents);

struct KeptJournal {
  int game = 0;
  std::filesystem::path path;
};
// The kept files of a board, by game number.
std::vector<KeptJournal> kept_journals(const std::filesystem::path& current);

}  // namespace eboard::journal
