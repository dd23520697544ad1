#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""`cmake --install` into a temporary root, as a packager or an administrator runs it (issue 10).

  install_test.py BUILD_DIR SHARED_DIR

Lists the installed tree and checks it: binaries that start and say their version, the unit, the udev
rules (the generic-bridge rule not active), sysusers.d and tmpfiles.d entries, modules-load.d, a
configuration in /etc that passes --check-config with no boards and discovery on, man pages, the demo's
games, and the licence. Where the systemd tools exist: `systemd-analyze verify` on the installed unit,
its security score, and systemd-sysusers / systemd-tmpfiles applied to the temporary root. A second
install keeps an edited /etc/eboardd/eboardd.toml.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)


def install(build, root):
    r = run(["cmake", "--install", build], env={**os.environ, "DESTDIR": root})
    check(r.returncode == 0, f"cmake --install: {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout


def main():
    build = sys.argv[1]
    root = tempfile.mkdtemp(prefix="eboardd-install-")
    try:
        install(build, root)
        files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)
        print("installed:")
        for f in files:
            print("  /" + f)
        have = set(files)
        # Units and udev rules go where the systemd and udev pkg-config files say: /lib on Debian 12
        # (not merged-/usr there), /usr/lib elsewhere.
        def under_lib(path):
            found = [f for f in ("usr/" + path, path) if f in have]
            check(len(found) == 1, f"installed /{path} or /usr/{path}: {found}")
            return found[0] if found else "usr/" + path

        unit_path = under_lib("lib/systemd/system/eboardd.service")
        rules_path = under_lib("lib/udev/rules.d/60-eboardd.rules")
        expected = [
            "usr/sbin/eboardd", "usr/bin/eboardctl",
            "usr/share/eboardd/udev/61-eboardd-generic-bridges.rules",
            "usr/lib/sysusers.d/eboardd.conf", "usr/lib/tmpfiles.d/eboardd.conf",
            "usr/lib/modules-load.d/eboardd.conf",
            "etc/eboardd/eboardd.toml", "usr/share/doc/eboardd/examples/eboardd.toml",
            "usr/share/man/man8/eboardd.8", "usr/share/man/man1/eboardctl.1", "usr/share/man/man5/eboardd.toml.5",
            "usr/share/doc/eboardd/copyright",
        ]
        for f in expected:
            check(f in have, f"installed /{f}")
        active_rules = [f for f in files if "/rules.d/" in f]
        check(active_rules == [rules_path],
              f"only 60-eboardd.rules is an active udev rule: {active_rules}")
        check(not any(re.search(r"(^|/)eboard$", f) for f in files), "no program named eboard (Debian's GTK board)")

        sbin, ctl = os.path.join(root, "usr/sbin/eboardd"), os.path.join(root, "usr/bin/eboardctl")
        for exe, name in ((sbin, "eboardd"), (ctl, "eboardctl")):
            r = run([exe, "--version"])
            check(r.returncode == 0 and re.fullmatch(name + r" \d+\.\d+\.\d+\n", r.stdout) is not None,
                  f"{name} --version: {r.returncode} {r.stdout!r} {r.stderr!r}")
        conf = os.path.join(root, "etc/eboardd/eboardd.toml")
        r = run([sbin, "--config", conf, "--check-config"])
        check(r.returncode == 0 and "0 board(s)" in r.stdout and "USB discovery on" in r.stdout,
              f"the installed configuration starts cleanly with no boards, discovery on: {r.stdout}{r.stderr}")

        for page, section in (("eboardd.8", "8"), ("eboardctl.1", "1"), ("eboardd.toml.5", "5")):
            text = open(os.path.join(root, "usr/share/man", "man" + section, page)).read()
            check(text.startswith(f'.TH "{page.rsplit(".", 1)[0].upper()}" "{section}"'), f"{page}: a .TH header")
            check("/build/" not in text, f"{page}: names no build-tree path")
        ctl_page = open(os.path.join(root, "usr/share/man/man1/eboardctl.1")).read()
        for sub in ("perft", "replay", "sim", "capture import", "status", "port add", "resign"):
            check(f'.SS "eboardctl {sub}"' in ctl_page, f"eboardctl.1 documents `eboardctl {sub}`")

        demo = os.path.join(root, "usr/share/eboardd/demo")
        games = os.listdir(demo) if os.path.isdir(demo) else []
        # The games come from ../shared at build time; without it there are none to install.
        check(not os.path.isdir(os.path.join(sys.argv[2], "corpora")) or any(g.endswith(".bpgn") for g in games) and any(g.endswith(".pgn") for g in games),
              f"the demo's games are installed: {games}")
        check(not games or "demo-games.txt" in games, "the demo's games come with their sources and licences")

        unit = open(os.path.join(root, unit_path)).read()
        check("ExecStart=/usr/sbin/eboardd --config /etc/eboardd/eboardd.toml" in unit, "the unit runs the installed binary")
        tmpfiles = open(os.path.join(root, "usr/lib/tmpfiles.d/eboardd.conf")).read()
        check(re.search(r"^d /var/lib/eboardd 0750 eboardd eboardd", tmpfiles, re.M) is not None,
              "tmpfiles.d makes the state directory")

        # An administrator's configuration survives a second install.
        with open(conf, "a") as f:
            f.write("# edited by the administrator\n")
        out = install(build, root)
        check(open(conf).read().endswith("# edited by the administrator\n"), "a reinstall keeps /etc/eboardd/eboardd.toml")
        check("Keeping" in out, "the reinstall says it kept the configuration")

        analyze = shutil.which("systemd-analyze")
        if analyze:
            # verify resolves ExecStart on this machine: point it at the installed binary.
            copy = os.path.join(root, "eboardd.service")
            open(copy, "w").write(unit.replace("/usr/sbin/eboardd", sbin))
            r = run([analyze, "verify", copy])
            ours = [l for l in (r.stdout + r.stderr).splitlines() if "eboardd" in l]
            check(r.returncode == 0 and not ours, f"systemd-analyze verify: {r.returncode}\n{r.stdout}{r.stderr}")
            print("systemd-analyze verify: clean" if r.returncode == 0 and not ours else "systemd-analyze verify: FAILED")
            os.remove(copy)
            r = run([analyze, "security", "--offline=yes", f"--root={root}", "eboardd.service"])
            m = re.search(r"Overall exposure level for eboardd.service: (\d+\.\d+)", r.stdout + r.stderr)
            check(m is not None and float(m.group(1)) <= 1.7, f"hardening score at most 1.7: {m and m.group(1)}")
            print("systemd-analyze security:", m.group(1) if m else "?")
        else:
            print("systemd-analyze not installed: unit not verified")
        sysusers, tmpfiles_bin = shutil.which("systemd-sysusers"), shutil.which("systemd-tmpfiles")
        if sysusers:
            r = run([sysusers, f"--root={root}"])
            passwd = open(os.path.join(root, "etc/passwd")).read() if os.path.exists(os.path.join(root, "etc/passwd")) else ""
            group = open(os.path.join(root, "etc/group")).read() if os.path.exists(os.path.join(root, "etc/group")) else ""
            check(r.returncode == 0 and re.search(r"^eboardd:x:\d+:\d+:.*:/var/lib/eboardd:", passwd, re.M),
                  f"sysusers creates the eboardd user: {r.stderr}")
            check(re.search(r"^eboard:x:\d+:eboardd$", group, re.M) is not None, "eboardd is in group eboard")
            if tmpfiles_bin:
                r = run([tmpfiles_bin, f"--root={root}", "--create", os.path.join(root, "usr/lib/tmpfiles.d/eboardd.conf")])
                state = os.path.join(root, "var/lib/eboardd")
                check(r.returncode == 0 and os.path.isdir(state) and (os.stat(state).st_mode & 0o777) == 0o750,
                      f"tmpfiles creates /var/lib/eboardd 0750: {r.returncode} {r.stderr}")
        print(f"{len(files)} files installed; {'all checks passed' if not failures else f'{len(failures)} failed'}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
