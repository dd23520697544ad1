# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Shared helpers for the tests that run the real eboardd binary as a process (issue 6).

What is here: reading the PGN corpus, launching `eboardctl sim` (a DGT board and clock on a pseudo-terminal) and
`eboardd --config` on it (or, subclassing Daemon.command, `eboardd --demo`), reading board journals, HTTP GET, a minimal WebSocket client (stdlib only), and a Harness that keeps every
process and log of a test, kills whatever it started, and prints the logs when the test fails.

Time: `eboardctl sim --speed R` runs the hands and the clock R times faster than real time; eboardd's hidden
test options `--clock-rate R --clock-origin MS` run its clock at the same rate (reconstruction's thresholds
are in clock milliseconds), from a fixed origin so that the clock is continuous across restarts.
"""
import argparse
import base64
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

SKIP = 77


def arg_parser(game, speed):
    """The arguments every sim-against-daemon test takes: the binaries, ../shared, which corpus game, how fast."""
    ap = argparse.ArgumentParser()
    ap.add_argument("eboardd")
    ap.add_argument("eboardctl")
    ap.add_argument("shared")
    ap.add_argument("--game", type=int, default=game)
    ap.add_argument("--speed", type=float, default=speed, help="sim and daemon clocks, times real time")
    ap.add_argument("--style", default="tidy", help="the simulated hands' style")
    return ap


def corpus_file(shared):
    """The blitz corpus with [%clk] comments, or exit 77 (skipped) without /work/shared."""
    path = os.path.join(shared, "corpora", "pgn", "standard",
                        "shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn")
    if not os.path.isfile(path):
        print(f"skipped: {path} is absent")
        sys.exit(SKIP)
    return path


def strip_san(m):
    return re.sub(r"[+#!?]+$", "", m)


def parse_pgn(text):
    """Games of a PGN text: [{"tags": {...}, "moves": [SAN without +#], "clk": number of [%clk] comments}]."""
    games = []
    for chunk in re.split(r"\n(?=\[Event )", text.strip()):
        if not chunk.strip():
            continue
        tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', chunk, re.M))
        body = "\n".join(line for line in chunk.splitlines() if not line.startswith("["))
        clk = len(re.findall(r"\[%clk \d+:\d\d:\d\d(?:\.\d+)?\]", body))
        body = re.sub(r"\{[^}]*\}", " ", body)
        body = re.sub(r"\([^)]*\)", " ", body)
        moves = [t for t in body.split() if not re.fullmatch(r"\d+\.+|\*|1-0|0-1|1/2-1/2|\$\d+", t)]
        games.append({"tags": tags, "moves": [strip_san(m) for m in moves], "clk": clk})
    return games


PGN_EXTRACT = "/usr/games/pgn-extract"


def read_by_pgn_extract(h, text, where):
    """The games of the PGN `text` as Debian's pgn-extract replays them (parse_pgn of what it writes back: it
    writes only moves it found legal, from each game's FEN where it has one), or None where it is not
    installed (CI installs it: .ci/deps; there its absence is a failure). A complaint on its stderr or an exit
    other than 0 is a failure, and so is a game it lost or a move it did not replay."""
    if not os.path.exists(PGN_EXTRACT):
        h.check(not os.environ.get("CI"), "pgn-extract is not installed (CI installs it: .ci/deps)")
        print(f"SKIP: {where} not read by pgn-extract (apt install pgn-extract)", flush=True)
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".pgn", dir=h.dir, delete=False) as f:
        f.write(text)
    out = subprocess.run([PGN_EXTRACT, "-s", "--nocomments", f.name], capture_output=True, text=True, timeout=60)
    h.check(out.returncode == 0 and out.stderr.strip() == "",
            f"pgn-extract on {where}: exit {out.returncode}, {out.stderr[-2000:]}")
    ours, theirs = parse_pgn(text), parse_pgn(out.stdout)
    differ = [(t["moves"], o["moves"]) for t, o in zip(theirs, ours) if t["moves"] != o["moves"]]
    h.check(len(theirs) == len(ours) and not differ,
            f"pgn-extract replayed {len(theirs)} of {where}'s {len(ours)} games; of those, otherwise than they read: "
            f"{differ[:1]} (its moves, then ours)")
    return theirs


@functools.lru_cache(maxsize=4)
def corpus_games(path):
    """The games of a PGN file, read once."""
    return parse_pgn(open(path, encoding="utf-8", errors="replace").read())


def corpus_game(path, number):
    """Game `number` (from 1) of a PGN file, as eboardctl sim --game counts them."""
    return corpus_games(path)[number - 1]


def http_get(port, path, timeout=15):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
        return r.status, r.read().decode()


class TestFailure(Exception):
    pass


class Harness:
    """One test's temporary directory, processes and logs. Use as a context manager: on any exception or
    recorded failure it prints the tail of every log; it always kills what it started."""

    def __init__(self, name):
        self.name = name
        self.dir = tempfile.mkdtemp(prefix=f"eboard-{name}-")
        self.procs = []
        self.logs = []  # (label, path)
        self.failures = []
        self.t0 = time.time()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if exc_type is not None and not issubclass(exc_type, SystemExit):
            self.failures.append(f"{exc_type.__name__}: {exc}")
        if self.failures:
            self.dump_logs()
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def elapsed(self):
        return time.time() - self.t0

    def log_path(self, label):
        path = os.path.join(self.dir, label + ".log")
        self.logs.append((label, path))
        return path

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)
            print("FAIL:", what, flush=True)
        return cond

    def fail(self, what):
        raise TestFailure(what)

    def dump_logs(self, tail=8000, notable=120):
        """Every log's warnings, alerts and starts from the beginning (where things first went wrong, which a
        long log's tail has lost), then its tail."""
        for label, path in self.logs:
            try:
                text = open(path, errors="replace").read()
            except OSError:
                continue
            lines = [l for l in text.splitlines()
                     if re.search(r"^====|warn|error|critical|alert|game \d+ began|recovered", l)]
            if len(text) > tail and lines:
                print(f"---- {label} ({path}): first {notable} notable lines ----")
                print("\n".join(l[:600] for l in lines[:notable]))
            print(f"---- {label} ({path}), last {tail} characters ----")
            print(text[-tail:])
        print(f"(kept {self.dir})")

    def exit_code(self):
        print(f"{self.name}: {'FAILED' if self.failures else 'passed'} in {self.elapsed():.1f} s", flush=True)
        return 1 if self.failures else 0


class Sim:
    """`eboardctl sim`: plays a game of a PGN file on a pty, behind a symlink that survives --reopen-at."""

    def __init__(self, h, eboardctl, pgn, game, speed, style="tidy", seed=1, extra=(), link_name="dgt",
                 linger=600):
        """`linger`: seconds of game time the board stays after its game (real time: linger / speed)."""
        self.link = os.path.join(h.dir, link_name)
        self.log = h.log_path("sim")
        args = [eboardctl, "sim", "--pgn", pgn, "--game", str(game), "--style", style, "--timing", "style",
                "--seed", str(seed), "--speed", str(speed), "--link", self.link, "--linger", str(linger), *extra]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(self.log, "ab"))
        h.procs.append(self.proc)
        line = self.proc.stdout.readline().decode().strip()
        if not line:
            h.fail(f"eboardctl sim printed no device path (exit {self.proc.poll()})")
        self.device = line

    def finished(self):
        """True once the sim has played the whole game (its log says so)."""
        return "the end of the script" in open(self.log, errors="replace").read()

    def length_s(self):
        """The game length the sim announces on stderr (game time), or None."""
        m = re.search(r"game length ([\d.]+) s", open(self.log, errors="replace").read())
        return float(m.group(1)) if m else None


