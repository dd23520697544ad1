#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""[push.lichess] (issue 15) against a local HTTP server standing in for lichess' broadcast push API (there
is no network here; the real service was not tried).

The real eboardd demo plays single games behind a broadcast delay of D s and pushes to the stand-in, which
answers as lichess does for a while, then refuses (HTTP 500), then does not answer in time, then is gone
(connection refused), then comes back. The test checks that every push is a POST of PGN to
/api/broadcast/round/<id>/push with the token from the token file, that no push ever holds a move younger
than D s (the times come from the arbiter's live feed), that /status tells the failures while they last,
and that once the stand-in is back a push carries every game with every move older than the delay.

usage: lichess_push_test.py EBOARDD SHARED_DIR        exit 77 (skipped) without the corpus
"""
import http.server
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eboardctl_proc import Harness, WebSocket, http_get, parse_pgn, start_demo  # noqa: E402

EXE, SHARED = sys.argv[1], sys.argv[2]
CORPUS = os.path.join(SHARED, "corpora", "pgn", "standard")
if not os.path.isdir(CORPUS):
    print(f"skipped: {CORPUS} is absent")
    sys.exit(77)

DELAY_S = 3
ROUND = "abCD1234"
LICHESS_TOKEN = "lip_standin-token-0123456789"
CONTROL = "control-token-for-the-push-test"


class StandIn:
    """The stand-in lichess: records every request; `mode` says how it answers."""

    def __init__(self):
        self.mode = "ok"
        self.pushes = []  # (time answered or given up, path, headers, body, status or None)
        self.lock = threading.Lock()
        self.port = 0
        self.server = None
        self.start()

    def start(self):
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                mode = standin.mode
                status = None
                if mode == "hang":
                    time.sleep(4)  # longer than the daemon's timeout_s
                    return
                if mode == "error":
                    status = 500
                    answer = b"internal error"
                else:
                    status = 200
                    games = [{"tags": g["tags"], "moves": len(g["moves"])} for g in parse_pgn(body)]
                    answer = json.dumps({"games": games}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                with standin.lock:
                    standin.pushes.append((time.time(), self.path, dict(self.headers), body, status))

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def accepted(self):
        with self.lock:
            return [p for p in self.pushes if p[4] == 200]


def main():
    with Harness("lichess-push") as h:
        standin = StandIn()
        token_file = os.path.join(h.dir, "lichess.token")
        with open(token_file, "w") as f:
            f.write(LICHESS_TOKEN + "\n")
        proc, port = start_demo(h, EXE, f'[http]\nlisten = "127.0.0.1:0"\ntoken = "{CONTROL}"\n\n'
                                f'[broadcast]\ndelay_s = {DELAY_S}\n\n'
                                f'[push.lichess]\nround = "{ROUND}"\ntoken_file = "{token_file}"\n'
                                f'url = "http://127.0.0.1:{standin.port}"\ninterval_s = 1\ntimeout_s = 2\n', CORPUS)
        arbiter = WebSocket(port, headers=f"Authorization: Bearer {CONTROL}\r\n")

        def push_status():
            return json.loads(http_get(port, "/status")[1])["broadcast"]["push_lichess"]

        # How the stand-in behaves, phase by phase.
        seen_failing = set()
        for mode, seconds in [("ok", 9), ("error", 4), ("hang", 5), ("down", 4), ("ok", 0)]:
            if mode == "down":
                standin.stop()
            elif standin.mode == "down":
                standin.start()
            standin.mode = mode
            end = time.time() + seconds
            while time.time() < end:
                s = push_status()
                if s["failures_in_a_row"] > 0 and s["last_error"]:
                    seen_failing.add(mode)
                time.sleep(0.3)
        back = time.time()
        # Back: within the back-off (1.5x per failure from 1 s) a push carries every move older than D.
        made = {}

        def caught_up():
            for e in arbiter.moves():
                made.setdefault((e["board"], e["ply"]), e["t"] / 1000.0)
            acc = standin.accepted()
            if not acc or acc[-1][0] < back:
                return False
            at, _, _, body, _ = acc[-1]
            plies = {g["tags"].get("Board"): len(g["moves"]) for g in parse_pgn(body)}
            return all(plies.get(b, 0) >= p for (b, p), t in made.items() if t + DELAY_S + 1.5 < at)

        deadline = time.time() + 30
        while not caught_up():
            if time.time() > deadline:
                h.fail("no push carried every move older than the delay within 30 s of the stand-in's return")
            time.sleep(0.3)
        recovered_after = time.time() - back
        for e in arbiter.moves():
            made.setdefault((e["board"], e["ply"]), e["t"] / 1000.0)

        pushes = standin.pushes
        h.check(len(made) >= 10, f"the demo made only {len(made)} moves")
        h.check(len(standin.accepted()) >= 3, f"only {len(standin.accepted())} pushes accepted")
        h.check(any(p[4] == 500 for p in pushes), "the stand-in never refused a push")
        for mode in ("error", "down"):
            h.check(mode in seen_failing, f"/status never told a failing push while the stand-in was '{mode}'")
        early = []
        for at, path, headers, body, status in pushes:
            h.check(path == f"/api/broadcast/round/{ROUND}/push", f"pushed to {path}")
            h.check(headers.get("Authorization") == f"Bearer {LICHESS_TOKEN}", "the push's token is not the file's")
            h.check(headers.get("Content-Type", "").startswith("text/plain"), f"Content-Type {headers.get('Content-Type')}")
            for g in parse_pgn(body):
                board = g["tags"].get("Board")
                for ply in range(1, len(g["moves"]) + 1):
                    t = made.get((board, ply))
                    if t is not None and at < t + DELAY_S:
                        early.append(f"{board} ply {ply} pushed {at - t:.2f} s after it was made")
        h.check(not early, f"{len(early)} moves pushed before the delay: {early[:5]}")
        s = push_status()
        h.check(s["failures_in_a_row"] == 0 and s["pushes_ok"] >= 3, f"/status after the return: {s}")
        h.check(LICHESS_TOKEN not in open(h.logs[0][1], errors="replace").read(), "the token is in the log")
        print(f"{len(made)} moves, {len(pushes)} pushes ({len(standin.accepted())} accepted, "
              f"{sum(1 for p in pushes if p[4] == 500)} refused); caught up {recovered_after:.1f} s after the "
              f"stand-in's return; {len(early)} early", flush=True)
        arbiter.close()
        proc.terminate()
        proc.wait(timeout=30)
        standin.stop()
        return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
