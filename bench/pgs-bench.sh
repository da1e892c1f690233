#!/bin/bash
# pgs-bench.sh [TRACE_DIR...] - pagesim files against trace.dat on the shared
# traces (default /work/shared/traces/*): bytes per event on disk, the time
# of 'pagesim stat' (whole command, hyperfine when installed, else the best of
# 5 runs), and the decode rate of the reader loop alone (pgs_read_speed.c).
# Run from anywhere after 'ninja -C build'; results go to stdout as a table.
set -eu
cd "$(dirname "$0")/.."
P=build/pagesim
[ -x "$P" ] || { echo "build first: ninja -C build" >&2; exit 1; }
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(/work/shared/traces/*/)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O2 -o "$T/speed" -I. bench/pgs_read_speed.c build/libpagesim.a \
	$(pkg-config --cflags --libs libzstd libtraceevent libtracecmd libtracefs) -lm

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

printf '%-14s %9s | %8s %8s %8s | %9s %9s %6s | %10s %10s\n' trace events dat_B/ev pgs_B/ev pgs_ev_B \
	dat_stat pgs_stat speedup dat_Mev/s pgs_Mev/s
for d in "${dirs[@]}"; do
	d=${d%/}
	n=$(basename "$d")
	[ -e "$d/trace.dat" ] || continue
	"$P" convert -q -o "$T/$n.pgs" "$d/trace.dat" 2> /dev/null
	"$P" convert -o "$T/x.pgs" "$d/trace.dat" 2> "$T/conv" > /dev/null
	ev_bytes=$(sed -n 's/.*events: \([0-9.]*\) bytes per event.*/\1/p' "$T/conv")
	read -r rate_pgs events < <("$T/speed" "$T/$n.pgs" 1)
	read -r rate_dat _ < <("$T/speed" "$d/trace.dat" 1)
	dat_size=$(stat -c %s "$d/trace.dat")
	pgs_size=$(stat -c %s "$T/$n.pgs")
	t_dat=$(stat_time "$d/trace.dat")
	t_pgs=$(stat_time "$T/$n.pgs")
	awk -v n="$n" -v ev="$events" -v ds="$dat_size" -v ps="$pgs_size" -v eb="$ev_bytes" -v td="$t_dat" -v tp="$t_pgs" \
		-v rd="$rate_dat" -v rp="$rate_pgs" 'BEGIN {
		printf "%-14s %9d | %8.2f %8.2f %8.2f | %8.3fs %8.3fs %5.1fx | %10.1f %10.1f\n",
			n, ev, ds / ev, ps / ev, eb, td, tp, td / tp, rd / 1e6, rp / 1e6 }'
done
echo
echo "dat_B/ev: trace.dat bytes per event; pgs_B/ev: whole pagesim file (snapshots included);"
echo "pgs_ev_B: its event frames only; *_stat: 'pagesim stat -q' wall time (whole command);"
echo "Mev/s: million events per second through reader + counters, start-up excluded"
