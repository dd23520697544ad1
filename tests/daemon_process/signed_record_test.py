#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A signed game record, from the real eboardd to `eboardctl verify` (tamper-evident record).

The real eboardd reads a board played by `eboardctl sim` (a corpus game that ends in checkmate). Once the
game has its result, the game's archive in state_dir/games has a signature file beside it; `eboardctl verify`
with the daemon's published key (state_dir/keys/eboardd.pub, its fingerprint on /status and from
`eboardctl key`) says INTACT and exits 0, also after the daemon stopped. Then one edit at a time, each undone
afterwards: a move changed in the archive (exit 1, the line named), a byte of the journal's signed part
(exit 1, the byte named), a byte of the signature file (exit 1), another hall's key (exit 1); the journal
alone checks link by link; a directory and /dev/zero are refused (exit 2). A copy of the record elsewhere is
checked against the journal beside it: without one it is incomplete (exit 2), with a forged one (a byte
changed, checksums and links framed anew) altered (exit 1), the hall's own journal never looked at. A garbled key file stops the
daemon at start-up with the reason, and is left as it was.

usage: signed_record_test.py EBOARDD EBOARDCTL SHARED_DIR [--game N] [--speed R]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import glob
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import time
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402


def main():
    ap = ep.arg_parser(game=65, speed=6.0)  # 17 plies, ends 9. Qxf7# 1-0
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    expected = ep.corpus_game(pgn, a.game)["moves"]
    with ep.Harness("signed-record") as h:
        try:
            run(h, a, pgn, expected)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def verify(h, eboardctl, *args):
    p = subprocess.run([eboardctl, "verify", *args], capture_output=True, text=True, timeout=30)
    print(f"$ eboardctl verify {' '.join(os.path.basename(x) if os.sep in x else x for x in args)}  -> exit "
          f"{p.returncode}\n{p.stdout}{p.stderr}", flush=True)
    return p.returncode, p.stdout + p.stderr


def flipped(path, offset):
    """Flips one byte of `path` in place; returns a function that puts it back."""
    data = bytearray(open(path, "rb").read())
    original = bytes(data)
    data[offset] ^= 0x01
    open(path, "wb").write(data)
    return lambda: open(path, "wb").write(original)


