# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""MQTT over TLS with client certificates (issue 16), real processes. At run time, in the test's temporary
directory, openssl makes a CA, a server certificate for 127.0.0.1/localhost and client certificates named
`h1`, `arbiter` and `h4`, plus an unrelated CA. A Mosquitto broker listens with TLS only, requires a client
certificate and takes its CN as the username (the hall's ACL then applies to it). Then:
- the aggregator, started before the broker, says it was refused and gets in once the broker is up;
- a host h1 (`eboardd --demo`, mqtts://, its certificate, no password) and an aggregator (its certificate)
  connect: the aggregator lists h1 online, serves h1:A and h1:B, and its /boards/h1:A.pgn is the host's
  /boards/A.pgn once a few plies are played;
- a host h3 that trusts the CA but has no certificate of its own is refused by the broker, and one (h4) whose
  certificate is good but which trusts another CA refuses the broker; neither connects, each says why in its
  /status mqtt.last_error, and the aggregator never hears of either;
- h4 restarted with the right CA connects (so it was the CA that kept it out).

Usage: mqtt_tls_test.py EBOARDD SHARED_DIR. Skipped (77) without mosquitto, openssl or the corpus.
"""
import getpass
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon_process"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from eboardctl_proc import SKIP, Harness, TestFailure, http_get, wait_until  # noqa: E402
from mqtt_hall_test import HALL_ACL, TOKEN, Broker, Eboardd, find_mosquitto, free_port  # noqa: E402


def split_pgn(text):
    """One game's PGN: ({tag: value}, movetext)."""
    head, _, moves = text.strip().partition("\n\n")
    return dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', head, re.M)), moves.strip()


class Pki:
    """Certificates made with the openssl command line, in `dir`: EC P-256 keys, valid two days."""

    def __init__(self, openssl, directory):
        self.openssl, self.dir = openssl, directory
        os.makedirs(directory)
        self.serial = 1

    def _run(self, *args):
        subprocess.run([self.openssl, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def _path(self, name, ext):
        return os.path.join(self.dir, f"{name}.{ext}")

    def ca(self, name):
        """A self-signed CA: (cert, key)."""
        self._run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                  "-keyout", self._path(name, "key"), "-out", self._path(name, "crt"), "-days", "2",
                  "-subj", f"/CN=eboardd test {name}")
        return self._path(name, "crt"), self._path(name, "key")

    def cert(self, ca, name, cn, extensions):
        """A certificate for `cn` signed by `ca` (cert, key), with the given X.509v3 extension lines."""
        key, csr, crt, ext = (self._path(name, e) for e in ("key", "csr", "crt", "ext"))
        self._run("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                  "-keyout", key, "-out", csr, "-subj", f"/CN={cn}")
        with open(ext, "w") as f:
            f.write("basicConstraints = CA:FALSE\n" + extensions)
        self.serial += 1
        self._run("x509", "-req", "-in", csr, "-CA", ca[0], "-CAkey", ca[1], "-set_serial", str(self.serial),
                  "-days", "2", "-extfile", ext, "-out", crt)
        return crt, key

    def server(self, ca, name):
        return self.cert(ca, name, "localhost", "subjectAltName = IP:127.0.0.1, DNS:localhost\n"
                                                "extendedKeyUsage = serverAuth\n")

    def client(self, ca, cn):
        return self.cert(ca, "client-" + cn, cn, "extendedKeyUsage = clientAuth\n")


class TlsBroker(Broker):
    """The hall's broker with one TLS listener only: a client certificate signed by `ca` is required and its
    CN is the username the ACL sees; no password file."""

    def __init__(self, h, mosquitto, ca, server):
        self.h, self.exe, self.port, self.proc = h, mosquitto, free_port(), None
        d = os.path.join(h.dir, "broker")
        os.makedirs(d)
        acl = os.path.join(d, "acl")
        with open(acl, "w") as f:
            f.write(HALL_ACL)
        self.conf = os.path.join(d, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write(f"per_listener_settings false\nallow_anonymous false\nacl_file {acl}\n"
                    f"listener {self.port} 127.0.0.1\ncafile {ca}\ncertfile {server[0]}\nkeyfile {server[1]}\n"
                    "require_certificate true\nuse_identity_as_username true\n")
            if os.geteuid() == 0:  # else mosquitto drops to user mosquitto, who cannot read the keys here
                f.write(f"user {getpass.getuser()}\n")
        self.log = h.log_path("mosquitto")


class TlsEboardd(Eboardd):
    """An eboardd of the hall on mqtts://: the CA it trusts and, when given, its client certificate."""

    def __init__(self, h, exe, name, broker_port, ca_file, client=None, corpus=None, aggregate=False):
        super().__init__(h, exe, name, broker_port, corpus=corpus, aggregate=aggregate)
        self.aggregate = aggregate
        self.write_config(broker_port, ca_file, client)

    def write_config(self, broker_port, ca_file, client):
        # username: the name commands and answers travel under; the broker takes the certificate's CN instead
        # (and both are the host's name here, as the ACL wants).
        with open(self.config, "w") as f:
            f.write(f'state_dir = "{self.state}"\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n'
                    f'[mqtt]\nbroker = "mqtts://127.0.0.1:{broker_port}"\nhall = "test-hall"\n'
                    f'host = "{self.name}"\nusername = "{self.name}"\nca_file = "{ca_file}"\n'
                    f'aggregate = {"true" if self.aggregate else "false"}\n'
                    # the arbiter's aggregator asks the hosts for the history it missed (resend): trusted
                    'trusted = ["arbiter"]\n')
            if client:
                f.write(f'cert_file = "{client[0]}"\nkey_file = "{client[1]}"\n')

    def mqtt(self):
        return self.status()["mqtt"]


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, shared = sys.argv[1], sys.argv[2]
    corpus = os.path.join(shared, "corpora", "pgn", "standard")
    mosquitto = find_mosquitto(need_passwd=False)
    openssl = shutil.which("openssl")
    if not mosquitto or not openssl:
        print("SKIP: mosquitto and openssl are needed")
        return SKIP
    if not os.path.isdir(corpus):
        print(f"SKIP: no corpus at {corpus}")
        return SKIP
    with Harness("mqtt-tls") as h:
        pki = Pki(openssl, os.path.join(h.dir, "pki"))
        ca = pki.ca("ca")
        other_ca = pki.ca("other-ca")  # unrelated: trusts nothing the broker shows
        broker = TlsBroker(h, mosquitto, ca[0], pki.server(ca, "server"))

        # The aggregator comes up before the broker: refused, it says so and tries again until it gets in.
        agg = TlsEboardd(h, exe, "arbiter", broker.port, ca[0], pki.client(ca, "arbiter"), aggregate=True)
        agg.start()
        refused = wait_until(lambda: agg.mqtt()["last_error"], 15, "the aggregator to report the refusal")
        h.check("refused" in refused, f"the aggregator's mqtt.last_error before the broker: {refused!r}")
        broker.start()
        h1 = TlsEboardd(h, exe, "h1", broker.port, ca[0], pki.client(ca, "h1"), corpus=corpus)
        h1.start()
        h3 = TlsEboardd(h, exe, "h3", broker.port, ca[0], None, corpus=corpus)
        h3.start()
        h4_cert = pki.client(ca, "h4")
        h4 = TlsEboardd(h, exe, "h4", broker.port, other_ca[0], h4_cert, corpus=corpus)
        h4.start()
        outsiders = (h3, h4)

        # The two with certificates connect; the hall works through TLS as without.
        wait_until(lambda: agg.mqtt()["hosts"].get("h1") == "online", 15, "the aggregator to see h1 online")
        wait_until(lambda: {"h1:A", "h1:B"} <= {r["id"] for r in agg.mqtt()["remote_boards"]}, 15,
                   "the aggregator to serve h1:A and h1:B")
        for d in (agg, h1):
            st = d.mqtt()
            h.check(st["connected"] and st["connects"] >= 1, f"{d.name} not connected: {st}")

        def board_a(d, path):
            code, text = http_get(d.port, path)
            return text if code == 200 else None

        seen = {}

        def same_game():
            """Both sides' board A, read host-aggregator-host: equal when the host's did not move meanwhile.
            The same tags (the board named h1:A), not in the same order (the aggregator gets them as a JSON
            object), and the same movetext to the byte."""
            mine = board_a(h1, "/boards/A.pgn")
            theirs = board_a(agg, "/boards/h1:A.pgn")
            if not mine or not theirs or board_a(h1, "/boards/A.pgn") != mine:
                return False
            plies = next(b["game"]["ply"] for b in h1.status()["boards"] if b["id"] == "A")
            seen.update(mine=mine, theirs=theirs, plies=plies)
            (my_tags, my_moves), (their_tags, their_moves) = split_pgn(mine), split_pgn(theirs)
            my_tags["Board"] = "h1:" + my_tags.get("Board", "")
            return plies >= 4 and my_tags == their_tags and my_moves == their_moves
        try:
            wait_until(same_game, 20, "the aggregator's /boards/h1:A.pgn to be the host's after 4 plies")
        except TestFailure:
            print("last look:", seen, flush=True)
            raise
        print(f"h1:A equal at the aggregator at ply {seen['plies']} ({len(seen['mine'])} bytes)", flush=True)

        # The ones without a usable certificate never got in, and say why. h3 hears the broker's alert, unless
        # the broker's reset came first (then libmosquitto's own words and the client's account of it); the
        # broker's log tells why in any case.
        expected = {"h3": "certificate required|the broker closed the connection before accepting it",
                    "h4": "certificate verify failed"}
        in_broker_log = {"h3": "peer did not return a certificate", "h4": "alert unknown ca"}
        reasons = {}
        for d in outsiders:
            def told(d=d):
                st = d.mqtt()
                return st["last_error"] if st["last_error"] else None
            reasons[d.name] = wait_until(told, 15, f"{d.name} to report why it cannot connect")
            st = d.mqtt()
            h.check(not st["connected"] and st["connects"] == 0, f"{d.name} connected: {st}")
            h.check(re.search(expected[d.name], reasons[d.name]),
                    f"{d.name}'s mqtt.last_error {reasons[d.name]!r} does not say {expected[d.name]!r}")
            wait_until(lambda d=d: in_broker_log[d.name] in open(broker.log, errors="replace").read(), 15,
                       f"the broker to log {in_broker_log[d.name]!r} for {d.name}")
        st = agg.mqtt()
        heard = set(st["hosts"]) | {r["host"] for r in st["remote_boards"]}
        h.check(heard == {"h1"}, f"the aggregator heard of {sorted(heard)}, not h1 alone")
        print(f"refused: aggregator before the broker: {refused}; "
              + "; ".join(f"{n}: {r}" for n, r in reasons.items()), flush=True)

        # The control: h4 with the right CA (and the same certificate) connects.
        h4.proc.terminate()
        h4.proc.wait(timeout=30)
        h4.write_config(broker.port, ca[0], h4_cert)
        h4.start()
        wait_until(lambda: agg.mqtt()["hosts"].get("h4") == "online", 15, "h4 online with the right CA")
        h.check("h3" not in agg.mqtt()["hosts"], "the aggregator heard of h3")

        print(f"mqtt_tls_test: {'FAIL' if h.failures else 'ok'} in {h.elapsed():.0f} s", flush=True)
        return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
