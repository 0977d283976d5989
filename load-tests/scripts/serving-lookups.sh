#!/usr/bin/env bash
# Lookup benchmark of the Serving issue: GET /v1/parcels/{id} against the trivial GET /internal/v1/ping of the same
# app, in alternating rounds so both see the same machine; prints each round's ratio. Needs wrk (Debian package) and
# parcels seeded by FreshnessBenchmark --seed N (PARCELS=N, default 1000). Loopback only; stops by itself. Lookups go out
# with the stack's ops token, pings with its internal token (DATA=<data dir>, default .streamhouse).
#   load-tests/scripts/serving-lookups.sh [api-url] [warm-up s] [rounds] [s per phase]
set -euo pipefail
cd "$(dirname "$0")/../.."
API=${1:-http://127.0.0.1:8082}; W=${2:-60}; R=${3:-3}; M=${4:-15}
case "$API" in http://127.0.0.1:*|http://localhost:*) ;; *) echo "loopback only, not $API" >&2; exit 2 ;; esac
LUA=load-tests/src/main/resources/serving-lookup.lua
export PARCELS=${PARCELS:-1000}
DATA=${DATA:-.streamhouse}
OPS="Authorization: Bearer $(cat "$DATA/tokens/ops.jwt")"; INTERNAL="Authorization: Bearer $(cat "$DATA/tokens/internal.jwt")"
echo "== $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
wrk -t2 -c8 -d"${W}s" -H "$OPS" -s "$LUA" "$API" >/dev/null
wrk -t2 -c8 -d10s -H "$INTERNAL" "$API/internal/v1/ping" >/dev/null
for r in $(seq 1 "$R"); do
  L=$(wrk -t2 -c8 -d"${M}s" --latency -H "$OPS" -s "$LUA" "$API")
  P=$(wrk -t2 -c8 -d"${M}s" --latency -H "$INTERNAL" "$API/internal/v1/ping")
  lr=$(awk '/Requests\/sec/{print $2}' <<<"$L"); pr=$(awk '/Requests\/sec/{print $2}' <<<"$P")
  echo "round $r: lookups $lr req/s (p50 $(awk '$1=="50%"{print $2}' <<<"$L"), p99 $(awk '$1=="99%"{print $2}' <<<"$L"))" \
       "| ping $pr req/s (p50 $(awk '$1=="50%"{print $2}' <<<"$P"), p99 $(awk '$1=="99%"{print $2}' <<<"$P"))" \
       "| ratio $(awk -v l="$lr" -v p="$pr" 'BEGIN{printf "%.3f", l/p}')"
done
echo "== $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
