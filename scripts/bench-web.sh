#!/usr/bin/env bash
# Issue 22's benchmark: hearthd's web page in headless Chromium over the DevTools protocol, on a 150-accessory
# home (hearth-sim's bridge with `--preset lightbulb:149`), and in the same run Home Assistant's dashboard of 150
# lights measured by its own harness (../shared/peers/ha/frontend), with the same figures and definitions
# (Benchmarks/peers/hearth_web_bench.py says how each is taken). Prints a table with the ratios.
#
# Usage (root, for `ip netns`):  scripts/bench-web.sh [OUTDIR]
# Environment (defaults):
#   RUNS=5 UPDATES=20           cold loads; API changes timed on the last (both sides)
#   ACCESSORY_UPDATES=200       changes at the accessory timed on the last run (Hearth only)
#   RATE=100 SECONDS_AT_RATE=10 changes a second at the accessories while frames are watched (Hearth only)
#   HA_FRONTEND=../shared/peers/ha/frontend   Home Assistant's harness; empty: Hearth only
#   HEARTHD=.build/release/hearthd HEARTH_SIM=.build/release/hearth-sim   (built with BUILD=1)
#   NS=hearthweb                the namespace of the Hearth run (only `lo`; HA's harness makes its own)
# Everything of the Hearth run is inside a namespace made here with only loopback: hearth-sim (no mDNS, paired
# by address), hearthd, Chromium. Only the PIDs started here are stopped; every wait is bounded.
# Writes OUTDIR/hearth-runs.json, OUTDIR/ha/ (the harness's own results), OUTDIR/summary.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${RUNS:-5}"; UPDATES="${UPDATES:-20}"; ACCESSORY_UPDATES="${ACCESSORY_UPDATES:-200}"
RATE="${RATE:-100}"; SECONDS_AT_RATE="${SECONDS_AT_RATE:-10}"
HA_FRONTEND="${HA_FRONTEND-$ROOT/../shared/peers/ha/frontend}"
HEARTHD="${HEARTHD:-$ROOT/.build/release/hearthd}"; HEARTH_SIM="${HEARTH_SIM:-$ROOT/.build/release/hearth-sim}"
PY="${PY:-$ROOT/.venv/bin/python}"
NS="${NS:-hearthweb}"
PIN="031-45-154"; SIM_PORT=51826; CONTROL_PORT=51899; API_PORT=7878

[ "$(id -u)" = 0 ] || { echo "needs root (ip netns)" >&2; exit 2; }
if [ "${BUILD:-0}" = 1 ]; then
    (cd "$ROOT" && swift build -c release --product hearthd && swift build -c release --product hearth-sim)
fi
[ -x "$HEARTHD" ] || { echo "no hearthd at $HEARTHD (BUILD=1 builds it)" >&2; exit 2; }
[ -x "$HEARTH_SIM" ] || { echo "no hearth-sim at $HEARTH_SIM (BUILD=1 builds it)" >&2; exit 2; }
[ -x "$PY" ] || { echo "no Python venv at $PY: run scripts/setup-peers.sh" >&2; exit 2; }
command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
if ip netns list | awk '{print $1}' | grep -qx "$NS"; then echo "namespace $NS exists (another run?); set NS=" >&2; exit 2; fi

OUT="${1:-$ROOT/.build/bench-web/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
WORK="$(mktemp -d /tmp/hearth-bench-web.XXXXXX)"
SIM_PID=""; HUB_PID=""

stop() {   # PID: TERM, then KILL after 5 s
    [ -n "$1" ] || return 0
    kill "$1" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
cleanup() {
    stop "$HUB_PID"; stop "$SIM_PID"
    if ip netns list | awk '{print $1}' | grep -qx "$NS"; then ip netns del "$NS"; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- Sources || echo ' (modified)')"
    echo "host: $(uname -sr), $(nproc) cores; loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "chromium: $(chromium --version 2>/dev/null | head -1)"
    echo "hearthd: $HEARTHD (built $(date -u -r "$HEARTHD" +%Y-%m-%dT%H:%MZ)); hearth-sim: $HEARTH_SIM"
    echo "settings: RUNS=$RUNS UPDATES=$UPDATES ACCESSORY_UPDATES=$ACCESSORY_UPDATES RATE=$RATE" \
        "SECONDS_AT_RATE=$SECONDS_AT_RATE; accessory: hearth-sim bridge, lightbulb:149, --coalesce-milliseconds 0"
} | tee "$OUT/conditions.txt"

