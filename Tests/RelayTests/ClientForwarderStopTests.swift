import ByteStreams
import NIOConcurrencyHelpers
import TestSupport
import Testing

@testable import Relay

/// A forwarder stopped with local connections in every state (streams open through the relay, upgrades the relay
/// never answers, connections accepted and not yet taken) closes them all and returns, without crashing.
extension RelayTests {
    @Test(.timeLimit(.minutes(2))) func cancellingAForwarderWithStreamsOpenClosesThemAll() async throws {
        try await withHome { relay, hub in
            let forwarder = try await ClientForwarder(
                configuration: .init(relayURL: relay.url, route: hub.route),
                logger: quietLogger("test.fwd")
            )
            let running = Task { await forwarder.run() }
            let connections = try await openConnections(to: forwarder.port, count: 40, greeting: "hello")
            // The first stream is through: its greeting came back from the echo behind the hub.
            var first = connections[0].received.makeAsyncIterator()
            #expect(await first.next().map { String(buffer: $0) } == "hello")
            running.cancel()
            await running.value
            for connection in connections { #expect(await connection.closes(within: .seconds(5))) }
            #expect(await connectionIsRefused(port: forwarder.port))
        }
    }

    @Test(.timeLimit(.minutes(2))) func cancellingAForwarderWhoseRelayNeverAnswersEndsEveryConnection() async throws {
        // A "relay" that accepts and never answers the WebSocket upgrade.
        let silent = try await ByteListener.bind(.tcp(host: "127.0.0.1", port: 0))
        let port = try #require(silent.port)
        let upgrades = NIOLockedValueBox(0)
        let relay = Task {
            await silent.run { connection in
                upgrades.withLockedValue { $0 += 1 }
                for await _ in connection.received {}
            }
        }
        defer {
            relay.cancel()
            silent.close()
        }
        let forwarder = try await ClientForwarder(
            configuration: .init(
                relayURL: "ws://127.0.0.1:\(port)",
                route: RouteID(publicKey: [UInt8](repeating: 7, count: 32))
            ),
            logger: quietLogger("test.fwd")
        )
        let running = Task { await forwarder.run() }
        let connections = try await openConnections(to: forwarder.port, count: 20, greeting: "hello")
        #expect(await eventually(timeout: .seconds(20)) { upgrades.withLockedValue { $0 } == 20 })
        running.cancel()
        await running.value
        for connection in connections { #expect(await connection.closes(within: .seconds(5))) }
        #expect(await connectionIsRefused(port: forwarder.port))
    }

    @Test(.timeLimit(.minutes(1))) func aStreamTheRelayDoesNotAcceptInTimeIsClosed() async throws {
        let silent = try await ByteListener.bind(.tcp(host: "127.0.0.1", port: 0))
        let port = try #require(silent.port)
        let relay = Task { await silent.run { connection in for await _ in connection.received {} } }
        defer {
            relay.cancel()
            silent.close()
        }
        var configuration = ClientForwarder.Configuration(
            relayURL: "ws://127.0.0.1:\(port)",
            route: RouteID(publicKey: [UInt8](repeating: 7, count: 32))
        )
        configuration.upgradeTimeout = .seconds(1)
        let ended = NIOLockedValueBox(0)
        let forwarder = try await ClientForwarder(configuration: configuration, logger: quietLogger("test.fwd")) { _ in
            ended.withLockedValue { $0 += 1 }
        }
        let running = Task { await forwarder.run() }
        defer { running.cancel() }
        let connection = try #require(try await openConnections(to: forwarder.port, count: 1, greeting: "hi").first)
        let opened = ContinuousClock.now
        #expect(await connection.closes(within: .seconds(10)))
        let waited = ContinuousClock.now - opened
        #expect(waited >= .milliseconds(900), "closed after \(waited), before the timeout")
        #expect(ended.withLockedValue { $0 } == 1)
    }
}
