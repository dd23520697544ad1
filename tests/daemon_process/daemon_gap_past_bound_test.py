#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A gap past the search's bound, held and settled, through the daemon (issue 30).

One corpus game on an `eboardctl sim` DGT board with its clock, read by one eboardd. The board is unplugged
(`--reopen-at`, `--reopen-gap`) between two moves while more plies are played than the gap search reaches
(--length, 12 by default; 13 leaves the other side on move: the search goes to 10 in standard chess), and
plugged in again between two moves. The window
comes from the sim's own plan of the hands (`--print-plies`), so the run is the same every time. Then, as a
broadcaster and an arbiter see it:

1. one `moves-missed` alert for the gap, `length_unknown` and `past_bound`, `first_ply` the gap's first ply
   (or the ply before, its press lost with the unplug and no move published for it), no `last_ply`; no
   other alert (no position-mismatch, no adopted position);
2. while the gap holds the game's moves: /status's `control.missed_gap` says the same, no `move` event at or
   after the gap's first ply has gone out on /ws, /games.pgn holds none of the moves made since the gap;
3. `eboardctl recover BOARD --moves` with one move short, and with one move too many, is refused with a
   message and changes nothing (/status's gap, /ws, /games.pgn); with the moves played in the gap, accepted;
4. then the held moves go out as `move` events, each at its true ply and the corpus game's move there, the
   rest of the game goes on live, /games.pgn holds the whole game as the corpus has it, /status shows no gap.

usage: daemon_gap_past_bound_test.py EBOARDD EBOARDCTL SHARED_DIR [--game N] [--speed R] [--first P]
                                     [--length L] [--style S]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
from daemon_gap_hall_test import plan_of  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "counterparts"))
import chess_moves  # noqa: E402

TOKEN = "gap-past-bound-control-token"
BOARD = "A"
HELD = 3  # moves the gap holds back before the arbiter settles it
AFTER = 6  # plies played after the gap (the first HELD held, the rest live once it is settled)


def main():
    ap = ep.arg_parser(game=3, speed=6.0)
    ap.add_argument("--first", type=int, default=9, help="the gap's first ply")
    ap.add_argument("--length", type=int, default=12, help="plies played while the board is away")
    ap.set_defaults(style="tidy")
    return run_window("daemon-gap-past-bound", ap, ap.parse_args(), AFTER, run)


def run_window(name, ap, a, after, run):
    """`run(h, a, pgn, expected)` on the corpus game's plies up to `after` past the gap (--first, --length);
    returns the exit code."""
    pgn = ep.corpus_file(a.shared)
    moves = ep.corpus_game(pgn, a.game)["moves"]
    plies = a.first - 1 + a.length + after
    if len(moves) < plies:
        ap.error(f"game {a.game} has {len(moves)} plies, fewer than {plies}")
    with ep.Harness(name) as h:
        try:
            run(h, a, pgn, moves[:plies])
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def eboardctl(a, d, *args, token=TOKEN):
    r = subprocess.run([a.eboardctl, *args, "--daemon", f"127.0.0.1:{d.port}", "--token", token],
                       capture_output=True, text=True, timeout=30)
    print(f"$ eboardctl {' '.join(args)}  -> exit {r.returncode}\n{r.stdout}{r.stderr}", flush=True)
    return r


def start_sim(h, a, pgn, plies):
    """The sim unplugged for the gap's plies: from halfway between the press before the gap and the gap's
    first touch to a quarter of the way between its last press and the next touch (game ms), so that the
    reconnect's reading comes before the next hand is at work even on a loaded machine (that case, read with
    the next mover's piece in the air, is the captures' in session_gap_hall_repro_test). Returns (sim
    process, link, log, plan)."""
    link = os.path.join(h.dir, "dgt")
    log = h.log_path("sim")
    args = [a.eboardctl, "sim", "--pgn", pgn, "--game", str(a.game), "--plies", str(plies), "--style", a.style,
            "--timing", "style", "--seed", "1", "--speed", str(a.speed), "--link", link, "--linger", "600",
            "--print-plies"]
    plan = plan_of(a.eboardctl, args)
    f, n = a.first, a.length
    unplug = unplug_ms(plan, f)
    back = plan[f + n - 1][2] + (plan[f + n][0] - plan[f + n - 1][2]) // 4
    args += ["--reopen-at", f"{unplug / 1000:.3f}", "--reopen-gap", str(back - unplug)]
    print(f"game {a.game}: {plies} plies at {a.speed:g}x; unplugged at {unplug / 1000:.1f} s for "
          f"{(back - unplug) / 1000:.1f} s (game time): plies {f}-{f + n - 1} missed ({n})", flush=True)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(log, "ab"))
    h.procs.append(proc)
    line = proc.stdout.readline().decode().strip()
    if line != link:
        h.fail(f"eboardctl sim printed {line!r}, not its link (exit {proc.poll()})")
    return proc, link, log, plan


