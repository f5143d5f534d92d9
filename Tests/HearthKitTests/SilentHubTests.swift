import Foundation
import HearthKit
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
