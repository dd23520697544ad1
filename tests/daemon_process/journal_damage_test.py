#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Damage in the middle of a bughouse match's journals costs at most the damaged records (issue 11).

A real `eboardd --demo` plays a bughouse match (emulated DGT boards on ptys) and is stopped mid-match: its two
journals and its archives are the pristine state. Then, --iterations times (seeded; --seed repeats a run),
a copy of that state gets one byte changed at a random offset of one board's journal (a bad sector, a bit
flipped on an SD card), and eboardd starts on it (the boards configured on absent devices, so that nothing
new is played). Each time:
  - both boards' games are what they were: the same moves on the match BPGN (the damaged board's too: every
    move is in the journal twice, as the sensor events that made it and as its published event);
  - no archive file in games/ holds fewer moves, or loses its result or a tag's value;
  - the damaged journal is kept aside byte for byte (journal/<id>.journal.damaged-<ms>);
  - /status says what was lost (journal.damaged_at_start) and a journal-damaged alert is journaled;
  - replay invents no alert: the journals hold no alert the pristine ones did not, but journal-damaged, and
    neither do /status (its unacknowledged alerts) and a /ws snapshot show one, on either board;
  - every 10th time, a second start on the same state reads a clean journal: no new copy, no new alert.
Then the unreadable cases: a journal that is a directory, or with a wrong magic, or (not as root) without
read permission: the match does not start, /status and the log name the reason with the system's words,
and the file is neither moved nor rewritten.

usage: journal_damage_test.py EBOARDD SHARED_DIR [--seed N] [--iterations K]
exit 77 (skipped) without the bughouse corpus in SHARED_DIR
"""
import argparse
import collections
import glob
import json
import os
import random
import re
import shutil
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402

BOARDS = ("A", "B")


class Demo(ep.Daemon):
    def __init__(self, h, exe, corpus):
        super().__init__(h, exe, device="(the demo's)")
        self.corpus = corpus

    def command(self, listen):
        return [self.exe, "--demo", "--demo-corpus", self.corpus, "--demo-speed", "50", "--state-dir", self.state,
                "--listen", listen]

    def plies(self):
        return {g["id"]: g["ply"] for g in self.status()["matches"][0]["games"]}


class Offline(ep.Daemon):
    """eboardd on a given state_dir with the match's boards on absent devices: it recovers and waits."""

    def __init__(self, h, exe, state, label):
        self.h, self.exe, self.board = h, exe, "A"
        self.state = state
        self.config = os.path.join(state, "..", label + ".toml")
        with open(self.config, "w") as f:
            f.write(f'state_dir = "{state}"\n\n[http]\nlisten = "127.0.0.1:0"\n\n')
            for b in BOARDS:
                f.write(f'[[board]]\nid = "{b}"\nport = "{state}/absent-{b}"\nprotocol = "dgt"\n\n')
            f.write('[[match]]\nboards = ["A", "B"]\nrules = "bughouse-fqe"\n')
        self.clock_rate, self.clock_origin_ms = 1.0, None
        self.log = h.log_path(label)
        self.proc, self.port, self.starts = None, None, 0

    def command(self, listen):
        return [self.exe, "--config", self.config, "--listen", listen]


def bpgn_moves(text):
    body = re.sub(r"\{[^}]*\}", " ", "\n".join(l for l in text.splitlines() if not l.startswith("[")))
    moves = {"A": [], "B": []}
    for m in re.finditer(r"\d+([AaBb])\.\s*(\S+)", body):
        moves[m.group(1).upper()].append(m.group(2))
    return moves


def measure(text):
    """(moves, has a result, tags with a value) of a PGN/BPGN record."""
    tags = re.findall(r'^\[(\w+) "([^"]*)"\]', text, re.M)
    named = sum(1 for k, v in tags if k != "Result" and v not in ("", "?") and "??" not in v)
    result = any(k == "Result" and v != "*" for k, v in tags)
    body = re.sub(r"\{[^}]*\}", " ", "\n".join(l for l in text.splitlines() if not l.startswith("[")))
    moves = [t for t in body.split() if not re.fullmatch(r"\d+[AaBb]?\.+|1-0|0-1|1/2-1/2|\*|\$\d+", t)]
    return len(moves), result, named


def archives(state):
    out = {}
    for path in glob.glob(os.path.join(state, "games", "*")):
        if not path.endswith((".recovered", ".sig")):  # signature files are not records of the game
            out[os.path.basename(path)] = measure(open(path, errors="replace").read())
    return out


