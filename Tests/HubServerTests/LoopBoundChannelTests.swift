import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import HubServer

/// `LoopBoundChannel` runs a connection's handling on that connection's own event loop.
struct LoopBoundChannelTests {
    /// A child channel value around a real channel.
    struct Value: ServerChildChannelValue {
        let channel: any Channel
    }

    /// What a probe saw, shared with the test.
    final class Record: Sendable {
        let onLoop = Mutex<[Bool]>([])
    }

    /// A child channel whose handler records whether it runs on its channel's loop, before and after a suspension.
    struct Probe: ServerChildChannel {
        let record = Record()

        func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
            channel.eventLoop.makeSucceededFuture(Value(channel: channel))
        }

        func handle(value: Value, logger: Logger) async {
            record.onLoop.withLock { $0.append(value.channel.eventLoop.inEventLoop) }
            try? await Task.sleep(for: .milliseconds(1))
            record.onLoop.withLock { $0.append(value.channel.eventLoop.inEventLoop) }
        }
    }

    @Test func aConnectionIsHandledOnItsOwnEventLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        // Two real channels, one on each loop, each handled through the wrapper.
        var channels: [any Channel] = []
        for _ in 0..<2 {
            channels.append(try await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get())
        }
        #expect(channels[0].eventLoop !== channels[1].eventLoop)
        let logger = Logger(label: "test")
        for channel in channels {
            let probe = Probe()
            let wrapped = LoopBoundChannel(inner: probe)
            let value = try await wrapped.setup(channel: channel, logger: logger).get()
            await wrapped.handle(value: value, logger: logger)
            #expect(probe.record.onLoop.withLock { $0 } == [true, true])
            // Without the wrapper the same handler runs on Swift's global executor, off the loop.
            let bare = Probe()
            await bare.handle(value: value, logger: logger)
            #expect(bare.record.onLoop.withLock { $0 } == [false, false])
        }
        for channel in channels { try await channel.close() }
        try await group.shutdownGracefully()
    }
}
