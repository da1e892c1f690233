#!/bin/bash
# run.sh TMP SRC - the same input and options give byte-identical output:
# stat, replay --mode follow and replay --mode simulate (vmstat and json,
# --state-dir files too), each run twice on testdata/uma-small, from its
# trace.dat and from a pagesim file, compared with cmp.
set -u
TMP=$1 SRC=$2
D=$SRC/testdata/uma-small
"$PAGESIM" convert -q -o "$TMP/t.pgs" "$D/trace.dat" || exit 1
n=0
for trace in "$D/trace.dat" "$TMP/t.pgs"; do
	for cmd in "stat" "stat --format json" "replay --mode follow" "replay --mode simulate" \
		   "replay --mode simulate --format json --policy 5.10"; do
		for run in 1 2; do
			extra=
			case $cmd in replay*) extra="--state-dir $TMP/state$run" ;; esac
			# shellcheck disable=SC2086
			"$PAGESIM" $cmd $extra -q -o "$TMP/out$run" --sysroot "$D/before" "$trace" || { echo "FAIL: $cmd $trace exited $?"; exit 1; }
		done
		[ -s "$TMP/out1" ] || { echo "FAIL: $cmd $trace: empty output"; exit 1; }
		cmp "$TMP/out1" "$TMP/out2" || { echo "FAIL: $cmd $trace: two runs differ"; exit 1; }
		case $cmd in replay*)
			for f in buddyinfo pagetypeinfo unusable_index extfrag_index; do
				cmp "$TMP/state1/$f" "$TMP/state2/$f" || { echo "FAIL: $cmd $trace: $f differs"; exit 1; }
			done ;;
		esac
		n=$((n + 1))
	done
done
echo "$n commands run twice: byte-identical output"
