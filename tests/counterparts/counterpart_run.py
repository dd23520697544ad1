# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""What the two counterpart tests share: starting a counterpart emulator and eboardd on it as a user configures
it, waiting for the games, and comparing each board's PGN with the game its hands played, move by move.

The tests drive eboardd only through what a user has: its configuration file, /games.pgn and /ws (the
process helpers of tests/daemon_process/eboardctl_proc.py start it and read those).
"""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "daemon_process"))
import eboardctl_proc as ep  # noqa: E402


class ConfiguredDaemon(ep.Daemon):
    """eboardd with a configuration body of the test's own (after state_dir and [http])."""

    def __init__(self, h, exe, body, first_board):
        super().__init__(h, exe, "/dev/null", board=first_board)
        with open(self.config, "w") as f:
            f.write(f'state_dir = "{self.state}"\n\n[http]\nlisten = "127.0.0.1:0"\n\n{body}')

    def games(self):
        """Board id → the moves of its current game in /games.pgn (SAN without +#)."""
        return {g["tags"].get("Board"): g["moves"] for g in ep.parse_pgn(self.get("/games.pgn")[1])}


def start_emulator(h, label, args, lines):
    """Runs a counterpart script (python3 args...), returns (process, the first `lines` lines it printed)."""
    log = h.log_path(label)
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=open(log, "ab"), cwd=HERE)
    h.procs.append(proc)
    out = []
    for _ in range(lines):
        line = proc.stdout.readline().decode().strip()
        if not line:
            h.fail(f"{label} printed no device path (exit {proc.poll()}); its log: "
                   f"{open(log, errors='replace').read()[-2000:]}")
        out.append(line)
    return proc, out