def plugged_in_at(sim_log):
    """When the sim says it plugged the board in again (game ms), or None."""
    with open(sim_log, errors="replace") as f:
        m = re.search(r"plugged in again at ([0-9.]+) s", f.read())
    return round(float(m.group(1)) * 1000) if m else None


def placement(pos):
    """The FEN board field of a chess_moves.Position."""
    rows = []
    for r in range(7, -1, -1):
        row = "".join(pos.sq[8 * r:8 * r + 8])
        for k in range(8, 0, -1):
            row = row.replace("." * k, str(k))
        rows.append(row)
    return "/".join(rows)


def ply_shown(expected, fen):
    """The ply after which the game's position is the board `fen` shows, or None."""
    pos, board = chess_moves.Position(), fen.split()[0]
    for ply, san in enumerate(expected, 1):
        pos.play(pos.move_from_san(san))
        if placement(pos) == board:
            return ply
    return None


def pgn_game(d):
    for g in ep.parse_pgn(d.get("/games.pgn")[1]):
        if g["tags"].get("Board") == BOARD:
            return g
    return None


def run(h, a, pgn, expected):
    first, n = a.first, a.length
    last = first + n - 1
    gap_moves = expected[first - 1:last]
    sim, link, sim_log, plan = start_sim(h, a, pgn, len(expected))
    d = ep.Daemon(h, a.eboardd, link, board=BOARD, clock_rate=a.speed)
    with open(d.config, "w") as f:
        f.write(f'state_dir = "{d.state}"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
                f'[[board]]\nid = "{BOARD}"\nport = "{link}"\nprotocol = "dgt"\n')
    d.start()
    ws = ep.WebSocket(d.port)

    def alerts():
        return [e for e in ws.snapshot() if e.get("type") == "alert" and e.get("board") == BOARD]

    def moves_from(ply):
        return [e for e in ws.snapshot() if e.get("type") == "move" and e.get("board") == BOARD
                and e.get("ply", 0) >= ply]

    # 1. The gap told once its board is read: one moves-missed, its length unknown, past the bound.
    game_s = plan[last + 1][2] / 1000 + 10  # the first press after the gap, and the mismatch time
    ep.wait_until(lambda: alerts(), game_s / a.speed + 20, "the gap's alert")
    # The board is read again between the gap's last press and the next touch; on a loaded machine that read
    # can come after the next move is made (at 6x the span is a few tenths of a second): the gap is then a ply
    # longer, and what follows is checked for the gap the board showed (from the position it tells of).
    # The sim itself may plug the board in late on a loaded machine (its log says when): every ply pressed by
    # then is the gap's too.
    # Likewise at its start: the press before the unplug, written a few tenths of a second before it at 6x, may
    # still be in the line when the board goes (lost with it, as with a cable pulled): the daemon then never
    # saw that ply, published no move for it, and the gap begins a ply earlier, from where it lost the game.
    said_first = next((e.get("first_ply") for e in alerts() if e.get("code") == "moves-missed"), None)
    if said_first == first - 1 and not [e for e in ws.snapshot() if e.get("type") == "move"
                                        and e.get("board") == BOARD and e.get("ply") == first - 1]:
        print(f"ply {first - 1}'s press was not read before the unplug (the board went "
              f"{(unplug_ms(plan, first) - plan[first - 1][2]) / a.speed:.0f} ms after it): the gap is plies "
              f"{first - 1}-{last}", flush=True)
        first, n = first - 1, n + 1
        gap_moves = expected[first - 1:last]
    shown = next((ply_shown(expected, e["fen"]) for e in alerts() if e.get("fen")), None)
    back_ms = plugged_in_at(sim_log)
    pressed_by_then = max([last] + [k for k, (_, _, press) in plan.items()
                                    if back_ms is not None and press <= back_ms])
    if shown is not None and last < shown <= pressed_by_then + 1:
        print(f"the board was read again after ply {shown} was made (the sim plugged it in at "
              f"{back_ms and back_ms / 1000} s): the gap is plies {first}-{shown}", flush=True)
        n, last = n + (shown - last), shown
        gap_moves = expected[first - 1:last]
    else:
        h.check(shown == last, f"the gap's alert tells of the position after ply {shown}, not {last}")
    # Held: the first HELD moves after the gap pressed. The game holds the gap as a jump of one ply, two
    # when the same side is on move after it (an even length).
    jump_end = first - 1 + (2 if n % 2 == 0 else 1)
    ep.wait_until(lambda: d.board_status()["game"]["ply"] >= jump_end + HELD, 60, f"{HELD} moves after the gap")
    told = alerts()
    print(f"alerts: {json.dumps(told)}", flush=True)
    h.check(len(told) == 1, f"{len(told)} alerts, not one: {[(e.get('code'), e.get('ply')) for e in told]}")
    gap_alert = next((e for e in told if e.get("code") == "moves-missed"), None)
    if not gap_alert:
        h.fail("no moves-missed alert")
    h.check(gap_alert.get("first_ply") == first, f"moves-missed first_ply {gap_alert.get('first_ply')}, not {first}")
    h.check(gap_alert.get("length_unknown") is True, "moves-missed without length_unknown")
    h.check(gap_alert.get("past_bound") is True, "moves-missed without past_bound")
    h.check("last_ply" not in gap_alert, f"moves-missed with a last_ply {gap_alert.get('last_ply')}")

    # 2. While it holds the moves: /status, /ws and /games.pgn.
    def check_held(when):
        st = d.board_status()
        gap = st["control"].get("missed_gap")
        h.check(gap is not None, f"{when}: /status shows no missed_gap")
        if gap:
            h.check(gap.get("first_ply") == first, f"{when}: /status's gap begins at {gap.get('first_ply')}")
            h.check(gap.get("length_unknown") is True and gap.get("past_bound") is True,
                    f"{when}: /status's gap does not say its length unknown, past the bound: {gap}")
            h.check("last_ply" not in gap or gap["last_ply"] is None, f"{when}: /status's gap has a last ply")
        out = moves_from(first)
        h.check(not out, f"{when}: move events at or after the gap's first ply on /ws: "
                         f"{[(e['ply'], e['san']) for e in out]}")
        # The record tells the gap and starts afresh from the position after it (SetUp/FEN), with no move
        # yet: the moves since are held.
        text = d.get("/games.pgn")[1]
        game = pgn_game(d)
        h.check(game is not None and game["tags"].get("SetUp") == "1" and game["moves"] == [],
                f"{when}: /games.pgn is not the game up to the gap, starting afresh after it with no move:\n{text}")
        return gap

    held_gap = check_held("held")

    # 3. Wrong lists refused, changing nothing; the moves played accepted.
    for what, wrong in (("one move short", gap_moves[:-1]), ("one move too many", expected[first - 1:last + 1])):
        r = eboardctl(a, d, "recover", BOARD, "--moves", " ".join(wrong))
        h.check(r.returncode != 0, f"recover --moves {what} accepted")
        h.check(bool(r.stderr.strip()) and "position" in (r.stderr + r.stdout),
                f"recover --moves {what}: no clear message: {r.stderr!r}")
        gap = check_held(f"after recover --moves {what}")
        h.check(gap == held_gap, f"after recover --moves {what}: /status's gap changed: {gap} (was {held_gap})")
    r = eboardctl(a, d, "recover", BOARD, "--moves", " ".join(gap_moves))
    h.check(r.returncode == 0, f"recover --moves with the {n} moves played refused: {r.stderr.strip()}")

    # 4. Everything at its ply, the game whole.
    ep.wait_until(sim_done(sim_log), plan[len(expected)][2] / 1000 / a.speed + 30, "the sim's last move")
    ep.wait_until(lambda: len(moves_from(1)) >= len(expected), 15, f"{len(expected)} move events on /ws")
    time.sleep(0.5)
    events = [e for e in ws.snapshot() if e.get("board") == BOARD]
    out = [e for e in events if e.get("type") == "move"]
    for e in out:
        ply = e.get("ply", 0)
        played = expected[ply - 1] if 1 <= ply <= len(expected) else None
        h.check(ep.strip_san(e.get("san", "")) == played, f"move {e.get('san')} at ply {ply}, where {played} was played")
    h.check(sorted(e["ply"] for e in out) == list(range(1, len(expected) + 1)),
            f"/ws move plies {[e['ply'] for e in out]}, not each of 1-{len(expected)} once")
    recovered = [e["ply"] for e in out if e.get("recovered")]
    h.check(recovered == list(range(first, last + 1)), f"recovered moves at plies {recovered}, not {first}-{last}")
    extra = [e for e in events if e.get("type") == "alert" and e is not gap_alert and e != gap_alert]
    h.check(not extra, f"alerts besides the gap's: {[(e.get('code'), e.get('ply')) for e in extra]}")
    game = pgn_game(d)
    h.check(game is not None and game["moves"] == expected,
            f"/games.pgn differs from the corpus game:\n  {game and game['moves']}\n  {expected}")
    st = d.board_status()
    h.check(st["control"].get("missed_gap") is None, f"/status still shows a gap: {st['control'].get('missed_gap')}")
    print(f"{len(out)} move events ({len(recovered)} recovered); the held {HELD} and the rest at their plies",
          flush=True)
    ws.close()
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")


def unplug_ms(plan, first):
    """When the board goes (game ms): halfway between the press before the gap and the gap's first touch."""
    return (plan[first - 1][2] + plan[first][0]) // 2


def sim_done(log):
    return lambda: "the end of the script" in open(log, errors="replace").read()


if __name__ == "__main__":
    sys.exit(main())
