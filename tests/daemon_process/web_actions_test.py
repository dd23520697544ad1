#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The operator's page acting on a real eboardd (issue 14): refused without the control token, a missed gap
settled through the page, the operator's panel adding and removing a port.

One DGT board played by `eboardctl sim` (a corpus game at 6x); eboardd with a control token and a read token,
reading closed to others. In headless Chromium (web_page_test's DevTools client):
- signed out, the page is not live and its actions, sent anyway (the page's own request function, as a
  button would), are refused by the daemon (401) and the answer shown; signed in with the read token the
  page is live, its action buttons disabled, and an action sent anyway is refused (403);
- signed in with the control token; eboardd is killed (kill -9) mid-game and kept down while the players
  make three plies, then started again: the page rides the restart out (not live, then live again), the
  moves-missed alert sounds (the page's tone counter) and is counted in the title, the board's view lists
  the gap's candidates with a button each; the true sequence's button settles the gap (/status: no
  missed_gap), the answer is shown and the move list marks the gap's moves recovered;
- the mute choice survives a reload (localStorage);
- adjourned (the sealed move typed blind, never in the answer) and resumed through the board's view;
- the operator's panel adds a board on a second sim's pty (POST /boards); its players and round set, a new
  game set up from a FEN through its view; then removed (DELETE); each answer shown, the hall following.
Screenshots of the board view with its gap and of the hall with the panel go to the screenshots directory.

usage: web_actions_test.py EBOARDD EBOARDCTL SHARED_DIR
exit 77 (skipped) when chromium is absent outside CI, or without the corpus
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
from web_page_test import request, start_chromium, wait_js  # noqa: E402

TOKEN = "web-actions-control-token"
READ_TOKEN = "web-actions-read-token"
GAME, SPEED = 7, 6.0
KILL_AT_PLY, DOWN_S = 17, 15.0  # as daemon_gap_test: three plies that two move orders explain


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    eboardd, eboardctl, shared = sys.argv[1:4]
    chromium, exit_code = ep.browser_or_skip()
    if not chromium:
        return exit_code
    pgn = ep.corpus_file(shared)  # exit 77 without it
    shots = ep.screenshot_dir()
    expected = ep.corpus_game(pgn, GAME)["moves"]
    with ep.Harness("web-actions") as h:
        sim = ep.Sim(h, eboardctl, pgn, GAME, SPEED)
        d = ep.Daemon(h, eboardd, sim.device, clock_rate=SPEED)
        text = open(d.config).read().replace(
            "[http]\n", f'[http]\ntoken = "{TOKEN}"\nread_token = "{READ_TOKEN}"\nopen_read = false\n', 1)
        with open(d.config, "w") as f:
            f.write(text)
        d.start()
        browser, cdp = start_chromium(h, chromium)
        try:
            checks(h, cdp, d, eboardctl, pgn, expected, shots)
            cdp.js("1")  # the events sent so far are read
            ep.check_page_threw_nothing(h, cdp)
        except ep.TestFailure as e:
            h.check(False, str(e))
        finally:
            try:
                os.killpg(browser.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        print(f"screenshots in {shots}")
        return h.exit_code()


def board_status(port, board="A"):
    code, body, _ = request(port, "GET", "/status", token=READ_TOKEN)
    if code != 200:
        raise ep.TestFailure(f"/status: {code} {body[:200]}")
    for b in json.loads(body)["boards"]:
        if b["id"] == board:
            return b
    return None


def sign_in(cdp, tok):
    cdp.js(f"""(() => {{ document.getElementById('token').value = {json.dumps(tok)};
              document.getElementById('signin').requestSubmit(); }})()""")


def answer(h, cdp, what, before=""):
    return wait_js(h, cdp, f"(() => {{ const t = document.getElementById('answer-text').textContent;"
                           f" return t && t !== {json.dumps(before)} ? t : null; }})()", 15, what)


def checks(h, cdp, d, eboardctl, pgn, expected, shots):
    cdp.call("Page.enable")
    cdp.call("Runtime.enable")
    cdp.call("Page.navigate", url=f"http://127.0.0.1:{d.port}/#board/A")
    wait_js(h, cdp, "document.readyState === 'complete' && !!document.getElementById('notice')", 15, "page load")
    wait_js(h, cdp, "document.getElementById('notice').textContent.includes('needs a token')", 15,
            "the page saying reading needs a token")
    # Signed out: an action sent anyway is refused, and the page shows the refusal.
    cdp.js("act('A', 'draw', {})")
    text = answer(h, cdp, "the answer to an action without a token")
    h.check("/control/A/draw" in text and "\u2192 401" in text, f"without a token the daemon refuses: {text!r}")
    # The read token: live, the buttons disabled; an action sent anyway is refused (403).
    sign_in(cdp, READ_TOKEN)
    wait_js(h, cdp, "document.getElementById('live').dataset.live === 'true'", 15, "live with the read token")
    h.check(cdp.js("page.right") == "read", f"the read token's right: {cdp.js('page.right')}")
    disabled = wait_js(h, cdp, """(() => { const b = [...document.querySelectorAll('#board-view .actions button')];
        return b.length ? b.every(x => x.disabled) : null; })()""", 15, "board A's action buttons")
    h.check(disabled is True, "the actions are disabled with the read token")
    cdp.js("act('A', 'draw', {})")
    text = answer(h, cdp, "the answer to an action with the read token", text)
    h.check("/control/A/draw" in text and "\u2192 403" in text, f"with the read token the daemon refuses: {text!r}")
    h.check(board_status(d.port)["game"]["result"] == "*", "the refused draw changed nothing")

    # The control token; the page follows the game. Then eboardd is killed and kept down for three plies.
    cdp.js("document.getElementById('signout').click()")
    wait_js(h, cdp, "!document.getElementById('signin').hidden", 15, "the token field back")
    sign_in(cdp, TOKEN)
    wait_js(h, cdp, "document.getElementById('live').dataset.live === 'true' && page.right === 'control'", 15,
            "live with the control token")
    ep.wait_until(lambda: board_status(d.port)["game"]["ply"] >= KILL_AT_PLY, 120, f"the game at ply {KILL_AT_PLY}")
    beeps = cdp.js("page.beeps || 0")
    d.kill9()
    wait_js(h, cdp, "document.getElementById('live').dataset.live === 'false'", 15, "not live, eboardd down")
    time.sleep(DOWN_S / SPEED)
    d.start()
    wait_js(h, cdp, "document.getElementById('live').dataset.live === 'true'", 20, "live again after the restart")
    gap = ep.wait_until(lambda: board_status(d.port)["control"].get("missed_gap"), 60, "/status missed_gap")
    sans = [[ep.strip_san(m) for m in c["san"]] for c in gap["candidates"]]
    truth = expected[gap["first_ply"] - 1:gap["last_ply"]]
    wait_js(h, cdp, f"document.querySelectorAll('#board-view .missed-gap li[data-candidate]').length === "
            f"{min(12, len(sans))}", 15, "the page listing the gap's candidates (12 at most)")
    shown = cdp.js("[...document.querySelectorAll('#board-view .missed-gap li[data-candidate]')]"
                   ".map(li => li.textContent)")
    h.check(all(" ".join(c["san"]) in t for c, t in zip(gap["candidates"], shown)),
            f"the candidates shown {shown} are /status's {[c['san'] for c in gap['candidates']]}")
    # Each with how sure the ranking is of it, as /status's share (rounded to a percent; "<1 %", ">99 %").
    def pct(x):
        return "<1 %" if x * 100 < 0.5 else ">99 %" if x * 100 > 99.5 else f"{int(x * 100 + 0.5)} %"  # Math.round
    spans = cdp.js("[...document.querySelectorAll('#board-view .missed-gap li[data-candidate] .share')]"
                   ".map(s => s.textContent.trim())")
    h.check(all("share" in c for c in gap["candidates"])
            and spans == [pct(c["share"]) for c in gap["candidates"][:len(spans)]] and len(spans) == len(shown),
            f"the page's shares {spans} are not /status's {[c.get('share') for c in gap['candidates']]}")
    # A gap told at its shortest on a clock that counts no presses: the page says a longer story may be the one.
    said = cdp.js("document.querySelector('#board-view .missed-gap p').textContent")
    h.check(("a longer sequence" in said) == bool(gap.get("length_uncertain")),
            f"the page's words on the gap {said!r} and /status's length_uncertain {gap.get('length_uncertain')}")
    print(f"gap plies {gap['first_ply']}-{gap['last_ply']}, length_uncertain {gap.get('length_uncertain', False)}")
    wait_js(h, cdp, "document.title.startsWith('(')", 15, "the title counting the moves-missed alert")
    h.check(cdp.js("page.beeps || 0") > beeps, "the new alert sounded (the page's tone counter)")
    path = os.path.join(shots, "board-gap.png")
    cdp.screenshot(path)
    print("screenshot:", path)
    before = cdp.js("document.getElementById('answer-text').textContent")
    cdp.js("window.confirm = () => true")  # the page asks before adopting
    if truth in sans:
        # The arbiter knows the moves played: the true sequence's button.
        number = sans.index(truth) + 1
        print(f"the gap: plies {gap['first_ply']}-{gap['last_ply']}, the truth is candidate {number}: recover")
        cdp.js(f"document.querySelector('#board-view .missed-gap li[data-candidate=\"{number}\"] button.recover')"
               ".click()")
        text = answer(h, cdp, "the answer to recover", before)
        h.check("/control/A/recover" in text and "\u2192 200" in text, f"recover through the page: {text!r}")
        ep.wait_until(lambda: board_status(d.port)["control"].get("missed_gap") is None, 15, "the gap settled")
        plies = list(range(gap["first_ply"], gap["last_ply"] + 1))
        wait_js(h, cdp, "(() => " + " && ".join(
            f"!!document.querySelector('#board-view td.move.recovered[data-ply=\"{p}\"]')" for p in plies) + ")()",
            15, f"plies {plies} marked recovered in the move list")
    else:
        # None is what was played (the gap is longer than the candidates the daemon lists): the arbiter
        # types the moves; and if the daemon refuses them, follows the game from the position on the board.
        print(f"the gap: plies {gap['first_ply']}-{gap['last_ply']}, the truth {truth} is no candidate listed: "
              f"typed")
        cdp.js(f"""(() => {{ const f = document.querySelector('#board-view .missed-gap input.gap-moves');
            f.value = {json.dumps(" ".join(truth))}; f.form.requestSubmit(); }})()""")
        text = answer(h, cdp, "the answer to recover with the moves typed", before)
        h.check("/control/A/recover" in text and ("\u2192 200" in text or "\u2192 409" in text),
                f"recover with the moves typed, through the page: {text!r}")
        if "\u2192 200" in text:
            ep.wait_until(lambda: board_status(d.port)["control"].get("missed_gap") is None, 15, "the gap settled")
        elif "no gap is waiting" in text:
            # The game went on and explained the gap before the arbiter did: nothing left to adopt.
            print("the gap settled by the daemon itself before the page acted:", text.split("\n", 1)[-1][:200])
            h.check(board_status(d.port)["control"].get("missed_gap") is None, "/status: no gap left")
        else:
            print("the typed moves refused (the game went on meanwhile):", text.split("\n", 1)[-1][:200])
            adopt_js = "document.querySelector('#board-view .missed-gap button.adopt:not([disabled])')"
            wait_js(h, cdp, f"!!{adopt_js} || !page.statusById.get('A').control.missed_gap", 15, "the Adopt button")
            if cdp.js(f"!!{adopt_js}"):
                cdp.js(f"{adopt_js}.click()")
                text = answer(h, cdp, "the answer to adopt", text)
                h.check("/control/A/adopt" in text and ("\u2192 200" in text or "no gap is waiting" in text),
                        f"adopt through the page: {text!r}")
                ep.wait_until(lambda: board_status(d.port)["control"].get("missed_gap") is None, 15, "the gap settled")
                if "\u2192 200" in text:
                    wait_js(h, cdp, "!!document.querySelector('#board-view li[data-code=\"position-adopted\"]')", 15,
                            "the position-adopted alert in the board view")
    wait_js(h, cdp, "!document.querySelector('#board-view .missed-gap')", 15, "the gap gone from the page")

    # Adjourned by the player on move, the sealed move typed blind; then resumed.
    side = "white" if board_status(d.port)["game"]["fen"].split(" ")[1] == "w" else "black"
    before = cdp.js("document.getElementById('answer-text').textContent")
    cdp.js(f"""(() => {{ const box = document.querySelector('#board-view .actions .adjourn').parentNode;
        box.querySelector('select').value = '{side}'; box.querySelector('input.sealed').value = 'a4';
        box.querySelector('button.adjourn').click(); }})()""")
    text = answer(h, cdp, "the answer to adjourn", before)
    h.check("/control/A/adjourn" in text and ("\u2192 200" in text or "\u2192 409" in text),
            f"adjourn through the page: {text!r}")
    if "\u2192 200" in text:
        h.check('"a4"' not in text.split("\n", 1)[1], f"the sealed move is not in the answer: {text!r}")
        wait_js(h, cdp, "!!document.querySelector('#board-view .adjourned')", 15, "the page showing the adjournment")
        h.check(board_status(d.port)["control"].get("adjourned") is not None, "/status: adjourned")
        cdp.js("document.querySelector('#board-view .adjourned button.resume').click()")
        text = answer(h, cdp, "the answer to resume", text)
        h.check("/control/A/resume" in text and "\u2192 200" in text, f"resume through the page: {text!r}")
        ep.wait_until(lambda: board_status(d.port)["control"].get("adjourned") is None, 15, "resumed in /status")
    else:
        print("adjourn refused (the player on move changed meanwhile):", text)

    # The mute choice is kept by the browser (localStorage), not by the tab.
    cdp.js("location.hash = ''")
    if cdp.js("document.getElementById('sound').textContent") == "Sound on":
        cdp.js("document.getElementById('sound').click()")
    cdp.call("Page.reload")
    wait_js(h, cdp, "document.getElementById('live')?.dataset.live === 'true'", 15, "live after a reload")
    h.check(cdp.js("document.getElementById('sound').textContent") == "Sound off", "muted after a reload")
    h.check(cdp.js("page.right") == "control", "still signed in after a reload (sessionStorage)")

    # The operator's panel: a second board added on a sim's pty, then removed.
    # Its hands are slow (50 times slower than real time): the wood stays in the initial position while the
    # test sets it up, however loaded the machine.
    sim2 = subprocess.Popen([eboardctl, "sim", "--pgn", pgn, "--game", "3", "--speed", "0.02", "--timing", "style",
                             "--link",
                             os.path.join(os.path.dirname(d.config), "dgt-Z"), "--linger", "600"],
                            stdout=subprocess.PIPE, stderr=open(h.log_path("sim-Z"), "w"), text=True)
    h.procs.append(sim2)
    device = sim2.stdout.readline().strip()
    before = cdp.js("document.getElementById('answer-text').textContent")
    cdp.js(f"""(() => {{ const f = document.getElementById('add-board');
        f.elements['board-id'].value = 'Z'; f.elements['board-port'].value = {json.dumps(device)};
        f.requestSubmit(); }})()""")
    text = answer(h, cdp, "the answer to POST /boards", before)
    h.check("POST /boards" in text and "\u2192 201" in text, f"the board added through the panel: {text!r}")
    wait_js(h, cdp, "!!document.querySelector('#hall .card[data-board=\"Z\"]') && "
            "!!document.querySelector('#ports-list li[data-board=\"Z\"]')", 15, "board Z in the hall and the panel")
    path = os.path.join(shots, "hall-panel.png")
    cdp.screenshot(path)
    print("screenshot:", path)
    # On board Z: players and tags, then a new game set up from a FEN.
    cdp.js("location.hash = '#board/Z'")
    wait_js(h, cdp, "!!document.querySelector('#board-view button.set-tags:not([disabled])')", 15, "board Z's view")
    cdp.js("""(() => { const f = document.querySelector('#board-view button.set-tags').form;
        f.querySelector('.tag-white').value = 'Alice'; f.querySelector('.tag-black').value = 'Bob';
        f.querySelector('.tag-round').value = '3'; f.requestSubmit(); })()""")
    text = answer(h, cdp, "the answer to tags", text)
    h.check("/control/Z/tags" in text and "\u2192 200" in text, f"tags through the page: {text!r}")
    tags = board_status(d.port, "Z")["game"]["tags"]
    h.check(tags.get("White") == "Alice" and tags.get("Black") == "Bob" and tags.get("Round") == "3",
            f"/status tags after the page's form: {tags}")
    wait_js(h, cdp, "document.querySelector('#board-view .large .player').textContent.includes('Bob')", 15,
            "the players' names in the board view")
    # The pieces as they stand on board Z (the initial position), Black to move: what an arbiter types after
    # setting a position up. (A FEN the wood does not show would be overtaken at once by the board's dump:
    # the initial position set up on a board starts a game of its own.)
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"
    cdp.js("window.confirm = () => true")  # the page asks before a new game (gone with the reload above)
    cdp.js(f"""(() => {{ document.querySelector('#board-view input.fen').value = {json.dumps(fen)};
        document.querySelector('#board-view button.new-game').click(); }})()""")
    text = answer(h, cdp, "the answer to new-game", text)
    h.check("/control/Z/new-game" in text and "\u2192 200" in text, f"new game from a FEN through the page: {text!r}")
    z = board_status(d.port, "Z")["game"]
    h.check(z["fen"] == fen or z["tags"].get("FEN") == fen, f"/status: board Z's game from {fen}: {z}")
    wait_js(h, cdp, "document.querySelector('#board-view .large').dataset.fen"
            f".startsWith({json.dumps(fen.split()[0])})",
            15, "the page drawing the position set up")
    cdp.js("location.hash = ''")
    wait_js(h, cdp, "!!document.querySelector('#ports-list li[data-board=\"Z\"] button.remove-board')", 15,
            "the panel back")
    cdp.js("document.querySelector('#ports-list li[data-board=\"Z\"] button.remove-board').click()")
    text = answer(h, cdp, "the answer to DELETE /boards/Z", text)
    h.check("DELETE /boards/Z" in text and "\u2192 200" in text, f"the board removed through the panel: {text!r}")
    wait_js(h, cdp, "!document.querySelector('#hall .card[data-board=\"Z\"]')", 15, "board Z gone from the hall")
    h.check(board_status(d.port, "Z") is None, "board Z gone from /status")


if __name__ == "__main__":
    sys.exit(main())