class Daemon:
    """`eboardd --config` on one DGT board, on a state_dir that survives restarts (kill -9 and start again)."""

    def __init__(self, h, exe, device, board="A", clock_rate=1.0, clock_origin_ms=None, protocol="dgt",
                 more_boards="", token=None):
        """`more_boards`: [[board]] tables written after board A's (other boards of the same daemon); `token`:
        [http] token, the control token (none: control disabled)."""
        self.h = h
        self.exe = exe
        self.board = board
        self.state = os.path.join(h.dir, "state")
        os.makedirs(self.state, exist_ok=True)
        self.config = os.path.join(h.dir, "eboardd.toml")
        with open(self.config, "w") as f:
            f.write(f'state_dir = "{self.state}"\n\n[http]\nlisten = "127.0.0.1:0"\n'
                    + (f'token = "{token}"\n' if token else "")
                    + f'\n[[board]]\nid = "{board}"\nport = "{device}"\nprotocol = "{protocol}"\n{more_boards}')
        self.clock_rate = clock_rate
        self.clock_origin_ms = clock_origin_ms if clock_origin_ms is not None else int(time.time() * 1000)
        self.log = h.log_path("eboardd")
        self.proc = None
        self.port = None
        self.starts = 0

    def start(self, timeout=15):
        """Starts eboardd (on the port of the previous run, if any) and waits for its port file."""
        listen_file = os.path.join(self.state, "eboardd.listen")
        if os.path.exists(listen_file):
            os.remove(listen_file)
        args = self.command(f"127.0.0.1:{self.port or 0}")
        log = open(self.log, "ab")
        log.write(f"==== start {self.starts + 1}: {' '.join(args)}\n".encode())
        log.flush()
        self.proc = subprocess.Popen(args, stdout=log, stderr=log)
        self.h.procs.append(self.proc)
        self.starts += 1
        deadline = time.time() + timeout
        while time.time() < deadline and self.proc.poll() is None:
            if os.path.exists(listen_file):
                text = open(listen_file).read().strip()
                if text:
                    self.port = int(text.rsplit(":", 1)[1])
                    return self
            time.sleep(0.02)
        self.h.fail(f"eboardd did not start (exit {self.proc.poll()})")

    def command(self, listen):
        args = [self.exe, "--config", self.config, "--listen", listen]
        if self.clock_rate != 1.0:
            args += ["--clock-rate", str(self.clock_rate), "--clock-origin", str(self.clock_origin_ms)]
        return args

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        """SIGTERM; returns the exit status."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def get(self, path):
        return http_get(self.port, path)

    def status(self):
        return json.loads(self.get("/status")[1])

    def board_status(self):
        for b in self.status()["boards"]:
            if b["id"] == self.board:
                return b
        return None

    def game(self):
        """This board's game in /games.pgn."""
        for g in parse_pgn(self.get("/games.pgn")[1]):
            if g["tags"].get("Board") == self.board:
                return g
        return None

    def log_text(self):
        return open(self.log, errors="replace").read()


