#!/bin/bash
# totals.sh PAGESIM INTERVAL TRACE...: on each trace, stat's and replay's timelines (follow
# and simulate, CSV and JSON lines) against the totals the same runs print, and follow and
# simulate mode's last rows against the model's final buddyinfo and pagetypeinfo
# (check-totals.py says what is checked).
set -eu
P=$1 I=$2
shift 2
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in "$@"; do
	n=$(basename "$t" .pgs)
	"$P" stat -q --timeline "$tmp/$n.stat.csv" --interval "$I" "$t" > "$tmp/$n.stat"
	python3 "$here/check-totals.py" "$tmp/$n.stat.csv" "$tmp/$n.stat" > "$tmp/out" || { cat "$tmp/out"; echo "FAIL: stat $t"; exit 1; }
	for mode in follow simulate; do
		"$P" replay -q --mode "$mode" --state-dir "$tmp/$n.$mode.state" --timeline "$tmp/$n.$mode.csv" \
			--interval "$I" "$t" > "$tmp/$n.$mode"
		"$P" replay -q --mode "$mode" --timeline "$tmp/$n.$mode.jsonl" --timeline-format jsonl \
			--interval "$I" "$t" > /dev/null
		python3 "$here/check-totals.py" "$tmp/$n.$mode.csv" "$tmp/$n.$mode" --stat "$tmp/$n.stat" \
			--state-dir "$tmp/$n.$mode.state" --jsonl "$tmp/$n.$mode.jsonl" > "$tmp/out" ||
			{ cat "$tmp/out"; echo "FAIL: replay --mode $mode $t"; exit 1; }
	done
	echo "$n: $(cat "$tmp/out")"
done
