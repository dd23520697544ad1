#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Every result an arbiter gives (issue 27), on a real eboardd with pairings, through `eboardctl result`.

  - Bad input: a result that is none, an unknown game, an unknown field, no reason: 400 with the reason; no
    token: 401. Nothing changes.
  - Board 2: a forfeit (+/-) on the current game: 200, and the GET of /games.pgn right after shows 1-0,
    Termination "forfeit", ArbiterResult "+/-", rule 6.7.1; /ws tells a `result` event with reason forfeit.
  - Board 1's game 1: its moves corrected from the scoresheets (`eboardctl moves`): an illegal one refused with
    its ply, the current game's refused; the record rewritten with its result kept, kept as it was, signed again.
  - Board 3: a flag the arbiter saw (1/2-1/2, rule 6.9) on the current game, then its correction to 1-0 (the
    record as it was kept as .v1 with its signature), then, once set up again, a double forfeit (-/-) of that
    earlier game 1.
  - Board 1: game 1 resigned (1-0), the board set up for game 2; the arbiter corrects game 1 to 0-1 (an
    earlier game): /games.pgn, /ws (game, corrected, previous), the file rewritten and signed again, its
    earlier version kept beside it. `eboardctl verify` says both intact; a forged edit of the corrected
    record is caught.
  - The round's TRF-16 (+ - for forfeits, - - for the double forfeit) and CSV, the same after a restart (the
    current game's result replayed from the journal), and rounds/1.pgn once round 2 begins.
  - state_dir/arbiter.log journals who, when and why.
  - Round 2 begun: board 2's game (over, not set up again) and board 3's game 1, both of round 1, corrected:
    rounds/1.pgn rewritten (kept as .v1, .v2), the round's CSV follows, the records verify.
  - A bughouse match (run_match): a forfeit on board B ends the match (BPGN right after the 200), the match
    refuses a resignation after it, a correction on board A keeps and re-signs the archive, a restart replays
    it, an earlier match is corrected through board B's game 1; the clock of a match board answers as a single
    board's (offline here).

usage: arbiter_results_test.py EBOARDD EBOARDCTL
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

import eboardctl_proc as ep
from pairings_rounds_test import request
from pgn_feeds_test import Configured, tags_of

TOKEN = "pairings-rounds-test-token-0123456789"  # pairings_rounds_test.request's


