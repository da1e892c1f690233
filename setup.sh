#!/bin/sh
# setup.sh - install what is missing, build pagesim, and run it on bundled real data.
set -e
cd "$(dirname "$0")"
scripts/install-deps.sh
[ -d build ] || meson setup build --buildtype=release >/dev/null
ninja -C build >/dev/null
echo "== pagesim stat --check testdata/uma-small/trace.dat (trace counters vs the kernel's own deltas)"
build/pagesim stat --check testdata/uma-small/trace.dat
