#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The operator's page under a whole hall: 200 boards at blitz pace, the page in headless Chromium.

The hall is bench_daemon's (tests/bench): N emulated DGT boards with their clocks on pseudo-terminals, each
moving every 2-5 s, against the real eboardd binary (bench_daemon starts it, with reading open on
loopback). This script opens the page on that daemon and lets it follow the hall for --minutes. The boards
play corpus games of 60 to 180 plies: from about the fourth minute on they finish one after the other (and
stay on their final position), so the pace falls; the figures of the first 5 minutes are printed apart.

Measured in the page: for each move, the time from the arrival of its /ws message (performance.now() when
the WebSocket's message handler starts) to the end of the redraw of that board's card (its DOM updated, in
the requestAnimationFrame callback that draws it; the paint that follows is not included). Several moves of
one board within one frame count once, from the first. The page records these only when window.eboarddBench is an array, which this script sets
before the page's script runs (Page.addScriptToEvaluateOnNewDocument). Printed: median, p90, p99 and max;
the page's JS heap (Performance.getMetrics JSHeapUsedSize), its DOM nodes and event listeners after the
first minute and at the end; the share of the page's main thread spent in tasks (TaskDuration) over the run.
Nothing about time is asserted: the run fails only if the page never goes live or shows no move.

usage: web_bench.py BENCH_DAEMON [--boards 200] [--minutes 10] [--eboardd PATH]
"""
import argparse
import glob
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
from web_page_test import start_chromium, wait_js  # noqa: E402


def quantile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def metrics(cdp):
    return {m["name"]: m["value"] for m in cdp.call("Performance.getMetrics")["metrics"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench_daemon", help="tests/bench/bench_daemon of this build")
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--minutes", type=float, default=10.0, help="how long the page follows the hall")
    ap.add_argument("--eboardd", help="the eboardd binary (default: bench_daemon's)")
    a = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("SKIP: chromium is not installed (apt install chromium)")
        return 77
    with ep.Harness("web-bench") as h:
        base = tempfile.mkdtemp(prefix="eboard-web-bench-")
        window = int(a.minutes * 60 + 60)  # the page's minutes, and its start
        args = [a.bench_daemon, "--boards", str(a.boards), "--warmup", "5", "--window", str(window),
                "--state-base", base]
        if a.eboardd:
            args += ["--eboardd", a.eboardd]
        hall = subprocess.Popen(args, stdout=open(h.log_path("bench_daemon"), "w"), stderr=subprocess.STDOUT,
                                start_new_session=True)
        h.procs.append(hall)

        def listen_file():
            found = glob.glob(os.path.join(base, "eboard-bench-daemon-*", "state", "eboardd.listen"))
            return found[0] if found and open(found[0]).read().strip() else None
        ep.wait_until(listen_file, 120, "bench_daemon's eboardd listening")
        port = int(open(listen_file()).read().strip().rsplit(":", 1)[1])
        browser, cdp = start_chromium(h, chromium)
        try:
            cdp.call("Page.enable")
            cdp.call("Performance.enable")
            cdp.call("Page.addScriptToEvaluateOnNewDocument", source="window.eboarddBench = [];")
            cdp.call("Page.navigate", url=f"http://127.0.0.1:{port}/")
            wait_js(h, cdp, "document.getElementById('live')?.dataset.live === 'true'", 60, "the page live")
            wait_js(h, cdp, f"document.querySelectorAll('#hall .card:not([data-failed])').length >= {a.boards}",
                    60, f"{a.boards} boards in the hall")
            # From here: the hall at its pace (the snapshot of every game told at the connection is not
            # counted).
            cdp.js("window.eboarddBench.length = 0")
            t0 = time.time()
            m0 = metrics(cdp)
            latencies = []
            early = []  # the first 5 minutes: most boards still in their game
            first = None
            end = t0 + a.minutes * 60
            while time.time() < end:
                time.sleep(min(30, max(0.5, end - time.time())))
                chunk = cdp.js("window.eboarddBench.splice(0)") or []
                latencies += chunk
                if time.time() - t0 <= 5 * 60 + 1:
                    early += chunk
                m = metrics(cdp)
                if first is None and time.time() - t0 >= 60:
                    first = m
                print(f"{time.time() - t0:6.0f} s: {len(chunk) / 30:5.1f} moves shown/s, p99 "
                      f"{quantile(chunk, 0.99):6.1f} ms, heap {m['JSHeapUsedSize'] / 1e6:.1f} MB, "
                      f"{int(m['Nodes'])} nodes", flush=True)
            m1 = metrics(cdp)
            moves = cdp.js("[...document.querySelectorAll('#hall .card')]"
                           ".reduce((n, c) => n + Number(c.dataset.ply || 0), 0)")
            live = cdp.js("document.getElementById('live').dataset.live")
        finally:
            try:
                os.killpg(browser.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.killpg(hall.pid, signal.SIGTERM)
                hall.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
            shutil.rmtree(base, ignore_errors=True)
        h.check(latencies, "the page showed no move")
        span = m1["Timestamp"] - m0["Timestamp"]
        busy = 100.0 * (m1["TaskDuration"] - m0["TaskDuration"]) / span if span > 0 else float("nan")
        print(f"\n{a.boards} boards at blitz pace (a move every 2-5 s per board), the page followed them "
              f"{span / 60:.1f} min; still live at the end: {live}; plies on the boards shown: {moves}")
        print(f"/ws move -> board's DOM updated: {len(latencies)} moves, median "
              f"{statistics.median(latencies):.2f} ms, p90 {quantile(latencies, 0.9):.2f} ms, "
              f"p99 {quantile(latencies, 0.99):.2f} ms, max {max(latencies):.2f} ms")
        if early and a.minutes > 5:
            print(f"  the first 5 minutes (most boards in their game): {len(early)} moves, median "
                  f"{statistics.median(early):.2f} ms, p99 {quantile(early, 0.99):.2f} ms")
        if first:
            print(f"after 1 min: JS heap {first['JSHeapUsedSize'] / 1e6:.1f} MB, {int(first['Nodes'])} DOM nodes, "
                  f"{int(first['JSEventListeners'])} listeners")
        print(f"at the end:  JS heap {m1['JSHeapUsedSize'] / 1e6:.1f} MB (of {m1['JSHeapTotalSize'] / 1e6:.1f} MB "
              f"allocated), {int(m1['Nodes'])} DOM nodes, {int(m1['JSEventListeners'])} listeners")
        print(f"the page's main thread busy {busy:.1f} % of the time (tasks: script, style, layout)")
        return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
