#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Live gaps on twelve boards at once, through one eboardd (issue 30).

A hall as the issue tried it: twelve corpus games (standard from the blitz corpus, some Chess960 from the
TCEC corpus), each played by its own `eboardctl sim` on its own pseudo-terminal, all read by one eboardd. Each
board is unplugged once (`--reopen-at`) while its players go on for 1 to 8 plies (the length varies across
the boards). The windows are taken from the sim's own plan of the hands (`--print-plies`): the board goes away
between a press and the next touch, or with the gap's first move under way (its piece in the hand), and comes
back between two moves, with the next move already set down and not pressed, or with the next move's hand at
work.

Right, for every board: each gap recovered exactly (`move` events with `"recovered": true`, the game's moves
at their plies), or one `moves-missed` whose candidates hold the moves played; the test then settles it as
an arbiter would, with `eboardctl recover BOARD --moves <the moves played>`, which must be accepted. Every
`move` event of every board is the corpus game's move at its ply (nothing uncertain published as a move, no
move at a wrong ply), no alert but `moves-missed` (no position-mismatch, no adopted position), and in the end
/games.pgn holds the corpus game up to where its sim stopped, as pgn-extract (Debian) replays it too. A
summary line per board says what the gap was, what the daemon told, how many candidates and where the played
sequence ranked among them.

With --mqtt the hall's host also publishes over MQTT to a real Mosquitto broker (Debian's), where a second
eboardd aggregates it (`[mqtt] aggregate`), killed with kill -9 and started again once the first gap is
settled: once the boards are done, the aggregator's record of every board (/boards/h1:<id>.pgn) must be the
host's, its start and moves, with every gap recovered, told, settled by the arbiter and corrected as the host
told it.

usage: daemon_gap_hall_test.py EBOARDD EBOARDCTL SHARED_DIR [--speed R] [--seed S] [--boards N]
                               [--back between,set,hand] [--allow-unshowable-length] [--no-hold]
                               [--first LO,HI] [--lengths LO,HI] [--mqtt]
