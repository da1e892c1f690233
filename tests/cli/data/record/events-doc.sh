#!/bin/bash
# events-doc.sh PAGESIM SRC TRACE - record's --events as --help and pagesim-record(1) give it:
# both name the four systems; the page lists exactly the events pagesim reads (the events_*
# rows 'pagesim stat' prints for TRACE, a trace with the reclaim events); --events takes every
# event the page lists, with and without its system, and every system.
set -u
PAGESIM=$1 SRC=$2 TRACE=$3
page=$SRC/docs/man/pagesim-record.1.scd
fail() { echo "FAIL: $*"; exit 1; }
help=$("$PAGESIM" record --help)
for s in kmem filemap pagemap vmscan; do
	grep -q "systems (kmem, filemap, pagemap, vmscan" <<< "$help" || fail "--help does not name the systems"
	grep -q "^	- \*$s\*: " "$page" || fail "pagesim-record(1) lists no events of $s"
done
# the page's lists, with scdoc's escapes undone; writepage is the old name of write_folio
listed=$(sed -n '/^\*-e\*, \*--events\*/,/^\*-q\*/p' "$page" | sed 's/\\_/_/g' |
	grep -o 'mm_[a-z_]*' | grep -v '^mm_vmscan_writepage$' | sort -u)
read=$("$PAGESIM" stat -q "$TRACE" | sed -n 's/^events_\(mm_[a-z_]*\) .*/\1/p' | sort -u)
[ "$(wc -l <<< "$read")" = 21 ] || fail "stat printed $(wc -l <<< "$read") events rows for $TRACE, not 21"
[ "$listed" = "$read" ] || { diff <(echo "$listed") <(echo "$read"); fail "pagesim-record(1) and the events pagesim reads differ"; }
# accepted: --events is parsed before anything is checked; the bad --duration after it then fails
accepts() {
	"$PAGESIM" record -o /nonexistent/x.pgs --events "$1" --duration 0 > /dev/null 2> "$TMPDIR_/err"
	grep -q -- "--duration must be" "$TMPDIR_/err"
}
TMPDIR_=$(mktemp -d)
trap 'rm -rf "$TMPDIR_"' EXIT
n=0
for e in $listed mm_vmscan_writepage; do
	accepts "$e" || fail "--events $e refused"
	n=$((n + 1))
done
for pair in kmem:mm_page_alloc filemap:mm_filemap_add_to_page_cache pagemap:mm_lru_activate vmscan:mm_vmscan_write_folio vmscan:mm_vmscan_writepage kmem filemap pagemap vmscan; do
	accepts "$pair" || fail "--events $pair refused"
done
for bad in kmem:mm_lru_activate mm_page_allocx vmscan:mm_page_free slab; do
	accepts "$bad" && fail "--events $bad accepted"
done
echo "--help and pagesim-record(1) agree: 4 systems, $n event names, all accepted"
