// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// eboardctl: the command-line companion of eboardd (perft, replay, sim, and control of a running daemon).
#include <cstdio>

#include "daemon/tools/commands.hpp"
#include "eboard/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "eboardctl: electronic chess board tool (perft, capture replay, board simulator, control of a running "
      "eboardd, checking signed game records)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("eboardctl ") + eboard::VERSION);
  // Bad command lines get one line on stderr, like every other error of the tool.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("eboardctl: ") + e.what() + " (see --help)\n";
  });
  int exit_code = 0;
  eboard::tools::add_perft_command(app, exit_code);
  eboard::tools::add_replay_command(app, exit_code);
  eboard::tools::add_capture_command(app, exit_code);
  eboard::tools::add_sim_command(app, exit_code);
  eboard::tools::add_control_commands(app, exit_code);
  eboard::tools::add_verify_commands(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is not an error; a bad command line exits 2.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return exit_code;
}
