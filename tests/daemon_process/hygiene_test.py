#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Start-up and reload hygiene of the real eboardd (issue 11), one case per ctest entry:

  lock    one daemon per state_dir even when eboardd.lock is deleted under the first; the refusal names its PID
  listen  --listen gets the exposure check of the file's [http] listen, with or without --config
  reload  SIGHUP with a file naming no board is refused; a new http.token applies at once
  openings  [gaps] openings: a book that cannot be read, or holds no line, is refused by --check-config (the
          unit's check before its start) and stops the start, naming the file; "" and a good book are taken

Usage: hygiene_test.py CASE EBOARDD. Every wait is bounded; the logs are printed when a case fails."""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eboardctl_proc import Harness, TestFailure, wait_until  # noqa: E402

# The exposure refusal's words, the same for the file's [http] listen and for --listen.
EXPOSURE = ("is not a loopback address: set http.token (reading then needs it) or http.open_read = true to "
            "publish the games to everyone who can connect")


class Eboardd:
    """One eboardd process on a config file, its output in the harness's logs."""

    def __init__(self, h, exe, config, label, extra=()):
        self.h = h
        self.log = h.log_path(label)
        self.state = None
        self.args = [exe, "--config", config, "--no-usb", *extra]
        self.proc = subprocess.Popen(self.args, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        h.procs.append(self.proc)
        self.port = None

    def wait_listening(self, state_dir, timeout=15):
        listen_file = os.path.join(state_dir, "eboardd.listen")

        def port():
            if self.proc.poll() is not None:
                raise TestFailure(f"eboardd exited ({self.proc.returncode}): {self.text()[-2000:]}")
            if os.path.exists(listen_file):
                text = open(listen_file).read().strip()
                if text:
                    return int(text.rsplit(":", 1)[1])
            return None

        self.port = wait_until(port, timeout, "eboardd to listen")
        return self

    def wait_exit(self, timeout=15):
        """The exit status, or None if it is still running after `timeout` (then it is killed)."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def text(self):
        return open(self.log, errors="replace").read()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.wait_exit(10)

    def request(self, method, path, token=None, body=None):
        """(status, body text); HTTP errors are statuses, not exceptions."""
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                     data=None if body is None else body.encode())
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        if body is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=15) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    def board_ids(self):
        status, body = self.request("GET", "/status")
        if status != 200:
            raise TestFailure(f"/status: {status} {body}")
        return [b["id"] for b in json.loads(body)["boards"]]


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def case_lock(h, exe):
    state = os.path.join(h.dir, "state")
    config = write(os.path.join(h.dir, "eboardd.toml"),
                   f'state_dir = "{state}"\n\n[http]\nlisten = "127.0.0.1:0"\n')
    first = Eboardd(h, exe, config, "first").wait_listening(state)
    lock_file = os.path.join(state, "eboardd.lock")
    h.check(open(lock_file).read().strip() == str(first.proc.pid),
            f"eboardd.lock holds {open(lock_file).read()!r}, not the PID {first.proc.pid}")
    os.remove(lock_file)  # a cleanup script, an operator: the file is no lock any more
    second = Eboardd(h, exe, config, "second")
    code = second.wait_exit(15)
    out = second.text()
    h.check(code == 1, f"a second eboardd on the same state_dir, its lock file deleted: exit {code}, not 1")
    h.check(f"PID {first.proc.pid}" in out,
            f"the refusal does not name the first daemon's PID {first.proc.pid}: {out[-1500:]}")
    h.check(first.proc.poll() is None, "the first eboardd died")
    h.check(first.stop() == 0, "the first eboardd did not stop cleanly")
    # Gone: the state directory is free again, and the lock file is back with the new holder's PID.
    os.remove(os.path.join(state, "eboardd.listen"))  # the first's: wait for the third's own
    third = Eboardd(h, exe, config, "third").wait_listening(state)
    h.check(open(lock_file).read().strip() == str(third.proc.pid), "eboardd.lock not rewritten by the next daemon")
    h.check(third.stop() == 0, "the third eboardd did not stop cleanly")


def case_listen(h, exe):
    state = os.path.join(h.dir, "state")
    plain = write(os.path.join(h.dir, "plain.toml"), f'state_dir = "{state}"\n\n[http]\nlisten = "127.0.0.1:0"\n')
    public = write(os.path.join(h.dir, "public.toml"), f'state_dir = "{state}"\n\n[http]\nlisten = "0.0.0.0:0"\n')
    token = "hygiene-token-0001"
    with_token = write(os.path.join(h.dir, "token.toml"),
                       f'state_dir = "{state}"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{token}"\n')
    open_read = write(os.path.join(h.dir, "open.toml"),
                      f'state_dir = "{state}"\n\n[http]\nlisten = "127.0.0.1:0"\nopen_read = true\n')

    # The file's refusal, for comparison.
    r = subprocess.run([exe, "--config", public, "--check-config"], capture_output=True, text=True, timeout=30)
    h.check(r.returncode == 2 and "http.listen 0.0.0.0:0 " + EXPOSURE in r.stderr,
            f"the file's non-loopback listen without a token: exit {r.returncode}, {r.stderr!r}")

    # --listen beyond loopback over a file without a token: the same refusal, checked or run.
    r = subprocess.run([exe, "--config", plain, "--listen", "0.0.0.0:0", "--check-config"], capture_output=True,
                       text=True, timeout=30)
    h.check(r.returncode == 2 and "--listen 0.0.0.0:0 " + EXPOSURE in r.stderr,
            f"--check-config --listen 0.0.0.0:0 without a token: exit {r.returncode}, {r.stderr!r}")
    run = Eboardd(h, exe, plain, "listen-no-token", ["--listen", "0.0.0.0:0"])
    code = run.wait_exit(15)
    h.check(code == 2 and EXPOSURE in run.text(),
            f"eboardd --listen 0.0.0.0:0 without a token: exit {code} (None: it ran), {run.text()[-1500:]}")

    # Without a configuration file (the demo): refused as before, in the same words.
    r = subprocess.run([exe, "--demo", "--state-dir", state, "--listen", "0.0.0.0:0", "--check-config"],
                       capture_output=True, text=True, timeout=30)
    h.check(r.returncode == 2 and EXPOSURE in r.stderr,
            f"--demo --listen 0.0.0.0:0: exit {r.returncode}, {r.stderr!r}")

    # open_read = true in the file publishes on purpose: accepted.
    r = subprocess.run([exe, "--config", open_read, "--listen", "0.0.0.0:0", "--check-config"],
                       capture_output=True, text=True, timeout=30)
    h.check(r.returncode == 0, f"--listen 0.0.0.0:0 with open_read = true: exit {r.returncode}, {r.stderr!r}")

    # A token: may publish, and reading then needs the token as it does with the address in the file.
    d = Eboardd(h, exe, with_token, "listen-token", ["--listen", "0.0.0.0:0"]).wait_listening(state)
    listen = open(os.path.join(state, "eboardd.listen")).read().strip()
    h.check(listen.startswith("0.0.0.0:"), f"--listen 0.0.0.0:0 with a token listens on {listen}")
    status, _ = d.request("GET", "/status")
    h.check(status == 401, f"--listen 0.0.0.0:0 with a token: /status without the token gave {status}, not 401")
    status, _ = d.request("GET", "/status", token=token)
    h.check(status == 200, f"--listen 0.0.0.0:0 with a token: /status with the token gave {status}")
    h.check(d.stop() == 0, "eboardd did not stop cleanly")


def case_reload(h, exe):
    state = os.path.join(h.dir, "state")
    config = os.path.join(h.dir, "eboardd.toml")
    missing = os.path.join(h.dir, "no-such-tty")  # the board waits for it; its game is there

    def configure(token, boards=True, discovery=False):
        text = f'state_dir = "{state}"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{token}"\n'
        if discovery:
            text += "\n[discovery]\nusb = true\n"
        if boards:
            text += f'\n[[board]]\nid = "A"\nport = "{missing}"\n\n[[board]]\nid = "B"\nport = "{missing}-b"\n'
        write(config, text)

    old, new = "old-token-0001", "new-token-0002"
    configure(old)
    d = Eboardd(h, exe, config, "eboardd").wait_listening(state)
    h.check(d.board_ids() == ["A", "B"], f"boards at start: {d.board_ids()}")

    reloads = 0

    def sighup():
        nonlocal reloads
        reloads += 1
        d.proc.send_signal(signal.SIGHUP)
        # Every SIGHUP ends in one of these lines (main.cpp); "refused" is new with this fix.
        wait_until(lambda: sum(d.text().count(w) for w in ("reloaded:", "reload refused", "reload failed"))
                   >= reloads, 15, f"the end of reload {reloads}")

    # A file with no boards at all (emptied by mistake): refused, both boards keep running.
    configure(old, boards=False)
    sighup()
    h.check("reload refused" in d.text(), "a reload removing every board was not refused")
    h.check(d.board_ids() == ["A", "B"], f"boards after the empty reload: {d.board_ids()}")

    # A new token: the old one stops working at once, the new one works.
    configure(new)
    sighup()
    status, body = d.request("POST", "/control/A/draw", token=old, body="{}")
    h.check(status == 401, f"control with the old token after the reload: {status} {body}")
    status, body = d.request("POST", "/control/A/draw", token=new, body="{}")
    h.check(status not in (401, 403), f"control with the new token after the reload: {status} {body}")
    h.check(old not in d.text() and new not in d.text(), "a token was written to the log")

    # With USB discovery on, a file without configured boards is a plan: applied.
    configure(new, boards=False, discovery=True)
    sighup()
    h.check(d.board_ids() == [], f"boards after a discovery-only reload: {d.board_ids()}")
    h.check(d.stop() == 0, "eboardd did not stop cleanly")


def case_openings(h, exe):
    state = os.path.join(h.dir, "state")
    book = write(os.path.join(h.dir, "book.pgn"), '[Event "lines"]\n\n1. d4 Nf6 2. Nf3 d5 *\n\n[Event "x"]\n\n1. e5 *\n')
    empty = write(os.path.join(h.dir, "empty.pgn"), "not a game\n")
    def config(name, openings):
        return write(os.path.join(h.dir, f"{name}.toml"),
                     f'state_dir = "{state}"\n\n[http]\nlisten = "127.0.0.1:0"\n\n[gaps]\nopenings = "{openings}"\n')

    for name, openings, words in (("missing", os.path.join(h.dir, "absent.pgn"), "cannot read"),
                                  ("directory", h.dir, "cannot read"),
                                  ("no-line", empty, "no opening line")):
        path = config(name, openings)
        r = subprocess.run([exe, "--config", path, "--check-config"], capture_output=True, text=True, timeout=30)
        h.check(r.returncode == 2 and words in r.stderr and openings in r.stderr and "OK" not in r.stdout,
                f"--check-config with openings = {openings!r}: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
        # The start refuses it alike (read before the boards, whose journals' replays rank with it).
        run = Eboardd(h, exe, path, f"openings-{name}")
        code = run.wait_exit(15)
        h.check(code not in (0, None) and words in run.text() and openings in run.text(),
                f"eboardd with openings = {openings!r}: exit {code} (None: it ran), {run.text()[-1500:]}")
    r = subprocess.run([exe, "--config", config("none", ""), "--check-config"], capture_output=True, text=True,
                       timeout=30)
    h.check(r.returncode == 0 and "opening lines (gap ranking): none" in r.stdout, f"openings = \"\": {r!r}")
    r = subprocess.run([exe, "--config", config("book", book), "--check-config"], capture_output=True, text=True,
                       timeout=30)
    h.check(r.returncode == 0 and f"1 lines (4 positions) from {book}, 1 games" in r.stdout,
            f"openings = a book of one line and one game that does not replay: {r!r}")
    d = Eboardd(h, exe, config("book", book), "openings-book").wait_listening(state)
    wait_until(lambda: "gaps.openings: 1 lines (4 positions)" in d.text() or None, 15, "the book read")
    h.check(d.stop() == 0, "eboardd did not stop cleanly")


def main():
    case, exe = sys.argv[1], sys.argv[2]
    cases = {"lock": case_lock, "listen": case_listen, "reload": case_reload, "openings": case_openings}
    with Harness(f"hygiene-{case}") as h:
        try:
            cases[case](h, exe)
        except TestFailure as e:
            h.failures.append(str(e))
            print("FAIL:", e, flush=True)
    return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
