#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""FIDE 7.5.5 from the arbiter's page (issue 27), on a DGT board and DGT 3000 written from DGT's description
(dgt3000_board.py), in headless Chromium (web_page_test's DevTools client).

The clock is set to 5:00 each and started on the left (White's, White on move) through the clock control;
the hands then play an illegal knight move (Nb1-b3) and White presses. The page must show the alert with
what the arbiter usually does, the proposal (+2:00 to Black, the times at the press) and a button; clicked
(the confirmation accepted), the page says in words beside it that the clock confirmed, and the emulated
clock's right display (Black's) shows two minutes more than before the click, less the seconds it ran.

usage: dgt3000_page_test.py EBOARDD EBOARDCTL SHARED_DIR
exit 77 (skipped) when chromium is absent outside CI
"""
import json
import os
import sys
import time

sys.dont_write_bytecode = True
import counterpart_run as cr  # noqa: E402
from web_page_test import open_signed_in, request, start_chromium, stop_chromium, wait_js  # noqa: E402

ep = cr.ep
TOKEN = "clock-page-token"


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    eboardd = sys.argv[1]
    chromium, exit_code = ep.browser_or_skip()
    if not chromium:
        return exit_code
    shots = ep.screenshot_dir()
    with ep.Harness("dgt3000-page") as h:
        try:
            run(h, eboardd, chromium, shots)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def board(port):
    code, body, _ = request(port, "GET", "/status", token=TOKEN)
    if code != 200:
        raise ep.TestFailure(f"/status: {code} {body[:200]}")
    return json.loads(body)["boards"][0]


def run(h, eboardd, chromium, shots):
    status_path = os.path.join(h.dir, "clock.json")
    hands = os.path.join(h.dir, "hands.txt")
    open(hands, "w").close()
    _, (device,) = cr.start_emulator(h, "dgt3000", [
        "dgt3000_board.py", "--link", os.path.join(h.dir, "dgt"), "--status", status_path, "--commands", hands], 1)
    body = f'token = "{TOKEN}"\n\n[[board]]\nid = "A"\nport = "{device}"\nprotocol = "dgt"\n'
    d = cr.ConfiguredDaemon(h, eboardd, body, "A").start()
    ep.wait_until(lambda: board(d.port)["control"]["clock"].get("settable"), 30, "board A online, its clock settable")

    def hand(*lines):
        with open(hands, "a") as f:
            f.write("".join(line + "\n" for line in lines))

    # The clock set and started on the left.
    code, text, _ = request(d.port, "POST", "/control/A/clock", token=TOKEN,
                            body={"left": "5:00", "right": "5:00", "run": "left"})
    h.check(code == 200, f"the clock started ({code} {text})")
    ep.wait_until(lambda: board(d.port)["control"]["clock"].get("white_side") == "left", 15, "White's side known")
    time.sleep(1.5)
    hand("lift b1", "place b3 N")
    time.sleep(0.8)
    hand("press")
    alert = ep.wait_until(lambda: next((a for a in board(d.port)["control"]["alerts"]
                                        if a["code"] == "illegal-move" and a.get("proposed_clock")), None),
                          15, "the illegal-move alert with its proposal in /status")
    p = alert["proposed_clock"]
    print(f"alert: {alert}", flush=True)
    h.check(p["add_to"] == "black" and p["add_ms"] == 120000, f"two minutes to Black proposed: {p}")
    h.check(280000 <= p["white"] <= 300000 and p["black"] == 300000 + 120000,
            f"the times at White's press, Black's raised: {p}")
    hand("lift b3", "place b1 N")  # the position reinstated

    browser, cdp = start_chromium(h, chromium)
    try:
        open_signed_in(h, cdp, d.port, TOKEN, "#board/A")
        li = "#board-view li[data-code=\"illegal-move\"]"
        action = wait_js(h, cdp, f"(() => {{ const p = document.querySelector('{li} .alert-action');"
                                 f" return p ? p.textContent : null; }})()", 15, "the alert's usual action")
        h.check("7.5.5" in action and "Reinstate" in action, f"the usual action shown: {action!r}")
        proposal = wait_js(h, cdp, f"(() => {{ const p = document.querySelector('{li} .penalty');"
                                   f" return p ? p.textContent : null; }})()", 15, "the proposal")
        h.check("Give Black +2:00" in proposal and "7:00" in proposal, f"the proposal shown: {proposal!r}")
        wait_js(h, cdp, f"!!document.querySelector('{li} button.apply-penalty:not([disabled])')", 15,
                "the penalty's button enabled")
        path = os.path.join(shots, "clock-penalty.png")
        cdp.screenshot(path)
        print("screenshot:", path)
        before = cr.read_status(status_path)["right_ms"]
        cdp.js("window.asked = []; window.confirm = (q) => { window.asked.push(q); return true; }")
        cdp.js(f"document.querySelector('{li} button.apply-penalty').click()")
        said = wait_js(h, cdp, f"(() => {{ const s = document.querySelector('{li} .penalty .said');"
                               f" return s && !s.textContent.includes('Sending') ? s.textContent : null; }})()",
                       20, "the clock's answer beside the button")
        asked = cdp.js("window.asked")
        h.check(len(asked) == 1 and "Black" in asked[0] and "2:00" in asked[0], f"confirmation asked: {asked}")
        h.check("confirmed" in said, f"the answer in words beside the button: {said!r}")
        after = cr.read_status(status_path)["right_ms"]
        print(f"Black's display: {before} ms before the click, {after} ms after", flush=True)
        h.check(110000 <= after - before <= 121000, f"Black's clock shows two minutes more ({before} -> {after})")
        ep.check_page_threw_nothing(h, cdp)
    finally:
        stop_chromium(browser)
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")


if __name__ == "__main__":
    sys.exit(main())
