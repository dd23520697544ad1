#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""`eboardctl` control subcommands against the real eboardd (issue 6): one board on a port that does not
exist (the game is there, the board is waiting), a token. Checks output and exit codes: 0 done, 1 the daemon
said no (its reason on stderr), 2 usage, 3 no daemon."""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

EBOARDD, EBOARD = sys.argv[1], sys.argv[2]
TOKEN = "cli-test-token-42"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)


def eboardctl(*args, env_token=None, daemon=None):
    env = dict(os.environ)
    env.pop("EBOARD_TOKEN", None)
    if env_token is not None:
        env["EBOARD_TOKEN"] = env_token
    cmd = [EBOARD, *args] + (["--daemon", daemon] if daemon else [])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=env)


USB_STATUS = {
    "daemon": "eboardd", "version": "0.1.0", "mode": "boards", "uptime_s": 3, "boards": [],
    "failed_boards": {}, "matches": [],
    "usb": {"mode": "sysfs polling", "watch": "polling sysfs every 1000 ms", "discovery": True, "boards": [
        {"vid": "0403", "pid": "6001", "serial": "SER123", "tty": "ttyUSB0", "device": "/dev/ttyUSB0",
         "board": "A", "discovered": False},
        {"vid": "04d8", "pid": "000a", "serial": "DISC42", "tty": "ttyACM0", "device": "/dev/ttyACM0",
         "board": "dgt-DISC42", "discovered": True},
        {"vid": "0403", "pid": "6015", "serial": "", "tty": "ttyUSB1", "device": "/dev/ttyUSB1",
         "board": None, "discovered": False}]},
}


def check_usb_lines():
    class Status(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            body = json.dumps(USB_STATUS if self.path == "/status" else {"error": "no"}).encode()
            self.send_response(200 if self.path == "/status" else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Status)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        where = f"127.0.0.1:{server.server_address[1]}"
        r = eboardctl("status", daemon=where)
        lines = r.stdout.splitlines()
        check(r.returncode == 0 and "USB boards: sysfs polling, discovery on, 3 present" in lines,
              f"status: the USB header: {r}")
        check("  0403:6001  SER123  ttyUSB0 -> A" in lines, f"status: a configured USB board: {r.stdout}")
        check("  04d8:000a  DISC42  ttyACM0 -> dgt-DISC42 (discovered)" in lines,
              f"status: a discovered USB board: {r.stdout}")
        check("  0403:6015  (no serial)  ttyUSB1 -> unassigned" in lines,
              f"status: an unassigned USB board: {r.stdout}")
        off = dict(USB_STATUS, usb={"mode": "off", "watch": "off", "discovery": False, "boards": []})
        USB_STATUS["usb"], saved = off["usb"], USB_STATUS["usb"]
        r = eboardctl("status", daemon=where)
        USB_STATUS["usb"] = saved
        check(r.returncode == 0 and "USB boards: off" in r.stdout.splitlines(), f"status: USB off: {r}")
    finally:
        server.shutdown()
        server.server_close()


with tempfile.TemporaryDirectory(prefix="eboard-cli-test-") as tmp:
    state = os.path.join(tmp, "state")
    cfg = os.path.join(tmp, "eboardd.toml")
    with open(cfg, "w") as f:
        f.write(f'state_dir = "{state}"\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n'
                '[[board]]\nid = "A"\nport = "/dev/eboard-cli-test-no-such-port"\nprotocol = "dgt"\n')
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    log = open(os.path.join(tmp, "eboardd.log"), "w+")
    listen = os.path.join(state, "eboardd.listen")

    def start_daemon():
        if os.path.exists(listen):
            os.remove(listen)
        proc = subprocess.Popen([EBOARDD, "--config", cfg], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if os.path.exists(listen):
                text = open(listen).read().strip()
                if text:
                    return proc, text
            time.sleep(0.05)
        return proc, None

    def stop_daemon(proc):
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    daemon, addr = start_daemon()
    try:
        check(addr is not None, "eboardd wrote its address")
        if addr is None:
            raise SystemExit(1)

        r = eboardctl("status", daemon=addr)
        check(r.returncode == 0 and r.stdout.startswith("eboardd") and "\nA  " in r.stdout, f"status: {r}")
        # The USB section (whatever this machine's /sys holds: the watcher's mode at least).
        check("\nUSB boards: " in r.stdout, f"status shows the USB watcher: {r.stdout}")
        r = eboardctl("status", "--json", daemon=addr)
        check(r.returncode == 0 and json.loads(r.stdout)["boards"][0]["id"] == "A", f"status --json: {r}")

        # No token: the daemon says no (1), with its reason.
        r = eboardctl("draw", "A", daemon=addr)
        check(r.returncode == 1 and "control needs the token" in r.stderr, f"draw without token: {r}")
        # Token from the environment, from a file, from the option.
        r = eboardctl("tags", "A", "--white", "Anna", "--black", "Boris", "--event", "Club", daemon=addr,
                   env_token=TOKEN)
        check(r.returncode == 0 and '[White "Anna"]' in r.stdout, f"tags: {r}")
        r = eboardctl("new-game", "A", "--fen", "r3k3/8/8/8/8/8/8/4K2R w K - 0 1", "--token-file", token_file,
                   daemon=addr)
        check(r.returncode == 0 and "game 2" in r.stdout, f"new-game --fen: {r}")
        # The daemon itself refuses a FEN no game can reach (issue 11), whoever sends it: a pawn on the
        # last rank, or text after the FEN's six fields. The game of the board stays game 2.
        for bad in ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 junk"):
            req = urllib.request.Request(f"http://{addr}/control/A/new-game", method="POST",
                                         data=json.dumps({"fen": bad}).encode(),
                                         headers={"Authorization": "Bearer " + TOKEN,
                                                  "Content-Type": "application/json"})
            try:
                answer = urllib.request.urlopen(req, timeout=15)
                check(False, f"the daemon started a game from {bad!r}: {answer.read()!r}")
            except urllib.error.HTTPError as e:
                reason = e.read().decode()
                check(e.code == 400 and ("a pawn stands on the first or last rank" in reason
                                         or "unexpected text after the move counters" in reason),
                      f"the daemon refuses {bad!r}: {e.code} {reason}")
        r = eboardctl("status", "--json", daemon=addr)
        check(json.loads(r.stdout)["boards"][0]["game"]["number"] == 2, f"still game 2: {r.stdout}")
        r = eboardctl("promotion", "A", "white", "n", "--token", TOKEN, daemon=addr)
        check(r.returncode == 0, f"promotion: {r}")
        r = eboardctl("adjourn", "A", "black", "Kd8", "--token", TOKEN, daemon=addr)
        check(r.returncode == 1 and "not on move" in r.stderr, f"adjourn by the wrong side: {r}")
        r = eboardctl("adjourn", "A", "white", "O-O", "--token", TOKEN, daemon=addr)
        check(r.returncode == 0 and "adjourned: white sealed move 1" in r.stdout and "O-O" not in r.stdout,
              f"adjourn: {r}")
        r = eboardctl("status", daemon=addr)
        check("ADJOURNED (white sealed)" in r.stdout, f"status shows the adjournment: {r.stdout}")
        pgn = urllib.request.urlopen(f"http://{addr}/boards/A.pgn", timeout=15).read().decode()
        check("[Adjourned " in pgn and "O-O" not in pgn, f"PGN while adjourned: {pgn}")
        # A restart of the daemon: the adjournment comes back from the journal.
        stop_daemon(daemon)
        daemon, addr = start_daemon()
        check(addr is not None, "eboardd restarted")
        r = eboardctl("status", daemon=addr)
        check("ADJOURNED (white sealed)" in r.stdout, f"status after a restart: {r.stdout}")
        r = eboardctl("resume", "A", "--token", TOKEN, daemon=addr)
        check(r.returncode == 0 and '"san":"O-O"' in r.stdout, f"resume: {r}")
        r = eboardctl("resign", "A", "black", "--token", TOKEN, daemon=addr)
        check(r.returncode == 0 and "1-0 (resignation)" in r.stdout, f"resign: {r}")
        r = eboardctl("resign", "A", "white", "--token", TOKEN, daemon=addr)
        check(r.returncode == 1 and "game is over" in r.stderr, f"resign again: {r}")
        # Gaps (issue 12): nothing to settle on this board, and the game is over for adopt.
        r = eboardctl("recover", "A", "1", "--token", TOKEN, daemon=addr)
        check(r.returncode == 1 and "no gap is waiting" in r.stderr, f"recover without a gap: {r}")
        r = eboardctl("recover", "A", "--moves", "e4 e5", "--token", TOKEN, daemon=addr)
        check(r.returncode == 1 and "no gap is waiting" in r.stderr, f"recover --moves without a gap: {r}")
        for usage in (["recover", "A"], ["recover", "A", "0"], ["recover", "A", "1", "--moves", "e4"],
                      ["adopt", "A", "--side", "purple"]):
            r = eboardctl(*usage, "--token", TOKEN, daemon=addr)
            check(r.returncode == 2 and r.stderr.count("\n") == 1, f"{usage}: a one-line usage error: {r}")
        r = eboardctl("adopt", "A", "--token", TOKEN, daemon=addr)
        check(r.returncode == 1 and "game is over" in r.stderr, f"adopt after the end: {r}")
        for body in ({"candidate": 1, "moves": "e4"}, {}, {"candidate": "x"}, {"moves": "12"}):
            req = urllib.request.Request(f"http://{addr}/control/A/recover", method="POST",
                                         data=json.dumps(body).encode(),
                                         headers={"Authorization": "Bearer " + TOKEN,
                                                  "Content-Type": "application/json"})
            try:
                urllib.request.urlopen(req, timeout=15)
                check(False, f"recover {body} was accepted")
            except urllib.error.HTTPError as e:
                check(e.code == 400, f"recover {body}: {e.code} {e.read()!r}")
        r = eboardctl("status", "--json", daemon=addr)
        check(json.loads(r.stdout)["boards"][0]["control"]["missed_gap"] is None, f"no missed gap: {r.stdout}")
        r = eboardctl("recover", "--help")
        check(r.returncode == 0 and "--moves" in r.stdout and "candidate" in r.stdout, f"recover --help: {r}")
        r = eboardctl("ack", "A", "7", "--token", TOKEN, daemon=addr)
        check(r.returncode == 1 and "no alert 7" in r.stderr, f"ack of no alert: {r}")
        r = eboardctl("draw", "Z", "--token", TOKEN, daemon=addr)
        check(r.returncode == 1 and "no board 'Z'" in r.stderr, f"unknown board: {r}")

        r = eboardctl("port", "add", "C", "/dev/eboard-cli-test-other", "--token", TOKEN, daemon=addr)
        check(r.returncode == 0 and "board C added" in r.stdout, f"port add: {r}")
        r = eboardctl("status", "--json", daemon=addr)
        check([b["id"] for b in json.loads(r.stdout)["boards"]] == ["A", "C"], f"status after port add: {r}")
        r = eboardctl("port", "remove", "C", "--token", TOKEN, daemon=addr)
        check(r.returncode == 0 and "board C removed" in r.stdout, f"port remove: {r}")
        r = eboardctl("port", "remove", "C", "--token", TOKEN, daemon=addr)
        check(r.returncode == 1, f"port remove again: {r}")

        # Usage (2) and no daemon (3).
        check(eboardctl("resign", "A", "purple", daemon=addr).returncode == 2, "bad side: usage")
        check(eboardctl("promotion", "A", "white", daemon=addr).returncode == 2, "missing piece: usage")
        r = eboardctl("status", daemon="127.0.0.1:1")
        check(r.returncode == 3 and "cannot reach eboardd" in r.stderr, f"no daemon: {r}")
        r = eboardctl("resume", "--help")
        check(r.returncode == 0 and "--daemon" in r.stdout and "EBOARD_TOKEN" in r.stdout, "resume --help")

        # The USB lines, from a /status with USB boards in it (a stand-in daemon: no real USB here).
        check_usb_lines()
    finally:
        stop_daemon(daemon)
        if failures:
            log.seek(0)
            print("--- eboardd log ---\n" + log.read())
        log.close()

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
