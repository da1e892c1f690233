#!/bin/bash
# bundle-reclaim-runs.sh RUNS [PAGESIM] - make testdata/reclaim/ from runs recorded with the
# page-cache, LRU and reclaim events.
#
# RUNS is a directory of run directories as the recording harness leaves them:
#   RUNS/<run>/trace.dat    the ring buffers (trace-cmd extract)
#   RUNS/<run>/before/, after/   the guest's own files: vmstat, zoneinfo, buddyinfo, pagetypeinfo,
#                           meminfo, node<N>.{numastat,vmstat,meminfo}, sysctl_vm ("name = value")
#   RUNS/<run>/info/        uname, nodes ("nodeN cpulist=... distance=..."), lru_gen_enabled,
#                           sysctl_applied (the policy, absent for the defaults), harness_env
#                           (hwork=<workload>), format.<event> (the tracefs format files)
#   RUNS/<run>/trace_stats  the ring buffer's per-CPU statistics (a run that lost events is refused)
# PAGESIM is the binary (default: build/pagesim beside this script's parent).  Needs trace-cmd
# and zstd.
#
# Writes (each replaced only once complete):
#   reclaim/<run>.pgs       pagesim convert --level 19 of trace.dat, with before/ and after/ laid
#                           out as sysroots (proc/..., sys/devices/system/node/nodeN/..., the
#                           sysctls under proc/sys/vm, sys/kernel/mm/lru_gen/enabled) and the
#                           format files as format/<system>/<event>; kept when it exists
#                           (its header carries the time it was written; FORCE=1 converts again)
#   reclaim/README.md       what the runs are, and a table of each run's kernel, nodes,
#                           workload, policy and the kernel's own deltas
#   reclaim/slices/<run>/   for the runs of SLICES below: trace.txt.zst, the run's own
#                           `trace-cmd report` lines in a few windows; trace.dat, `trace-cmd split`
#                           of the first window (its report checked to be those very lines);
#                           before/ and after/ sysroots
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNS=${1:?usage: bundle-reclaim-runs.sh RUNS [PAGESIM]}
PAGESIM=${2:-$here/../build/pagesim}
out=$here/reclaim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run, then windows "start-end" in seconds (the text's timestamps; start <= t < end): each a
# stretch of the run with some of the new events, together every type the run has, no window
# cutting a direct or node reclaim in two.  The bounds end in half a microsecond, so that the
# text's rounded timestamps and trace-cmd split's nanoseconds put every event on the same side.
SLICES="k61_zrm1_r3 11.5660005-11.6127925 8.8634005-8.8642005 8.8675005-8.8681005
k612_base_r3 10.8844005-10.8857005 8.8405005-8.8415005 8.8455005-8.8470005 8.8633005-8.8641005 9.2100005-9.2160005"

# put $1 in place as $2 (a file or a directory), replacing what was there
install_as() {
	rm -rf "$2.old"
	[ -e "$2" ] && mv "$2" "$2.old"
	mv "$1" "$2"
	rm -rf "$2.old"
}

# the tracefs system of an event, by its name
system_of() {
	case $1 in
	mm_filemap_*) echo filemap ;;
	mm_lru_*) echo pagemap ;;
	mm_vmscan_*) echo vmscan ;;
	*) echo kmem ;;
	esac
}

