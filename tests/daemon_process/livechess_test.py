#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The LiveChess local API ([livechess] listen, issue 15) as lichess' DGT board page uses it.

The real eboardd with a LiveChess listener, one DGT board played by the real `eboardctl sim`. A WebSocket client
sends exactly what lila's ui/dgt (play.ts) sends, from a page of https://lichess.org: `{"id":1,"call":"eboards"}`, a subscription to the first
board's eboardevent feed (request id 2, feed id 1), and a `setup` call (request id 3) with the lichess game's
FEN, here the standard start before the game begins. It follows the game through the feed and, after every move,
its view (board FEN, san list, clock, whose clock runs) matches /status and /games.pgn. Then, as lila does when
it reattaches (a reconnect): a setup at the position on the board keeps the game; one from another position
starts a new game there (the feed's
san list empties, /status counts a new game); a flip is echoed; a new game begun by the arbiter's control
reaches the feed, and a setup at the start of a game from there begins no other; bad JSON, unknown calls and methods, a feed
that does not exist and a bad FEN are answered with errors on a connection that stays open. GET
/api/v1.0/eboards lists the board; a page of another web site is refused.

usage: livechess_test.py EBOARDD EBOARDCTL SHARED_DIR [--game N] [--speed R]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import json
import os
import sys
import time
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"  # chessops' makeFen of the start
TOKEN = "livechess-test-token"


def new_game(port, fen):
    """POST /control/A/new-game, as the arbiter would."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/control/A/new-game", method="POST",
                                 data=json.dumps({"fen": fen}).encode(),
                                 headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=15) as r:
        return json.loads(r.read().decode())


def lila_json(obj):
    """JSON.stringify's output: no spaces."""
    return json.dumps(obj, separators=(",", ":"))


class LiveChessClient:
    """The WebSocket side of lila's ui/dgt: its messages, and what it reads back."""

    def __init__(self, port):
        # From lichess' page in a browser: its origin comes along (and is allowed by default).
        self.ws = ep.WebSocket(port, path="/api/v1.0", headers="Origin: https://lichess.org\r\n")
        self.seen = 0

    def messages(self):
        return self.ws.snapshot()

    def send(self, text):
        self.ws.send_text(text)

    def answer(self, request_id, timeout=15):
        """The response (call or error) to request `request_id`."""
        def find():
            for m in self.messages():
                if m.get("response") in ("call", "error") and m.get("id") == request_id:
                    return m
            return None
        return ep.wait_until(find, timeout, f"the answer to LiveChess request {request_id}")

    def answers_after(self, count):
        return [m for m in self.messages()[count:] if m.get("response") in ("call", "error")]

    def feeds(self):
        return [m for m in self.messages() if m.get("response") == "feed"]


