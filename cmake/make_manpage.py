#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Writes eboardd's man pages at build time.

`program`: a program's page from its own --help (and, with --subcommands, every subcommand's --help,
found recursively from the "Subcommands:" lists), so the page says exactly what the program says.
`config`: eboardd.toml(5), from the annotated configuration that is installed as /etc/eboardd/eboardd.toml.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

SUMMARY = {
    "eboardd": "electronic chess board daemon for arbiters and broadcasters",
    "eboardctl": "control eboardd, replay board captures, simulate boards, count perft",
}

SEE_ALSO = {
    "eboardd": ".BR eboardctl (1),\n.BR eboardd.toml (5),\n.BR systemd.service (5),\n.BR udev (7)",
    "eboardctl": ".BR eboardd (8),\n.BR eboardd.toml (5)",
    "eboardd.toml": ".BR eboardd (8),\n.BR eboardctl (1)",
}


def roff_text(text):
    """Text shown verbatim in a no-fill block: escape backslashes and the control characters at line starts."""
    out = []
    for line in text.rstrip("\n").splitlines():
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def header(name, section, version):
    # SOURCE_DATE_EPOCH keeps the page reproducible (Debian's reproducible builds).
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or None
    date = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc) if epoch else datetime.datetime.now(datetime.timezone.utc)
    title = name.upper()
    return (f'.TH "{title}" "{section}" "{date:%Y-%m-%d}" "eboardd {version}" "eboardd"\n'
            f".SH NAME\n{name} \\- {SUMMARY.get(name, 'eboardd configuration file')}\n")


def run_help(exe, args):
    r = subprocess.run([exe, *args, "--help"], capture_output=True, text=True, timeout=600)  # a loaded builder (sanitized binaries start slowly)
    if r.returncode != 0:
        sys.exit(f"make_manpage: {exe} {' '.join(args)} --help exited {r.returncode}: {r.stderr.strip()}")
    # CLI11's usage line names the program as it was run (the build tree's path): the page names it.
    return r.stdout.replace(exe, os.path.basename(exe))


def subcommands(help_text):
    """The names listed under CLI11's "Subcommands:" heading."""
    names, inside = [], False
    for line in help_text.splitlines():
        if line.strip() == "Subcommands:":
            inside = True
            continue
        if inside:
            m = re.match(r"^  (\S+)", line)
            if m:
                names.append(m.group(1))
            elif line.strip() and not line.startswith("   "):
                inside = False
    return names


def program(a):
    top = run_help(a.exe, [])
    page = header(a.name, a.section, a.version)
    page += f".SH SYNOPSIS\n.B {a.name}\n[\\fIOPTIONS\\fR]"
    page += " \\fISUBCOMMAND\\fR [\\fIARGS\\fR]\n" if a.subcommands else "\n"
    page += ".SH DESCRIPTION\nWhat \\fB" + a.name + " \\-\\-help\\fR prints:\n.PP\n.nf\n" + roff_text(top) + "\n.fi\n"
    if a.subcommands:
        page += ".SH SUBCOMMANDS\n"
        todo = [[s] for s in subcommands(top)]
        while todo:
            path = todo.pop(0)
            text = run_help(a.exe, path)
            page += f'.SS "{a.name} {" ".join(path)}"\n.nf\n' + roff_text(text) + "\n.fi\n"
            todo[0:0] = [path + [s] for s in subcommands(text)]
    page += ".SH VERSION\n" + a.version + "\n"
    page += ".SH SEE ALSO\n" + SEE_ALSO[a.name] + "\n"
    return page


def tables(toml):
    """The tables the file shows (as written or as commented examples), in the file's order."""
    seen = []
    for line in toml.splitlines():
        m = re.match(r"^(?:# )?(\[\[?[a-z_.]+\]\]?)\s*(?:#.*)?$", line)
        if m and m.group(1) not in seen:
            seen.append(m.group(1))
    return seen


def config(a):
    toml = open(a.toml).read()
    listed = ", ".join("\\fB" + t + "\\fR" for t in tables(toml))
    page = header("eboardd.toml", "5", a.version)
    page += (".SH SYNOPSIS\n/etc/eboardd/eboardd.toml\n"
             ".SH DESCRIPTION\n"
             ".BR eboardd (8)\nreads its configuration from a TOML file given with \\fB\\-\\-config\\fR. "
             "Top-level keys: \\fBstate_dir\\fR (journals, PGN files and their signatures, the signing key) and \\fBlog_level\\fR. "
             "Tables: " + listed + ", each explained in the file below. Unknown keys are errors, reported with "
             "their line by \\fBeboardd \\-\\-config FILE \\-\\-check\\-config\\fR. "
             "SIGHUP (\\fBsystemctl reload eboardd\\fR) applies a changed file; boards that did not "
             "change keep running. A file with no board at all is refused while boards run (the running "
             "configuration stays) unless it sets \\fB[discovery] usb = true\\fR.\n"
             ".PP\nThe file as installed, every table and key explained in its comments (a test checks that "
             "every key the parser accepts is here):\n"
             ".PP\n.nf\n" + roff_text(toml) + "\n.fi\n")
    page += ".SH SEE ALSO\n" + SEE_ALSO["eboardd.toml"] + "\n"
    return page


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("program")
    p.add_argument("--name", required=True)
    p.add_argument("--section", required=True)
    p.add_argument("--exe", required=True)
    p.add_argument("--subcommands", action="store_true")
    c = sub.add_parser("config")
    c.add_argument("--toml", required=True)
    for s in (p, c):
        s.add_argument("--version", required=True)
        s.add_argument("--out", required=True)
    a = ap.parse_args()
    page = program(a) if a.what == "program" else config(a)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
