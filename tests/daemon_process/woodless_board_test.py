#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Boards without wood (issue 27): a game of the round that no device reports, its moves typed by the arbiter.

  - The configuration declares board 2 with protocol = "none" (no port): /status says it has no device (link
    "none", woodless, no link_state), never "offline". A [[board]] with no port and no protocol = "none" is
    still refused with the line and a hint, and a woodless board given a port too.
  - The round's pairings name it like any board. Its moves are typed, SAN and UCI, with `eboardctl move` and
    POST /control/2/moves: an illegal move and an ambiguous one are refused with 400 naming the move, and
    none of their list is played; a move can carry its clock times. Each reaches /ws as a move event with
    `ply`, `uci` and `san` exactly (CONTRACTS §3), the clock where one was given.
  - Its result is entered with `eboardctl draw` (the same control path as a board with wood).
  - The game is in /games.pgn, /boards/2.pgn, the push to the stand-in lichess, GET /round/results.csv and
    .trf; after a kill -9 and a restart it is still there, moves and result, and after `eboardctl round 2`
    in the round's archive (state_dir/rounds/1.pgn).
  - A second board without wood added at run time (`eboardctl port add 3 --protocol none`) takes a move.
  - The operator's page (headless Chromium, when present; required under CI) draws both with a "no device"
    badge, not offline, and plays moves typed in board 3's field; an illegal one is refused there, named.

