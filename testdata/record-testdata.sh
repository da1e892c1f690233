#!/bin/bash
# record-testdata.sh: record the small real traces in testdata/ (uma-small, uma-idle).
#
# Usage (as root, on the machine to be recorded):
#   testdata/record-testdata.sh [RUN...]        RUN = uma-small | uma-idle (default: both)
# Environment:
#   OUTROOT  where the run folders go (default: the folder of this script)
#   BUF_KB   per-CPU ring buffer size of the tracing instance in KiB (default 65536)
#   QUIET_RATE, QUIET_WAIT  the machine must be quiet before a run starts: fewer than QUIET_RATE
#            (default 1000) numa_hit per second over 2 s; waits up to QUIET_WAIT s (default 900)
#   MAX_BYTES  a finished run larger than this (default 2300000) is not kept (the machine was busy)
#
# Each run is written to a scratch folder and moved over OUTROOT/RUN only when it is complete and
# its checks pass, so rerunning replaces a run and a failed run leaves the old one in place.
# Tracing is always cleaned up (trap): the instance is removed, its events disabled, and the size of
# the top-level buffer is put back if anything changed it.
#
# What a run holds:
#   before/ after/        the kernel's files as a sysroot (proc/..., sys/devices/system/node/...)
#   trace.txt.zst         the kernel's own text of the instance's `trace` file (zstd -19)
#   trace.dat             `trace-cmd extract -B INSTANCE` of the same ring buffers (v7, zstd)
#   report.txt.zst        `trace-cmd report trace.dat` (zstd -19)
#   ringbuffer-stats      per_cpu/cpuN/stats of the instance right after recording
#   format/               the format files of the six events
#   README                workload, commands, event counts, overruns, counter deltas
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUTROOT=${OUTROOT:-$SCRIPT_DIR}
BUF_KB=${BUF_KB:-65536}
QUIET_RATE=${QUIET_RATE:-1000}
QUIET_WAIT=${QUIET_WAIT:-900}
MAX_BYTES=${MAX_BYTES:-2300000}
TRACEFS=/sys/kernel/tracing
INSTANCE=pagesim
INST=$TRACEFS/instances/$INSTANCE
EVENTS="mm_page_alloc mm_page_free mm_page_free_batched mm_page_alloc_zone_locked mm_page_pcpu_drain mm_page_alloc_extfrag"
PY=/usr/bin/python3

WORK=""
TOP_KB_ORIG=""

log() { echo "record-testdata: $*" >&2; }
die() { log "error: $*"; exit 1; }

