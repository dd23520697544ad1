#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Operations files of eboardd (issue 6).

  ops_test.py udev SOURCE_DIR [HARDWARE_MD]   udev/60-eboardd.rules: syntax (every line is KEY==/KEY= pairs with
                                              known keys, GOTO targets exist), what it sets, and no drift from
                                              the USB IDs in reference/hardware.md
  ops_test.py unit SOURCE_DIR EBOARDD         config/eboardd.service: the directives the design needs, then
                                              `systemd-analyze verify` (exit 77 when it is not installed)
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


MATCH_KEYS = {"ACTION", "DEVPATH", "KERNEL", "KERNELS", "NAME", "SYMLINK", "SUBSYSTEM", "SUBSYSTEMS", "DRIVER",
              "DRIVERS", "ATTR", "ATTRS", "SYSCTL", "ENV", "CONST", "TAG", "TAGS", "TEST", "PROGRAM", "RESULT"}
ASSIGN_KEYS = {"NAME", "SYMLINK", "OWNER", "GROUP", "MODE", "SECLABEL", "ATTR", "SYSCTL", "ENV", "TAG", "RUN",
               "LABEL", "GOTO", "IMPORT", "OPTIONS"}
PAIR = re.compile(r'\s*([A-Z_]+)(\{[^}]*\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*(,|$)')


def parse_rules(text):
    """[(line number, [(key, attr, op, value)])] of every rule line; syntax problems are failures."""
    rules = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        n, line = i + 1, lines[i]
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pairs, pos = [], 0
        while pos < len(line):
            m = PAIR.match(line, pos)
            if not m:
                check(False, f"line {n}: cannot read from column {pos + 1}: {line[pos:]!r}")
                break
            key, attr, op, value = m.group(1), (m.group(2) or "")[1:-1], m.group(3), m.group(4)
            if op in ("==", "!="):
                check(key in MATCH_KEYS, f"line {n}: {key} is not a match key")
            else:
                check(key in ASSIGN_KEYS, f"line {n}: {key} cannot be assigned")
            if key in ("ATTR", "ATTRS", "ENV", "IMPORT") and key != "IMPORT":
                check(attr != "", f"line {n}: {key} needs {{name}}")
            pairs.append((key, attr, op, value))
            pos = m.end()
        check(pairs, f"line {n}: no key/value pair")
        rules.append((n, pairs))
    return rules


