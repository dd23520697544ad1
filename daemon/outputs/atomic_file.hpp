// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The daemon's durable writes: one whole-file write, and one append for logs (append_durable, below, with
// the same data and directory guarantees).
//
// The durable whole-file write. Every file eboardd replaces (archives and their signatures,
// keys, round.json, a journal rewritten or its damaged copy, the MQTT outbox's acknowledgements, the
// listen files) goes through write_file_atomic(), with one set of guarantees:
//   data       written whole to a temporary file in the same directory, fsync(2)ed;
//   rename     renamed over the target: a reader, or a crash, sees the old version or the new, never half;
//   directory  the directory fsync(2)ed: the rename survives a power cut.
// An error (a full disk, a quota, an I/O error, a missing directory) leaves the old file as it was and no
// temporary file behind, and says what failed with the system's reason. It blocks: on the event loop, go
// through the worker (async_file.hpp), which also retries what the disk refused until space returns.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace eboard::outputs {

// With `sync_dir` false, the caller fsyncs the directory itself (sync_directory()), e.g. once for a batch
// of files: until then the new version is whole but may not yet be the one a power cut leaves. `mode` is
// the new file's, whatever the umask (0600 for a secret key).
tl::expected<void, std::string> write_file_atomic(const std::filesystem::path& path, std::string_view content,
                                                  bool sync_dir = true, mode_t mode = 0644);
// The durable append (a log kept line by line, e.g. state_dir/arbiter.log): `text` appended whole to `path`
// (created 0644 if missing), the data fdatasync(2)ed, and, when the file was created, its directory
// fsync(2)ed. It blocks like write_file_atomic(). A failed write may leave part of `text` at the end.
tl::expected<void, std::string> append_durable(const std::filesystem::path& path, std::string_view text);
// fsync(2) of a directory: the renames done in it survive a power cut.
tl::expected<void, std::string> sync_directory(const std::filesystem::path& dir);
// Whether an error of write_file_atomic() (or of another write) is the disk refusing space (ENOSPC, EDQUOT,
// EFBIG): space may return, and a retry then succeeds.
bool space_error(std::string_view error);

}  // namespace eboard::outputs
