#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The operator's web page (issue 14) in a real browser: Debian's headless `chromium` against a real eboardd demo.

The daemon runs the bughouse demo (boards A and B) with a token required for reading too; a third board C is
added through the control API, played by `eboardctl sim` from a hand-made capture in which, after 1. e4, Black
presses the clock without moving (a `clock-without-move` alert). Chromium is driven over its DevTools protocol
by a small client here (stdlib only: http.client and an RFC 6455 WebSocket over a socket). Checked:
- without a token the page says reading needs one; a wrong token is refused; signed in through its token field
  with the right one, it goes live;
- the hall shows every board of /status with /status's FEN (data-fen), and the SVG drawn shows that FEN's
  pieces on their squares; the match is one section with both boards and their reserves;
- board C's clock, with no event since its last reading, runs down in the page;
- the open alert is highlighted and counted in the tab title;
- the board view marks an illegal move that stood and a recovered move, and shows a provisional move apart; acknowledged through the board view's button,
  it is acknowledged in /status and no longer highlighted;
- the daemon stopped: the page says "not live"; started again on the same port: live again, positions right;
- reading made open on that restart: signed out, the page is live without a token, its actions disabled.
Screenshots of the hall and two board views are written to a directory printed at the end and kept
($EBOARD_WEB_SCREENSHOTS, else eboard-web-screens-<uid> in the temporary directory, overwritten by each run).

usage: web_page_test.py EBOARDD EBOARDCTL SHARED_DIR
exit 77 (skipped) when chromium is absent outside CI, or without the corpus
"""
import base64
import hashlib
import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402

TOKEN = "web-test-control-token"
READ_TOKEN = "web-test-read-token"

# 1. e4, then Black presses the clock without moving: one move with its clock reading, one clock-without-move
# alert (7.5.3), then nothing: from there only the page's own ticking moves Black's clock.
CAPTURE = """# eboard-capture 1
# protocol: dgt
# board: C
# note: hand-made: the initial position, 1. e4 and White's press, then Black presses without moving
0 > 42
0 > 4b
50 < 86 00 43 08 09 0a 0c 0b 0a 09 08 07 07 07 07 07 07 07 07 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 01 01 01 01 01 01 01 02 03 04 06 05 04 03 02
100 < 8d 00 0a 00 05 00 00 05 00 08
1000 < 8d 00 0a 00 05 00 00 05 00 09
2000 < 8d 00 0a 00 05 00 00 04 59 09
2300 < 8e 00 05 34 00
2550 < 8e 00 05 24 01
3900 < 8d 00 0a 00 04 59 00 04 57 13
4900 < 8d 00 0a 00 04 59 00 04 56 09
5900 < 8d 00 0a 00 04 58 00 04 56 09
""".replace("\\\n", "")


class Cdp:
    """A DevTools protocol client: one page target, commands answered in order, events kept aside."""

    def __init__(self, ws_url, timeout=10):
        rest = ws_url.split("://", 1)[1]
        hostport, path = rest.split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ep.TestFailure("DevTools: connection closed during the handshake")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise ep.TestFailure(f"DevTools: handshake refused: {head[:200]!r}")
        want = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
        if want not in head:
            raise ep.TestFailure("DevTools: wrong Sec-WebSocket-Accept")
        self.next_id = 0
        self.events = []

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ep.TestFailure("DevTools: connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send_text(self, text):
        self.sock.sendall(ep.client_frame(0x1, text.encode()))

    def _message(self):
        data = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise ep.TestFailure("DevTools: closed by the browser")
            if opcode in (0x0, 0x1, 0x2):
                data += payload
                if b0 & 0x80:
                    return json.loads(data)

    def call(self, method, **params):
        self.next_id += 1
        me = self.next_id
        self._send_text(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            m = self._message()
            if m.get("id") == me:
                if "error" in m:
                    raise ep.TestFailure(f"DevTools {method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def js(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise ep.TestFailure(f"page script failed: {r['exceptionDetails'].get('text')} "
                                 f"{r['exceptionDetails'].get('exception', {}).get('description', '')}")
        return r.get("result", {}).get("value")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


def stop_chromium(browser):
    """Kills the browser start_chromium started, and its renderers (its process group); gone already is fine."""
    try:
        os.killpg(browser.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def start_chromium(h, exe):
    profile = os.path.join(h.dir, "chromium-profile")
    os.makedirs(profile)
    log = open(h.log_path("chromium"), "w")
    args = [exe, "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio",
            "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", f"--user-data-dir={profile}",
            "--window-size=1500,1100", "about:blank"]
    if os.geteuid() == 0:
        args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    h.procs.append(proc)
    port_file = os.path.join(profile, "DevToolsActivePort")
    ep.wait_until(lambda: os.path.exists(port_file) and open(port_file).read().count("\n") >= 1, 20,
                  "Chromium's DevToolsActivePort")
    port = int(open(port_file).read().split("\n")[0])

    def page_target():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        conn.request("GET", "/json/list")
        targets = json.loads(conn.getresponse().read())
        pages = [t for t in targets if t.get("type") == "page"]
        return pages[0]["webSocketDebuggerUrl"] if pages else None

    url = None
    deadline = time.time() + 15  # ends with the page target
    while not url and time.time() < deadline:
        url = page_target()
        time.sleep(0.1)
    if not url:
        h.fail("Chromium shows no page target")
    return proc, Cdp(url)


def request(port, method, path, token=None, body=None):
    headers = {"Host": f"127.0.0.1:{port}"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), dict(e.headers)


def status(port):
    code, body, _ = request(port, "GET", "/status", token=READ_TOKEN)
    if code != 200:
        raise ep.TestFailure(f"/status: {code} {body[:200]}")
    return json.loads(body)


def placement(fen):
    out = {}
    rows = fen.split(" ")[0].split("[")[0].split("/")
    for r, row in enumerate(rows[:8]):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            elif ch.isalpha():
                out["abcdefgh"[f] + str(8 - r)] = ch
                f += 1
    return out


def same_position(fen, candidates):
    """The candidate FEN whose placement and side to move the page's FEN shows, or None."""
    for c in candidates:
        if c and placement(fen) == placement(c) and fen.split(" ")[1:2] == c.split(" ")[1:2]:
            return c
    return None


