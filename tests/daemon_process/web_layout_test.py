#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The operator's page on the hall's screens (issue 27): a laptop (1366x768) and a phone (390x844), in Debian's
headless `chromium` against a real eboardd bughouse demo (boards A and B, no token configured).

At each size, for board A's view and for the match view A-B, without scrolling:
- nothing overflows sideways (document.documentElement.scrollWidth <= window.innerWidth);
- both clocks, both player rows and every reserve of the board (the match view: all four) lie inside the
  viewport and are what the browser shows at their centre (not hidden under the sticky header); on the laptop
  the board view's partner board's two reserves too;
- the board is drawn large enough to read (the page must not pass by shrinking it to nothing);
- on the phone the board view is one column: the alerts come right after the board, before the moves and the
  arbiter's actions.
With no control token the page says control is off and offers no sign-in.
Screenshots of both views at both sizes (what the screen shows, not the whole page) are written to the directory printed at the end ($EBOARD_WEB_SCREENSHOTS,
else eboard-web-screens-<uid> in the temporary directory); the README shows copies of them.

usage: web_layout_test.py EBOARDD EBOARDCTL SHARED_DIR
exit 77 (skipped) when chromium is absent outside CI, or without the corpus
"""
import base64
import json
import os
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
import web_page_test as wp  # noqa: E402  (its DevTools client and Chromium start)

# (name, width, height, mobile, the least board side in px for the board view and for the match view)
SIZES = (("laptop", 1366, 768, False, 380, 300), ("phone", 390, 844, True, 300, 180))

# Every element that must be seen, with its rect and whether the browser shows it at its centre.
SEEN_JS = """((sel) => {
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    const r = e.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    out.push({what: (e.className.baseVal !== undefined ? 'svg.board' : e.className) + ' ' +
                    (e.dataset.side || '') + ' ' + e.textContent.slice(0, 40),
              left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height,
              shown: !!hit && (e === hit || e.contains(hit))});
  }
  return {items: out, vw: window.innerWidth, vh: window.innerHeight,
          scrollWidth: document.documentElement.scrollWidth, scrollY: window.scrollY};
})(%s)"""


def check_seen(h, cdp, size, view, selector, count, width, height):
    """The elements of selector: count of them, every one inside the viewport and shown; no sideways overflow.
    The viewport is the screen's: a phone browser widens its layout viewport to content that overflows, so
    innerWidth alone would hide the overflow."""
    got = cdp.js(SEEN_JS % json.dumps(selector))
    h.check(got["vw"] <= width and got["vh"] <= height,
            f"{size} {view}: the page's viewport is {got['vw']}x{got['vh']}, wider or taller than the screen")
    vw, vh = min(got["vw"], width), min(got["vh"], height)
    h.check(got["scrollWidth"] <= vw,
            f"{size} {view}: horizontal overflow (scrollWidth {got['scrollWidth']} > innerWidth {vw})")
    h.check(len(got["items"]) == count, f"{size} {view}: {count} elements {selector!r}, found {len(got['items'])}")
    for it in got["items"]:
        inside = (it["width"] > 0 and it["height"] > 0 and it["left"] >= -0.5 and it["top"] >= -0.5
                  and it["right"] <= vw + 0.5 and it["bottom"] <= vh + 0.5)
        h.check(inside and it["shown"], f"{size} {view} ({vw}x{vh}): {it['what']!r} at "
                f"({it['left']:.0f},{it['top']:.0f})-({it['right']:.0f},{it['bottom']:.0f}), "
                f"{'shown' if it['shown'] else 'covered'}: not inside the viewport or not shown")
    return got


def screenshot(cdp, path):
    """What the screen shows without scrolling (the README's pictures of each size)."""
    with open(path, "wb") as f:
        f.write(base64.b64decode(cdp.call("Page.captureScreenshot", format="png")["data"]))


def browser_checks(h, cdp, shots):
    cdp.call("Runtime.enable")
    cdp.call("Page.enable")
    # No token configured: the page says control is off instead of offering a sign-in that could not give it.
    wp.wait_js(h, cdp, "document.getElementById('live').dataset.live === 'true' && "
               "!document.getElementById('control-off').hidden", 20, "the page saying control is off")
    h.check(cdp.js("document.getElementById('signin').hidden && "
                   "document.getElementById('control-off').textContent.includes('no http.token')"),
            "with no http.token: no sign-in form, 'control is off (no http.token)' shown")
    for name, width, height, mobile, min_board, min_match in SIZES:
        cdp.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                 mobile=mobile)
        cdp.js("location.hash = '#board/A'; window.scrollTo(0, 0)")
        wp.wait_js(h, cdp, "document.getElementById('live').dataset.live === 'true' && "
                   "document.querySelectorAll('#board-view .large > .reserve').length === 2 && "
                   "document.querySelectorAll('#board-view .large > .player').length === 2", 20,
                   f"{name}: board A's view with its players and reserves")
        time.sleep(0.3)  # the fonts and a frame
        cdp.js("window.scrollTo(0, 0)")
        check_seen(h, cdp, name, "board view", "#board-view .large > .player .clock", 2, width, height)
        check_seen(h, cdp, name, "board view", "#board-view .large > .player", 2, width, height)
        check_seen(h, cdp, name, "board view", "#board-view .large > .reserve", 2, width, height)
        if not mobile:  # on the laptop the partner board and its reserves are beside the board
            check_seen(h, cdp, name, "board view", "#board-view .partner .reserve", 2, width, height)
        got = check_seen(h, cdp, name, "board view", "#board-view .large > svg.board", 1, width, height)
        side = got["items"][0]["width"] if got["items"] else 0
        h.check(side >= min_board, f"{name} board view: the board is {side:.0f} px wide, at least {min_board}")
        if mobile:
            order = cdp.js("""(() => {
              const top = (e) => e ? e.getBoundingClientRect().top + window.scrollY : null;
              const hs = [...document.querySelectorAll('#board-view h2')];
              const named = (t) => hs.find(x => x.textContent === t);
              return {board: document.querySelector('#board-view .large > svg.board').getBoundingClientRect()
                               .bottom + window.scrollY,
                      alerts: top(named('Alerts')), moves: top(named('Moves')), arbiter: top(named('Arbiter')),
                      partner: top(document.querySelector('#board-view .partner'))};
            })()""")
            h.check(None not in order.values() and order["board"] < order["alerts"] < order["moves"]
                    < order["arbiter"] and order["alerts"] < order["partner"],
                    f"phone board view: the board, then the alerts, then the moves and the actions: {order}")
        path = os.path.join(shots, f"board-{name}.png")
        screenshot(cdp, path)
        print("screenshot:", path)

        cdp.js("location.hash = '#match/A-B'; window.scrollTo(0, 0)")
        wp.wait_js(h, cdp, "document.querySelectorAll('#match-view .card .reserve:not([hidden])').length === 4",
                   20, f"{name}: the match view's four reserves")
        time.sleep(0.3)
        cdp.js("window.scrollTo(0, 0)")
        check_seen(h, cdp, name, "match view", "#match-view .card .player .clock", 4, width, height)
        check_seen(h, cdp, name, "match view", "#match-view .card .player", 4, width, height)
        check_seen(h, cdp, name, "match view", "#match-view .card .reserve", 4, width, height)
        got = check_seen(h, cdp, name, "match view", "#match-view .card svg.board", 2, width, height)
        sides = [it["width"] for it in got["items"]]
        h.check(sides and min(sides) >= min_match,
                f"{name} match view: the boards are {sides} px wide, at least {min_match}")
        path = os.path.join(shots, f"match-{name}.png")
        screenshot(cdp, path)
        print("screenshot:", path)

        cdp.js("location.hash = ''; window.scrollTo(0, 0)")
        wp.wait_js(h, cdp, "!document.getElementById('hall').hidden", 10, f"{name}: the hall")
        time.sleep(0.3)
        wide = cdp.js("[document.documentElement.scrollWidth, window.innerWidth]")
        h.check(wide[0] <= wide[1], f"{name} hall: no horizontal overflow: scrollWidth {wide[0]} > {wide[1]}")
    # An action's answer in words beside its button (the raw answer only in the details below): the draw
    # asked for anyway is refused, control being off.
    cdp.js("location.hash = '#board/A'")
    wp.wait_js(h, cdp, "!!document.querySelector('#board-view .actions button')", 15, "board A's actions")
    cdp.js("request('POST', '/control/A/draw', {}, document.querySelector('#board-view .actions button'))")
    said = wp.wait_js(h, cdp, "(() => { const s = document.querySelector('#board-view .actions button + .said');"
                      " return s && s.dataset.ok === 'false' ? s.textContent : null; })()", 15,
                      "the answer beside the Draw button")
    h.check(said.startswith("Refused: control is disabled") and "{" not in said,
            f"the refusal told in words beside the button: {said!r}")
    return h.exit_code()


