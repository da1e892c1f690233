#!/bin/bash
# record-live.sh TMP - pagesim record on this machine (root, writable tracefs):
# a known workload is recorded; the file reads back; 'stat' counts the events
# record reported; the page-cache and LRU events are recorded by default and
# the reclaim events enabled (their formats stored), and --events chooses;
# the file carries a pass-1 summary, so that replay reads it once;
# the kernel's vmstat deltas stored in the file are
# consistent with the trace (the kernel counts at least what was traced, and
# not the ring buffer's pages besides; the reclaim rows equal);
# no pagesim instance and no event of ours is left enabled; SIGINT and
# SIGTERM mid-run and --duration all give readable files.
set -u
TMP=$1
T=/sys/kernel/tracing
fail() { echo "FAIL: $*"; exit 1; }
# a leftover is an instance whose pagesim is gone: other cases of the suite may be recording
no_leftovers() {
	for i in $(ls "$T/instances" | grep '^pagesim-'); do
		kill -0 "${i#pagesim-}" 2> /dev/null || fail "$1: a pagesim instance is left: $i"
	done
	cat $T/events/{kmem,filemap,pagemap,vmscan}/*/enable > "$TMP/enable.now"
	cmp -s "$TMP/enable.before" "$TMP/enable.now" || fail "$1: the top-level events changed"
}
# the blobs of pagesim file $1: their names, one a line; with $2, the (compressed) content of blob $2
blob_walk() {
	python3 - "$@" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = struct.unpack_from('<H', d, 10)[0]
while off + 16 <= len(d):
    size = struct.unpack_from('<Q', d, off + 8)[0]
    if d[off:off + 4] == b'BLOB':
        n = struct.unpack_from('<H', d, off + 16)[0]
        name = d[off + 18:off + 18 + n].decode()
        if len(sys.argv) < 3:
            print(name)
        elif name == sys.argv[2]:
            sys.stdout.buffer.write(d[off + 18 + n + 8:off + 16 + size])
    off += 16 + size
PY
}
blobs() { blob_walk "$1"; }
blob() { blob_walk "$1" "$2" | zstd -dcq; }
row() { awk -v c="$2" '$1 == c { print $2 }' "$1"; }
events_of() { "$PAGESIM" stat -q "$1" | awk '/^events_mm_/ { n += $2 } END { print n + 0 }'; }
cat $T/events/{kmem,filemap,pagemap,vmscan}/*/enable > "$TMP/enable.before"

# 1. a known workload: 20 MiB through the page cache, then freed
"$PAGESIM" record -b 65536 -o "$TMP/r.pgs" -- sh -c "dd if=/dev/zero of=$TMP/x bs=1M count=20 2>/dev/null; rm $TMP/x" 2> "$TMP/err" ||
	{ cat "$TMP/err"; fail "record exited $?"; }
no_leftovers "after a command run"
[ -e "$TMP/r.pgs" ] || fail "no file"
ls "$TMP" | grep -q 'r.pgs.tmp' && fail "temporary file left"
said=$(sed -n 's/.*wrote .*: \([0-9]*\) events,.*/\1/p' "$TMP/err")
got=$(events_of "$TMP/r.pgs")
[ -n "$said" ] && [ "$said" = "$got" ] || fail "record said '$said' events, stat counts $got"
[ "$got" -gt 500 ] || fail "only $got events for 20 MiB of page cache (large folios: fewer, bigger allocations)"
"$PAGESIM" stat "$TMP/r.pgs" > /dev/null 2> "$TMP/err" || { cat "$TMP/err"; fail "stat"; }
grep -q 'warning: no machine layout' "$TMP/err" && fail "the file carries no layout"
"$PAGESIM" stat --format json "$TMP/r.pgs" | grep -q '"format": "pagesim v2"' || fail "format not pagesim v2"
# the page-cache and LRU events by default: 20 MiB written through the page cache
"$PAGESIM" stat -q "$TMP/r.pgs" > "$TMP/stat"
for e in mm_filemap_add_to_page_cache mm_lru_insertion; do
	[ "$(row "$TMP/stat" events_$e)" -gt 0 ] || fail "no $e events in the default recording"
done
# the reclaim events were on (a machine with free memory may not reclaim: their formats say so)
blobs "$TMP/r.pgs" > "$TMP/blobs"
for e in kmem/mm_page_alloc filemap/mm_filemap_delete_from_page_cache pagemap/mm_lru_activate \
	vmscan/mm_vmscan_lru_shrink_inactive vmscan/mm_vmscan_kswapd_wake; do
	grep -qx "format/$e" "$TMP/blobs" || fail "the recording stored no format/$e"
done
for f in before/sys/kernel/mm/lru_gen/enabled before/proc/sys/vm/min_unmapped_ratio \
	before/proc/sys/vm/min_slab_ratio before/sys/devices/system/node/node0/vmstat after/proc/meminfo; do
	[ -e "/${f#*/}" ] || continue	# not on this kernel
	grep -qx "$f" "$TMP/blobs" || fail "the recording's snapshot lacks $f"
done
grep -qx pass1 "$TMP/blobs" || fail "the recording carries no pass-1 summary"
# the ring buffer of each CPU, as recorded with -b 65536
for c in $(ls -d /sys/devices/system/cpu/cpu[0-9]* | sed 's/.*cpu//'); do
	[ -e "$T/per_cpu/cpu$c" ] || continue
	kb=$(blob "$TMP/r.pgs" "before/sys/kernel/tracing/per_cpu/cpu$c/buffer_size_kb")
	# the kernel rounds up to whole sub-buffers, and prints that
	kb=${kb%% *}
	[ -n "$kb" ] && [ "$kb" -ge 65536 ] && [ "$kb" -le 65600 ] ||
		fail "the snapshot's ring buffer of CPU $c is '$kb' KiB, not the 65536 recorded with"
done
"$PAGESIM" replay -v --mode simulate "$TMP/r.pgs" 2>&1 > /dev/null | grep -q "the trace is read once" ||
	fail "replay read the recording twice"
"$PAGESIM" stat --check "$TMP/r.pgs" > "$TMP/check" || fail "stat --check"
# reclaim: with vmscan events (this machine reclaimed), the trace's rows against the kernel's
# deltas, within --check's tolerance; without, no reclaim row is compared
if awk '$1 ~ /^events_mm_vmscan_/ { n += $2 } END { exit !n }' "$TMP/stat"; then
	for c in pgsteal_kswapd pgsteal_direct pageoutrun; do
		grep -q "^$c .* ok$" "$TMP/check" || fail "--check: $c: $(grep "^$c " "$TMP/check")"
	done
else
	grep -q '^pgsteal_' "$TMP/check" && fail "--check compared reclaim rows of a trace without vmscan events"
fi
for c in numa_hit pgalloc_normal pgfree; do
	read -r trace kernel <<< "$(awk -v c=$c '$1 == c { print $2, $3 }' "$TMP/check")"
	[ -n "$trace" ] || fail "--check has no $c row"
	[ "$trace" -le "$kernel" ] || fail "$c: the trace counts $trace, more than the kernel's delta $kernel"
done
read -r trace kernel <<< "$(awk '$1 == "pgalloc_normal" { print $2, $3 }' "$TMP/check")"
[ "$trace" -ge 5120 ] || fail "pgalloc_normal $trace: 20 MiB needs 5120 pages"
# the ring buffer's own pages (64 MiB per CPU here: 16384 per CPU) must fall outside
# the window the kernel's counters are read around: inside it, every --check has the
# kernel that many pages ahead (5,606 against 77,309).  Alone on this machine the
# two agree within 0.3% (docs/fidelity.md), but its kernel's file writes come with
# allocations no event shows, and the tests running beside this one write files
# (-6% to -34% of a few thousand pages seen), so the test asks for less than half the
# ring buffer's pages apart (sizing allocates what the instance's default lacks).
ring=$(( $(getconf _NPROCESSORS_CONF) * 16384 ))
read -r trace kernel <<< "$(awk '$1 == "pgalloc_normal" { print $2, $3 }' "$TMP/check")"
[ $(( (kernel - trace) * 2 )) -lt "$ring" ] ||
	fail "pgalloc_normal: the kernel's delta $kernel exceeds the trace's $trace by half the ring buffer's $ring pages or more"
echo "recorded $got events; stat and --check agree with the kernel"

# --events chooses: a system and an event, nothing else
"$PAGESIM" record -q -e pagemap,kmem:mm_page_alloc -o "$TMP/e.pgs" -- sh -c "dd if=/dev/zero of=$TMP/x bs=1M count=2 2>/dev/null; rm $TMP/x" ||
	fail "record --events"
no_leftovers "after --events"
"$PAGESIM" stat -q "$TMP/e.pgs" > "$TMP/stat"
[ "$(row "$TMP/stat" events_mm_page_alloc)" -gt 0 ] && [ "$(row "$TMP/stat" events_mm_lru_insertion)" -gt 0 ] ||
	fail "--events pagemap,kmem:mm_page_alloc recorded no mm_page_alloc or no mm_lru_insertion"
for e in mm_page_free mm_filemap_add_to_page_cache; do
	[ "$(row "$TMP/stat" events_$e)" = 0 ] || fail "--events pagemap,kmem:mm_page_alloc recorded $e"
done
blobs "$TMP/e.pgs" | grep -q '^format/vmscan/' && fail "--events pagemap,kmem:mm_page_alloc enabled vmscan events"
echo "--events: the events chosen, no other"

# 2. SIGINT mid-run, no command
"$PAGESIM" record -q -o "$TMP/s.pgs" 2> "$TMP/err" &
pid=$!
sleep "${PAGESIM_SLOW:-1}"
dd if=/dev/zero of="$TMP/y" bs=1M count=5 2>/dev/null; rm -f "$TMP/y"
sleep 0.3
kill -INT $pid
wait $pid || { cat "$TMP/err"; fail "record after SIGINT exited $?"; }
no_leftovers "after SIGINT"
[ "$(events_of "$TMP/s.pgs")" -gt 0 ] || fail "no events after SIGINT"
"$PAGESIM" stat -q "$TMP/s.pgs" > /dev/null || fail "the file of an interrupted run is not readable"
echo "SIGINT: readable file, nothing left"

# 3. SIGTERM while a command runs: the command is stopped too
"$PAGESIM" record -q -o "$TMP/t.pgs" -- sh -c "echo \$\$ > $TMP/cmd.pid; dd if=/dev/zero of=$TMP/z bs=1M count=2 2>/dev/null; exec sleep 30" &
pid=$!
# wait until the command runs (record's set-up is slow under ASan and on a busy machine), at most 30 s x PAGESIM_SLOW
for i in $(seq 1 $((60 * ${PAGESIM_SLOW:-1}))); do
	[ -s "$TMP/cmd.pid" ] && break
	sleep 0.5
done
sleep 0.3
kill -TERM $pid
wait $pid || fail "record after SIGTERM exited $?"
rm -f "$TMP/z"
no_leftovers "after SIGTERM"
cmd=$(cat "$TMP/cmd.pid")
[ -n "$cmd" ] || fail "the command did not start"
if kill -0 "$cmd" 2>/dev/null; then kill "$cmd"; fail "the command survived"; fi
"$PAGESIM" stat -q "$TMP/t.pgs" > /dev/null || fail "the file of a terminated run is not readable"
echo "SIGTERM: readable file, command stopped, nothing left"

# 4. --duration: timed from the moment the recording's instance exists, since the set-up
# before it (libtracefs reads /proc/kallsyms with the event formats: 16 s of the 20 under ASan
# here) is not what --duration governs
# (a small buffer: allocating the default 1/64 of memory is not what is timed here)
"$PAGESIM" record -q -d 1 --buffer-kb 4096 -o "$TMP/d.pgs" &
pid=$!
for i in $(seq 1 $((300 * ${PAGESIM_SLOW:-1}))); do
	[ -d "$T/instances/pagesim-$pid" ] && break
	kill -0 $pid 2> /dev/null || break
	sleep 0.1
done
[ -d "$T/instances/pagesim-$pid" ] || fail "--duration: no instance pagesim-$pid seen while recording"
start=$(date +%s%N)
wait $pid || fail "--duration"
# PAGESIM_SLOW: a factor for time limits in slow builds (the sanitizer run sets 4)
[ $(( ($(date +%s%N) - start) / 1000000 )) -le $(( 5000 * ${PAGESIM_SLOW:-1} )) ] || fail "--duration 1 took too long"
no_leftovers "after --duration"
echo "--duration: stops on time"