HALL_JS = """(() => {
  const out = {};
  for (const card of document.querySelectorAll('#hall .card:not([data-failed])')) {
    const pieces = {};
    for (const t of card.querySelectorAll('svg text[data-square]')) pieces[t.dataset.square] = t.dataset.piece;
    out[card.dataset.board] = {fen: card.dataset.fen, pieces, hidden: card.hidden || !!card.closest('[hidden]'),
      label: card.querySelector('svg').getAttribute('aria-label'), alerts: Number(card.dataset.openAlerts),
      highlighted: card.classList.contains('has-alert'),
      match: card.closest('.match') ? card.closest('.match').dataset.match : null,
      reserves: [...card.querySelectorAll('.reserve')].filter(r => !r.hidden).map(r => r.textContent),
      clocks: [...card.querySelectorAll('.clock')].map(c => c.textContent)};
  }
  return out;
})()"""


def check_hall(h, cdp, port, boards, timeout=15):
    """Every board of /status on the page, with /status's FEN (read between two /status calls, so a move in
    between is no failure) and that FEN's pieces drawn on their squares."""
    deadline = time.time() + timeout
    problems = ["never looked"]
    while time.time() < deadline:
        before = {b["id"]: b["game"]["fen"] for b in status(port)["boards"]}
        hall = cdp.js(HALL_JS) or {}
        after = {b["id"]: b["game"]["fen"] for b in status(port)["boards"]}
        problems = []
        for bid in boards:
            card = hall.get(bid)
            if not card:
                problems.append(f"board {bid}: no card in the hall")
                continue
            # The page plays the moves /ws tells on the position /status gave: its FEN holds the placement
            # and the side to move (castling rights and counters are the daemon's business).
            if same_position(card["fen"], (before.get(bid), after.get(bid))) is None:
                problems.append(f"board {bid}: page FEN {card['fen']!r}, /status {before.get(bid)!r}")
            elif card["pieces"] != placement(card["fen"]):
                problems.append(f"board {bid}: the SVG shows {card['pieces']}, not the FEN {card['fen']}")
            elif card["fen"] not in (card["label"] or ""):
                problems.append(f"board {bid}: the board's aria-label lacks the FEN: {card['label']!r}")
        if not problems:
            return hall
        time.sleep(0.3)
    h.fail("hall view: " + "; ".join(problems))


