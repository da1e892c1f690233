#!/bin/bash
# destdir.sh SRC BUILD - 'meson install' of BUILD into a scratch DESTDIR, then from '/':
# the installed binary runs; every man page (pagesim(1) and one per command) renders with
# 'man -l' without a troff warning (--warnings); the bash completion loads and completes from the installed
# binary; configs/ is found by name in the installed data directory (the counters equal
# the build's with the source tree's files given by path).  Nothing is written outside
# the scratch directory but BUILD's install log.
set -u
SRC=$(cd "$1" && pwd) BUILD=$(cd "$2" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
for t in man bash; do
	command -v $t > /dev/null || { echo "SKIP: no $t (scripts/install-deps.sh install-test)"; exit 77; }
done
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
meson install -C "$BUILD" --no-rebuild --quiet --destdir "$D" > "$D.log" 2>&1 || { cat "$D.log"; rm -f "$D.log"; fail "meson install"; }
rm -f "$D.log"
bin=$(find "$D" -path '*/bin/pagesim' -type f)
[ -n "$bin" ] && [ -x "$bin" ] || fail "no bin/pagesim installed under DESTDIR"
cd /
v=$("$bin" --version) || fail "$bin --version"
[ "$v" = "$("$BUILD/pagesim" --version)" ] || fail "installed: $v, built: $("$BUILD/pagesim" --version)"
echo "installed $v: ${bin#$D}"

# man pages: pagesim(1) and pagesim-COMMAND(1) for every command, each renders with no troff warning
cmds=$("$bin" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on && $1 != "help" { print $1 }')
n=0
for p in pagesim $(printf 'pagesim-%s ' $cmds); do
	f=$(find "$D" -path "*/man1/$p.1" -type f)
	[ -n "$f" ] || fail "no man page $p(1) installed (is scdoc installed? meson setup --reconfigure)"
	MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$f" > "$D/page" 2> "$D/err" || fail "man -l $f"
	[ -s "$D/err" ] && { cat "$D/err"; fail "man -l ${f#$D}: warnings"; }
	grep -q "^NAME" "$D/page" && grep -q "^ *$p - " "$D/page" || fail "${f#$D} renders without its NAME line"
	n=$((n + 1))
done
echo "$n man pages render: ${f%/*}" | sed "s|$D||"

# bash completion where bash-completion looks, loading and completing from the installed binary
comp=$(find "$D" -path '*/bash-completion/completions/pagesim' -type f)
[ -n "$comp" ] || fail "no bash-completion/completions/pagesim installed"
"$SRC/tests/install/completion.sh" "$bin" "$comp" > "$D/comp" || { cat "$D/comp"; fail "completion"; }
echo "completion loads and completes: ${comp#$D}"
grep -q '^ok: pagesim replay --policy wsf-1 -> wsf-10 wsf-100 wsf-1000$' "$D/comp" || fail "no policy names completed"

# configs found by name in the installed data directory, from /
"$bin" help policies | grep -q "^# policies in $D/.*/share/pagesim/policies$" ||
	fail "the installed binary does not list the installed policies: $("$bin" help policies | grep '^# policies')"
P=$SRC/testdata/numa2/numa2-base.pgs
"$bin" replay -q --mode simulate --policy wsf-100 --machine ivb-ep-2s-64g "$P" > "$D/by-name" ||
	fail "replay --policy wsf-100 --machine ivb-ep-2s-64g from the installed files"
"$BUILD/pagesim" replay -q --mode simulate --policy "$SRC/configs/policies/wsf-100.policy" \
	--machine "$SRC/configs/machines/ivb-ep-2s-64g.machine" "$P" > "$D/by-path" || fail "replay by path"
cmp -s "$D/by-name" "$D/by-path" || { diff "$D/by-path" "$D/by-name" | head; fail "by name (installed) and by path (source) differ"; }
echo "replay --policy wsf-100 --machine ivb-ep-2s-64g from /: $(grep -c . "$D/by-name") counters, as by path ($(grep '^numa_hit ' "$D/by-name"))"
