// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// main() for the serial tests: makes sure libumockdev-preload is loaded (re-executing this binary with
// LD_PRELOAD when it is not), so `ctest` and a plain `./io_serial_test` both work.
#include <gtest/gtest.h>

#include "daemon/io/testing/mock_serial_device.hpp"

// GLib's type system and umockdev's process-wide testbed allocate once and keep it: not our leaks.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libglib-2.0\nleak:libgobject-2.0\nleak:libgio-2.0\nleak:libumockdev\n";
}

int main(int argc, char** argv) {
  eboard::io::testing::ensure_umockdev_preload(argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