class HandsAtABoard:
    """A DGT board and DGT 3000 written from DGT's description (dgt3000_board.py), whose hands are lines
    appended to a file as they are played, and eboardd configured on it as board A with a control token and
    `extra` configuration: what the arbiter's tests of gaps on that board share."""

    def __init__(self, h, eboardd, eboardctl, token, extra=""):
        self.eboardctl, self.token = eboardctl, token
        self.hands = os.path.join(h.dir, "hands.txt")
        open(self.hands, "w").close()
        _, (device,) = start_emulator(h, "dgt3000", [
            "dgt3000_board.py", "--link", os.path.join(h.dir, "dgt"), "--status", os.path.join(h.dir, "clock.json"),
            "--commands", self.hands], 1)
        body = f'token = "{token}"\n\n[[board]]\nid = "A"\nport = "{device}"\nprotocol = "dgt"\n\n{extra}'
        self.d = ConfiguredDaemon(h, eboardd, body, "A").start()
        ep.wait_until(lambda: self.d.board_status()["control"]["clock"].get("settable"), 30,
                      "board A online, its clock settable")

    def start_clock(self, h):
        """The arbiter sets 5:00 a side, no increment, and starts it on White's side (the left)."""
        from web_page_test import request  # (tests/daemon_process, on sys.path above)
        code, text, _ = request(self.d.port, "POST", "/control/A/clock", token=self.token,
                                body={"left": "5:00", "right": "5:00", "run": "left"})
        h.check(code == 200, f"the clock started ({code} {text})")
        ep.wait_until(lambda: self.d.board_status()["control"]["clock"].get("white_side") == "left", 15,
                      "White's side known")

    def same_game_replayed(self, h, played):
        """The game the arbiter settled is game 1 and `played`, live and after a kill -9 and a restart that
        replays the journal (never read as a new game); then eboardd stops on SIGTERM."""
        h.check(self.d.board_status()["game"]["number"] == 1, "/status: the settled game is numbered other than 1")
        self.d.kill9()
        self.d.start()
        ep.wait_until(lambda: self.sans() == played, 15, "the settled game replayed from the journal")
        h.check(self.d.board_status()["game"]["number"] == 1,
                "/status after a restart: the settled game is numbered other than 1")
        h.check("game 2 began" not in self.d.log_text(), "eboardd read the settled gap as a new game")
        rc = self.d.stop()
        h.check(rc == 0, f"SIGTERM: exit {rc}")

    def hand(self, *lines):
        """`lift e2`, `place e4 P`, `press`: done as the emulated hands read them."""
        with open(self.hands, "a") as f:
            f.write("".join(line + "\n" for line in lines))

    def sans(self):
        """The moves of board A's game in /games.pgn (SAN without +#)."""
        g = self.d.game()
        return [ep.strip_san(m) for m in g["moves"]] if g else []

    def ctl(self, *args):
        """eboardctl with the daemon's address and the control token, its output printed."""
        r = subprocess.run([self.eboardctl, *args, "--daemon", f"127.0.0.1:{self.d.port}", "--token", self.token],
                           capture_output=True, text=True, timeout=30)
        print(f"$ eboardctl {' '.join(args)}  -> exit {r.returncode}\n{r.stdout}{r.stderr}", flush=True)
        return r

    def correct_gap(self, h, ws, box, words, moves, played, shot, again):
        """The arbiter gives the gap's moves as played (`moves`): typed in the field of the page's box (class
        `box`, whose words are `words`; correct_on_the_page), or with `eboardctl recover A --moves` where
        Chromium is not installed (outside CI). Then /games.pgn is `played`, the gap has left /status (the
        key named as the box), and the move `again` (ply, SAN) has gone out again on /ws, recovered."""
        chromium, failed = ep.browser_or_skip()
        if chromium:
            self.correct_on_the_page(h, chromium, box, words, moves, played, shot)
        else:
            h.check(not failed, "chromium is not installed (CI installs it)")
            r = self.ctl("recover", "A", "--moves", " ".join(moves))
            h.check(r.returncode == 0, f"eboardctl recover --moves with the moves played failed: {r.stderr}")
            # The answer means the effect is visible: no waiting.
            h.check(self.sans() == played, f"/games.pgn after the correction: {self.sans()}")
        h.check(self.d.board_status()["control"].get(box.replace("-", "_")) is None, "/status: the gap is still open")
        # (/ws is a feed of its own: its events may reach this client a moment after the answer.)
        def again_told():
            told = [e for e in ws.snapshot() if e.get("type") == "move" and e.get("ply", 0) >= 3]
            return any((e["ply"], ep.strip_san(e["san"])) == again and e.get("recovered") for e in told) or None

        try:
            ep.wait_until(again_told, 15, f"{again[1]} again at ply {again[0]} on /ws")
        except ep.TestFailure:
            told = [(e["ply"], e["san"]) for e in ws.snapshot() if e.get("type") == "move"]
            h.check(False, f"{again[1]} did not go out again at ply {again[0]}: {told}")

    def correct_on_the_page(self, h, chromium, box, words, moves, played, shot):
        """The arbiter's page in headless Chromium, signed in on board A: the gap's box (class `box`) says each
        of `words`, and `moves` (the gap's moves played) typed in its field are taken: /games.pgn becomes
        `played` and the box goes. A screenshot of the box is kept as `shot` (.png)."""
        from web_page_test import open_signed_in, start_chromium, stop_chromium, wait_js
        browser, cdp = start_chromium(h, chromium)
        try:
            open_signed_in(h, cdp, self.d.port, self.token, "#board/A")
            said = wait_js(h, cdp, f"(() => {{ const p = document.querySelector('#board-view .{box} p');"
                                   " return p ? p.textContent : null; })()", 15, f"the page's {box} box")
            h.check(all(w in said for w in words), f"the page's words on the gap: {said!r}, not all of {words}")
            path = os.path.join(ep.screenshot_dir(), shot)
            cdp.screenshot(path)
            print("screenshot:", path)
            cdp.js("window.confirm = () => true")
            cdp.js(f"""(() => {{ const f = document.querySelector('#board-view .{box} input.gap-moves');
                f.value = {json.dumps(" ".join(moves))}; f.form.requestSubmit(); }})()""")
            ep.wait_until(lambda: self.sans() == played, 15, "the page's correction in /games.pgn")
            wait_js(h, cdp, f"!document.querySelector('#board-view .{box}')", 15, "the page's box gone")
            ep.check_page_threw_nothing(h, cdp)
        finally:
            stop_chromium(browser)

    def play_while_down(self, moves):
        """eboardd killed (kill -9) while `moves` (as play's) are played and pressed, then started again on
        the same state directory."""
        self.d.kill9()
        self.play(moves, published=False)
        time.sleep(1.0)
        self.d.start()

    def play(self, moves, published=True):
        """Each move (lifts, then the place) set down and pressed at a hand's pace; with `published`, each
        waited for in /games.pgn."""
        for lifts, place in moves:
            n = len(self.sans()) + 1 if published else 0
            time.sleep(0.6)
            self.hand(*[f"lift {sq}" for sq in lifts], f"place {place}")
            time.sleep(0.6)
            self.hand("press")
            if published:
                ep.wait_until(lambda: len(self.sans()) >= n, 15, f"ply {n} in /games.pgn")


