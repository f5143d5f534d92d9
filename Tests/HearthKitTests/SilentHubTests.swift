import Crypto
import Foundation
import HTTPTypes
import HearthAPI
import HearthKit
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import Testing

/// A secure address that accepts the connection and then says nothing (a relay stream stuck opening looks the same
/// to the client): the handshake gives up with a sentence, it does not wait for ever.
@Suite struct SilentHubTests {
    @Test func aHubThatNeverAnswersTheHandshakeIsUnreachableWithinFifteenSeconds() async throws {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { _ in MultiThreadedEventLoopGroup.singleton.any().makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { listener.close(promise: nil) }
        let port = try #require(listener.localAddress?.port)
        let started = ContinuousClock.now
        do {
            _ = try await SecureHub.pair(address: "127.0.0.1:\(port)", code: "123-45-678")
            Issue.record("a silent hub was paired with")
        } catch {
            #expect(error.code == "unreachable")
            #expect(error.message.contains("did not answer"), "\(error.message)")
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(14) && waited < .seconds(40), "\(waited)")
    }
}

/// A tunnel whose hub cannot be reached answers its local client, rather than closing on it.
@Suite struct UnreachableTunnelTests {
    @Test func aRequestAndAWebSocketThroughATunnelToAnUnreachableHubHearA502AtOnce() async throws {
        // A port nothing listens on.
        let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let closedPort = try #require(probe.localAddress?.port)
        try await probe.close()
        let secure = SecureClientConfiguration(
            address: "127.0.0.1:\(closedPort)",
            hubPublicKey: String(repeating: "ab", count: 32),
            clientID: UUID().uuidString,
            clientKey: Curve25519.Signing.PrivateKey().rawRepresentation.base64EncodedString()
        )
        let tunnel = try await SecureTunnel.start(secure)
        defer { Task { await tunnel.stop() } }
        let port = try #require(Int(tunnel.url.split(separator: ":").last ?? ""))

        // A plain request: a 502 with the API's error body, naming why.
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let answer = try await channel.executeThenClose { inbound, outbound in
            let request = "GET /v1/homes HTTP/1.1\r\nHost: hub\r\n\(SecureTunnel.header): \(tunnel.secret)\r\n\r\n"
            try await outbound.write(ByteBuffer(string: request))
            var text = ""
            for try await chunk in inbound { text += String(buffer: chunk) }
            return text
        }
        #expect(answer.hasPrefix("HTTP/1.1 502"), "\(answer)")
        #expect(answer.contains(#""code":"unreachable""#), "\(answer)")

        // A WebSocket (HomeManager's event connection): refused at once, not left waiting.
        let started = ContinuousClock.now
        await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) {
            _ = try await WebSocketClient.connect(
                url: tunnel.url.replacingOccurrences(of: "http://", with: "ws://") + "/v1/events",
                configuration: .init(additionalHeaders: [HTTPField.Name(SecureTunnel.header)!: tunnel.secret]),
                logger: Logger(label: "test.ws")
            ) { _, _, _ in }
        }
        #expect(ContinuousClock.now - started < .seconds(10))
    }
}
