import DNSSD
import Foundation
import HearthKit
import TestSupport
import Testing

/// `HomeManager.nearbyAccessories()` with real mDNS: hearth-sim advertises in one network namespace, the hub (in
/// this process, its API on loopback) browses from the other.
@Suite(.enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"))
struct NearbyAccessoriesTests {
    @Test(.timeLimit(.minutes(2))) func anOwnersManagerHearsAnAccessoryAppearAndGo() async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let group = try network.makeControllerEventLoopGroup()
        let address = try #require(IPv4Address(network.controllerAddress))
        let fixture = try await KitFixture { configuration in
            configuration.interfaces = [address]
            configuration.eventLoopGroup = group
        }
        let simState = fixture.folder + "-sim"
        defer { try? FileManager.default.removeItem(atPath: simState) }
        try await fixture.withServer { url, _ in
            try await fixture.hub.start()
            let manager = HomeManager(client: fixture.client(url, fixture.owner))
            let updates = await manager.nearbyAccessories()
            try await manager.start()
            #expect(await manager.waitUntilConnected())
            // Started and read off the cooperative pool: its output is read with blocking calls.
            let simulator = try await offThePool {
                let process = try network.start(
                    inAccessoryNamespace: true,
                    BuiltProducts.path("hearth-sim"),
                    [
                        "serve", "--state", simState, "--port", "51826", "--setup-code", "031-45-154",
                        "--interface", network.accessoryAddress, "--json", "--name", "Garden Lock",
                        "--preset", "door-lock",
                    ]
                )
                _ = try process.receive()
                return process
            }
            var iterator = updates.makeAsyncIterator()
            guard case .found(let accessory)? = await iterator.next() else {
                Issue.record("no found")
                return
            }
            #expect(accessory.name.hasPrefix("Garden Lock") && accessory.isPairable && accessory.category == 6)
            #expect(await offThePool { simulator.terminate() } == 0)
            #expect(await iterator.next() == .removed(deviceID: accessory.deviceID))
            await manager.stop()
        }
        try await group.shutdownGracefully()
    }
}
