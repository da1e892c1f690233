#!/bin/sh
# run-tests.sh - the whole test suite: unit and CLI tests (golden files, bad
# input), on a normal build.  Installs what is missing first.
set -e
cd "$(dirname "$0")"
scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
status=0
meson test -C build --print-errorlogs || status=$?
python3 - build/meson-logs/testlog.json <<'PY' || true
import json, sys
ok = fail = skip = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    s = r.get("result")
    if s in ("OK", "EXPECTEDFAIL"): ok += 1
    elif s == "SKIP": skip += 1
    else: fail += 1
print(f"{ok} passed, {fail} failed, {skip} skipped")
PY
exit $status
