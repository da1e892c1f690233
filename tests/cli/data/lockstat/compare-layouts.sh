#!/bin/sh
# compare-layouts.sh PAGESIM TRACE [--set K=V ...]: cache-line transfers of the 3.17 and
# 4.0 struct zone layouts on the same trace and costs; fails unless 3.17 > 4.0 and
# at least one section waited (the difference needs two CPUs contending).
set -e
p=$1 t=$2
shift 2
a=$("$p" lockstat -q --layout 3.17 "$@" "$t")
b=$("$p" lockstat -q --layout 4.0 "$@" "$t")
get() { printf '%s\n' "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
x=$(get "$a" zone_cacheline_transfers) y=$(get "$b" zone_cacheline_transfers)
ca=$(get "$a" zone_lock_contended) cb=$(get "$b" zone_lock_contended)
echo "contended sections: $ca (3.17) $cb (4.0); transfers: 3.17 $x, 4.0 $y"
[ "$ca" = "$cb" ] || { echo "FAIL: the layout changed the lock timing"; exit 1; }
[ "$ca" -gt 0 ] || { echo "FAIL: no contention"; exit 1; }
[ "$x" -gt "$y" ] || { echo "FAIL: 3.17 does not exceed 4.0"; exit 1; }
echo "3.17 transfers exceed 4.0"