def main():
    ap = ep.arg_parser(game=141, speed=4.0)  # 30 plies: checks, captures, a promotion (bxa8=Q)
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    expected = ep.corpus_game(pgn, a.game)["moves"]

    with ep.Harness("livechess") as h:
        try:
            run(h, a, pgn, expected)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def run(h, a, pgn, expected):
    device = os.path.join(h.dir, "dgt")  # where the sim will put its symlink: the game starts after the setup
    d = ep.Daemon(h, a.eboardd, device, clock_rate=a.speed, token=TOKEN)
    with open(d.config, "a") as f:
        # lichess' page sends no token: the operator lets every local client set up and flip.
        f.write('\n[livechess]\nlisten = "127.0.0.1:0"\ncontrol = true\n')
    d.start()
    lc_port = int(open(os.path.join(d.state, "eboardd.livechess")).read().strip().rsplit(":", 1)[1])
    print(f"eboardd on port {d.port}, LiveChess API on port {lc_port}", flush=True)

    # HTTP: the board list.
    status, body = ep.http_get(lc_port, "/api/v1.0/eboards")
    boards = json.loads(body)
    h.check(status == 200 and len(boards) == 1 and boards[0]["serialnr"] == "A",
            f"GET /api/v1.0/eboards: {status} {body}")

    # Another web site's page in the same browser may not use it.
    try:
        ep.WebSocket(lc_port, path="/api/v1.0", headers="Origin: https://evil.example\r\n").close()
        h.check(False, "a page of https://evil.example opened the LiveChess WebSocket")
    except ep.TestFailure as e:
        h.check("403" in str(e), f"a page of another origin: {e}")

    # lila's connectToLiveChess(): eboards, then subscribe to the first board.
    c = LiveChessClient(lc_port)
    c.send('{"id":1,"call":"eboards"}')
    listed = c.answer(1)
    h.check(listed["response"] == "call" and isinstance(listed["param"], list) and listed["param"],
            f"eboards answer: {listed}")
    serialnr = listed["param"][0]["serialnr"]
    h.check(listed["param"][0]["state"] in ("ACTIVE", "NOTRESPONDING"), f"eboards state: {listed['param'][0]}")
    subscription = {"id": 2, "call": "subscribe", "param": {"feed": "eboardevent", "id": 1,
                                                               "param": {"serialnr": ""}}}
    subscription["param"]["param"]["serialnr"] = serialnr
    c.send(lila_json(subscription))
    ack = c.answer(2)
    h.check(ack["response"] == "call", f"subscribe answer: {ack}")
    ep.wait_until(lambda: c.feeds(), 15, "the first feed message")
    first = c.feeds()[0]
    h.check(first["id"] == 1 and first["param"]["serialnr"] == serialnr and first["param"]["san"] == [] and
            first["param"]["start"] == START_FEN and "board" in first["param"],
            f"the first feed message: {first}")

    # lila's sendBoardToLiveChess(): the lichess game's position (the start: no new game for it).
    setup = {"id": 3, "call": "call", "param": {"id": 1, "method": "setup", "param": {"fen": START_FEN}}}
    c.send(lila_json(setup))
    h.check(c.answer(3)["response"] == "call", f"setup answer: {c.answer(3)}")
    game_before = d.board_status()["game"]["number"]

    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, style=a.style)  # its link is `device`
    length = sim.length_s() or 300
    print(f"game {a.game}: {len(expected)} plies, {length:.0f} s of game time at {a.speed}x", flush=True)

    # Follow the game through the feed, as lila does (param.san), comparing with /status after every move.
    compared, board, handled = [], first["param"]["board"], 1
    deadline = time.time() + length / a.speed + 40
    last_san = []
    while time.time() < deadline and len(last_san) < len(expected):
        feeds = c.feeds()
        for m in feeds[handled:]:
            handled += 1
            p = m["param"]
            board = p.get("board", board)  # left out when it did not change
            san = [ep.strip_san(s) for s in p["san"]]
            if san == last_san:
                continue
            if not h.check(san == expected[:len(san)] and len(san) > len(last_san),
                           f"feed san {san} after {last_san} is not the corpus game's next move"):
                return
            last_san = san
            compared.append(compare_with_status(h, d, p, board, len(san), feeds[handled:] == []))
        time.sleep(0.02)
    h.check(last_san == expected, f"the feed reached {len(last_san)} of {len(expected)} plies: {last_san}")
    exact = sum(1 for x in compared if x)
    print(f"{len(compared)} moves followed on the feed; {exact} compared with /status at that very move",
          flush=True)
    # A move every ~0.5 s and the feed read every 20 ms: nearly every move is compared before the next one.
    h.check(exact >= len(expected) - 2, f"only {exact} of {len(expected)} moves compared with /status")
    final = d.game()
    h.check(final["moves"] == expected, f"/games.pgn: {final['moves']}")

    # The page attaching the game again (a reconnect) sets up the position on the board: the game goes on.
    fen_now = d.board_status()["game"]["fen"]
    count = len(c.messages())
    setup["param"]["param"]["fen"] = fen_now
    c.send(lila_json(setup))
    again = ep.wait_until(lambda: c.answers_after(count), 15, "the answer to the setup at the position")[0]
    h.check(again["response"] == "call" and again["id"] == 3, f"setup at the position on the board: {again}")
    st = d.board_status()["game"]
    h.check(st["number"] == game_before and st["ply"] == len(expected),
            f"a setup at the position of the game under way began another: game {st['number']} (was "
            f"{game_before}), ply {st['ply']}")

    # Another lichess game attached, from another position: a new game begins there.
    other = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"
    count = len(c.messages())
    setup["param"]["param"]["fen"] = other
    c.send(lila_json(setup))
    again = ep.wait_until(lambda: c.answers_after(count), 15, "the answer to the second setup")[0]
    h.check(again["response"] == "call" and again["id"] == 3, f"second setup: {again}")
    reset = ep.wait_until(lambda: [m for m in c.messages()[count:] if m.get("response") == "feed" and
                                   m["param"]["san"] == [] and m["param"]["start"] == other], 15,
                          "the feed after the second setup")[0]
    h.check(reset["param"]["start"] == other, f"feed after setup starts from {reset['param']['start']}")
    st = d.board_status()["game"]
    h.check(st["number"] == game_before + 1 and st["ply"] == 0 and st["fen"] == other,
            f"/status after the second setup: game {st['number']} (was {game_before}), ply {st['ply']}, "
            f"{st['fen']}")

    # flip is echoed in the feed.
    count = len(c.messages())
    c.send('{"id":4,"call":"call","param":{"id":1,"method":"flip","param":{"flip":true}}}')
    ep.wait_until(lambda: [m for m in c.messages()[count:] if m.get("response") == "feed" and
                           m["param"]["flipped"] is True], 15, "flipped in the feed")

    # A new game begun elsewhere (the arbiter's control) reaches the feed although no event tells it.
    count = len(c.messages())
    number = new_game(d.port, START_FEN)["game"]
    fresh = ep.wait_until(lambda: [m for m in c.messages()[count:] if m.get("response") == "feed" and
                                   m["param"]["start"] == START_FEN], 15, "the feed after a new game by control")[0]
    h.check(fresh["param"]["san"] == [] and fresh["param"].get("board") == START_FEN.split(" ")[0],
            f"the feed after a new game by control: {fresh}")
    # The page attaching a lichess game from there: the board is at its start already, no new game for it.
    count = len(c.messages())
    c.send(lila_json({"id": 3, "call": "call", "param": {"id": 1, "method": "setup", "param": {"fen": START_FEN}}}))
    again = ep.wait_until(lambda: c.answers_after(count), 15, "the answer to the setup at the start")[0]
    h.check(again["response"] == "call", f"setup at the start: {again}")  # answered after it was done
    h.check(d.board_status()["game"]["number"] == number, f"a setup at the start of a game began another: "
                                                          f"{d.board_status()['game']['number']} after {number}")

    # Bad requests: each answered with an error, the connection stays, the daemon lives.
    bad = [("not json", None), ('{"id":5,"call":"nope"}', 5), ('[1,2]', None),
           ('{"id":6,"call":"call","param":{"id":99,"method":"setup","param":{"fen":"x"}}}', 6),
           ('{"id":7,"call":"call","param":{"id":1,"method":"setup","param":{"fen":"8/8/8 w"}}}', 7),
           ('{"id":8,"call":"call","param":{"id":1,"method":"dance"}}', 8),
           ('{"id":9,"call":"subscribe","param":{"feed":"eboardevent","id":2,"param":{"serialnr":"NOPE"}}}', 9)]
    for text, rid in bad:
        count = len(c.messages())
        c.send(text)
        got = ep.wait_until(lambda: c.answers_after(count), 15, f"an answer to {text}")[0]
        h.check(got["response"] == "error" and got.get("id") == rid and got["param"].get("message"),
                f"{text} was answered {got}")
    c.send('{"id":10,"call":"eboards"}')
    h.check(c.answer(10)["response"] == "call", "eboards after the errors")
    lc = d.status().get("livechess", {})
    h.check(lc.get("port") == lc_port and lc.get("clients") == 1, f"/status livechess: {lc}")
    h.check(not c.ws.errors and not c.ws.closed, f"LiveChess WebSocket: {c.ws.errors}, closed {c.ws.closed}")
    c.ws.close()
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")
    print(f"followed {len(expected)} plies through the LiveChess feed in {h.elapsed():.1f} s", flush=True)


