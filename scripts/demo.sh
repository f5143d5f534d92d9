#!/usr/bin/env bash
# Runs the main program on embedded defaults: hearth-sim serving a demo bridge (lights, lock, thermostat, garage
# door, covering, sensors, doorbell, outlet) on 127.0.0.1:51826 with no mDNS, so nothing leaves loopback.
# Extra arguments go to `hearth-sim serve` (for example --setup-code 031-45-154 or --preset lightbulb:20).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
swift build -c release --product hearth-sim
exec .build/release/hearth-sim serve --state "${HEARTH_SIM_STATE:-$HOME/.hearth-sim-demo}" --no-mdns \
    --bind 127.0.0.1 --port "${HEARTH_SIM_PORT:-51826}" "$@"
