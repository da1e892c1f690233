#!/bin/sh
# fuzz/run.sh - runs each libFuzzer target for a bounded time, seeded from
# fuzz/corpus/TARGET (read only: new inputs go to a scratch corpus).
#
#   fuzz/run.sh [-t SECONDS | -n RUNS] [-p PROCS] [-l BYTES] [-u] [-k] [-m] [TARGET...]
#                                        default: 45 s each, every target
#
#   -t SECONDS  time per target (CI: 45; a longer run: -t 1200)
#   -n RUNS     executions per target instead of a time (the 10-million run:
#               fuzz/run.sh -u -n 10000000)
#   -p PROCS    PROCS fuzzer processes per target at once, sharing one
#               scratch corpus, each with RUNS/PROCS executions (or the
#               time): the figures are their sums (the 10-million run on
#               this 2-CPU machine: fuzz/run.sh -u -p 2 -n 10000000 replay)
#   -l BYTES    the longest input libFuzzer makes (default 65536)
#   -u          the UBSan-only build (build-fuzz-ubsan), for long runs: no
#               ASan, and no comparison tracing (-fsanitize-coverage's
#               trace-cmp hooks took 70% of fuzz_replay's time; without
#               them it makes 3x the executions per second and reaches as
#               many features in as many executions)
#   -k          keep the scratch corpora (printed) to grow fuzz/corpus by hand
#   -m, --markdown  the per-target lines as a markdown table (docs/performance.md)
#
# Builds build-fuzz (CC=clang, -Dfuzz=true, ASan+UBSan) if needed.  Prints
# one line per target: executions, seconds, exec/s, corpus size.  Exits 1 if
# any target crashed, leaked, timed out or ran out of memory; the input that
# did it is kept in fuzz/crashes/ (reproduce: build-fuzz/fuzz/TARGET FILE).
set -u
cd "$(dirname "$0")/.."
secs=45 runs= procs=1 keep= md= san=address,undefined B=${FUZZ_BUILD:-build-fuzz} maxlen=65536 cargs=
for a in "$@"; do shift; [ "$a" = --markdown ] && a=-m; set -- "$@" "$a"; done
while getopts t:n:p:l:ukm o; do
	case $o in
	t) secs=$OPTARG ;;
	n) runs=$OPTARG secs=0 ;;
	p) procs=$OPTARG ;;
	u) san=undefined B=${FUZZ_BUILD:-build-fuzz-ubsan} cargs=-fno-sanitize-coverage=trace-cmp ;;
	l) maxlen=$OPTARG ;;
	k) keep=1 ;;
	m) md=1 ;;
	*) echo "usage: fuzz/run.sh [-t SECONDS | -n RUNS] [-p PROCS] [-l BYTES] [-u] [-k] [-m] [TARGET...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ ! -d "$B" ]; then
	CC=clang meson setup "$B" -Dfuzz=true -Db_sanitize=$san -Db_lundef=false -Db_lto=false \
		-Dbuildtype=debugoptimized ${cargs:+-Dc_args=$cargs} >/dev/null ||
		{ echo "fuzz/run.sh: meson setup $B failed (is clang installed?)" >&2; exit 1; }
elif [ -n "$cargs" ]; then
	meson configure "$B" -Dc_args="$cargs" >/dev/null	# a build dir made before -u dropped trace-cmp
fi
ninja -C "$B" >/dev/null || { echo "fuzz/run.sh: the build in $B failed (run ninja -C $B)" >&2; exit 1; }
targets=${*:-"reader pgs perf zoneinfo pagetypeinfo buddyinfo cpulist sysroot kvfile policy machine diffin tdat tdat_pages replay lock pass1"}
mkdir -p fuzz/crashes
work=$(mktemp -d)
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
# fuzz_tdat*: libtraceevent keeps strings of the event formats libtracecmd parses (tests/lsan.supp)
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
status=0
[ -n "$md" ] && printf '| target | executions | seconds | exec/s | build | new corpus inputs | crashes |\n|---|---:|---:|---:|---|---:|---:|\n'
for t in $targets; do
	t=${t#fuzz_}
	mkdir -p "$work/$t"
	dict=
	[ -f "fuzz/$t.dict" ] && dict=-dict=fuzz/$t.dict
	# the model's targets have tens of thousands of features: the entropic
	# schedule's bookkeeping of them took 80% of the time
	case $t in replay | lock) dict="$dict -entropic=0" ;; esac
	# shellcheck disable=SC2086
	start=$(date +%s)
	rc=0 pids=
	for i in $(seq "$procs"); do
		# shellcheck disable=SC2086
		nice -n 10 "$B/fuzz/fuzz_$t" -max_total_time="$secs" ${runs:+-runs=$((runs / procs))} -timeout=10 \
			-rss_limit_mb=2048 -max_len="$maxlen" -print_final_stats=1 -artifact_prefix="fuzz/crashes/$t-" $dict \
			"$work/$t" "fuzz/corpus/$t" > "$work/$t.$i.log" 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || rc=$?
	done
	cat "$work/$t".*.log > "$work/$t.log"
	nexec=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | awk '{ n += $1 } END { print n }')
	time=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$t.log" | awk '{ n += $1 } END { print n }')
	ncorp=$(ls "$work/$t" | wc -l)
	took=$(($(date +%s) - start))
	if [ -n "$md" ]; then
		[ $rc -ne 0 ] && status=1
		printf '| `fuzz_%s` | %s | %s | %s | %s | %s | %s |\n' "$t" "${nexec:-?}" "$took" "${time:-?}" "$san" "$ncorp" \
			"$([ $rc -ne 0 ] && echo "1 (exit $rc)" || echo 0)"
	elif [ $rc -ne 0 ]; then
		status=1
		echo "fuzz_$t: FAILED (exit $rc) after ${nexec:-?} executions; log:"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written|#0 |#1 |#2 |#3 ' "$work/$t.log" | head -20
	else
		echo "fuzz_$t: ${nexec:-?} executions in $took s (${time:-?} exec/s, $san), $ncorp new corpus inputs, no crash"
	fi
done
[ -n "$keep" ] && echo "scratch corpora: $work"
exit $status
