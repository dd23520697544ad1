// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// `eboardctl capture import`: turns a raw byte log (base64 lines, one serial read each, no times) into a
// capture file with synthesised times, so old recordings can be replayed.
#include <cstdio>
#include <fstream>

#include "daemon/tools/checks.hpp"
#include "daemon/tools/commands.hpp"
#include "drivers/capture.hpp"

namespace eboard::tools {

void add_capture_command(CLI::App& app, int& exit_code) {
  struct Options {
    std::string input, output, board, note;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("capture", "Work with capture files");
  cmd->require_subcommand(1);
  CLI::App* import =
      cmd->add_subcommand("import", "Convert a base64 byte log (.inbytes) into a .cap capture");
  import->add_option("input", o->input, "the .inbytes file")->required()->check(CLI::ExistingFile);
  import->add_option("-o,--output", o->output, "the capture to write (default: stdout)");
  import->add_option("--board", o->board, "board label for the capture header");
  import->add_option("--note", o->note, "a note for the capture header");
  import->callback([o, &exit_code] {
    auto text = read_input_file(o->input);
  if (!text) {
    std::fprintf(stderr, "eboardctl capture import: %s\n", text.error().c_str());
    exit_code = 2;
    return;
  }
  drivers::InbytesImportOptions opts;
  opts.board = o->board;
  opts.note = o->note.empty() ? "imported from " + o->input : o->note;
  auto capture = drivers::import_dgt_inbytes(*text, opts);
  if (!capture) {
    std::fprintf(stderr, "eboardctl capture import: %s: %s\n", o->input.c_str(), capture.error().c_str());
    exit_code = 2;
    return;
  }
  std::string formatted = drivers::format_capture(*capture);
  if (o->output.empty()) {
    std::fputs(formatted.c_str(), stdout);
  } else {
    std::ofstream out(o->output, std::ios::binary | std::ios::trunc);
    if (!(out << formatted)) {
      std::fprintf(stderr, "eboardctl capture import: cannot write %s\n", o->output.c_str());
      exit_code = 2;
    }
  }
});
}  // namespace eboard::tools

}  // namespace eboard::tools