cleanup() {
    local rc=$?
    set +e
    if [ -d "$INST" ]; then
        echo 0 > "$INST/tracing_on" 2>/dev/null
        for ev in $EVENTS; do
            echo 0 > "$INST/events/kmem/$ev/enable" 2>/dev/null
        done
        rmdir "$INST" 2>/dev/null || log "warning: could not remove $INST"
    fi
    if [ -n "$TOP_KB_ORIG" ]; then
        local now
        now=$(awk '{print $1; exit}' "$TRACEFS/buffer_size_kb" 2>/dev/null)
        if [ -n "$now" ] && [ "$now" != "$TOP_KB_ORIG" ]; then
            echo "$TOP_KB_ORIG" > "$TRACEFS/buffer_size_kb" 2>/dev/null \
                || log "warning: could not restore top-level buffer_size_kb to $TOP_KB_ORIG"
        fi
    fi
    [ -n "$WORK" ] && rm -rf "$WORK"
    rm -f /dev/shm/pagesim-rec.* "$SCRATCH" 2>/dev/null
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# Snapshots: the kernel's files laid out as a sysroot.
#
# The counters (/proc/vmstat, node*/numastat, node*/vmstat) are compared with the trace, so they
# must be read as close as possible to the tracing_on toggles: before/ reads them last, right
# before tracing_on=1, and after/ reads them first, right after tracing_on=0. Everything between
# those reads is done with bash builtins (no fork, no exec), because anything a helper process
# allocates outside the tracing window is counted by the kernel but not traced (a snapshot made
# with `cat` and `$(...)` after the counters were read cost about 15,000 numa_hit per run here).

# copy SRC DST with builtins only
copy() {
    local -a _lines
    mapfile -t _lines < "$1" || return 1
    if [ ${#_lines[@]} -gt 0 ]; then printf '%s\n' "${_lines[@]}" > "$2"; else : > "$2"; fi
}

NODES=()
snapshot_dirs() {
    local dst=$1 n
    NODES=()
    for n in /sys/devices/system/node/node[0-9]*; do NODES+=("${n##*/}"); done
    mkdir -p "$dst/proc/sys/vm" "$dst/proc/sys/kernel"
    for n in "${NODES[@]}"; do mkdir -p "$dst/sys/devices/system/node/$n"; done
}

# everything but the counters
snapshot_files() {
    local dst=$1 f n
    for f in zoneinfo pagetypeinfo buddyinfo meminfo; do
        copy "/proc/$f" "$dst/proc/$f"
    done
    for f in /proc/sys/vm/*; do
        # readable files only (drop_caches and compact_memory are write-only)
        copy "$f" "$dst/proc/sys/vm/${f##*/}" 2>/dev/null || rm -f "$dst/proc/sys/vm/${f##*/}"
    done
    copy /proc/sys/kernel/osrelease "$dst/proc/sys/kernel/osrelease"
    copy /sys/devices/system/node/online "$dst/sys/devices/system/node/online"
    for n in "${NODES[@]}"; do
        for f in cpulist distance meminfo; do
            copy "/sys/devices/system/node/$n/$f" "$dst/sys/devices/system/node/$n/$f"
        done
    done
}

# The counters. They are read into memory (PENDING) and written to disk only after tracing is off:
# writing a file between the counter read and tracing_on=1 would allocate page-cache pages that the
# kernel counts but the trace does not show. Each read is done twice, the first time only to grow
# bash's heap, so that no page fault of bash itself falls between the reads and the toggle (without
# this the window starts with about 5 untraced allocations). Reading stat_refresh first folds the
# per-CPU vmstat differentials.
declare -A PENDING=()
counter_files() {        # before: node files, then /proc/vmstat last; after: /proc/vmstat first
    local n
    [ "$1" = after ] && echo /proc/vmstat
    for n in "${NODES[@]}"; do
        echo "/sys/devices/system/node/$n/numastat"
        echo "/sys/devices/system/node/$n/vmstat"
    done
    [ "$1" = before ] && echo /proc/vmstat
    return 0
}
COUNTER_LIST_before=() COUNTER_LIST_after=()
snapshot_counters() {
    local which=$1 dst=$2 f v pass
    local -n list="COUNTER_LIST_$which"
    local -A scratch=()
    for pass in warm real; do
        read -r v < /proc/sys/vm/stat_refresh || true
        for f in "${list[@]}"; do
            IFS= read -r -d '' v < "$f" || true
            if [ $pass = warm ]; then scratch["$dst$f"]=$v; else PENDING["$dst$f"]=$v; fi
        done
    done
}
flush_counters() {
    local k
    for k in "${!PENDING[@]}"; do
        printf '%s' "${PENDING[$k]}" > "$k"
    done
    PENDING=()
}

# ---------------------------------------------------------------------------------------------
# workloads (their text is also copied into the README)
SCRATCH=/var/tmp/pagesim-rec.file

workload_uma_small() {
    dd if=/dev/zero of=$SCRATCH bs=1M count=20 conv=fsync status=none
    sync; echo 1 > /proc/sys/vm/drop_caches
    dd if=$SCRATCH of=/dev/null bs=1M status=none
    for i in 1 2 3 4 5 6 7 8; do /bin/true; done
    ( sleep 0.01 & sleep 0.01 & wait )
    dd if=/dev/urandom of=/dev/shm/pagesim-rec.1 bs=64k count=16 status=none
    dd if=/dev/zero of=/dev/shm/pagesim-rec.2 bs=1M count=2 status=none
    cat /dev/shm/pagesim-rec.1 /dev/shm/pagesim-rec.2 > /dev/null
    rm -f /dev/shm/pagesim-rec.1 /dev/shm/pagesim-rec.2
    $PY -c 'a=bytearray(12<<20); del a; b=[bytearray(4096) for _ in range(1000)]; del b'
    rm -f $SCRATCH
}

workload_uma_idle() {
    sleep 2
}

describe_uma_small() {
    cat <<'EOF'
Short mixed workload (tracing is on for about a quarter of a second): write a 20 MiB file on the
root ext4 with dd (conv=fsync), drop the page cache (echo 1 > drop_caches), read the file back with
dd; 8 forks+execs of /bin/true and a subshell forking two `sleep 0.01`; two tmpfs files in /dev/shm
(1 MiB random, 2 MiB zeros) written, read and removed; anonymous memory churn in Python (a 12 MiB
bytearray, then 1000 4 KiB bytearrays, all freed); the 20 MiB file is removed at the end. Before
tracing starts the caches are dropped once (sync; echo 3 > drop_caches) so the read-back really
reads from disk. The recording is system-wide: the script waits for a quiet machine first.
EOF
}

describe_uma_idle() {
    cat <<'EOF'
Idle machine: only `sleep 2` runs while tracing is on (plus whatever the kernel and the guest's
own agent do in the background). No caches are dropped. The script waits for a quiet machine
(fewer than 1000 numa_hit/s) before it starts.
EOF
}

# ---------------------------------------------------------------------------------------------
# count_events FILE: "event count" lines for the six events, from any ftrace/trace-cmd text
count_events() {
    awk '!/^#/ { for (i = 1; i <= NF; i++) if ($i ~ /^mm_page_[a-z_]+:$/) { sub(/:$/, "", $i); c[$i]++; break } }
         END { n = split("'"$EVENTS"'", ev, " "); for (i = 1; i <= n; i++) printf "%s %d\n", ev[i], c[ev[i]] + 0 }' "$1"
}

vmstat_val() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$1"; }

# wait_quiet: other activity on the machine would land in the trace (the recording is system-wide)
numa_hit_now() { awk '$1 == "numa_hit" { print $2 }' /proc/vmstat; }
wait_quiet() {
    local start=$SECONDS a b rate
    while :; do
        a=$(numa_hit_now); sleep 2; b=$(numa_hit_now)
        rate=$(( (b - a) / 2 ))
        [ "$rate" -lt "$QUIET_RATE" ] && return 0
        [ $(( SECONDS - start )) -ge "$QUIET_WAIT" ] && die "machine busy ($rate numa_hit/s) for ${QUIET_WAIT}s"
        log "machine busy ($rate numa_hit/s), waiting"
        sleep 10
    done
}

record_run() {
    local run=$1 dst="$OUTROOT/$1" out ev cpu rc t0 t1
    WORK=$(mktemp -d /var/tmp/pagesim-rec.XXXXXX)
    out=$WORK/$run
    mkdir -p "$out/format"
    wait_quiet
    log "$run: recording"

    [ -d "$INST" ] && rmdir "$INST"
    mkdir "$INST"
    echo 0 > "$INST/tracing_on"
    echo "$BUF_KB" > "$INST/buffer_size_kb"
    echo local > "$INST/trace_clock"
    echo > "$INST/set_event"                       # nothing enabled
    for ev in $EVENTS; do
        echo 1 > "$INST/events/kmem/$ev/enable"
    done
    [ "$(wc -l < "$INST/set_event")" -eq 6 ] || die "expected exactly six enabled events"

    if [ "$run" = uma-small ]; then
        rm -f $SCRATCH
        sync; echo 3 > /proc/sys/vm/drop_caches
    fi
    echo > "$INST/trace"                            # clear the buffer

    snapshot_dirs "$out/before"
    snapshot_dirs "$out/after"
    mapfile -t COUNTER_LIST_before < <(counter_files before)
    mapfile -t COUNTER_LIST_after < <(counter_files after)
    snapshot_files "$out/before"
    snapshot_counters before "$out/before"
    # from here to snapshot_counters after: builtins only, apart from the workload
    t0=$EPOCHREALTIME
    echo 1 > "$INST/tracing_on"
    case $run in
        uma-small) workload_uma_small ;;
        uma-idle) workload_uma_idle ;;
    esac
    echo 0 > "$INST/tracing_on"
    t1=$EPOCHREALTIME
    snapshot_counters after "$out/after"
    flush_counters
    snapshot_files "$out/after"

    # the kernel's own text (non-consuming read), stats, formats: all before trace-cmd extract,
    # which consumes the ring buffers and removes the instance
    cat "$INST/trace" > "$out/trace.txt"
    for cpu in "$INST"/per_cpu/cpu*; do
        echo "== $(basename "$cpu")"
        cat "$cpu/stats"
    done > "$out/ringbuffer-stats"
    for ev in $EVENTS; do
        cat "$INST/events/kmem/$ev/format" > "$out/format/$ev"
    done
    for ev in $EVENTS; do
        echo 0 > "$INST/events/kmem/$ev/enable"
    done

    (cd "$out" && trace-cmd extract -B "$INSTANCE" -o trace.dat) > "$WORK/extract.log" 2>&1 \
        || { cat "$WORK/extract.log" >&2; die "trace-cmd extract failed"; }
    trace-cmd report "$out/trace.dat" > "$out/report.txt" 2> "$WORK/report.err" \
        || { cat "$WORK/report.err" >&2; die "trace-cmd report failed"; }

    # checks: no overruns or drops, and the same number of events per type in both texts
    local overruns dropped
    overruns=$(awk '$1 == "overrun:" { s += $2 } END { print s + 0 }' "$out/ringbuffer-stats")
    dropped=$(awk '$1 == "dropped" { s += $3 } END { print s + 0 }' "$out/ringbuffer-stats")
    [ "$overruns" -eq 0 ] || die "$run: $overruns events overrun; raise BUF_KB"
    [ "$dropped" -eq 0 ] || die "$run: $dropped events dropped; raise BUF_KB"
    count_events "$out/trace.txt" > "$WORK/count.txt"
    count_events "$out/report.txt" > "$WORK/count.report"
    awk '!/^#/ { for (i = 1; i <= NF; i++) if ($i == "mm_page_alloc:" || $i == "mm_page_free:") {
                     for (j = i + 1; j <= NF; j++) if ($j ~ /^order=/) { o = substr($j, 7); break }
                     if ($i == "mm_page_alloc:") { na++; pa += 2 ^ o } else pf += 2 ^ o
                     break } }
         END { printf "%d %d %d\n", na, pa, pf }' "$out/trace.txt" > "$WORK/pages.txt"
    if ! cmp -s "$WORK/count.txt" "$WORK/count.report"; then
        paste "$WORK/count.txt" "$WORK/count.report" >&2
        die "$run: trace.txt and trace.dat disagree on event counts"
    fi
    local entries
    entries=$(awk '$1 == "entries:" { s += $2 } END { print s + 0 }' "$out/ringbuffer-stats")
    [ "$entries" -eq "$(awk '{ s += $2 } END { print s }' "$WORK/count.txt")" ] \
        || die "$run: ring buffer entries ($entries) differ from the events in the text"

    zstd -q -19 --rm "$out/trace.txt"
    zstd -q -19 --rm "$out/report.txt"

    write_readme "$run" "$out" "$t0" "$t1" "$overruns"

    local bytes
    bytes=$(du -sb "$out" | cut -f1)
    [ "$bytes" -le "$MAX_BYTES" ] \
        || die "$run: $bytes bytes, over MAX_BYTES=$MAX_BYTES (was the machine busy?); $dst left as it was"
    rm -rf "$dst"
    mv "$out" "$dst"
    rm -rf "$WORK"; WORK=""
    log "$run: done, $(du -sh "$dst" | cut -f1)"
}

