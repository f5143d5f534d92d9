import Foundation
import TestSupport
import Testing

@testable import Relay

/// What a hostile peer can make the relay do: every frame counts against the limits, nothing piles up for a peer
/// that does not read, frames RFC 6455 forbids fail the connection with the right code, a plain HTTP connection gets
/// one answer in bounded time, and connections stay under the open-file limit.
@Suite struct RelayAbuseTests {
    /// A routing id no hub has proven: enough to open a hub link that waits for its proof.
    static let anyRoute = String(repeating: "c", count: 32)

    /// One masked frame as a client sends it; `length` declares a length other than the payload's.
    static func frame(
        opcode: UInt8,
        _ payload: [UInt8] = [],
        fin: Bool = true,
        masked: Bool = true,
        rsv1: Bool = false,
        length: UInt64? = nil
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode]
        let declared = length ?? UInt64(payload.count)
        let mask: UInt8 = masked ? 0x80 : 0
        if declared < 126 {
            bytes.append(mask | UInt8(declared))
        } else if declared <= 0xFFFF {
            bytes += [mask | 126, UInt8(declared >> 8), UInt8(declared & 0xFF)]
        } else {
            bytes.append(mask | 127)
            bytes += (0..<8).reversed().map { UInt8((declared >> (8 * UInt64($0))) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    /// The server's frames after the upgrade's answer: each opcode with its payload.
    static func frames(in bytes: [UInt8]) -> [(opcode: UInt8, payload: [UInt8])] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 101"), let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
        var index = end.upperBound
        var result: [(UInt8, [UInt8])] = []
        while index + 2 <= bytes.count {
            let opcode = bytes[index] & 0x0F
            var length = Int(bytes[index + 1] & 0x7F)
            var start = index + 2
            if length == 126, start + 2 <= bytes.count {
                length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
                start += 2
            } else if length == 127 {
                break  // the relay sends nothing this long
            }
            guard start + length <= bytes.count else { break }
            result.append((opcode, Array(bytes[start..<start + length])))
            index = start + length
        }
        return result
    }

    /// The close code of the server's close frame among `bytes`, if it sent one.
    static func closeCode(in bytes: [UInt8]) -> Int? {
        guard let close = frames(in: bytes).first(where: { $0.opcode == 0x8 }), close.payload.count >= 2 else {
            return nil
        }
        return Int(close.payload[0]) << 8 | Int(close.payload[1])
    }

    /// A raw connection upgraded to a hub link of `route` (its proof never sent).
    static func unprovenHub(_ relay: RunningRelay, receiveBuffer: Int? = nil) throws -> RawSocket {
        let socket = try RawSocket(port: relay.port, receiveBuffer: receiveBuffer)
        try socket.send(upgradeRequest(path: "/v1/hub?route=\(anyRoute)"))
        return socket
    }

    @Test func pingsCountAgainstTheFrameLimitAndPongsDoNotPileUpForAPeerThatDoesNotRead() async throws {
        let relay = try await RunningRelay.start {
            $0.hubFramesPerSecond = 10
            $0.hubFrameBurst = 50
        }
        defer { Task { await relay.stop() } }
        let socket = try Self.unprovenHub(relay, receiveBuffer: 4096)
        // 2,000 pings of 125 bytes, none of their pongs read while they go out.
        let ping = Self.frame(opcode: 0x9, [UInt8](repeating: 0x70, count: 125))
        try socket.send(Array((0..<2000).map { _ in ping }.joined()))
        let (bytes, closed) = await socket.readUntilClosed(timeout: .seconds(15))
        #expect(closed, "the relay keeps a link open that sent 2,000 pings against a burst of 50")
        let pongs = Self.frames(in: bytes).filter { $0.opcode == 0xA }.count
        #expect(pongs <= 51, "\(pongs) pongs for a burst of 50 frames")
        #expect(Self.closeCode(in: bytes) == 1008)
    }

    @Test func framesRFC6455ForbidsFailTheConnectionWithTheirCode() async throws {
        let relay = try await RunningRelay.start()
        defer { Task { await relay.stop() } }
        let cases: [(String, [UInt8], Int)] = [
            ("an unmasked frame", Self.frame(opcode: 0x2, [1, 2, 3], masked: false), 1002),
            ("a reserved bit", Self.frame(opcode: 0x2, [1, 2, 3], rsv1: true), 1002),
            ("a reserved data opcode", Self.frame(opcode: 0x3, [1, 2, 3]), 1002),
            ("a reserved control opcode", Self.frame(opcode: 0xB, [1]), 1002),
            ("a text frame", Self.frame(opcode: 0x1, Array("hello".utf8)), 1003),
            ("a ping of 126 bytes", Self.frame(opcode: 0x9, [UInt8](repeating: 0, count: 126)), 1002),
        ]
        for (what, bytes, code) in cases {
            let socket = try Self.unprovenHub(relay)
            try socket.send(bytes)
            let (received, closed) = await socket.readUntilClosed(timeout: .seconds(10))
            #expect(Self.closeCode(in: received) == code, "\(what): \(Self.closeCode(in: received) ?? 0)")
            #expect(closed, "\(what): the connection stays open")
        }
    }

    @Test func aClientStreamMustNotStartWithAContinuation() async throws {
        let relay = try await RunningRelay.start()
        let echo = try await EchoServer.start()
        let hub = try await RunningHub.start(relayURL: relay.url, targetPort: echo.port)
        defer {
            Task {
                await hub.stop()
                echo.stop()
                await relay.stop()
            }
        }
        let socket = try RawSocket(port: relay.port)
        try socket.send(upgradeRequest(path: "/v1/client?route=\(hub.route.hex)"))
        try socket.send(Self.frame(opcode: 0x0, Array("stray".utf8)))
        let (received, closed) = await socket.readUntilClosed(timeout: .seconds(10))
        #expect(Self.closeCode(in: received) == 1002)
        #expect(closed)
    }

    @Test func anOversizedFrameGetsItsCloseCodeRatherThanAReset() async throws {
        let relay = try await RunningRelay.start { $0.maximumPayload = 512 }
        defer { Task { await relay.stop() } }
        let socket = try Self.unprovenHub(relay)
        // A frame that declares 1 MiB, and 64 KiB of it, which the relay leaves undecoded.
        try socket.send(Self.frame(opcode: 0x2, length: 1 << 20) + [UInt8](repeating: 7, count: 65536))
        let (received, closed) = await socket.readUntilClosed(timeout: .seconds(10))
        #expect(Self.closeCode(in: received) == 1009)
        #expect(closed)
    }

    @Test func aPlainConnectionGetsOneAnswerAndNothingPipelinedBehindIt() async throws {
        let relay = try await RunningRelay.start()
        defer { Task { await relay.stop() } }
        let socket = try RawSocket(port: relay.port)
        try socket.send(String(repeating: "GET /healthz HTTP/1.1\r\nHost: relay\r\n\r\n", count: 3))
        let answer = await socket.answerThenClose(timeout: .seconds(10))
        #expect(answer?.components(separatedBy: "HTTP/1.1 200").count == 2, "\(answer ?? "no close")")
        #expect(answer?.lowercased().contains("connection: close") == true)
    }

    @Test func aRequestWithABodyIsAnsweredAtItsHeadNotAfterATrickledBody() async throws {
        let relay = try await RunningRelay.start()
        defer { Task { await relay.stop() } }
        let socket = try RawSocket(port: relay.port)
        try socket.send("POST /healthz HTTP/1.1\r\nHost: relay\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n")
        let answer = await socket.answerThenClose(timeout: .seconds(5))
        #expect(answer?.hasPrefix("HTTP/1.1 404") == true, "\(answer ?? "no close within 5 s")")
    }

    @Test func aRequestNIOCannotParseGetsA400AndTheConnectionEnds() async throws {
        let relay = try await RunningRelay.start()
        defer { Task { await relay.stop() } }
        let socket = try RawSocket(port: relay.port)
        try socket.send("garbage\r\n\r\n")
        let answer = await socket.answerThenClose(timeout: .seconds(5))
        #expect(answer?.hasPrefix("HTTP/1.1 400") == true, "\(answer ?? "no close within 5 s")")
    }

    @Test func aConnectionThatNeverFinishesItsRequestIsClosedAtTheRequestTimeout() async throws {
        let relay = try await RunningRelay.start { $0.requestTimeout = .milliseconds(500) }
        defer { Task { await relay.stop() } }
        let socket = try RawSocket(port: relay.port)
        try socket.send("GET /healthz HTTP/1.1\r\nHo")
        let started = ContinuousClock.now
        let (_, closed) = await socket.readUntilClosed(timeout: .seconds(10))
        #expect(closed)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func beyondTheConnectionCapNewConnectionsAreClosedAtOnce() async throws {
        let relay = try await RunningRelay.start { $0.maximumConnections = 3 }
        defer { Task { await relay.stop() } }
        var held = try (0..<3).map { _ in try RawSocket(port: relay.port) }
        try await waitUntil("three connections counted", timeout: .seconds(10)) { relay.relay.connectionCount == 3 }
        let refused = try RawSocket(port: relay.port)
        let (bytes, closed) = await refused.readUntilClosed(timeout: .seconds(5))
        #expect(closed && bytes.isEmpty, "the fourth connection was served")
        #expect(relay.relay.connectionCount == 3)
        held.removeLast().close()
        try await waitUntil("a connection counted out", timeout: .seconds(10)) { relay.relay.connectionCount == 2 }
        let health = try await upgradeAnswer(port: relay.port, path: "/healthz")
        #expect(health.status == 200)
    }
}
