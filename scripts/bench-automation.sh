#!/usr/bin/env bash
# Issue 17's end-to-end automation benchmark: Hearth's hub (hearthd) and, in the same run with the same accessory,
# Home Assistant 2024.3.3, measured the way ../shared/peers/ha measures Home Assistant: a change at a hearth-sim
# lamp made through its control socket → the hub's automation → the write to a second lamp, seen by an observer
# HAP session; the hub's CPU per firing net of idle, and its RSS. Event coalescing is off on the accessory.
#
# Usage (root, for `ip netns`):  scripts/bench-automation.sh [OUTDIR]
# Environment (defaults):
#   FIRINGS=300 REST_CALLS=200 IDLE_SECONDS=30   firings per trigger, REST writes, idle windows (s)
#   TRACE=0                     1: `perf trace` of hearthd's reads and writes, and the hub's own event -> write
#                               (Benchmarks/peers/hearth_event_write.py; OUT/event-write.txt)
#   HA_HARNESS=                 the Home Assistant harness folder (../shared/peers/ha); empty: Hearth only
#   HA_VENV=/tmp/hearth-ha-venv its venv (made by $HA_HARNESS/setup_ha_venv.sh from PyPI when missing)
#   HA_REST_CALLS=50 HA_IDLE_SECONDS=10          the Home Assistant run's REST calls and idle windows
#   HEARTHD=.build/release/hearthd HEARTH_SIM=.build/release/hearth-sim   (built with BUILD=1)
#   NS_PREFIX=hearthab NET_PREFIX=198.18.93      the namespaces and addresses of the Hearth run
# Everything runs inside two network namespaces made here (no default route; multicast only on their veth) and
# loopback inside them; only the PIDs started here are stopped; every wait is bounded. Writes OUTDIR/hearth.json,
# OUTDIR/ha/ (the harness's own results) and OUTDIR/summary.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FIRINGS="${FIRINGS:-300}"; REST_CALLS="${REST_CALLS:-200}"; IDLE_SECONDS="${IDLE_SECONDS:-30}"
HA_HARNESS="${HA_HARNESS:-}"; HA_VENV="${HA_VENV:-/tmp/hearth-ha-venv}"
HA_REST_CALLS="${HA_REST_CALLS:-50}"; HA_IDLE_SECONDS="${HA_IDLE_SECONDS:-10}"
HEARTHD="${HEARTHD:-$ROOT/.build/release/hearthd}"; HEARTH_SIM="${HEARTH_SIM:-$ROOT/.build/release/hearth-sim}"
PY="${PY:-$ROOT/.venv/bin/python}"
NS_PREFIX="${NS_PREFIX:-hearthab}"; NET_PREFIX="${NET_PREFIX:-198.18.93}"
NS_ACC="$NS_PREFIX-acc"; NS_CTL="$NS_PREFIX-ctl"; ACC_IP="$NET_PREFIX.1"; CTL_IP="$NET_PREFIX.2"
VETH_ACC="${VETH_ACC:-hab-acc}"; VETH_CTL="${VETH_CTL:-hab-ctl}"
PIN="031-45-154"; PORT=51826; CONTROL_PORT=51899

[ "$(id -u)" = 0 ] || { echo "needs root (ip netns)" >&2; exit 2; }
if [ "${BUILD:-0}" = 1 ]; then
    (cd "$ROOT" && swift build -c release --product hearthd && swift build -c release --product hearth-sim)
fi
[ -x "$HEARTHD" ] || { echo "no hearthd at $HEARTHD (BUILD=1 builds it)" >&2; exit 2; }
[ -x "$HEARTH_SIM" ] || { echo "no hearth-sim at $HEARTH_SIM (BUILD=1 builds it)" >&2; exit 2; }
[ -x "$PY" ] || { echo "no Python venv at $PY: run scripts/setup-peers.sh" >&2; exit 2; }

OUT="${1:-$ROOT/.build/bench-automation/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
WORK="$(mktemp -d /tmp/hearth-bench-automation.XXXXXX)"
SIM_PID=""

ns_exists() { ip netns list | awk '{print $1}' | grep -qx "$1"; }
ns_down() { for ns in "$NS_ACC" "$NS_CTL"; do if ns_exists "$ns"; then ip netns del "$ns"; fi; done; }
ns_side() {   # namespace, veth, address
    ip netns exec "$1" ip link set lo up
    ip netns exec "$1" ip link set "$2" multicast on
    ip netns exec "$1" ip addr add "$3/24" dev "$2"
    ip netns exec "$1" ip link set "$2" up
    ip netns exec "$1" ip route add 224.0.0.0/4 dev "$2"
    ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || true
}
ns_up() {
    ns_down
    ip netns add "$NS_ACC"; ip netns add "$NS_CTL"
    # The veth pair is made inside the namespaces, never in the root namespace.
    ip link add "$VETH_ACC" netns "$NS_ACC" type veth peer name "$VETH_CTL" netns "$NS_CTL"
    ns_side "$NS_ACC" "$VETH_ACC" "$ACC_IP"
    ns_side "$NS_CTL" "$VETH_CTL" "$CTL_IP"
}
stop_sim() {
    if [ -n "$SIM_PID" ]; then
        kill "$SIM_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$SIM_PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$SIM_PID" 2>/dev/null || true
        wait "$SIM_PID" 2>/dev/null || true
        SIM_PID=""
    fi
}
cleanup() { stop_sim; ns_down || true; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- Sources || echo ' (modified)')"
    echo "host: $(uname -sr), $(nproc) cores; loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "hearthd: $HEARTHD (built $(date -u -r "$HEARTHD" +%Y-%m-%dT%H:%MZ)); hearth-sim: $HEARTH_SIM"
    echo "settings: FIRINGS=$FIRINGS REST_CALLS=$REST_CALLS IDLE_SECONDS=$IDLE_SECONDS; accessory: hearth-sim bridge," \
        "lightbulb:3 door-lock motion-sensor, --coalesce-milliseconds 0"
} | tee "$OUT/conditions.txt"