usage: woodless_board_test.py EBOARDD EBOARDCTL
"""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eboardctl_proc as ep  # noqa: E402
from pgn_feeds_test import Configured, tags_of  # noqa: E402

TOKEN = "woodless-board-test-token-0123456789"
LICHESS_TOKEN = "lip_woodless-standin-0123456789"
ROUND_ID = "wOoD1234"

# 1.d4 Nf6 2.c4 d6 3.Nc3: then "Nd7" is ambiguous (b8 and f6), "Nbd7" is the move.
TYPED_SAN = ["d4", "Nf6", "c4", "d6", "Nc3"]
EXPECTED = [  # (san, uci) of every ply the test plays, in order
    ("d4", "d2d4"), ("Nf6", "g8f6"), ("c4", "c2c4"), ("d6", "d7d6"), ("Nc3", "b1c3"), ("Nbd7", "b8d7"),
    ("e4", "e2e4"), ("e5", "e7e5"),
]


def request(port, method, path, body=None):
    import urllib.request
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=data)
    req.add_header("Content-Type", "application/json")
    req.add_header("Authorization", "Bearer " + TOKEN)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read().decode() or "null")
    except urllib.error.HTTPError as e:
        text = e.read().decode(errors="replace")
        try:
            return e.code, json.loads(text)
        except ValueError:
            return e.code, text


def config_errors(h, exe):
    """Mistakes in declaring a board without wood are told with their line, not guessed."""
    cases = [
        ('[[board]]\nid = "9"\n', ["needs port", 'protocol = "none"']),
        ('[[board]]\nid = "9"\nprotocol = "none"\nport = "/dev/ttyUSB0"\n', ["without a device", "port"]),
        ('[[board]]\nid = "9"\nprotocol = "nnone"\n', ["protocol 'nnone'", '"none"']),
    ]
    for n, (text, words) in enumerate(cases):
        path = os.path.join(h.dir, f"bad-{n}.toml")
        with open(path, "w") as f:
            f.write(f'state_dir = "{h.dir}/bad-state"\n\n' + text)
        r = subprocess.run([exe, "--config", path, "--check-config"], capture_output=True, timeout=30)
        out = (r.stdout + r.stderr).decode(errors="replace")
        h.check(r.returncode != 0 and all(w in out for w in words), f"config {text!r}: {r.returncode} {out!r}")
    good = os.path.join(h.dir, "good.toml")
    with open(good, "w") as f:
        f.write(f'state_dir = "{h.dir}/bad-state"\n\n[[board]]\nid = "9"\nprotocol = "none"\n')
    r = subprocess.run([exe, "--config", good, "--check-config"], capture_output=True, timeout=30)
    h.check(r.returncode == 0, f"a board without wood alone: {r.returncode} {r.stderr!r}")


def run(h, exe, ctl):
    config_errors(h, exe)
    standin = ep.LichessStandIn()
    token_file = os.path.join(h.dir, "lichess.token")
    with open(token_file, "w") as f:
        f.write(LICHESS_TOKEN + "\n")
    config = (f'state_dir = "@STATE@"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
              f'[event]\nname = "Woodless Test"\nround = "1"\n\n'
              f'[push.lichess]\nround = "{ROUND_ID}"\ntoken_file = "{token_file}"\n'
              f'url = "http://127.0.0.1:{standin.port}"\ninterval_s = 1\n\n'
              f'[[board]]\nid = "1"\nport = "/nonexistent/eboard-1"\nprotocol = "dgt"\n\n'
              f'# the board of the game whose moves the arbiter types\n[[board]]\nid = "2"\nprotocol = "none"\n')
    d = Configured(h, exe, "woodless", config)
    d.start()

    def ctl_run(*args):
        # `port add` is a command of two words: the options follow both.
        n = 2 if args[0] == "port" else 1
        return subprocess.run([ctl, *args[:n], "--daemon", f"127.0.0.1:{d.port}", "--token", TOKEN] + list(args[n:]),
                              capture_output=True, timeout=60)

    def board2():
        return next(b for b in d.status()["boards"] if b["id"] == "2")

    b = board2()
    h.check(b["link"] == "none" and b["woodless"] is True and "link_state" not in b and b["device"] == "",
            f"/status of a board without wood: {json.dumps(b)[:400]}")
    h.check(next(x for x in d.status()["boards"] if x["id"] == "1")["woodless"] is False, "board 1 is woodless")
    r = ctl_run("status")
    h.check(r.returncode == 0 and b"no device" in r.stdout, f"eboardctl status: {r.stdout!r}")

    pairings = os.path.join(h.dir, "round1.csv")
    with open(pairings, "w") as f:
        f.write("board,white,black,white_elo,black_elo\n1,Alpha One,Beta One,2201,2101\n"
                "2,Desk White,Desk Black,2302,2202\n")
    r = ctl_run("pairings", pairings)
    h.check(r.returncode == 0, f"eboardctl pairings: {r.returncode} {r.stderr!r}")

    arbiter = ep.WebSocket(d.port, headers=f"Authorization: Bearer {TOKEN}\r\n")

    # A board with wood takes no typed move.
    code, body = request(d.port, "POST", "/control/1/moves", {"moves": ["e4"]})
    h.check(code == 409 and "has a device" in str(body), f"typed moves on a board with wood: {code} {body}")

    r = ctl_run("move", "2", *TYPED_SAN[:3])  # SAN
    h.check(r.returncode == 0, f"eboardctl move 2 d4 Nf6 c4: {r.returncode} {r.stderr!r}")
    code, body = request(d.port, "POST", "/control/2/moves", {"moves": "d7d6 b1c3"})  # UCI, as a text
    h.check(code == 200 and body["game"]["ply"] == 5, f"d7d6 b1c3: {code} {body}")
    # An ambiguous move: refused, naming it, and the move before it in the list is not played either.
    code, body = request(d.port, "POST", "/control/2/moves", {"moves": ["Nd7"]})
    h.check(code == 400 and body.get("move") == "Nd7" and "ambiguous" in body.get("error", ""),
            f"the ambiguous Nd7: {code} {body}")
    code, body = request(d.port, "POST", "/control/2/moves", {"moves": ["Nbd7", "Ke3"]})
    h.check(code == 400 and body.get("move") == "Ke3" and body.get("index") == 2 and "illegal" in body.get("error", ""),
            f"the illegal Ke3: {code} {body}")
    r = ctl_run("move", "2", "e9")
    h.check(r.returncode == 1 and b"e9" in r.stderr, f"eboardctl move 2 e9: {r.returncode} {r.stderr!r}")
    h.check(board2()["game"]["ply"] == 5, f"a refused list played a move: {board2()['game']}")
    code, body = request(d.port, "POST", "/control/2/moves", {"move": "Nbd7"})
    h.check(code == 200 and [e["san"] for e in body["events"]] == ["Nbd7"], f"Nbd7: {code} {body}")
    r = ctl_run("move", "2", "e4", "--clock", "1:29:10", "1:28:40")
    h.check(r.returncode == 0, f"eboardctl move 2 e4 --clock: {r.returncode} {r.stderr!r}")
    code, body = request(d.port, "POST", "/control/2/moves",
                         {"moves": [{"move": "e7e5", "clock": {"white": 5350000, "black": 5300000}}]})
    h.check(code == 200, f"e7e5 with its clock: {code} {body}")

    # The result: a draw agreed, through the control every board has.
    r = ctl_run("draw", "2")
    h.check(r.returncode == 0, f"eboardctl draw 2: {r.returncode} {r.stderr!r}")
    code, body = request(d.port, "POST", "/control/2/moves", {"moves": ["Nf3"]})
    h.check(code == 409 and "over" in str(body), f"a move after the result: {code} {body}")

    # /ws: every move exactly, then the result.
    def ws_done():
        evs = [e for e in arbiter.snapshot() if e.get("board") == "2"]
        return evs if any(e["type"] == "result" for e in evs) else None

    evs = ep.wait_until(ws_done, 15, "board 2's result on /ws")
    moves = [e for e in evs if e["type"] == "move"]
    h.check([(e["ply"], e["san"], e["uci"]) for e in moves] ==
            [(i + 1, s, u) for i, (s, u) in enumerate(EXPECTED)], f"/ws moves: {moves}")
    h.check(moves[6].get("clock") == {"white": 5350000, "black": 5320000} and
            moves[7].get("clock") == {"white": 5350000, "black": 5300000} and "clock" not in moves[0],
            f"/ws clocks: {moves[6:]}")
    res = [e for e in evs if e["type"] == "result"]
    h.check(len(res) == 1 and res[0]["result"] == "1/2-1/2" and res[0]["reason"] == "agreement", f"/ws result: {res}")
    h.check(not [e for e in evs if e["type"] in ("alert", "link")], f"alerts or links on board 2: {evs}")
    arbiter.close()

    def check_game(pgn_text, where):
        games = [g for g in ep.parse_pgn(pgn_text) if g["tags"].get("Board") == "2"]
        h.check(len(games) == 1, f"{where}: {len(games)} games of board 2")
        if games:
            g = games[0]
            h.check(g["moves"] == [s for s, _ in EXPECTED], f"{where}: moves {g['moves']}")
            h.check(g["tags"].get("Result") == "1/2-1/2" and g["tags"].get("White") == "Desk White" and
                    g["tags"].get("Black") == "Desk Black" and g["tags"].get("Round") == "1",
                    f"{where}: tags {g['tags']}")

    def everywhere(tag):
        ep.wait_until(lambda: "1/2-1/2" in d.get("/boards/2.pgn")[1], 15, "board 2's result in /boards/2.pgn")
        check_game(d.get("/games.pgn")[1], f"/games.pgn {tag}")
        check_game(d.get("/boards/2.pgn")[1], f"/boards/2.pgn {tag}")
        code, csv = request_text(d.port, "/round/results.csv?round=1")
        h.check(code == 200 and '\n2,Desk White,Desk Black,2302,2202,1/2-1/2,agreement' in csv,
                f"/round/results.csv {tag}: {code} {csv}")
        code, trf = request_text(d.port, "/round/results.trf?round=1")
        # CSV pairings: players numbered in board order, board 2's White 3 and Black 4, a draw ("=").
        lines = [l for l in trf.splitlines() if l.startswith("001")]
        h.check(code == 200 and len(lines) == 4 and "Desk White" in lines[2] and lines[2][91:99] == "   4 w =" and
                lines[3][91:99] == "   3 b =", f"/round/results.trf {tag}: {code} {trf}")
        # The clocks typed with the moves: the mover's after each, in the PGN's [%clk].
        text = d.get("/boards/2.pgn")[1]
        h.check("[%clk 1:29:10]" in text and "[%clk 1:28:20]" in text, f"/boards/2.pgn {tag}: clocks: {text}")

    everywhere("(live)")
    r = ctl_run("results", "--round", "1", "--format", "csv")
    h.check(r.returncode == 0 and b"Desk White" in r.stdout and b"1/2-1/2" in r.stdout,
            f"eboardctl results: {r.returncode} {r.stdout!r}")

    def pushed():
        path, body = standin.last()
        games = [g for g in ep.parse_pgn(body) if g["tags"].get("Board") == "2"]
        return (path, body) if games and games[0]["tags"].get("Result") == "1/2-1/2" else None

    path, body = ep.wait_until(pushed, 20, "board 2's finished game pushed to the stand-in")
    h.check(path == f"/api/broadcast/round/{ROUND_ID}/push", f"pushed to {path}")
    check_game(body, "the push")

    # kill -9 and a restart: the typed moves and the result come back from the journal.
    d.kill9()
    d.start()
    b = board2()
    h.check(b["game"]["ply"] == len(EXPECTED) and b["game"]["result"] == "1/2-1/2" and b["link"] == "none",
            f"board 2 after kill -9: {b['game']}")
    everywhere("(after kill -9)")
    replay = ep.WebSocket(d.port, headers=f"Authorization: Bearer {TOKEN}\r\n")
    snap = ep.wait_until(lambda: [e for e in replay.snapshot() if e.get("board") == "2" and e["type"] == "result"]
                         and replay.snapshot(), 10, "the snapshot after the restart")
    h.check([(e["ply"], e["san"], e["uci"]) for e in snap if e.get("board") == "2" and e["type"] == "move"] ==
            [(i + 1, s, u) for i, (s, u) in enumerate(EXPECTED)], "the /ws snapshot after kill -9")
    replay.close()

    # A second board without wood, added at run time.
    r = ctl_run("port", "add", "3", "--protocol", "none")
    h.check(r.returncode == 0, f"eboardctl port add 3 --protocol none: {r.returncode} {r.stderr!r}")
    r = ctl_run("port", "add", "4")
    h.check(r.returncode == 2, f"eboardctl port add 4 (no port): {r.returncode} {r.stderr!r}")
    code, body = request(d.port, "POST", "/control/3/moves", {"moves": ["Nf3"]})
    b3 = next((x for x in d.status()["boards"] if x["id"] == "3"), {})
    h.check(code == 200 and b3.get("link") == "none" and b3.get("game", {}).get("ply") == 1,
            f"board 3 added at run time: {code} {body} {b3}")
    page_part(h, d)

    # The round's archive.
    r = ctl_run("round", "2")
    h.check(r.returncode == 0, f"eboardctl round 2: {r.returncode} {r.stderr!r}")
    check_game(open(os.path.join(d.state, "rounds", "1.pgn")).read(), "rounds/1.pgn")
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    standin.stop()
    print(f"woodless: {len(EXPECTED)} typed plies (SAN, UCI, with clocks), an illegal and an ambiguous move "
          "refused, a draw entered; in /ws, /games.pgn, /boards/2.pgn, the push, TRF/CSV, rounds/1.pgn, "
          "and after kill -9", flush=True)


def page_part(h, d):
    """The operator's page: boards without wood drawn as such (not offline), and board 3's moves typed there."""
    chromium, code = ep.browser_or_skip()
    if not chromium:
        h.check(code != 1, "no Chromium for the page's part")
        return
    from web_page_test import open_signed_in, start_chromium, stop_chromium, wait_js
    browser, cdp = start_chromium(h, chromium)
    try:
        open_signed_in(h, cdp, d.port, TOKEN)
        cards = wait_js(h, cdp, """(() => { const out = {};
            for (const c of document.querySelectorAll('article.card[data-board]')) {
              const l = c.querySelector('.link');
              out[c.dataset.board] = [l ? l.textContent : '', l ? l.className : '', c.classList.contains('offline'),
                                      c.classList.contains('woodless')];
            }
            return out['2'] && out['3'] && out['1'] ? JSON.stringify(out) : null; })()""", 15, "the hall's cards")
        cards = json.loads(cards)
        for b in ("2", "3"):
            h.check(cards[b] == ["no device", "link none", False, True], f"the hall's card of board {b}: {cards[b]}")
        h.check(cards["1"][3] is False, f"board 1's card drawn without wood: {cards['1']}")
        cdp.call("Page.navigate", url=f"http://127.0.0.1:{d.port}/#board/3")
        wait_js(h, cdp, "!!document.querySelector('#board-view form.typed input.typed-moves') && "
                        "!document.querySelector('#board-view button.play-moves').disabled", 15, "board 3's move field")
        badge = cdp.js("document.querySelector('#board-view .link').textContent")
        h.check(badge == "no device", f"board 3's view says {badge!r}")

        def type_moves(text):
            cdp.js(f"""(() => {{ const f = document.querySelector('#board-view form.typed');
                      f.querySelector('input.typed-moves').value = {json.dumps(text)}; f.requestSubmit(); }})()""")

        type_moves("d5 2. c4")
        ep.wait_until(lambda: next(x for x in d.status()["boards"] if x["id"] == "3")["game"]["ply"] == 3, 15,
                      "board 3's moves typed on the page")
        # Its answer comes once the moves are durable, which may be after /status shows them: the next
        # request is typed after it, as an arbiter reads the answer first (two answers in flight may come
        # in either order, each saying what it answers).
        wait_js(h, cdp, "(() => { const t = document.getElementById('answer-text').textContent;"
                        " return t && t.includes('Moves played') ? t : null; })()", 15,
                "the page's answer to the moves typed")
        type_moves("Qxf7")
        said = wait_js(h, cdp, "(() => { const t = document.getElementById('answer-text').textContent;"
                               " return t && t.includes('Qxf7') ? t : null; })()", 15,
                       "the page's answer to an illegal move")
        h.check("400" in said and "illegal" in said, f"the page's answer: {said!r}")
        h.check(next(x for x in d.status()["boards"] if x["id"] == "3")["game"]["ply"] == 3, "Qxf7 was played")
        ep.check_page_threw_nothing(h, cdp)
    finally:
        stop_chromium(browser)


def request_text(port, path):
    import urllib.request
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    req.add_header("Authorization", "Bearer " + TOKEN)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def main():
    exe, ctl = sys.argv[1], sys.argv[2]
    with ep.Harness("woodless-board") as h:
        try:
            run(h, exe, ctl)
        except ep.TestFailure as e:
            h.check(False, str(e))
        return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
