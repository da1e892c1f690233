#!/bin/bash
# run-new-cases.sh PAGESIM SRCDIR CASEDIR LIST - the cases the build does not list yet.
#
# meson makes one test per case named in LIST (written when the build was configured).
# A case file added since is run here, named in the output, and LIST is then rewritten
# from CASEDIR: LIST is a configure dependency, so the next build lists every case as
# a test of its own. Fails if any new case fails.
set -u
PAGESIM=$1 SRC=$2 CASEDIR=$3 LIST=$4
here=$(dirname "$0")
now=$(cd "$CASEDIR" && ls -- *.case | sed 's/\.case$//')
new=$(printf '%s\n' "$now" | grep -vxF -f "$LIST")
status=0 n=0
for c in $new; do
	n=$((n + 1))
	out=$("$here/run-case.sh" "$PAGESIM" "$SRC" "$CASEDIR/$c.case" 2>&1)
	rc=$?
	case $rc in
	0) echo "ok $c" ;;
	77) echo "skip $c: $out" ;;
	*) echo "FAIL $c"; printf '%s\n' "$out"; status=1 ;;
	esac
done
echo "$n cases added since the build listed them"
if [ "$now" != "$(cat "$LIST")" ]; then
	printf '%s\n' "$now" > "$LIST.tmp" && mv "$LIST.tmp" "$LIST"
fi
exit $status
