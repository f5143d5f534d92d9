#!/usr/bin/env bash
# Runs the HAP benchmarks (release build) and then the same operations in the Python peers, in one run, and prints
# what docs/benchmarks.md records: the machine, the commit, package-benchmark's table and the peers' table.
# Usage: scripts/benchmarks.sh [extra package-benchmark options, e.g. --filter "Pair-.*"]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
scripts/bootstrap.sh
scripts/setup-peers.sh >/dev/null

echo "## $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Benchmarks || echo ' (modified)')"
echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
echo "- OS: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
echo "- Swift: $(swift --version 2>/dev/null | head -1)"
echo

# package-benchmark 1.38 counts allocations with its malloc interposer (the MallocInterposer trait), so jemalloc
# is not needed.
(cd Benchmarks && swift package --disable-sandbox benchmark --target HAPBenchmarks --format markdown --no-progress "$@")

echo
echo "### Peers (CPU time per operation, same run)"
.venv/bin/python Benchmarks/peers/srp_peers.py --json "${BENCHMARK_PEERS_JSON:-/tmp/hearth-peers.json}"
