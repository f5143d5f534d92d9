#!/usr/bin/env bash
# Measures Hearth's controller (Benchmarks/ControllerBench, the HAPController library) and aiohomekit 4.0.1
# (Benchmarks/peers/aiohomekit_controller_bench.py) against the same accessory in one run, and prints a table with
# ratios (docs/benchmarks.md). The accessory is a release-built hearth-sim serving one lightbulb on 127.0.0.1 with
# --no-mdns and event coalescing off; each controller gets a fresh one (same arguments, new state folder), pairs
# with it, and restarts it --reconnect-reps times through a restart script that SIGTERMs the PID it started and
# returns once the new one listens. Nothing leaves loopback, nothing is advertised; no root needed.
#
# Usage: scripts/bench-controller.sh [OUTDIR]
# Environment: PORT=53826 CONTROL_PORT=53827 SETUP_REPS=10 VERIFY_REPS=50 LATENCY_REPS=1000
#              THROUGHPUT_COUNT=50000 THROUGHPUT_SECONDS=5 RECONNECT_REPS=5 SKIP_BUILD=1 ORDER="hearth aiohomekit"
#              BENCH=PATH: another ControllerBench build (another commit's), for before/after runs.
#              SIM_CPUS=0 CONTROLLER_CPUS=0 pin the accessory and the controllers (taskset CPU lists; unpinned when
#              empty). With one request in flight, whether the two share a vCPU decides much of the kernel's
#              wake-up cost on a VM, so pinning both sides alike makes runs comparable.
#              FLOOR_COUNT=50000: round trips of the floor rows, pinned alike: a bare blocking socket ping-pong
#              (Benchmarks/peers/socket_floor.py), the least any request/answer program pays per request on this
#              machine; and the NIO floor (Benchmarks/NIOFloor against socket_floor.py --serve), the same ping-pong
#              through a NIO channel, an actor on its loop and a continuation, as Hearth's controller is built.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/.build/bench-controller/$(date +%Y%m%d-%H%M%S)}"
PORT="${PORT:-53826}"
CONTROL_PORT="${CONTROL_PORT:-53827}"
PIN=031-45-154
ORDER="${ORDER:-hearth aiohomekit}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
SIM_PIN=""
CONTROLLER_PIN=()
[[ -n "${SIM_CPUS:-}" ]] && SIM_PIN="taskset -c $SIM_CPUS"
[[ -n "${CONTROLLER_CPUS:-}" ]] && CONTROLLER_PIN=(taskset -c "$CONTROLLER_CPUS")

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    "$ROOT/scripts/setup-peers.sh"
    (cd "$ROOT" && swift build -c release --product hearth-sim)
    (cd "$ROOT/Benchmarks" && swift build -c release --product ControllerBench && swift build -c release --product NIOFloor)
fi
PY="$ROOT/.venv/bin/python"
SIM="$ROOT/.build/release/hearth-sim"
BENCH="${BENCH:-$ROOT/Benchmarks/.build/release/ControllerBench}"

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for port in "$PORT" "$CONTROL_PORT"; do
    if listening "$port"; then
        echo "port $port on 127.0.0.1 is in use; choose others with PORT= and CONTROL_PORT=" >&2
        exit 1
    fi
done

# The restart script: stops the hearth-sim whose PID is in sim.pid (one we started), starts it again with the same
# state folder, and returns once it accepts connections (polled every 5 ms, at most 30 s).
cat >"$OUT/restart.sh" <<RESTART
#!/usr/bin/env bash
set -euo pipefail
pid=\$(cat "$OUT/sim.pid")
kill "\$pid" 2>/dev/null || true
for _ in \$(seq 1 3000); do
    [[ -e /proc/\$pid ]] && ! grep -q '^State:.*Z' /proc/\$pid/status 2>/dev/null || break
    sleep 0.01
done
$SIM_PIN "$SIM" serve --state "$OUT/state" --port $PORT --setup-code $PIN --no-mdns --bind 127.0.0.1 \\
    --control 127.0.0.1:$CONTROL_PORT --preset lightbulb --coalesce-milliseconds 0 >>"$OUT/sim.out" 2>>"$OUT/sim.err" &
