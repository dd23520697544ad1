// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// An archive file (a finished or live game's PGN, a match's BPGN) is never replaced by a poorer record of the
// same game: after a restart from a damaged journal the recovered game can be shorter than the file written
// before, and the file is then the better witness. Used while a recovered game is written for the first
// times.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace eboard::outputs {

// What a PGN/BPGN record holds, for comparing two records of one game.
struct ArchiveMeasure {
  int moves = 0;        // SAN tokens of the movetext
  bool result = false;  // a result other than "*"
  int named_tags = 0;   // tags with a value other than "?", "" or an unknown date
};

ArchiveMeasure measure_archive(std::string_view text);
// `next` has fewer moves, or loses the result or a tag's value, that `existing` had.
bool poorer(const ArchiveMeasure& next, const ArchiveMeasure& existing);

// Where a record that must not replace `path` is written instead: `<path>.recovered`.
std::filesystem::path recovered_path(const std::filesystem::path& path);
// Whether writing `content` to `path` would replace a richer record (false when there is none, or it
// cannot be read: then writing is the only way to keep anything).
bool would_impoverish(const std::filesystem::path& path, std::string_view content);

}  // namespace eboard::outputs
