#!/usr/bin/env bash
# Measures hearth-sim against HAP-python 5.0.0 with HAPLoad (Benchmarks/HAPLoad), in one run, same client, same
# accessory set (docs/benchmarks.md):
#   1. load: a bridge with 3 lightbulbs, event coalescing off; pair-verify latency, sequential reads on 1 session,
#      reads over 8 sessions, sequential writes, the server's CPU time per request from /proc/PID/stat, and event
#      latency (write on one session -> event on another);
#   2. memory: VmRSS idle with one lightbulb, and with a bridge of 150 accessories (149 lightbulbs) before and
#      with 16 verified sessions open.
# Each server runs in a network namespace of its own making and HAPLoad in a second one, joined by a veth pair;
# neither namespace has a route anywhere else, and nothing is advertised over mDNS. Needs root (ip netns).
#
# Usage: scripts/bench-simulator.sh [OUTDIR]     environment: COUNT=20000 SECONDS_MAX=30 SESSIONS=8 SKIP_BUILD=1
#        SIM=PATH (another hearth-sim build, e.g. an older commit's, for a before/after pair)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/.build/bench-simulator/$(date +%Y%m%d-%H%M%S)}"
COUNT="${COUNT:-20000}"
SECONDS_MAX="${SECONDS_MAX:-30}"
SESSIONS="${SESSIONS:-8}"
PIN=031-45-154
PORT=51826
mkdir -p "$OUT"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    "$ROOT/scripts/setup-peers.sh"
    (cd "$ROOT" && swift build -c release --product hearth-sim)
    (cd "$ROOT/Benchmarks" && swift build -c release --product HAPLoad)
fi
PY="$ROOT/.venv/bin/python"
SIM="${SIM:-$ROOT/.build/release/hearth-sim}"
LOAD="$ROOT/Benchmarks/.build/release/HAPLoad"
BRIDGE="$ROOT/Benchmarks/peers/pyhap_lights.py"