def wait_js(h, cdp, expression, timeout, what):
    deadline = time.time() + timeout
    value = None
    while time.time() < deadline:
        value = cdp.js(expression)
        if value:
            return value
        time.sleep(0.1)
    h.fail(f"{what}: not within {timeout} s (last: {value!r})")


def open_signed_in(h, cdp, port, token, fragment=""):
    """The operator's page at http://127.0.0.1:port/ and `fragment` (e.g. "#board/A") in `cdp`'s tab, signed
    in with `token` (a control token): returns once it is live with the control right."""
    cdp.call("Page.enable")
    cdp.call("Runtime.enable")
    cdp.call("Page.navigate", url=f"http://127.0.0.1:{port}/{fragment}")
    wait_js(h, cdp, "document.readyState === 'complete' && !!document.getElementById('signin')", 15, "page load")
    cdp.js(f"""(() => {{ document.getElementById('token').value = {json.dumps(token)};
              document.getElementById('signin').requestSubmit(); }})()""")
    wait_js(h, cdp, "document.getElementById('live').dataset.live === 'true' && page.right === 'control'", 15,
            "live with the control token")


def start_daemon(h, eboardd, config, shared, listen, label):
    log = open(h.log_path(label), "w")
    proc = subprocess.Popen([eboardd, "--config", config, "--demo", "--demo-speed", "4", "--no-usb",
                             "--demo-corpus", os.path.join(shared, "corpora", "bughouse"), "--listen", listen],
                            stdout=log, stderr=subprocess.STDOUT)
    h.procs.append(proc)
    return proc


