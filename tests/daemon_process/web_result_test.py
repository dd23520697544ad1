#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The arbiter's result form of the operator's page (issue 27), in headless Chromium on a real eboardd.

Two boards with no device (their ports absent), a control token. Board 1's view, signed in:
- the form asks for confirmation: declined, nothing is sent (/games.pgn still `*`);
- an unknown game number: the daemon's 400 reason is shown in words beside the form's button;
- a forfeit (+/-) confirmed: the words beside the button name it, and /games.pgn shows 1-0 with
  ArbiterResult "+/-" at once;
- a correction of that game to 1/2-1/2: the words say corrected and what it was.
The page throws nothing.

usage: web_result_test.py EBOARDD
exit 77 (skipped) when chromium is absent outside CI
"""
import json
import os
import signal
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
from pgn_feeds_test import Configured, tags_of  # noqa: E402
from web_actions_test import sign_in  # noqa: E402
from web_page_test import start_chromium, wait_js  # noqa: E402

TOKEN = "web-result-control-token"


def said(h, cdp, before, what):
    """The words beside the form's button once they change from `before`."""
    return wait_js(h, cdp, "(() => { const s = document.querySelector('#board-view button.give-result')"
                           "?.nextElementSibling; const t = s && s.classList.contains('said') ? s.textContent : '';"
                           f" return t && t !== {json.dumps(before)} ? t : null; }})()", 15, what)


def fill(cdp, result, reason, game=""):
    cdp.js(f"""(() => {{ const f = document.querySelector('#board-view form.result-form');
        f.querySelector('select.arbiter-result').value = {json.dumps(result)};
        f.querySelector('input.arbiter-reason').value = {json.dumps(reason)};
        f.querySelector('input.arbiter-game').value = {json.dumps(game)};
        f.querySelector('button.give-result').focus();  // as a click leaves it: the answer goes beside it
        f.requestSubmit(); }})()""")


def checks(h, cdp, d):
    def board1():
        return [t for t in tags_of(d.get("/games.pgn")[1]) if t.get("Board") == "1"][-1]

    cdp.call("Page.enable")
    cdp.call("Runtime.enable")
    cdp.call("Page.navigate", url=f"http://127.0.0.1:{d.port}/#board/1")
    wait_js(h, cdp, "document.readyState === 'complete' && !!document.getElementById('signin')", 15, "page load")
    sign_in(cdp, TOKEN)
    wait_js(h, cdp, "!!document.querySelector('#board-view button.give-result:not([disabled])')", 15,
            "the result form, enabled")
    cdp.js("window.__asked = []; window.confirm = (q) => { window.__asked.push(q); return false; }")
    fill(cdp, "+/-", "Black did not come")
    asked = wait_js(h, cdp, "window.__asked.length ? window.__asked[0] : null", 15, "the confirmation asked")
    h.check("+/-" in asked and "board 1" in asked, f"the confirmation: {asked!r}")
    h.check(board1().get("Result") == "*", "a declined confirmation sent the result")

    cdp.js("window.confirm = () => true")
    fill(cdp, "+/-", "Black did not come", "9")
    text = said(h, cdp, "", "the refusal of game 9")
    h.check(text.startswith("Refused") and "game" in text and "not 9" in text, f"game 9: {text!r}")
    fill(cdp, "+/-", "Black did not come")
    text = said(h, cdp, text, "the forfeit's answer")
    h.check("+/-" in text and "forfeit" in text and "6.7.1" in text, f"the forfeit's words: {text!r}")
    b = board1()
    h.check(b.get("Result") == "1-0" and b.get("ArbiterResult") == "+/-", f"/games.pgn after the page's forfeit: {b}")
    fill(cdp, "1/2-1/2", "the forfeit was entered on the wrong board")
    text = said(h, cdp, text, "the correction's answer")
    h.check("corrected" in text and "was +/-" in text, f"the correction's words: {text!r}")
    h.check(board1().get("Result") == "1/2-1/2", "/games.pgn after the page's correction")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    eboardd = sys.argv[1]
    chromium, exit_code = ep.browser_or_skip()
    if not chromium:
        return exit_code
    with ep.Harness("web-result") as h:
        boards = "".join(f'[[board]]\nid = "{i}"\nport = "/nonexistent/eboard-{i}"\nprotocol = "dgt"\n\n'
                         for i in (1, 2))
        d = Configured(h, eboardd, "web-result",
                       f'state_dir = "@STATE@"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n' + boards)
        d.start()
        browser, cdp = start_chromium(h, chromium)
        try:
            checks(h, cdp, d)
            cdp.js("1")  # the events sent so far are read
            ep.check_page_threw_nothing(h, cdp)
        except ep.TestFailure as e:
            h.check(False, str(e))
        finally:
            try:
                os.killpg(browser.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        h.check(d.stop() == 0, "SIGTERM: clean exit 0")
        return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
