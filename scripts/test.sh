#!/usr/bin/env bash
# Runs every test: installs what the tests need (the pinned Python peers), builds once, then runs the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/setup-peers.sh
swift build --build-tests
# The test that checks the accessory server's memory after 1,000 idle connections reads the process's resident
# memory, which is the server's only when nothing else runs: alone first, then everything.
HEARTH_MEMORY_TESTS=1 swift test --skip-build --filter IdleConnectionsTests
# Interoperability tests fail, rather than skip, when the peers are missing.
HEARTH_REQUIRE_PEERS=1 swift test --skip-build
