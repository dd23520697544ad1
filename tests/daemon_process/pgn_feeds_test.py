#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The PGN feeds (issue 15): every game as valid PGN, read by independent readers; rounds; pairings.

  - `eboardd --config E --demo` (the bughouse match): /games.pgn, /boards/<id>.pgn and the per-board files in
    state_dir/games parse in chessops (npm) with every move present (as many as /status counts), with a
    Bughouse Variant tag, the match and partner board named, drops in SAN; each board replays (as crazyhouse)
    up to the move eboardd marks as the first its board alone cannot replay, and that mark points to the BPGN.
  - `eboardd --demo` on single standard games: /games.pgn read by pgn-extract (Debian) with no error.
  - 20 boards (configured on absent devices): a TRF-16 file and then a CSV file loaded with `eboardctl pairings`
    name the players and ratings of all 20 boards in /games.pgn; a bad file is refused naming its line; a
    game resigned and set up again stays in /games.pgn until `eboardctl round 2`, which archives it in
    state_dir/rounds/1.pgn; the round and the players survive a restart.

usage: pgn_feeds_test.py EBOARDD EBOARDCTL SHARED_DIR      exit 77 (skipped) without chessops or pgn-extract
(chessops: $CHESSOPS_DIR, else ${XDG_CACHE_HOME:-~/.cache}/eboardd/node/node_modules/chessops, as .ci/deps
installs it)
"""
import json
import os
import re
import subprocess
import sys
import urllib.request

import eboardctl_proc as ep

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN = "pgn-feeds-test-token-0123456789"
PGN_EXTRACT = ep.PGN_EXTRACT


def chessops_dir():
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    d = os.environ.get("CHESSOPS_DIR") or os.path.join(cache, "eboardd", "node", "node_modules", "chessops")
    return d if os.path.isfile(os.path.join(d, "dist", "esm", "pgn.js")) else None


def chessops_read(h, path):
    out = subprocess.run(["node", os.path.join(HERE, "pgn_check.mjs"), path], capture_output=True, text=True,
                         env=dict(os.environ, CHESSOPS_DIR=chessops_dir()), timeout=60)
    h.check(out.returncode == 0, f"chessops cannot read {path}: {out.stderr[-2000:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def request(port, method, path, body=None, token=TOKEN):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def tags_of(text):
    """[{tag: value}] of every game of a PGN text (a plain reader: tag pairs only)."""
    games, cur = [], None
    for line in text.splitlines():
        m = re.match(r'^\[(\w+) "(.*)"\]$', line)
        if m:
            if cur is None:
                cur = {}
                games.append(cur)
            cur[m.group(1)] = m.group(2).replace('\\"', '"')
        elif line.strip():
            cur = None
    return games


class Configured(ep.Daemon):
    """eboardd on a configuration file of our own (boards, [event], token)."""

    def __init__(self, h, exe, name, config_text, extra=()):
        super().__init__(h, exe, device="/nonexistent")
        self.state = os.path.join(h.dir, name + "-state")
        os.makedirs(self.state, exist_ok=True)
        self.config = os.path.join(h.dir, name + ".toml")
        with open(self.config, "w") as f:
            f.write(config_text.replace("@STATE@", self.state))
        self.extra = list(extra)

    def command(self, listen):
        return [self.exe, "--config", self.config, "--listen", listen] + self.extra


class StandardDemo(ep.Daemon):
    def __init__(self, h, exe, corpus):
        super().__init__(h, exe, device="(the demo's)")
        self.state = os.path.join(h.dir, "standard-state")
        os.makedirs(self.state, exist_ok=True)
        self.corpus = corpus

    def command(self, listen):
        return [self.exe, "--demo", "--demo-corpus", self.corpus, "--demo-speed", "50", "--state-dir", self.state,
                "--listen", listen]


def bughouse_demo(h, exe):
    config = f'state_dir = "@STATE@"\n\n[http]\nlisten = "127.0.0.1:0"\n\n[event]\nname = "Feeds test"\n'
    d = Configured(h, exe, "bughouse", config, extra=["--demo"])
    d.start()
    # Until each board has played a drop of a piece its partner sent (the demo's first match has them early).
    ep.wait_until(lambda: d.get("/games.pgn")[1].count("alone cannot be") >= 2, 90,
                  "a partner's drop on both boards in /games.pgn")
    plies = {b["id"]: b["game"]["published_ply"] for b in d.status()["boards"]}
    text = d.get("/games.pgn")[1]
    feed = os.path.join(d.h.dir, "games.pgn")
    with open(feed, "w") as f:
        f.write(text)
    h.check("cannot write" not in text, "an error in place of moves in /games.pgn")
    games = chessops_read(h, feed)
    h.check(len(games) == 2, f"/games.pgn: {len(games)} games, not 2")
    for g in games:
        t, board = g["tags"], g["tags"].get("Board")
        where = f"/games.pgn board {board}"
        h.check(t.get("Variant") == "Bughouse", f"{where}: Variant {t.get('Variant')}")
        partner = "B" if board == "A" else "A"
        h.check(t.get("Match") == "A-B" and t.get("PartnerBoard") == partner, f"{where}: match tags {t}")
        h.check(len(g["moves"]) >= plies[board], f"{where}: {len(g['moves'])} moves, /status had {plies[board]}")
        h.check(any(re.fullmatch(r"[PNBRQ]@[a-h][1-8][+#]?", m) for m in g["moves"]), f"{where}: no drop in SAN")
        h.check(g["partner_mark"] >= 0, f"{where}: no mark at the first partner's drop")
        h.check(g["error"] is None and g["replayed"] == g["partner_mark"],
                f"{where}: replays {g['replayed']} of {g['partner_mark']} moves before the mark: {g['error']}")
        h.check(re.fullmatch(r"[PNBRQ]@[a-h][1-8][+#]?", g["moves"][g["partner_mark"]]) is not None,
                f"{where}: the mark is not at a drop: {g['moves'][g['partner_mark']]}")
    h.check("/matches/A-B.bpgn" in text, "the mark does not name the match's BPGN")
    code, bpgn = d.get("/matches/A-B.bpgn")[:2]
    h.check(code == 200 and "1A." in bpgn, f"the BPGN the mark names: {code}")
    for b in "AB":
        one = os.path.join(d.h.dir, f"board-{b}.pgn")
        with open(one, "w") as f:
            f.write(d.get(f"/boards/{b}.pgn")[1])
        got = chessops_read(h, one)
        h.check(len(got) == 1 and len(got[0]["moves"]) >= plies[b] and got[0]["error"] is None,
                f"/boards/{b}.pgn: {got}")
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    files = sorted(f for f in os.listdir(os.path.join(d.state, "games")) if f.endswith(".pgn"))
    h.check(len(files) >= 2, f"state_dir/games: {files}")
    for name in files:
        got = chessops_read(h, os.path.join(d.state, "games", name))
        h.check(len(got) == 1 and got[0]["error"] is None and len(got[0]["moves"]) > 0
                and got[0]["tags"].get("Variant") == "Bughouse", f"state_dir/games/{name}: {got}")
    print(f"bughouse demo: plies {plies}, {len(files)} game files read by chessops", flush=True)


def standard_demo(h, exe, shared):
    corpus = os.path.join(shared, "corpora", "pgn", "standard")
    d = StandardDemo(h, exe, corpus)
    d.start()
    ep.wait_until(lambda: all(b["game"]["published_ply"] >= 10 for b in d.status()["boards"]), 60,
                  "10 plies on every demo board")
    text = d.get("/games.pgn")[1]
    n = len(tags_of(text))
    # Every game, every move replayed by pgn-extract (it writes back only the moves it found legal).
    theirs = ep.read_by_pgn_extract(h, text, "the standard demo's /games.pgn")
    h.check(theirs is not None and len(theirs) == n and n >= 1,
            f"pgn-extract wrote {theirs and len(theirs)} of {n} games")
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    print(f"standard demo: {n} games read by pgn-extract", flush=True)


def trf_line(rank, name, elo, fide_id, rounds):
    """A 001 line laid out as TRF-16 has it (columns 1-based: rank 5-8, name 15-47, rating 49-52, FIDE number
    58-68, points 81-84, then 10 columns per round from 92)."""
    line = list(" " * 91)
    def put(col, text):
        for i, c in enumerate(text):
            while len(line) < col + i:
                line.append(" ")
            line[col - 1 + i] = c
    put(1, "001")
    put(5, f"{rank:4d}")
    put(10, "m")
    put(15, name[:33])
    put(49, f"{elo:4d}")
    put(54, "FRA")
    put(58, f"{fide_id:11d}")
    put(81, " 0.0")
    for r, (opp, colour, result) in enumerate(rounds):
        put(92 + 10 * r, f"{opp:4d} {colour} {result}")
    return "".join(line).rstrip()


def make_trf(players=40):
    """Round 1 of a 40-player Swiss: top half against bottom half, colours alternating, so that board k is
    player k against player k + 20 (scores all 0: boards follow the higher player's starting rank)."""
    lines = ["012 Feeds Test Open", "022 Lyon", "XXR 7"]
    half = players // 2
    for rank in range(1, players + 1):
        if rank <= half:
            opp, colour = rank + half, "w" if rank % 2 else "b"
        else:
            opp, colour = rank - half, "b" if (rank - half) % 2 else "w"
        lines.append(trf_line(rank, f"Player{rank:02d}, Trf", 2400 - rank, 100000 + rank, [(opp, colour, " ")]))
    return "\r\n".join(lines) + "\r\n"


def twenty_boards(h, exe, ctl):
    boards = "".join(f'[[board]]\nid = "{i}"\nport = "/nonexistent/eboard-{i}"\nprotocol = "dgt"\n\n'
                     for i in range(1, 21))
    config = (f'state_dir = "@STATE@"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
              f'[event]\nname = "Feeds Test Open"\nsite = "Lyon"\nround = "1"\ntime_control = "5400+30"\n\n'
              + boards)
    d = Configured(h, exe, "twenty", config)
    d.start()
    base = [ctl, "--daemon", f"127.0.0.1:{d.port}", "--token", TOKEN]

    def ctl_run(*args):
        return subprocess.run([ctl, args[0]] + base[1:] + list(args[1:]), capture_output=True, text=True,
                              timeout=30)

    def games():
        return tags_of(d.get("/games.pgn")[1])

    trf = os.path.join(h.dir, "round1.trf")
    with open(trf, "w", newline="") as f:
        f.write(make_trf())
    r = ctl_run("pairings", trf, "--round", "1")
    h.check(r.returncode == 0, f"eboardctl pairings (TRF): {r.returncode} {r.stderr}")
    g = games()
    h.check(len(g) == 20, f"/games.pgn: {len(g)} games, not 20")
    for t in g:
        k = int(t["Board"])
        white, black = (k, k + 20) if k % 2 else (k + 20, k)
        expect = {"White": f"Player{white:02d}, Trf", "Black": f"Player{black:02d}, Trf",
                  "WhiteElo": str(2400 - white), "BlackElo": str(2400 - black),
                  "WhiteFideId": str(100000 + white), "Event": "Feeds Test Open", "Site": "Lyon", "Round": "1",
                  "TimeControl": "5400+30"}
        h.check(all(t.get(k2) == v for k2, v in expect.items()), f"TRF board {k}: {t} (expected {expect})")

    csv = os.path.join(h.dir, "round1.csv")
    with open(csv, "w") as f:
        f.write("board,white,black,white_elo,black_elo\n")
        for k in range(1, 21):
            f.write(f'{k},"Csv, White{k}",Black{k},{2000 + k},\n')
    r = ctl_run("pairings", csv)
    h.check(r.returncode == 0, f"eboardctl pairings (CSV): {r.returncode} {r.stderr}")
    for t in games():
        k = int(t["Board"])
        h.check(t.get("White") == f"Csv, White{k}" and t.get("Black") == f"Black{k}" and
                t.get("WhiteElo") == str(2000 + k) and "BlackElo" not in t and "WhiteFideId" not in t,
                f"CSV board {k}: {t}")

    bad = os.path.join(h.dir, "bad.csv")
    with open(bad, "w") as f:
        f.write("board,white,black,white_elo,black_elo\n1,A,B,2000,2000\n2,C,D,20x0,1500\n")
    r = ctl_run("pairings", bad)
    h.check(r.returncode == 1 and "line 3" in r.stderr, f"a bad CSV: {r.returncode} {r.stderr}")
    h.check(games()[0].get("White") == "Csv, White1", "a refused file changed the tags")

    # A game of the round finishes (resigned) and the board is set up again: both stay in /games.pgn.
    code, body = request(d.port, "POST", "/control/1/resign", {"side": "black"})
    h.check(code == 200, f"resign: {code} {body}")
    code, body = request(d.port, "POST", "/control/1/new-game", {})
    h.check(code == 200, f"new-game: {code} {body}")
    # The new game shows once it has a move: an empty game after a finished one is the board set up again.
    ep.wait_until(lambda: [t.get("Result") for t in games() if t["Board"] == "1"] == ["1-0"], 15,
                  "board 1's resigned game in /games.pgn after the new game began")
    h.check(len(games()) == 20, f"/games.pgn: {len(games())} games")
    b1 = json.loads(d.get("/boards/1.pgn")[1] and json.dumps(tags_of(d.get("/boards/1.pgn")[1])))[0]
    h.check(b1.get("White") == "Csv, White1" and b1.get("Result") == "*",
            f"the players did not survive a new game: {b1}")

    d.stop()
    d.start()  # the round and the finished game come back
    h.check([t.get("Result") for t in games() if t["Board"] == "1"] == ["1-0"] and
            d.status()["round"]["name"] == "1", "after a restart: the round's finished game")

    r = ctl_run("round", "2")
    h.check(r.returncode == 0 and "rounds/1.pgn" in r.stdout, f"eboardctl round 2: {r.returncode} {r.stdout} {r.stderr}")
    archive = os.path.join(d.state, "rounds", "1.pgn")
    h.check(os.path.exists(archive), "no archive state_dir/rounds/1.pgn")
    archived = tags_of(open(archive).read())
    h.check(len(archived) == 20 and archived[0].get("Result") == "1-0", f"the archive: {len(archived)} games")
    g = games()
    h.check(len(g) == 20 and all(t.get("Round") == "2" and t.get("Result") == "*" for t in g),
            f"round 2's /games.pgn: {g[:2]}")
    h.check(d.status()["round"]["name"] == "2", "/status round")
    r = ctl_run("round", "bad name")
    h.check(r.returncode == 1, f"a bad round name: {r.returncode}")
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    print("20 boards: TRF and CSV tags, a finished game kept until round 2, archived", flush=True)


def main():
    exe, ctl, shared = sys.argv[1], sys.argv[2], sys.argv[3]
    missing = [w for w, ok in (("chessops", chessops_dir()), ("node", subprocess.run(
        ["sh", "-c", "command -v node"], capture_output=True).returncode == 0), ("pgn-extract",
                                                                             os.access(PGN_EXTRACT, os.X_OK)))
               if not ok]
    if missing:
        print(f"skipped: {', '.join(missing)} missing (.ci/deps installs them)")
        return 1 if os.environ.get("CI") else ep.SKIP
    with ep.Harness("pgn-feeds") as h:
        try:
            twenty_boards(h, exe, ctl)
            bughouse_demo(h, exe)
            standard_demo(h, exe, shared)
        except ep.TestFailure as e:
            h.check(False, str(e))
        return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
