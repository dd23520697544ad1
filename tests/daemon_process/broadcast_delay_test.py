#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The broadcast delay (issue 15) on the real eboardd demo: with [broadcast] delay_s = D, no public output
shows a move earlier than D seconds after it was made, and the arbiter sees it at once.

The public outputs: the /ws feed and /games.pgn of the public listener ([broadcast] listen), and the /ws
feed and /games.pgn of the arbiter's listener read without a token. The arbiter: /ws with the control
token. Every move's time is the `t` of its event on the arbiter's feed. For ~25 s the test polls the public
PGN views and records when each public WebSocket event arrived; then it checks, move by move, that nothing
public came before t + D and that the public caught up with everything older than D (it is delayed, not
stuck). BPGN, the other public view, is checked the same way on the bughouse demo. Then the next match is
begun: the public views keep showing the one that ended (its last moves still coming out) until the delay
lets the new match's start out, and then show the new one.

usage: broadcast_delay_test.py EBOARDD SHARED_DIR        exit 77 (skipped) without the corpus
"""
import json
import os
import re
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eboardctl_proc import Harness, WebSocket, http_get, parse_pgn, start_demo  # noqa: E402

EXE, SHARED = sys.argv[1], sys.argv[2]
CORPUS = os.environ.get("BROADCAST_DELAY_CORPUS", os.path.join(SHARED, "corpora", "bughouse"))
if not os.path.isdir(CORPUS):
    print(f"skipped: {CORPUS} is absent")
    sys.exit(77)

DELAY_S = 4
TOKEN = "control-token-for-the-delay-test"
RUN_S = 25


def pgn_plies(text):
    """Board id → number of moves in a PGN text (drops included)."""
    return {g["tags"].get("Board"): len(g["moves"]) for g in parse_pgn(text)}


def main():
    with Harness("broadcast-delay") as h:
        proc, port = start_demo(h, EXE, f'[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
                                f'[broadcast]\ndelay_s = {DELAY_S}\nlisten = "127.0.0.1:0"\n', CORPUS)
        status = json.loads(http_get(port, "/status")[1])
        h.check(status["broadcast"]["delay_s"] == DELAY_S, f"/status broadcast: {status['broadcast']}")
        pub = int(status["broadcast"]["public_listen"].rsplit(":", 1)[1])
        matches = [m["name"] for m in status["matches"]]

        arbiter = WebSocket(port, headers=f"Authorization: Bearer {TOKEN}\r\n")
        public_ws = {"public listener": WebSocket(pub), "reader without a token": WebSocket(port)}
        auth = {"Authorization": f"Bearer {TOKEN}"}
        polls = []  # (time, view, {board: plies})
        views = {"public /games.pgn": (pub, "/games.pgn"), "tokenless /games.pgn": (port, "/games.pgn")}
        for match in matches:
            views[f"public {match}.bpgn"] = (pub, f"/matches/{match}.bpgn")
        arbiter_saw_at_once = 0
        start = time.time()
        while time.time() - start < RUN_S:
            for view, (p, path) in views.items():
                text = http_get(p, path)[1]
                at = time.time()  # the daemon answered before this
                if path.endswith(".bpgn"):
                    # One BPGN game: count each board's moves ("1A.", "1b." prefixes).
                    games = parse_bpgn_moves(text)
                    polls.append((at, view, games))
                else:
                    polls.append((at, view, pgn_plies(text)))
            # The arbiter's PGN has what its feed had just before it was asked.
            fed = {}
            for e in arbiter.moves():
                fed[e["board"]] = max(fed.get(e["board"], 0), e["ply"])
            req = urllib.request.Request(f"http://127.0.0.1:{port}/games.pgn", headers=auth)
            with urllib.request.urlopen(req, timeout=15) as r:
                live = pgn_plies(r.read().decode())
            if fed and all(live.get(b, 0) >= n for b, n in fed.items()):
                arbiter_saw_at_once += 1
            time.sleep(0.25)
        end = time.time()

        made = {}  # (board, ply) → t (s)
        for e in arbiter.moves():
            made.setdefault((e["board"], e["ply"]), e["t"] / 1000.0)
        h.check(len(made) >= 10, f"the demo made only {len(made)} moves in {RUN_S} s")
        h.check(arbiter_saw_at_once > 0, "the arbiter's /games.pgn never held what its feed had shown")
        early = []
        for view, ws in public_ws.items():
            events = ws.snapshot()
            for e, arrived in zip(events, ws.arrivals):
                if e.get("type") != "move":
                    continue
                t = made.get((e["board"], e["ply"]))
                if t is None:
                    continue  # made before the arbiter's feed began: its time is in the event itself
                if arrived < t + DELAY_S:
                    early.append(f"{view}: {e['board']} ply {e['ply']} {arrived - t:.2f} s after it was made")
            seen = {(e["board"], e["ply"]) for e in events if e.get("type") == "move"}
            due = {k for k, t in made.items() if t + DELAY_S + 1.5 < end}
            h.check(due <= seen, f"{view}: {len(due - seen)} moves older than the delay never came: "
                                 f"{sorted(due - seen)[:5]}")
        for at, view, plies in polls:
            for board, n in plies.items():
                for ply in range(1, n + 1):
                    t = made.get((board, ply))
                    if t is not None and at < t + DELAY_S:
                        early.append(f"{view}: {board} ply {ply} shown {at - t:.2f} s after it was made")
        last = {view: plies for _, view, plies in polls}
        for view, plies in last.items():
            for board in {b for b, _ in made}:
                due = max([p for (b, p), t in made.items() if b == board and t + DELAY_S + 1.5 < end] + [0])
                h.check(plies.get(board, 0) >= due, f"{view}: board {board} shows {plies.get(board, 0)} moves, "
                                                    f"{due} are older than the delay")
        h.check(not early, f"{len(early)} public views came early: {early[:5]}")
        print(f"{len(made)} moves made; public views polled {len(polls)} times; "
              f"{sum(len(ws.moves()) for ws in public_ws.values())} public feed moves; {len(early)} early",
              flush=True)
        # The demo's match is listed once it runs.
        matches = [m["name"] for m in json.loads(http_get(port, "/status")[1]).get("matches", [])]
        h.check(matches, "no match on /status: the demo plays a bughouse match")
        if matches:
            check_new_match(h, port, pub, matches[0])
        for ws in [arbiter, *public_ws.values()]:
            h.check(not ws.errors, f"WebSocket errors: {ws.errors[:3]}")
            ws.close()
        proc.terminate()
        proc.wait(timeout=30)
        return h.exit_code()


def check_new_match(h, port, pub, match):
    """The next match begun (POST /control/A/new-game) while the public is still DELAY_S behind: the public BPGN
    and each board's PGN go on showing the match that ended, its delayed last moves coming out, and switch to
    the new match only once the delay lets its start out."""
    board = match.split("-")[0]
    views = {"public BPGN": f"/matches/{match}.bpgn", f"public /boards/{board}.pgn": f"/boards/{board}.pgn"}

    def count(path):
        text = http_get(pub, path)[1]
        return sum((parse_bpgn_moves(text) if path.endswith(".bpgn") else pgn_plies(text)).values())
    before = {v: count(p) for v, p in views.items()}
    req = urllib.request.Request(f"http://127.0.0.1:{port}/control/{board}/new-game", data=b"{}", method="POST",
                                 headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=15) as r:
        h.check(r.status == 200, f"new-game: {r.status}")
    began = time.time()
    seen = {v: [] for v in views}
    while time.time() < began + DELAY_S + 2.5:
        for v, p in views.items():
            seen[v].append((time.time() - began, count(p)))
        time.sleep(0.1)
    for v, polls in seen.items():
        held = [(round(at, 2), n) for at, n in polls if at < DELAY_S - 0.3]
        shrunk = [(at, n) for at, n in held if n < before[v]]
        h.check(held and not shrunk, f"{v}: {before[v]} moves public before the new match, then within the delay "
                                     f"{shrunk[:5]} (seconds after it, moves): the public saw the match end early")
        grew = max([n for _, n in held] + [before[v]])
        after = [n for at, n in polls if at > DELAY_S + 1.5]
        h.check(after and after[-1] < grew, f"{v}: still {after[-1:]} moves {DELAY_S + 1.5} s after the new match "
                                            f"(the old one had {grew}): the new match never became public")
        print(f"{v}: {before[v]} moves public at the new match, up to {grew} within the delay, {after[-1:]} after it",
              flush=True)


def parse_bpgn_moves(text):
    """Board → moves in a BPGN text: movetext tokens like 1A. e4 / 1a. e5 / 1B. d4 / 1b. d5 (the demo's
    boards are named A and B, as BPGN names a match's boards)."""
    counts = {}
    body = re.sub(r"\[[^\]]*\]", "", text)
    body = re.sub(r"\{[^}]*\}", "", body)
    for m in re.finditer(r"\b\d+([AaBb])\.\s+(\S+)", body):
        board = m.group(1).upper()
        counts[board] = counts.get(board, 0) + 1
    return counts


if __name__ == "__main__":
    sys.exit(main())
