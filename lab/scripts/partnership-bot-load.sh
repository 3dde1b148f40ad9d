#!/usr/bin/env bash
# Four-player bots on time through the real server (issue #47): `treset up` (server + one agent) on a fresh
# PostgreSQL database, then lab/scripts/partnership-bot-load.py against it; prints its JSON line.
#
#   lab/scripts/partnership-bot-load.sh [TABLES] [LEVEL] [SECONDS] [THINK_S]
set -euo pipefail
TABLES=${1:-10}
LEVEL=${2:-master}
SECONDS_=${3:-120}
THINK=${4:-2}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/treset-bot-load.XXXXXX)
DB="treset_botload_$RANDOM$RANDOM"
createdb -h 127.0.0.1 -U postgres "$DB"
export DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:5432/$DB" TRESET_GUESTS_PER_ADDRESS=100000 \
  TRESET_BOT_TOKEN="load-$RANDOM$RANDOM$RANDOM"
(cd "$WORK" && exec python -m treset.cli up --port 8393 > "$WORK/up.log" 2>&1) &
UP=$!
cleanup() { kill "$UP" 2>/dev/null || true; wait "$UP" 2>/dev/null || true
            dropdb -h 127.0.0.1 -U postgres --if-exists "$DB" || true; rm -rf "$WORK"; }
trap cleanup EXIT
for _ in $(seq 240); do
  curl -sf http://127.0.0.1:8393/healthz | grep -q '"bots_connected": *[1-9]' && break; sleep 0.5
done
cd "$HERE" && python lab/scripts/partnership-bot-load.py --url http://127.0.0.1:8393 --tables "$TABLES" \
  --level "$LEVEL" --seconds "$SECONDS_" --think "$THINK"
