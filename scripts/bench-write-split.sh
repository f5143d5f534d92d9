#!/usr/bin/env bash
# Where an API write's time goes in hearthd, from the request to the event's WebSocket frame (issue 22): the
# set-up of scripts/bench-web.sh without Chromium (hearth-sim's bridge with `--preset lightbulb:${LAMPS:-149}`, coalescing
# off, paired by address), then WRITES writes of a lamp's On through the API while an event WebSocket is open,
# traced with `perf trace` on hearthd's syscalls; Benchmarks/peers/hearth_write_split.py prints the steps.
# Also hearthd's CPU per write (all its threads' schedstat, net of its idle rate measured just before).
#
# Usage (root, for `ip netns` and perf):  scripts/bench-write-split.sh [OUTDIR]
# Environment (defaults):
#   WRITES=60 GAP=1        writes, and the scale of the 0.3-0.5 s pause between them
#   TRACE=1                0: no perf trace (then only the client's figures and the CPU per write);
#                          perf: `perf record -g` of hearthd instead (OUT/perf.data, OUT/perf-report.txt);
#                          phases: the same with syscall tracepoints, cut into the write's steps by
#                          Benchmarks/peers/hearth_write_phases.py (OUT/phases.txt; `| swift demangle --simplified`)
#   TRACE_EVENTS=accept4,read,write,writev,pwrite64,fdatasync   the syscalls traced (add futex, epoll_wait …)
#   PERF_HZ=2999 PERF_ARGS=    TRACE=perf's sampling rate (phases: 20000) and further `perf record` options
#   KEEPALIVE=0            1: the writes on one kept-alive connection (the split needs TRACE=1 and new ones)
#   LAMPS=149              the lamps of hearth-sim's bridge (`--preset lightbulb:LAMPS`)
#   HEARTHD=.build/release/hearthd HEARTH_SIM=.build/release/hearth-sim   NS=hearthsplit
# Only the PIDs started here are stopped; every wait is bounded.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WRITES="${WRITES:-60}"; GAP="${GAP:-1}"; TRACE="${TRACE:-1}"; NS="${NS:-hearthsplit}"
HEARTHD="${HEARTHD:-$ROOT/.build/release/hearthd}"; HEARTH_SIM="${HEARTH_SIM:-$ROOT/.build/release/hearth-sim}"
PY="${PY:-$ROOT/.venv/bin/python}"
PIN="031-45-154"; SIM_PORT=51826; CONTROL_PORT=51899; API_PORT=7878

[ "$(id -u)" = 0 ] || { echo "needs root (ip netns, perf)" >&2; exit 2; }
[ -x "$HEARTHD" ] && [ -x "$HEARTH_SIM" ] || { echo "no hearthd / hearth-sim (HEARTHD=, HEARTH_SIM=)" >&2; exit 2; }
[ -x "$PY" ] || { echo "no Python venv at $PY: run scripts/setup-peers.sh" >&2; exit 2; }
if ip netns list | awk '{print $1}' | grep -qx "$NS"; then echo "namespace $NS exists (another run?); set NS=" >&2; exit 2; fi
OUT="${1:-$ROOT/.build/bench-write-split/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
WORK="$(mktemp -d /tmp/hearth-write-split.XXXXXX)"
SIM_PID=""; HUB_PID=""; TRACE_PID=""

