#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
# eboardctl replay as a user runs it: import a real byte log, replay it, check the JSON Lines and the PGN,
# and check that bad input gives a one-line error and a non-zero exit.
set -euo pipefail
eboardctl=$1 inbytes=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
"$eboardctl" capture import "$inbytes" -o "$dir/game.cap" --board A
"$eboardctl" replay "$dir/game.cap" --pgn "$dir/game.pgn" > "$dir/events.jsonl"
moves=$(grep -c '"type":"move"' "$dir/events.jsonl")
[ "$moves" -eq 57 ] || { echo "expected 57 moves, got $moves"; exit 1; }
python3 - "$dir/events.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    assert {"t", "board", "type"} <= e.keys(), e
    if e["type"] == "move":
        assert {"ply", "uci", "san"} <= e.keys(), e
PY
grep -q '^1\. e4 ' "$dir/game.pgn" || { echo "PGN does not start with 1. e4"; cat "$dir/game.pgn"; exit 1; }
printf 'not a capture\n' > "$dir/bad.cap"
if "$eboardctl" replay "$dir/bad.cap" > "$dir/out" 2> "$dir/err"; then echo "bad capture accepted"; exit 1; fi
[ "$(wc -l < "$dir/err")" -eq 1 ] || { echo "error is not one line:"; cat "$dir/err"; exit 1; }
echo "eboardctl replay: 57 moves, JSON Lines and PGN as contracted; bad input refused: $(cat "$dir/err")"
