import ByteStreams
import NIOConcurrencyHelpers
import NIOCore
import TestSupport
import Testing

/// A listener that stops, by cancellation or by `close()`, with connections in every state (served, accepted and
/// waiting, half set up) closes them all, returns, and does not crash the process.
@Suite struct ByteListenerTests {
    /// Echoes what each connection sends; counts the connections it served.
    static func echo(_ served: NIOLockedValueBox<Int>) -> @Sendable (ByteConnection) async -> Void {
        { connection in
            served.withLockedValue { $0 += 1 }
            for await bytes in connection.received {
                guard (try? await connection.write(bytes)) != nil else { return }
            }
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: [0, 10, 40])
    func cancellingRunClosesEveryConnection(servedBeforeCancelling: Int) async throws {
        let listener = try await ByteListener.bind(.tcp(host: "127.0.0.1", port: 0))
        let port = try #require(listener.port)
        let served = NIOLockedValueBox(0)
        let running = Task { await listener.run(Self.echo(served)) }
        let connections = try await openConnections(to: port, count: 40, greeting: "hello")
        #expect(await eventually(timeout: .seconds(20)) { served.withLockedValue { $0 } >= servedBeforeCancelling })
        running.cancel()
        await running.value
        for connection in connections {
            #expect(await connection.closes(within: .seconds(5)), "a connection stayed open")
        }
        #expect(await connectionIsRefused(port: port))
    }

    @Test(.timeLimit(.minutes(1))) func closeEndsRunAndEveryConnection() async throws {
        let listener = try await ByteListener.bind(.tcp(host: "127.0.0.1", port: 0))
        let port = try #require(listener.port)
        let served = NIOLockedValueBox(0)
        let running = Task { await listener.run(Self.echo(served)) }
        let connections = try await openConnections(to: port, count: 10, greeting: "ping")
        // The first is served: its greeting comes back.
        var first = connections[0].received.makeAsyncIterator()
        #expect(await first.next().map { String(buffer: $0) } == "ping")
        listener.close()
        await running.value
        for connection in connections { #expect(await connection.closes(within: .seconds(5))) }
        #expect(await connectionIsRefused(port: port))
    }

    @Test(.timeLimit(.minutes(1))) func aConnectionIsClosedWhenItsServeReturns() async throws {
        let listener = try await ByteListener.bind(.tcp(host: "127.0.0.1", port: 0))
        let port = try #require(listener.port)
        let running = Task {
            await listener.run { connection in try? await connection.write(Array("bye".utf8)) }
        }
        defer { running.cancel() }
        let connection = try #require(try await openConnections(to: port, count: 1, greeting: "hi").first)
        var iterator = connection.received.makeAsyncIterator()
        #expect(await iterator.next().map { String(buffer: $0) } == "bye")
        #expect(await connection.closes(within: .seconds(5)))
    }
}
