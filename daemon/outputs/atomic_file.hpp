// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Files that are either the old version or the new one, never half written: write a temporary file in
// the same directory, fsync it, rename it over the target, fsync the directory.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace eboard::outputs {

// With `sync_dir` false, the caller fsyncs the directory itself (sync_directory()), e.g. once for a batch
// of files: until then the new version is whole but may not yet be the one a power cut leaves.
tl::expected<void, std::string> write_file_atomic(const std::filesystem::path& path, std::string_view content,
                                                  bool sync_dir = true);
// fsync(2) of a directory: the renames done in it survive a power cut.
void sync_directory(const std::filesystem::path& dir);

}  // namespace eboard::outputs