def main():
    start = ep.page_test_start(__doc__)
    if isinstance(start, int):
        return start
    eboardd, eboardctl, shared, chromium, shots = start
    with ep.Harness("web") as h:
        state = os.path.join(h.dir, "state")
        config = os.path.join(h.dir, "eboardd.toml")
        with open(config, "w") as f:
            f.write(f'state_dir = "{state}"\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n'
                    f'read_token = "{READ_TOKEN}"\nopen_read = false\n')
        daemon = start_daemon(h, eboardd, config, shared, "127.0.0.1:0", "eboardd")
        listen_file = os.path.join(state, "eboardd.listen")
        ep.wait_until(lambda: os.path.exists(listen_file), 15, "eboardd listening")
        port = int(open(listen_file).read().strip().rsplit(":", 1)[1])

        # The page and its files need no token (they hold no data); the data does.
        code, body, headers = request(port, "GET", "/")
        h.check(code == 200 and headers.get("Content-Type", "").startswith("text/html") and "<html" in body,
                f"GET / is the HTML page: {code} {headers.get('Content-Type')}")
        for name, kind in (("app.js", "text/javascript"), ("style.css", "text/css")):
            code, _, headers = request(port, "GET", "/web/" + name)
            h.check(code == 200 and headers.get("Content-Type", "").startswith(kind) and headers.get("ETag"),
                    f"GET /web/{name}: {code} {headers.get('Content-Type')} ETag {headers.get('ETag')}")
        h.check(request(port, "GET", "/status")[0] == 401, "/status without a token is refused")
        code, body, _ = request(port, "GET", "/index.txt", token=READ_TOKEN)
        h.check(code == 200 and "/games.pgn" in body, f"GET /index.txt: the endpoint list ({code})")

        # Board C: a sim replaying the capture, added at run time.
        cap = os.path.join(h.dir, "clock-without-move.cap")
        with open(cap, "w") as f:
            f.write(CAPTURE)
        sim = subprocess.Popen([eboardctl, "sim", "--capture", cap, "--link", os.path.join(h.dir, "dgt-C"),
                                "--linger", "600"], stdout=subprocess.PIPE, stderr=open(h.log_path("sim"), "w"),
                               text=True)
        h.procs.append(sim)
        device = sim.stdout.readline().strip()
        code, body, _ = request(port, "POST", "/boards", token=TOKEN,
                                body={"id": "C", "port": device, "protocol": "dgt"})
        h.check(code == 201, f"POST /boards C: {code} {body}")

        def open_alert_c():
            for b in status(port)["boards"]:
                if b["id"] == "C":
                    return [a for a in b["control"]["alerts"] if not a["acknowledged"]]
            return []
        ep.wait_until(lambda: open_alert_c(), 20, "board C's clock-without-move alert in /status")
        ep.wait_until(lambda: all(b["game"]["ply"] >= 2 for b in status(port)["boards"] if b["id"] in "AB"),
                      20, "moves on the demo boards")

        browser, cdp = start_chromium(h, chromium)
        try:
            return browser_checks(h, cdp, daemon, port, open_alert_c, eboardd, config, shared, shots)
        finally:
            try:
                os.killpg(browser.pid, signal.SIGKILL)  # the browser and its renderers
            except ProcessLookupError:
                pass


