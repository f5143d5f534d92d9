import ByteStreams
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TestSupport
import Testing

/// The secure tunnel's connections hold a fast sender back when their reader does not keep up, instead of
/// buffering without bound (one side of a splice slower than the other).
@Suite struct ByteConnectionTests {
    /// A listener on loopback whose accepted connections come out of `accepted`.
    static func listen() async throws -> (port: Int, accepted: AsyncStream<ByteConnection>, channel: any Channel) {
        let (accepted, continuation) = AsyncStream.makeStream(of: ByteConnection.self)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture { continuation.yield(try ByteConnection.wrap(child)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return (channel.localAddress?.port ?? 0, accepted, channel)
    }

    @Test(.timeLimit(.minutes(2))) func aReaderThatDoesNotReadHoldsTheWriterBack() async throws {
        let (port, accepted, listener) = try await Self.listen()
        defer { listener.close(promise: nil) }
        let sender = try await ByteConnection.connect(host: "127.0.0.1", port: port)
        defer { sender.close() }
        var connections = accepted.makeAsyncIterator()
        let receiver = try #require(await connections.next())
        defer { receiver.close() }

        // 32 MiB (several times what the kernel's socket buffers hold) in 64 KiB chunks, each chunk's bytes its
        // index, so the order can be checked.
        let chunkSize = 64 * 1024
        let chunks = 512
        let done = FinishedFlag()
        let writer = Task {
            for index in 0..<chunks { try await sender.write([UInt8](repeating: UInt8(index % 251), count: chunkSize)) }
            done.set()
        }
        // Nobody reads: the receiver stops reading from the network once 256 KiB wait, so the sender cannot finish.
        #expect(await eventually(timeout: .seconds(60)) { receiver.meter.isPaused }, "the receiver stopped reading")
        try await Task.sleep(for: .seconds(1))
        let waiting = receiver.meter.waiting
        #expect(waiting <= ByteConnection.highWatermark + 1024 * 1024, "\(waiting) bytes waiting")
        #expect(waiting >= ByteConnection.highWatermark, "\(waiting) bytes waiting")
        #expect(!done.value, "the sender is held back")

        // Reading everything then lets the writer finish, with every byte in order.
        var total = 0
        var mismatches = 0
        for await bytes in receiver.received {
            // The first and last byte of each piece read, against the chunk their offsets fall in.
            let view = bytes.readableBytesView
            if let first = view.first, first != UInt8((total / chunkSize) % 251) { mismatches += 1 }
            if let last = view.last, last != UInt8(((total + view.count - 1) / chunkSize) % 251) { mismatches += 1 }
            total += bytes.readableBytes
            if total == chunkSize * chunks { break }
        }
        try await writer.value
        #expect(total == chunkSize * chunks)
        #expect(mismatches == 0)
        #expect(receiver.meter.waiting == 0 && !receiver.meter.isPaused)
    }
}

/// A flag set from another task.
final class FinishedFlag: Sendable {
    private let box = NIOLockedValueBox(false)
    func set() { box.withLockedValue { $0 = true } }
    var value: Bool { box.withLockedValue { $0 } }
}
