#!/usr/bin/env bash
# Runs every test: installs what the tests need (the pinned Python peers), builds once, then runs the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/setup-peers.sh
swift build --build-tests
# Interoperability tests fail, rather than skip, when the peers are missing.
HEARTH_REQUIRE_PEERS=1 swift test --skip-build
