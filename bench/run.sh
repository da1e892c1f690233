#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - pagesim against trace-cmd, side by side in one run: whole-process
# wall time, events per second and peak memory (/usr/bin/time "Maximum
# resident set size") of
#   trace-cmd report TDAT                  pagesim stat TDAT
#   the same on bench/out/tdat-large/trace.dat when bench/record-tdat.sh made it
#     (TDAT_ONLY=1: only these, on every bundled trace.dat and bench/out/tdat-*/trace.dat)
#   perf script perf.data                  pagesim stat perf.data
#   on bench/out/perf-large/perf.data when bench/record-perf.sh made it (and perf is installed)
#   pagesim stat on the same events as trace-cmd report text (zstd), when TDAT has one beside it
#   pagesim stat on SRC as a pagesim file
#   pagesim stat on large traces built from SRC (ftrace text and pagesim file)
#   pagesim replay --mode follow / --mode simulate, 1 M and 100 M events (bytes per page),
#     simulate on the trace's own machine (follow's like for like), and follow and simulate
#     at 100 M in alternation (their ratio)
# Not part of the test suite.  Generated traces go to bench/out/ (ignored by
# git) and are reused while the source trace and bench/pgs_concat.c are
# unchanged.  Each command runs REPEAT times; the table gives the best wall
# time, the spread (worst - best), the least CPU time (user + system, all
# threads: on a machine shared with other jobs the fairer figure) and the
# largest peak RSS.  Run with nice on
# a shared machine:
#
#   nice -n 10 bench/run.sh                       # numa2-zrm1, 100 M events
#   SRC=testdata/numa2/numa2-base.pgs EVENTS=20000000 REPEAT=5 bench/run.sh
#   TDAT_ONLY=1 bench/run.sh [TRACE.dat...]       # trace.dat rows only, median of 11
#
# PAGESIM_DECODE_THREADS=1 keeps pagesim's file reader to one thread (the
# one-core figure); by default it decompresses frames on a second thread.
#
# Environment: SRC (the events the large traces are made of: a pagesim file
# with its run directory beside it, default testdata/numa2/numa2-zrm1.pgs, or
# a run directory with trace.dat and before/), TDAT (a trace.dat for the
# trace-cmd rows, default SRC's or testdata/slices/numa2-frag/trace.dat),
# EVENTS (large trace, default 100000000), TEXT_EVENTS (large text
# trace, default 10000000), REPEAT (default 3), MACHINE (a machine file for
# replay --mode simulate --machine; default configs/machines/ivb-ep-2s-64g.machine
# when pagesim can load it, else the trace's own sysroot), CPU_MAP.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
SRC=${SRC:-testdata/numa2/numa2-zrm1.pgs}
SRC=${SRC%/}
case $SRC in
*.pgs) SRC_TRACE=$SRC SYSROOT=${SRC%.pgs}/before ;;
*) SRC_TRACE=$SRC/trace.dat SYSROOT=$SRC/before ;;
esac
[ -e "$SRC_TRACE" ] || { echo "no trace $SRC_TRACE (SRC: a pagesim file or a run directory)" >&2; exit 1; }
[ -d "$SYSROOT" ] || { echo "no sysroot $SYSROOT beside $SRC_TRACE" >&2; exit 1; }
if [ -z "${TDAT:-}" ]; then
	TDAT=testdata/slices/numa2-frag/trace.dat
	[ -e "$SRC/trace.dat" ] && TDAT=$SRC/trace.dat
fi
TTXT=$(dirname "$TDAT")/trace.txt.zst
EVENTS=${EVENTS:-100000000}
TEXT_EVENTS=${TEXT_EVENTS:-10000000}
REPEAT=${REPEAT:-3}
MACHINE=${MACHINE:-configs/machines/ivb-ep-2s-64g.machine}
CPU_MAP=${CPU_MAP:-}
OUT=bench/out
B=$OUT/build
P=$B/pagesim
mkdir -p "$OUT"

if [ ! -x /usr/bin/time ]; then
	echo "installing GNU time (peak memory)" >&2
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y -qq time > /dev/null
	else
		sudo apt-get install -y -qq time > /dev/null
	fi
fi
command -v trace-cmd > /dev/null || { echo "trace-cmd is needed (apt-get install trace-cmd)" >&2; exit 1; }

# pagesim, built apart from the developers' build/ (the default buildtype)
[ -d "$B" ] || meson setup "$B" > /dev/null
ninja -C "$B" pagesim > /dev/null

