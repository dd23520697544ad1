// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Pseudo-terminals for emulated boards: the board's end (the master) for BoardPlayer, the other end's path
// for whatever opens the board, and a stable symlink to it that survives a replacement (a "replug").
#pragma once

#include <filesystem>
#include <string>

#include <tl/expected.hpp>

namespace eboard::session {

struct PseudoTerminal {
  int master_fd = -1;      // the board's end; owned by the caller (BoardPlayer::attach takes it)
  std::string slave_path;  // e.g. /dev/pts/7: what a host opens
};

// posix_openpt + grantpt + unlockpt; the master is non-blocking and close-on-exec. The slave is put in
// raw mode at once (opened and closed again): otherwise its default line discipline would echo what the
// board sends back to the board, and translate bytes, until the host sets it up.
tl::expected<PseudoTerminal, std::string> open_pseudo_terminal();

// Makes `link` a symlink to `target`, replacing what was there atomically (a new link renamed over it).
tl::expected<void, std::string> point_symlink(const std::filesystem::path& link, const std::string& target);

}  // namespace eboard::session
