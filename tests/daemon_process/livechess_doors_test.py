#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The LiveChess listener's doors (issue 28) and its clients' lifetime (issue 26), against the real eboardd.

One daemon, its LiveChess listener on loopback with the default `control` (false), [http] token set and
[http] ws_max_lifetime_s = 60:
- a request whose Host header names another site (a DNS-rebinding page) is refused (421), on HTTP and on the
  WebSocket, while one naming 127.0.0.1 or localhost is served;
- `setup` and `flip` without the control token are answered with an error naming the token and change
  nothing; with `Authorization: Bearer <token>` on the WebSocket upgrade they are obeyed; a wrong token is
  refused (401);
- the feed's `match` is a boolean; GET tournaments, tournament/{uuid}, round/{uuid}/{n} and game/{uuid} answer
  with the event, the round and the board's game;
- a LiveChess WebSocket is still open and served after ws_max_lifetime_s, while an [http] /ws viewer was told to
  go (the lifetime is [http]'s alone).
A second daemon, its LiveChess listener on 0.0.0.0 (an address other than loopback) with [broadcast] delay_s, a
board played by `eboardctl sim`: a client without the token is served the position behind the delay (the start,
while /status has moves), a client with it the live one.

usage: livechess_doors_test.py EBOARDD EBOARDCTL SHARED_DIR      exit 77 (skipped) without the corpus
"""
import http.client
import json
import os
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402

TOKEN = "doors-test-token"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
START_FEN = START + " w KQkq - 0 1"


def get(port, path, host=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    h = {"Host": host or f"127.0.0.1:{port}"}
    h.update(headers or {})
    c.request("GET", path, headers=h)
    r = c.getresponse()
    body = r.read().decode(errors="replace")
    c.close()
    return r.status, body


def livechess_port(d):
    return int(open(os.path.join(d.state, "eboardd.livechess")).read().strip().rsplit(":", 1)[1])


def answer(ws, rid, timeout=15):
    return ep.wait_until(lambda: next((m for m in ws.snapshot() if m.get("response") in ("call", "error")
                                       and m.get("id") == rid), None), timeout, f"the answer to request {rid}")


def feeds(ws):
    return [m for m in ws.snapshot() if m.get("response") == "feed"]


def subscribe(ws, serialnr):
    ws.send_text(json.dumps({"id": 2, "call": "subscribe",
                             "param": {"feed": "eboardevent", "id": 1, "param": {"serialnr": serialnr}}}))
    return answer(ws, 2)


def main():
    ap = ep.arg_parser(game=141, speed=4.0)
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    with ep.Harness("livechess_doors") as h:
        try:
            loopback(h, a, pgn)
            beyond_loopback(h, a, pgn)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def loopback(h, a, pgn):
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, link_name="dgt-loop")
    d = ep.Daemon(h, a.eboardd, sim.device, clock_rate=a.speed, token=TOKEN)
    text = open(d.config).read().replace("[http]\n", "[http]\nws_max_lifetime_s = 60\n", 1)
    with open(d.config, "w") as f:
        f.write(text + '\n[event]\nname = "Doors Open"\nround = "3"\n\n[livechess]\nlisten = "127.0.0.1:0"\n')
    d.start()
    port = livechess_port(d)
    opened = time.time()
    # Both kinds of WebSocket client, opened now: at the end, after the lifetime, only one is still served.
    lc = ep.WebSocket(port, path="/api/v1.0")
    viewer = ep.WebSocket(d.port, path="/ws", headers=f"Authorization: Bearer {TOKEN}\r\n")

    # Host: this computer's names are served, another site's are not (DNS rebinding).
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        status, body = get(port, "/api/v1.0/eboards", host=host)
        h.check(status == 200 and json.loads(body)[0]["serialnr"] == "A", f"GET eboards as {host}: {status} {body}")
    status, body = get(port, "/api/v1.0/eboards", host=f"rebound.evil.example:{port}")
    h.check(status == 421 and "rebound.evil.example" in body,
            f"GET eboards with Host rebound.evil.example: {status} {body[:200]}")
    sock = socket.create_connection(("127.0.0.1", port), timeout=15)
    sock.sendall(("GET /api/v1.0 HTTP/1.1\r\nHost: rebound.evil.example\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    first = sock.recv(4096).decode(errors="replace").split("\r\n")[0]
    sock.close()
    h.check(" 421 " in first, f"the WebSocket upgrade with Host rebound.evil.example: {first}")

    # setup and flip without the token: refused, and nothing changes.
    h.check(subscribe(lc, "A")["response"] == "call", "subscribe")
    first = ep.wait_until(lambda: feeds(lc), 15, "the first feed message")[0]
    h.check(isinstance(first["param"].get("match"), bool), f"the feed's match is not a boolean: {first['param']}")
    game = d.board_status()["game"]["number"]
    other = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"
    lc.send_text(json.dumps({"id": 3, "call": "call",
                             "param": {"id": 1, "method": "setup", "param": {"fen": other}}}))
    got = answer(lc, 3)
    h.check(got["response"] == "error" and "token" in got["param"]["message"],
            f"setup without the token was answered {got}")
    lc.send_text(json.dumps({"id": 4, "call": "call", "param": {"id": 1, "method": "flip", "param": {"flip": True}}}))
    got = answer(lc, 4)
    h.check(got["response"] == "error" and "token" in got["param"]["message"],
            f"flip without the token was answered {got}")
    st = d.board_status()["game"]
    h.check(st["number"] == game and st["fen"] != other, f"a setup without the token began game {st['number']}")

    # A wrong token is refused at the door; the control token opens setup and flip.
    try:
        ep.WebSocket(port, path="/api/v1.0", headers="Authorization: Bearer guess\r\n").close()
        h.check(False, "a WebSocket with a wrong token was accepted")
    except ep.TestFailure as e:
        h.check("401" in str(e), f"a wrong token: {e}")
    ctl = ep.WebSocket(port, path="/api/v1.0", headers=f"Authorization: Bearer {TOKEN}\r\n")
    h.check(subscribe(ctl, "A")["response"] == "call", "subscribe with the token")
    ctl.send_text(json.dumps({"id": 4, "call": "call", "param": {"id": 1, "method": "flip", "param": {"flip": True}}}))
    h.check(answer(ctl, 4)["response"] == "call", f"flip with the token: {answer(ctl, 4)}")

    # The tournament calls: the event, its round, the board's game.
    status, body = get(port, "/api/v1.0/tournaments")
    tours = json.loads(body) if status == 200 else []
    h.check(len(tours) == 1 and tours[0]["description"] == "Doors Open" and tours[0]["rounds"] == 3,
            f"GET tournaments: {status} {body}")
    if tours:
        uuid = tours[0]["uuid"]
        status, body = get(port, f"/api/v1.0/tournament/{uuid}")
        h.check(status == 200 and json.loads(body)["eboards"] == ["A"], f"GET tournament: {status} {body}")
        status, body = get(port, f"/api/v1.0/round/{uuid}/3")
        rnd = json.loads(body) if status == 200 else {}
        pairings = rnd.get("pairings", [])
        h.check(rnd.get("nr") == 3 and len(pairings) == 1 and pairings[0]["nr"] == 1,
                f"GET round: {status} {body}")
        if pairings:
            status, body = get(port, f"/api/v1.0/game/{pairings[0]['uuid']}")
            h.check(status == 200 and json.loads(body)["chess960"] == 518 and "moves" in json.loads(body),
                    f"GET game: {status} {body}")

    # After [http] ws_max_lifetime_s: the /ws viewer was told to go, the LiveChess client is still served.
    ep.wait_until(lambda: viewer.closed, 90, "the [http] /ws viewer closed after its lifetime")
    while time.time() - opened < 65:
        time.sleep(0.5)
    lc.send_text('{"id":9,"call":"eboards"}')
    got = answer(lc, 9)
    h.check(got["response"] == "call" and not lc.closed,
            f"the LiveChess client after {time.time() - opened:.0f} s: closed {lc.closed}, {got}")
    for w in (lc, ctl):
        w.close()
    h.check(d.stop() == 0, "SIGTERM")


def beyond_loopback(h, a, pgn):
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, link_name="dgt-wide")
    d = ep.Daemon(h, a.eboardd, sim.device, clock_rate=a.speed, token=TOKEN)
    d.state = os.path.join(h.dir, "state-wide")
    os.makedirs(d.state, exist_ok=True)
    text = open(d.config).read().replace(os.path.join(h.dir, "state"), d.state)
    # 120 s of game time: 30 s at 4x, longer than the first moves take.
    with open(d.config, "w") as f:
        f.write(text + '\n[broadcast]\ndelay_s = 120\n\n[livechess]\nlisten = "0.0.0.0:0"\ncontrol = false\n')
    d.start()
    port = livechess_port(d)
    st = ep.wait_until(lambda: (lambda b: b if b["game"]["published_ply"] >= 3 else None)(d.board_status()), 60,
                       "three plies on the board")
    live_fen = st["game"]["fen"].split(" ")[0]
    status, body = get(port, "/api/v1.0/eboards")
    public = json.loads(body)[0]["board"] if status == 200 else None
    status2, body2 = get(port, "/api/v1.0/eboards", headers={"Authorization": f"Bearer {TOKEN}"})
    tokened = json.loads(body2)[0]["board"] if status2 == 200 else None
    h.check(public == START, f"beyond loopback, without the token: {public} while /status is at {live_fen} "
                             f"(ply {st['game']['published_ply']}) and the delay holds every move")
    h.check(tokened is not None and tokened != START, f"with the token: {tokened} (live {live_fen})")
    ws = ep.WebSocket(port, path="/api/v1.0")
    subscribe(ws, "A")
    f = ep.wait_until(lambda: feeds(ws), 15, "the public client's first feed")[0]
    h.check(f["param"].get("board") == START and f["param"]["san"] == [],
            f"the public client's feed: {f['param']}")
    ws.close()
    h.check(d.stop() == 0, "SIGTERM")


if __name__ == "__main__":
    sys.exit(main())
