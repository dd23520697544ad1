#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""[push.lichess] follows the event (issue 26), against a local stand-in for lichess' push API (the real
service was not tried).

A real eboardd with 66 boards (on absent devices: each shows its game, not begun) and a bughouse match of two
more: round 1 goes to two lichess rounds (64 + 2 games, board order), the match's boards to none (lichess
broadcasts take standard chess and Chess960), and /status names the games left out and why. `eboardctl round
2` moves the push to round 2's lichess round: every game there, none to round 1's any more.

usage: lichess_push_rounds_test.py EBOARDD EBOARDCTL
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eboardctl_proc as ep  # noqa: E402
from pgn_feeds_test import Configured, tags_of  # noqa: E402

CONTROL = "control-token-for-the-push-rounds-test"
R1 = ["roundOne", "roundOn2"]
R2 = "roundTwo"


def last(standin, round_id):
    """The boards of the last push to lichess round `round_id` (None: none yet), and how many pushes."""
    mine = standin.bodies_to(round_id)
    return ([t.get("Board") for t in tags_of(mine[-1])] if mine else None), len(mine)


def main():
    exe, ctl = sys.argv[1], sys.argv[2]
    with ep.Harness("lichess-push-rounds") as h:
        standin = ep.LichessStandIn()
        try:
            token_file = os.path.join(h.dir, "lichess.token")
            with open(token_file, "w") as f:
                f.write("lip_standin-token\n")
            boards = "".join(f'[[board]]\nid = "{i}"\nport = "/nonexistent/eboard-{i}"\n\n' for i in range(1, 67))
            boards += '[[board]]\nid = "BA"\nport = "/nonexistent/ba"\n\n[[board]]\nid = "BB"\nport = "/nonexistent/bb"\n\n'
            boards += '[[match]]\nboards = ["BA", "BB"]\nrules = "bughouse-fqe"\n\n'
            config = (f'state_dir = "@STATE@"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{CONTROL}"\n\n'
                      f'[event]\nround = "1"\n\n'
                      f'[push.lichess]\nround = "xxxxxxxx"\nrounds = {{ "1" = ["{R1[0]}", "{R1[1]}"], "2" = "{R2}" }}\n'
                      f'token_file = "{token_file}"\nurl = "http://127.0.0.1:{standin.port}"\ninterval_s = 1\n\n'
                      + boards)
            d = Configured(h, exe, "push", config)
            d.start(timeout=60)

            expected = [str(i) for i in range(1, 67)]
            ep.wait_until(lambda: last(standin, R1[0])[0] == expected[:64] and last(standin, R1[1])[0] == expected[64:],
                          60, f"round 1 pushed 64 + 2 games (now {last(standin, R1[0])[0]} / {last(standin, R1[1])[0]})")
            s = d.status()["broadcast"]["push_lichess"]
            h.check(s["round"] == "1" and [t["lichess_round"] for t in s["targets"]] == R1, f"/status: {s}")
            left = {g["board"]: g["reason"] for g in s["left_out"]}
            h.check(set(left) == {"BA", "BB"} and all("variant Bughouse" in r for r in left.values()),
                    f"/status left_out: {s['left_out']}")
            h.check(last(standin, "xxxxxxxx")[1] == 0, "a round named in `rounds` went to `round`'s id")

            r = subprocess.run([ctl, "round", "2", "--daemon", f"127.0.0.1:{d.port}", "--token", CONTROL],
                               capture_output=True, text=True, timeout=30)
            h.check(r.returncode == 0, f"eboardctl round 2: {r.returncode} {r.stderr}")
            n1 = last(standin, R1[0])[1] + last(standin, R1[1])[1]
            ep.wait_until(lambda: last(standin, R2)[0] is not None and len(last(standin, R2)[0]) == 64, 30,
                          f"round 2's lichess round pushed (now {last(standin, R2)[0]})")
            time.sleep(2.5)  # more than two intervals: round 1's rounds get nothing more
            h.check(last(standin, R1[0])[1] + last(standin, R1[1])[1] == n1, "round 1's lichess rounds still pushed")
            s = d.status()["broadcast"]["push_lichess"]
            h.check(s["round"] == "2" and [t["lichess_round"] for t in s["targets"]] == [R2], f"/status: {s}")
            h.check(sum("more than 64 games" in g["reason"] for g in s["left_out"]) == 2,
                    f"round 2 (one lichess round): the two games beyond 64 left out, saying why: {s['left_out']}")
            h.check(d.stop() == 0, "SIGTERM: clean exit 0")
            print("push: round 1 split 64 + 2, bughouse left out, round 2 pushed to its own round", flush=True)
        except ep.TestFailure as e:
            h.check(False, str(e))
        return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
