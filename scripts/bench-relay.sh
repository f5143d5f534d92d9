#!/usr/bin/env bash
# Issue 19's relay benchmark (Benchmarks/RelayBench): a `hearth-relay` child process on loopback, with an echo
# target, HubLinks and ClientForwarders in the bench process. One run measures
#   1. a 100-byte ping-pong through ClientForwarder → relay → HubLink → echo against the same direct: added p50/p99,
#      and the relay's CPU per forwarded frame (/proc/PID/task/*/schedstat of the relay process);
#   2. HOMES idle hub links kept connected: the relay's RSS before and after, bytes per idle home;
#   3. CLIENTS active clients at RATE requests/s each over ACTIVE_HOMES homes for SECONDS_RUN s, the idle homes still
#      connected, against the same load direct: added p99, the relay's CPU.
#
# Usage: scripts/bench-relay.sh [OUTDIR]
# Environment (defaults): BUILD=1 (build both binaries in release first; 0: use what is built) PINGS=10000
#   HOMES=10000 CLIENTS=1000 ACTIVE_HOMES=50 RATE=10 SECONDS_RUN=20 RELAY_THREADS=0 (the relay's --threads; 0: one
#   per core) TLS=0 (1: the relay serves wss:// with a
#   self-signed P-256 certificate made here with openssl, which the links and forwarders trust alone)
# Loopback only; the run is bounded by `timeout`; the bench ends the relay it started (by its PID).
# The open-file limit is raised to the hard limit (needs about HOMES + 3 × CLIENTS descriptors in the bench).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH="$ROOT/Benchmarks/.build/release/hearth-relay-bench"
RELAY="$ROOT/Benchmarks/.build/release/hearth-relay"
if [ "${BUILD:-1}" = 1 ]; then
    (cd "$ROOT/Benchmarks" && swift build -c release --product hearth-relay-bench && \
        swift build -c release --product hearth-relay)
fi
[ -x "$BENCH" ] && [ -x "$RELAY" ] || { echo "no $BENCH or $RELAY (BUILD=1 builds them)" >&2; exit 2; }

OUT="${1:-$ROOT/.build/bench-relay/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
ulimit -n "$(ulimit -Hn)" || true
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- Sources Benchmarks || echo ' (modified)')"
    echo "host: $(uname -sr), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    echo "loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg); open files: $(ulimit -n)"
    echo "settings: PINGS=${PINGS:-10000} HOMES=${HOMES:-10000} CLIENTS=${CLIENTS:-1000} ACTIVE_HOMES=${ACTIVE_HOMES:-50} RATE=${RATE:-10} SECONDS_RUN=${SECONDS_RUN:-20} RELAY_THREADS=${RELAY_THREADS:-0}"
    echo "TLS: ${TLS:-0}"
} | tee "$OUT/conditions.txt"

TLS_ARGS=()
if [ "${TLS:-0}" = 1 ]; then
    mkdir -p "$OUT/tls"
    (umask 077 && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
        -keyout "$OUT/tls/key.pem" -out "$OUT/tls/cert.pem" -subj "/CN=localhost" \
        -addext "subjectAltName=DNS:localhost" 2>/dev/null)
    TLS_ARGS=(--tls-certificate "$OUT/tls/cert.pem" --tls-key "$OUT/tls/key.pem")
fi
timeout 900 "$BENCH" "${TLS_ARGS[@]}" --relay "$RELAY" --pings "${PINGS:-10000}" --homes "${HOMES:-10000}" \
    --clients "${CLIENTS:-1000}" --active-homes "${ACTIVE_HOMES:-50}" --rate "${RATE:-10}" \
    --seconds "${SECONDS_RUN:-20}" --relay-threads "${RELAY_THREADS:-0}" 2> >(tee "$OUT/progress.txt" >&2) | tee "$OUT/output.txt"
echo "loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/conditions.txt"
grep '^|' "$OUT/output.txt" >"$OUT/results.md"
grep '^{"bench":"relay"' "$OUT/output.txt" >"$OUT/results.json" || true
echo "results in $OUT"
