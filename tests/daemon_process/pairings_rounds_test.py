#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Pairing programs' files as they are, and pairings that belong to their round (issue 26).

  - A Swiss-Manager "ANSI" CSV (Windows-1252: semicolons, accented names, CRLF) loads with `eboardctl pairings`
    (detected, and named with --encoding); the names reach /games.pgn as UTF-8. A file that is not what
    --encoding names is refused with its line, never an abort.
  - A 500-player TRF-16 of round 5 (four rounds of results before it, ~100 KB) is taken by the daemon whole
    (the control body limit was 64 KiB): it answers with the boards it lacks, not 413. Without the token, or on
    another control path, a body that large is still 413.
  - Round 2's pairings loaded before `eboardctl round 2` wait for it: the finished round-1 game keeps its
    players in /games.pgn, in its file in state_dir/games (and its signature), in rounds/1.pgn. When round 2
    begins, the boards whose game is not begun take them at once; the board whose round-1 game is over takes
    them at its next game, after a restart too. Pairings for the archived round 1 are refused.
  - The round's results: GET /round/results.csv and .trf and `eboardctl results` give board 1's 1-0.

usage: pairings_rounds_test.py EBOARDD EBOARDCTL
"""
import json
import os
import subprocess
import sys
import time
import urllib.request

import eboardctl_proc as ep
from pgn_feeds_test import Configured, tags_of, trf_line

TOKEN = "pairings-rounds-test-token-0123456789"


def request(port, method, path, body=None, token=TOKEN, raw=None):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=data)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (ConnectionResetError, BrokenPipeError, urllib.error.URLError) as e:
        return -1, str(e)


def big_trf(players=500, round_=9):
    """Rounds 1..round_-1 played (each player k against k ± half, results alternating), round_ paired alike."""
    lines = ["012 Grand Swiss Open", "022 Lyon", "032 FRA", "042 2026/11/20", "052 2026/11/28", "XXR 9"]
    half = players // 2
    for rank in range(1, players + 1):
        rounds = []
        for r in range(1, round_ + 1):
            if rank <= half:
                opp, colour = rank + half, "w" if (rank + r) % 2 else "b"
            else:
                opp, colour = rank - half, "b" if (rank - half + r) % 2 else "w"
            result = " " if r == round_ else ("1" if colour == "w" else "0")
            rounds.append((opp, colour, result))
        lines.append(trf_line(rank, f"Spieler{rank:03d}, Jörg", 2600 - rank, 200000 + rank, rounds))
    return "\r\n".join(lines) + "\r\n"


def run(h, exe, ctl):
    boards = "".join(f'[[board]]\nid = "{i}"\nport = "/nonexistent/eboard-{i}"\nprotocol = "dgt"\n\n'
                     for i in range(1, 5))
    config = (f'state_dir = "@STATE@"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
              f'[event]\nname = "Pairings Test"\nround = "1"\n\n' + boards)
    d = Configured(h, exe, "pairings", config)
    d.start()

    def ctl_run(*args):
        return subprocess.run([ctl, args[0], "--daemon", f"127.0.0.1:{d.port}", "--token", TOKEN] + list(args[1:]),
                              capture_output=True, timeout=60)

    def games():
        return {t["Board"]: t for t in tags_of(d.get("/games.pgn")[1])}

    # Swiss-Manager's "ANSI" CSV: Windows-1252, ';', CRLF.
    names = {1: ("Müller, Jürgen", "Ñúñez, José"), 2: ("Šimek, Œdipe", "Dupré, Zoë"),
             3: ("Ødegaard, Åse", "Łukasz?"), 4: ("Smith, John", "Garçon, François")}
    names[3] = ("Ødegaard, Åse", "Çelik, Ayla")
    ansi = os.path.join(h.dir, "round1-ansi.csv")
    with open(ansi, "wb") as f:
        f.write("board;white;black;white_elo;black_elo\r\n".encode("cp1252"))
        for k, (w, b) in names.items():
            f.write(f"{k};{w};{b};{2100 + k};{2000 + k}\r\n".encode("cp1252"))
    r = ctl_run("pairings", ansi)
    h.check(r.returncode == 0, f"eboardctl pairings (Windows-1252 CSV): {r.returncode} {r.stderr!r}")
    g = games()
    for k, (w, b) in names.items():
        h.check(g[str(k)].get("White") == w and g[str(k)].get("Black") == b, f"board {k}: {g[str(k)]}")
    # Named: the same names in ISO-8859-1 (no Š, Œ there: boards 1, 3, 4 only) and in UTF-8 with a BOM.
    latin = os.path.join(h.dir, "round1-latin1.csv")
    with open(latin, "wb") as f:
        f.write(b"board,white,black\n" + "1,\"Müller, Jürgen\",\"Ñúñez, José\"\n".encode("latin-1"))
    r = ctl_run("pairings", latin, "--encoding", "ISO-8859-1")
    h.check(r.returncode == 0 and games()["1"].get("White") == "Müller, Jürgen",
            f"--encoding ISO-8859-1: {r.returncode} {r.stderr!r}")
    r = ctl_run("pairings", latin, "--encoding", "UTF-8")
    h.check(r.returncode == 2 and b"line 2" in r.stderr and b"not UTF-8" in r.stderr,
            f"a Latin-1 file named UTF-8: refused with its line, not an abort: {r.returncode} {r.stderr!r}")
    r = ctl_run("pairings", latin, "--encoding", "NO-SUCH-CODE")
    h.check(r.returncode == 2 and b"unknown encoding" in r.stderr, f"an unknown encoding: {r.returncode} {r.stderr!r}")
    bom = os.path.join(h.dir, "round1-bom.csv")
    with open(bom, "wb") as f:
        f.write(b"\xef\xbb\xbf" + "board,white,black\n2,\"Šimek, Œdipe\",\"Dupré, Zoë\"\n".encode())
    r = ctl_run("pairings", bom)
    h.check(r.returncode == 0 and games()["2"].get("White") == "Šimek, Œdipe", f"UTF-8 with BOM: {r.stderr!r}")
    r = ctl_run("pairings", ansi)  # back to the round's pairings
    h.check(r.returncode == 0, "the ANSI file again")

    # A 500-player TRF (round 5): the whole file is taken; the daemon names the boards it lacks.
    trf = big_trf()
    h.check(len(trf.encode()) > 90_000, f"the TRF is {len(trf.encode())} bytes")
    code, body = request(d.port, "POST", "/control/pairings", {"text": trf, "round": "1"})
    h.check(code == 409 and "no board for board number" in body and "250" in body,
            f"a 500-player TRF: {code} {body[:300]}")
    path = os.path.join(h.dir, "grand-swiss.trf")
    with open(path, "wb") as f:
        f.write(trf.encode("cp1252"))
    r = ctl_run("pairings", path, "--round", "1")
    h.check(r.returncode == 1 and b"no board for board number" in r.stderr,
            f"eboardctl pairings (500-player TRF, Windows-1252): {r.returncode} {r.stderr[:300]!r}")
    big = json.dumps({"text": trf}).encode()
    code, body = request(d.port, "POST", "/control/pairings", raw=big, token=None)
    h.check(code in (413, -1), f"without the token a large body is refused: {code} {body[:200]}")
    code, body = request(d.port, "POST", "/control/1/tags", raw=big)
    h.check(code in (413, -1), f"a large body on another control path: {code} {body[:200]}")
    h.check(games()["1"].get("White") == names[1][0], "a refused file changed the tags")

    # Board 1's round-1 game is over; round 2's pairings come before `eboardctl round 2`.
    code, body = request(d.port, "POST", "/control/1/resign", {"side": "black"})
    h.check(code == 200, f"resign: {code} {body}")
    ep.wait_until(lambda: games()["1"].get("Result") == "1-0", 15, "board 1's 1-0 in /games.pgn")
    games_dir = os.path.join(d.state, "games")

    def board1_files():  # the finished files only: a writer's temporary file may vanish between list and open
        out = {}
        for n in sorted(os.listdir(games_dir)):
            if n.startswith("1-") and ".tmp." not in n:
                try:
                    out[n] = open(os.path.join(games_dir, n), "rb").read()
                except FileNotFoundError:
                    pass
        return out

    ep.wait_until(lambda: any(b"1-0" in v for k, v in board1_files().items() if k.endswith(".pgn")) and
                  any(k.endswith(".sig") for k in board1_files()), 15, "board 1's finished game file and signature")

    def settled():  # written alike twice, a second apart (the archive writer is done with it)
        a = board1_files()
        time.sleep(1)
        return a if a == board1_files() else None

    before = ep.wait_until(settled, 15, "board 1's files settled")
    round2 = os.path.join(h.dir, "round2.csv")
    with open(round2, "w") as f:
        f.write("board,white,black\n")
        for k in range(1, 5):
            f.write(f"{k},R2 White{k},R2 Black{k}\n")
    r = ctl_run("pairings", round2, "--round", "2")
    h.check(r.returncode == 0 and b"wait" in r.stdout, f"round 2's pairings before round 2: {r.returncode} "
            f"{r.stdout!r} {r.stderr!r}")
    g = games()
    h.check(g["1"].get("White") == names[1][0] and g["1"].get("Round") == "1" and g["1"].get("Result") == "1-0",
            f"the finished round-1 game after round 2's pairings: {g['1']}")
    h.check(g["2"].get("White") == names[2][0], f"a round-1 game not begun took round 2's players early: {g['2']}")
    h.check(board1_files() == before, "round 2's pairings rewrote board 1's finished game file or its signature")

    r = ctl_run("round", "2")
    h.check(r.returncode == 0, f"eboardctl round 2: {r.returncode} {r.stderr!r}")
    archived = {t["Board"]: t for t in tags_of(open(os.path.join(d.state, "rounds", "1.pgn")).read())}
    h.check(archived["1"].get("White") == names[1][0] and archived["1"].get("Result") == "1-0" and
            archived["1"].get("Round") == "1", f"rounds/1.pgn: {archived['1']}")
    g = games()
    for k in range(2, 5):
        h.check(g[str(k)].get("White") == f"R2 White{k}" and g[str(k)].get("Round") == "2",
                f"board {k} in round 2: {g[str(k)]}")
    h.check(board1_files() == before, "round 2's start rewrote board 1's finished game file")
    r = ctl_run("pairings", ansi, "--round", "1")
    h.check(r.returncode == 1 and b"is over" in r.stderr, f"pairings of the archived round 1: {r.returncode} "
            f"{r.stderr!r}")

    # Board 1 takes round 2's players at its next game, after a restart too.
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    d.start()
    code, body = request(d.port, "POST", "/control/1/new-game", {})
    h.check(code == 200, f"new-game: {code} {body}")
    b1 = tags_of(d.get("/boards/1.pgn")[1])[0]
    h.check(b1.get("White") == "R2 White1" and b1.get("Black") == "R2 Black1" and b1.get("Round") == "2",
            f"board 1's round-2 game: {b1}")
    # The restart writes the current game's file again (signed anew then; the journal's replay may order
    # the tags otherwise): the same tags, the round-1 players and Round "1".
    after = board1_files()
    changed = [k for k, v in before.items() if k.endswith(".pgn") and
               tags_of(after.get(k, b"").decode()) != tags_of(v.decode())]
    h.check(not changed, f"board 1's round-1 game file changed: {[(before[k], after.get(k)) for k in changed]}")

    # The results of round 1, for the pairing program.
    code, csv = request(d.port, "GET", "/round/results.csv?round=1")
    h.check(code == 200 and f'1,"{names[1][0]}","{names[1][1]}",2101,2001,1-0,resignation' in csv,
            f"/round/results.csv?round=1: {code} {csv}")
    code, trf1 = request(d.port, "GET", "/round/results.trf?round=1")
    lines = [l for l in trf1.splitlines() if l.startswith("001")]
    h.check(code == 200 and len(lines) == 8 and lines[0][91:99] == "   2 w 1" and lines[1][91:99] == "   1 b 0",
            f"/round/results.trf?round=1: {code} {trf1}")
    r = ctl_run("results", "--round", "1", "--format", "csv", "--encoding", "WINDOWS-1252")
    h.check(r.returncode == 0 and "Müller, Jürgen".encode("cp1252") in r.stdout,
            f"eboardctl results (Windows-1252): {r.returncode} {r.stdout!r} {r.stderr!r}")
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    print("pairings: Windows-1252/Latin-1/UTF-8 files, a 500-player TRF, round 2's pairings waiting, results",
          flush=True)


def main():
    exe, ctl = sys.argv[1], sys.argv[2]
    with ep.Harness("pairings-rounds") as h:
        try:
            run(h, exe, ctl)
        except ep.TestFailure as e:
            h.check(False, str(e))
        return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
