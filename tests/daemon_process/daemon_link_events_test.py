#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A board's link on the feed (issue 12): `link` events on /ws, `link_state` on /status, with the real eboardd
and `eboardctl sim` on a pseudo-terminal.

eboardd starts before the board exists (the sim's device path is still absent): the board is offline from its
first attempt, /status says so, and a /ws client connecting then gets the offline event with the state. The sim
appears: exactly one `online`. The sim unplugs mid-game (--reopen-at, the pty closed, a new one behind the same
symlink after --reopen-gap, the players going on): exactly one `offline` (device removed) however many reconnect
attempts fail, then exactly one `online`. At each stage /status agrees with the last event (state, since,
reason), `eboardctl status` prints the board as OFFLINE while it is, and the journal holds the link changes as
sensor records but no `link` event record (a link event is not journaled).

usage: daemon_link_events_test.py EBOARDD EBOARDCTL SHARED_DIR [--game N] [--speed R] [--reopen-at S]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402


def main():
    ap = ep.arg_parser(game=7, speed=6.0)
    ap.add_argument("--reopen-at", type=float, default=30.0)  # game seconds after the game's start
    # Game milliseconds unplugged: 3 s of real time at the default speed, long enough for /status and a second
    # /ws client to be looked at while the board is away on a busy machine.
    ap.add_argument("--reopen-gap", type=int, default=18000)
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    with ep.Harness("daemon-link-events") as h:
        try:
            run(h, a, pgn)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def links(ws):
    return [e for e in ws.snapshot() if e.get("type") == "link"]


def wait_links(ws, n, timeout, what):
    ep.wait_until(lambda: len(links(ws)) >= n, timeout, what)
    return links(ws)


def check_event(h, e, state, reason_start, what):
    h.check(set(e) == {"t", "board", "type", "state", "reason"},
            f"{what}: the fields of a link event are t, board, type, state, reason: {e}")
    h.check(e.get("board") == "A" and e.get("state") == state, f"{what}: board A {state}: {e}")
    h.check(isinstance(e.get("t"), int) and e["t"] > 0, f"{what}: t is Unix ms: {e}")
    reason = e.get("reason", "")
    h.check(isinstance(reason, str) and reason.startswith(reason_start),
            f"{what}: the reason starts with {reason_start!r}: {reason!r}")


def status_link(d):
    return d.board_status().get("link_state")


def watch_status(d, want_since, timeout):
    """Polls /status until it shows the link of the event at `want_since`; returns the last link_state seen."""
    deadline = time.time() + timeout
    seen = None
    while time.time() < deadline:
        seen = status_link(d)
        if seen and seen.get("since") == want_since:
            return seen
        time.sleep(0.02)
    return seen


def check_status(h, d, event, what):
    st = watch_status(d, event["t"], 5)
    h.check(st == {"state": event["state"], "since": event["t"], "reason": event["reason"]},
            f"{what}: /status link_state {st} agrees with the event {event}")


def run(h, a, pgn):
    device = os.path.join(h.dir, "dgt")  # where the sim will put its symlink; absent for now
    d = ep.Daemon(h, a.eboardd, device, clock_rate=a.speed).start()
    print(f"eboardd on port {d.port}, board A on {device} (absent)", flush=True)

    # 1. Absent at start: offline from the first attempt.
    ep.wait_until(lambda: (status_link(d) or {}).get("state") == "offline", 15, "/status: board A offline")
    absent = status_link(d)
    h.check(absent["reason"].startswith("device absent"), f"/status: why board A is offline: {absent}")
    h.check(d.board_status().get("link") == "connecting", f"/status link {d.board_status().get('link')}")
    ws = ep.WebSocket(d.port)
    first = wait_links(ws, 1, 15, "the offline link event in the /ws snapshot")[0]
    check_event(h, first, "offline", "device absent", "/ws snapshot of a board absent at start")
    h.check(first["t"] == absent["since"] and first["reason"] == absent["reason"],
            f"/ws snapshot {first} tells the state of /status {absent}")
    out = subprocess.run([a.eboardctl, "status", "--daemon", f"127.0.0.1:{d.port}"], capture_output=True,
                         text=True, timeout=30)
    board_line = next((l for l in out.stdout.splitlines() if l.startswith("A ")), "")
    h.check(out.returncode == 0 and "OFFLINE since" in board_line and absent["reason"] in board_line,
            f"eboardctl status shows board A offline with the reason: {out.stdout!r} {out.stderr!r}")

    # 2. The board appears: one online.
    extra = ["--reopen-at", str(a.reopen_at), "--reopen-gap", str(a.reopen_gap)]
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, style=a.style, extra=extra)
    h.check(sim.device == device, f"the sim's device {sim.device} is the configured {device}")
    back = wait_links(ws, 2, 20, "the online link event once the board appears")[1]  # backoff: up to 5 s
    check_event(h, back, "online", "connected on", "/ws once the board appears")
    check_status(h, d, back, "board online")
    h.check(back["t"] >= first["t"], f"online at {back['t']} after offline at {first['t']}")

    # 3. Unplugged mid-game: one offline however many reopen attempts fail during the gap, then one online.
    gone = wait_links(ws, 3, a.reopen_at / a.speed + 30, "the offline link event of the unplug")[2]
    check_event(h, gone, "offline", "device removed", "/ws at the unplug")
    check_status(h, d, gone, "board unplugged")
    ws2 = ep.WebSocket(d.port)
    late = wait_links(ws2, 1, 15, "the link event in the snapshot of a client connecting while offline")[0]
    h.check(late == gone, f"the snapshot of a client connecting while offline tells {gone}: {late}")
    returned = wait_links(ws, 4, a.reopen_gap / 1000 / a.speed + 20, "the online link event of the return")[3]
    check_event(h, returned, "online", "connected on", "/ws at the return")
    check_status(h, d, returned, "board back")
    h.check(wait_links(ws2, 2, 15, "the return on the second client")[1] == returned,
            f"the second client got the return {returned}: {links(ws2)}")
    ls = d.board_status()["source"]["link_stats"]
    print(f"link events: {links(ws)}; link stats {ls}", flush=True)
    h.check(ls["disconnects"] == 1 and ls["connects"] == 2, f"one unplug, two connects: {ls}")
    h.check(ls["open_failures"] >= 2, f"the reconnect attempts that failed are not events: {ls}")

    # Nothing more: once per change. The game goes on for a while (clock readings, moves).
    time.sleep(2)
    h.check(len(links(ws)) == 4, f"exactly offline, online, offline, online on /ws: {links(ws)}")
    h.check(len(links(ws2)) == 2, f"exactly offline, online on the second client: {links(ws2)}")
    h.check(not ws.closed and not ws.errors, f"/ws stayed open and well-formed: {ws.errors}")
    h.check(ep.http_get(d.port, "/status")[0] == 200, "/status answers")
    ws.close()
    ws2.close()
    h.check(d.stop() == 0, "SIGTERM: exit 0")

    # The journal: the link's changes as sensor records (replay needs them), no link event record.
    journal = os.path.join(d.state, "journal", "A.journal")
    records = ep.journal_records(journal)
    event_links = [b for k, b in records if k == "E" and b'"type":"link"' in b]
    h.check(not event_links, f"link events are not journaled: {event_links[:2]}")
    sensor_links = [s["link"] for s in ep.journal_sensor_events(journal) if "link" in s]
    h.check(sensor_links == [True, False, True],
            f"the journal holds the link's changes as sensor records: {sensor_links}")


if __name__ == "__main__":
    sys.exit(main())
