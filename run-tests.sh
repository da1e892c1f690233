#!/bin/sh
# run-tests.sh - the whole test suite: unit and CLI tests (golden files, bad
# input) on a normal build, then under ASan+UBSan and valgrind, and a short
# fuzz run (PAGESIM_QUICK=1: the first part only).  Installs what is missing first.
set -e
cd "$(dirname "$0")"
# the install tests build the Debian package and read the installed man pages
scripts/install-deps.sh install-test deb
# the sweep tests run a single-node Slurm (scripts/slurm-local.sh, as root) and GNU parallel
PAGESIM_EXTRA_PKGS="slurm-wlm munge parallel" scripts/install-deps.sh || echo "run-tests: slurm-wlm, munge or parallel could not be installed: their sweep tests skip" >&2
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
status=0
meson test -C build --print-errorlogs || status=$?
python3 tests/summary.py '' build/meson-logs/testlog.json || true

# Bad input (README "Bad input"): the whole suite again under ASan+UBSan, the
# unit suite under valgrind, and a short run of every fuzz target.
# PAGESIM_QUICK=1 skips these; PAGESIM_FUZZ_SECS sets the time per target.
[ "${PAGESIM_QUICK:-}" = 1 ] && exit $status
PAGESIM_EXTRA_PKGS="clang libclang-rt-14-dev valgrind" scripts/install-deps.sh
echo "== sanitizer build (ASan+UBSan): whole suite"
[ -d build-asan ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Db_lto=false >/dev/null
ninja -C build-asan >/dev/null
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 PAGESIM_SLOW=4 \
	meson test -C build-asan --print-errorlogs --timeout-multiplier 4 -q >/dev/null || status=$?
python3 tests/summary.py 'asan+ubsan: ' build-asan/meson-logs/testlog.json || true
echo "== valgrind: unit suite"
meson test -C build --setup valgrind --suite unit --print-errorlogs -q >/dev/null || status=$?
python3 tests/summary.py 'valgrind: ' build/meson-logs/testlog-valgrind.json || true
echo "== fuzz: ${PAGESIM_FUZZ_SECS:-45} s per target"
fuzz/run.sh -t "${PAGESIM_FUZZ_SECS:-45}" || status=$?
exit $status
