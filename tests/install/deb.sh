#!/bin/bash
# deb.sh SRC BUILD - the Debian package: 'dpkg-buildpackage -b -us -uc' on a copy of the
# tree in a scratch directory (dpkg-buildpackage writes ../*.deb: they land there, and
# nothing is written into SRC), unpacked with 'dpkg -x' into a scratch root; from '/', the
# packaged binary prints its version (the package's), lists and finds configs by name in
# the packaged data directory and replays --policy wsf-100 --machine ivb-ep-2s-64g with the
# counters BUILD's binary gives with the source tree's files; the man pages render.  The
# package's own test run is left out (nocheck): the suite running this test is the same.
set -u
SRC=$(cd "$1" && pwd) BUILD=$(cd "$2" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
for t in dpkg-buildpackage dpkg-checkbuilddeps dh man; do
	command -v $t > /dev/null || { echo "SKIP: no $t (scripts/install-deps.sh deb)"; exit 77; }
done
(cd "$SRC" && dpkg-checkbuilddeps -Pnocheck) > /dev/null 2>&1 ||
	{ echo "SKIP: $(cd "$SRC" && dpkg-checkbuilddeps -Pnocheck 2>&1) (scripts/install-deps.sh deb)"; exit 77; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# what dpkg-buildpackage run in SRC would leave: files in the tree, packages beside it
state() {
	git -C "$SRC" status --porcelain --ignored 2> /dev/null
	ls "$SRC/.." | grep -E '^pagesim[-_].*\.(deb|ddeb|changes|buildinfo)$'
}
state > "$W/before" 2>&1

# the tree as a clone would have it: git's files (tracked and new, not ignored), else all but build directories
mkdir "$W/pagesim"
if git -C "$SRC" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	(cd "$SRC" && git ls-files -z -co --exclude-standard | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' _ |
		tar --null -T - -cf -) | tar -C "$W/pagesim" -xf -
else
	tar -C "$SRC" --exclude=.git --exclude='./build*' --exclude='./obj-*' --exclude='./debian/pagesim' -cf - . | tar -C "$W/pagesim" -xf -
fi || fail "copying the tree"
start=$(date +%s)
(cd "$W/pagesim" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -b -us -uc -Pnocheck) > "$W/build.log" 2>&1 ||
	{ tail -40 "$W/build.log"; fail "dpkg-buildpackage -b -us -uc"; }
deb=$(ls "$W"/pagesim_*.deb 2> /dev/null | head -1)
[ -n "$deb" ] || fail "no pagesim_*.deb beside the tree"
version=$(dpkg-deb -f "$deb" Version)
echo "built $(basename "$deb") in $(($(date +%s) - start)) s: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -c "$deb" | awk '{ print $6 }' > "$W/contents"
for f in ./usr/bin/pagesim ./usr/share/man/man1/pagesim.1.gz ./usr/share/man/man1/pagesim-replay.1.gz \
	./usr/share/bash-completion/completions/pagesim ./usr/share/pagesim/policies/wsf-100.policy \
	./usr/share/pagesim/machines/ivb-ep-2s-64g.machine ./usr/share/doc/pagesim/copyright; do
	grep -qx -- "$f" "$W/contents" || fail "the package lacks $f"
done

mkdir "$W/root"
dpkg -x "$deb" "$W/root" || fail "dpkg -x"
bin=$W/root/usr/bin/pagesim
cd /
[ "$("$bin" --version)" = "pagesim ${version%%-*}" ] || fail "packaged binary says '$("$bin" --version)', the package is $version"
echo "$("$bin" --version) from the package, run from /"
"$bin" help machines | grep -qx "# machines in $W/root/usr/share/pagesim/machines" ||
	fail "the packaged binary does not list the packaged machines: $("$bin" help machines | head -1)"
P=$SRC/testdata/numa2/numa2-base.pgs
"$bin" replay -q --mode simulate --policy wsf-100 --machine ivb-ep-2s-64g "$P" > "$W/by-name" ||
	fail "the packaged binary: replay --policy wsf-100 --machine ivb-ep-2s-64g"
"$BUILD/pagesim" replay -q --mode simulate --policy "$SRC/configs/policies/wsf-100.policy" \
	--machine "$SRC/configs/machines/ivb-ep-2s-64g.machine" "$P" > "$W/by-path" || fail "replay by path"
cmp -s "$W/by-name" "$W/by-path" || { diff "$W/by-path" "$W/by-name" | head; fail "the package's counters differ from the build's"; }
echo "replay --policy wsf-100 --machine ivb-ep-2s-64g: $(grep -c . "$W/by-name") counters, the build's ($(grep '^numa_hit ' "$W/by-name"))"
for f in "$W"/root/usr/share/man/man1/*.1.gz; do
	man --warnings -l "$f" > /dev/null 2> "$W/err" && ! [ -s "$W/err" ] || { cat "$W/err"; fail "man -l ${f#$W/root}"; }
done
echo "$(ls "$W"/root/usr/share/man/man1 | wc -l) man pages render"
state > "$W/after" 2>&1
cmp -s "$W/before" "$W/after" || { diff "$W/before" "$W/after"; fail "the source tree or its parent changed"; }
echo "nothing written into the source tree or beside it"
