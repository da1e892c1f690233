# bash completion for pagesim(1)                                 -*- shell-script -*-
#
# Commands, options and names come from the pagesim being completed (its
# --help, 'pagesim help policies|machines|keys'), so they follow that binary,
# its version and the configs it finds.

# _pagesim_names BIN TOPIC [SECTION]: the first word of each line of 'BIN help TOPIC'
# (of the lines under a '# SECTION...' header only, if given)
_pagesim_names()
{
	"$1" help "$2" 2>/dev/null | awk -v want="${3-}" '
		/^#/ { on = want == "" || index($0, "# " want) == 1; next }
		on && NF { print $1 }'
}

# _pagesim_commands BIN: the commands of the top-level help
_pagesim_commands()
{
	"$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }'
}

# _pagesim_options BIN CMD: the options CMD's --help lists (the leading -x, --long of each entry)
_pagesim_options()
{
	"$1" "$2" --help 2>/dev/null | awk '/^  -/ {
		for (i = 1; i <= NF; i++) {
			if ($i !~ /^--?[a-zA-Z]/)
				break
			n = split($i, o, /[,\/]/)
			for (j = 1; j <= n; j++)
				if (o[j] != "")
					print o[j]
		}
	}' | sort -u
}

_pagesim_files()	# [DIRS_ONLY]
{
	if declare -F _filedir > /dev/null; then
		if [[ -n ${1-} ]]; then _filedir -d; else _filedir; fi
		return
	fi
	compopt -o filenames 2> /dev/null
	if [[ -n ${1-} ]]; then
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

_pagesim_add()	# WORDS...: the words that start with $cur
{
	local w
	for w in "$@"; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
	done
}

_pagesim()
{
	local bin=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i w
	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# --opt=value: bash splits the word at '='
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		[[ $w == -* ]] && continue
		cmd=$w
		break
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			_pagesim_add --help --version -h -V
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_pagesim_commands "$bin")" -- "$cur")
		fi
		return
	fi
	if [[ $cmd == help ]]; then
		((i == COMP_CWORD - 1)) &&
			mapfile -t COMPREPLY < <(compgen -W "$(_pagesim_commands "$bin" | grep -vx help) policies machines keys" -- "$cur")
		return
	fi
	# record -- COMMAND ARGS: a command, then its arguments
	if [[ $cmd == record ]]; then
		for ((i = 2; i < COMP_CWORD; i++)); do
			if [[ ${COMP_WORDS[i]} == -- ]]; then
				if ((i == COMP_CWORD - 1)); then
					mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
				else
					_pagesim_files
				fi
				return
			fi
		done
	fi
	case $prev in
	--policy)
		mapfile -t COMPREPLY < <(compgen -W "$(_pagesim_names "$bin" policies)" -- "$cur")
		[[ $cur == */* || $cur == .* ]] && _pagesim_files
		return ;;
	--machine)
		mapfile -t COMPREPLY < <(compgen -W "$(_pagesim_names "$bin" machines)" -- "$cur")
		[[ $cur == */* || $cur == .* ]] && _pagesim_files
		return ;;
	--kernel)
		mapfile -t COMPREPLY < <(compgen -W "$(_pagesim_names "$bin" policies 'kernel profiles')" -- "$cur")
		return ;;
	--set)
		[[ $cur == *=* ]] && return
		mapfile -t COMPREPLY < <(compgen -S = -W "$(_pagesim_names "$bin" keys)" -- "$cur")
		compopt -o nospace 2> /dev/null
		return ;;
	--mode)
		_pagesim_add follow simulate
		return ;;
	--format)
		if [[ $cmd == diff ]]; then _pagesim_add lkp columns json
		elif [[ $cmd == plot ]]; then _pagesim_add svg png
		else _pagesim_add vmstat json; fi
		return ;;
	--kind)
		_pagesim_add counters watermarks pageblocks diff
		return ;;
	--timeline-format)
		_pagesim_add csv jsonl
		return ;;
	--by)
		local pre=
		[[ $cur == *,* ]] && pre=${cur%,*},
		for w in order migratetype gfp task cpu zone; do
			[[ $pre$w == "$cur"* ]] && COMPREPLY+=("$pre$w")
		done
		compopt -o nospace 2> /dev/null
		return ;;
	--sort)
		_pagesim_add input name change
		return ;;
	--layout)
		_pagesim_add 3.17 4.0
		[[ $cur == */* || $cur == .* ]] && _pagesim_files
		return ;;
	-e | --events)
		local pre=
		[[ $cur == *,* ]] && pre=${cur%,*},
		for w in mm_page_alloc mm_page_free mm_page_free_batched mm_page_alloc_zone_locked \
			mm_page_pcpu_drain mm_page_alloc_extfrag; do
			[[ $pre$w == "$cur"* ]] && COMPREPLY+=("$pre$w")
		done
		return ;;
	--sysroot | --after | --state-dir)
		_pagesim_files dirs
		return ;;
	-o | --output | --timeline | --script)
		_pagesim_files
		return ;;
	-d | --duration | -b | --buffer-kb | --level | --min-change | --node | --cpu-map | --interval | --comm | --pid | --cpu | --time | --counters | --label)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_pagesim_options "$bin" "$cmd")" -- "$cur")
		return
	fi
	_pagesim_files
}
complete -F _pagesim pagesim
