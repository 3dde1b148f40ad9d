#!/usr/bin/env bash
# What scraping /metrics costs a loaded server: the same load test with and without a scraper, alternating.
#
#   lab/scripts/metrics-cost.sh [TABLES] [THINK_MS] [ROUNDS] [EVERY_S] [BEFORE]
#
# Each round runs two servers one after the other, each on a fresh PostgreSQL database (127.0.0.1:5432,
# user postgres): one with nothing reading /metrics, one scraped every EVERY_S seconds (5 by default,
# Prometheus's usual 15 s made tighter) throughout the load test; the order alternates between rounds,
# so a drift of the machine's load falls on both. With BEFORE (a commit, e.g. the one before the
# metrics), a third server per round is that commit's (`git archive`d to a temporary folder, no
# /metrics at all): what counting on the move path costs. Every move is checked in the database.
# Prints one JSON line per run: moves/s, the move round trip's p50/p99, the scrapes and their mean time.
set -euo pipefail
TABLES=${1:-200}
THINK=${2:-0}
ROUNDS=${3:-3}
EVERY=${4:-5}
BEFORE=${5:-}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mktemp -d /tmp/treset-metrics-cost.XXXXXX)
if [ -n "$BEFORE" ]; then mkdir "$OUT/before" && git -C "$HERE" archive "$BEFORE" | tar -x -C "$OUT/before"; fi
export TRESET_GUESTS_PER_ADDRESS=1000000 TRESET_AUTH_PER_ADDRESS=1000000 PYTHONUNBUFFERED=1
PORT=${PORT:-8393}

run() {  # run MODE (plain | scraped | before)
  local mode=$1 db="treset_mcost_$RANDOM$RANDOM" tree=$HERE
  [ "$mode" = before ] && tree=$OUT/before
  createdb -h 127.0.0.1 -U postgres "$db"
  local url="postgresql+psycopg://postgres@127.0.0.1:5432/$db" base="http://127.0.0.1:$PORT"
  (cd "$tree" && DATABASE_URL=$url PYTHONPATH=$tree exec prlimit --nofile=20000:20000 python -m server.cli --port "$PORT") \
      > "$OUT/$mode.log" 2>&1 &
  local server=$!
  for _ in $(seq 120); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.5; done
  local scraper=""
  : > "$OUT/scrapes"
  if [ "$mode" = scraped ]; then
    (while true; do curl -s -o /dev/null -w '%{time_total}\n' "$base/metrics" >> "$OUT/scrapes"; sleep "$EVERY"; done) &
    scraper=$!
  fi
  local figures
  figures=$(cd "$HERE" && PYTHONPATH=$HERE prlimit --nofile=20000:20000 python -m server.tools.loadtest --url "$base" \
      --tables "$TABLES" --think-ms "$THINK" --database-url "$url" || true)
  [ -n "$scraper" ] && kill "$scraper" 2>/dev/null && wait "$scraper" 2>/dev/null || true
  local moves_metric
  moves_metric=$(curl -s "$base/metrics" | awk '/^treset_moves_total/ {s += $2} END {print s + 0}')
  kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true
  dropdb -h 127.0.0.1 -U postgres --force "$db"
  echo "$figures" | MODE=$mode MOVES=$moves_metric SCRAPES="$OUT/scrapes" python3 -c "
import json, os, sys
d = json.load(sys.stdin)
times = [float(t) for t in open(os.environ['SCRAPES']).read().split()]
print(json.dumps({'mode': os.environ['MODE'], 'moves_per_s': d['moves_per_s'], 'p50_ms': d['rtt_ms_p50'],
                  'p99_ms': d['rtt_ms_p99'], 'seconds': d['seconds'], 'moves_in_db': d.get('database', {}).get('moves'),
                  'treset_moves_total': float(os.environ['MOVES']), 'scrapes': len(times),
                  'scrape_ms': round(1000 * sum(times) / len(times), 1) if times else None, 'ok': d['ok']}))"
}

modes=(plain scraped)
[ -n "$BEFORE" ] && modes+=(before)
for round in $(seq "$ROUNDS"); do  # the order turns each round
  for i in "${!modes[@]}"; do run "${modes[$(( (i + round - 1) % ${#modes[@]} ))]}"; done
done
rm -rf "$OUT"
