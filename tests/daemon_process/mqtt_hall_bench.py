# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The aggregator under a whole hall (issue 16): H hosts x B boards publishing their moves to a real mosquitto
on loopback, one real `eboardd` aggregating them; prints the aggregator's CPU (share of one core) and memory,
and the latency from a host's publish to the move's arrival on the aggregator's /ws (median, p99, worst),
for one host alone and for the whole hall, each measured in the same run.

The hosts are emulated in this process (a minimal MQTT 3.1.1 publisher, QoS 1, one connection per host, as
eboardd's hosts do): each board plays legal moves (knights out and back) at blitz pace, a ply every 2 to 8 s,
in the envelopes eboardd publishes. Latency is measured with one clock: the event's `t` is the publish time,
the arrival is the /ws reader's time (the reader is a Python thread: its own delay is in the figures).

Usage: mqtt_hall_bench.py EBOARDD [--hosts 10] [--boards 100] [--seconds 30]. Skipped (77) without mosquitto.
"""
import argparse
import json
import os
import random
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eboardctl_proc import SKIP, Harness, WebSocket, wait_until  # noqa: E402
from mqtt_hall_test import find_mosquitto  # noqa: E402

KNIGHTS = [("g1f3", "Nf3"), ("g8f6", "Nf6"), ("f3g1", "Ng1"), ("f6g8", "Ng8")]


def remaining_length(n):
    out = b""
    while True:
        byte, n = n % 128, n // 128
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def mqtt_string(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b


class Publisher:
    """One emulated host: an MQTT connection that publishes QoS 1 and reads (and drops) the PUBACKs."""

    def __init__(self, port, client_id):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        body = mqtt_string("MQTT") + bytes([4, 0x02]) + struct.pack(">H", 60) + mqtt_string(client_id)
        self.sock.sendall(b"\x10" + remaining_length(len(body)) + body)
        ack = self.sock.recv(4)
        if len(ack) < 4 or ack[0] != 0x20 or ack[3] != 0:
            raise RuntimeError(f"CONNACK refused: {ack!r}")
        self.mid = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def publish(self, topic, payload):
        with self.lock:
            self.mid = self.mid % 65535 + 1
            body = mqtt_string(topic) + struct.pack(">H", self.mid) + payload
            self.sock.sendall(b"\x32" + remaining_length(len(body)) + body)


def cpu_ticks(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(h, exe, mosquitto, hosts, boards, seconds, label):
    d = os.path.join(h.dir, label)
    os.makedirs(d)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    conf = os.path.join(d, "mosquitto.conf")
    with open(conf, "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n")
    broker = subprocess.Popen([mosquitto, "-c", conf], stdout=open(h.log_path(label + "-mosquitto"), "ab"),
                              stderr=subprocess.STDOUT)
    h.procs.append(broker)

    def accepting():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return True
        except OSError:
            return False
    wait_until(accepting, 10, "mosquitto")
    config = os.path.join(d, "aggregator.toml")
    with open(config, "w") as f:
        f.write(f'state_dir = "{d}/state"\n[http]\nlisten = "127.0.0.1:0"\n[mqtt]\n'
                f'broker = "mqtt://127.0.0.1:{port}"\nhall = "bench"\nhost = "arbiter"\naggregate = true\n')
    agg = subprocess.Popen([exe, "--config", config, "--no-usb", "--log-level", "warn"],
                           stdout=open(h.log_path(label + "-aggregator"), "ab"), stderr=subprocess.STDOUT)
    h.procs.append(agg)
    listen = os.path.join(d, "state", "eboardd.listen")
    http_port = wait_until(lambda: os.path.exists(listen) and open(listen).read().strip() and
                           int(open(listen).read().strip().rsplit(":", 1)[1]), 15, "the aggregator")
    time.sleep(0.5)  # its subscription
    ws = WebSocket(http_port)
    pubs = [Publisher(port, f"bench-host-{i}") for i in range(hosts)]
    rng = random.Random(16)
    start = time.time()
    due = [[start + rng.uniform(0, 4) for _ in range(boards)] for _ in range(hosts)]
    ply = [[0] * boards for _ in range(hosts)]
    seq = [[0] * boards for _ in range(hosts)]
    sent = 0
    ticks0, t0 = cpu_ticks(agg.pid), time.time()
    while time.time() < start + seconds:
        now = time.time()
        soonest = now + 1
        for i in range(hosts):
            for b in range(boards):
                if due[i][b] <= now:
                    p = ply[i][b] = ply[i][b] + 1
                    seq[i][b] += 100
                    uci, san = KNIGHTS[(p - 1) % 4]
                    t = int(time.time() * 1000)
                    event = {"t": t, "board": str(b + 1), "type": "move", "ply": p, "uci": uci, "san": san,
                             "clock": {"white": 300000, "black": 300000}}
                    env = {"host": f"h{i + 1}", "board": str(b + 1), "game": 1, "journal": 1, "seq": seq[i][b],
                           "event": event}
                    pubs[i].publish(f"eboard/bench/h{i + 1}/board/{b + 1}/event", json.dumps(env).encode())
                    sent += 1
                    due[i][b] = now + rng.uniform(2, 8)
                soonest = min(soonest, due[i][b])
        time.sleep(max(0.0, min(0.01, soonest - time.time())))
    wait_until(lambda: len(ws.moves()) >= sent, 30, f"all {sent} moves on the aggregator's /ws")
    ticks1, t1 = cpu_ticks(agg.pid), time.time()
    cpu = (ticks1 - ticks0) / os.sysconf("SC_CLK_TCK") / (t1 - t0) * 100
    with ws.lock:
        lat = [arr * 1000 - e["t"] for e, arr in zip(ws.events, ws.arrivals) if e.get("type") == "move"]
    rss = rss_mb(agg.pid)
    ws.close()
    agg.terminate()
    agg.wait(timeout=10)
    broker.terminate()
    broker.wait(timeout=10)
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]  # noqa: E731
    print(f"{label}: {hosts} host(s) x {boards} boards, {sent} moves in {seconds} s ({sent / seconds:.0f}/s): "
          f"aggregator CPU {cpu:.1f} % of a core, RSS {rss:.0f} MB; publish -> /ws latency median "
          f"{statistics.median(lat):.1f} ms, p99 {p(0.99):.1f} ms, worst {lat[-1]:.1f} ms", flush=True)
    return len(lat) == sent


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("eboardd")
    ap.add_argument("--hosts", type=int, default=10)
    ap.add_argument("--boards", type=int, default=100)
    ap.add_argument("--seconds", type=int, default=30)
    a = ap.parse_args()
    mosquitto = find_mosquitto(need_passwd=False)
    if not mosquitto:
        print("SKIP: mosquitto is needed")
        return SKIP
    with Harness("mqtt-bench") as h:
        ok = run(h, a.eboardd, mosquitto, 1, a.boards, a.seconds, "one-host")
        ok = run(h, a.eboardd, mosquitto, a.hosts, a.boards, a.seconds, "hall") and ok
        h.check(ok, "every move on /ws once")
        return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