exit 77 (skipped) without the corpora in SHARED_DIR; with --mqtt and without mosquitto and mosquitto_passwd the
hall is checked without MQTT (a failure where CI is set)
"""
import os
import random
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
import mqtt_hall_test as mqtt_hall  # noqa: E402

TOKEN = "gap-hall-control-token"
CHESS960 = os.path.join("corpora", "pgn", "chess960", "tcec_s20_frc3_final_50games.pgn")
# The gap lengths, one per board (shuffled by the seed): every length from 1 to 8, the longer ones twice.
LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8]
AFTER = 8  # plies played after each gap (every later move must be exact)
# When a board is unplugged: between two moves (after a press, before the next touch), or while the gap's first
# move is under way (its piece in the hand).
AWAY = {"between": "between two moves", "mid": "with the gap's first move under way"}
# When it is plugged in again: between two moves, with the next move set down and not pressed, or with the next
# move's hand at work (touched, not yet set down).
BACK = {"between": "between two moves", "set": "with the next move set down",
        "hand": "with the next move's hand at work"}


class Board:
    """One board of the hall: its game, its gap's plan, its sim, and what the daemon told about it."""

    def __init__(self, ident, pgn, game, moves, first, length, away, back, chess960, style):
        self.id = ident
        self.pgn, self.game, self.chess960, self.style = pgn, game, chess960, style
        self.first, self.length = first, length  # the plies missed: first .. first+length-1
        self.away, self.back = away, back  # when it goes and comes back: see AWAY and BACK
        self.next_on = back != "between"  # the next move (ply first+length) under way at the reconnect
        self.plies = first + length + AFTER
        self.expected = moves[:self.plies]
        self.proc = None
        self.link = None
        self.log = None
        self.unplug_ms = self.back_ms = None
        self.told = []  # what the daemon said about the gap, in order
        self.settled = set()  # first plies of the moves-missed gaps settled
        self.numbers = set()  # the game numbers /status showed once the game had moves
        self.settled_plies = []  # (first, last) of each
        self.retelling = {}  # first ply: when /status first showed that gap with other plies than its alert
        self.corrected = set()  # first plies of the gaps recovered as their one story that /status left open
        self.problems = []

    def start(self, h, eboardctl, speed, seed):
        self.link = os.path.join(h.dir, f"dgt-{self.id}")
        self.log = h.log_path(f"sim-{self.id}")
        args = [eboardctl, "sim", "--pgn", self.pgn, "--game", str(self.game), "--plies", str(self.plies),
                "--style", self.style, "--timing", "style", "--seed", str(seed), "--speed", str(speed),
                "--link", self.link, "--linger", "600", "--print-plies"]
        plan = plan_of(eboardctl, args)
        f, n = self.first, self.length
        touch, placed, press = plan[f]
        # (Between two moves at ply 1: after the game's start, before White's first touch.)
        before = plan[f - 1][2] if f > 1 else 0
        self.unplug_ms = (before + touch) // 2 if self.away == "between" else (touch + placed) // 2
        touch, placed, press = plan[f + n]
        self.back_ms = {"between": (plan[f + n - 1][2] + touch) // 2, "set": (placed + press) // 2,
                        "hand": (touch + placed) // 2}[self.back]
        args += ["--reopen-at", f"{self.unplug_ms / 1000:.3f}", "--reopen-gap", str(self.back_ms - self.unplug_ms)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(self.log, "ab"))
        h.procs.append(self.proc)
        line = self.proc.stdout.readline().decode().strip()
        if line != self.link:
            h.fail(f"board {self.id}: eboardctl sim printed {line!r}, not its link (exit {self.proc.poll()})")

    def finished(self):
        return "the end of the script" in open(self.log, errors="replace").read()

    def table(self):
        return (f'[[board]]\nid = "{self.id}"\nport = "{self.link}"\nprotocol = "dgt"\n'
                + ("chess960 = true\n" if self.chess960 else "") + "\n")

    def what(self):
        return (f"board {self.id}: {'Chess960' if self.chess960 else 'standard'} game {self.game}, "
                f"{self.plies} plies, style {self.style}; unplugged at {self.unplug_ms / 1000:.1f} s for "
                f"{(self.back_ms - self.unplug_ms) / 1000:.1f} s (game time): plies {self.first}-"
                f"{self.first + self.length - 1} missed ({self.length}); away {AWAY[self.away]}, back "
                f"{BACK[self.back]}")


def plan_of(eboardctl, args):
    """Each ply's (first touch, last placement, press) in game ms, from the sim's --print-plies (the sim is
    started with --link in a folder of its own and stopped at once: only its plan is read)."""
    link_dir = os.path.dirname(args[args.index("--link") + 1])
    probe = subprocess.Popen([*args[:args.index("--link")], "--link", os.path.join(link_dir, "plan-probe"),
                              *args[args.index("--link") + 2:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    probe.stdout.readline()  # the device: the plan was printed before it
    probe.terminate()
    _, err = probe.communicate(timeout=10)
    plan = {}
    for m in re.finditer(r"^ply (\d+) (-?\d+) (-?\d+) (-?\d+)$", err.decode(), re.M):
        plan[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
    if not plan:
        raise ep.TestFailure(f"eboardctl sim --print-plies printed no plan: {err.decode()[-400:]}")
    return plan


def choose(shared, seed, count, backs, firsts=(8, 14), span=None):
    """`count` boards: corpus games long enough for their gap, a quarter of them Chess960; one board in four
    unplugged with a move under way; each of `backs` (BACK's names) in turn for how they are plugged in again;
    each gap's first ply at random within `firsts`; its length from LENGTHS, or each length of `span` (LO, HI)
    in turn."""
    rng = random.Random(seed)
    standard = ep.corpus_file(shared)
    c960 = os.path.join(shared, CHESS960)
    if not os.path.isfile(c960):
        print(f"skipped: {c960} is absent")
        sys.exit(ep.SKIP)
    if span is None:
        lengths = (LENGTHS * 2)[:count]
    else:
        lengths = [span[0] + k % (span[1] - span[0] + 1) for k in range(count)]
    rng.shuffle(lengths)
    n960 = max(1, count // 4)
    boards, used = [], set()
    for k in range(count):
        ident = chr(ord("A") + k)
        chess960 = k >= count - n960
        pgn = c960 if chess960 else standard
        games = ep.corpus_games(pgn)
        first = rng.randint(*firsts)
        need = first + lengths[k] + AFTER
        while True:
            number = rng.randrange(1, len(games) + 1)
            if (pgn, number) not in used and len(games[number - 1]["moves"]) >= need:
                break
        used.add((pgn, number))
        boards.append(Board(ident, pgn, number, games[number - 1]["moves"], first, lengths[k],
                            away="mid" if k % 4 == 1 else "between", back=backs[k % len(backs)],
                            chess960=chess960, style="tidy" if k % 4 else "casual"))
    return boards


def eboardctl(a, d, *args):
    r = subprocess.run([a.eboardctl, *args, "--daemon", f"127.0.0.1:{d.port}", "--token", TOKEN],
                       capture_output=True, text=True, timeout=30)
    print(f"$ eboardctl {' '.join(args)}  -> exit {r.returncode}\n{r.stdout}{r.stderr}", flush=True)
    return r


def settle(h, a, d, b, gap, alert):
    """The arbiter's part for an open gap of board b (told by `alert`): the played moves must be among the
    candidates (or the list cut short), `eboardctl recover --moves` with them must be accepted."""
    first = gap["first_ply"]
    if "last_ply" not in gap or gap.get("length_unknown"):
        # Its length unknown (past the daemon's search bound, or not told by a press): the arbiter, who knows
        # the game, gives the moves played up to the position the game went on from, from the candidates'
        # length (the refused lengths change nothing); with none, from one ply (a search its work bound cut
        # short is told past the bound whatever the gap's length).
        shortest = len(gap["candidates"][0]["san"]) if gap.get("candidates") else 1
        if "last_ply" in gap and not gap.get("past_bound"):
            # What the arbiter reads of it: its length at least the candidates'.
            status = eboardctl(a, d, "status")
            least = f"its length unknown, {gap['last_ply'] - first + 1} plies or more"
            if least not in status.stdout:
                b.problems.append(f"eboardctl status does not say of the gap from ply {first} '{least}'")
        for last in range(first + shortest - 1, min(first + 40, len(b.expected) + 1)):
            truth = b.expected[first - 1:last]
            if eboardctl(a, d, "recover", b.id, "--moves", " ".join(truth)).returncode == 0:
                sans = [[ep.strip_san(m) for m in c["san"]] for c in gap.get("candidates", [])]
                total = gap.get("candidates_total", len(sans))
                b.told.append(f"moves-missed {first}-{last}: "
                              + ("past the search's bound" if gap.get("past_bound") else "its length unknown")
                              + ", recovered"
                              + (f"; {total} candidates, the played #{sans.index(truth) + 1}" if truth in sans
                                 else f"; {total} candidates, the played longer" if len(truth) > shortest
                                 else f"; {total} candidates, the played not among the first {len(sans)}"
                                 if sans else ""))
                break
        else:
            b.problems.append(f"no recover --moves of the moves played from ply {first} was accepted")
            last = first
        b.settled.add(first)
        b.settled_plies.append((first, last))
        return
    last = gap["last_ply"]
    # Told at its shortest on a clock that counts no presses: the alert, /status and eboardctl status all say
    # that a longer story may be the one.
    uncertain = alert.get("length_uncertain") is True
    if gap.get("length_uncertain", False) != uncertain:
        b.problems.append(f"the alert's length_uncertain ({uncertain}) is not /status's missed_gap {gap}")
    if uncertain and "a longer story" not in eboardctl(a, d, "status").stdout:
        b.problems.append(f"eboardctl status does not say of the gap from ply {first} that a longer story may be "
                          "the one")
    truth = b.expected[first - 1:last]
    sans = [[ep.strip_san(m) for m in c["san"]] for c in gap["candidates"]]
    total = gap.get("candidates_total", len(sans))
    rank = sans.index(truth) + 1 if truth in sans else None
    b.told.append(f"moves-missed {first}-{last}: {total} candidates, the played "
                  + (f"#{rank}" if rank else "not among the first " + str(len(sans))))
    if rank and rank > 1:
        print(f"ranked board {b.id}: the played {' '.join(truth)}; first {' '.join(sans[0])}", flush=True)
    if rank is None and total <= len(sans):
        b.problems.append(f"the moves played {' '.join(truth)} (plies {first}-{last}) are not among the "
                          f"candidates {[' '.join(c) for c in sans[:4]]}{' ...' if len(sans) > 4 else ''}")
    r = eboardctl(a, d, "recover", b.id, "--moves", " ".join(truth))
    if r.returncode != 0 and rank is None:
        # Told shorter than played (a detour no board shows): the arbiter types the moves the scoresheets
        # give, more of them, to the same position; the plies since go out again at theirs.
        longer = recover_longer(a, d, b, first, last)
        # Told at 4 plies or more (Reconstructor::kOpenLengthPlies) and short, the gap must have said that a
        # longer story may be the one (the alert, /status and eboardctl status, checked alike above).
        if longer and last - first + 1 >= 4 and not uncertain:
            # ("moves-missed" first: no shorter story excuses it, shorter_story).
            b.problems.append(f"moves-missed told at plies {first}-{last} was {longer - last} plies short and did "
                              "not say its length is uncertain")
        if longer:
            b.told.append(f"told short, settled with the {longer - first + 1} plies played")
            last = longer
        else:
            b.problems.append(f"eboardctl recover --moves {' '.join(truth)} refused: {r.stderr.strip()}, and "
                              "the longer moves played too")
    elif r.returncode != 0:
        b.problems.append(f"eboardctl recover --moves {' '.join(truth)} refused: {r.stderr.strip()}")
    b.settled.add(first)
    b.settled_plies.append((first, last))


def recover_longer(a, d, b, first, last):
    """A gap of board b told at plies first-last, shorter than played: the arbiter types the moves the
    scoresheets give, 2, 4 or 6 plies more, to the same position; the last ply of those accepted, or None."""
    for extra in (2, 4, 6):
        if last + extra > len(b.expected):
            break
        if eboardctl(a, d, "recover", b.id, "--moves", " ".join(b.expected[first - 1:last + extra])).returncode == 0:
            return last + extra
    return None


def correct(h, a, d, b, gap):
    """The arbiter's part for a gap recovered as its one story where the clock counts no presses (/status:
    recovered_gap): when the moves published at its plies are not those played (a longer story with a detour
    was played), `eboardctl recover --moves` with the moves played, more of them, must be accepted."""
    first, last = gap["first_ply"], gap["last_ply"]
    game = game_of(d, b.id)
    if game and game["moves"][first - 1:last] == b.expected[first - 1:last]:
        b.told.append(f"one story at plies {first}-{last}, its length uncertain: the played")
        return
    if f"gap recovered, plies {first}-{last}" not in eboardctl(a, d, "status").stdout:
        b.problems.append(f"eboardctl status does not show the gap recovered at plies {first}-{last}")
    longer = recover_longer(a, d, b, first, last)
    if longer:
        b.told.append(f"one story told short, corrected with the {longer - first + 1} plies played")
        b.settled_plies.append((first, longer))
        return
    b.problems.append(f"the gap recovered at plies {first}-{last} was told short, and the moves played were refused")


def run(h, a, boards):
    aggregator = mqtt = None
    if a.mqtt:
        broker = mqtt_hall.Broker(h, a.mqtt)
        broker.start()
        aggregator = mqtt_hall.Eboardd(h, a.eboardd, "arbiter", broker.port, aggregate=True, trusted=())
        aggregator.start()
        mqtt = (f'[mqtt]\nbroker = "mqtt://127.0.0.1:{broker.port}"\nhall = "test-hall"\nhost = "h1"\n'
                f'username = "h1"\npassword_file = "{h.dir}/h1.pw"\ntrusted = ["arbiter"]\n\n')
    for b in boards:
        b.start(h, a.eboardctl, a.speed, a.seed + ord(b.id))
        print(b.what(), flush=True)
    d = ep.Daemon(h, a.eboardd, boards[0].link, clock_rate=a.speed)
    with open(d.config, "w") as f:
        f.write(f'state_dir = "{d.state}"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
                + ("[gaps]\nhold_uncounted = false\n\n" if a.no_hold else
                   "[gaps]\nhold_uncounted = true\n\n" if a.hold_uncounted else "")
                + (mqtt or "") + "".join(b.table() for b in boards))
    d.start()
    ws = ep.WebSocket(d.port)
    by_id = {b.id: b for b in boards}
    longest = max(plan_end(b) for b in boards)
    deadline = time.time() + longest / a.speed + 60 + 10 * len(boards)
    aggregator_killed = False

    # The arbiter settles each gap as its alert tells it, while the other boards play on. A board
    # is done at its last ply, or (a game told short) once its sim has ended and its ply has stood for a while.
    still = {}  # board id -> (ply, since when)
    while True:
        told = ws.snapshot()  # before /status: every alert in it is already in /status
        status = d.status()
        plies = {}
        for s in status["boards"]:
            b = by_id.get(s["id"])
            if not b:
                continue
            plies[b.id] = s["game"]["ply"]
            if plies[b.id] > 0:
                b.numbers.add(s["game"]["number"])
            if still.get(b.id, (None,))[0] != plies[b.id]:
                still[b.id] = (plies[b.id], time.time())
            # The arbiter acts on the moves-missed alert (what /status shows before it may still change: a
            # gap whose last move is shown and not pressed waits for that press, and is then told whole).
            gap = s["control"].get("missed_gap")
            # (A gap told again from the same ply, its first alert superseded: the latest is the one to act on.)
            latest = {}
            for e in told:
                if e.get("board") == b.id and e.get("code") == "moves-missed":
                    latest[e.get("first_ply")] = e
            for alert in [e for first, e in latest.items() if first not in b.settled]:
                if gap and (gap["first_ply"], gap.get("last_ply")) == (alert["first_ply"], alert.get("last_ply")):
                    settle(h, a, d, b, gap, alert)
                elif (gap and gap["first_ply"] == alert["first_ply"] and
                      time.time() - b.retelling.setdefault(alert["first_ply"], time.time()) < 5):
                    pass  # told again since the snapshot (its alert in the next one)
                else:
                    b.problems.append(f"the alert's gap {alert['first_ply']}-{alert.get('last_ply')} is not "
                                      f"/status's {gap and (gap['first_ply'], gap.get('last_ply'))}")
                    b.settled.add(alert["first_ply"])
            recovered = s["control"].get("recovered_gap")
            if recovered and recovered["first_ply"] not in b.corrected:
                b.corrected.add(recovered["first_ply"])
                correct(h, a, d, b, recovered)
        if aggregator and not aggregator_killed and any(b.settled for b in boards):
            # kill -9 the aggregator once the first gap was settled, others still open or to come: it reads
            # back what it kept, the broker holds what came meanwhile.
            aggregator.proc.kill()
            aggregator.proc.wait()
            time.sleep(1.0)
            aggregator.start()
            aggregator_killed = True
            print("the aggregator killed with kill -9 after the first gap was settled, and started again",
                  flush=True)
        done = [b for b in boards if b.finished() and (plies.get(b.id, 0) >= b.plies or
                                                        time.time() - still[b.id][1] > 20 / a.speed + 5)]
        # (every gap shown has had its recover above: one refused stays open, and is a failure already)
        if len(done) == len(boards):
            break
        if time.time() > deadline:
            h.check(False, "timed out: boards not at their last ply: " +
                    ", ".join(f"{b.id} at {plies.get(b.id)} of {b.plies}" for b in boards if b not in done))
            break
        time.sleep(0.25)
    time.sleep(1)
    events = ws.settled()
    ws.close()

    for b in boards:
        mine = [e for e in events if e.get("board") == b.id]
        gap_plies = range(b.first, b.first + b.length + (1 if b.next_on else 0))
        for e in mine:
            if e.get("type") == "move":
                ply = e.get("ply", 0)
                played = b.expected[ply - 1] if 1 <= ply <= len(b.expected) else None
                if ep.strip_san(e.get("san", "")) != played:
                    b.problems.append(f"move {e.get('san')} published at ply {ply}, where {played} was played")
                elif any(f <= ply <= l for f, l in b.settled_plies):
                    pass  # the arbiter's settlement of a moves-missed
                elif e.get("recovered"):
                    b.told.append(f"recovered {ply} {e['san']}")
                elif ply in gap_plies:
                    b.told.append(f"live {ply} {e['san']}")
            elif e.get("type") == "alert" and e.get("code") == "moves-missed":
                if e.get("first_ply") not in b.settled:
                    b.problems.append(f"moves-missed {e.get('first_ply')}-{e.get('last_ply')} told after the game's "
                                      "end, not settled")
            elif e.get("type") == "alert":
                b.problems.append(f"alert {e.get('code')} at ply {e.get('ply')}: {e.get('detail', '')[:200]}")
        # One game a board, its game 1 (a Chess960 board's too: the standard start it showed before it was
        # read is no game): a gap told again shorter (held, one jump for its plies) is not the pieces set up
        # again (the ledger once counted it so: the game number moved on mid-game, the journal's kept games
        # skipped one).
        if b.numbers != {1}:
            b.problems.append(f"the game's number is not 1 throughout: {sorted(b.numbers)}")
        game = game_of(d, b.id)
        # The sim's hands keep their style's pace, not the game's: a side can lose on time before the corpus
        # game's end (late gaps meet blitz clocks nearly out). The game then ends there, as the clock says.
        flagged = any(e.get("type") == "result" and e.get("reason") == "flag" for e in mine)
        played = b.expected[:len(game["moves"])] if game and flagged else b.expected
        if not game or game["moves"] != played:
            b.problems.append(f"/games.pgn differs from the corpus game: {game and game['moves']}")
        elif flagged:
            b.told.append(f"lost on time after ply {len(played)}")
    if aggregator:
        same_over_mqtt(h, d, aggregator, boards, events)
    # The record as an outside reader replays it: every game, from its FEN where a gap left one.
    theirs = ep.read_by_pgn_extract(h, d.get("/games.pgn")[1], "the hall's /games.pgn")
    if theirs is not None:
        print(f"pgn-extract replayed the {len(theirs)} games of /games.pgn", flush=True)
    print("\nper board (gap: the plies missed as planned; told: what the daemon said: moves-missed and where the "
          "played sequence ranked, recovered moves, or moves published live at the gap's plies):", flush=True)
    for b in boards:
        told = "; ".join(compress(b.told)) or "nothing"
        short = shorter_story(b, events) if b.problems else None
        verdict = "RIGHT" if not b.problems else (
            f"WRONG, a story {short} plies shorter reaches the board (its length no board shows): "
            if short else "WRONG: ") + " | ".join(b.problems[:4])
        print(f"  {b.id} {'960' if b.chess960 else 'std'} game {b.game:3d}  gap {b.first}-"
              f"{b.first + b.length - 1} ({b.length}, {b.away}/{b.back})  told: {told}  {verdict}", flush=True)
        b.short = short
        if short and a.allow_unshowable_length:
            continue
        for p in b.problems:
            h.check(False, f"board {b.id}: {p}")
    ranks = [t for b in boards for t in b.told if t.startswith("moves-missed")]
    first = sum(1 for t in ranks if t.endswith("played #1"))
    top3 = sum(1 for t in ranks if re.search(r"played #[123]$", t))
    print(f"moves-missed: {len(ranks)}; the played sequence first in {first}, among the first three in {top3}",
          flush=True)
    right = sum(1 for b in boards if not b.problems)
    unshowable = sum(1 for b in boards if b.problems and b.short)
    if unshowable:
        print(f"{unshowable} board(s) wrong only because a shorter legal story reaches the board the gap left"
              + (" (allowed by --allow-unshowable-length)" if a.allow_unshowable_length else ""), flush=True)
    print(f"{right} of {len(boards)} boards right at {a.speed:g}x (seed {a.seed})", flush=True)
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")


def same_over_mqtt(h, d, aggregator, boards, events):
    """The aggregator's record of each board, over MQTT, is the host's: its start and its moves (a wrong one is
    the board's problem, the host's own record judged apart)."""
    def record(port, board):
        games = ep.parse_pgn(ep.http_get(port, f"/boards/{board}.pgn")[1])
        return (games[0]["tags"].get("FEN"), games[0]["moves"]) if games else None

    def differing():
        return [b for b in boards if record(aggregator.port, "h1:" + b.id) != record(d.port, b.id)]
    try:
        ep.wait_until(lambda: not differing(), 20, "the aggregator's record of every board to be the host's")
        wrong = []
    except ep.TestFailure:
        wrong = differing()
    remote = {r.get("id"): r for r in aggregator.status().get("mqtt", {}).get("remote_boards", [])}
    for b in wrong:
        print(f"board {b.id}'s moves on the host's /ws, in order: " + " ".join(
            f"{e.get('ply')}{'r' if e.get('recovered') else ''}:{e.get('uci')}" for e in events
            if e.get("board") == b.id and e.get("type") == "move"), flush=True)
        b.problems.append(f"the aggregator's record {record(aggregator.port, 'h1:' + b.id)} is not the host's "
                          f"{record(d.port, b.id)} (its problems: {remote.get('h1:' + b.id, {}).get('problems')})")
    print(f"over MQTT: the aggregator's record of {len(boards) - len(wrong)} of {len(boards)} boards is "
          "the host's", flush=True)
    # Its /games.pgn as an outside reader replays it, every game from its FEN where one begins one.
    theirs = ep.read_by_pgn_extract(h, ep.http_get(aggregator.port, "/games.pgn")[1], "the aggregator's /games.pgn")
    if theirs is not None:
        print(f"pgn-extract replayed the {len(theirs)} games of the aggregator's /games.pgn", flush=True)


def shorter_story(b, events):
    """How many plies shorter than the game the daemon told board b's gap, when that alone explains what went
    wrong: every move published live at a wrong ply is the game's move `k` plies later (k even, the same for
    all), nothing wrong but moves after the gap told short and what follows from it (the moves played not
    among the short story's candidates, their recover refused, the record); else None."""
    wrong = [e for e in events if e.get("board") == b.id and e.get("type") == "move" and
             ep.strip_san(e.get("san", "")) != (b.expected[e["ply"] - 1] if e["ply"] <= len(b.expected) else None)]
    live = [e for e in wrong if not e.get("recovered")]
    if not live:
        # Settled by the arbiter's longer moves before any later move went out: the gap's list held stories
        # k plies shorter than the moves played, and nothing else was wrong.
        settled = [int(m.group(1)) for t in b.told
                   if (m := re.match(r"told short, settled with the (\d+) plies played", t))]
        told = [re.search(r"\(plies (\d+)-(\d+)\) are not among the candidates", p) for p in b.problems]
        if len(settled) == 1 and told and all(told):
            k = settled[0] - (int(told[0].group(2)) - int(told[0].group(1)) + 1)
            return k if k > 0 and k % 2 == 0 else None
        return None
    if any(p.startswith("alert") or p.startswith("moves-missed") for p in b.problems):
        return None
    first_live = min(e["ply"] for e in live)
    if any(e.get("recovered") and e["ply"] >= first_live for e in wrong):
        return None
    for k in (2, 4, 6, 8):
        if all(e["ply"] - 1 + k < len(b.expected) and ep.strip_san(e["san"]) == b.expected[e["ply"] - 1 + k]
               for e in live):
            return k
    return None


def compress(told):
    """'recovered 9 Nf3', 'recovered 10 e5' -> 'recovered 9-10 (Nf3 e5)' (and so for moves published live,
    not marked recovered, at the gap's plies)."""
    out, run_, kind = [], [], None
    for t in told + [None]:
        word = t.split(" ", 1)[0] if t else None
        if run_ and word != kind:
            out.append(f"{kind} {run_[0][0]}-{run_[-1][0]} ({' '.join(m for _, m in run_)})")
            run_ = []
        if word in ("recovered", "live"):
            kind = word
            run_.append(t.split(" ", 2)[1:])
        elif t:
            out.append(t)
    return out


def game_of(d, ident):
    for g in ep.parse_pgn(d.get("/games.pgn")[1]):
        if g["tags"].get("Board") == ident:
            return g
    return None


def plan_end(b):
    """A bound of the game time (s) of the board's last press (about 5 s a ply)."""
    return b.plies * 6


def main():
    ap = ep.arg_parser(game=1, speed=6.0)
    ap.add_argument("--seed", type=int, default=int(os.environ.get("EBOARD_GAP_HALL_SEED", "0")) or None)
    ap.add_argument("--boards", type=int, default=12)
    ap.add_argument("--back", default=",".join(BACK),
                    help="how the boards are plugged in again, in turn: some of " + ", ".join(BACK))
    ap.add_argument("--hold-uncounted", action="store_true",
                    help="[gaps] hold_uncounted = true, written out (the daemon's default since 2026-12-04): a "
                         "gap of 4 plies or more on a clock without increment is told with its length open, the "
                         "moves since held back until the test settles it")
    ap.add_argument("--no-hold", action="store_true",
                    help="[gaps] hold_uncounted = false: such gaps told at their shortest story's length and the "
                         "moves since published live (the way a hall may ask for)")
    ap.add_argument("--allow-unshowable-length", action="store_true",
                    help="a board wrong only because a shorter legal story reaches the board its gap left (the "
                         "README's gaps whose length no board can show) is reported as such, not failed")
    ap.add_argument("--first", default="8,14", metavar="LO,HI",
                    help="each gap's first ply, at random within these (8,14: the opening's end; later gaps meet "
                         "emptier, sharper boards)")
    ap.add_argument("--lengths", metavar="LO,HI",
                    help="each gap's length in plies, every length within these in turn (default: 1 to 8, the "
                         "longer ones twice; 9,10: the late reconnects the daemon still searches)")
    ap.add_argument("--mqtt", action="store_true",
                    help="the host publishes over MQTT to a real Mosquitto, where a second eboardd aggregates it; "
                         "the aggregator's record of every board must be the host's")
    a = ap.parse_args()
    if a.mqtt:
        a.mqtt = mqtt_hall.find_mosquitto()
        if not a.mqtt:
            print("--mqtt needs mosquitto and mosquitto_passwd: the hall is checked without it"
                  + (" (CI installs them: .ci/deps)" if os.environ.get("CI") else ""), flush=True)
            if os.environ.get("CI"):
                return 1

    def span_of(option, text):
        try:
            lo, hi = (int(x) for x in text.split(","))
            if 1 <= lo <= hi:
                return lo, hi
        except ValueError:
            pass
        ap.error(f"{option} takes LO,HI with 1 <= LO <= HI")

    firsts = span_of("--first", a.first)
    span = span_of("--lengths", a.lengths) if a.lengths else None
    if a.seed is None:
        a.seed = random.randrange(1, 1 << 30)
    print(f"seed {a.seed} (--seed {a.seed} repeats the boards, games and gaps), {a.boards} boards at {a.speed:g}x",
          flush=True)
    backs = a.back.split(",")
    if not backs or any(b not in BACK for b in backs):
        ap.error(f"--back takes some of {','.join(BACK)}")
    boards = choose(a.shared, a.seed, a.boards, backs, firsts, span)
    with ep.Harness("daemon-gap-hall") as h:
        try:
            run(h, a, boards)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
