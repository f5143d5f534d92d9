import Crypto
import Foundation
import HummingbirdWSClient
import NIOCore
import NIOPosix
import NIOWebSocket
import TestSupport
import Testing

@testable import Relay

/// The relay, a hub link and client streams on loopback, with an echo server standing in for the hub's listener.
@Suite(.serialized) struct RelayTests {
    /// Runs `body` with a relay, an echo target and a hub link to it.
    func withHome(
        _ configure: (inout RelayServer.Configuration) -> Void = { _ in },
        _ body: (RunningRelay, RunningHub) async throws -> Void
    ) async throws {
        let relay = try await RunningRelay.start(configure)
        let echo = try await EchoServer.start()
        let hub = try await RunningHub.start(relayURL: relay.url, targetPort: echo.port)
        do {
            try await body(relay, hub)
        } catch {
            await hub.stop(); echo.stop(); await relay.stop()
            throw error
        }
        await hub.stop(); echo.stop(); await relay.stop()
    }

    @Test func bytesEchoThroughTheRelayAndTheObserverSeesEveryPayload() async throws {
        let seen = Shared<[ForwardedPayload]>([])
        try await withHome({ $0.observer = { payload in seen.withLock { $0.append(payload) } } }) { relay, hub in
            var configuration = ClientForwarder.Configuration(relayURL: relay.url, route: hub.route)
            configuration.maximumPayload = 16384
            let forwarder = try await ClientForwarder(configuration: configuration, logger: quietLogger("test.fwd"))
            let running = Task { await forwarder.run() }
            defer { running.cancel() }
            // 100 KB crosses in several messages each way (payloads are at most 16 KB).
            let message = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(try await roundTrip(port: forwarder.port, message) == message)

            // The observer saw exactly the stream's bytes, each way, and nothing else.
            try await waitUntil("the relay to report every payload") {
                seen.withLock { $0.filter { $0.direction == .hubToClient } }.reduce(0) { $0 + $1.bytes.readableBytes }
                    >= message.count
            }
            let payloads = seen.withLock { $0 }
            let up = payloads.filter { $0.direction == .clientToHub }.flatMap { Array($0.bytes.readableBytesView) }
            let down = payloads.filter { $0.direction == .hubToClient }.flatMap { Array($0.bytes.readableBytesView) }
            #expect(up == message)
            #expect(down == message)
            #expect(payloads.allSatisfy { $0.route == hub.route })
        }
    }