# 1. Hearth: a namespace with only loopback.
ip netns add "$NS"
ip netns exec "$NS" ip link set lo up
mkdir -p "$WORK/sim" "$WORK/hub"
ip netns exec "$NS" "$HEARTH_SIM" serve --state "$WORK/sim" --no-mdns --port "$SIM_PORT" --bridge \
    --setup-code "$PIN" --control "127.0.0.1:$CONTROL_PORT" --coalesce-milliseconds 0 --json \
    --preset lightbulb:149 >"$OUT/hearth-accessory.out" 2>"$OUT/hearth-accessory.err" &
SIM_PID=$!   # `ip netns exec` execs: this is hearth-sim's own PID
for _ in $(seq 1 300); do grep -q '"port"' "$OUT/hearth-accessory.out" 2>/dev/null && break; sleep 0.1; done
grep -q '"port"' "$OUT/hearth-accessory.out" || { echo "hearth-sim did not start" >&2; cat "$OUT/hearth-accessory.err" >&2; exit 1; }
ip netns exec "$NS" "$HEARTHD" --state "$WORK/hub" --address 127.0.0.1 --port "$API_PORT" --no-user-config \
    --log-level warning >"$OUT/hearthd.log" 2>&1 &
HUB_PID=$!
for _ in $(seq 1 300); do [ -s "$WORK/hub/owner.token" ] && break; sleep 0.1; done
[ -s "$WORK/hub/owner.token" ] || { echo "hearthd did not start" >&2; cat "$OUT/hearthd.log" >&2; exit 1; }
for _ in $(seq 1 100); do
    ip netns exec "$NS" "$PY" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$API_PORT/app/app.css', timeout=1)" \
        2>/dev/null && break
    sleep 0.1
done
URL="http://127.0.0.1:$API_PORT"
rc=0
ip netns exec "$NS" "$PY" "$ROOT/Benchmarks/peers/hearth_web_bench.py" setup --url "$URL" \
    --token-file "$WORK/hub/owner.token" --accessory "127.0.0.1:$SIM_PORT" --pin "$PIN" --out "$OUT/hearth-setup.json"
ip netns exec "$NS" "$PY" "$ROOT/Benchmarks/peers/hearth_web_bench.py" run --url "$URL" \
    --token-file "$WORK/hub/owner.token" --control "127.0.0.1:$CONTROL_PORT" --setup "$OUT/hearth-setup.json" \
    --runs "$RUNS" --updates "$UPDATES" --accessory-updates "$ACCESSORY_UPDATES" --rate "$RATE" \
    --seconds "$SECONDS_AT_RATE" --work "$WORK/chromium" --shot "$OUT" --out "$OUT/hearth-runs.json" \
    >"$OUT/hearth-bench.log" 2>&1 || rc=1
echo "hearthd at the end: $(grep VmRSS /proc/$HUB_PID/status 2>/dev/null | tr -s ' ')" >>"$OUT/conditions.txt"
stop "$HUB_PID"; HUB_PID=""
stop "$SIM_PID"; SIM_PID=""
ip netns del "$NS"

# 2. Home Assistant's dashboard, its own harness and namespace, same settings.
HA_JSON=""
if [ -n "$HA_FRONTEND" ]; then
    RUNS="$RUNS" UPDATES="$UPDATES" LIGHTS=150 "$HA_FRONTEND/run_frontend_bench.sh" "$OUT/ha" >"$OUT/ha-run.out" 2>&1 || rc=1
    HA_JSON="$OUT/ha/runs.json"
fi
echo "loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/conditions.txt"

"$PY" "$ROOT/Benchmarks/peers/hearth_web_bench.py" report "$OUT/hearth-runs.json" $HA_JSON | tee "$OUT/summary.md"
echo "results in $OUT (exit $rc)"
exit "$rc"