echo \$! >"$OUT/sim.pid"
for _ in \$(seq 1 6000); do
    if (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; then exit 0; fi
    sleep 0.005
done
echo "hearth-sim did not come back" >&2
exit 1
RESTART
chmod +x "$OUT/restart.sh"

stop_sim() {
    [[ -f "$OUT/sim.pid" ]] || return 0
    local pid
    pid=$(cat "$OUT/sim.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 1000); do
        [[ -e /proc/$pid ]] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null || break
        sleep 0.01
    done
    rm -f "$OUT/sim.pid"
}
# The NIO floor's echo server, when one is running (it also ends on its own when its client closes).
echo_pid=""
stop_all() {
    stop_sim
    [[ -n "$echo_pid" ]] && kill "$echo_pid" 2>/dev/null
    return 0
}
trap stop_all EXIT
trap "exit 1" INT TERM

start_sim() {
    rm -rf "$OUT/state"
    $SIM_PIN "$SIM" serve --state "$OUT/state" --port "$PORT" --setup-code "$PIN" --no-mdns --bind 127.0.0.1 \
        --control "127.0.0.1:$CONTROL_PORT" --preset lightbulb --coalesce-milliseconds 0 \
        >>"$OUT/sim.out" 2>>"$OUT/sim.err" &
    echo $! >"$OUT/sim.pid"
    for _ in $(seq 1 3000); do
        if listening "$PORT"; then return 0; fi
        sleep 0.01
    done
    echo "hearth-sim did not start listening:" >&2
    cat "$OUT/sim.err" >&2
    exit 1
}

COMMON=(--host 127.0.0.1 --port "$PORT" --setup-code "$PIN" --control "127.0.0.1:$CONTROL_PORT"
    --restart-command "$OUT/restart.sh" --setup-reps "${SETUP_REPS:-10}" --verify-reps "${VERIFY_REPS:-50}"
    --latency-reps "${LATENCY_REPS:-1000}" --throughput-count "${THROUGHPUT_COUNT:-50000}"
    --throughput-seconds "${THROUGHPUT_SECONDS:-5}" --reconnect-reps "${RECONNECT_REPS:-5}")

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(cd "$ROOT" && git rev-parse --short HEAD)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
    echo "kernel $(uname -r); $(swift --version 2>/dev/null | head -1); $("$PY" --version)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "pinning: accessory ${SIM_CPUS:-unpinned}, controllers ${CONTROLLER_CPUS:-unpinned}"
} | tee "$OUT/machine.txt"

for side in $ORDER; do
    echo "== $side"
    start_sim
    if [[ $side == hearth ]]; then
        "${CONTROLLER_PIN[@]}" "$BENCH" "${COMMON[@]}" >"$OUT/hearth.json" 2> >(tee "$OUT/hearth.log" >&2)
    else
        "${CONTROLLER_PIN[@]}" "$PY" "$ROOT/Benchmarks/peers/aiohomekit_controller_bench.py" "${COMMON[@]}" >"$OUT/aiohomekit.json" \
            2> >(tee "$OUT/aiohomekit.log" >&2)
    fi
    stop_sim
done
# The floor: a bare blocking socket ping-pong with the same CPU placement (Benchmarks/peers/socket_floor.py).
echo "== floor"
"$PY" "$ROOT/Benchmarks/peers/socket_floor.py" --count "${FLOOR_COUNT:-50000}" --client-cpus "${CONTROLLER_CPUS:-}" \
    --server-cpus "${SIM_CPUS:-}" >"$OUT/floor.json"
# The NIO floor: the same echo server, and a client built like Hearth's controller without HTTP, crypto or JSON.
echo "== NIO floor"
rm -f "$OUT/echo.out"
${SIM_PIN} "$PY" "$ROOT/Benchmarks/peers/socket_floor.py" --serve >"$OUT/echo.out" &
echo_pid=$!
for _ in $(seq 1 3000); do
    [[ -s "$OUT/echo.out" ]] && break
    sleep 0.01
done
echo_port=$("$PY" -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["port"])' "$OUT/echo.out")
"${CONTROLLER_PIN[@]}" "$ROOT/Benchmarks/.build/release/NIOFloor" --port "$echo_port" --count "${FLOOR_COUNT:-50000}" \
    >"$OUT/nio-floor.json"
wait "$echo_pid" 2>/dev/null || true
echo_pid=""
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/machine.txt"

"$PY" - "$OUT" <<'PYEOF' | tee "$OUT/summary.md"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
ours = json.loads((out / "hearth.json").read_text())
theirs = json.loads((out / "aiohomekit.json").read_text())
floor = json.loads((out / "floor.json").read_text())
nio_floor = json.loads((out / "nio-floor.json").read_text())
rows = [
    ("pair-setup, connect + M1..M6: p50 (ms)", "pair_setup_p50_ms", "{:.2f}"),
    ("pair-setup: controller CPU, p50 of each (ms)", "pair_setup_cpu_p50_ms", "{:.2f}"),
    ("pair-setup: controller CPU, mean with the first (ms)", "pair_setup_cpu_ms_per_op", "{:.2f}"),
    ("pair-verify, connect + M1..M4: p50 (ms)", "pair_verify_p50_ms", "{:.3f}"),
    ("pair-verify: p99 (ms)", "pair_verify_p99_ms", "{:.3f}"),
    ("pair-verify: controller CPU per verify (ms)", "pair_verify_cpu_ms_per_op", "{:.3f}"),
    ("read round trip: p50 (ms)", "read_p50_ms", "{:.3f}"),
    ("read round trip: p99 (ms)", "read_p99_ms", "{:.3f}"),
    ("write round trip: p50 (ms)", "write_p50_ms", "{:.3f}"),
    ("write round trip: p99 (ms)", "write_p99_ms", "{:.3f}"),
    ("reads per second, one session, sequential", "read_throughput_per_second", "{:.0f}"),
    ("controller CPU per read, sequential (ms)", "read_throughput_cpu_ms_per_op", "{:.4f}"),
    ("controller CPU per read, sequential, caller on the accessory's event loop (ms)", "read_on_loop_cpu_ms_per_op", "{:.4f}"),
    ("reads per second, caller on the accessory's event loop", "read_on_loop_per_second", "{:.0f}"),
    ("controller CPU per read, latency loop (ms)", "read_cpu_ms_per_op", "{:.4f}"),
    ("controller CPU per write, latency loop (ms)", "write_cpu_ms_per_op", "{:.4f}"),
    ("restart: accessory listening -> first event: p50 (ms)", "restart_to_event_p50_ms", "{:.0f}"),
    ("restart: accessory listening -> first event: max (ms)", "restart_to_event_max_ms", "{:.0f}"),
]
print(f"| measure | Hearth | aiohomekit 4.0.1 | ratio |\n|---|---:|---:|---:|")
# aiohomekit has one thread and no executor to choose: its sequential loop is the peer of both of ours.
theirs.setdefault("read_on_loop_cpu_ms_per_op", theirs.get("read_throughput_cpu_ms_per_op"))
theirs.setdefault("read_on_loop_per_second", theirs.get("read_throughput_per_second"))
for label, key, fmt in rows:
    a, b = ours.get(key), theirs.get(key)
    cell = lambda v: fmt.format(v) if isinstance(v, (int, float)) else "n/a"
    ratio = ""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a and b:
        ratio = "{:.1f}x".format(a / b if "per second" in label else b / a)
    print(f"| {label} | {cell(a)} | {cell(b)} | {ratio} |")
print(f"| floor: CPU per round trip of a bare blocking socket ping-pong, same placement (ms) | "
      f"{floor['floor_cpu_ms_per_round_trip']:.4f} | {floor['floor_cpu_ms_per_round_trip']:.4f} | |")
print(f"| NIO floor: the same ping-pong through a NIO channel, an actor on its loop and a continuation (ms) | "
      f"{nio_floor['nio_floor_cpu_ms_per_round_trip']:.4f} | | |")
n = lambda d, k: int(d.get(k, 0))
print(f"\nn: pair-setup {n(ours, 'pair_setup_n')}/{n(theirs, 'pair_setup_n')}, "
      f"pair-verify {n(ours, 'pair_verify_n')}/{n(theirs, 'pair_verify_n')}, "
      f"reads {n(ours, 'read_n')}/{n(theirs, 'read_n')}, sequential reads "
      f"{n(ours, 'read_throughput_n')}/{n(theirs, 'read_throughput_n')}, restarts "
      f"{n(ours, 'restart_to_event_n')}/{n(theirs, 'restart_to_event_n')} (Hearth/aiohomekit"
      + (", aiohomekit gave up on one restart after 30 s" if theirs.get("restart_to_event_timeouts") else "")
      + "). "
      "Ratio: aiohomekit / Hearth (rates: Hearth / aiohomekit); above 1, Hearth is faster or cheaper.")
PYEOF
echo "results in $OUT"
