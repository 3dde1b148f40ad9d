#!/usr/bin/env bash
# One load, two servers, the same run: this checkout's server against an older commit's (issue #23).
#
#   lab/scripts/server-vs-baseline.sh [COMMIT] [TABLES] [THINK_MS] [ROUNDS]
#
# COMMIT (default f210ed9, the server before the move writer and the layers) is checked out in a
# git worktree; each round starts the baseline and then the current server, each on a fresh
# PostgreSQL database (127.0.0.1:5432, user postgres), and drives it with this checkout's
# `python -m server.tools.loadtest` (`--token-in-url` for the baseline, which predates the auth
# message). Every move is checked in the database. Prints one JSON line of figures per run, with the
# event loop's lag (lab/scripts/loop-lag.py) for servers that have the metric.
#
# Bisecting a performance change: `git bisect run` with a script that runs this for one round against a
# fixed good commit and exits 1 when the current p99 is over a bound (README, "Contributing").
set -euo pipefail
COMMIT=${1:-f210ed9}
TABLES=${2:-1000}
THINK=${3:-0}
ROUNDS=${4:-1}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
BASE=$(mktemp -d /tmp/treset-baseline.XXXXXX)
git -C "$HERE" worktree add -q --detach "$BASE/tree" "$COMMIT"
cleanup() { git -C "$HERE" worktree remove --force "$BASE/tree" >/dev/null 2>&1 || true; rm -rf "$BASE"; }
trap cleanup EXIT
export TRESET_GUESTS_PER_ADDRESS=1000000 TRESET_AUTH_PER_ADDRESS=1000000 PYTHONUNBUFFERED=1

run() {  # run NAME TREE [loadtest options...]
  local name=$1 tree=$2; shift 2
  local db="treset_bench_$RANDOM$RANDOM"
  createdb -h 127.0.0.1 -U postgres "$db"
  local url="postgresql+psycopg://postgres@127.0.0.1:5432/$db"
  (cd "$tree" && DATABASE_URL=$url prlimit --nofile=20000:20000 python -m server.cli --port 8391 \
      > "$BASE/$name.log" 2>&1) &
  local pid=$!
  for _ in $(seq 120); do curl -sf http://127.0.0.1:8391/healthz >/dev/null && break; sleep 0.5; done
  local figures
  figures=$(cd "$HERE" && prlimit --nofile=20000:20000 python -m server.tools.loadtest --url http://127.0.0.1:8391 \
      --tables "$TABLES" --think-ms "$THINK" --database-url "$url" "$@" || true)
  local lag  # the event loop's lag over the run (servers from issue #42 on): the p99 and the largest bucket seen
  lag=$(python "$HERE/lab/scripts/loop-lag.py" http://127.0.0.1:8391/metrics)
  pkill -TERM -P "$pid" || true; kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  sleep 1
  dropdb -h 127.0.0.1 -U postgres --force "$db"
  echo "$figures" | python -c "import json,sys; d=json.load(sys.stdin); print(json.dumps({'server': '$name', \
'moves_per_s': d['moves_per_s'], 'p50_ms': d['rtt_ms_p50'], 'p99_ms': d['rtt_ms_p99'], 'max_ms': d['rtt_ms_max'], \
'moves_in_db': d.get('database', {}).get('moves'), 'ok': d['ok'], **json.loads('$lag')}))"
}

for _ in $(seq "$ROUNDS"); do
  run "baseline-$COMMIT" "$BASE/tree" --token-in-url
  run current "$HERE"
done
