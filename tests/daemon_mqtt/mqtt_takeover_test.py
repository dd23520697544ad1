#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""One name per daemon on a broker (issue 26): a host and an aggregator on one machine, with default names,
against a real Mosquitto.

1. Both take the machine's name as their MQTT host and no [mqtt] client_id: each gets a client id of its own
   (made from its state directory), so both stay connected (one connection each, no takeover told) and the
   aggregator serves the host's boards although they share the host name.
2. Two daemons given one [mqtt] client_id: the broker lets one in at a time and each throws the other out right
   after it connected. Both tell it, in /status (mqtt.taken_over, a hint naming the key) and in the log; once one
   of them goes, the other's /status says the takeover is over.

usage: mqtt_takeover_test.py EBOARDD CORPUS_DIR       exit 77 (skipped) without mosquitto
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon_process"))
from eboardctl_proc import SKIP, Harness, TestFailure, http_get, wait_until  # noqa: E402
from mqtt_hall_test import find_mosquitto, free_port  # noqa: E402


class AnonymousBroker:
    """Mosquitto on a loopback port, anyone allowed: a hall's broker at its simplest."""

    def __init__(self, h, exe):
        self.h, self.port = h, free_port()
        self.conf = os.path.join(h.dir, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\n")
        self.proc = subprocess.Popen([exe, "-c", self.conf], stdout=open(h.log_path("mosquitto"), "ab"),
                                     stderr=subprocess.STDOUT)
        h.procs.append(self.proc)

        def accepting():
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return True
            except OSError:
                return False
        wait_until(accepting, 15, "mosquitto to listen")


class Daemon:
    """eboardd with an [mqtt] table that names neither a host nor (unless given) a client id."""

    def __init__(self, h, exe, name, broker_port, corpus=None, aggregate=False, client_id=None):
        self.h, self.exe, self.name, self.corpus = h, exe, name, corpus
        self.state = os.path.join(h.dir, name)
        self.config = os.path.join(h.dir, name + ".toml")
        with open(self.config, "w") as f:
            f.write(f'state_dir = "{self.state}"\n[http]\nlisten = "127.0.0.1:0"\n'
                    f'[mqtt]\nbroker = "mqtt://127.0.0.1:{broker_port}"\n'
                    f'aggregate = {"true" if aggregate else "false"}\n' +
                    (f'client_id = "{client_id}"\n' if client_id else ""))
        self.log = h.log_path(name)
        listen = os.path.join(self.state, "eboardd.listen")
        if os.path.exists(listen):  # a run before this one's
            os.remove(listen)
        args = [exe, "--config", self.config, "--no-usb"]
        if corpus:
            args += ["--demo", "--demo-corpus", corpus, "--demo-speed", "10"]
        self.proc = subprocess.Popen(args, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        h.procs.append(self.proc)

        def listening():
            if self.proc.poll() is not None:
                raise TestFailure(f"{name} exited with {self.proc.returncode}: {open(self.log).read()[-1500:]}")
            if os.path.exists(listen):
                text = open(listen).read().strip()
                return int(text.rsplit(":", 1)[1]) if text else None
            return None
        self.port = wait_until(listening, 20, f"{name} to listen")

    def mqtt(self):
        return json.loads(http_get(self.port, "/status")[1])["mqtt"]

    def stop(self):
        self.proc.terminate()
        return self.proc.wait(timeout=30)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, corpus = sys.argv[1], sys.argv[2]
    mosquitto = find_mosquitto(need_passwd=False)
    if not mosquitto:
        print("SKIP: mosquitto is needed")
        return SKIP
    with Harness("mqtt-takeover") as h:
        try:
            broker = AnonymousBroker(h, mosquitto)
            default_names(h, exe, corpus, broker)
            one_client_id(h, exe, broker)
        except TestFailure as e:
            h.check(False, str(e))
        print(f"mqtt_takeover_test: {'FAIL' if h.failures else 'ok'} in {h.elapsed():.0f} s", flush=True)
        return h.exit_code()


def default_names(h, exe, corpus, broker):
    host = Daemon(h, exe, "host", broker.port, corpus=corpus)
    agg = Daemon(h, exe, "aggregator", broker.port, aggregate=True)
    wait_until(lambda: host.mqtt()["connected"] and agg.mqtt()["connected"], 15, "both connected")
    time.sleep(5)  # two daemons with one client id would have thrown each other out some 25 times by now
    hm, am = host.mqtt(), agg.mqtt()
    print(f"default names: host {hm['host']} as {hm.get('client_id')}, aggregator {am['host']} as {am.get('client_id')}; "
          f"connects {hm['connects']} and {am['connects']}", flush=True)
    h.check(hm["host"] == am["host"], f"both take the machine's name: {hm['host']} and {am['host']}")
    h.check(hm.get("client_id") != am.get("client_id"), f"one client id for both: {hm.get('client_id')}")
    for who, m in (("host", hm), ("aggregator", am)):
        h.check(m["connected"] and m["connects"] == 1 and not m.get("taken_over"),
                f"{who}: connected {m['connected']}, {m['connects']} connections, taken over {m.get('taken_over')}")
    remote = wait_until(lambda: agg.mqtt()["remote_boards"] or None, 20, "the host's boards on the aggregator")
    h.check(all(r["id"].startswith(hm["host"] + ":") for r in remote),
            f"the aggregator's remote boards: {[r['id'] for r in remote]}")
    # The client id is stable for a state directory: the host started again keeps its own.
    h.check(host.stop() == 0 and agg.stop() == 0, "SIGTERM")
    again = Daemon(h, exe, "host", broker.port)
    wait_until(lambda: again.mqtt()["connected"], 15, "the host connected again")
    h.check(again.mqtt().get("client_id") == hm.get("client_id"),
            f"the host's client id changed across a restart: {again.mqtt().get('client_id')} after {hm.get('client_id')}")
    h.check(again.stop() == 0, "SIGTERM")


def one_client_id(h, exe, broker):
    a = Daemon(h, exe, "first", broker.port, client_id="hall-pc")
    b = Daemon(h, exe, "second", broker.port, aggregate=True, client_id="hall-pc")
    for who, d in (("first", a), ("second", b)):
        m = wait_until(lambda: (lambda s: s if s["taken_over"] else None)(d.mqtt()), 30,
                       f"{who}: the takeover told in /status")
        h.check("client_id" in (m.get("taken_over_hint") or "") and m["client_id"] == "hall-pc",
                f"{who}: /status mqtt {m}")
        log = open(d.log, errors="replace").read()
        h.check("[mqtt] client_id" in log and "hall-pc" in log, f"{who}: the log does not tell the takeover")
        lines = sum(1 for line in log.splitlines() if "disconnected from" in line)
        h.check(lines <= 5, f"{who}: {lines} 'disconnected' lines in the log: one for each takeover")
    # One of them goes: the other's session lasts, and the takeover is over.
    h.check(b.stop() == 0, "SIGTERM")
    wait_until(lambda: (lambda s: s["connected"] and not s["taken_over"])(a.mqtt()), 20,
               "first: the takeover over once second is gone")
    h.check(a.stop() == 0, "SIGTERM")


if __name__ == "__main__":
    sys.exit(main())
