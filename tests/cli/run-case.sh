#!/bin/bash
# run-case.sh PAGESIM SRCDIR CASEFILE - one golden CLI test.
#
# A case file holds "key: value" lines:
#   args: ARGS...          pagesim's arguments (word-split; @SRC@ @TMP@ expanded)
#   sh: COMMAND            instead of args: a shell command; $PAGESIM is the binary
#   exit: N                expected exit status (default 0)
#   stdout: FILE           stdout must equal tests/cli/expected/FILE
#                          (PAGESIM_UPDATE=1 rewrites it)
#   stdout-has: TEXT       stdout must contain TEXT (repeatable)
#   stderr-has: TEXT       stderr must contain TEXT (repeatable)
#   stderr-empty: yes      nothing on stderr
#   needs: root|tracefs|slurm|parallel|script|perf|gnuplot|cc   skip (exit 77) when missing (root
#                          and tracefs: the live recording tests; slurm: root, Debian's slurm-wlm
#                          and munge; perf: perf can record kmem tracepoints here, root and linux-perf)
#   file-absent: PATH      PATH must not exist afterwards (@TMP@ expanded)
# Lines starting with '#' describe the case.
set -u
PAGESIM=$1 SRC=$2 CASE=$3
# a case removed after the build listed the cases: its test goes at the next build
[ -f "$CASE" ] || { echo "SKIP: $CASE is gone"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export PAGESIM

expand() { local s=$1; s=${s//@SRC@/$SRC}; s=${s//@TMP@/$TMP}; printf '%s' "$s"; }

args= shcmd= want_exit=0 stdout_file=
declare -a out_has=() err_has=() absent=()
err_empty=
while IFS= read -r line || [ -n "$line" ]; do
	case "$line" in
	'#'*|'') ;;
	args:*) args=$(expand "${line#args: }") ;;
	sh:*) shcmd=$(expand "${line#sh: }") ;;
	exit:*) want_exit=${line#exit: } ;;
	stdout:*) stdout_file=${line#stdout: } ;;
	stdout-has:*) out_has+=("$(expand "${line#stdout-has: }")") ;;
	stderr-has:*) err_has+=("$(expand "${line#stderr-has: }")") ;;
	stderr-empty:*) err_empty=1 ;;
	file-absent:*) absent+=("$(expand "${line#file-absent: }")") ;;
	needs:*)
		case "${line#needs: }" in
		root) [ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; } ;;
		tracefs) [ -w /sys/kernel/tracing/instances ] || { echo "SKIP: no writable tracefs"; exit 77; } ;;
		script) command -v script >/dev/null 2>&1 || { echo "SKIP: no script(1) (util-linux)"; exit 77; } ;;
		cc) command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler (apt-get install gcc)"; exit 77; } ;;
		gnuplot) command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: no gnuplot (apt-get install gnuplot-nox)"; exit 77; } ;;
		parallel) command -v parallel >/dev/null 2>&1 || { echo "SKIP: no GNU parallel (apt-get install parallel)"; exit 77; } ;;
		slurm)
			[ "$(id -u)" = 0 ] || { echo "SKIP: not root (slurmd runs the jobs)"; exit 77; }
			for b in sbatch squeue slurmctld slurmd munged; do
				command -v $b >/dev/null 2>&1 || [ -x /usr/sbin/$b ] ||
					{ echo "SKIP: no $b (apt-get install slurm-wlm munge)"; exit 77; }
			done ;;
		perf) perf record -q -e kmem:mm_page_alloc -o "$TMP/probe.data" -- true > /dev/null 2>&1 ||
			{ echo "SKIP: perf cannot record kmem tracepoints here (root and linux-perf needed)"; exit 77; } ;;
		*) echo "bad needs: ${line#needs: }"; exit 99 ;;
		esac ;;
	*) echo "bad case line: $line"; exit 99 ;;
	esac
done < "$CASE"

cd "$TMP"
if [ -n "$shcmd" ]; then
	bash -c "$shcmd" > "$TMP/stdout" 2> "$TMP/stderr"
else
	# shellcheck disable=SC2086
	"$PAGESIM" $args > "$TMP/stdout" 2> "$TMP/stderr"
fi
got_exit=$?
fail=0
if [ "$got_exit" != "$want_exit" ]; then
	echo "FAIL: exit $got_exit, want $want_exit"; fail=1
fi
if [ -n "$stdout_file" ]; then
	exp="$SRC/tests/cli/expected/$stdout_file"
	if [ "${PAGESIM_UPDATE:-}" = 1 ]; then
		cp "$TMP/stdout" "$exp"
	elif ! diff -u "$exp" "$TMP/stdout"; then
		echo "FAIL: stdout differs from $exp"; fail=1
	fi
fi
for s in "${out_has[@]}"; do
	grep -qF -- "$s" "$TMP/stdout" || { echo "FAIL: stdout lacks: $s"; fail=1; }
done
for s in "${err_has[@]}"; do
	grep -qF -- "$s" "$TMP/stderr" || { echo "FAIL: stderr lacks: $s"; fail=1; }
done
if [ -n "$err_empty" ] && [ -s "$TMP/stderr" ]; then
	echo "FAIL: stderr not empty"; fail=1
fi
for p in "${absent[@]}"; do
	[ -e "$p" ] && { echo "FAIL: $p exists"; fail=1; }
done
if [ $fail != 0 ]; then
	echo "--- stderr:"; head -c 3000 "$TMP/stderr"
	echo "--- stdout (head):"; head -c 2000 "$TMP/stdout"
fi
exit $fail