def client_frame(opcode, payload):
    """One final, masked frame from a client (RFC 6455 5.2), any payload length."""
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class WebSocket:
    """A minimal RFC 6455 client for /ws (or another path: the LiveChess API's): the handshake, then a thread
    that reads the server's (unmasked) frames. Text frames are parsed as JSON events into `events`; a ping
    gets its pong; send_text() talks to the server."""

    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, port, path="/ws", timeout=15, headers=""):
        """`headers`: more request header lines, each ending in CRLF (an Authorization: Bearer …, the Origin
        a browser sends)."""
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           f"Sec-WebSocket-Version: 13\r\n{headers}\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise TestFailure(f"/ws: connection closed during the handshake: {head!r}")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        lines = head.decode(errors="replace").split("\r\n")
        if not lines[0].startswith("HTTP/1.1 101"):
            raise TestFailure(f"/ws: handshake refused: {lines[0]}")
        fields = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
        accept = base64.b64encode(hashlib.sha1((key + self.GUID).encode()).digest()).decode()
        if fields.get("sec-websocket-accept") != accept:
            raise TestFailure(f"/ws: wrong Sec-WebSocket-Accept {fields.get('sec-websocket-accept')}")
        self.events = []
        self.arrivals = []  # time.time() when each event arrived
        self.errors = []
        self.closed = False
        self.lock = threading.Lock()
        self.sock.settimeout(None)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send(self, opcode, payload=b""):
        self.sock.sendall(client_frame(opcode, payload))

    def send_text(self, text):
        self._send(0x1, text.encode())

    def _run(self):
        message = b""
        try:
            while True:
                b0, b1 = self._read(2)
                opcode, n = b0 & 0x0F, b1 & 0x7F
                if b1 & 0x80:
                    self.errors.append("a masked frame from the server")
                if n == 126:
                    n = struct.unpack(">H", self._read(2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", self._read(8))[0]
                payload = self._read(n)
                if opcode == 0x9:
                    self._send(0xA, payload)
                elif opcode == 0x8:
                    break
                elif opcode in (0x1, 0x0):
                    message += payload
                    if b0 & 0x80:
                        for line in message.decode().splitlines():
                            if line.strip():
                                try:
                                    e = json.loads(line)
                                except ValueError:
                                    self.errors.append(f"not JSON: {line!r}")
                                    continue
                                with self.lock:
                                    self.events.append(e)
                                    self.arrivals.append(time.time())
                        message = b""
                elif opcode == 0x2:
                    self.errors.append("a binary frame")
        except (EOFError, OSError):
            pass
        self.closed = True

    def snapshot(self):
        with self.lock:
            return list(self.events)

    def moves(self):
        return [e for e in self.snapshot() if e.get("type") == "move"]

    def settled(self, quiet=0.3, timeout=10):
        """The events once some have come and none for `quiet` seconds (a snapshot sent whole on connect,
        however loaded the machine), or whatever came within `timeout`."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                last = self.arrivals[-1] if self.arrivals else None
            if last is not None and time.time() - last >= quiet:
                break
            time.sleep(0.05)
        return self.snapshot()

    def close(self):
        try:
            self._send(0x8, struct.pack(">H", 1000))
        except OSError:
            pass
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(timeout=2)


def journal_records(path, with_offsets=False):
    """(type, body bytes) of every whole record of a board journal, in order; best effort (the format is the
    daemon's own, see daemon/journal/journal_file.hpp). Version 2 ("eboardJ2"): sync marker, length, crc32,
    16-byte link, type, body; version 1 ("eboardJ1"): length, crc32, type, body. With `with_offsets`,
    (offset, end, type, body)."""
    data = open(path, "rb").read()
    v2 = data[:8] == b"eboardJ2"
    head, link = (12, 16) if v2 else (8, 0)
    out, i = [], 8
    while i + head + link + 1 <= len(data):
        if v2 and data[i:i + 4] != b"\xe5JR\x1e":
            break
        n = struct.unpack("<I", data[i + head - 8:i + head - 4])[0]
        body = data[i + head:i + head + n]
        start, i = i, i + head + n
        if len(body) < n or len(body) <= link:
            break
        kind, payload = body[link:link + 1].decode(errors="replace"), body[link + 1:]
        out.append((start, i, kind, payload) if with_offsets else (kind, payload))
    return out


def journal_sensor_events(path):
    """The sensor records ('S') of a board journal, as dicts, in order."""
    out = []
    for kind, body in journal_records(path):
        if kind == "S":
            try:
                out.append(json.loads(body.decode()))
            except ValueError:
                pass
    return out


def presses_across_connects(journal):
    """For each (re)connect after the first: whether the clock's lever moved while nobody read the board
    (the last reading before the connect and the first after it disagree). [(connect number from 2, before,
    after)]."""
    out, connects, last_up, pending = [], 0, None, False
    for e in journal_sensor_events(journal):
        if e.get("link") is True:
            connects += 1
            pending = connects > 1
        elif "clock" in e:
            up = e["clock"].get("up")
            if pending:
                out.append((connects, last_up, up))
                pending = False
            last_up = up
    return out


def start_demo(h, exe, config_body, corpus, speed=3, extra=(), label="eboardd", timeout=20):
    """Starts `eboardd --config FILE --demo` on `corpus`, FILE being state_dir (in the harness's folder) and
    then `config_body`; returns (process, HTTP port) once it listens. The harness stops it."""
    state = os.path.join(h.dir, "state")
    config = os.path.join(h.dir, f"{label}.toml")
    with open(config, "w") as f:
        f.write(f'state_dir = "{state}"\n\n' + config_body)
    log = open(h.log_path(label), "ab")
    proc = subprocess.Popen([exe, "--config", config, "--demo", "--demo-corpus", corpus, "--demo-speed", str(speed),
                             *extra], stdout=log, stderr=subprocess.STDOUT)
    h.procs.append(proc)
    listen_file = os.path.join(state, "eboardd.listen")

    def listening():
        if proc.poll() is not None:
            raise TestFailure(f"eboardd exited with {proc.returncode} before it listened")
        return os.path.exists(listen_file) and open(listen_file).read().strip()

    address = wait_until(listening, timeout, "eboardd listening")
    return proc, int(address.rsplit(":", 1)[1])


def browser_or_skip():
    """Chromium for the page tests, or the exit code to end the test with: skipped without it, but failed
    under CI (which installs it: .ci/deps)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:
        return chromium, None
    if os.environ.get("CI"):
        print("FAIL: chromium is not installed (CI installs it: .ci/deps)")
        return None, 1
    print("SKIP: chromium is not installed (apt install chromium)")
    return None, SKIP


def page_test_start(doc):
    """How a page test on the bughouse demo begins: (eboardd, eboardctl, shared, chromium, screenshots
    folder) from its arguments EBOARDD EBOARDCTL SHARED_DIR, or the exit code to end it with (2: usage;
    skipped without Chromium, failed without it under CI; skipped without the bughouse corpus)."""
    if len(sys.argv) < 4:
        print(doc)
        return 2
    eboardd, eboardctl, shared = sys.argv[1:4]
    chromium, exit_code = browser_or_skip()
    if not chromium:
        return exit_code
    if not os.path.isdir(os.path.join(shared, "corpora", "bughouse")):
        print(f"SKIP: no bughouse corpus in {shared}")
        return SKIP
    return eboardd, eboardctl, shared, chromium, screenshot_dir()


def screenshot_dir():
    """Where the page tests leave their screenshots: kept after the run (the harness's folder goes when the
    test passes), one place per user that each run overwrites; EBOARD_WEB_SCREENSHOTS chooses another."""
    shots = os.environ.get("EBOARD_WEB_SCREENSHOTS") or os.path.join(tempfile.gettempdir(),
                                                                       f"eboard-web-screens-{os.getuid()}")
    os.makedirs(shots, exist_ok=True)
    return shots


def wait_until(pred, timeout, what, interval=0.05):
    """Polls pred() until it returns a true value (returned) or the deadline passes (TestFailure)."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = pred()
        if last:
            return last
        time.sleep(interval)
    raise TestFailure(f"timed out after {timeout:.0f} s waiting for {what}")


def check_final_game(h, d, expected):
    """After the game: /games.pgn holds exactly the expected moves, each with its [%clk] comment."""
    final = d.game()
    h.check(final["moves"] == expected, f"final /games.pgn moves differ from the corpus game:\n  "
                                        f"{final['moves']}\n  {expected}")
    h.check(final["clk"] == len(expected), f"/games.pgn has {final['clk']} [%clk] comments for "
                                           f"{len(expected)} moves")
    return final


def check_ws_moves(h, moves, expected, where):
    """`moves` (move events of one connection, in order) are plies 1..n of `expected` (SAN list): uci, san
    and ply present, consecutive, no duplicate."""
    plies = [m.get("ply") for m in moves]
    h.check(plies == list(range(1, len(moves) + 1)), f"{where}: move plies not 1..n in order: {plies}")
    sans = [strip_san(m.get("san", "")) for m in moves]
    h.check(sans == expected[:len(sans)], f"{where}: move SANs {sans} are not the corpus game's first "
                                          f"{len(sans)}: {expected[:len(sans)]}")
    for m in moves:
        if not (isinstance(m.get("uci"), str) and re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", m["uci"])):
            h.check(False, f"{where}: move without a UCI move: {m}")
            break


class LichessStandIn:
    """lichess' broadcast push API as far as the daemon's push needs it (POST /api/broadcast/round/<id>/push):
    answers every push 200 with the games it read (their tags and move counts) and keeps (path, body) and the
    time it came."""

    def __init__(self):
        self.pushes = []  # (path, body)
        self.times = []  # time.time() of each push, in the same order
        self.lock = threading.Lock()
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                answer = json.dumps({"games": [{"tags": g["tags"], "moves": len(g["moves"])}
                                               for g in parse_pgn(body)]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                with standin.lock:
                    standin.pushes.append((self.path, body))
                    standin.times.append(time.time())

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies_to(self, round_id):
        """The bodies pushed to lichess round `round_id`, in order."""
        with self.lock:
            return [b for p, b in self.pushes if p == f"/api/broadcast/round/{round_id}/push"]

    def taken(self):
        """Every push so far as (time, body)."""
        with self.lock:
            return [(t, b) for t, (_, b) in zip(self.times, self.pushes)]

    def last(self):
        """The last push: (path, body), or (None, "") before any."""
        with self.lock:
            return self.pushes[-1] if self.pushes else (None, "")

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def check_page_threw_nothing(h, cdp):
    """Records a failure naming every exception the page threw (Chrome DevTools' Runtime.exceptionThrown)."""
    thrown = [e["params"]["exceptionDetails"] for e in cdp.events if e.get("method") == "Runtime.exceptionThrown"]
    h.check(not thrown, f"the page threw: {[t.get('exception', {}).get('description', t.get('text')) for t in thrown]}")
