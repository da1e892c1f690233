#!/bin/bash
# pgs-bench.sh [--markdown] [TRACE...] - pagesim files against trace.dat: bytes per event
# on disk, the time of 'pagesim stat' (whole command, hyperfine when installed, else the
# best of 5 runs), and the decode rate of the reader loop alone (pgs_read_speed.c).
# TRACE is a trace.dat (or a run directory holding one), converted to a pagesim file
# for the comparison, or a pagesim file, measured alone; default: every trace.dat and
# pagesim file of a recorded run in testdata/.  --markdown prints the table in markdown
# (docs/performance.md).  Run from anywhere after 'ninja -C build'.
set -eu
cd "$(dirname "$0")/.."
P=build/pagesim
[ -x "$P" ] || { echo "build first: ninja -C build" >&2; exit 1; }
md=
[ "${1:-}" = --markdown ] && { md=1; shift; }
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(testdata/*/trace.dat testdata/slices/*/trace.dat testdata/numa2/*.pgs \
	testdata/numa4/*.pgs testdata/uma/*.pgs)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O2 -o "$T/speed" -I. bench/pgs_read_speed.c build/libpagesim.a \
	$(pkg-config --cflags --libs libzstd zlib liblzma libtraceevent libtracecmd libtracefs) -lm

# seconds of the fastest of 5 runs of "$@"
best_of_5() {
	local best=999 s e d
	for _ in 1 2 3 4 5; do
		s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N)
		d=$(( (e - s) / 1000 ))
		[ "$d" -lt "$best" ] 2>/dev/null || [ "$best" = 999 ] && best=$d
	done
	printf '%d.%06d' $((best / 1000000)) $((best % 1000000))
}
stat_time() {
	if command -v hyperfine > /dev/null; then
		hyperfine -N -w 2 -r 10 --export-json "$T/h.json" "$P stat -q $1" > /dev/null 2>&1
		python3 -c 'import json,sys; print("%.6f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$T/h.json"
	else
		best_of_5 "$P" stat -q "$1"
	fi
}

# bytes of a pagesim file's event frames (section headers included)
frame_bytes() {
	python3 tests/cli/data/pgs/sections.py "$1" | awk '$1 == "EVTS" { n += $3 - $2 } END { print n + 0 }'
}

if [ -n "$md" ]; then
	echo "| trace | events | trace.dat B/event | pagesim B/event (file / frames) | \`stat\` trace.dat | \`stat\` pagesim | reader + counters: trace.dat | pagesim |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
else
	printf '%-14s %9s | %8s %8s %8s | %9s %9s %6s | %10s %10s\n' trace events dat_B/ev pgs_B/ev pgs_ev_B \
		dat_stat pgs_stat speedup dat_Mev/s pgs_Mev/s
fi
for f in "${inputs[@]}"; do
	f=${f%/}
	[ -d "$f" ] && f=$f/trace.dat
	[ -e "$f" ] || { echo "pgs-bench: no $f" >&2; exit 1; }
	case $f in
	*.pgs) n=$(basename "$f" .pgs) pgs=$f dat= ;;
	*) n=$(basename "$(dirname "$f")") pgs=$T/x.pgs dat=$f
	   "$P" convert -q -o "$pgs" "$dat" 2> /dev/null ;;
	esac
	case $f in */slices/*) n="$n (slice)" ;; esac
	read -r rate_pgs events < <("$T/speed" "$pgs" 1)
	pgs_size=$(stat -c %s "$pgs")
	ev_bytes=$(frame_bytes "$pgs")
	t_pgs=$(stat_time "$pgs")
	dat_size= rate_dat= t_dat=
	if [ -n "$dat" ]; then
		read -r rate_dat _ < <("$T/speed" "$dat" 1)
		dat_size=$(stat -c %s "$dat")
		t_dat=$(stat_time "$dat")
	fi
	awk -v n="$n" -v ev="$events" -v ds="$dat_size" -v ps="$pgs_size" -v eb="$ev_bytes" -v td="$t_dat" -v tp="$t_pgs" \
		-v rd="$rate_dat" -v rp="$rate_pgs" -v md="$md" 'BEGIN {
		if (md) {
			printf "| %s | %d | %s | %.2f / %.2f | %s | %.3f s | %s | %.1f M/s |\n", n, ev,
				ds == "" ? "-" : sprintf("%.2f", ds / ev), ps / ev, eb / ev,
				td == "" ? "-" : sprintf("%.3f s", td), tp,
				rd == "" ? "-" : sprintf("%.1f M/s", rd / 1e6), rp / 1e6
		} else if (ds == "") {
			printf "%-14s %9d | %8s %8.2f %8.2f | %9s %8.3fs %6s | %10s %10.1f\n",
				n, ev, "-", ps / ev, eb / ev, "-", tp, "-", "-", rp / 1e6
		} else {
			printf "%-14s %9d | %8.2f %8.2f %8.2f | %8.3fs %8.3fs %5.1fx | %10.1f %10.1f\n",
				n, ev, ds / ev, ps / ev, eb / ev, td, tp, td / tp, rd / 1e6, rp / 1e6
		}
	}'
done
[ -n "$md" ] && exit 0
echo
echo "dat_B/ev: trace.dat bytes per event; pgs_B/ev: whole pagesim file (snapshots included);"
echo "pgs_ev_B: its event frames only; *_stat: 'pagesim stat -q' wall time (whole command);"
echo "Mev/s: million events per second through reader + counters, start-up excluded"
