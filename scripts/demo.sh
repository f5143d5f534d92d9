#!/usr/bin/env bash
# Runs the main program on embedded defaults: `hearthd --demo`, the hub with a demo home and hearth-sim's demo
# bridge (lights, lock, thermostat, garage door, covering, sensors, doorbell, outlet) running in process on
# 127.0.0.1, with no mDNS, so nothing leaves loopback. The API listens on 127.0.0.1:7878; hearthd prints how to
# use it with curl, and writes the address and the owner's token to <state>/client.json for `hearth`.
# Extra arguments go to hearthd (for example --log-level debug).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
swift build -c release --product hearthd
# The default state folder (~/.hearth-demo) also writes ~/.config/hearth/config.json, where `hearth` looks;
# HEARTH_DEMO_STATE keeps a demo home elsewhere.
state=()
[[ -n "${HEARTH_DEMO_STATE:-}" ]] && state=(--state "$HEARTH_DEMO_STATE")
exec .build/release/hearthd --demo "${state[@]}" --port "${HEARTH_DEMO_PORT:-7878}" "$@"