# 1. Hearth.
ns_up
mkdir -p "$WORK/sim"
ip netns exec "$NS_ACC" "$HEARTH_SIM" serve --state "$WORK/sim" --interface "$ACC_IP" --port "$PORT" --bridge \
    --setup-code "$PIN" --control "$ACC_IP:$CONTROL_PORT" --coalesce-milliseconds 0 --json \
    --preset lightbulb:3 --preset door-lock --preset motion-sensor >"$OUT/hearth-accessory.out" 2>"$OUT/hearth-accessory.err" &
SIM_PID=$!   # `ip netns exec` execs: this is hearth-sim's own PID
for _ in $(seq 1 150); do grep -q '"port"' "$OUT/hearth-accessory.out" 2>/dev/null && break; sleep 0.1; done
grep -q '"port"' "$OUT/hearth-accessory.out" || { echo "hearth-sim did not start" >&2; cat "$OUT/hearth-accessory.err" >&2; exit 1; }
rc=0
ip netns exec "$NS_CTL" "$PY" "$ROOT/Benchmarks/peers/hearth_automation_bench.py" run --hearthd "$HEARTHD" \
    --state "$WORK/hearthd" --log "$OUT/hearthd.log" --out "$OUT/hearth.json" --accessory "$ACC_IP:$PORT" \
    --control "$ACC_IP:$CONTROL_PORT" --pin "$PIN" --firings "$FIRINGS" --rest-calls "$REST_CALLS" \
    --idle-seconds "$IDLE_SECONDS" 2>"$OUT/hearth-bench.err" &
BENCH_PID=$!
TRACE_PID=""
if [ "${TRACE:-0}" = 1 ]; then
    # The hub's own event -> write at its syscalls, the whole run long (Benchmarks/peers/hearth_event_write.py).
    HUB_PID=""
    for _ in $(seq 1 300); do
        HUB_PID="$(pgrep -f "^$HEARTHD --state $WORK/hearthd" | head -1 || true)"
        [ -n "$HUB_PID" ] && break; sleep 0.1
    done
    if [ -n "$HUB_PID" ]; then
        perf trace -p "$HUB_PID" -e read,write -o "$OUT/trace.txt" 2>/dev/null &
        TRACE_PID=$!
    else
        echo "TRACE=1: hearthd not found; no trace" >&2
    fi
fi
wait "$BENCH_PID" || rc=1
if [ -n "$TRACE_PID" ]; then
    kill -INT "$TRACE_PID" 2>/dev/null || true
    wait "$TRACE_PID" 2>/dev/null || true
    python3 "$ROOT/Benchmarks/peers/hearth_event_write.py" "$OUT/trace.txt" | tee "$OUT/event-write.txt" || true
fi
echo "accessory (Hearth run): $(awk '{print "utime+stime ticks", $14+$15}' /proc/$SIM_PID/stat 2>/dev/null)" \
    "$(grep VmRSS /proc/$SIM_PID/status 2>/dev/null | tr -s ' ')" >>"$OUT/conditions.txt"
stop_sim
ns_down

# 2. Home Assistant, same accessory (its harness, its own namespaces).
HA_JSON=""
if [ -n "$HA_HARNESS" ]; then
    if [ ! -x "$HA_VENV/bin/hass" ]; then HA_VENV="$HA_VENV" "$HA_HARNESS/setup_ha_venv.sh"; fi
    HA_VENV="$HA_VENV" PEERS_VENV="$ROOT/.venv" HEARTH_SIM="$HEARTH_SIM" ACCESSORIES=sim MODES=small \
        FIRINGS="$FIRINGS" REST_CALLS="$HA_REST_CALLS" IDLE_SECONDS="$HA_IDLE_SECONDS" SIM_COALESCE_MS=0 \
        "$HA_HARNESS/run_ha_bench.sh" "$OUT/ha" >"$OUT/ha-run.out" 2>&1 || rc=1
    HA_JSON="$OUT/ha/sim-small.json"
fi
echo "loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/conditions.txt"

"$PY" "$ROOT/Benchmarks/peers/hearth_automation_bench.py" report "$OUT/hearth.json" $HA_JSON | tee "$OUT/summary.md"
echo "results in $OUT (exit $rc)"
exit "$rc"