stop() {   # PID [SIGNAL]: SIGNAL (TERM), then KILL after 5 s
    [ -n "$1" ] || return 0
    kill "-${2:-TERM}" "$1" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
cleanup() {
    stop "$TRACE_PID" INT; stop "$HUB_PID"; stop "$SIM_PID"
    if ip netns list | awk '{print $1}' | grep -qx "$NS"; then ip netns del "$NS"; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NS"
ip netns exec "$NS" ip link set lo up
mkdir -p "$WORK/sim" "$WORK/hub"
ip netns exec "$NS" "$HEARTH_SIM" serve --state "$WORK/sim" --no-mdns --port "$SIM_PORT" --bridge \
    --setup-code "$PIN" --control "127.0.0.1:$CONTROL_PORT" --coalesce-milliseconds 0 --json \
    --preset lightbulb:${LAMPS:-149} >"$OUT/hearth-accessory.out" 2>"$OUT/hearth-accessory.err" &
SIM_PID=$!
for _ in $(seq 1 300); do grep -q '"port"' "$OUT/hearth-accessory.out" 2>/dev/null && break; sleep 0.1; done
grep -q '"port"' "$OUT/hearth-accessory.out" || { echo "hearth-sim did not start" >&2; exit 1; }
ip netns exec "$NS" "$HEARTHD" --state "$WORK/hub" --address 127.0.0.1 --port "$API_PORT" --no-user-config \
    --log-level warning >"$OUT/hearthd.log" 2>&1 &
HUB_PID=$!
for _ in $(seq 1 300); do [ -s "$WORK/hub/owner.token" ] && break; sleep 0.1; done
[ -s "$WORK/hub/owner.token" ] || { echo "hearthd did not start" >&2; exit 1; }
URL="http://127.0.0.1:$API_PORT"
for _ in $(seq 1 100); do
    ip netns exec "$NS" "$PY" -c "import urllib.request as u; u.urlopen('$URL/app/app.css', timeout=1)" 2>/dev/null && break
    sleep 0.1
done
ip netns exec "$NS" "$PY" "$ROOT/Benchmarks/peers/hearth_web_bench.py" setup --url "$URL" \
    --token-file "$WORK/hub/owner.token" --accessory "127.0.0.1:$SIM_PORT" --pin "$PIN" --out "$OUT/setup.json" \
    >/dev/null

cpu() { cat /proc/"$HUB_PID"/task/*/schedstat | awk '{s += $1} END {printf "%d", s}'; }
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); commit: $(git -C "$ROOT" rev-parse --short HEAD)"
    echo "hearthd: $HEARTHD; loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg); WRITES=$WRITES GAP=$GAP TRACE=$TRACE"
} | tee "$OUT/conditions.txt"
I0=$(cpu); sleep 5; I1=$(cpu)
if [ "$TRACE" = 1 ]; then
    perf trace -p "$HUB_PID" -T -e "${TRACE_EVENTS:-accept4,read,write,writev,pwrite64,fdatasync}" -o "$OUT/trace.txt" 2>/dev/null &
    TRACE_PID=$!
    sleep 2
elif [ "$TRACE" = perf ] || [ "$TRACE" = phases ]; then
    if [ "$TRACE" = phases ]; then
        PERF_HZ="${PERF_HZ:-20000}"
        PERF_ARGS="-e cpu-clock -e syscalls:sys_enter_read -e syscalls:sys_enter_write
            -e syscalls:sys_enter_writev -e syscalls:sys_enter_pwrite64 ${PERF_ARGS:-}"
    fi
    # shellcheck disable=SC2086
    perf record -F "${PERF_HZ:-2999}" -g ${PERF_ARGS:-} -p "$HUB_PID" -o "$OUT/perf.data" >/dev/null 2>&1 &
    TRACE_PID=$!
    sleep 2
fi
C0=$(cpu); T0=$(date +%s%N)
ip netns exec "$NS" "$PY" "$ROOT/Benchmarks/peers/hearth_write_split.py" writes --url "$URL" \
    --token-file "$WORK/hub/owner.token" --setup "$OUT/setup.json" --writes "$WRITES" --gap "$GAP" \
    $([ "${KEEPALIVE:-0}" = 1 ] && echo --keep-alive) | tee "$OUT/writes.txt"
C1=$(cpu); T1=$(date +%s%N)
echo "hearthd CPU per write, net of idle: $(( ((C1 - C0) - (I1 - I0) * (T1 - T0) / 5000000000) / WRITES / 1000 )) us" \
    "(idle $(( (I1 - I0) / 5000 )) us/s; perf trace's own cost included when TRACE=1)" | tee -a "$OUT/writes.txt"
if [ "$TRACE" = 1 ]; then
    stop "$TRACE_PID" INT; TRACE_PID=""
    "$PY" "$ROOT/Benchmarks/peers/hearth_write_split.py" split "$OUT/trace.txt" | tee "$OUT/split.txt"
elif [ "$TRACE" = perf ] || [ "$TRACE" = phases ]; then
    stop "$TRACE_PID" INT; TRACE_PID=""
    if [ "$TRACE" = phases ]; then
        python3 "$ROOT/Benchmarks/peers/hearth_write_phases.py" "$OUT/perf.data" | tee "$OUT/phases.txt"
    fi
    perf report -i "$OUT/perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null | grep -v '^$' \
        >"$OUT/perf-report.txt" || true
    echo "perf: $OUT/perf-report.txt"
fi
echo "loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/conditions.txt"
echo "results in $OUT"
