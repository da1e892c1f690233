#!/usr/bin/env python3
# man-help.py PAGESIM SRCDIR [MANDIR] - --help and the man pages agree: every command of
# 'pagesim --help' has docs/man/pagesim-COMMAND.1.scd, named in pagesim(1); every option
# an entry of 'pagesim COMMAND --help' lists is an entry of the page's OPTIONS, and every
# entry there is one of --help's (the same for 'pagesim --help' and pagesim(1)).  With
# MANDIR (the build's docs/man), each page is also built there.
import os
import re
import subprocess
import sys

pagesim, src = sys.argv[1], sys.argv[2]
mandir = sys.argv[3] if len(sys.argv) > 3 else None
OPT = r"(?:-[A-Za-z]|--[a-z][a-z0-9-]*)"

def help_text(*args):
    r = subprocess.run([pagesim, *args, "--help"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: pagesim {' '.join(args)} --help exited {r.returncode}")
    return r.stdout

def help_options(text):
    # "  -o, --output FILE  ...", "  --mode follow  ...": the leading options of each entry
    opts = set()
    for line in text.splitlines():
        m = re.match(rf"  ({OPT}(?:(?:, |/){OPT})*)(?:\s|$)", line)
        if m:
            opts.update(re.findall(OPT, m.group(1)))
    return opts

def commands(text):
    m = re.search(r"^commands:\n((?:  .*\n)+)", text, re.M)
    if not m:
        sys.exit("FAIL: pagesim --help has no commands: section")
    return [l.split()[0] for l in m.group(1).splitlines() if l.split()[0] != "help"]

def page_options(path):
    # entries of the OPTIONS section: lines that start with *-x* or *--long*
    opts, on = set(), False
    for line in open(path):
        if line.startswith("# "):
            on = line.strip() == "# OPTIONS"
        elif on and line.startswith("*-"):
            opts.update(re.findall(rf"\*({OPT})\*", line))
    if not opts:
        sys.exit(f"FAIL: {path} has no OPTIONS entries")
    return opts

top = help_text()
fail = 0
pages = [("pagesim", [])] + [(f"pagesim-{c}", [c]) for c in commands(top)]
index = open(os.path.join(src, "docs", "man", "pagesim.1.scd")).read()
for page, args in pages:
    scd = os.path.join(src, "docs", "man", page + ".1.scd")
    if not os.path.exists(scd):
        print(f"FAIL: no man page {scd} for 'pagesim {' '.join(args)}' (add it and list it in docs/man/meson.build)")
        fail = 1
        continue
    if mandir and not os.path.exists(os.path.join(mandir, page + ".1")):
        print(f"FAIL: {page}.1 is not built (list it in docs/man/meson.build)")
        fail = 1
    if args and f"*{page}*(1)" not in index:
        print(f"FAIL: pagesim(1) does not name *{page}*(1)")
        fail = 1
    h, p = help_options(help_text(*args)), page_options(scd)
    for o in sorted(h - p):
        print(f"FAIL: 'pagesim {' '.join(args + [''])}--help' lists {o}, {page}(1) does not")
        fail = 1
    for o in sorted(p - h):
        print(f"FAIL: {page}(1) lists {o}, 'pagesim {' '.join(args + [''])}--help' does not")
        fail = 1
    print(f"{page}: {len(h)} options in --help and the page")
sys.exit(fail)
