#!/bin/bash
# pass1-summary.sh TMP SRC - a pagesim file's pass-1 summary: replay reads the
# file once and prints what it prints when it reads the trace twice.  The
# pairs: a trace.dat against its conversion; pagesim files without a summary
# against the same converted again (page-cache and reclaim events, fallbacks).
set -u
T=$1 S=$2 P=$PAGESIM
fail() { echo "FAIL: $*"; exit 1; }

$P convert -q -o "$T/uma.pgs" --sysroot "$S/testdata/uma-small/before" "$S/testdata/uma-small/trace.dat" ||
	fail "convert of a trace.dat"
$P convert -q -o "$T/zrm1.pgs" "$S/testdata/reclaim/k61_zrm1_r3.pgs" || fail "convert of a pagesim file"
$P convert -q -o "$T/frag.pgs" "$S/testdata/numa2/numa2-frag.pgs" || fail "convert of a pagesim file"

# same ORIG NEW ARGS...: stdout and exit status of both alike, and NEW read once
same() {
	local o=$1 n=$2
	shift 2
	$P replay "$@" "$o" > "$T/a" 2> "$T/ae"; local ra=$?
	$P replay -v "$@" "$n" > "$T/b" 2> "$T/be"; local rb=$?
	[ $ra = 0 ] && [ $rb = 0 ] || fail "replay $* exits $ra on $o, $rb on $n"
	sed -i "s#$o#TRACE#" "$T/a"
	sed -i "s#$n#TRACE#" "$T/b"
	cmp -s "$T/a" "$T/b" || { diff "$T/a" "$T/b" | head; fail "replay $* differs on $n"; }
	grep -q "pass 1 from .*summary: the trace is read once" "$T/be" || fail "replay $* read $n twice"
	grep -q "summary" "$T/ae" && fail "replay $* names a summary on $o"
	runs=$((runs + 1))
}
runs=0
uma=$S/testdata/uma-small/trace.dat
same "$uma" "$T/uma.pgs" --sysroot "$S/testdata/uma-small/before" --mode follow
same "$uma" "$T/uma.pgs" --sysroot "$S/testdata/uma-small/before" --mode simulate --format json
same "$S/testdata/reclaim/k61_zrm1_r3.pgs" "$T/zrm1.pgs" --mode follow
same "$S/testdata/reclaim/k61_zrm1_r3.pgs" "$T/zrm1.pgs" --mode simulate
same "$S/testdata/reclaim/k61_zrm1_r3.pgs" "$T/zrm1.pgs" --mode simulate --set vm.zone_reclaim_mode=0
same "$S/testdata/reclaim/k61_zrm1_r3.pgs" "$T/zrm1.pgs" --mode simulate --ensemble 2
same "$S/testdata/numa2/numa2-frag.pgs" "$T/frag.pgs" --mode follow --policy 6.10
same "$S/testdata/numa2/numa2-frag.pgs" "$T/frag.pgs" --mode simulate --policy 4.4
same "$S/testdata/numa2/numa2-frag.pgs" "$T/frag.pgs" --mode simulate --untraced-use

# the converted file keeps what stat reads, the check against the kernel's counters included
$P stat --check "$S/testdata/reclaim/k61_zrm1_r3.pgs" > "$T/a" 2>&1
$P stat --check "$T/zrm1.pgs" > "$T/b" 2>&1
cmp -s "$T/a" "$T/b" || { diff "$T/a" "$T/b" | head; fail "stat --check differs on the converted file"; }

# --machine: the model's zones are another machine's, the traced ones the file's: read once
same "$S/testdata/numa2/numa2-frag.pgs" "$T/frag.pgs" --mode simulate --machine numa4

# a sysroot of other zones than the summary's: the trace is read twice, with the same result
o4=$S/testdata/numa4/numa4-base/before
$P replay --mode simulate --sysroot "$o4" "$S/testdata/numa2/numa2-frag.pgs" > "$T/a" 2>/dev/null
$P replay -v --mode simulate --sysroot "$o4" "$T/frag.pgs" > "$T/b" 2> "$T/be"
sed -i "s#$S/testdata/numa2/numa2-frag.pgs#TRACE#" "$T/a"
sed -i "s#$T/frag.pgs#TRACE#" "$T/b"
cmp -s "$T/a" "$T/b" || fail "--sysroot of other zones differs"
grep -q "read once" "$T/be" && fail "--sysroot of other zones took the summary"
echo "ok: $runs replays alike"
