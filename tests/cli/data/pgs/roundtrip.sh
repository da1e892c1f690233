#!/bin/bash
# roundtrip.sh TMP DIR... - for each trace in each DIR (ftrace text, trace-cmd
# report text, trace.dat): convert to a pagesim file, then 'pagesim stat' and
# 'pagesim stat --check' on the file must print byte for byte what they print
# on the original with its before/ and after/ directories.
set -u
TMP=$1; shift
compared=0
for d in "$@"; do
	for t in trace.txt.zst report.txt.zst trace.dat; do
		src=$d/$t
		[ -e "$src" ] || continue
		if ! "$PAGESIM" stat -q "$src" > "$TMP/a" 2>/dev/null; then
			echo "not readable, not compared: $src"
			continue
		fi
		"$PAGESIM" convert -q -o "$TMP/x.pgs" "$src" || { echo "FAIL: convert $src"; exit 1; }
		"$PAGESIM" stat -q "$TMP/x.pgs" > "$TMP/b" || { echo "FAIL: stat on the pagesim file of $src"; exit 1; }
		cmp -s "$TMP/a" "$TMP/b" || { echo "FAIL: stat differs for $src"; diff "$TMP/a" "$TMP/b" | head; exit 1; }
		if [ -d "$d/after" ]; then
			"$PAGESIM" stat -q --check "$src" > "$TMP/a" 2>/dev/null
			"$PAGESIM" stat -q --check "$TMP/x.pgs" > "$TMP/b" || { echo "FAIL: stat --check on $src"; exit 1; }
			cmp -s "$TMP/a" "$TMP/b" || { echo "FAIL: stat --check differs for $src"; diff "$TMP/a" "$TMP/b" | head; exit 1; }
		fi
		compared=$((compared + 1))
		echo "same: $(basename "$d")/$t"
	done
done
echo "compared $compared traces"
[ "$compared" -gt 0 ]
