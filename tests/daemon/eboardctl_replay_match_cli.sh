#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
# eboardctl replay with two captures, as a user runs it: a bughouse match (CONTRACTS §2). Events of both boards
# as JSON Lines in time order, the drop reconstructed from board B, the BPGN written; a non-bughouse
# profile is refused with a one-line error.
set -euo pipefail
eboardctl=$1 data=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
"$eboardctl" replay "$data/bughouse_match_A.cap" "$data/bughouse_match_B.cap" --pgn "$dir/match.bpgn" > "$dir/events.jsonl"
python3 - "$dir/events.jsonl" <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
times = [e["t"] for e in events]
assert times == sorted(times), "events not in time order"
for e in events:
    assert {"t", "board", "type"} <= e.keys(), e
moves = {b: [e["uci"] for e in events if e["type"] == "move" and e["board"] == b] for b in "AB"}
assert moves == {"A": ["e2e4", "d7d5", "e4d5"], "B": ["e2e4", "P@e5", "g1f3"]}, moves
alerts = [e for e in events if e["type"] == "alert"]
assert not alerts, alerts
PY
grep -q '2A\. exd5{296\.0} 1b\. P@e5{295\.0}' "$dir/match.bpgn" || { echo "BPGN not as expected"; cat "$dir/match.bpgn"; exit 1; }
grep -q '^\[WhiteA ' "$dir/match.bpgn" || { echo "BPGN without WhiteA tag"; exit 1; }
if "$eboardctl" replay --rules fide-standard "$data/bughouse_match_A.cap" "$data/bughouse_match_B.cap" > "$dir/out" 2> "$dir/err"; then
  echo "a match with a one-board profile was accepted"; exit 1
fi
[ "$(wc -l < "$dir/err")" -eq 1 ] || { echo "error is not one line:"; cat "$dir/err"; exit 1; }
echo "eboardctl replay A.cap B.cap: 6 moves on two boards, the drop P@e5 from the board, BPGN written"
