import Foundation
import HAP
import NIOCore
import NIOPosix
import Synchronization
import TestFixtures
import Testing

@testable import HAPController

/// A tiny TCP server that misbehaves on purpose, one way per connection.
final class MisbehavingServer: Sendable {
    /// What the server does with a request.
    enum Behaviour: Sendable {
        /// Starts an answer, then closes the connection.
        case closeMidResponse
        /// Answers bytes that are not HTTP.
        case garbage
        /// Never answers.
        case silent
        /// Answers `204 No Content`.
        case noContent
    }

    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let behaviour: Behaviour

        init(behaviour: Behaviour) {
            self.behaviour = behaviour
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let text: String
            switch behaviour {
            case .closeMidResponse:
                text = "HTTP/1.1 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: 100\r\n\r\n{\"acc"
            case .garbage:
                text = "\u{1}\u{2}garbage garbage\r\n\r\n"
            case .silent:
                return
            case .noContent:
                text = "HTTP/1.1 204 No Content\r\n\r\n"
            }
            let buffer = context.channel.allocator.buffer(string: text)
            if behaviour == .closeMidResponse {
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            }
        }
    }

    /// Counts the connections accepted.
    final class Counter: Sendable {
        let value = Mutex(0)

        func next() -> Int {
            value.withLock { count in
                defer { count += 1 }
                return count
            }
        }
    }

    let channel: any Channel
    let counter: Counter

    var port: Int { channel.localAddress?.port ?? 0 }

    /// Listens on 127.0.0.1, port 0; connection number n (from 0) behaves as `behaviours[n]`, or the last one.
    init(_ behaviours: [Behaviour]) async throws {
        let counter = Counter()
        self.counter = counter
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let index = counter.next()
                let behaviour = index < behaviours.count ? behaviours[index] : behaviours.last ?? .noContent
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(behaviour: behaviour))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    func stop() async {
        try? await channel.close()
    }
}

/// The result of a request as a value, so two concurrent requests can be compared.
private func outcome(
    _ body: () async throws(HAPControllerError) -> HTTPResponse
) async -> Result<HTTPResponse, HAPControllerError> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

@Suite struct MisbehavingAccessoryTests {
    let quick = ConnectionTimeouts(connect: .seconds(5), request: .seconds(3))

    @Test func anAnswerCutShortIsConnectionClosed() async throws {
        let server = try await MisbehavingServer([.closeMidResponse])
        defer { Task { await server.stop() } }
        await #expect(throws: HAPControllerError.connectionClosed) {
            try await AccessoryPairingClient(timeouts: quick).identifyUnpaired(host: "127.0.0.1", port: server.port)
        }
    }

    @Test func garbageIsAMalformedResponse() async throws {
        let server = try await MisbehavingServer([.garbage])
        defer { Task { await server.stop() } }
        do {
            try await AccessoryPairingClient(timeouts: quick).identifyUnpaired(host: "127.0.0.1", port: server.port)
            Issue.record("garbage was accepted")
        } catch {
            guard case .malformedResponse = error else {
                Issue.record("expected malformedResponse, got \(error)")
                return
            }
        }
    }

    @Test func aSilentAccessoryTimesOutAndTheQueueGoesOnWithANewConnection() async throws {
        let server = try await MisbehavingServer([.silent, .noContent])
        defer { Task { await server.stop() } }
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let healthy = try await bridge.pairedClient()
        let on = try await bridge.id(ShortType.on, accessoryID: 2)

        let connection = AccessoryConnection(
            host: "127.0.0.1",
            port: server.port,
            security: .plain,
            timeouts: quick,
            group: MultiThreadedEventLoopGroup.singleton,
            logger: quietLogger()
        )
        let request = HTTPRequest(method: .post, target: "/identify", headers: ["Host": connection.hostHeader])
        async let first = outcome { () async throws(HAPControllerError) in try await connection.send(request) }
        async let second = outcome { () async throws(HAPControllerError) in try await connection.send(request) }
        // Another accessory is served while this one hangs.
        #expect(try await healthy.read([on])[on] == .success(.bool(false)))
        let results = await [first, second]
        let failures = results.compactMap { result -> HAPControllerError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        let successes = results.compactMap { try? $0.get() }
        #expect(failures == [.timedOut])
        #expect(successes.map(\.status.code) == [204])
        #expect(server.counter.value.withLock { $0 } == 2)
        await connection.shutDown()
        await healthy.close()
    }
}