def run(h, exe, ctl):
    boards = "".join(f'[[board]]\nid = "{i}"\nport = "/nonexistent/eboard-{i}"\nprotocol = "dgt"\n\n'
                     for i in range(1, 4))
    config = (f'state_dir = "@STATE@"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
              f'[event]\nname = "Arbiter Test"\n\n' + boards)
    d = Configured(h, exe, "arbiter", config)
    d.start()
    games_dir = os.path.join(d.state, "games")

    def ctl_run(*args):
        return subprocess.run([ctl, args[0], "--daemon", f"127.0.0.1:{d.port}", "--token", TOKEN] + list(args[1:]),
                              capture_output=True, text=True, timeout=60)

    def games():
        """Board id → the list of its games' tags in /games.pgn, in order."""
        out = {}
        for t in tags_of(d.get("/games.pgn")[1]):
            out.setdefault(t["Board"], []).append(t)
        return out

    def verify(*args):
        p = subprocess.run([ctl, "verify", *args], capture_output=True, text=True, timeout=30)
        print(f"$ eboardctl verify {' '.join(os.path.basename(a) for a in args)} -> {p.returncode}\n"
              f"{p.stdout}{p.stderr}", flush=True)
        return p.returncode, p.stdout + p.stderr

    def record(board, number):
        paths = [p for p in glob.glob(os.path.join(games_dir, f"{board}-*-{number}.pgn")) if ".tmp." not in p]
        return paths[0] if len(paths) == 1 else None

    r = ctl_run("round", "1")
    h.check(r.returncode == 0, f"eboardctl round 1: {r.returncode} {r.stderr}")
    pairings = os.path.join(h.dir, "round1.csv")
    with open(pairings, "w") as f:
        f.write("board,white,black\n1,Alpha,Beta\n2,Gamma,Delta\n3,Eps,Zeta\n")
    r = ctl_run("pairings", pairings)
    h.check(r.returncode == 0, f"eboardctl pairings: {r.returncode} {r.stderr}")
    ws = ep.WebSocket(d.port)

    # Bad input: a clear 400 (or 401), nothing changes.
    for body, word in [({"result": "2-0", "reason": "x"}, "2-0"), ({"result": "1-0", "reason": "x", "game": 9}, "game"),
                       ({"result": "1-0", "reason": "x", "color": "w"}, "color"), ({"result": "1-0"}, "reason"),
                       ({"result": "1-0", "reason": "x", "kind": "forfeit"}, "forfeit"),
                       ({"result": "-/-", "reason": "x"}, "double forfeit")]:
        code, text = request(d.port, "POST", "/control/2/result", body)
        want = 409 if body["result"] == "-/-" else 400
        h.check(code == want and word in text and "error" in json.loads(text),
                f"{body}: {code} {text} (want {want} naming {word!r})")
    code, text = request(d.port, "POST", "/control/2/result", {"result": "1-0", "reason": "x"}, token=None)
    h.check(code == 401, f"without the token: {code} {text}")
    r = ctl_run("result", "2", "3-0", "--reason", "x")
    h.check(r.returncode == 2, f"eboardctl result with 3-0: {r.returncode} {r.stderr}")
    h.check(all(t.get("Result") == "*" for ts in games().values() for t in ts), "bad input changed a result")

    # Board 2: a forfeit on the current game; /games.pgn shows it at once after the 200.
    r = ctl_run("result", "2", "+/-", "--reason", "Black did not come within the default time", "--arbiter", "Chief A")
    h.check(r.returncode == 0, f"eboardctl result 2 +/-: {r.returncode} {r.stdout} {r.stderr}")
    g2 = games()["2"][-1]
    h.check(g2.get("Result") == "1-0" and g2.get("Termination") == "forfeit" and g2.get("ArbiterResult") == "+/-"
            and g2.get("ArbiterRule") == "6.7.1" and "Chief A" in g2.get("ArbiterBy", "")
            and g2.get("White") == "Gamma", f"board 2 right after the 200: {g2}")

    # Board 3: a flag the arbiter saw, then its correction on the current game (over).
    r = ctl_run("result", "3", "1/2-1/2", "--kind", "flag", "--reason", "White's flag fell; Black has a bare king")
    h.check(r.returncode == 0, f"eboardctl result 3 flag: {r.returncode} {r.stderr}")
    g3 = games()["3"][-1]
    h.check(g3.get("Result") == "1/2-1/2" and g3.get("Termination") == "flag" and g3.get("ArbiterRule") == "6.9",
            f"board 3 after the flag: {g3}")
    code, text = request(d.port, "POST", "/control/3/result",
                         {"result": "1-0", "reason": "the flag was Black's, not White's", "rule": "6.9"})
    answer = json.loads(text)
    h.check(code == 200 and answer.get("corrected") is True and answer.get("previous") == "1/2-1/2"
            and any(k.endswith(".v1") for k in answer.get("kept", [])), f"board 3's correction: {code} {text}")
    g3 = games()["3"][-1]
    h.check(g3.get("Result") == "1-0" and g3.get("ArbiterPrevious") == "1/2-1/2 flag", f"board 3 corrected: {g3}")
    rec3 = record("3", 1)
    h.check(rec3 and "1/2-1/2" in open(rec3 + ".v1").read() and os.path.isfile(rec3 + ".v1.sig"),
            f"board 3's record as it was, kept: {rec3}")

    # Board 1: game 1 resigned, the board set up again, then game 1 corrected (an earlier game).
    code, text = request(d.port, "POST", "/control/1/resign", {"side": "black"})
    h.check(code == 200, f"resign: {code} {text}")
    code, text = request(d.port, "POST", "/control/1/new-game", {})
    h.check(code == 200, f"new-game: {code} {text}")
    ep.wait_until(lambda: record("1", 1) and os.path.isfile(record("1", 1) + ".sig"), 15, "board 1 game 1's file")
    rec1 = record("1", 1)
    rc, out = verify(rec1)
    h.check(rc == 0 and "INTACT" in out, f"board 1's game 1 before the correction: {rc}")
    r = ctl_run("result", "1", "0-1", "--game", "1", "--rule", "11.3.2", "--reason",
                "White's phone rang during the game; the resignation was entered on the wrong side")
    h.check(r.returncode == 0, f"eboardctl result 1 0-1 --game 1: {r.returncode} {r.stdout} {r.stderr}")
    g1 = games()["1"]
    h.check(len(g1) >= 1 and g1[0].get("Result") == "0-1" and g1[0].get("ArbiterPrevious") == "1-0 resignation"
            and g1[0].get("Termination") == "arbiter" and g1[0].get("ArbiterRule") == "11.3.2"
            and g1[0].get("White") == "Alpha", f"board 1's game 1 right after the 200: {g1}")
    text = open(rec1).read()
    h.check('[Result "0-1"]' in text and text.rstrip().endswith("0-1"), f"the record rewritten: {text}")
    h.check('[Result "1-0"]' in open(rec1 + ".v1").read() and os.path.isfile(rec1 + ".v1.sig"),
            "board 1's record as it was, not kept")
    rc, out = verify(rec1)
    h.check(rc == 0 and "INTACT" in out, f"the corrected record does not verify: {rc}")
    rc, out = verify(rec1 + ".v1")
    h.check(rc == 0 and "INTACT" in out, f"the earlier version kept does not verify: {rc}")
    # A forged edit of the corrected record (in a copy with its journal): caught.
    forged_dir = os.path.join(h.dir, "forged")
    shutil.copytree(os.path.join(d.state, "journal"), os.path.join(forged_dir, "journal"))
    os.makedirs(os.path.join(forged_dir, "games"))
    copy = os.path.join(forged_dir, "games", os.path.basename(rec1))
    shutil.copy(rec1 + ".sig", copy + ".sig")
    with open(copy, "w") as f:
        f.write(text.replace('[Result "0-1"]', '[Result "1-0"]'))
    rc, out = verify(copy)
    h.check(rc == 1 and "ALTERED" in out, f"a forged edit of the corrected record: {rc}")
    shutil.copy(rec1, copy)
    rc, out = verify(copy)
    h.check(rc == 0 and "INTACT" in out, f"the faithful copy: {rc}")

    # Board 1's game 1: its moves corrected from the scoresheets (an illegal one refused, with its ply).
    code, text = request(d.port, "POST", "/control/1/moves",
                         {"game": 1, "from_ply": 1, "moves": "e4 e5 Nf3 Kd7", "reason": "x"})
    h.check(code == 409 and "ply 4" in text, f"an illegal move in a correction: {code} {text}")
    code, text = request(d.port, "POST", "/control/1/moves", {"game": 2, "from_ply": 1, "moves": "e4", "reason": "x"})
    h.check(code == 409 and "current game" in text,
            f"moves of the current game: {code} {text}")
    r = ctl_run("moves", "1", "--game", "1", "--from-ply", "1", "--moves", "e4 e5 Nf3 Nc6",
                "--reason", "the scoresheets, signed by both players")
    h.check(r.returncode == 0, f"eboardctl moves: {r.returncode} {r.stdout} {r.stderr}")
    pgn1 = [g for g in d.get("/games.pgn")[1].split("\n\n[Event") if '[Board "1"]' in g][0]
    h.check("1. e4 e5 2. Nf3 Nc6 0-1" in pgn1.replace("\n", " ") and
            '[MovesCorrected "from ply 1; was: -"]' in pgn1 and '[ArbiterResult "0-1"]' in pgn1,
            f"board 1's game 1 with its moves corrected, its result kept: {pgn1}")
    h.check(os.path.isfile(rec1 + ".v2") and os.path.isfile(rec1 + ".v2.sig"), "board 1's second version not kept")
    rc, out = verify(rec1)
    h.check(rc == 0 and "INTACT" in out, f"the record with its moves corrected does not verify: {rc}")

    # Board 3 set up again; its game 1 becomes a double forfeit.
    code, text = request(d.port, "POST", "/control/3/new-game", {})
    h.check(code == 200, f"new-game 3: {code} {text}")
    r = ctl_run("result", "3", "--game", "1", "--reason", "neither player was there", "--", "-/-")
    h.check(r.returncode == 0, f"eboardctl result 3 -/- --game 1: {r.returncode} {r.stdout} {r.stderr}")
    g3 = games()["3"][0]
    h.check(g3.get("Result") == "*" and g3.get("ArbiterResult") == "-/-" and g3.get("Termination") == "forfeit"
            and g3.get("ArbiterPrevious") == "1-0 arbiter", f"board 3's game 1 as a double forfeit: {g3}")
    h.check(os.path.isfile(rec3 + ".v2") and os.path.isfile(rec3 + ".v2.sig"), "board 3's second version not kept")
    rc, out = verify(rec3)
    h.check(rc == 0 and "INTACT" in out, f"board 3's record after -/-: {rc}")
    # /ws: each result told, the earlier game's with its number and what it replaces.
    def results():
        return [e for e in ws.snapshot() if e.get("type") == "result"]
    ep.wait_until(lambda: len(results()) >= 5, 15, "the result events on /ws")
    ev = results()
    h.check(any(e["board"] == "2" and e["result"] == "1-0" and e["reason"] == "forfeit" for e in ev), f"/ws: {ev}")
    h.check(any(e["board"] == "3" and e["result"] == "1/2-1/2" and e["reason"] == "flag" for e in ev), f"/ws: {ev}")
    h.check(any(e["board"] == "3" and e["result"] == "1-0" and e["reason"] == "arbiter" for e in ev), f"/ws: {ev}")
    h.check(any(e["board"] == "1" and e.get("game") == 1 and e["result"] == "0-1" and e["reason"] == "arbiter"
                and e.get("corrected") is True and e.get("previous") == "1-0" for e in ev), f"/ws: {ev}")
    h.check(not any(e["board"] == "3" and e.get("game") == 1 and e.get("previous") == "1-0" and e["result"] == "*"
                    for e in ev), "a result event with no result (-/-)")
    ws.close()

    def check_results(where):
        code, csv = request(d.port, "GET", "/round/results.csv" + where)
        h.check(code == 200 and "1,Alpha,Beta,,,0-1,arbiter" in csv and "2,Gamma,Delta,,,+/-,forfeit" in csv
                and "3,Eps,Zeta,,,-/-,forfeit" in csv, f"/round/results.csv{where}: {code} {csv}")
        code, trf = request(d.port, "GET", "/round/results.trf" + where)
        lines = [l for l in trf.splitlines() if l.startswith("001")]
        got = [l[91:99] for l in lines]
        h.check(code == 200 and got == ["   2 w 0", "   1 b 1", "   4 w +", "   3 b -", "   6 w -", "   5 b -"],
                f"/round/results.trf{where}: {code} {got}\n{trf}")
        r = ctl_run("results", "--format", "csv", *(["--round", "1"] if where else []))
        h.check(r.returncode == 0 and "2,Gamma,Delta,,,+/-,forfeit" in r.stdout, f"eboardctl results: {r.stdout}")

    check_results("")

    log = [json.loads(l) for l in open(os.path.join(d.state, "arbiter.log"))]
    h.check(len(log) == 6 and all(e.get("who") and e.get("why") and e.get("utc") for e in log)
            and log[0]["board"] == "2" and "Chief A" in log[0]["who"] and "127.0.0.1" in log[0]["who"]
            and log[3]["board"] == "1" and log[3]["previous"] == "1-0" and log[3]["kept"]
            and log[4].get("action") == "moves" and log[4]["from_ply"] == 1,
            f"state_dir/arbiter.log: {log}")

    # A restart: the current games' results come back from the journal, the earlier ones from their files.
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    d.start()
    g = games()
    h.check(g["2"][-1].get("Result") == "1-0" and g["2"][-1].get("ArbiterResult") == "+/-"
            and g["1"][0].get("Result") == "0-1" and g["3"][0].get("ArbiterResult") == "-/-",
            f"after a restart: {g}")

    # Round 2 begins: rounds/1.pgn holds every result, and the round's export reads from it.
    r = ctl_run("round", "2")
    h.check(r.returncode == 0, f"eboardctl round 2: {r.returncode} {r.stderr}")
    archived = {}
    for t in tags_of(open(os.path.join(d.state, "rounds", "1.pgn")).read()):
        archived.setdefault(t["Board"], []).append(t)
    h.check(archived["1"][0].get("Result") == "0-1" and archived["2"][-1].get("ArbiterResult") == "+/-"
            and archived["3"][0].get("ArbiterResult") == "-/-", f"rounds/1.pgn: {archived}")
    check_results("?round=1")

    # Games of the archived round 1 corrected: board 2's (still its current game, over) and board 3's game 1
    # (an earlier one); their records and rounds/1.pgn rewritten, the archive as it was kept beside it.
    round1 = os.path.join(d.state, "rounds", "1.pgn")
    rec2 = record("2", 1)
    r = ctl_run("result", "2", "1/2-1/2", "--reason", "the forfeit was entered on the wrong board")
    h.check(r.returncode == 0, f"a correction of board 2's game of round 1: {r.returncode} {r.stdout} {r.stderr}")
    r = ctl_run("result", "3", "0-1", "--game", "1", "--reason", "White arrived; Black won on the board")
    h.check(r.returncode == 0, f"a correction of board 3's game 1 of round 1: {r.returncode} {r.stdout} {r.stderr}")
    archived = {}
    for t in tags_of(open(round1).read()):
        archived.setdefault(t["Board"], []).append(t)
    h.check(archived["2"][-1].get("Result") == "1/2-1/2" and archived["2"][-1].get("ArbiterPrevious") == "+/- forfeit"
            and archived["3"][0].get("Result") == "0-1" and archived["3"][0].get("ArbiterPrevious") == "* forfeit"
            and archived["1"][0].get("Result") == "0-1", f"rounds/1.pgn corrected: {archived}")
    h.check(os.path.isfile(round1 + ".v1") and os.path.isfile(round1 + ".v2")
            and '[ArbiterResult "+/-"]' in open(round1 + ".v1").read(), "rounds/1.pgn as it was, not kept")
    code, csv = request(d.port, "GET", "/round/results.csv?round=1")
    h.check(code == 200 and "2,Gamma,Delta,,,1/2-1/2,arbiter" in csv and "3,Eps,Zeta,,,0-1,arbiter" in csv,
            f"/round/results.csv?round=1 after the corrections: {code} {csv}")
    h.check('[Result "1/2-1/2"]' in open(rec2).read(), "board 2's record not corrected")
    for rec in (rec2, rec3):
        rc, out = verify(rec)
        h.check(rc == 0 and "INTACT" in out, f"{os.path.basename(rec)} corrected in round 2: {rc}")
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    print("arbiter results: forfeit, flag, decision, corrections of the current and an earlier game, moves, -/-; "
          "verify, TRF/CSV, archive, restart; games of the archived round corrected", flush=True)


