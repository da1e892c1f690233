#!/bin/bash
# completion.sh PAGESIM FILE - the bash completion FILE, sourced in a bash without
# rc files, registers itself for pagesim and completes, from PAGESIM's own help:
# commands, help topics, options, --policy and --machine names, --set keys,
# --mode and --format values.
set -u
PAGESIM=$1 FILE=$2
exec bash --norc --noprofile -c '
FILE=$1 P=$2
source "$FILE" || { echo "FAIL: cannot source $FILE"; exit 1; }
got=$(complete -p pagesim) || { echo "FAIL: no completion for pagesim after sourcing $FILE"; exit 1; }
echo "$got"
[ "$got" = "complete -F _pagesim pagesim" ] || { echo "FAIL: unexpected: $got"; exit 1; }
fail=0
t() {	# WANT WORDS...: completing the last of WORDS offers exactly WANT
	local want=$1; shift
	COMP_WORDS=("$P" "$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
	_pagesim
	local got="${COMPREPLY[*]}"
	if [ "$got" = "$want" ]; then echo "ok: pagesim $* -> $got"; else echo "FAIL: pagesim $*: got \"$got\", want \"$want\""; fail=1; fi
}
t "replay record" re
t "policies" help pol
t "--policy" replay --pol
t "wsf-10 wsf-100 wsf-1000" replay --policy wsf-1
t "wsf-10 wsf-100 wsf-1000" replay --policy = wsf-1
t "ivb-ep-2s-64g" replay --mode simulate --machine ivb
t "6.10 6.15 6.18" replay --kernel 6.1
t "vm.watermark_scale_factor= vm.watermark_boost_factor=" replay --set vm.wat
t "lock.acquire_ns=" lockstat --set lock.acq
t "simulate" replay --mode s
t "columns" diff --format c
t "json" stat --format j
t "--check" stat --ch
t "--events" record --ev
t "mm_page_alloc,mm_page_free mm_page_alloc,mm_page_free_batched" record -e mm_page_alloc,mm_page_f
t "plot" pl
t "watermarks" plot --kind w
t "svg" plot --format s
t "jsonl" replay --timeline-format j
t "order,migratetype" stat --by order,m
t "--timeline --timeline-format" stat --timeline
t "--interval" replay --interv
exit $fail
' _ "$FILE" "$PAGESIM"
