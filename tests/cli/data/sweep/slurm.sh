#!/bin/sh
# slurm.sh SRC - a 2 x 2 sweep over two bundled traces as a Slurm job array on a
# single-node Slurm of this machine (scripts/slurm-local.sh, started here and
# stopped on exit), against the same sweep run here with -j 2: --collect must
# give byte-identical files (the manifest, every cell, the report).  Then a
# cell file removed: --collect names it and exits 1.  $PAGESIM is the binary.
set -eu
src=$1
tmp=$(mktemp -d)
export PAGESIM_SLURM_PORT=${PAGESIM_SLURM_PORT:-16917}
trap '"$src/scripts/slurm-local.sh" stop "$tmp/slurm"; rm -rf "$tmp"' EXIT
eval "$("$src/scripts/slurm-local.sh" start "$tmp/slurm")"
traces="$src/testdata/numa2/numa2-base.pgs $src/testdata/numa2/numa2-frag.pgs"
axes="--set vm.watermark_scale_factor=10,200 --set vm.zone_reclaim_mode=0,1"

# shellcheck disable=SC2086
"$PAGESIM" sweep -o "$tmp/array" --emit slurm --submit --max-running 2 $axes $traces > "$tmp/submit"
grep -q '^array job [0-9]*$' "$tmp/submit" && grep -q '^collect job [0-9]*$' "$tmp/submit"
grep -q '^#SBATCH --array=0-7%2$' "$tmp/array/slurm/array.sbatch"
grep -q '^#SBATCH --mem=[0-9]*M$' "$tmp/array/slurm/array.sbatch"
collect=$(sed -n 's/^collect job //p' "$tmp/submit")
grep -q '^#SBATCH --dependency' "$tmp/array/slurm/collect.sbatch" && { echo "the dependency belongs on the command line"; exit 1; }
# the array, then the collect job after it
i=0
while [ -n "$(squeue -h 2>/dev/null)" ]; do
	i=$((i + 1))
	[ $i -gt 240 ] && { echo "the jobs did not finish:"; squeue; exit 1; }
	sleep 0.5
done
[ -f "$tmp/array/slurm/collect-$collect.out" ] || { echo "no output of the collect job $collect"; ls "$tmp/array/slurm"; exit 1; }
grep -q '^8 cells: ' "$tmp/array/slurm/collect-$collect.out" || { cat "$tmp/array/slurm/collect-$collect.out"; exit 1; }
echo "array tasks: $(ls "$tmp/array/slurm" | grep -c '_[0-9]*\.out$')"

# shellcheck disable=SC2086
"$PAGESIM" sweep -q -o "$tmp/local" -j 2 $axes $traces > /dev/null
for f in manifest.json report.txt $(cd "$tmp/local" && ls cells/*); do
	cmp "$tmp/local/$f" "$tmp/array/$f" || { echo "differs: $f"; exit 1; }
done
[ "$(ls "$tmp/local/cells" | wc -l)" = "$(ls "$tmp/array/cells" | wc -l)" ]
echo "identical: manifest.json report.txt and $(ls "$tmp/local/cells" | wc -l) cell files"

victim=$(ls "$tmp/array/cells" | head -n 1)
rm "$tmp/array/cells/$victim"
if "$PAGESIM" sweep --collect "$tmp/array" > "$tmp/collect" 2>&1; then
	echo "--collect passed with a cell missing"; exit 1
fi
grep "^missing: cell [0-9]* ${victim%.vmstat} (numa2-" "$tmp/collect"