def forged(data):
    """The journal `data` with one byte of its second record's body changed (inside the signed part), and every
    record framed again: its checksum and the chain of links recomputed, as a forger with the format would."""
    magic = data[:8]
    link = hashlib.sha256(magic).digest()[:16]
    records, at = [], 8
    while at + 12 <= len(data):
        length = struct.unpack("<I", data[at + 4:at + 8])[0]
        linked = data[at + 12:at + 12 + length]
        records.append((linked[16:17], bytearray(linked[17:])))
        at += 12 + length
    kind, body = records[1]
    body[len(body) // 2] ^= 0x01
    out = bytearray(magic)
    for kind, body in records:
        framed = link + kind + bytes(body)
        out += b"\xE5JR\x1E" + struct.pack("<I", len(framed)) + struct.pack("<I", zlib.crc32(framed)) + framed
        link = hashlib.sha256(framed).digest()[:16]
    return bytes(out)


def check_copies(h, a, archive, sig, journal, pub):
    """A record copied elsewhere is checked against the journal that came with it, never the hall's own."""
    copy = os.path.join(h.dir, "copy")
    os.makedirs(os.path.join(copy, "games"))
    os.makedirs(os.path.join(copy, "journal"))
    c_archive = os.path.join(copy, "games", os.path.basename(archive))
    c_journal = os.path.join(copy, "journal", os.path.basename(journal))
    shutil.copy(archive, c_archive)
    shutil.copy(sig, c_archive + ".sig")
    rc, out = verify(h, a.eboardctl, c_archive, "--key-file", pub)
    h.check(rc == 2 and "not found" in out and "INTACT" not in out,
            f"a copy without its journal: exit {rc} (the hall's journal at the .sig's path was found instead?)")
    open(c_journal, "wb").write(forged(open(journal, "rb").read()))
    rc, out = verify(h, a.eboardctl, c_journal)
    h.check(rc == 0, f"the forged journal does not chain on its own (exit {rc}): the forgery is not the issue's")
    rc, out = verify(h, a.eboardctl, c_archive, "--key-file", pub)
    h.check(rc == 1 and "ALTERED" in out and c_journal in out and journal not in out,
            f"a copy with a forged journal beside it: exit {rc}, or another journal checked")
    shutil.copy(journal, c_journal)
    rc, out = verify(h, a.eboardctl, c_archive, "--key-file", pub)
    h.check(rc == 0 and "INTACT" in out and c_journal in out, f"a faithful copy: exit {rc}, or its journal not named")


def run(h, a, pgn, expected):
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed)
    d = ep.Daemon(h, a.eboardd, sim.device, clock_rate=a.speed).start()
    keys = os.path.join(d.state, "keys")
    pub = os.path.join(keys, "eboardd.pub")
    h.check(os.path.isfile(pub), "no public key in state_dir/keys after the first start")
    secret_mode = os.stat(os.path.join(keys, "eboardd.key")).st_mode & 0o777
    h.check(secret_mode == 0o600, f"the secret key file has mode {secret_mode:o}, not 600")
    fingerprint = d.status().get("signing", {}).get("fingerprint")
    key_out = subprocess.run([a.eboardctl, "key", d.state], capture_output=True, text=True).stdout
    h.check(fingerprint and f"fingerprint {fingerprint}" in key_out,
            f"/status fingerprint {fingerprint} is not what `eboardctl key` prints: {key_out!r}")

    length = sim.length_s() or 120
    ep.wait_until(lambda: d.board_status()["game"]["result"] != "*", length / a.speed + 40,
                  "the game's result on /status")
    games = os.path.join(d.state, "games")
    ep.wait_until(lambda: glob.glob(os.path.join(games, "*.pgn.sig")), 15, "a signature file in state_dir/games")
    sig = glob.glob(os.path.join(games, "*.pgn.sig"))[0]
    archive = sig[:-len(".sig")]
    ep.wait_until(lambda: "1-0" in open(archive).read(), 15, "the archive with its result")
    h.check(ep.parse_pgn(open(archive).read())[0]["moves"] == expected, "the archive is not the corpus game")

    rc, out = verify(h, a.eboardctl, archive, "--key-file", pub)
    h.check(rc == 0 and "INTACT" in out, f"the daemon's fresh record does not verify (exit {rc})")
    h.check(fingerprint in out, "verify does not name the key's fingerprint")
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")

    # After the stop: the archive, its signature and the journal (grown since with the board's clock messages).
    rc, out = verify(h, a.eboardctl, archive, "--key", fingerprint)
    h.check(rc == 0 and "INTACT" in out, f"the record does not verify after the daemon stopped (exit {rc})")
    journal = os.path.join(d.state, "journal", "A.journal")

    # A move changed in the archive.
    text = open(archive).read()
    line = next(i for i, l in enumerate(text.split("\n"), 1) if "Qxf7#" in l)
    restore = flipped(archive, text.encode().index(b"Qxf7#") + 3)  # f7 -> g7
    rc, out = verify(h, a.eboardctl, archive, "--key-file", pub)
    h.check(rc == 1 and f"altered at line {line}" in out, f"a changed move: exit {rc}, line {line} not named")
    restore()

    # A byte of the journal's signed part: the first record's body, and one in the middle.
    size = os.path.getsize(journal)
    for offset in (8 + 30, size // 3):
        restore = flipped(journal, offset)
        rc, out = verify(h, a.eboardctl, archive, "--key-file", pub)
        h.check(rc == 1 and "ALTERED" in out and "byte" in out,
                f"journal byte {offset} changed: exit {rc}, or no place named")
        rc_alone, out_alone = verify(h, a.eboardctl, journal)
        h.check(rc_alone == 1 and "altered at byte" in out_alone,
                f"journal byte {offset} changed, checked alone: exit {rc_alone}")
        restore()
    rc, out = verify(h, a.eboardctl, journal)
    h.check(rc == 0, f"the untouched journal alone: exit {rc}")
    rc, out = verify(h, a.eboardctl, journal, "--sig", sig, "--key-file", pub)
    h.check(rc == 0 and "intact" in out, f"the untouched journal against the signature: exit {rc}")

    # A byte of the signature file (a digit of a line's hash).
    sig_text = open(sig, "rb").read()
    restore = flipped(sig, sig_text.index(b'"line_sha256": [') + 25)
    rc, out = verify(h, a.eboardctl, archive, "--key-file", pub)
    h.check(rc == 1 and "ALTERED" in out, f"a changed signature file: exit {rc}")
    restore()

    # Another hall's key.
    other = os.path.join(h.dir, "other-hall.pub")
    open(other, "w").write("ed25519:" + "11" * 32 + "\n")
    rc, out = verify(h, a.eboardctl, archive, "--key-file", other)
    h.check(rc == 1 and "not the one given" in out, f"another hall's key: exit {rc}")

    # Inputs that are not files.
    for bad in (d.state, "/dev/zero"):
        rc, out = verify(h, a.eboardctl, bad)
        h.check(rc == 2 and "not a regular file" in out, f"verify {bad}: exit {rc}")

    rc, out = verify(h, a.eboardctl, archive, "--key-file", pub)
    h.check(rc == 0, f"every edit undone, the record verifies again (exit {rc})")

    check_copies(h, a, archive, sig, journal, pub)

    # A garbled key stops the daemon with the reason and stays as it was.
    secret = os.path.join(keys, "eboardd.key")
    good = open(secret, "rb").read()
    garbled = good.replace(b"ed25519-secret:", b"ed25519-secret:0")
    open(secret, "wb").write(garbled)
    try:
        d.start(timeout=15)
        h.check(False, "eboardd started with a garbled signing key")
        d.stop()
    except ep.TestFailure:
        pass
    h.check(d.proc.wait(timeout=30) != 0, "eboardd exited 0 with a garbled signing key")
    h.check("signing key" in d.log_text() and "never replaces" in d.log_text(),
            "the log does not say what is wrong with the key")
    h.check(open(secret, "rb").read() == garbled, "the garbled key file was changed")
    open(secret, "wb").write(good)
    d.start()
    h.check(d.status().get("signing", {}).get("fingerprint") == fingerprint,
            "the restored key is not the one the daemon signs with")
    h.check(d.stop() == 0, "SIGTERM after the restart")
    rc, out = verify(h, a.eboardctl, archive, "--key-file", pub)
    h.check(rc == 0, f"the record after a restart (signed again at start-up): exit {rc}")

    # The next game: the finished game's journal is kept under journal/A/ (rotation), and verify finds it there.
    token = "t0ken-for-the-next-game"
    with open(d.config) as f:
        config = f.read()
    with open(d.config, "w") as f:
        f.write(config.replace("[http]\n", f'[http]\ntoken = "{token}"\n', 1))
    d.start()
    answer = subprocess.run([a.eboardctl, "new-game", "A", "--daemon", f"127.0.0.1:{d.port}", "--token", token],
                            capture_output=True, text=True)
    h.check(answer.returncode == 0, f"eboardctl new-game: exit {answer.returncode}: {answer.stderr}")
    kept = ep.wait_until(lambda: glob.glob(os.path.join(d.state, "journal", "A", "*.journal")), 15,
                         "the finished game's journal kept under journal/A/")
    h.check(d.stop() == 0, "SIGTERM after the new game")
    rc, out = verify(h, a.eboardctl, archive, "--key-file", pub)
    h.check(rc == 0 and kept[0] in out, f"the record after the next game began (journal kept at {kept[0]}): "
                                        f"exit {rc}\n{out}")
    print(f"signed record checked: {len(expected)} plies, journal {size} bytes, in {h.elapsed():.1f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