def compare_with_status(h, d, p, board, n, newest):
    """The feed's view after move n against /status. True when /status was still at move n (compared), False
    when the game had gone on (only the san prefix was checkable)."""
    st = ep.wait_until(lambda: (lambda s: s if s["game"]["published_ply"] >= n else None)(d.board_status()),
                       15, f"/status at ply {n}")
    g = st["game"]
    if g["ply"] != n or g["published_ply"] != n:
        h.check(not newest or g["ply"] > n, f"/status at ply {g['ply']} while the feed's newest is {n}")
        return False
    h.check(board == g["fen"].split(" ")[0], f"ply {n}: feed board {board} but /status {g['fen']}")
    clock = p.get("clock")
    if h.check("clock" in g, f"ply {n}: /status has no clock") and clock is not None:
        h.check(clock["white"] == g["clock"]["white"] // 1000 and clock["black"] == g["clock"]["black"] // 1000,
                f"ply {n}: feed clock {clock} but /status {g['clock']}")
        if g["result"] == "*":
            h.check(clock["run"] is (n % 2 == 0), f"ply {n}: feed says run={clock['run']}")
    elif clock is None:
        # Left out: unchanged since the last message. A clock press always changes it.
        h.check(False, f"ply {n}: the feed message has no clock")
    return True


if __name__ == "__main__":
    sys.exit(main())
