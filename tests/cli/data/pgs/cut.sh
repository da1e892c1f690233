#!/bin/bash
# cut.sh TMP TRACE - a pagesim file cut at every frame boundary and inside
# every frame reads up to its last whole frame: 'stat' fails (exit 1) and
# says it was cut, 'stat --allow-truncated' counts exactly the events of the
# whole frames before the cut.  TRACE is a pagesim file or a trace to convert.
set -u
TMP=$1 SRC=$2
HERE=$(dirname "$0")
case $SRC in
*.pgs) cp "$SRC" "$TMP/full.pgs" || exit 1 ;;
*) "$PAGESIM" convert -q -o "$TMP/full.pgs" "$SRC" || exit 1 ;;
esac
python3 "$HERE/sections.py" "$TMP/full.pgs" > "$TMP/sections" || exit 1
frames=$(grep -c '^EVTS' "$TMP/sections")
[ "$frames" -ge 2 ] || { echo "FAIL: only $frames frames in $SRC"; exit 1; }
events_of() { "$PAGESIM" stat -q --allow-truncated "$1" 2>/dev/null | awk '/^events_mm_/ { n += $2 } END { print n + 0 }'; }
total=$(events_of "$TMP/full.pgs")
whole=0 checked=0
while read -r tag off end n; do
	mid=$(( (off + end) / 2 ))
	for cut in "$off" "$mid"; do
		head -c "$cut" "$TMP/full.pgs" > "$TMP/cut.pgs"
		"$PAGESIM" stat -q "$TMP/cut.pgs" > /dev/null 2> "$TMP/err"
		rc=$?
		[ $rc = 1 ] || { echo "FAIL: stat on a file cut at $cut exited $rc, want 1"; exit 1; }
		grep -q 'allow-truncated' "$TMP/err" && grep -qE 'cut short|without its END' "$TMP/err" ||
			{ echo "FAIL: no cut message at $cut:"; cat "$TMP/err"; exit 1; }
		got=$(events_of "$TMP/cut.pgs")
		[ "$got" = "$whole" ] || { echo "FAIL: cut at $cut ($tag section): $got events, want $whole"; exit 1; }
		checked=$((checked + 1))
	done
	[ "$tag" = EVTS ] && whole=$((whole + n))
done < "$TMP/sections"
[ "$whole" = "$total" ] || { echo "FAIL: frames hold $whole events, stat counts $total"; exit 1; }
echo "cut at $checked places across $frames frames: all read up to the last whole frame"
