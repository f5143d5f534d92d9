#!/usr/bin/env bash
# Runs every test: installs what the tests need (the pinned Python peers), builds once, then runs the tests.
#
# The tests run in three processes at once, each a group of test targets. Swift's cooperative pool has one thread
# per core (two here), so in one process a test that blocks or computes for a while holds up the timing of every
# other; three processes give the timing-sensitive groups (hub and relay, accessories and peers) pools of their
# own. Each group has a time limit, so a hung test fails the run with its name instead of stalling it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/setup-peers.sh
swift build --build-tests
# The test that checks the accessory server's memory after 1,000 idle connections reads the process's resident
# memory, which is the server's only when nothing else runs: alone first, then everything.
HEARTH_MEMORY_TESTS=1 swift test --skip-build --filter IdleConnectionsTests
# The test that holds 1,100 connections to hearthd opens more than 1,024 descriptors in the test process, where
# Foundation's Process.run (other tests start child processes) then crashes: it runs alone too, before the groups.
swift test --skip-build --filter HearthdFileLimitTests

# Pure computation, storage, and the consumer package's build.
computation='ConsumerPackageTests|HAPTests|HomeGraphTests|HomeStoreTests|SetupQRTests|CommandsTests|AutomationTests'
# Accessories, simulators, peers and namespaces.
accessories='HearthCLITests|HearthSimTests|DNSSDTests|SimulatorTests|HAPAccessoryServerTests|HAPControllerTests'
# Everything else (the hub, its API, HearthKit, the relay): what the first two groups do not name, so a new test
# target runs here until it is placed.
limit=${HEARTH_TEST_GROUP_LIMIT:-1500}
logs=$(mktemp -d)
# The test bundle is run directly: `swift test` processes at once would share SwiftPM's build database, which
# only one may open. A filter that matches no test fails (status 69).
tests="$(swift build --show-bin-path)/HearthPackageTests.xctest"

run_group() {
    local name=$1
    shift
    set +e
    # Interoperability tests fail, rather than skip, when the peers are missing. Line-buffered, so a group that
    # runs out of time has logged every test it started and finished.
    HEARTH_REQUIRE_PEERS=1 NO_COLOR=1 timeout --kill-after=20 "$limit" stdbuf -oL -eL "$tests" \
        --testing-library swift-testing "$@" >"$logs/$name.log" 2>&1
    echo $? >"$logs/$name.status"
}

run_group computation --filter "^($computation)\." &
run_group accessories --filter "^($accessories)\." &
run_group hub --skip "^($computation|$accessories)\.|HearthdFileLimitTests" &
wait

failed=0
for name in computation accessories hub; do
    status=$(cat "$logs/$name.status")
    echo "=== test group $name (exit status $status)"
    cat "$logs/$name.log"
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then
        echo "=== test group $name did not finish within $limit s; started and not finished:"
        python3 scripts/unfinished-tests.py "$logs/$name.log"
    fi
    [ "$status" = 0 ] || failed=1
done
echo "=== summary"
for name in computation accessories hub; do
    echo "$name: exit status $(cat "$logs/$name.status"); $(grep -E 'Test run with' "$logs/$name.log" | tail -1)"
done
exit $failed
