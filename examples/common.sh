# common.sh - sourced by the scenario scripts: where pagesim and the traces are.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
PAGESIM=${PAGESIM:-$root/build/pagesim}
[ -x "$PAGESIM" ] || { echo "build pagesim first: ./setup.sh (or meson setup build && ninja -C build)" >&2; exit 1; }
# OUT: a folder to keep the replays' files in; without it they go to a scratch folder, removed at the end
if [ -n "${OUT:-}" ]; then
	out=$OUT
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
# trace NAME: the bundled pagesim file of a recorded run
trace() {
	if [ -f "$root/testdata/numa2/$1.pgs" ]; then
		echo "$root/testdata/numa2/$1.pgs"
	else
		echo "no trace $1 (testdata/numa2/$1.pgs)" >&2
		exit 1
	fi
}
