#!/usr/bin/env bash
# Play a long arena match in chunks that survive an interrupted session.
#
#   lab/scripts/arena-chunks.sh A B VARIANT SEED FIRST LAST OUTDIR [CHUNK]
#
# plays deals FIRST..LAST-1 of SEED's series, CHUNK (default 50) at a time, each chunk into
# OUTDIR/VARIANT-SEED-K.json (K = its first deal); chunks already there are skipped, so the same
# command resumes a match. Remove OUTDIR/go to stop after the chunk in progress. The chunks run
# the code of the checkout the script is in; run it from one nobody edits meanwhile (a
# `git worktree`): each chunk imports the code afresh.
# Pool the chunks with `treset-agent pool OUTDIR/VARIANT-SEED-*.json`.
set -euo pipefail
a=$1 b=$2 variant=$3 seed=$4 k=$5 last=$6 outdir=$(realpath -m "$7") chunk=${8:-50}
mkdir -p "$outdir"
cd "$(dirname "$0")/../.."
touch "$outdir/go"
while [ "$k" -lt "$last" ] && [ -f "$outdir/go" ]; do
  n=$(( last - k < chunk ? last - k : chunk ))
  out="$outdir/$variant-$seed-$k.json"
  if [ ! -f "$out" ]; then
    echo "$(date +%T) deals $k-$((k + n - 1)) -> $out ($(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
    python3 -m agent.cli arena "$a" "$b" --deals "$n" --first "$k" --seed "$seed" --variant "$variant" \
      --jobs 1 --no-progress --json "$out.tmp"
    mv "$out.tmp" "$out"
  fi
  k=$(( k + n ))
done
