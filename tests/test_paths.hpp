// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Where the tests find what lies outside their build: the shared corpora, tests/data and the built tools.
// The paths are defined once, in a source generated into the build tree (tests/CMakeLists.txt), and not
// as compile definitions, so that no test object's compile line names the checkout's absolute path: two
// clones in different folders then compile every test alike, and a compiler cache serves the second.
// Force-included into every test (`-include`); the names below keep the spelling the tests use.
#pragma once

extern const char eboard_test_shared_dir[];
extern const char eboard_test_data_dir[];
extern const char eboard_test_eboardctl_bin[];
extern const char eboard_test_eboardd_bin[];

#define EBOARD_SHARED_DIR eboard_test_shared_dir
#define EBOARD_TEST_DATA eboard_test_data_dir
#define EBOARDCTL_BIN eboard_test_eboardctl_bin
#define EBOARDD_BIN eboard_test_eboardd_bin
