#!/usr/bin/python3
"""summary.py LABEL TESTLOG.json - one line of counts from a meson test log,
then, for each test that did not pass, its name, result and the end of its output
(the sanitizer and valgrind runs send meson's own output to /dev/null)."""
import json
import sys

label, path = sys.argv[1], sys.argv[2]
ok = skip = 0
failed = []
for line in open(path):
    r = json.loads(line)
    s = r.get("result")
    if s in ("OK", "EXPECTEDFAIL"):
        ok += 1
    elif s == "SKIP":
        skip += 1
    else:
        failed.append(r)
print(f"{label}{ok} passed, {len(failed)} failed, {skip} skipped")
for r in failed:
    print(f"  FAILED {r.get('name')}: {r.get('result')} after {r.get('duration', 0):.1f} s")
    out = (r.get("stdout") or "") + (r.get("stderr") or "")
    for l in out.splitlines()[-40:]:
        print("    " + l)
