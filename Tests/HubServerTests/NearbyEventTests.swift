import DNSSD
import Foundation
import Hub
import HubServer
import TestSupport
import Testing

/// The accessory browser's events on the event WebSocket, with real mDNS: hearth-sim advertises in one network
/// namespace, the hub (in this process) browses from the other, and its API listens on loopback.
@Suite(
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"),
    .serialized
)
struct NearbyEventTests {
    static let setupCode = "031-45-154"

    @Test(.timeLimit(.minutes(3))) func foundAndRemovedReachOwnersAndAdministratorsNotSharedUsers() async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let group = try network.makeControllerEventLoopGroup()
        let address = try #require(IPv4Address(network.controllerAddress))
        let fixture = try await Fixture { configuration in
            configuration.interfaces = [address]
            configuration.eventLoopGroup = group
        }
        let simState = fixture.folder + "-sim"
        defer { try? FileManager.default.removeItem(atPath: simState) }
        try await fixture.withServer(resumeGrace: .milliseconds(10)) { api in
            try await fixture.hub.start()
            let owner = EventClient(port: api.port, token: fixture.owner.token)
            let admin = EventClient(port: api.port, token: fixture.admin.token)
            let guest = EventClient(port: api.port, token: fixture.guest.token)
            defer { [owner, admin, guest].forEach { $0.close() } }
            for client in [owner, admin, guest] {
                _ = try await client.messages(count: 1)
                client.send(#"{"resume": {}}"#)
            }

            // An accessory starts advertising: owners and administrators hear of it, pairable, with its category.
            // Started and read off the cooperative pool: the process's output is read with blocking calls.
            func startSimulator() async throws -> ChildProcess {
                try await offThePool {
                    let process = try network.start(
                        inAccessoryNamespace: true,
                        BuiltProducts.path("hearth-sim"),
                        [
                            "serve", "--state", simState, "--port", "51826", "--setup-code", Self.setupCode,
                            "--interface", network.accessoryAddress, "--json", "--name", "Porch Lamp",
                            "--preset", "lightbulb",
                        ]
                    )
                    _ = try process.receive()
                    return process
                }
            }
            var simulator: ChildProcess? = try await startSimulator()
            defer { _ = simulator?.terminate() }
            func found(_ client: EventClient, pairable: Bool) async throws -> [String: Any]? {
                try await client.first(timeout: .seconds(30)) { message in
                    (message["found"] as? [String: Any])?["isPairable"] as? Bool == pairable
                }?.message["found"] as? [String: Any]
            }
            let heard = try #require(try await found(owner, pairable: true), "\(owner.received.map(\.text))")
            #expect((heard["name"] as? String)?.hasPrefix("Porch Lamp") == true, "\(heard)")
            #expect(heard["category"] as? Int == 5, "a lightbulb: \(heard)")
            let deviceID = try #require(heard["deviceID"] as? String)
            #expect(try await found(admin, pairable: true)?["deviceID"] as? String == deviceID)

            // It stops advertising (goodbye on SIGTERM): they hear it is gone.
            let stopping = simulator
            #expect(await offThePool { stopping?.terminate() } == 0)
            simulator = nil
            for client in [owner, admin] {
                let removed = try await client.first(timeout: .seconds(30)) { $0["removed"] != nil }
                #expect((removed?.message["removed"] as? [String: Any])?["deviceID"] as? String == deviceID)
            }

            // It comes back, and pairing it (through the API) tells them it is no longer pairable.
            let heardSoFar = owner.received.count
            simulator = try await startSimulator()
            let again = try await owner.first(timeout: .seconds(30)) { _ in
                owner.received.dropFirst(heardSoFar).contains { EventClient.parse($0.text)["found"] != nil }
            }
            #expect(again != nil, "found again after it came back")
            let reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories",
                ["homeID": fixture.home.id.uuidString],
                token: fixture.owner.token,
                body: #"{"deviceID": "\#(deviceID)", "setupCode": "\#(Self.setupCode)"}"#
            )
            #expect(reply.status == 201, "\(reply.text)")
            #expect(try await found(owner, pairable: false)?["deviceID"] as? String == deviceID)

            // The shared user heard none of it, though its socket saw the home's changes (the pairing).
            let added = try await guest.first(timeout: .seconds(20)) { message in
                ((message["event"] as? [String: Any])?["change"] as? [String: Any])?["type"] as? String
                    == "accessoryAdded"
            }
            #expect(added != nil, "the shared user's socket saw the pairing")
            let kinds = guest.received.compactMap { EventClient.parse($0.text).keys.first }
            #expect(!kinds.contains("found") && !kinds.contains("removed"), "\(kinds)")
            let last = simulator
            simulator = nil
            _ = await offThePool { last?.terminate() }
        }
        try await group.shutdownGracefully()
    }
}
