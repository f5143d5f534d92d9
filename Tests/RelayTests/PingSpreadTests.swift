import Foundation
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import Relay

/// Homes that connect together are not pinged together: each connection's first ping falls at its own point of the
/// second half of the interval.
struct PingSpreadTests {
    @Test func firstPingsOfHomesThatConnectTogetherAreSpreadOverHalfTheInterval() async throws {
        let interval = Duration.milliseconds(600)
        let relay = try await RunningRelay.start { $0.pingInterval = interval }
        let count = 8
        // A loaded machine can stall this process past the pings, so that they all arrive at once: up to three
        // rounds. Pings that come together every time fail all three.
        var spreads: [Duration] = []
        for _ in 0..<3 {
            // Eight hubs connect at once and never answer: each hears the challenge, then a ping.
            let times = try await withThrowingTaskGroup(of: FirstPing.self) { group in
                for _ in 0..<count { group.addTask { try await timeToFirstPing(port: relay.port) } }
                var times: [FirstPing] = []
                for try await time in group { times.append(time) }
                return times
            }
            #expect(times.count == count)
            for time in times {
                // The relay picks the delay after the upgrade was sent, so a ping never comes sooner than half the
                // interval after it. (How late one may come is the machine's load, not the relay's: the delay's upper
                // bound is checked by the unit test below.)
                #expect(time.sinceUpgrade >= interval / 2, "\(times)")
            }
            // Uniform over 300 ms: eight falling within 30 ms of each other has a chance of about one in a million.
            let delays = times.map(\.sinceChallenge)
            spreads.append((delays.max() ?? .zero) - (delays.min() ?? .zero))
            if spreads.last ?? .zero > .milliseconds(30) { break }
        }
        await relay.stop()
        #expect(spreads.contains { $0 > .milliseconds(30) }, "\(spreads)")
    }

    @Test func theFirstPingDelayStaysWithinTheSecondHalfOfTheInterval() {
        let interval = Duration.seconds(30)
        var seen = Set<Int64>()
        for _ in 0..<1_000 {
            let delay = RelaySocketHandler.firstPingDelay(interval).nanoseconds
            #expect(delay >= 15_000_000_000 && delay <= 30_000_000_000)
            seen.insert(delay / 1_000_000_000)
        }
        #expect(seen.count >= 10)
        #expect(RelaySocketHandler.firstPingDelay(.zero).nanoseconds >= 1)
    }
}

/// When a connection's first ping arrived: after sending the upgrade, and after the challenge arrived.
private struct FirstPing: CustomStringConvertible {
    /// From sending the upgrade to the ping.
    let sinceUpgrade: Duration
    /// From the challenge frame's arrival to the ping.
    let sinceChallenge: Duration
    var description: String { "\(sinceUpgrade)/\(sinceChallenge)" }
}

/// Opens a hub's WebSocket to the relay on `port` with raw bytes and times the first ping frame (after the 101
/// answer and the 35-byte challenge frame).
private func timeToFirstPing(port: Int) async throws -> FirstPing {
    let route = String(repeating: "0", count: 24) + String(format: "%08x", UInt32.random(in: 0...UInt32.max))
    let request = upgradeRequest(path: "/v1/hub?route=\(route)")
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    let clock = ContinuousClock()
    return try await channel.executeThenClose { inbound, outbound in
        let start = clock.now
        try await outbound.write(ByteBuffer(bytes: request))
        var received: [UInt8] = []
        var challenged: ContinuousClock.Instant?
        for try await chunk in inbound {
            received += chunk.readableBytesView
            guard let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound else { continue }
            let frames = received[end...]
            // The challenge: FIN + binary, 33 bytes (its type and 32 random ones); then the ping: FIN + ping.
            guard frames.count >= 35 else { continue }
            let challengeTime = challenged ?? clock.now
            challenged = challengeTime
            guard frames.count >= 37 else { continue }
            #expect(frames[frames.startIndex] == 0x82 && frames[frames.startIndex + 1] == 33)
            #expect(frames[frames.startIndex + 35] == 0x89)
            let now = clock.now
            return FirstPing(sinceUpgrade: now - start, sinceChallenge: now - challengeTime)
        }
        throw TimedOut(what: "a ping")
    }
}