def bpgn_tags(text):
    """The tag section of a BPGN (one match) as a dict."""
    tags = {}
    for line in text.splitlines():
        if line.startswith("[") and line.endswith('"]') and ' "' in line:
            name, value = line[1:-2].split(' "', 1)
            tags[name] = value.replace('\\"', '"')
    return tags


def run_match(h, exe, ctl):
    """A bughouse match (boards A and B): the arbiter's result on one board ends the match, a correction keeps
    the earlier BPGN and re-signs it, the result survives a restart, an earlier match is corrected, and the
    clock of a match board answers as a single board's does."""
    config = (f'state_dir = "@STATE@"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
              f'[event]\nname = "Match Arbiter Test"\n\n'
              + "".join(f'[[board]]\nid = "{i}"\nport = "/nonexistent/eboard-{i}"\nprotocol = "dgt"\n\n' for i in "AB")
              + '[[match]]\nboards = ["A", "B"]\nrules = "bughouse-fqe"\n')
    d = Configured(h, exe, "match-arbiter", config)
    d.start()
    games_dir = os.path.join(d.state, "games")
    archive = os.path.join(games_dir, "match-A-B-1.bpgn")

    def ctl_run(*args):
        return subprocess.run([ctl, args[0], "--daemon", f"127.0.0.1:{d.port}", "--token", TOKEN] + list(args[1:]),
                              capture_output=True, text=True, timeout=60)

    def verify(path):
        p = subprocess.run([ctl, "verify", path], capture_output=True, text=True, timeout=30)
        print(f"$ eboardctl verify {os.path.basename(path)} -> {p.returncode}\n{p.stdout}{p.stderr}", flush=True)
        return p.returncode, p.stdout + p.stderr

    def served():
        code, text = d.get("/matches/A-B.bpgn")
        h.check(code == 200, f"/matches/A-B.bpgn: {code}")
        return bpgn_tags(text), text

    def games():
        out = {}
        for t in tags_of(d.get("/games.pgn")[1]):
            out.setdefault(t["Board"], []).append(t)
        return out

    r = ctl_run("round", "1")
    h.check(r.returncode == 0, f"eboardctl round 1: {r.returncode} {r.stderr}")

    # The clock of a match board: the single board's answer (offline here), not a refusal for being in a match.
    code, text = request(d.port, "POST", "/control/B/clock", {"left": "0:10:00", "right": "0:10:00"})
    h.check(code == 409 and "offline" in text and "match" not in text,
            f"the clock of an offline match board: {code} {text}")

    # A forfeit on board B: B's White wins, so team 2 (White B, Black A) wins the match.
    code, text = request(d.port, "POST", "/control/B/result",
                         {"result": "+/-", "reason": "Black B did not come within the default time", "arbiter": "Chief M"})
    answer = json.loads(text)
    h.check(code == 200 and answer.get("match", {}).get("result") == "0-1"
            and answer["match"].get("reason") == "forfeit", f"a forfeit on match board B: {code} {text}")
    tags, bpgn = served()
    h.check(tags.get("Result") == "0-1" and tags.get("Termination") == "forfeit" and tags.get("ArbiterBoard") == "B"
            and tags.get("ArbiterResult") == "-/+" and tags.get("ArbiterRule") == "6.7.1"
            and "Chief M" in tags.get("ArbiterBy", "") and bpgn.rstrip().endswith("0-1"),
            f"the BPGN right after the 200: {bpgn}")
    g = games()
    h.check(g["B"][-1].get("Result") == "1-0" and g["B"][-1].get("ArbiterResult") == "+/-"
            and g["A"][-1].get("Result") == "0-1" and g["A"][-1].get("Termination") == "partner-board",
            f"both boards' games in /games.pgn: {g}")
    # Once over, the match takes no other result than the arbiter's.
    code, text = request(d.port, "POST", "/control/A/resign", {"side": "white"})
    h.check(code == 409, f"a resignation after the match: {code} {text}")
    ep.wait_until(lambda: os.path.isfile(archive + ".sig") and "ArbiterBoard" in open(archive).read(), 15,
                  "the match's archive, signed, with the arbiter's tags")
    rc, out = verify(archive)
    h.check(rc == 0 and "INTACT" in out, f"the match's archive: {rc}")

    # A correction on board A: the earlier archive kept, the new one signed, both intact.
    r = ctl_run("result", "A", "1/2-1/2", "--reason", "Black B was there: the pairing list was wrong",
                "--rule", "12.2", "--json")
    print(f"eboardctl result A 1/2-1/2: {r.returncode} {r.stdout} {r.stderr}", flush=True)
    answer = json.loads(r.stdout) if r.returncode == 0 else {}
    h.check(r.returncode == 0 and answer.get("corrected") is True and answer.get("match", {}).get("result") == "1/2-1/2"
            and archive + ".v1" in answer.get("kept", []), f"the correction on board A: {r.returncode} {r.stdout}")
    tags, bpgn = served()
    h.check(tags.get("Result") == "1/2-1/2" and tags.get("Termination") == "arbiter" and tags.get("ArbiterBoard") == "A"
            and tags.get("ArbiterRule") == "12.2" and tags.get("ArbiterPrevious") == "0-1 partner-board",
            f"the BPGN corrected: {bpgn}")
    h.check('[Result "0-1"]' in open(archive + ".v1").read() and os.path.isfile(archive + ".v1.sig"),
            "the match's archive as it was, not kept")
    g = games()
    h.check(g["A"][-1].get("Result") == "1/2-1/2" and g["B"][-1].get("Result") == "1-0",
            f"the boards after the correction (B ended by its own forfeit keeps it): {g}")
    ep.wait_until(lambda: '[Result "1/2-1/2"]' in open(archive).read() and os.path.isfile(archive + ".sig")
                  and verify(archive)[0] == 0, 15, "the corrected archive, signed again")
    rc, out = verify(archive + ".v1")
    h.check(rc == 0 and "INTACT" in out, f"the earlier archive kept: {rc}")

    # A restart: the match's result comes back from the journals.
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    d.start()
    tags, bpgn = served()
    h.check(tags.get("Result") == "1/2-1/2" and tags.get("ArbiterBoard") == "A", f"the BPGN after a restart: {bpgn}")

    # The next match, then the first one corrected on board B (an earlier game): its archive rewritten.
    code, text = request(d.port, "POST", "/control/A/new-game", {})
    h.check(code == 200, f"new-game on a match board: {code} {text}")
    ep.wait_until(lambda: json.loads(d.get("/status")[1]).get("matches", [{}])[0].get("number") == 2, 15,
                  "match 2 begun")
    r = ctl_run("result", "B", "0-1", "--game", "1", "--reason", "White B's phone rang", "--rule", "11.3.2")
    print(f"eboardctl result B 0-1 --game 1: {r.returncode} {r.stdout} {r.stderr}", flush=True)
    h.check(r.returncode == 0, f"an earlier match corrected: {r.returncode} {r.stderr}")
    text = open(archive).read()
    t1 = bpgn_tags(text)
    h.check(t1.get("Result") == "1-0" and t1.get("ArbiterBoard") == "B" and t1.get("ArbiterResult") == "1-0"
            and t1.get("ArbiterPrevious") == "1/2-1/2 arbiter" and text.rstrip().endswith("1-0"),
            f"match 1's archive corrected: {text}")
    h.check(os.path.isfile(archive + ".v2"), "match 1's second version not kept")
    code, text = d.get("/matches/A-B.bpgn?match=1")
    t1 = bpgn_tags(text)
    h.check(code == 200 and t1.get("Result") == "1-0" and t1.get("ArbiterBoard") == "B",
            f"/matches/A-B.bpgn?match=1 after the correction: {code} {text}")
    rc, out = verify(archive)
    h.check(rc == 0 and "INTACT" in out, f"match 1's archive corrected and signed again: {rc}")
    log = [json.loads(l) for l in open(os.path.join(d.state, "arbiter.log"))]
    h.check([(e["board"], e["game"], e["result"]) for e in log] == [("B", 1, "+/-"), ("A", 1, "1/2-1/2"), ("B", 1, "0-1")],
            f"state_dir/arbiter.log: {log}")

    # Match 2 decided on board A (B's game stopped: partner-board), match 3 begun, then match 2 corrected on
    # board A: B's record of game 2 follows the match, kept as it was and signed again.
    r = ctl_run("result", "A", "1-0", "--reason", "Black A left the hall")
    h.check(r.returncode == 0, f"match 2 decided on A: {r.returncode} {r.stderr}")
    ep.wait_until(lambda: (games().get("B") or [{}])[-1].get("Termination") == "partner-board", 15,
                  "B's game 2 stopped by its partner board")
    code, text = request(d.port, "POST", "/control/A/new-game", {})
    h.check(code == 200, f"new-game: {code} {text}")
    ep.wait_until(lambda: json.loads(d.get("/status")[1]).get("matches", [{}])[0].get("number") == 3, 15,
                  "match 3 begun")
    r = ctl_run("result", "A", "0-1", "--game", "2", "--reason", "Black A had only stepped out", "--rule", "11.2.3",
                "--json")
    print(f"eboardctl result A 0-1 --game 2: {r.returncode} {r.stdout} {r.stderr}", flush=True)
    answer = json.loads(r.stdout) if r.returncode == 0 else {}
    partner = answer.get("partner") or {}
    h.check(r.returncode == 0 and partner.get("board") == "B" and partner.get("game") == 2
            and partner.get("result") == "1-0" and partner.get("previous") == "0-1" and "error" not in partner,
            f"match 2 corrected on A, B's record following: {r.returncode} {r.stdout}")
    code, text = d.get("/boards/B.pgn?game=2")
    t = bpgn_tags(text)
    h.check(code == 200 and t.get("Result") == "1-0" and t.get("Termination") == "partner-board"
            and t.get("ArbiterBoard") == "A" and t.get("ArbiterPrevious") == "0-1 partner-board"
            and "ArbiterResult" not in t and text.rstrip().endswith("1-0"),
            f"/boards/B.pgn?game=2 after match 2's correction on A: {code} {text}")
    code, text = d.get("/boards/A.pgn?game=2")
    h.check(code == 200 and bpgn_tags(text).get("Result") == "0-1", f"A's game 2: {code} {text}")
    code, text = d.get("/matches/A-B.bpgn?match=2")
    h.check(code == 200 and bpgn_tags(text).get("Result") == "0-1", f"match 2's BPGN: {code} {text}")
    b_record = partner.get("record", "")
    h.check(os.path.isfile(b_record + ".v1") and '[Result "0-1"]' in open(b_record + ".v1").read(),
            f"B's game 2 as it was, not kept beside {b_record}")
    ep.wait_until(lambda: os.path.isfile(b_record + ".sig") and verify(b_record)[0] == 0, 15,
                  "B's game 2 corrected and signed again")

    # The round ends: matches 1 and 2 are archived with it (rounds/<round>.pgn).
    r = ctl_run("round", "2")
    h.check(r.returncode == 0, f"eboardctl round 2: {r.returncode} {r.stdout} {r.stderr}")
    rounds_dir = os.path.join(d.state, "rounds")

    # Match 2's moves, from the scoresheets (its boards were offline): B's White takes a pawn, which goes to
    # Black on A (FQE 6), who drops it. The match is replayed in the order the plies were entered.
    archive2 = os.path.join(games_dir, "match-A-B-2.bpgn")
    r = ctl_run("moves", "B", "--game", "2", "--from-ply", "1", "--moves", "1. d4 e5 2. dxe5",
                "--reason", "the scoresheets of board B")
    h.check(r.returncode == 0, f"match 2's moves on B: {r.returncode} {r.stdout} {r.stderr}")
    r = ctl_run("moves", "A", "--game", "2", "--from-ply", "1", "--moves", "e2e4 P@e6",
                "--reason", "the scoresheets of board A", "--json")
    answer = json.loads(r.stdout) if r.returncode == 0 else {}
    h.check(r.returncode == 0 and answer.get("match", {}).get("number") == 2,
            f"match 2's moves on A, a drop of B's capture: {r.returncode} {r.stdout} {r.stderr}")
    code, text = d.get("/matches/A-B.bpgn?match=2")
    movetext = " ".join(re.sub(r"\{[^}]*\}", " ", text.split("\n\n", 1)[-1]).split())
    h.check(code == 200 and movetext == "1B. d4 1b. e5 2B. dxe5 1A. e4 1a. P@e6 0-1"
            and bpgn_tags(text).get("MovesCorrected") == "board A, from ply 1; was: -",
            f"match 2's BPGN with both boards' moves: {code} {text}")
    for path in (archive2, archive2 + ".v1"):
        rc, out = verify(path)
        h.check(rc == 0 and "INTACT" in out, f"{os.path.basename(path)} as signed: {rc}")
    code, text = d.get("/boards/A.pgn?game=2")
    h.check(code == 200 and "1. e4 P@e6" in " ".join(text.split()), f"A's game 2 with its moves: {code} {text}")
    # The round's archive holds the corrected record, the earlier one kept beside it.
    archived = [p for p in glob.glob(os.path.join(rounds_dir, "*.pgn")) if text.strip() in open(p).read()]
    h.check(len(archived) == 1 and os.path.isfile(archived[0] + ".v1"),
            f"the round's archive with A's corrected game 2: {archived} in {os.listdir(rounds_dir)}")

    def files_now():
        return {os.path.join(base, f): open(os.path.join(base, f), "rb").read()
                for base in (games_dir, rounds_dir) for f in sorted(os.listdir(base)) if ".tmp." not in f}

    # B's capture taken away: A's drop no longer has its pawn. Refused, naming the drop; nothing changes.
    before = files_now()
    r = ctl_run("moves", "B", "--game", "2", "--from-ply", "3", "--moves", "Nf3",
                "--reason", "the capture was misread", "--json")
    said = r.stdout + r.stderr
    h.check(r.returncode != 0 and "board A, ply 2 (1... P@e6)" in said and "no pawn in Black's reserve" in said,
            f"a capture a later drop used, corrected away: {r.returncode} {said}")
    after = files_now()
    h.check(after == before, "a refused correction changed the records: "
            f"{sorted(set(after) ^ set(before)) or [f for f in after if after[f] != before.get(f)]}")
    # The running match's moves are the boards'.
    r = ctl_run("moves", "A", "--game", "3", "--from-ply", "1", "--moves", "e4", "--reason", "running")
    h.check(r.returncode != 0 and "current game" in r.stdout + r.stderr,
            f"the running match's moves: {r.returncode} {r.stdout} {r.stderr}")
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")
    print("match results: a forfeit ends the match, its correction kept and re-signed, a restart, an earlier match "
          "corrected (the partner board's record with it), an earlier match's moves corrected and a correction that "
          "takes a dropped piece away refused, the clock's answer", flush=True)


def main():
    exe, ctl = sys.argv[1], sys.argv[2]
    with ep.Harness("arbiter-results") as h:
        try:
            run(h, exe, ctl)
            run_match(h, exe, ctl)
        except ep.TestFailure as e:
            h.check(False, str(e))
        return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