def browser_checks(h, cdp, daemon, port, open_alert_c, eboardd, config, shared, shots):
    cdp.call("Page.enable")
    cdp.call("Runtime.enable")  # the page's uncaught exceptions arrive as events
    cdp.call("Page.navigate", url=f"http://127.0.0.1:{port}/")
    wait_js(h, cdp, "document.readyState === 'complete' && !!document.getElementById('live')", 15, "page load")
    wait_js(h, cdp, "document.getElementById('notice').textContent.includes('needs a token')", 15,
            "the page saying reading needs a token")
    h.check(cdp.js("document.getElementById('live').dataset.live") == "false", "not live without the token")
    # A wrong token first: the page says so, stays not live, and signing out lets one type it again.
    cdp.js("""(() => { document.getElementById('token').value = 'not-the-token-1';
              document.getElementById('signin').requestSubmit(); })()""")
    wait_js(h, cdp, "document.getElementById('right').textContent === 'Token refused'", 15, "the token refused")
    h.check(cdp.js("document.getElementById('live').dataset.live") == "false", "not live with a wrong token")
    cdp.js("document.getElementById('signout').click()")
    wait_js(h, cdp, "!document.getElementById('signin').hidden", 15, "the token field back")
    cdp.js(f"""(() => {{ document.getElementById('token').value = {json.dumps(TOKEN)};
              document.getElementById('signin').requestSubmit(); }})()""")
    wait_js(h, cdp, "document.getElementById('live').dataset.live === 'true'", 15, "live after signing in")
    h.check(cdp.js("location.href").find(TOKEN) < 0, "the token is not in the URL")
    h.check(cdp.js(f"sessionStorage.getItem('eboardd.token') === {json.dumps(TOKEN)}"),
            "the token is kept in sessionStorage")

    hall = check_hall(h, cdp, port, ["A", "B", "C"])
    h.check(hall["A"]["match"] == "A-B" and hall["B"]["match"] == "A-B" and hall["C"]["match"] is None,
            f"A and B in the match section, C alone: {[hall[b]['match'] for b in 'ABC']}")
    match_status = status(port)["matches"][0]
    h.check(all(len(hall[b]["reserves"]) == 2 for b in "AB") and not hall["C"]["reserves"],
            f"two reserves per match board, none for C: {[hall[b]['reserves'] for b in 'ABC']}")
    h.check(hall["C"]["highlighted"] and hall["C"]["alerts"] == 1,
            f"board C's open alert highlighted: {hall['C']['alerts']} {hall['C']['highlighted']}")
    h.check(not hall["A"]["highlighted"] and not hall["B"]["highlighted"], "no alert on A and B")
    h.check(all(":" in c for c in hall["A"]["clocks"]), f"board A's clocks shown: {hall['A']['clocks']}")
    # The clocks tick in the page: board C's last event is long past, yet Black's clock runs down.
    clocks_js = """(() => [...document.querySelectorAll('#hall .card')]
        .map(c => [c.dataset.board, c.querySelector('.clock.running')?.textContent ?? null]))()"""
    first = dict(cdp.js(clocks_js))
    # At least 1.3 s, then until the text changed (a starved browser's timer fires late; 15 s at most).
    time.sleep(1.3)
    second = dict(cdp.js(clocks_js))
    deadline = time.time() + 15
    while first.get("C") is not None and second.get("C") == first["C"] and time.time() < deadline:
        time.sleep(0.1)
        second = dict(cdp.js(clocks_js))
    h.check(first.get("C") is not None and second.get("C") is not None and first["C"] != second["C"],
            f"board C's running clock ticks in the page: {first.get('C')} then {second.get('C')}")
    title = cdp.js("document.title")
    h.check(title.startswith("(1) "), f"the tab title counts the open alert: {title!r}")
    # The keyboard: Tab reaches the cards (one stop each), Enter opens the one focused.
    cdp.js("document.getElementById('filter').focus()")
    for key, code in (("Tab", 9),) * 12:
        cdp.call("Input.dispatchKeyEvent", type="rawKeyDown", key=key, code=key, windowsVirtualKeyCode=code)
        cdp.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=key, windowsVirtualKeyCode=code)
        if cdp.js("document.activeElement.dataset.board === 'C'"):
            break
    h.check(cdp.js("document.activeElement.dataset.board") == "C", "Tab reaches board C's card")
    cdp.call("Input.dispatchKeyEvent", type="rawKeyDown", key="Enter", code="Enter", windowsVirtualKeyCode=13)
    cdp.call("Input.dispatchKeyEvent", type="keyUp", key="Enter", code="Enter", windowsVirtualKeyCode=13)
    wait_js(h, cdp, "location.hash === '#board/C'", 15, "Enter opening board C")
    cdp.js("location.hash = ''")
    # The filter keeps the matching board only.
    cdp.js("(() => { const f = document.getElementById('filter'); f.value = 'C';"
           " f.dispatchEvent(new Event('input')); })()")
    shown = wait_js(h, cdp, """(() => { const s = [...document.querySelectorAll('#hall .card')]
        .filter(c => !c.closest('[hidden]')).map(c => c.dataset.board);
        return s.length === 1 ? s : null; })()""", 15, "the filter keeping one board")
    h.check(shown == ["C"], f"filter 'C' shows board C only: {shown}")
    cdp.js("(() => { const f = document.getElementById('filter'); f.value = '';"
           " f.dispatchEvent(new Event('input')); })()")
    time.sleep(0.3)
    path = os.path.join(shots, "hall.png")
    cdp.screenshot(path)
    print("screenshot:", path)
    h.check(match_status["name"] == "A-B", f"the demo's match: {match_status.get('name')}")

    # The match view: both boards large with the four reserves /status gives (read between two /status
    # calls: a capture in between is no failure).
    cdp.js("location.hash = '#match/A-B'")
    wait_js(h, cdp, "document.querySelectorAll('#match-view .card .reserve:not([hidden])').length === 4", 15,
            "the match view's four reserves")
    reserves_js = """(() => Object.fromEntries([...document.querySelectorAll('#match-view .card')].map(c =>
        [c.dataset.board, Object.fromEntries([...c.querySelectorAll('.player')].map((p, i) =>
          [p.dataset.side, c.querySelectorAll('.reserve')[i].textContent]))])))()"""

    def reserve_text(letters, side):
        glyphs = {"q": "\u265b", "r": "\u265c", "b": "\u265d", "n": "\u265e", "p": "\u265f"}
        counts = {p: letters.lower().count(p) for p in "qrbnp"}
        parts = [glyphs[p] + ("\u00d7" + str(n) if n > 1 else "") for p, n in counts.items() if n]
        return f"{side.capitalize()} reserve: " + (" ".join(parts) if parts else "none")

    def status_reserves():
        games = {g["id"]: g["reserves"] for g in status(port)["matches"][0]["games"]}
        return {b: {side: reserve_text(games[b].get(side, ""), side) for side in ("white", "black")} for b in "AB"}
    deadline = time.time() + 15
    while True:
        before = status_reserves()
        shown = cdp.js(reserves_js)
        after = status_reserves()
        if shown in (before, after) or time.time() > deadline:
            break
        time.sleep(0.3)
    h.check(shown in (before, after), f"the match view's reserves {shown} are /status's {after}")
    path = os.path.join(shots, "match.png")
    cdp.screenshot(path)
    print("screenshot:", path)

    # Board A's view: the move list with clocks.
    cdp.js("location.hash = '#board/A'")
    wait_js(h, cdp, "document.querySelectorAll('#board-view table.moves td.move').length >= 2", 15,
            "board A's move list")
    clk = cdp.js("document.querySelector('#board-view td.move .clk').textContent")
    h.check(cdp.js("getComputedStyle(document.getElementById('hall')).display === 'none'"),
            "the hall is hidden in a board view")
    h.check(clk.startswith("[") and ":" in clk, f"moves carry their clock: {clk!r}")
    path = os.path.join(shots, "board-A.png")
    cdp.screenshot(path)
    print("screenshot:", path)
    # The demo's boards stand the normal way (source.rotated false): White at the bottom until Flip.
    rotated = {b["id"]: b.get("source", {}).get("rotated") for b in status(port)["boards"]}
    h.check(rotated.get("A") is False, f"/status tells each board's orientation: {rotated}")
    h.check(cdp.js("document.querySelector('#board-view .large').dataset.flipped") == "false",
            "board A drawn White at the bottom (not rotated)")
    cdp.js("document.querySelector('#board-view button.flip').click()")
    wait_js(h, cdp, "document.querySelector('#board-view .large').dataset.flipped === 'true' && "
            "document.querySelector('#board-view .large > .player').dataset.side === 'white'", 15,
            "Flip turning board A round (White at the top)")
    cdp.js("document.querySelector('#board-view button.flip').click()")

    # Board C's view: the alert with its code, acknowledged through the page.
    cdp.js("location.hash = '#board/C'")
    wait_js(h, cdp, "!!document.querySelector('#board-view li[data-code=\"clock-without-move\"] button.ack')",
            15, "board C's alert with its Acknowledge button")
    detail = cdp.js("document.querySelector('#board-view li[data-code=\"clock-without-move\"]').textContent")
    h.check("7.5.3" in detail, f"the alert's detail is shown: {detail!r}")
    path = os.path.join(shots, "board-C-alert.png")
    cdp.screenshot(path)
    print("screenshot:", path)
    cdp.js("document.querySelector('#board-view li[data-code=\"clock-without-move\"] button.ack').click()")
    ep.wait_until(lambda: not open_alert_c(), 15, "the alert acknowledged in /status")
    answer = wait_js(h, cdp, "document.getElementById('answer-text').textContent", 15, "the daemon's answer")
    h.check("/control/C/ack" in answer and "200" in answer, f"the daemon's answer shown: {answer!r}")
    wait_js(h, cdp, "document.querySelector('#board-view li[data-code=\"clock-without-move\"]')"
            ".classList.contains('acknowledged') && !document.title.startsWith('(')", 15,
            "the alert shown acknowledged, the title counting none")
    # How the move list marks an illegal move that stood, a recovered move and a provisional one: events of
    # those shapes (§3; the daemon's own are checked by the gap and illegal-move tests) given to the page's
    # handler as /ws would.
    cdp.js("""(() => { const t = Date.now();
      onEvent({t, board: 'C', type: 'move', ply: 2, uci: 'e7e6', san: 'e6', illegal: true,
               clock: {white: 290000, black: 280000}});
      onEvent({t, board: 'C', type: 'move', ply: 3, uci: 'g1f3', san: 'Nf3', recovered: true,
               clock: {white: 285000, black: 280000}});
      onEvent({t, board: 'C', type: 'provisional', ply: 4, uci: 'b8c6', san: 'Nc6'}); })()""")
    marks = wait_js(h, cdp, """(() => {
      const ill = document.querySelector('#board-view td.move.illegal[data-ply="2"] .mark.illegal');
      const rec = document.querySelector('#board-view td.move.recovered[data-ply="3"] .mark.recovered');
      const pro = document.querySelector('#board-view .provisional[data-provisional="b8c6"]');
      const moves = document.querySelector('#board-view table.moves');
      return ill && rec && pro && !moves.contains(pro) ? pro.textContent : null; })()""", 15,
                   "the illegal and recovered marks and the provisional move apart")
    h.check("Nc6" in marks, f"the provisional move is named: {marks!r}")
    cdp.js("location.hash = ''")
    wait_js(h, cdp, "!document.querySelector('#hall .card[data-board=\"C\"]').classList.contains('has-alert')",
            15, "board C no longer highlighted")

    # The daemon stops: not live. It starts again on the same port: live again, positions right.
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(timeout=15)
    wait_js(h, cdp, "document.getElementById('live').dataset.live === 'false' && "
            "document.body.classList.contains('stale')", 15, "the page going not live")
    h.check("[not live]" in cdp.js("document.title"), "the title says not live")
    frozen = cdp.js(clocks_js)
    time.sleep(1.2)
    h.check(cdp.js(clocks_js) == frozen, f"the clocks stand still while not live: {frozen}")
    # It comes back with reading open (the demo's default on loopback): the page also works signed out.
    text = open(config).read().replace("open_read = false", "open_read = true")
    with open(config, "w") as f:
        f.write(text)
    daemon = start_daemon(h, eboardd, config, shared, f"127.0.0.1:{port}", "eboardd-2")
    wait_js(h, cdp, "document.getElementById('live').dataset.live === 'true'", 20, "live again after the restart")
    # Board C was added at run time: gone after the restart (the configuration is the truth).
    check_hall(h, cdp, port, ["A", "B"])
    # At once: "live" means the status shown was fetched after the reconnection, never the old daemon's.
    h.check(cdp.js("!document.querySelector('#hall .card[data-board=\"C\"]')"),
            "board C, added at run time, is gone after the restart")
    # Signed out: still live (reading is open now), the token gone from the tab, the actions disabled.
    cdp.js("document.getElementById('signout').click()")
    wait_js(h, cdp, "!sessionStorage.getItem('eboardd.token') && !document.getElementById('signin').hidden", 15,
            "signed out")
    wait_js(h, cdp, "document.getElementById('live').dataset.live === 'true'", 15, "live signed out")
    check_hall(h, cdp, port, ["A", "B"])
    cdp.js("location.hash = '#board/A'")
    disabled = wait_js(h, cdp, """(() => { const b = [...document.querySelectorAll('#board-view .actions button')];
        return b.length ? b.every(x => x.disabled) : null; })()""", 15, "board A's actions")
    h.check(disabled is True, "the actions are disabled signed out")
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(timeout=15)
    cdp.js("1")  # the events sent so far are read
    ep.check_page_threw_nothing(h, cdp)
    print(f"screenshots in {shots}")
    return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
