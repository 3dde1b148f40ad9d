#!/usr/bin/env bash
# Issue #25's "measured gain" on points: the agent at 2,000 iterations with the policy fitted on its
# games against `greedy` (lab/results/gain/greedy-policy.json) and with the shipped policy, each against
# `greedy` on the same duplicate deals, both arms side by side (one process each), in chunks that resume.
#
#   lab/scripts/policy-gain-points.sh VARIANT SEED FIRST LAST [OUTDIR] [CHUNK]
#
# writes OUTDIR/{fitted,shipped}/VARIANT-SEED-K.json (default OUTDIR lab/results/policy-gain-points,
# CHUNK 250; arena-chunks.sh skips chunks already there) and prints the paired comparison of all the
# chunks of VARIANT-SEED in OUTDIR: win rates and mean points per game (thirds), with 95% intervals.
# Tressette ran seed 2501, Kifameno seed 2502: the deals of lab/results/gain/ (the first 1,000 / 600).
set -euo pipefail
variant=$1 seed=$2 first=$3 last=$4 chunk=${6:-250}
root=$(cd "$(dirname "$0")/../.." && pwd)
outdir=$(realpath -m "${5:-$root/lab/results/policy-gain-points}")
policy=lab/results/gain/greedy-policy.json
chunks="$root/lab/scripts/arena-chunks.sh"
nice -n 19 bash "$chunks" "mcts:i2000,policy=$policy" greedy "$variant" "$seed" "$first" "$last" "$outdir/fitted" "$chunk" &
nice -n 19 bash "$chunks" mcts:i2000 greedy "$variant" "$seed" "$first" "$last" "$outdir/shipped" "$chunk" &
wait
cd "$root"
join() { local IFS=,; echo "$*"; }
python3 -m agent.cli pool --compare "$(join "$outdir"/fitted/"$variant-$seed"-*.json)" \
  "$(join "$outdir"/shipped/"$variant-$seed"-*.json)"
