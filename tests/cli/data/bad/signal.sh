#!/bin/bash
# signal.sh TMP SIGNAL CMD... - starts `pagesim CMD... -o TMP/out TMP/long.zst`
# on a long input, sends SIGNAL after a second and checks that pagesim
# exits within 5 s, killed by that signal (status 128+N), leaving neither
# TMP/out nor a temporary TMP/out.tmp.* behind.  TMP/long.zst is made once.
# every signal's default restored first: one ignored by whoever started the tests
# (nohup: SIGHUP; a script's background job: SIGINT, SIGQUIT) would stay ignored in
# pagesim, and a shell cannot undo that itself
[ "${SIGNAL_SH_DEFAULTS:-}" = 1 ] || SIGNAL_SH_DEFAULTS=1 exec env --default-signal bash "$0" "$@"
set -u -m	# job control: a background job must not start with SIGINT ignored
TMP=$1 SIG=$2
shift 2
# 160 copies (36 MiB): a release build converts 40 in about 1.4 s, too close to the 1 s below
[ -s "$TMP/long.zst" ] || sh "$(dirname "$0")/make-long.sh" "$TMP/long.zst" 160
"$PAGESIM" "$@" -o "$TMP/out" "$TMP/long.zst" 2> "$TMP/err" &
pid=$!
sleep 1
kill -0 $pid 2>/dev/null || { echo "FAIL: pagesim ended before the signal (input too short)"; cat "$TMP/err"; exit 1; }
kill -s "$SIG" $pid
start=$(date +%s)
wait $pid
rc=$?
took=$(( $(date +%s) - start ))
want=$(( 128 + $(kill -l "$SIG") ))
[ $rc = $want ] || { echo "FAIL: exit $rc, want $want (killed by SIG$SIG)"; cat "$TMP/err"; exit 1; }
[ $took -le 5 ] || { echo "FAIL: took $took s to stop"; exit 1; }
ls "$TMP"/out* 2>/dev/null && { echo "FAIL: output left behind"; exit 1; }
echo "stopped by SIG$SIG in ${took}s with status $rc, no output file"
