#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
# skip_without.sh PATH -- COMMAND...: runs COMMAND, or exits 77 (CTest "skipped") when PATH (the ../shared
# corpora) is absent, so a clone without ../shared still runs every test that does not need it.
set -u
path=$1; shift; [ "${1:-}" = "--" ] && shift
if [ ! -e "$path" ]; then echo "skipped: $path is absent"; exit 77; fi
exec "$@"
