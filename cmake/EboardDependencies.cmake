# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
# Every library eboardd builds on, found once, all from Debian 12 packages (.ci/deps installs them by
# name). Targets are imported globally so each module links what it uses by name and never searches again.

find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

# rules and drivers: the standard library and tl::expected (libexpected-dev) only.
find_package(tl-expected 1.0 CONFIG REQUIRED GLOBAL)

# daemon: Boost.Asio and Beast are header-only in 1.74 (libboost-dev); JSON, TOML, the command line, logs.
find_package(Boost 1.74 REQUIRED GLOBAL)
find_package(OpenSSL REQUIRED GLOBAL)  # the HTTPS client (lichess broadcast push)
find_package(nlohmann_json 3.11 CONFIG REQUIRED GLOBAL)
find_package(tomlplusplus 3 CONFIG REQUIRED GLOBAL)
find_package(CLI11 2 CONFIG REQUIRED GLOBAL)
find_package(spdlog 1.10 CONFIG REQUIRED GLOBAL)

# Devices: serial ports, USB hotplug, and systemd's notify protocol.
pkg_check_modules(SERIALPORT REQUIRED IMPORTED_TARGET GLOBAL libserialport)
pkg_check_modules(LIBUSB REQUIRED IMPORTED_TARGET GLOBAL libusb-1.0)
pkg_check_modules(LIBSYSTEMD REQUIRED IMPORTED_TARGET GLOBAL libsystemd)
# The hall over MQTT (daemon/mqtt): libmosquitto (libmosquitto-dev; tests run mosquitto itself).
pkg_check_modules(MOSQUITTO REQUIRED IMPORTED_TARGET GLOBAL libmosquitto)
# SHA-256 for the journal's hash chain, Ed25519 for signed archives.
pkg_check_modules(SODIUM REQUIRED IMPORTED_TARGET GLOBAL libsodium)

# The build runs Python to write the man pages from the programs' --help; the tests run it too.
find_package(Python3 REQUIRED COMPONENTS Interpreter)

# Tests only: umockdev gives pseudo-terminals the sysfs identity of a USB serial board.
pkg_check_modules(UMOCKDEV IMPORTED_TARGET GLOBAL umockdev-1.0)
