# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A hall over MQTT (issue 16), all real processes: a Mosquitto broker on loopback (its own configuration,
password file and ACL, a free port), three eboardd hosts each playing two emulated boards (`eboardd --demo`
on a PGN corpus, with a [mqtt] configuration), one aggregator, and a second, untrusted aggregator that serves
the hall as the public sees it: behind a broadcast delay of DELAY_S, with the LiveChess API and the lichess
push (to a local stand-in for lichess).

Mid-game a host is cut off the broker for a full minute (a relay that drops its connections and refuses new
ones, while its boards play on); meanwhile another host is killed with kill -9 and restarted and the broker
is restarted. Then the aggregator is killed with kill -9 and restarted. Then:
- every game of every host comes out exactly (moves, in order) in the aggregator's /boards/<host>:<id>.pgn
  and /games.pgn;
- the aggregator's /ws, watched from the start and again after its restart, carries each remote board's events with strictly
  increasing ids and no ply twice or missing within a game (nothing lost, nothing doubled);
- a command through the aggregator (tags on a remote board) reaches the host and its answer comes back;
  the same command from the untrusted aggregator is refused by the host (403) and changes nothing;
- the second aggregator's delayed /games.pgn, public /ws and lichess pushes hold every remote board and never
  a move younger than the delay (the moves' times from its live /ws), and catch up with the live games; its
  LiveChess API lists every remote board and feeds one board's moves;
- the aggregator's operator page (headless Chromium, when installed) shows every remote board's card with
  the position of /status, drawn, and follows a board's moves live.

Usage: mqtt_hall_test.py EBOARDD CORPUS_DIR. Skipped (77) without mosquitto, mosquitto_passwd or the corpus.
"""
import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from eboardctl_proc import (SKIP, Harness, LichessStandIn, TestFailure, WebSocket, browser_or_skip,  # noqa: E402
                            http_get, parse_pgn, strip_san, wait_until)

TOKEN = "hall-test-token-1"
HOSTS = ["h1", "h2", "h3"]
BOARDS = ["A", "B"]
CUT_OFF_S = 60  # the minute
DELAY_S = 3


def find_mosquitto(need_passwd=True):
    """The mosquitto program (Debian puts it in /usr/sbin), or None; None too without mosquitto_passwd when
    the test writes a password file."""
    exe = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)
    if need_passwd and not shutil.which("mosquitto_passwd"):
        return None
    return exe


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def post(port, path, body, timeout=15):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode() or "{}")


def board_of(daemon, board_id):
    """Board `board_id`'s entry in the daemon's /status, or None."""
    for b in daemon.status()["boards"]:
        if b["id"] == board_id:
            return b
    return None


# A host writes under its own name only; anyone writes commands only under its own name; the arbiter reads all.
HALL_ACL = ("pattern readwrite eboard/+/%u/#\npattern write eboard/+/+/command/%u\n"
            "user arbiter\ntopic read eboard/#\n")


class Broker:
    def __init__(self, h, mosquitto):
        self.h = h
        self.exe = mosquitto
        self.port = free_port()
        d = os.path.join(h.dir, "broker")
        os.makedirs(d)
        self.passwd = os.path.join(d, "passwd")
        open(self.passwd, "w").close()
        for user in HOSTS + ["arbiter", "intruder"]:
            subprocess.run(["mosquitto_passwd", "-b", self.passwd, user, "pw-" + user], check=True)
            with open(os.path.join(h.dir, user + ".pw"), "w") as f:
                f.write("pw-" + user + "\n")
        acl = os.path.join(d, "acl")
        with open(acl, "w") as f:
            f.write(HALL_ACL + "user intruder\ntopic read eboard/#\n")
        self.conf = os.path.join(d, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous false\npassword_file {self.passwd}\n"
                    f"acl_file {acl}\npersistence true\npersistence_location {d}/\n")
            if os.geteuid() == 0:  # else mosquitto drops to user mosquitto and cannot save its database
                f.write(f"user {getpass.getuser()}\n")
        self.log = h.log_path("mosquitto")
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([self.exe, "-c", self.conf], stdout=open(self.log, "ab"),
                                     stderr=subprocess.STDOUT)
        self.h.procs.append(self.proc)

        def accepting():
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return True
            except OSError:
                return False
        wait_until(accepting, 15, "mosquitto to listen")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)  # saves its database (queued messages, sessions)
        self.proc.wait(timeout=30)


class CuttableLink:
    """A TCP relay between one host and the broker that can be cut (every connection closed, new ones refused at
    once) and restored: a host cut off the network while its boards play on."""

    def __init__(self, broker_port):
        self.broker_port = broker_port
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.cut_off = False
        self.open = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            if self.cut_off:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.broker_port), timeout=15)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self.lock:
                self.open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        self.cut_off = True
        with self.lock:
            for sock in self.open:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
            self.open = []

    def restore(self):
        self.cut_off = False


class MoveTimes:
    """The times of the moves as a live /ws told them, per board and game (a game: from a ply 1 on), to tell
    whether a record shows a move younger than the delay."""

    def __init__(self, feed):
        self.feed = feed

    def games(self, board):
        games = []
        for e in self.feed.snapshot():
            if e.get("board") != board or e.get("type") != "move":
                continue
            if e["ply"] == 1 or not games:
                games.append([])
            games[-1].append((strip_san(e.get("san", "")), e["t"] / 1000.0))
        return games

    def too_young(self, board, moves, seen_at):
        """The moves of `moves` (a game's SAN, seen at `seen_at`) younger than the delay then, or None when
        the feed has no game they begin."""
        for game in reversed(self.games(board)):
            if [m for m, _ in game[:len(moves)]] == moves:
                return [(i + 1, m, round(seen_at - t, 2)) for i, (m, t) in enumerate(game[:len(moves)])
                        if t > seen_at - DELAY_S + 0.2]
        return None


class Eboardd:
    def __init__(self, h, exe, name, broker_port, corpus=None, aggregate=False, trusted=("arbiter",), extra=""):
        self.h, self.exe, self.name, self.corpus = h, exe, name, corpus
        self.state = os.path.join(h.dir, name)
        self.config = os.path.join(h.dir, name + ".toml")
        with open(self.config, "w") as f:
            f.write(f'state_dir = "{self.state}"\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n'
                    f'[mqtt]\nbroker = "mqtt://127.0.0.1:{broker_port}"\nhall = "test-hall"\nhost = "{name}"\n'
                    f'username = "{name}"\npassword_file = "{h.dir}/{name}.pw"\n'
                    f'aggregate = {"true" if aggregate else "false"}\n'
                    f'trusted = [{", ".join(json.dumps(t) for t in trusted)}]\n' + extra)
        self.log = h.log_path(name)
        self.proc = None
        self.port = None

    def start(self, inherit_fds=()):
        """`inherit_fds`: descriptors the daemon starts with, as many as a host's boards would hold."""
        listen = os.path.join(self.state, "eboardd.listen")
        if os.path.exists(listen):
            os.remove(listen)
        args = [self.exe, "--config", self.config, "--no-usb", "--log-level", "debug"]
        if self.corpus:
            args += ["--demo", "--demo-corpus", self.corpus, "--demo-speed", "40"]
        self.proc = subprocess.Popen(args, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT,
                                     pass_fds=tuple(inherit_fds))
        self.h.procs.append(self.proc)

        def listening():
            if self.proc.poll() is not None:
                raise TestFailure(f"{self.name} exited with {self.proc.returncode}")
            if os.path.exists(listen):
                text = open(listen).read().strip()
                return int(text.rsplit(":", 1)[1]) if text else None
            return None
        self.port = wait_until(listening, 15, f"{self.name} to listen")

    def status(self):
        return json.loads(http_get(self.port, "/status")[1])

    def pgn_moves(self, board):
        games = parse_pgn(http_get(self.port, f"/boards/{board}.pgn")[1])
        return games[0]["moves"] if games else None


def check_public_side(h, agg, pub, times, public_ws, standin, remote):
    """The second aggregator serves the remote boards through the delay, the lichess push and LiveChess."""
    def young_in(text, seen_at, where):
        games = parse_pgn(text)
        for g in games:
            board = g["tags"].get("Board")
            young = times.too_young(board, g["moves"], seen_at)
            h.check(young is not None, f"{where}: a game of {board} its live feed never told: {g['moves']}")
            h.check(not young, f"{where}: {board} shows moves younger than {DELAY_S} s: {young}")
        return {g["tags"].get("Board") for g in games}

    # Now, and until it caught up with the live games as they are now.
    live = {b: agg.pgn_moves(b) or [] for b in remote}
    text = http_get(pub.port, "/games.pgn")[1]
    boards = young_in(text, time.time(), "delayed /games.pgn")
    h.check(set(remote) <= boards, f"delayed /games.pgn lacks remote boards: {sorted(set(remote) - boards)}")
    asked = time.time()

    def caught_up(text):
        held = {}
        for g in parse_pgn(text):
            held.setdefault(g["tags"].get("Board"), []).append(g["moves"])
        return all(any(m[:len(live[b])] == live[b] for m in held.get(b, [])) for b in remote)
    wait_until(lambda: caught_up(http_get(pub.port, "/games.pgn")[1]), DELAY_S + 15,
               "the delayed /games.pgn to catch up with the live games")
    wait_until(lambda: any(at > asked + DELAY_S and caught_up(body) for at, body in standin.taken()), DELAY_S + 15,
               "a lichess push holding the live games")
    for at, body in standin.taken():
        young_in(body, at, "a lichess push")
    print(f"public side: {len(standin.taken())} lichess pushes checked", flush=True)

    # The public /ws: every remote board, no move before the delay.
    events = public_ws.snapshot()
    with public_ws.lock:
        arrivals = list(public_ws.arrivals)
    for board in remote:
        h.check(any(e.get("board") == board for e in events), f"no event of {board} on the public /ws")
    early = [(e["board"], e["ply"], round(at - e["t"] / 1000.0, 2)) for e, at in zip(events, arrivals)
             if e.get("type") == "move" and at - e["t"] / 1000.0 < DELAY_S - 0.2]
    h.check(not early, f"the public /ws sent moves before the delay: {early[:5]}")

    # LiveChess: every remote board listed; one board's moves fed.
    lc_port = int(open(os.path.join(pub.state, "eboardd.livechess")).read().strip().rsplit(":", 1)[1])
    listed = {b["serialnr"]: b for b in json.loads(http_get(lc_port, "/api/v1.0/eboards")[1])}
    h.check(set(remote) <= set(listed), f"LiveChess eboards: {sorted(listed)}")
    h.check(all(listed[b]["state"] == "ACTIVE" for b in remote if b in listed),
            f"LiveChess states: {[(b, listed[b]['state']) for b in remote if b in listed]}")
    lc = WebSocket(lc_port, path="/api/v1.0", headers="Origin: https://lichess.org\r\n")
    lc.send_text(json.dumps({"id": 1, "call": "subscribe",
                             "param": {"feed": "eboardevent", "id": 1, "param": {"serialnr": "h1:A"}}}))

    def fed_as_played():
        feeds = [m for m in lc.snapshot() if m.get("response") == "feed"]
        if not feeds:
            return None
        return [strip_san(m) for m in feeds[-1]["param"]["san"]] == agg.pgn_moves("h1:A")
    wait_until(fed_as_played, 15, "LiveChess to feed h1:A's moves as the aggregator has them")
    lc.close()


def check_operator_page(h, agg, remote):
    """The operator's page of the aggregator lists the remote boards and shows them live."""
    chromium, _ = browser_or_skip()
    if not chromium:
        print("operator page: not checked (no chromium)", flush=True)
        return
    from web_page_test import HALL_JS, placement, same_position, start_chromium
    _, cdp = start_chromium(h, chromium)
    cdp.call("Page.navigate", url=f"http://127.0.0.1:{agg.port}/")

    def fens():
        return {b["id"]: b["game"]["fen"] for b in agg.status()["boards"]}
    problems = ["never looked"]

    def hall_as_status():
        nonlocal problems
        before, hall, after = fens(), cdp.js(HALL_JS) or {}, fens()
        problems = []
        for bid in remote:
            card = hall.get(bid)
            if not card:
                problems.append(f"{bid}: no card")
            elif same_position(card["fen"], (before.get(bid), after.get(bid))) is None:
                problems.append(f"{bid}: page {card['fen']!r}, /status {after.get(bid)!r}")
            elif card["pieces"] != placement(card["fen"]):
                problems.append(f"{bid}: drawn {card['pieces']}, not {card['fen']}")
        return hall if not problems else None
    try:
        first = wait_until(hall_as_status, 20, "the page's hall to show every remote board as /status")
        # Live: the page follows the moves (from /ws) and keeps agreeing with /status.
        wait_until(lambda: (hall_as_status() or {}).get("h1:A", {}).get("fen") not in (None, first["h1:A"]["fen"]),
                   20, "the page to show h1:A's next move")
    except TestFailure as e:
        h.check(False, f"{e}: {problems}")
    else:
        print(f"operator page: {len(remote)} remote boards shown as /status has them, h1:A followed live", flush=True)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, corpus = sys.argv[1], sys.argv[2]
    mosquitto = find_mosquitto()
    if not mosquitto:
        print("SKIP: mosquitto and mosquitto_passwd are needed")
        return SKIP
    if not os.path.isdir(corpus):
        print(f"SKIP: no corpus at {corpus}")
        return SKIP
    with Harness("mqtt-hall") as h:
        broker = Broker(h, mosquitto)
        broker.start()
        agg = Eboardd(h, exe, "arbiter", broker.port, aggregate=True, trusted=())
        agg.start()
        standin = LichessStandIn()
        with open(os.path.join(h.dir, "lichess.token"), "w") as f:
            f.write("lip_standin-token\n")
        intruder = Eboardd(h, exe, "intruder", broker.port, aggregate=True, trusted=(),
                           extra=f'[broadcast]\ndelay_s = {DELAY_S}\n[livechess]\nlisten = "127.0.0.1:0"\n'
                                 f'[push.lichess]\nround = "abCD1234"\ntoken_file = "{h.dir}/lichess.token"\n'
                                 f'url = "http://127.0.0.1:{standin.port}"\ninterval_s = 1\n')
        intruder.start()
        ws = WebSocket(agg.port)
        # The public side of the second aggregator: its live feed (with the token) for the moves' times,
        # and the delayed one (without) as the public gets it.
        times = MoveTimes(WebSocket(intruder.port, headers=f"Authorization: Bearer {TOKEN}\r\n"))
        public_ws = WebSocket(intruder.port)
        link = CuttableLink(broker.port)  # h3 reaches the broker through it
        hosts = {n: Eboardd(h, exe, n, link.port if n == "h3" else broker.port, corpus=corpus) for n in HOSTS}
        for host in hosts.values():
            host.start()
        remote = [f"{n}:{b}" for n in HOSTS for b in BOARDS]

        def plies(d, board):
            moves = d.pgn_moves(board)
            return len(moves) if moves else 0

        wait_until(lambda: all(plies(hosts[n], b) >= 4 for n in HOSTS for b in BOARDS), 60, "4 plies on each board")

        # h3 cut off the broker for a minute while its games go on: its last will marks it offline, and when
        # it is back what it published meanwhile comes from its journals. The rest happens meanwhile.
        link.cut()
        cut_at = time.time()
        wait_until(lambda: agg.status()["mqtt"]["hosts"].get("h3") == "offline", 15, "h3 marked offline")
        cut_before = {b: plies(hosts["h3"], b) for b in BOARDS}

        # kill -9 a host mid-game, and bring it back on the same state directory.
        hosts["h2"].proc.kill()
        hosts["h2"].proc.wait()
        time.sleep(1.0)
        hosts["h2"].start()
        before = {n: {b: plies(hosts[n], b) for b in BOARDS} for n in HOSTS}
        wait_until(lambda: all(plies(hosts[n], b) >= before[n][b] + 3 for n in HOSTS for b in BOARDS), 60,
                   "3 more plies on each board after the restart")

        # The broker restarts mid-game: hosts publish into the void, then from their journals.
        broker.stop()
        time.sleep(2.5)
        broker.start()
        before = {n: {b: plies(hosts[n], b) for b in BOARDS} for n in HOSTS}
        wait_until(lambda: all(plies(hosts[n], b) >= before[n][b] + 3 for n in HOSTS for b in BOARDS), 60,
                   "3 more plies on each board after the broker's restart")

        # The minute is over (h3's games went on: new plies or new games), and h3 is back.
        h.check(agg.status()["mqtt"]["hosts"].get("h3") == "offline", "h3 online while cut off")
        time.sleep(max(0.0, cut_at + CUT_OFF_S - time.time()))
        h.check(any(plies(hosts["h3"], b) != cut_before[b] for b in BOARDS), "h3's boards stood still while cut off")
        link.restore()
        print(f"h3 cut off the broker for {time.time() - cut_at:.1f} s", flush=True)
        wait_until(lambda: agg.status()["mqtt"]["hosts"].get("h3") == "online", 15, "h3 online again")

        # kill -9 the aggregator: it reads back what it kept, the broker held what came meanwhile.
        agg.proc.kill()
        agg.proc.wait()
        time.sleep(2.0)
        agg.start()
        ws2 = WebSocket(agg.port)
        before = {n: {b: plies(hosts[n], b) for b in BOARDS} for n in HOSTS}
        wait_until(lambda: all(plies(hosts[n], b) >= before[n][b] + 2 for n in HOSTS for b in BOARDS), 60,
                   "2 more plies on each board after the aggregator's restart")

        # Every game exactly in the aggregator (polled: the games go on while we look).
        def same_games():
            for n in HOSTS:
                for b in BOARDS:
                    mine = hosts[n].pgn_moves(b)
                    theirs = agg.pgn_moves(f"{n}:{b}")
                    if not mine or mine != theirs:
                        return None
            return True
        try:
            wait_until(same_games, 20, "the aggregator's PGN of every board to equal its host's")
        except TestFailure:
            for n in HOSTS:
                for b in BOARDS:
                    print(n, b, "host:", hosts[n].pgn_moves(b), "\n   aggregator:", agg.pgn_moves(f"{n}:{b}"))
            raise

        # Every game of every board (a minute cut off holds new games), in order, once.
        def games_by_board(port, prefix=""):
            out = {}
            for g in parse_pgn(http_get(port, "/games.pgn")[1]):
                if g["moves"]:
                    out.setdefault(prefix + g["tags"].get("Board", ""), []).append(g["moves"])
            return out

        def whole_hall():
            agg_games = games_by_board(agg.port)
            for n in HOSTS:
                for board, games in games_by_board(hosts[n].port, n + ":").items():
                    if agg_games.get(board) != games:
                        return None
            return True
        try:
            wait_until(whole_hall, 20, "the aggregator's /games.pgn to hold every host's games")
        except TestFailure:
            agg_games = games_by_board(agg.port)
            for n in HOSTS:
                for board, games in games_by_board(hosts[n].port, n + ":").items():
                    print(board, "host:", [len(g) for g in games], "aggregator:",
                          [len(g) for g in agg_games.get(board, [])])
            raise
        h.check(max(len(g) for g in games_by_board(hosts["h3"].port).values()) >= 1, "h3 has no games")

        # /ws, before the aggregator's restart and after it (its snapshot, then live): per remote board, ids
        # strictly increasing, plies without holes or repeats within a game.
        for name, feed in (("/ws", ws), ("/ws after the aggregator's restart", ws2)):
            events = feed.snapshot()
            h.check(not feed.errors, f"{name} errors: {feed.errors}")
            for board in remote:
                evs = [e for e in events if e.get("board") == board]
                h.check(len(evs) > 0, f"no event of {board} on the aggregator's {name}")
                ids = [(e.get("journal"), e.get("seq")) for e in evs]
                h.check(all(a < b for a, b in zip(ids, ids[1:])), f"{board}: {name} ids not strictly increasing: {ids}")
                last = 0
                for e in evs:
                    if e.get("type") != "move":
                        continue
                    ply = e["ply"]
                    h.check(ply == last + 1 or ply == 1, f"{board}: ply {ply} after {last} on {name}")
                    last = ply
        st = agg.status()["mqtt"]
        listed = {r["id"]: r for r in st["remote_boards"]}
        h.check(sorted(listed) == sorted(remote), f"/status mqtt.remote_boards: {sorted(listed)}")
        h.check(all(r["host"] == r["id"].split(":")[0] and not r["problems"] for r in listed.values()),
                f"remote boards with problems: {[(r['id'], r['problems']) for r in listed.values()]}")
        dropped = sum(r["duplicates_dropped"] for r in listed.values())
        republished = sum(hosts[n].status()["mqtt"]["events_republished"] for n in HOSTS)
        print(f"hall: {sum(r['events'] for r in listed.values())} events taken, {dropped} duplicates dropped, "
              f"{republished} republished from journals", flush=True)
        h.check(republished > 0, "no host republished from its journal after the broker's restart")

        # Commands: the trusted aggregator's arrives and is answered; the intruder's is refused by the host.
        code, sent = post(agg.port, "/control/h1:A/tags", {"Annotator": "arbiter"})
        h.check(code == 202 and sent.get("sent"), f"command through the aggregator: {code} {sent}")

        def answered(d, cid):
            for c in d.status()["mqtt"]["commands"]:
                if c["id"] == cid and c["answer"]:
                    return c["answer"]
            return None
        answer = wait_until(lambda: answered(agg, sent.get("command")), 15, "the host's answer")
        h.check(answer["status"] == 200 and answer["body"]["tags"].get("Annotator") == "arbiter",
                f"answer: {answer}")
        wait_until(lambda: '[Annotator "arbiter"]' in http_get(agg.port, "/boards/h1:A.pgn")[1], 15,
                   "the tag in the aggregator's PGN (the host's retained state)")
        wait_until(lambda: "h1:A" in {r["id"] for r in intruder.status()["mqtt"]["remote_boards"]}, 15,
                   "the intruder to see h1:A")
        # The intruder's resends (a board first heard of mid-stream) are refused and counted too.
        refused_before = hosts["h1"].status()["mqtt"]["commands_refused"]
        code, sent = post(intruder.port, "/control/h1:A/tags", {"Annotator": "intruder"})
        h.check(code == 202, f"the intruder's command: {code} {sent}")
        answer = wait_until(lambda: answered(intruder, sent.get("command")), 15, "the host's refusal")
        h.check(answer["status"] == 403 and "trusted" in json.dumps(answer["body"]), f"refusal: {answer}")
        h.check('[Annotator "arbiter"]' in http_get(hosts["h1"].port, "/boards/A.pgn")[1],
                "the refused command changed the host's tags")
        h.check(hosts["h1"].status()["mqtt"]["commands_refused"] >= refused_before + 1,
                "h1 does not count the refused command")
        check_public_side(h, agg, intruder, times, public_ws, standin, remote)
        check_operator_page(h, agg, remote)
        ws.close()
        ws2.close()
        print(f"mqtt_hall_test: {'FAIL' if h.failures else 'ok'} in {h.elapsed():.0f} s", flush=True)
        return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