def alert_codes(state, board):
    codes = []
    for kind, body in ep.journal_records(os.path.join(state, "journal", board + ".journal")):
        if kind == "E" and b'"alert"' in body:
            try:
                codes.append(json.loads(body.decode()).get("code"))
            except ValueError:
                pass
    return codes


def shown_alerts(d):
    """Board → the codes of the alerts the daemon shows: (unacknowledged on /status, in a /ws snapshot)."""
    st = d.status()
    on_status = {b["id"]: [a["code"] for a in b.get("control", {}).get("alerts", []) if not a.get("acknowledged")]
                 for b in st["boards"] if b["id"] in BOARDS}
    ws = ep.WebSocket(d.port)
    events = ws.settled()  # the snapshot comes at once
    ws.close()
    in_snapshot = {b: [e.get("code") for e in events if e.get("type") == "alert" and e.get("board") == b]
                   for b in BOARDS}
    return {b: (on_status.get(b, []), in_snapshot[b]) for b in BOARDS}


def beyond(now, ref):
    """The codes of `now` beyond those of `ref` (as many times as they are beyond), but journal-damaged."""
    extra = collections.Counter(c for c in now if c != "journal-damaged") - collections.Counter(ref)
    return sorted(extra.elements())


def board_status(d, board):
    return next(b for b in d.status()["boards"] if b["id"] == board)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("eboardd")
    ap.add_argument("shared")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--iterations", type=int, default=100)
    a = ap.parse_args()
    corpus = os.path.join(a.shared, "corpora", "bughouse")
    if not os.path.isdir(corpus):
        print(f"skipped: {corpus} is absent")
        return ep.SKIP
    if a.seed is None:
        a.seed = int(time.time() * 1000) % 1_000_000
    with ep.Harness("journal-damage") as h:
        print(f"seed {a.seed} (repeat with --seed {a.seed})", flush=True)
        try:
            run(h, a)
        except ep.TestFailure as e:
            h.check(False, str(e))
        if h.failures:
            print(f"seed {a.seed}: FAILED (repeat with --seed {a.seed})")
        return h.exit_code()


