// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The `eboardctl` tool's subcommands. Each registers its options on the CLI app and runs when chosen.
#pragma once

#include <CLI/CLI.hpp>

namespace eboard::tools {

// Each function adds a subcommand; the subcommand's callback sets the process exit code in `exit_code`.
void add_perft_command(CLI::App& app, int& exit_code);
void add_replay_command(CLI::App& app, int& exit_code);
void add_capture_command(CLI::App& app, int& exit_code);
void add_sim_command(CLI::App& app, int& exit_code);
// status, new-game, tags, promotion, ack, draw, resign, adjourn, resume, port: a running eboardd over HTTP.
void add_control_commands(CLI::App& app, int& exit_code);
// verify (a signed game record) and key (the signing key's fingerprint).
void add_verify_commands(CLI::App& app, int& exit_code);

}  // namespace eboard::tools