write_readme() {
    local run=$1 out=$2 t0=$3 t1=$4 overruns=$5 k
    {
        echo "# $run"
        echo
        echo "Real trace of this machine: $(nproc) CPUs, nodes online: $(cat /sys/devices/system/node/online | tr -d '\n'), kernel $(cat /proc/sys/kernel/osrelease), $(. /etc/os-release; echo "$PRETTY_NAME") userland."
        echo "Recorded by testdata/record-testdata.sh; tracing on for $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s."
        echo
        echo "## Workload"
        echo
        "describe_${run//-/_}"
        echo
        echo "Commands run while tracing was on:"
        echo
        echo '```'
        declare -f "workload_${run//-/_}" | sed '1,2d;$d' | sed 's/^    //; s#\$SCRATCH#'"$SCRATCH"'#g; s#\$PY#'"$PY"'#g'
        echo '```'
        echo
        echo "## Recording"
        echo
        echo '```'
        echo "mkdir $INST"
        echo "echo 0 > $INST/tracing_on"
        echo "echo $BUF_KB > $INST/buffer_size_kb      # per CPU"
        echo "echo local > $INST/trace_clock"
        for ev in $EVENTS; do echo "echo 1 > $INST/events/kmem/$ev/enable"; done
        [ "$run" = uma-small ] && echo "sync; echo 3 > /proc/sys/vm/drop_caches"
        echo "echo > $INST/trace                      # clear"
        echo "# snapshot before/: other files first, then, with bash builtins only (no fork, no file"
        echo "# written until tracing is off): stat_refresh, node*/numastat, node*/vmstat, proc/vmstat"
        echo "echo 1 > $INST/tracing_on; <workload>; echo 0 > $INST/tracing_on"
        echo "# snapshot after/: the counters first (builtins only), then the other files"
        echo "cat $INST/trace > trace.txt               # kernel's own text; zstd -19 -> trace.txt.zst"
        echo "cat $INST/per_cpu/cpuN/stats  > ringbuffer-stats"
        echo "cat $INST/events/kmem/EVENT/format > format/EVENT"
        echo "echo 0 > $INST/events/kmem/EVENT/enable  # all six"
        echo "trace-cmd extract -B $INSTANCE -o trace.dat   # consumes the buffers, removes the instance"
        echo "trace-cmd report trace.dat > report.txt    # zstd -19 -> report.txt.zst"
        echo '```'
        echo
        echo "$(trace-cmd --version 2>&1 | grep -m1 version). In report.txt the lines carry the instance"
        echo "name (\`$INSTANCE:\`) in front, and \`page=\` is libtraceevent's rendering of the print format"
        echo "(not a real struct page pointer); \`pfn=\` is right. In trace.txt \`page=\` is a hashed pointer."
        echo
        echo "## Events"
        echo
        echo "| event | trace.txt | trace.dat (trace-cmd report) |"
        echo "|---|---|---|"
        paste "$WORK/count.txt" "$WORK/count.report" | awk '{ printf "| %s | %d | %d |\n", $1, $2, $4; s += $2; r += $4 } END { printf "| total | %d | %d |\n", s, r }'
        echo
        echo "Ring buffer: $(awk '$1 == "entries:" { s += $2 } END { print s + 0 }' "$out/ringbuffer-stats") entries, overrun $overruns on every CPU summed (see ringbuffer-stats), no dropped events."
        echo
        echo "## Kernel counters against the trace"
        echo
        echo "Counter deltas are after/proc/vmstat - before/proc/vmstat; both were read right at the tracing_on"
        echo "toggles with no process started in between, so they cover the same interval as the trace."
        echo
        local nh pga pgf ta tp fp
        nh=$(( $(vmstat_val "$out/after/proc/vmstat" numa_hit) - $(vmstat_val "$out/before/proc/vmstat" numa_hit) ))
        pga=0
        for k in pgalloc_dma pgalloc_dma32 pgalloc_normal pgalloc_movable; do
            pga=$(( pga + $(vmstat_val "$out/after/proc/vmstat" $k) - $(vmstat_val "$out/before/proc/vmstat" $k) ))
        done
        pgf=$(( $(vmstat_val "$out/after/proc/vmstat" pgfree) - $(vmstat_val "$out/before/proc/vmstat" pgfree) ))
        read -r ta tp fp < "$WORK/pages.txt"
        echo "| counter | kernel delta | from the trace | difference |"
        echo "|---|---|---|---|"
        echo "| numa_hit (allocations) | $nh | $ta mm_page_alloc events | $(( nh - ta )) |"
        echo "| pgalloc_* (pages) | $pga | $tp pages (sum of 2^order over mm_page_alloc) | $(( pga - tp )) |"
        echo "| pgfree (pages) | $pgf | $fp pages (sum of 2^order over mm_page_free) | $(( pgf - fp )) |"
        echo
        echo "All counter deltas:"
        echo
        echo "| counter | delta |"
        echo "|---|---|"
        for k in numa_hit numa_miss numa_foreign numa_local numa_other pgalloc_dma pgalloc_dma32 pgalloc_normal pgalloc_movable pgfree nr_free_pages; do
            echo "| $k | $(( $(vmstat_val "$out/after/proc/vmstat" $k) - $(vmstat_val "$out/before/proc/vmstat" $k) )) |"
        done
        echo
        echo "The small differences are allocations the kernel counts without an mm_page_alloc event (the"
        echo "bulk allocator, used by vmalloc for kernel stacks of new tasks, counts numa_hit and pgalloc per"
        echo "page) and activity at the edges of the window; see docs/invisible-allocations.md."
    } > "$out/README"
}

# ---------------------------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || die "must run as root"
command -v trace-cmd > /dev/null || die "trace-cmd is not installed (apt-get install trace-cmd)"
command -v zstd > /dev/null || die "zstd is not installed (apt-get install zstd)"
[ -x "$PY" ] || die "$PY is needed by the uma-small workload"
if [ ! -e "$TRACEFS/instances" ]; then
    mount -t tracefs nodev "$TRACEFS" || die "cannot mount tracefs at $TRACEFS"
fi
TOP_KB_ORIG=$(awk '{print $1; exit}' "$TRACEFS/buffer_size_kb")

RUNS=("$@")
[ ${#RUNS[@]} -gt 0 ] || RUNS=(uma-small uma-idle)
for r in "${RUNS[@]}"; do
    case $r in
        uma-small|uma-idle) ;;
        *) die "unknown run '$r' (uma-small, uma-idle)" ;;
    esac
done
for r in "${RUNS[@]}"; do
    record_run "$r"
done