def run(h, a):
    corpus = os.path.join(a.shared, "corpora", "bughouse")
    demo = Demo(h, a.eboardd, corpus)
    demo.start()
    ep.wait_until(lambda: all(p >= 14 for p in demo.plies().values()), 60, "14 plies on both boards")
    h.check(demo.stop() == 0, "the demo stops cleanly")
    pristine = demo.state

    # The pristine state, restarted offline: the reference every damaged start is compared with.
    ref_state = os.path.join(h.dir, "ref")
    shutil.copytree(pristine, ref_state)
    d = Offline(h, a.eboardd, ref_state, "ref").start()
    ref_moves = bpgn_moves(d.get("/matches/A-B.bpgn")[1])
    ref_shown = shown_alerts(d)
    d.stop()
    # After the stop, as each damaged state's are: a running daemon may be rewriting an archive (its
    # atomic write's temporary file beside it), which no later listing would show.
    ref_archives = archives(ref_state)
    ref_alerts = {b: alert_codes(ref_state, b) for b in BOARDS}
    h.check(all(len(ref_moves[b]) >= 14 for b in BOARDS), f"reference moves: {ref_moves}")
    print(f"pristine match: {len(ref_moves['A'])} + {len(ref_moves['B'])} moves, archives {ref_archives}, "
          f"journals {[os.path.getsize(os.path.join(pristine, 'journal', b + '.journal')) for b in BOARDS]} bytes",
          flush=True)

    rng = random.Random(a.seed)
    kinds = {}
    for it in range(a.iterations):
        state = os.path.join(h.dir, f"s{it}")
        shutil.copytree(pristine, state)
        board = rng.choice(BOARDS)
        jpath = os.path.join(state, "journal", board + ".journal")
        data = bytearray(open(jpath, "rb").read())
        at = rng.randrange(8, len(data))
        data[at] ^= rng.randrange(1, 256)
        open(jpath, "wb").write(data)
        kind = next((k for s, e, k, _ in ep.journal_records(os.path.join(pristine, "journal", board + ".journal"),
                                                             with_offsets=True) if s <= at < e), "?")
        kinds[kind] = kinds.get(kind, 0) + 1
        where = f"#{it}: board {board}, byte {at} of {len(data)} (a {kind!r} record)"
        d = Offline(h, a.eboardd, state, f"s{it}").start()
        moves = bpgn_moves(d.get("/matches/A-B.bpgn")[1])
        for b in BOARDS:
            h.check(moves[b] == ref_moves[b],
                    f"{where}: board {b}'s moves {'(damaged)' if b == board else '(partner)'} differ: "
                    f"{len(moves[b])} vs {len(ref_moves[b])}: {moves[b]} vs {ref_moves[b]}")
        js = board_status(d, board).get("journal", {})
        h.check("damaged_at_start" in js, f"{where}: /status does not say the journal was damaged: {js}")
        shown = shown_alerts(d)
        for b in BOARDS:
            for k, view in enumerate(("/status", "the /ws snapshot")):
                extra = beyond(shown[b][k], ref_shown[b][k])
                h.check(not extra, f"{where}: board {b}: {view} shows alerts never published: {extra} "
                                   f"(the pristine state shows {ref_shown[b][k]})")
        d.stop()
        copies = glob.glob(jpath + ".damaged-*")
        h.check(len(copies) == 1 and open(copies[0], "rb").read() == bytes(data),
                f"{where}: the damaged journal is not kept aside byte for byte: {copies}")
        for name, m in ref_archives.items():
            now = archives(state).get(name)
            h.check(now is not None and now[0] >= m[0] and (now[1] or not m[1]) and now[2] >= m[2],
                    f"{where}: archive {name} got poorer: {m} -> {now}")
        for b in BOARDS:
            codes = alert_codes(state, b)
            invented = [c for c in codes if c != "journal-damaged"]
            h.check(len(invented) <= len(ref_alerts[b]) and set(invented) <= set(ref_alerts[b]),
                    f"{where}: board {b}: replay invented alerts: {codes} vs {ref_alerts[b]}")
            want = 1 if b == board else 0
            h.check(codes.count("journal-damaged") == want,
                    f"{where}: board {b}: {codes.count('journal-damaged')} journal-damaged alerts, want {want}")
        if it % 10 == 0:
            d = Offline(h, a.eboardd, state, f"s{it}-again").start()
            again = bpgn_moves(d.get("/matches/A-B.bpgn")[1])
            h.check(again == ref_moves, f"{where}: second start: moves differ")
            h.check("damaged_at_start" not in board_status(d, board).get("journal", {}),
                    f"{where}: second start still reports damage")
            d.stop()
            h.check(len(glob.glob(jpath + ".damaged-*")) == 1, f"{where}: second start made another copy")
            h.check(alert_codes(state, board).count("journal-damaged") == 1, f"{where}: second start alerted again")
        if not h.failures:
            shutil.rmtree(state, ignore_errors=True)
    print(f"{a.iterations} damaged starts; damaged record kinds: {kinds}", flush=True)

    unreadable(h, a, pristine)


def unreadable(h, a, pristine):
    cases = [("a directory", lambda p: (os.remove(p), os.mkdir(p)), "not a regular file"),
             ("a wrong magic", lambda p: open(p, "r+b").write(b"NOTOURS!"), "wrong magic")]
    if os.geteuid() != 0:
        cases.append(("unreadable", lambda p: os.chmod(p, 0), "Permission denied"))
    for what, damage, reason in cases:
        state = os.path.join(h.dir, "u-" + what.replace(" ", "-"))
        shutil.copytree(pristine, state)
        jpath = os.path.join(state, "journal", "A.journal")
        damage(jpath)
        before = sorted(os.listdir(os.path.join(state, "journal")))
        d = Offline(h, a.eboardd, state, "u-" + what.replace(" ", "-")).start()
        st = d.status()
        failed = st.get("failed_boards", {})
        h.check(reason in failed.get("A", "") and "B" in failed,
                f"journal {what}: the match's boards are not reported as not started with the reason: {failed}")
        h.check(all("games" not in m for m in st.get("matches", [])), f"journal {what}: the match started anyway")
        d.stop()
        h.check(sorted(os.listdir(os.path.join(state, "journal"))) == before,
                f"journal {what}: files were moved or created: {before} -> "
                f"{sorted(os.listdir(os.path.join(state, 'journal')))}")
        h.check(reason in d.log_text(), f"journal {what}: the log does not say '{reason}'")
        os.chmod(jpath, 0o755 if os.path.isdir(jpath) else 0o644)
    print(f"unreadable journals: {len(cases)} cases", flush=True)


if __name__ == "__main__":
    sys.exit(main())