def main_of(doc, name, run):
    """A test's main: its usage (`doc`) without eboardd and eboardctl on the command line, else
    run(h, eboardd, eboardctl) in a harness named `name`; the exit code."""
    if len(sys.argv) < 3:
        print(doc)
        return 2
    with ep.Harness(name) as h:
        try:
            run(h, sys.argv[1], sys.argv[2])
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def read_status(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def first_difference(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return i
    return None if len(got) == len(want) else min(len(got), len(want))


def move_label(i, moves):
    return f"{i // 2 + 1}.{'' if i % 2 == 0 else '..'} {moves[i]}" if i < len(moves) else "(nothing)"


def follow(h, d, ws, status_path, ids, timeout, grace):
    """Waits until every board has played its game (the emulator's status) and then until the daemon's PGN
    holds every game or `grace` seconds have passed. Returns (the last emulator status, the daemon's games)."""
    deadline = time.time() + timeout
    finished_at = None
    status, games = None, {}
    while time.time() < deadline:
        time.sleep(1.0)
        status = read_status(status_path) or status
        if not status:
            continue
        try:
            games = d.games()
        except OSError:
            continue
        boards = status["boards"]
        if all(b["finished"] for b in boards):
            finished_at = finished_at or time.time()
            if all(games.get(ids[i], []) == b["san"] for i, b in enumerate(boards)):
                break
            if time.time() - finished_at > grace:
                break
    return status, games


def report(h, status, games, ids, events, describe, links_excused=lambda b: False):
    """Prints one line per board (exact, or the first differing move and what the daemon has instead) and the
    alerts and link events /ws carried; records a failure for every board not exact and every alert."""
    exact = 0
    for i, b in enumerate(status["boards"]):
        bid = ids[i]
        want, got = b["san"], games.get(bid, [])
        alerts = [e for e in events if e.get("board") == bid and e.get("type") == "alert"]
        links = [e for e in events if e.get("board") == bid and e.get("type") == "link"]
        diff = first_difference(got, want)
        head = f"{bid} ({describe(b)}, game {b['game']}, {len(want)} plies)"
        if diff is None:
            exact += 1
            line = f"{head}: exact"
        else:
            line = (f"{head}: FIRST DIFFERENCE at ply {diff + 1}: played {move_label(diff, want)}, the daemon's PGN "
                    f"has {move_label(diff, got)}; it holds {len(got)} plies")
        if alerts:
            codes = {}
            for e in alerts:
                codes[e.get("code")] = codes.get(e.get("code"), 0) + 1
            first = alerts[0]
            line += (f"; alerts {codes} (first: {first.get('code')} at ply {first.get('ply')}: "
                     f"{str(first.get('detail'))[:160]})")
        if links:
            line += f"; link events {[e.get('state') for e in links]}"
        print(line, flush=True)
        h.check(diff is None, f"{bid}: the game is not exact")
        h.check(not alerts, f"{bid}: {len(alerts)} alerts in a clean game")
        h.check(not links or links_excused(b), f"{bid}: link events on a board that never went away")
    print(f"{exact} of {len(status['boards'])} games exact", flush=True)
    return exact
