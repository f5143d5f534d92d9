import Crypto
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import Relay

/// A quiet logger for the relay's pieces under test.
func quietLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = ProcessInfo.processInfo.environment["RELAY_TEST_LOG"] != nil ? .debug : .critical
    return logger
}

/// A relay running in this process on a free loopback port.
struct RunningRelay: Sendable {
    let relay: RelayServer
    let port: Int
    let task: Task<Void, any Error>

    var url: String { "ws://127.0.0.1:\(port)" }

    static func start(_ configure: (inout RelayServer.Configuration) -> Void = { _ in }) async throws -> RunningRelay {
        var configuration = RelayServer.Configuration(host: "127.0.0.1", port: 0)
        configure(&configuration)
        let relay = RelayServer(configuration: configuration, logger: quietLogger("test.relay"))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try relay.makeApplication { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TimedOut(what: "the relay's port") }
        return RunningRelay(relay: relay, port: port, task: task)
    }

    /// Cancels the server; waits at most 2 s for it (a test that failed may leave a socket open, which the server's
    /// graceful shutdown would wait for).
    func stop() async {
        task.cancel()
        let finished = Shared(false)
        let task = task
        Task {
            _ = try? await task.value
            finished.withLock { $0 = true }
        }
        _ = await eventually(timeout: .seconds(2)) { finished.withLock { $0 } }
    }
}

/// A TCP echo server on a free loopback port: the stand-in for the hub's secure listener.
///
/// Its connections are plain channels with an echoing handler, not `NIOAsyncChannel`s: a connection accepted while
/// the server closes would otherwise be dropped unconsumed, and NIO stops the process for an async writer that was
/// never finished.
struct EchoServer: Sendable {
    let port: Int
    let channel: any Channel

    /// Sends back whatever arrives.
    final class Echo: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(data, promise: nil)
        }
    }

    static func start() async throws -> EchoServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Echo()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return EchoServer(port: channel.localAddress?.port ?? 0, channel: channel)
    }

    func stop() { channel.close(promise: nil) }
}

/// A hub link in this process with a fresh key, running until stopped.
struct RunningHub: Sendable {
    let link: HubLink
    let task: Task<Void, Never>

    static func start(
        relayURL: String,
        targetPort: Int,
        identity: Curve25519.Signing.PrivateKey = .init()
    )
        async throws -> RunningHub
    {
        var configuration = HubLink.Configuration(
            relayURL: relayURL,
            identity: identity,
            targetHost: "127.0.0.1",
            targetPort: targetPort
        )
        configuration.initialBackoff = .milliseconds(50)
        configuration.maximumBackoff = .milliseconds(500)
        configuration.pingInterval = .seconds(10)
        let link = HubLink(configuration: configuration, logger: quietLogger("test.hub"))
        let task = Task { await link.run() }
        try await waitUntil("the hub link", timeout: .seconds(30)) { link.isConnected }
        return RunningHub(link: link, task: task)
    }

    var route: RouteID { link.route }

    /// Cancels the link; a link that has not ended 10 s later is a failed test, not a hung run.
    func stop() async {
        task.cancel()
        let finished = Shared(false)
        let task = task
        Task {
            await task.value
            finished.withLock { $0 = true }
        }
        if !(await eventually(timeout: .seconds(10)) { finished.withLock { $0 } }) {
            Issue.record("the hub link did not end within 10 s of its cancellation")
        }
    }
}

/// Sends `bytes` over a new TCP connection to `port` and reads back as many; what came back.
func roundTrip(port: Int, _ bytes: [UInt8], timeout: Duration = .seconds(20)) async throws -> [UInt8] {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(bytes: bytes))
        return try await withThrowingTaskGroup(of: [UInt8].self) { group in
            group.addTask {
                var received: [UInt8] = []
                for try await chunk in inbound {
                    received += chunk.readableBytesView
                    if received.count >= bytes.count { break }
                }
                return received
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TimedOut(what: "\(bytes.count) echoed bytes")
            }
            let received = try await group.next() ?? []
            group.cancelAll()
            return received
        }
    }
}

/// The bytes of a WebSocket upgrade request for `path`, as a client sends them.
func upgradeRequest(path: String) -> [UInt8] {
    Array(
        ("GET \(path) HTTP/1.1\r\nHost: relay\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").utf8
    )
}

/// Asks the relay at `port` to upgrade `path` to a WebSocket, as a client would, and returns the status code and
/// the body of its answer when it refuses (the upgrade's 101 has no body).
func upgradeAnswer(port: Int, path: String) async throws -> (status: Int, body: String) {
    let request = upgradeRequest(path: path)
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(bytes: request))
        var text = ""
        for try await chunk in inbound {
            text += String(buffer: chunk)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<end.lowerBound].lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if text[end.upperBound...].utf8.count >= length { break }
        }
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }
}

/// A WebSocket to the relay driven by the test: what it received, how it closed.
final class TestSocket: Sendable {
    private let state = Shared<(received: [UInt8], closed: Bool, closedAt: ContinuousClock.Instant?)>(([], false, nil))
    private let outgoing: AsyncStream<ByteBuffer>.Continuation
    let task: Task<WebSocketCloseFrame?, any Error>

    /// Connects to `url` (a relay's `/v1/client?route=…`).
    init(url: String, maxFrameSize: Int = 1 << 20) {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        outgoing = continuation
        let state = state
        task = Task {
            defer {
                state.withLock {
                    $0.closed = true; $0.closedAt = .now
                }
            }
            return try await WebSocketClient.connect(
                url: url,
                configuration: .init(maxFrameSize: maxFrameSize),
                logger: quietLogger("test.socket")
            ) { inbound, outbound, _ in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do {
                            for try await frame in inbound {
                                state.withLock { $0.received += frame.data.readableBytesView }
                            }
                        } catch {}
                    }
                    group.addTask {
                        for await buffer in stream {
                            try? await outbound.write(.binary(buffer))
                        }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    /// Sends one binary frame.
    func send(_ bytes: [UInt8]) { outgoing.yield(ByteBuffer(bytes: bytes)) }
    /// Ends the connection from this side.
    func close() { outgoing.finish() }
    /// Everything received so far.
    var received: [UInt8] { state.withLock { $0.received } }
    /// Whether the connection ended, and when.
    var closedAt: ContinuousClock.Instant? { state.withLock { $0.closedAt } }

    /// Waits for the relay to close the connection; its close frame.
    func closeFrame(timeout: Duration = .seconds(20)) async throws -> WebSocketCloseFrame? {
        try await waitUntil("the relay to close the socket", timeout: timeout, every: .milliseconds(5)) {
            self.closedAt != nil
        }
        return try await task.value
    }
}

/// A wait in these tests that ran out.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}