    @Test func manyStreamsAtOnceEachGetTheirOwnBytes() async throws {
        try await withHome { relay, hub in
            let ends = Shared<[String]>([])
            let forwarder = try await ClientForwarder(
                configuration: .init(relayURL: relay.url, route: hub.route),
                logger: quietLogger("test.fwd")
            ) { close in
                ends.withLock { $0.append("\(close.map { "\($0.closeCode) \($0.reason ?? "")" } ?? "no close frame")") }
            }
            let running = Task { await forwarder.run() }
            defer { running.cancel() }
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let message = (0..<(1000 + index * 500)).map { UInt8(truncatingIfNeeded: $0 ^ index) }
                        let back = try await roundTrip(port: forwarder.port, message)
                        if back != message { print("stream \(index): \(back.count) of \(message.count) bytes back") }
                        return back == message
                    }
                }
                var matched = 0
                for try await ok in group where ok { matched += 1 }
                #expect(matched == 40, "how the streams ended: \(ends.withLock { $0 })")
            }
        }
    }

    @Test func unknownAndMalformedRoutesHearHomeOfflineAlike() async throws {
        try await withHome { relay, hub in
            let unknown = RouteID(publicKey: Curve25519.Signing.PrivateKey().publicKey.rawRepresentation)
            // Refused before the upgrade, with the same answer for each.
            for route in [unknown.hex, "not-a-route", ""] {
                let answer = try await upgradeAnswer(port: relay.port, path: "/v1/client?route=\(route)")
                #expect(answer.status == 400, "route \(route)")
                #expect(answer.body.isEmpty, "route \(route)")
                // A WebSocket client hears the refusal as a failed upgrade, at once.
                let socket = TestSocket(url: "\(relay.url)/v1/client?route=\(route)")
                await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) {
                    try await socket.closeFrame(timeout: .seconds(10))
                }
            }
            // The connected home's route is open.
            let socket = TestSocket(url: "\(relay.url)/v1/client?route=\(hub.route)")
            socket.send([1, 2, 3])
            try await waitUntil("the echo") { socket.received == [1, 2, 3] }
            socket.close()
        }
    }

    @Test func aStreamHearsHomeOfflineWithinASecondWhenTheHubGoes() async throws {
        try await withHome { relay, hub in
            let socket = TestSocket(url: "\(relay.url)/v1/client?route=\(hub.route)")
            socket.send([9])
            try await waitUntil("the echo") { socket.received == [9] }
            let stopped = ContinuousClock.now
            await hub.stop()
            let close = try await socket.closeFrame(timeout: .seconds(5))
            #expect(close?.closeCode == WebSocketErrorCode(codeNumber: 4004))
            #expect(close?.reason == "home offline")
            let closedAt = try #require(socket.closedAt)
            #expect(stopped.duration(to: closedAt) < .seconds(1))
            #expect(relay.relay.connectedHomes == 0)
        }
    }

    @Test func aWrongSignatureOrAnotherKeysRouteIsRefused() async throws {
        let relay = try await RunningRelay.start()
        defer { Task { await relay.stop() } }
        let key = Curve25519.Signing.PrivateKey()
        let other = Curve25519.Signing.PrivateKey()
        let route = RouteID(publicKey: key.publicKey.rawRepresentation)
        // (the key that signs, the key it claims, the route it asks for)
        let cases: [(String, @Sendable ([UInt8]) throws -> RelayFrame)] = [
            (
                "signature by another key",
                { challenge in
                    let signature = try other.signature(for: HubProof.message(challenge: challenge, route: route))
                    return .proof(publicKey: Array(key.publicKey.rawRepresentation), signature: Array(signature))
                }
            ),
            (
                "another key's valid proof for this route",
                { challenge in
                    let signature = try other.signature(for: HubProof.message(challenge: challenge, route: route))
                    return .proof(publicKey: Array(other.publicKey.rawRepresentation), signature: Array(signature))
                }
            ),
            (
                "a signature over another challenge",
                { challenge in
                    let signature = try key.signature(
                        for: HubProof.message(challenge: challenge.map { $0 ^ 1 }, route: route)
                    )
                    return .proof(publicKey: Array(key.publicKey.rawRepresentation), signature: Array(signature))
                }
            ),
        ]
        for (name, makeProof) in cases {
            let accepted = Shared(false)
            let close = try await WebSocketClient.connect(
                url: "\(relay.url)/v1/hub?route=\(route)",
                logger: quietLogger("test.hub")
            ) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
                guard case .binary(let first)? = try await messages.next(),
                    case .challenge(let challenge)? = RelayFrame(decoding: first)
                else { return }
                try await outbound.write(.binary(try makeProof(challenge).encoded()))
                while let message = try await messages.next() {
                    if case .binary(let bytes) = message, RelayFrame(decoding: bytes) == .accepted {
                        accepted.withLock { $0 = true }
                        return
                    }
                }
            }
            #expect(!accepted.withLock { $0 }, "\(name)")
            #expect(close?.closeCode == .policyViolation, "\(name)")
            #expect(close?.reason == "hub proof refused", "\(name)")
            #expect(relay.relay.connectedHomes == 0, "\(name)")
        }
        // The right key is accepted, and then its route is served.
        let echo = try await EchoServer.start()
        let hub = try await RunningHub.start(relayURL: relay.url, targetPort: echo.port, identity: key)
        #expect(relay.relay.connectedHomes == 1)
        await hub.stop()
        echo.stop()
    }

    @Test func aHomeOpensNoMoreThanItsStreamCap() async throws {
        try await withHome({ $0.maximumStreamsPerHome = 3 }) { relay, hub in
            let url = "\(relay.url)/v1/client?route=\(hub.route)"
            let open = (0..<3).map { _ in TestSocket(url: url) }
            for (index, socket) in open.enumerated() {
                socket.send([UInt8(index)])
                try await waitUntil("stream \(index)'s echo") { socket.received == [UInt8(index)] }
            }
            let refused = try await upgradeAnswer(port: relay.port, path: "/v1/client?route=\(hub.route)")
            #expect(refused.status == 400)
            // Closing one makes room.
            open[0].close()
            _ = try await open[0].closeFrame()
            try await waitUntil("a free stream") {
                let socket = TestSocket(url: url)
                socket.send([7])
                let echoed = await eventually(timeout: .seconds(2)) { socket.received == [7] }
                socket.close()
                return echoed
            }
            for socket in open { socket.close() }
        }
    }

    @Test func aClientOverItsFrameRateIsClosed() async throws {
        try await withHome({
            $0.clientFramesPerSecond = 10
            $0.clientFrameBurst = 10
        }) { relay, hub in
            let socket = TestSocket(url: "\(relay.url)/v1/client?route=\(hub.route)")
            for _ in 0..<100 { socket.send([1]) }
            let close = try await socket.closeFrame()
            #expect(close?.closeCode == .policyViolation)
            #expect(close?.reason == "too many frames")
            #expect(socket.received.count <= 20)

            // Within the rate, a stream stays open.
            let calm = TestSocket(url: "\(relay.url)/v1/client?route=\(hub.route)")
            for index in 0..<15 {
                calm.send([UInt8(index)])
                try await Task.sleep(for: .milliseconds(150))
            }
            try await waitUntil("every calm frame's echo") { calm.received.count == 15 }
            #expect(calm.closedAt == nil)
            calm.close()
        }
    }

    @Test func aFrameOverTheMaximumIsRefused() async throws {
        try await withHome({ $0.maximumPayload = 1024 }) { relay, hub in
            let url = "\(relay.url)/v1/client?route=\(hub.route)"
            let fits = TestSocket(url: url)
            fits.send(Array(repeating: 5, count: 1024))
            try await waitUntil("the largest allowed frame's echo") { fits.received.count == 1024 }
            fits.close()
            // Just over the payload limit (the relay's check), and far over the frame limit (the WebSocket decoder's).
            for size in [1025, 100_000] {
                let socket = TestSocket(url: url)
                socket.send(Array(repeating: 6, count: size))
                let close = try await socket.closeFrame()
                #expect(close?.closeCode == .messageTooLarge, "\(size) bytes")
                #expect(socket.received.isEmpty, "\(size) bytes")
            }
            #expect(relay.relay.connectedHomes == 1)
        }
    }

    @Test func anIdleStreamIsClosed() async throws {
        // A timeout 7.5 times the gaps between sends, so a loaded machine's late wake-ups do not look idle.
        try await withHome({ $0.idleTimeout = .milliseconds(1500) }) { relay, hub in
            let socket = TestSocket(url: "\(relay.url)/v1/client?route=\(hub.route)")
            // Traffic keeps it open past the timeout (12 sends over 2.4 s).
            for _ in 0..<12 {
                socket.send([3])
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(socket.closedAt == nil)
            let quietSince = ContinuousClock.now
            let close = try await socket.closeFrame(timeout: .seconds(10))
            #expect(close?.closeCode == .goingAway)
            #expect(close?.reason == "idle timeout")
            let closedAt = try #require(socket.closedAt)
            #expect(quietSince.duration(to: closedAt) >= .seconds(1))
            #expect(socket.received.count == 12)
        }
    }

    @Test func aLinkAttemptTheRelayNeverAnswersIsGivenUpAndRetried() async throws {
        // A "relay" that takes the connection and never answers the upgrade: the client would wait for ever.
        let connections = Shared(0)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                connections.withLock { $0 += 1 }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { listener.close(promise: nil) }
        let port = try #require(listener.localAddress?.port)
        var configuration = HubLink.Configuration(
            relayURL: "ws://127.0.0.1:\(port)",
            identity: Curve25519.Signing.PrivateKey(),
            targetHost: "127.0.0.1",
            targetPort: 9
        )
        configuration.acceptTimeout = .seconds(1)
        configuration.initialBackoff = .milliseconds(50)
        configuration.maximumBackoff = .milliseconds(100)
        let link = HubLink(configuration: configuration, logger: quietLogger("test.hub"))
        let running = RunningHub(link: link, task: Task { await link.run() })
        try await waitUntil("attempts after the first was given up", timeout: .seconds(20)) {
            connections.withLock { $0 } >= 3
        }
        #expect(!link.isConnected)
        // Stopping does not wait for the stuck attempt.
        let stopping = ContinuousClock.now
        await running.stop()
        #expect(ContinuousClock.now - stopping < .seconds(2))
    }

    @Test func aNewerHubLinkReplacesTheOlder() async throws {
        let relay = try await RunningRelay.start()
        let echo = try await EchoServer.start()
        let key = Curve25519.Signing.PrivateKey()
        let first = try await RunningHub.start(relayURL: relay.url, targetPort: echo.port, identity: key)
        let socket = TestSocket(url: "\(relay.url)/v1/client?route=\(first.route)")
        socket.send([1])
        try await waitUntil("the echo") { socket.received == [1] }
        // Stop the first link's reconnecting, then take over with a second one for the same key.
        let second = try await RunningHub.start(relayURL: relay.url, targetPort: echo.port, identity: key)
        let close = try await socket.closeFrame()
        #expect(close?.reason == "home offline")
        #expect(relay.relay.connectedHomes == 1)
        await first.stop()
        await second.stop()
        echo.stop()
        await relay.stop()
    }

    @Test func aHubMessageInSeveralFramesIsReassembled() async throws {
        let relay = try await RunningRelay.start()
        defer { Task { await relay.stop() } }
        let key = Curve25519.Signing.PrivateKey()
        let route = RouteID(publicKey: key.publicKey.rawRepresentation)
        let accepted = Shared(false)
        _ = try await WebSocketClient.connect(
            url: "\(relay.url)/v1/hub?route=\(route)",
            logger: quietLogger("test.hub")
        ) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
            guard case .binary(let first)? = try await messages.next(),
                case .challenge(let challenge)? = RelayFrame(decoding: first)
            else { return }
            let signature = try key.signature(for: HubProof.message(challenge: challenge, route: route))
            var proof = RelayFrame.proof(
                publicKey: Array(key.publicKey.rawRepresentation),
                signature: Array(signature)
            ).encoded()
            // The proof in three frames: the first, a continuation, and the last continuation.
            let head = proof.readSlice(length: 10) ?? ByteBuffer()
            let middle = proof.readSlice(length: 40) ?? ByteBuffer()
            try await outbound.write(.custom(WebSocketFrame(fin: false, opcode: .binary, data: head)))
            try await outbound.write(.custom(WebSocketFrame(fin: false, opcode: .continuation, data: middle)))
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .continuation, data: proof)))
            while let message = try await messages.next() {
                if case .binary(let bytes) = message, RelayFrame(decoding: bytes) == .accepted {
                    accepted.withLock { $0 = true }
                    return
                }
            }
        }
        #expect(accepted.withLock { $0 })
    }

    @Test func healthAnswersOkAndAnotherPathIsNotFound() async throws {
        let relay = try await RunningRelay.start()
        defer { Task { await relay.stop() } }
        let health = try await upgradeAnswer(port: relay.port, path: "/healthz")
        #expect(health.status == 200)
        #expect(health.body == "ok\n")
        let elsewhere = try await upgradeAnswer(port: relay.port, path: "/v1/elsewhere")
        #expect(elsewhere.status == 404)
    }
}
