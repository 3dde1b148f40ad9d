#!/bin/sh
# Duplicate matches to 21 between the match-aware master and another player (default: the deal-only master,
# `,nomatch`), in chunks of 20 pairs that survive an interrupted session; pool them with
# `python3 -m lab.match_arena --pool OUTDIR/*.json`.
# Usage: lab/scripts/match-chunks.sh VARIANT OUTDIR ITERATIONS CHUNKS [B-OPTIONS]
#   (B is mcts:iITERATIONS,B-OPTIONS; stops early when OUTDIR/stop exists)
set -e
variant=$1; out=$2; iters=$3; chunks=$4; b_options=${5:-nomatch}
mkdir -p "$out"
i=0
while [ "$i" -lt "$chunks" ] && [ ! -e "$out/stop" ]; do
  first=$((i * 20))
  nice python3 -m lab.match_arena "mcts:i$iters" "mcts:i$iters,$b_options" --variant "$variant" --target 21 \
    --pairs 20 --first "$first" --seed 32 --json "$out/chunk-$first.json"
  i=$((i + 1))
done