# TDAT_ONLY=1: pagesim stat against trace-cmd report on every bundled trace.dat, on
# bench/out/tdat-*/trace.dat (bench/record-tdat.sh) and on each trace.dat given as an
# argument, REPEAT_TDAT runs each (default 11: trace-cmd report's time on a small file
# varies by a fifth from run to run): the
# median wall time, the least CPU time, and the ratio of the medians
if [ "${TDAT_ONLY:-0}" != 0 ]; then
	REPEAT=${REPEAT_TDAT:-11}
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	# runs CMD... REPEAT times: "median-wall-s least-cpu-s".  Bash's own clock and its
	# time keyword (real, user and system time of the command, to the millisecond):
	# a /usr/bin/time or date(1) around the command would be timed too, a few ms of
	# exec that weigh on pagesim's small figure and not on trace-cmd's
	median_of() {
		local TIMEFORMAT='%R %U %S'
		for _ in $(seq "$REPEAT"); do
			{ time "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; } 2> "$TMP/t"
			tail -1 "$TMP/t" | awk '{ printf "%d %s %s\n", $1 * 1e6, $2, $3 }'
		done | sort -n | awk '{ w[NR] = $1 / 1e6; c = $2 + $3; if (NR == 1 || c < mc) mc = c }
			END { m = NR % 2 ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2; printf "%.3f %.3f\n", m, mc }'
	}
	{
		echo "pagesim stat against trace-cmd report, $REPEAT runs each; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
		echo
		echo "| trace.dat | events | systems | trace-cmd report s | CPU s | pagesim stat s | CPU s | wall ratio |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|"
		for f in $(find testdata -name trace.dat | sort) $(ls bench/out/tdat-*/trace.dat 2> /dev/null) "$@"; do
			n=$("$P" stat -q "$f" 2> /dev/null | awk '/^events_mm_page/ { n += $2 } END { print n }')
			sys=$(trace-cmd dump --summary -i "$f" 2> /dev/null | sed -n 's/.*\[Events format, \([0-9]*\) systems\].*/\1/p')
			read -r tw tc < <(median_of trace-cmd report -i "$f")
			read -r pw pc < <(median_of "$P" stat -q "$f")
			awk -v f="$f" -v n="$n" -v s="${sys:-?}" -v tw="$tw" -v tc="$tc" -v pw="$pw" -v pc="$pc" 'BEGIN {
				printf "| %s | %d | %s | %.3f | %.3f | %.3f | %.3f | %.1fx |\n", f, n, s, tw, tc, pw, pc, (pw > 0 ? tw / pw : 0) }'
		done
	} | tee "$OUT/tdat-results.md"
	echo "(written to $OUT/tdat-results.md)"
	exit 0
fi
cc -O2 -o "$OUT/pgs_concat" -I. bench/pgs_concat.c "$B/libpagesim.a" \
	$(pkg-config --cflags --libs libzstd zlib liblzma libtraceevent libtracecmd libtracefs json-c) -lm -lpthread

# make TARGET CMD...: runs CMD to build TARGET unless TARGET is newer than its inputs
make_file() {
	local target=$1
	shift
	if [ -s "$target" ] && [ "$target" -nt bench/pgs_concat.c ] && [ "$target" -nt "$SRC_TRACE" ]; then
		return
	fi
	echo "building $target" >&2
	"$@" || { rm -f "$target"; exit 1; }
}
concat() {	# concat OUT EVENTS [TEXT]
	if [ $# -gt 2 ]; then
		"$OUT/pgs_concat" -c -e "$2" -s "$SYSROOT" -t - -o "$1" "$SRC_TRACE" | zstd -q -1 -T0 -f -o "$3"
	else
		"$OUT/pgs_concat" -c -e "$2" -s "$SYSROOT" -o "$1" "$SRC_TRACE"
	fi
}
name=$(basename "$SRC" .pgs)
real_pgs=$OUT/$name.pgs
case $SRC_TRACE in
*.pgs) real_pgs=$SRC_TRACE ;;
*) make_file "$real_pgs" "$P" convert -q -o "$real_pgs" "$SRC_TRACE" ;;
esac
make_file "$OUT/$name-1m.pgs" concat "$OUT/$name-1m.pgs" 1000000
make_file "$OUT/$name-text-$TEXT_EVENTS.txt.zst" concat "$OUT/$name-text-$TEXT_EVENTS.pgs" "$TEXT_EVENTS" "$OUT/$name-text-$TEXT_EVENTS.txt.zst"
make_file "$OUT/$name-$EVENTS.pgs" concat "$OUT/$name-$EVENTS.pgs" "$EVENTS"

