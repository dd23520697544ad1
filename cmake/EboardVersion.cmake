# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
# One version for every program, from project(): generated into eboard/version.hpp (target eboard::version).
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in ${PROJECT_BINARY_DIR}/generated/eboard/version.hpp @ONLY)
add_library(eboard_version INTERFACE)
add_library(eboard::version ALIAS eboard_version)
target_include_directories(eboard_version INTERFACE ${PROJECT_BINARY_DIR}/generated)
