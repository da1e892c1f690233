#!/bin/bash
# signals.sh TMP CMD... - signal.sh for every catchable signal whose default
# ends the process (SIGKILL cannot be caught, SIGSEGV and the like are left
# to crashes): each must leave neither TMP/out nor a temporary file.
# Prints one line per signal; exits 1 at the first that fails.
set -u
TMP=$1
shift
for sig in HUP QUIT ABRT USR1 USR2 PIPE ALRM TERM XCPU XFSZ VTALRM PROF IO PWR SYS RTMIN; do
	out=$(bash "$(dirname "$0")/signal.sh" "$TMP" "$sig" "$@") || { echo "$out"; exit 1; }
	echo "$out"
done
