#!/bin/sh
# setup.sh - install what is missing, build pagesim, and run it on bundled real data:
# a trace of this kind of machine (testdata/uma-small), counted against the kernel's own
# counters, then replayed through the model in follow and simulate modes.
set -e
cd "$(dirname "$0")"
scripts/install-deps.sh
[ -d build ] || meson setup build --buildtype=release >/dev/null
ninja -C build >/dev/null
t=testdata/uma-small/trace.dat
echo "== pagesim stat --check $t   (trace counters against the kernel's own deltas)"
build/pagesim stat -q --check "$t"
echo "== pagesim replay --mode follow $t   (fidelity of the model)"
build/pagesim replay -q --mode follow "$t" | grep -E '^(replay_defects|replay_invisible_alloc_pages|model_pcp_refills|trace_pcp_refill_sections) '
echo "== pagesim replay --mode simulate $t   (the model chooses every page)"
build/pagesim replay -q --mode simulate "$t" | grep -E '^(numa_hit|pgalloc_normal|pgalloc_dma32|extfrag_events|model_pcp_refills|model_zone_lock_acquisitions) '
