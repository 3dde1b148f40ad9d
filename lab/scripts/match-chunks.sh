#!/bin/sh
# Duplicate matches to 21, match-aware master against the deal-only master, in chunks of 20 pairs that
# survive an interrupted session; pool with `python3 -m lab.match_arena --pool DIR/*.json A B`.
# Usage: lab/scripts/match-chunks.sh VARIANT OUTDIR ITERATIONS CHUNKS   (stops early when OUTDIR/stop exists)
set -e
variant=$1; out=$2; iters=$3; chunks=$4
mkdir -p "$out"
i=0
while [ "$i" -lt "$chunks" ] && [ ! -e "$out/stop" ]; do
  first=$((i * 20))
  nice python3 -m lab.match_arena "mcts:i$iters" "mcts:i$iters,nomatch" --variant "$variant" --target 21 \
    --pairs 20 --first "$first" --seed 32 --json "$out/chunk-$first.json"
  i=$((i + 1))
done