# sysroot SRC PHASE DST: the guest's files of PHASE (before, after) of run SRC as a sysroot in DST
sysroot() {
	local src=$1 ph=$2 d=$3 n rest cl dist online=
	mkdir -p "$d/proc/sys/vm" "$d/proc/sys/kernel" "$d/sys/devices/system/node"
	for f in vmstat zoneinfo buddyinfo pagetypeinfo meminfo; do
		[ -f "$src/$ph/$f" ] && cp "$src/$ph/$f" "$d/proc/$f"
	done
	awk '{ print $3 }' "$src/info/uname" > "$d/proc/sys/kernel/osrelease"
	# "name = value" -> proc/sys/vm/name (sysctl prints a table's values with tabs)
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		printf '%s\n' "${line#* = }" | sed 's/[ \t]*$//' > "$d/proc/sys/vm/${line%% = *}"
	done < "$src/$ph/sysctl_vm"
	while read -r n rest; do
		cl=${rest%% distance=*}
		dist=${rest#* distance=}
		mkdir -p "$d/sys/devices/system/node/$n"
		echo "${cl#cpulist=}" > "$d/sys/devices/system/node/$n/cpulist"
		echo "$dist" > "$d/sys/devices/system/node/$n/distance"
		for f in numastat vmstat meminfo; do
			[ -f "$src/$ph/$n.$f" ] && cp "$src/$ph/$n.$f" "$d/sys/devices/system/node/$n/$f"
		done
		online="$online ${n#node}"
	done < "$src/info/nodes"
	online=$(echo $online | tr ' ' '\n' | sort -n | sed -n '1p;$p' | paste -sd- | sed 's/^\([0-9]*\)-\1$/\1/')
	echo "$online" > "$d/sys/devices/system/node/online"
	if [ -f "$src/info/lru_gen_enabled" ]; then
		mkdir -p "$d/sys/kernel/mm/lru_gen"
		cp "$src/info/lru_gen_enabled" "$d/sys/kernel/mm/lru_gen/enabled"
	fi
	# the ring buffers' sizes ("cpuN KB" lines): allocated before the snapshot, they take
	# memory from the CPU's node that the run then lacks
	if [ -f "$src/info/buffer_size_kb_per_cpu" ]; then
		while read -r c kb; do
			mkdir -p "$d/sys/kernel/tracing/per_cpu/$c"
			echo "$kb" > "$d/sys/kernel/tracing/per_cpu/$c/buffer_size_kb"
		done < "$src/info/buffer_size_kb_per_cpu"
	fi
}

# ringbuf RUN: the ring buffer per CPU in MiB, "16 MiB" when all CPUs have the same, else
# "32 MiB on CPUs 0-1, 16 MiB on 2-3" (runs of CPUs of one size)
ringbuf() {
	[ -f "$1/info/buffer_size_kb_per_cpu" ] || { echo "?"; return; }
	sed 's/^cpu//' "$1/info/buffer_size_kb_per_cpu" | sort -n | awk '
		{ c = $1 + 0; m = int(($2 + 512) / 1024)
		  if (n && m == mib[n] && c == last[n] + 1) { last[n] = c } else { n++; mib[n] = m; first[n] = last[n] = c } }
		END {
			if (n == 1) { print mib[1] " MiB"; exit }
			out = ""
			for (i = 1; i <= n; i++) {
				cpus = first[i]
				if (last[i] != first[i])
					cpus = cpus "-" last[i]
				if (i == 1)
					cpus = (last[i] != first[i] ? "CPUs " : "CPU ") cpus
				out = out (i > 1 ? ", " : "") mib[i] " MiB on " cpus
			}
			print out
		}'
}

# the kernel's after - before of vmstat counter $2 in run $1
delta() {
	awk -v c="$2" '$1 == c { v[FILENAME] = $2 } END { print v[ARGV[2]] - v[ARGV[1]] }' \
		"$1/before/vmstat" "$1/after/vmstat"
}

lost() {
	awk '/^overrun:|^commit overrun:|^dropped events:/ { n += $NF } END { print n + 0 }' "$1/trace_stats"
}

mkdir -p "$out"
table=$tmp/table
: > "$table"
for src in "$RUNS"/*/; do
	src=${src%/}
	run=$(basename "$src")
	[ -f "$src/trace.dat" ] || { echo "bundle-reclaim-runs: no $src/trace.dat, $run skipped" >&2; continue; }
	[ -f "$src/trace_stats" ] || { echo "bundle-reclaim-runs: $run: no trace_stats to tell lost events" >&2; exit 1; }
	[ "$(lost "$src")" = 0 ] ||
		{ echo "bundle-reclaim-runs: $run: the ring buffer lost $(lost "$src") events (trace_stats)" >&2; exit 1; }
	d=$tmp/$run
	sysroot "$src" before "$d/before"
	sysroot "$src" after "$d/after"
	for f in "$src"/info/format.*; do
		e=${f##*/format.}
		mkdir -p "$d/format/$(system_of "$e")"
		cp "$f" "$d/format/$(system_of "$e")/$e"
	done
	chmod -R u+w,a+rX "$d"
	if [ ! -f "$out/$run.pgs" ] || [ "${FORCE:-}" = 1 ]; then
		cp "$src/trace.dat" "$d/trace.dat"
		"$PAGESIM" convert -q --level 19 -o "$tmp/$run.pgs" "$d/trace.dat"
		install_as "$tmp/$run.pgs" "$out/$run.pgs"
	fi
	nodes=$(wc -l < "$src/info/nodes")
	work=$(sed -n 's/^hwork=//p' "$src/info/harness_env" 2> /dev/null)
	policy=defaults
	[ -s "$src/info/sysctl_applied" ] && policy=$(sed 's/ = /=/' "$src/info/sysctl_applied" | paste -sd' ')
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$run" "$(awk '{ print $3 }' "$src/info/uname")" \
		"$nodes" "${work:-?}" "$policy" "$(ringbuf "$src")" "$(cat "$src/info/lru_gen_enabled" 2> /dev/null || echo -)" \
		"$(delta "$src" numa_miss)" "$(delta "$src" pgsteal_kswapd)" "$(delta "$src" pgsteal_direct)" >> "$table"

	# the text slices
	windows=$(echo "$SLICES" | awk -v r="$run" '$1 == r { $1 = ""; print substr($0, 2) }')
	[ -n "$windows" ] || continue
	s=$tmp/slice-$run
	mkdir -p "$s"
	trace-cmd report -i "$src/trace.dat" 2> /dev/null > "$tmp/report"
	head -1 "$tmp/report" | grep '^cpus=' > "$s/trace.txt" || true
	first=${windows%% *}
	# in time order, so that the text reads as one trace
	for w in $(tr ' ' '\n' <<< "$windows" | sort -n); do
		a=${w%-*} b=${w#*-}
		awk -v a="$a" -v b="$b" '
			{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break } }
			NR > 1 && t >= a && t < b' "$tmp/report" > "$tmp/window"
		# a window must not cut a direct or node reclaim: every end has its begin, every begin its end
		awk '/mm_vmscan_(direct|node)_reclaim_begin:/ { open[$1]++ }
			/mm_vmscan_(direct|node)_reclaim_end:/ { if (!open[$1]--) bad = 1 }
			END { for (p in open) if (open[p]) bad = 1; exit bad }' "$tmp/window" ||
			{ echo "bundle-reclaim-runs: $run: the window $w cuts a reclaim in two" >&2; exit 1; }
		cat "$tmp/window" >> "$s/trace.txt"
	done
	# the first window as a trace.dat of its own, whose report is exactly those lines
	a=${first%-*} b=${first#*-}
	trace-cmd split -i "$src/trace.dat" -o "$tmp/split.dat" "$a" "$b" > /dev/null 2>&1
	mv "$tmp/split.dat.1" "$s/trace.dat"
	awk -v a="$a" -v b="$b" '
		NR == 1 && /^cpus=/ { print; next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break } }
		t >= a && t < b' "$tmp/report" > "$tmp/first"
	trace-cmd report -i "$s/trace.dat" 2> /dev/null | cmp -s - "$tmp/first" ||
		{ echo "bundle-reclaim-runs: $run: the report of the split trace.dat is not the window $first" >&2; exit 1; }
	zstd -q -19 --rm -o "$s/trace.txt.zst" "$s/trace.txt"
	cp -r "$d/before" "$d/after" "$s/"
	mkdir -p "$out/slices"
	install_as "$s" "$out/slices/$run"
	echo "$run: slices/$run/ ($(zstd -dc "$out/slices/$run/trace.txt.zst" | wc -l) lines)"