# events in a trace: the sum of stat's events_* rows
events_of() {
	"$P" stat -q "$@" 2> /dev/null | awk '/^events_mm_page/ { n += $2 } END { print n }'
}

# replay machine: the 64 GiB machine file when this pagesim loads it
sim_args=()
if [ -e "$MACHINE" ] && "$P" replay -q --mode simulate --machine "$MACHINE" ${CPU_MAP:+--cpu-map "$CPU_MAP"} \
	"$OUT/$name-1m.pgs" > /dev/null 2>&1; then
	sim_args=(--machine "$MACHINE" ${CPU_MAP:+--cpu-map "$CPU_MAP"})
	sim_machine="$MACHINE"
else
	sim_machine="$SYSROOT (the trace's own machine; $MACHINE not loadable)"
fi

RES=$OUT/results.md
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
rows=()

# measure LABEL EVENTS CMD...: REPEAT runs timed by bash's time keyword (real, user and
# system time to the millisecond: a date(1) or /usr/bin/time around the command would be
# timed too, a few ms of exec that weigh on a small file's figure), best wall, spread and
# least CPU; then one run under /usr/bin/time for the peak RSS
measure() {
	local label=$1 events=$2 best= worst= rss=0 cpu= t c TIMEFORMAT='%R %U %S'
	shift 2
	for _ in $(seq "$REPEAT"); do
		{ time "$@" > /dev/null 2> "$TMP/err" || { echo "failed: $*" >&2; cat "$TMP/err" >&2; exit 1; }; } 2> "$TMP/t"
		read -r t c < <(tail -1 "$TMP/t" | awk '{ printf "%d %d\n", $1 * 1e6, ($2 + $3) * 1000 }')
		[ -z "$cpu" ] || [ "$c" -lt "$cpu" ] && cpu=$c
		[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
		[ -z "$worst" ] || [ "$t" -gt "$worst" ] && worst=$t
	done
	/usr/bin/time -f '%M' -o "$TMP/rss" "$@" > /dev/null 2> "$TMP/err" ||
		{ echo "failed: $*" >&2; cat "$TMP/err" >&2; exit 1; }
	rss=$(tail -1 "$TMP/rss")
	extra=$(sed -n 's/.*model state: \([0-9.]*\) bytes per simulated page.*/\1/p' "$TMP/err" | tail -1)
	row=$(awk -v l="$label" -v n="$events" -v b="$best" -v w="$worst" -v m="$rss" -v x="$extra" -v c="$cpu" 'BEGIN {
		printf "| %s | %d | %.3f | %.3f | %.2f | %.2f | %.1f | %.0f | %s |", l, n, b / 1e6, (w - b) / 1e6,
			n / (b / 1e6) / 1e6, c / 1e3, c ? n / (c / 1e3) / 1e6 : 0, m / 1024, x == "" ? "" : x }')
	rows+=("$row")
	echo "$row" >&2
	last_best=$best
	last_cpu=$cpu
}

n_real=$(events_of "$real_pgs")
n_small=$(events_of "$TDAT")
n_text=$(events_of "$OUT/$name-text-$TEXT_EVENTS.pgs")
n_1m=$(events_of "$OUT/$name-1m.pgs")
n_big=$(events_of "$OUT/$name-$EVENTS.pgs")

# follow-mode defects of the large trace (the copies must pair up)
defects=$("$P" replay -q --mode follow "$OUT/$name-$EVENTS.pgs" 2> /dev/null | awk '$1 == "replay_defects" { print $2 }')

echo "pagesim $("$P" --version 2>/dev/null | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
measure "trace-cmd report trace.dat" "$n_small" trace-cmd report -i "$TDAT"
t_tc=$last_best c_tc=$last_cpu
measure "pagesim stat trace.dat" "$n_small" "$P" stat -q "$TDAT"
t_dat=$last_best c_dat=$last_cpu
# a large real trace.dat of this machine (bench/record-tdat.sh, needs root), when there is one
TDAT_LARGE=$OUT/tdat-large/trace.dat
if [ -e "$TDAT_LARGE" ]; then
	n_large=$(events_of "$TDAT_LARGE")
	measure "trace-cmd report trace.dat, large (record-tdat.sh)" "$n_large" trace-cmd report -i "$TDAT_LARGE"
	t_tcl=$last_best c_tcl=$last_cpu
	measure "pagesim stat trace.dat, large (record-tdat.sh)" "$n_large" "$P" stat -q "$TDAT_LARGE"
	t_datl=$last_best c_datl=$last_cpu
fi
# a large real perf.data of this machine (bench/record-perf.sh, needs root and perf), when there is one
PDATA=$OUT/perf-large/perf.data
if [ -e "$PDATA" ] && command -v perf > /dev/null; then
	n_perf=$(events_of "$PDATA")
	measure "perf script perf.data, large (record-perf.sh)" "$n_perf" perf script -i "$PDATA"
	t_ps=$last_best c_ps=$last_cpu
	measure "pagesim stat perf.data, large (record-perf.sh)" "$n_perf" "$P" stat -q "$PDATA"
	t_pd=$last_best c_pd=$last_cpu
fi
[ -e "$TTXT" ] && measure "pagesim stat trace-cmd text (zstd) of the same events" "$n_small" "$P" stat -q "$TTXT"
measure "pagesim stat pagesim file" "$n_real" "$P" stat -q "$real_pgs"
measure "pagesim stat ftrace text (zstd), large" "$n_text" "$P" stat -q --sysroot "$SYSROOT" "$OUT/$name-text-$TEXT_EVENTS.txt.zst"
measure "pagesim stat pagesim file, large" "$n_text" "$P" stat -q "$OUT/$name-text-$TEXT_EVENTS.pgs"
measure "pagesim stat pagesim file, 1 M" "$n_1m" "$P" stat -q "$OUT/$name-1m.pgs"
measure "pagesim stat pagesim file, $((EVENTS / 1000000)) M, one thread" "$n_big" \
	env PAGESIM_DECODE_THREADS=1 "$P" stat -q "$OUT/$name-$EVENTS.pgs"
t_big1=$last_best c_big1=$last_cpu
measure "pagesim stat pagesim file, $((EVENTS / 1000000)) M, decompression thread" "$n_big" "$P" stat -q "$OUT/$name-$EVENTS.pgs"
t_big=$last_best
measure "replay follow, 1 M" "$n_1m" "$P" replay -q --stats --mode follow "$OUT/$name-1m.pgs"
measure "replay follow, $((EVENTS / 1000000)) M, one thread" "$n_big" \
	env PAGESIM_DECODE_THREADS=1 "$P" replay -q --stats --mode follow "$OUT/$name-$EVENTS.pgs"
t_fol1=$last_best c_fol1=$last_cpu
measure "replay simulate, 1 M" "$n_1m" "$P" replay -q --stats --mode simulate "${sim_args[@]}" "$OUT/$name-1m.pgs"
measure "replay simulate, $((EVENTS / 1000000)) M, one thread" "$n_big" \
	env PAGESIM_DECODE_THREADS=1 "$P" replay -q --stats --mode simulate "${sim_args[@]}" "$OUT/$name-$EVENTS.pgs"
t_sim1=$last_best c_sim1=$last_cpu
# like for like with follow: the same trace replayed on its own machine (same zones, same pcp
# batches, so the same number of zone-lock sections for the lock model to serve)
t_simo=
if [ ${#sim_args[@]} -gt 0 ]; then
	measure "replay simulate, $((EVENTS / 1000000)) M, one thread, the trace's own machine" "$n_big" \
		env PAGESIM_DECODE_THREADS=1 "$P" replay -q --stats --mode simulate "$OUT/$name-$EVENTS.pgs"
	t_simo=$last_best c_simo=$last_cpu
fi
# follow against simulate in alternation, REPEAT pairs of runs: this virtual machine's speed
# moves by a third over minutes, more than the two modes differ, and rows measured minutes
# apart can land on either side of such a change
alt_cpu() {	# CMD...: the CPU ms of one run
	local TIMEFORMAT='%U %S'
	{ time "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; } 2> "$TMP/t"
	tail -1 "$TMP/t" | awk '{ printf "%d\n", ($1 + $2) * 1000 }'
}
c_fa= c_sa= f_wins=0
for _ in $(seq "$REPEAT"); do
	cf=$(alt_cpu env PAGESIM_DECODE_THREADS=1 "$P" replay -q --mode follow "$OUT/$name-$EVENTS.pgs")
	cs=$(alt_cpu env PAGESIM_DECODE_THREADS=1 "$P" replay -q --mode simulate "${sim_args[@]}" "$OUT/$name-$EVENTS.pgs")
	[ "$cf" -le "$cs" ] && f_wins=$((f_wins + 1))
	[ -z "$c_fa" ] || [ "$cf" -lt "$c_fa" ] && c_fa=$cf
	[ -z "$c_sa" ] || [ "$cs" -lt "$c_sa" ] && c_sa=$cs
done

{
	echo "trace.dat rows: $TDAT ($n_small events)."
	echo "Source: $SRC ($n_real events); large traces: bench/pgs_concat -c (copies shifted in time, pfns and task names kept,"
	echo "each copy closed); follow-mode defects of the $n_big-event trace: $defects."
	echo "Replay machine: $sim_machine.  $REPEAT runs each; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	echo "| command | events | best wall s | spread s | M events/s (wall) | CPU s | M events/CPU-s | peak RSS MiB | bytes/page |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
	echo
	# time(1) gives CPU time in 10 ms steps: a small trace.dat's can be 0
	awk -v tc="$t_tc" -v d="$t_dat" -v ctc="$c_tc" -v cd="$c_dat" 'BEGIN {
		printf "stat on trace.dat vs trace-cmd report: %.1fx faster in wall time, %s in CPU time (target >= 10x)\n",
			tc / d, (cd > 0 ? sprintf("%.1fx", ctc / cd) : "pagesim below the 10 ms resolution") }'
	[ -z "${t_datl:-}" ] || awk -v tc="$t_tcl" -v d="$t_datl" -v ctc="$c_tcl" -v cd="$c_datl" 'BEGIN {
		printf "... on the large trace.dat of record-tdat.sh: %.1fx in wall time, %.1fx in CPU time\n", tc / d, ctc / cd }'
	[ -z "${t_pd:-}" ] || awk -v ps="$t_ps" -v d="$t_pd" -v cps="$c_ps" -v cd="$c_pd" 'BEGIN {
		printf "stat on the large perf.data of record-perf.sh vs perf script: %.1fx in wall time, %.1fx in CPU time\n",
			ps / d, cps / cd }'
	awk -v n="$n_big" -v b="$t_big1" -v t="$t_big" 'BEGIN {
		printf "stat on the large pagesim file: %.1f M events/s on one core, %.1f with the decompression thread (target >= 50)\n",
			n / (b / 1e6) / 1e6, n / (t / 1e6) / 1e6 }'
	awk -v n="$n_big" -v c="$c_big1" 'BEGIN { printf "... per CPU-second on one core: %.1f M events\n", n / (c / 1e3) / 1e6 }'
	awk -v n="$n_big" -v b="$t_sim1" -v c="$c_sim1" 'BEGIN {
		printf "replay --mode simulate on the large pagesim file, one core: %.1f M events/s, %.1f M per CPU-second (target >= 15)\n",
			n / (b / 1e6) / 1e6, n / (c / 1e3) / 1e6 }'
	awk -v n="$n_big" -v b="$t_fol1" -v c="$c_fol1" -v cs="$c_sim1" 'BEGIN {
		printf "replay --mode follow on the large pagesim file, one core: %.1f M events/s, %.1f M per CPU-second (the rows: %.2fx simulate'"'"'s)\n",
			n / (b / 1e6) / 1e6, n / (c / 1e3) / 1e6, cs / c }'
	awk -v r="$REPEAT" -v cf="$c_fa" -v cs="$c_sa" -v w="$f_wins" 'BEGIN {
		printf "... follow and simulate in %d pairs of runs one after the other: least CPU %.2f against %.2f s, follow %.2fx simulate'"'"'s speed, the faster in %d of %d pairs (target >= 1)\n",
			r, cf / 1e3, cs / 1e3, cs / cf, w, r }'
	[ -z "$t_simo" ] || awk -v n="$n_big" -v b="$t_simo" -v c="$c_simo" -v cf="$c_fol1" 'BEGIN {
		printf "... against simulate on the trace'"'"'s own machine, the same replay decided rather than followed: %.1f M per CPU-second, follow %.2fx its speed\n",
			n / (c / 1e3) / 1e6, c / cf }'
} | tee "$RES"
echo "(written to $RES)"
