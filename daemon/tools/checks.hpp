// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Checks shared by eboardctl's subcommands: whole-file inputs that cannot exhaust memory or block, and
// numeric options that reject what would overflow later.
#pragma once

#include <cstddef>
#include <string>

#include <CLI/CLI.hpp>
#include <tl/expected.hpp>

namespace eboard::tools {

// Captures, byte logs, suites and game files are read whole. The largest real inputs are a few MiB (a day's
// capture of one board); 256 MiB leaves room for anything real and still stops a mistyped path to a huge
// file before it is read.
inline constexpr std::size_t MAX_INPUT_BYTES = std::size_t(256) << 20;

// The whole content of `path`, or one line saying why not: it cannot be opened, it is not a regular file
// (a directory, /dev/zero, a FIFO: their size says nothing about what a read returns), or it holds more
// than `max_bytes`. The error begins with the path.
tl::expected<std::string, std::string> read_input_file(const std::string& path,
                                                       std::size_t max_bytes = MAX_INPUT_BYTES);

// A number in [lo, hi] that is finite: CLI::Range lets NaN through (every comparison with it is false), and
// a NaN or infinite number of seconds turned into milliseconds is undefined behaviour.
CLI::Validator finite_range(double lo, double hi);

}  // namespace eboard::tools