def main():
    start = ep.page_test_start(__doc__)
    if isinstance(start, int):
        return start
    eboardd, _eboardctl, shared, chromium, shots = start
    with ep.Harness("web-layout") as h:
        state = os.path.join(h.dir, "state")
        config = os.path.join(h.dir, "eboardd.toml")
        with open(config, "w") as f:  # no token: reading is open on loopback, control is off
            f.write(f'state_dir = "{state}"\n[http]\nlisten = "127.0.0.1:0"\n')
        wp.start_daemon(h, eboardd, config, shared, "127.0.0.1:0", "eboardd")
        listen_file = os.path.join(state, "eboardd.listen")
        ep.wait_until(lambda: os.path.exists(listen_file), 15, "eboardd listening")
        port = int(open(listen_file).read().strip().rsplit(":", 1)[1])
        ep.wait_until(lambda: all(b["game"]["ply"] >= 2 for b in status(port)["boards"]), 20,
                      "moves on the demo boards")
        browser, cdp = wp.start_chromium(h, chromium)
        try:
            cdp.call("Page.navigate", url=f"http://127.0.0.1:{port}/")
            code = browser_checks(h, cdp, shots)
        finally:
            try:
                os.killpg(browser.pid, signal.SIGKILL)  # the browser and its renderers
            except ProcessLookupError:
                pass
        print(f"screenshots in {shots}")
        return code


def status(port):
    code, body, _ = wp.request(port, "GET", "/status")
    if code != 200:
        raise ep.TestFailure(f"/status: {code} {body[:200]}")
    return json.loads(body)


if __name__ == "__main__":
    sys.exit(main())
