#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
# Capture regressions with golden output (gpsd's way): every capture in tests/data/captures with a .jsonl
# beside it replays, through `eboardctl replay`, to exactly that event stream; the bughouse match's two
# captures to bughouse_match.jsonl. A change that alters what a capture means shows here as a diff.
# To accept a change on purpose: run eboardctl replay on the capture and commit its output as the .jsonl.
set -euo pipefail
eboardctl=$1 data=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
checked=0 failed=0
check() {  # name, golden, captures...
  local name=$1 golden=$2; shift 2
  if ! "$eboardctl" replay "$@" > "$dir/$name.jsonl" 2> "$dir/$name.err"; then
    echo "$name: eboardctl replay failed: $(cat "$dir/$name.err")"; failed=$((failed + 1)); return
  fi
  if ! diff -u "$golden" "$dir/$name.jsonl" > "$dir/$name.diff"; then
    echo "$name: the events differ from $(basename "$golden"):"; head -40 "$dir/$name.diff"; failed=$((failed + 1))
  fi
  checked=$((checked + 1))
}
for cap in "$data"/*.cap; do
  golden="${cap%.cap}.jsonl"
  [ -f "$golden" ] && check "$(basename "${cap%.cap}")" "$golden" "$cap"
done
check bughouse_match "$data/bughouse_match.jsonl" "$data/bughouse_match_A.cap" "$data/bughouse_match_B.cap"
protocols=$(grep -h '^# protocol:' "$data"/*.cap | sort -u | awk '{print $3}' | tr '\n' ' ')
echo "$checked captures replayed to their golden events ($failed differ); protocols: $protocols"
[ "$failed" -eq 0 ] && [ "$checked" -ge 4 ]