done

# the rows of runs bundled before and not given now are kept as they are
if [ -f "$out/README.md" ]; then
	grep '^| [^ -]' "$out/README.md" | grep -v '^| run |' | while IFS= read -r row; do
		r=$(awk -F'|' '{ gsub(/ /, "", $2); print $2 }' <<< "$row")
		if [ -f "$out/$r.pgs" ] && ! grep -q "^| $r |" "$table"; then
			echo "$row"
		fi
	done >> "$table"
fi
sort -o "$table" "$table"
nruns=$(wc -l < "$table")

{
	echo "# Runs with the page-cache, LRU and reclaim events"
	echo
	echo "$nruns runs of the QEMU guests of \`../numa2\` and \`../numa4\` (2 nodes of 256 MiB, CPUs 0-1 and"
	cat << 'EOF'
2-3; 4 nodes of 192 MiB, one CPU each), recorded with the six kmem page events and the
`filemap:`, `pagemap:` and `vmscan:` events pagesim reads (lib/event.h), no event lost (each
run's `trace_stats`). Each `<run>.pgs` holds the events and the guest's files before and after
the run as sysroots: zoneinfo, vmstat, meminfo, each node's cpulist, distance, numastat and
vmstat, the `vm.*` sysctls (`zone_reclaim_mode`, `min_unmapped_ratio`, `min_slab_ratio`, ...),
`/sys/kernel/mm/lru_gen/enabled` and, where the table's ring buffer has no "*", each CPU's
`/sys/kernel/tracing/per_cpu/cpuN/buffer_size_kb`, so that
`pagesim stat --check reclaim/<run>.pgs` needs no other file.

The ring buffer is part of the experiment. The tracer allocates it on each CPU's node before the
"before" snapshot, so the run starts without that memory: with 32 MiB on CPUs 0-1 instead of 16
MiB, node 0 of the 2-node guest starts with about 9,000 fewer free pages (its `MemFree` 101-126
MiB against 138-162 MiB), and under the defaults spills that much more to node 1 (6.1: 66,465
`numa_miss` on average against 58,231). The node-reclaim runs need the larger buffer (every
attempt is a begin/end pair of events); runs that are to be compared under two policies must have
the same buffer, hence the `defaults` runs with 32 MiB on CPUs 0-1 beside them (the `_b32` runs,
recorded as `BUFKB=16384 run_vm.sh RUN 2n mixed SYSCTLS hextra=1 hbufcpu=0:32768,1:32768`). A
ring buffer marked "*" is not stored in the file: it is what the run's node 0 `MemFree` at the
start says (112-125 MiB: 32 MiB on CPUs 0-1; 138 MiB or more: 16 MiB); "?": not known. Runs with
an inferred buffer and runs with a stored one are not pooled as repeats of one setup: the 6.12
`zrm1` runs of the two kinds differ beyond their spread (`numa_miss` 47,073 on average over 3
runs against 53,107 over 20, 2.6 standard errors apart; `pgsteal_kswapd` 27,870 against 23,084,
3.4).

Two kernels: Debian's 6.1 (`6.1.0-57-amd64`, the classic LRU: lru_gen 0x0000) and 6.12
(`6.12.*`, multi-generational LRU on: lru_gen 0x0007, where `mm_lru_activate` never fires and
`mm_vmscan_lru_isolate` has no `isolate_mode`). Workloads as in `../README.md`: `mixed` (page
cache, a fork storm, pipes, sockets, tmpfs, anonymous memory, pinned to node 0's CPUs) and
`frag` (the fragmentation rounds). The policy is the sysctl the run changed from the defaults.
The kernel columns are after - before of `/proc/vmstat`; `pagesim stat` counts
`pgsteal_kswapd` and `pgsteal_direct` from `mm_vmscan_lru_shrink_inactive` by who reclaimed
(kswapd, or a task inside a direct or node reclaim) and gives these figures.

`slices/<run>/` holds a few windows of two runs' own `trace-cmd report` text
(`trace.txt.zst`, every new event type of the run in a few thousand lines), the first window
as a `trace.dat` (`trace-cmd split`; its report is exactly those lines), and the run's
`before/` and `after/` sysroots: k61_zrm1_r3 (node reclaim, `mm_vmscan_lru_shrink_active`,
`mm_lru_activate`) and k612_base_r3 (direct reclaim). No run has `mm_vmscan_write_folio` (no
swap, no dirty page reclaimed).

Made by `../bundle-reclaim-runs.sh RUNS` from the harness's run directories.

| run | kernel | nodes | workload | policy | ring buffer | lru_gen | numa_miss | pgsteal_kswapd | pgsteal_direct |
|---|---|---|---|---|---|---|---|---|---|
EOF
	cat "$table"
} > "$tmp/README.md"
install_as "$tmp/README.md" "$out/README.md"
echo "reclaim/: $(ls "$out"/*.pgs | wc -l) runs, $(du -sh "$out" | cut -f1)"
