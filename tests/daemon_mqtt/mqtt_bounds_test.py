# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""What broker users can make a hall do (issue 28), real processes: a Mosquitto broker on loopback with the
hall's password file and ACL, a host `eboardd --demo` playing two boards (it trusts the user "arbiter"), an
aggregator (user "arbiter"), and two plain MQTT 3.1.1 clients written here: host "h2" publishing its own
topics as the ACL lets it, and the users "intruder" (not trusted) and "arbiter" sending commands.

- Payloads above `[mqtt] max_message` (default 1 MiB) are dropped whole and counted: a 2 MiB match record
  and a 2 MiB board state of h2 are neither served nor kept on disk, and the aggregator's /status counts
  them (mqtt.messages_too_large); a small record of the same match published after is served, so the path
  itself works. The aggregator's RSS stays within 60 MB of what it was before the big ones came.
- `resend` from a user the host does not trust is refused (403), 40 times out of 40, and not one event is
  published again; from the trusted user, 40 resends of one board in a burst are answered 200 at most
  3 times (the burst a requester has per board), the rest 429, and the events published again are at most
  those 3 batches.

Usage: mqtt_bounds_test.py EBOARDD CORPUS_DIR. Skipped (77) without mosquitto or the corpus.
"""
import json
import os
import socket
import struct
import sys
import threading
import time
import urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon_process"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from eboardctl_proc import SKIP, Harness, TestFailure, http_get, wait_until  # noqa: E402
from mqtt_hall_test import Broker, Eboardd, find_mosquitto  # noqa: E402

HALL = "test-hall"
MIB = 1 << 20


def remaining_length(n):
    out = b""
    while True:
        byte, n = n % 128, n // 128
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def mqtt_string(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack(">H", len(b)) + b


class Client:
    """A minimal MQTT 3.1.1 client (MQTT-v3.1.1 §3: CONNECT with username and password, PUBLISH QoS 0,
    SUBSCRIBE QoS 0) that keeps every PUBLISH it receives as (topic, payload)."""

    def __init__(self, port, user, password):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        flags = 0x80 | 0x40 | 0x02  # username, password, clean session
        body = (mqtt_string("MQTT") + bytes([4, flags]) + struct.pack(">H", 60) +
                mqtt_string(f"test-{user}-{time.time_ns()}") + mqtt_string(user) + mqtt_string(password))
        self.sock.sendall(b"\x10" + remaining_length(len(body)) + body)
        self.received = []
        self.lock = threading.Lock()
        self.connack = threading.Event()
        self.suback = threading.Event()
        self.refused = None
        threading.Thread(target=self._read, daemon=True).start()
        if not self.connack.wait(15) or self.refused:
            raise TestFailure(f"the broker refused {user}: {self.refused}")

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise OSError("closed")
            data += chunk
        return data

    def _read(self):
        self.sock.settimeout(None)
        try:
            while True:
                head = self._exactly(1)[0]
                length, shift = 0, 0
                while True:
                    b = self._exactly(1)[0]
                    length |= (b & 0x7F) << shift
                    shift += 7
                    if not b & 0x80:
                        break
                body = self._exactly(length) if length else b""
                kind = head >> 4
                if kind == 2:  # CONNACK
                    if body[1] != 0:
                        self.refused = f"CONNACK {body[1]}"
                    self.connack.set()
                elif kind == 9:  # SUBACK
                    self.suback.set()
                elif kind == 3:  # PUBLISH
                    n = struct.unpack(">H", body[:2])[0]
                    topic = body[2:2 + n].decode()
                    at = 2 + n + (2 if head & 0x06 else 0)
                    with self.lock:
                        self.received.append((topic, body[at:]))
        except OSError:
            pass

    def subscribe(self, topic_filter):
        self.suback.clear()
        body = struct.pack(">H", 1) + mqtt_string(topic_filter) + b"\x00"
        self.sock.sendall(b"\x82" + remaining_length(len(body)) + body)
        if not self.suback.wait(15):
            raise TestFailure(f"no SUBACK for {topic_filter}")

    def publish(self, topic, payload, retain=False):
        if isinstance(payload, str):
            payload = payload.encode()
        body = mqtt_string(topic) + payload
        self.sock.sendall(bytes([0x30 | (1 if retain else 0)]) + remaining_length(len(body)) + body)

    def messages(self, prefix=""):
        with self.lock:
            return [(t, p) for t, p in self.received if t.startswith(prefix)]

    def close(self):
        try:
            self.sock.sendall(b"\xe0\x00")  # DISCONNECT
            self.sock.close()
        except OSError:
            pass


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def match_record(number, bpgn):
    return json.dumps({"match": "A-B", "boards": ["A", "B"], "number": number, "bpgn": bpgn,
                       "games": {"A": "", "B": ""}, "t": int(time.time() * 1000)})


def check_payload_bound(h, broker, agg):
    h2 = Client(broker.port, "h2", "pw-h2")
    h2.publish(f"eboard/{HALL}/h2/status", "online", retain=True)
    before = rss_mb(agg.proc.pid)
    big_bpgn = '[Event "x"]\n\n' + "1A. e4 " * (2 * MIB // 7)
    h2.publish(f"eboard/{HALL}/h2/match/A-B", match_record(1, big_bpgn), retain=True)
    h2.publish(f"eboard/{HALL}/h2/board/Z/state",
               json.dumps({"game": 1, "tags": {"White": "x" * (2 * MIB)}}), retain=True)
    small_bpgn = '[Event "small"]\n\n1A. e4 *\n'
    time.sleep(0.5)
    h2.publish(f"eboard/{HALL}/h2/match/A-B", match_record(2, small_bpgn), retain=True)

    def served():
        try:
            return http_get(agg.port, "/matches/h2:A-B.bpgn")[1]
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise
            return None
    text = wait_until(served, 20, "the small match record of h2 served by the aggregator")
    h.check(text.strip() == small_bpgn.strip(), f"/matches/h2:A-B.bpgn is {len(text)} bytes, not the small record")
    mqtt = agg.status()["mqtt"]
    h.check(mqtt.get("max_message") == MIB, f"mqtt.max_message on /status: {mqtt.get('max_message')}")
    h.check(mqtt.get("messages_too_large") == 2, f"mqtt.messages_too_large: {mqtt.get('messages_too_large')}, not 2")
    ids = [r["id"] for r in mqtt["remote_boards"]]
    h.check("h2:Z" not in ids, "the 2 MiB state made a remote board h2:Z")
    kept = 0
    for root, _, files in os.walk(os.path.join(agg.state, "mqtt")):
        kept += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    h.check(kept < MIB, f"the aggregator keeps {kept} bytes under state_dir/mqtt")
    after = rss_mb(agg.proc.pid)
    h.check(after - before < 60, f"the aggregator's RSS grew from {before:.0f} to {after:.0f} MB")
    print(f"payload bound: {mqtt.get('messages_too_large')} payload(s) counted too large, {len(text)} bytes of BPGN "
          f"served; RSS {before:.0f} -> {after:.0f} MB, {kept} bytes kept on disk", flush=True)
    h2.close()


def resend_commands(client, user, board, n, body):
    for i in range(n):
        client.publish(f"eboard/{HALL}/h1/command/{user}",
                       json.dumps({"id": f"{user}-{i}", "board": board, "action": "resend", "body": body}))


def answers(client, user, n):
    def all_in():
        got = [json.loads(p) for _, p in client.messages(f"eboard/{HALL}/h1/answer/{user}")]
        got = [a for a in got if a.get("id", "").startswith(f"{user}-")]
        return got if len(got) >= n else None
    return wait_until(all_in, 30, f"the host's {n} answers to {user}")


def resent_events(client):
    return sum(1 for _, p in client.messages(f"eboard/{HALL}/h1/board/") if json.loads(p).get("resend"))


def check_resend_limits(h, broker, host):
    # From the start of the game: every event the host published.
    body = {"journal": 0, "seq": 0}
    intruder = Client(broker.port, "intruder", "pw-intruder")
    intruder.subscribe(f"eboard/{HALL}/h1/answer/intruder")
    intruder.subscribe(f"eboard/{HALL}/h1/board/+/event")
    refused_before = host.status()["mqtt"]["commands_refused"]
    resend_commands(intruder, "intruder", "A", 40, body)
    got = answers(intruder, "intruder", 40)
    statuses = sorted({a["status"] for a in got})
    h.check(statuses == [403], f"the untrusted user's resends were answered {statuses}, not only 403")
    time.sleep(1)
    h.check(resent_events(intruder) == 0, f"{resent_events(intruder)} event(s) published again for the untrusted user")
    refused = host.status()["mqtt"]["commands_refused"] - refused_before
    h.check(refused == 40, f"the host counted {refused} refused commands, not 40")
    print(f"untrusted resend: {sum(1 for a in got if a['status'] == 403)} of 40 refused, "
          f"{resent_events(intruder)} event(s) published again", flush=True)

    arbiter = Client(broker.port, "arbiter", "pw-arbiter")
    arbiter.subscribe(f"eboard/{HALL}/h1/answer/arbiter")
    arbiter.subscribe(f"eboard/{HALL}/h1/board/+/event")
    start = time.time()
    resend_commands(arbiter, "arbiter", "A", 40, body)
    got = answers(arbiter, "arbiter", 40)
    took = time.time() - start
    ok = [a for a in got if a["status"] == 200]
    limited = [a for a in got if a["status"] == 429]
    sent = sum(a["body"]["sent"] for a in ok)
    # The burst is 3, one more every 2 s: over the time the answers took, that many more at most.
    allowed = 3 + int(took / 2) + 1
    h.check(1 <= len(ok) <= allowed, f"{len(ok)} of 40 resends obeyed in {took:.1f} s (at most {allowed})")
    h.check(len(ok) + len(limited) == 40, f"answers other than 200 and 429: {[a['status'] for a in got]}")
    h.check(sent > 0, "the obeyed resends published nothing (the host's board has events)")
    wait_until(lambda: resent_events(arbiter) >= sent, 15, "the resent events on the broker")
    time.sleep(1)
    h.check(resent_events(arbiter) == sent, f"{resent_events(arbiter)} events published again, the answers say {sent}")
    h.check(host.status()["mqtt"].get("resends_limited", 0) >= len(limited), "the host does not count the 429s")
    print(f"trusted resend: {len(ok)} of 40 obeyed ({sent} events published again), {len(limited)} refused (429), "
          f"in {took:.1f} s", flush=True)
    intruder.close()
    arbiter.close()


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, corpus = sys.argv[1], sys.argv[2]
    mosquitto = find_mosquitto()
    if not mosquitto:
        print("SKIP: mosquitto and mosquitto_passwd are needed")
        return SKIP
    if not os.path.isdir(corpus):
        print(f"SKIP: no corpus at {corpus}")
        return SKIP
    with Harness("mqtt-bounds") as h:
        broker = Broker(h, mosquitto)
        broker.start()
        agg = Eboardd(h, exe, "arbiter", broker.port, aggregate=True, trusted=())
        agg.start()
        host = Eboardd(h, exe, "h1", broker.port, corpus=corpus)
        host.start()

        def plies(board):
            moves = host.pgn_moves(board)
            return len(moves) if moves else 0
        wait_until(lambda: all(plies(b) >= 4 for b in ("A", "B")), 60, "4 plies on each of the host's boards")
        check_payload_bound(h, broker, agg)
        check_resend_limits(h, broker, host)
        print(f"mqtt_bounds_test: {'FAIL' if h.failures else 'ok'} in {h.elapsed():.0f} s", flush=True)
        return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