# Two namespaces named after this shell's PID, a veth pair created inside them, addresses from the benchmarking
# range 198.18.0.0/15 that exist only there.
TAG="hsb$$"
NS_ACC="$TAG-acc"
NS_CTL="$TAG-ctl"
ACC_IP=198.18.94.1
CTL_IP=198.18.94.2
SERVER_PID=""
cleanup() {
    if [[ -n "$SERVER_PID" ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    ip netns del "$NS_ACC" 2>/dev/null || true
    ip netns del "$NS_CTL" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$NS_ACC"
ip netns add "$NS_CTL"
ip link add "${TAG}a" netns "$NS_ACC" type veth peer name "${TAG}c" netns "$NS_CTL"
for side in "$NS_ACC ${TAG}a $ACC_IP" "$NS_CTL ${TAG}c $CTL_IP"; do
    read -r ns dev ip <<<"$side"
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip addr add "$ip/24" dev "$dev"
    ip netns exec "$ns" ip link set "$dev" up
done

# start NAME COMMAND...: runs a server in the accessory namespace and waits until it listens.
start() {
    local name=$1
    shift
    ip netns exec "$NS_ACC" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" &
    SERVER_PID=$! # `ip netns exec` execs, so this is the server's own PID
    for _ in $(seq 1 300); do
        if ip netns exec "$NS_CTL" bash -c "exec 3<>/dev/tcp/$ACC_IP/$PORT" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "$name did not start listening:" >&2
    cat "$OUT/$name.err" >&2
    exit 1
}

stop() {
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

rss() { awk '/^VmRSS:/ {print $2}' "/proc/$SERVER_PID/status"; }

# load NAME ARGS...: HAPLoad from the controller namespace against the running server.
load() {
    local name=$1
    shift
    ip netns exec "$NS_CTL" "$LOAD" --host "$ACC_IP" --port "$PORT" --setup-code "$PIN" --server-pid "$SERVER_PID" \
        --pairing-file "$OUT/$name.pairing.json" "$@" >"$OUT/$name.json" 2>"$OUT/$name.log"
    cat "$OUT/$name.log"
}

sim() { # STATE-NAME ARGS...
    local state="$OUT/state-$1"
    shift
    rm -rf "$state"
    start "sim-$(basename "$state")" "$SIM" serve --state "$state" --port "$PORT" --setup-code "$PIN" --no-mdns \
        --bind "$ACC_IP" "$@"
}

pyhap() { # STATE-NAME ARGS...
    local state="$OUT/state-$1"
    shift
    rm -rf "$state" && mkdir -p "$state"
    start "pyhap-$(basename "$state")" "$PY" "$BRIDGE" --address "$ACC_IP" --port "$PORT" --pincode "$PIN" \
        --state-file "$state/accessory.state" "$@"
}

for server in hearth-sim hap-python; do
    echo "== $server: load, bridge of 3 lightbulbs"
    if [[ $server == hearth-sim ]]; then
        sim load --bridge --preset lightbulb:3 --coalesce-milliseconds 0
    else
        pyhap load --lights 3 --coalesce-seconds 0
    fi
    load "$server-load" --count "$COUNT" --seconds "$SECONDS_MAX" --sessions "$SESSIONS" --verify-reps 50 \
        --event-reps 200
    stop

    echo "== $server: memory, one lightbulb, idle"
    if [[ $server == hearth-sim ]]; then sim idle --preset lightbulb; else pyhap idle --lights 1; fi
    sleep 2
    echo "{\"server_rss_kb_idle\": $(rss)}" | tee "$OUT/$server-idle.json"
    stop

    echo "== $server: memory, 150 accessories, 16 verified sessions"
    if [[ $server == hearth-sim ]]; then sim bridge150 --bridge --preset lightbulb:149; else pyhap bridge150 --lights 149; fi
    sleep 2
    load "$server-bridge150" --count 200 --seconds 10 --sessions 2 --verify-reps 0 --hold-sessions 16
    stop
done

"$PY" - "$OUT" <<'PYEOF' | tee "$OUT/summary.md"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
def get(name):
    path = out / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else {}
rows = [
    ("pair-setup (ms, 1 run)", "pair_setup_ms", "{:.1f}"),
    ("pair-verify p50 (ms)", "pair_verify_p50_ms", "{:.2f}"),
    ("pair-verify p99 (ms)", "pair_verify_p99_ms", "{:.2f}"),
    ("read, 1 session: reads/s", "read_sequential_per_second", "{:.0f}"),
    ("read, 1 session: p50 (ms)", "read_sequential_p50_ms", "{:.3f}"),
    ("read, 1 session: p99 (ms)", "read_sequential_p99_ms", "{:.3f}"),
    ("read, 1 session: server CPU ms/request", "read_sequential_server_cpu_ms_per_request", "{:.4f}"),
    ("read, 1 session: requests per server CPU second", "read_sequential_requests_per_server_cpu_second", "{:.0f}"),
    ("read, 8 sessions: reads/s", "read_parallel_per_second", "{:.0f}"),
    ("read, 8 sessions: p99 (ms)", "read_parallel_p99_ms", "{:.3f}"),
    ("read, 8 sessions: server CPU ms/request", "read_parallel_server_cpu_ms_per_request", "{:.4f}"),
    ("read, 8 sessions: requests per server CPU second", "read_parallel_requests_per_server_cpu_second", "{:.0f}"),
    ("write, 1 session: writes/s", "write_sequential_per_second", "{:.0f}"),
    ("write, 1 session: p50 (ms)", "write_sequential_p50_ms", "{:.3f}"),
    ("write, 1 session: p99 (ms)", "write_sequential_p99_ms", "{:.3f}"),
    ("write, 1 session: server CPU ms/request", "write_sequential_server_cpu_ms_per_request", "{:.4f}"),
    ("write, 1 session: requests per server CPU second", "write_sequential_requests_per_server_cpu_second", "{:.0f}"),
    ("event, write on B -> event on A: p50 (ms)", "event_write_to_event_p50_ms", "{:.3f}"),
    ("event, write on B -> event on A: p99 (ms)", "event_write_to_event_p99_ms", "{:.3f}"),
]
sim, py = get("hearth-sim-load"), get("hap-python-load")
print("| HAPLoad | hearth-sim | HAP-python | ratio |\n|---|---:|---:|---:|")
for label, key, fmt in rows:
    a, b = sim.get(key), py.get(key)
    cell = lambda v: fmt.format(v) if isinstance(v, (int, float)) else "n/a"
    ratio = ""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a and b:
        better_low = "ms" in label
        ratio = "{:.1f}x".format(b / a if better_low else a / b)
    print(f"| {label} | {cell(a)} | {cell(b)} | {ratio} |")
print("\n| VmRSS (MB) | hearth-sim | HAP-python |\n|---|---:|---:|")
mem = [
    ("one lightbulb, idle", "idle", "server_rss_kb_idle"),
    ("150 accessories, idle", "bridge150", "server_rss_kb_start"),
    ("150 accessories, 16 verified sessions", "bridge150", "server_rss_kb_with_held_sessions"),
]
for label, name, key in mem:
    a, b = get(f"hearth-sim-{name}").get(key), get(f"hap-python-{name}").get(key)
    cell = lambda v: "{:.1f}".format(v / 1024) if isinstance(v, (int, float)) else "n/a"
    print(f"| {label} | {cell(a)} | {cell(b)} |")
PYEOF
echo "results in $OUT"