def udev(src, hardware_md):
    path = os.path.join(src, "udev", "60-eboardd.rules")
    rules = parse_rules(open(path).read())
    labels = {v for _, p in rules for k, _, op, v in p if k == "LABEL"}
    for n, pairs in rules:
        for k, _, _, v in pairs:
            if k == "GOTO":
                check(v in labels, f"line {n}: GOTO {v} has no LABEL")
    flat = [(k, a, op, v) for _, p in rules for (k, a, op, v) in p]
    check(("GROUP", "", "=", "eboard") in flat, 'GROUP="eboard"')
    check(("MODE", "", "=", "0660") in flat, 'MODE="0660"')
    check(("ENV", "ID_MM_DEVICE_IGNORE", "=", "1") in flat, 'ENV{ID_MM_DEVICE_IGNORE}="1"')
    check(any(k == "SYMLINK" and v.startswith("eboard/dgt-") for k, _, _, v in flat), "a stable SYMLINK eboard/dgt-…")
    ids = set()
    # Generic bridge chips (issue 10): matched only when the descriptors name DGT; every such adapter is
    # the opt-in file's business, not the default rules'.
    generic = {"0403:6001", "04d8:000a"}
    for _, pairs in rules:
        d = {a: v for k, a, op, v in pairs if k == "ATTRS" and op == "=="}
        if "idVendor" in d and "idProduct" in d:
            check(re.fullmatch(r"[0-9a-f]{4}", d["idVendor"] + "") is not None, f"lowercase hex vendor {d}")
            check(re.fullmatch(r"[0-9a-f]{4}", d["idProduct"]) is not None, f"lowercase hex product {d}")
            usb_id = f"{d['idVendor']}:{d['idProduct']}"
            ids.add(usb_id)
            if usb_id in generic:
                named = [v for a, v in d.items() if a in ("manufacturer", "product", "serial")]
                check(any("DGT" in v for v in named), f"{usb_id} matched without a DGT descriptor: {d}")
    opt_in = parse_rules(open(os.path.join(src, "udev", "61-eboardd-generic-bridges.rules")).read())
    opt_ids = {f"{d['idVendor']}:{d['idProduct']}" for d in
               ({a: v for k, a, op, v in pairs if k == "ATTRS" and op == "=="} for _, pairs in opt_in)
               if "idVendor" in d}
    check(opt_ids == generic, f"the opt-in rules match every generic bridge: {sorted(opt_ids)}")
    check(ids == {"0403:6001", "04d8:000a", "045b:8111"}, f"the DGT USB IDs: {sorted(ids)}")
    if hardware_md and os.path.exists(hardware_md):
        text = open(hardware_md).read()
        section = text[text.find("**USB IDs**"):]
        section = section[:section.find("\n\n")]
        ref = {m.lower() for m in re.findall(r"`([0-9A-Fa-f]{4}:[0-9A-Fa-f]{4})`", section)}
        check(ref == ids, f"drift from reference/hardware.md: rules {sorted(ids)}, reference {sorted(ref)}")
    # The group the rules give is the one sysusers creates and the unit joins.
    sysusers = open(os.path.join(src, "config", "eboardd.sysusers")).read()
    check(re.search(r"^g\s+eboard\s", sysusers, re.M) is not None, "sysusers creates group eboard")
    unit = open(os.path.join(src, "config", "eboardd.service")).read()
    check(re.search(r"^SupplementaryGroups=eboard dialout$", unit, re.M) is not None, "the unit joins group eboard")
    print(f"udev: {len(rules)} rules, USB IDs {sorted(ids)}")
    return 0


def unit(src, exe):
    path = os.path.join(src, "config", "eboardd.service")
    text = open(path).read()
    for directive in ["Type=notify", "NotifyAccess=main", "Restart=on-failure", "StateDirectory=eboardd",
                      "ProtectSystem=strict", "DevicePolicy=closed", "DeviceAllow=char-ttyUSB rw",
                      "DeviceAllow=char-ttyACM rw", "DeviceAllow=char-ttyS rw", "DeviceAllow=char-rfcomm rw",
                      "DeviceAllow=char-hidraw rw", "DeviceAllow=char-usb_device rw",
                      "SupplementaryGroups=eboard dialout", "NoNewPrivileges=yes",
                      "ExecReload=/bin/kill -HUP $MAINPID"]:
        check(re.search("^" + re.escape(directive) + "$", text, re.M) is not None, f"unit has {directive}")
    check(re.search(r"^WatchdogSec=\d+", text, re.M) is not None, "unit has WatchdogSec")
    check(re.search(r"^PrivateDevices=yes", text, re.M) is None, "PrivateDevices would hide the ttys")
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        print("skipped: systemd-analyze is not installed")
        return 77 if not failures else 1
    tmp = tempfile.mkdtemp(prefix="eboardd-unit-")
    try:
        copy = os.path.join(tmp, "eboardd.service")
        open(copy, "w").write(text.replace("/usr/sbin/eboardd", os.path.abspath(exe)))
        r = subprocess.run([analyze, "verify", copy], capture_output=True, text=True, timeout=60)
        out = (r.stdout + r.stderr).strip()
        # Lines about other units on this machine are not ours.
        ours = [l for l in out.splitlines() if "eboardd" in l]
        check(r.returncode == 0 and not ours, f"systemd-analyze verify: {r.returncode}\n{out}")
        print("systemd-analyze verify:", "clean" if r.returncode == 0 and not ours else out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    what = sys.argv[1]
    rc = udev(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None) if what == "udev" else unit(sys.argv[2], sys.argv[3])
    sys.exit(1 if failures else rc)
