#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# same-outputs.sh OLD NEW [TRACE...] - whether two pagesim binaries print the
# same thing: replay --mode follow, --mode simulate, lockstat, follow with
# --fold-invisible and simulate with vm.zone_reclaim_mode=1 on each TRACE
# (default: every bundled pagesim file, and the trace.dat files of
# ../shared/traces when they are there), standard output and error together,
# one decode thread.  Prints each command whose outputs differ and a count;
# exits 1 if any differ.  Not part of the test suite: the check behind a
# change meant to make pagesim faster and change nothing else.
#
#   bench/same-outputs.sh old/build/pagesim build/pagesim
set -eu
[ $# -ge 2 ] || { sed -n '3,12s/^# \{0,1\}//p' "$0" >&2; exit 2; }
for f in "$1" "$2"; do
	[ -x "$f" ] || { echo "same-outputs.sh: '$f' is not an executable" >&2; exit 1; }
done
OLD=$(realpath "$1") NEW=$(realpath "$2")
shift 2
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
	traces=("$@")
else
	mapfile -t traces < <(find testdata -name '*.pgs' | sort; ls ../shared/traces/*/trace.dat 2> /dev/null || true)
fi
commands=("replay -q --mode follow" "replay -q --mode simulate" "lockstat -q"
	"replay -q --mode follow --fold-invisible" "replay -q --mode simulate --set vm.zone_reclaim_mode=1")
n=0 bad=0
for f in "${traces[@]}"; do
	[ -e "$f" ] || { echo "same-outputs.sh: no file '$f'" >&2; exit 1; }
	for c in "${commands[@]}"; do
		# shellcheck disable=SC2086 # each command is its words
		a=$(PAGESIM_DECODE_THREADS=1 "$OLD" $c -o - "$f" 2>&1 | md5sum)
		# shellcheck disable=SC2086
		b=$(PAGESIM_DECODE_THREADS=1 "$NEW" $c -o - "$f" 2>&1 | md5sum)
		n=$((n + 1))
		[ "$a" = "$b" ] || { bad=$((bad + 1)); echo "differ: pagesim $c $f"; }
	done
done
echo "$n commands on ${#traces[@]} traces, $bad differ"
[ "$bad" = 0 ]
