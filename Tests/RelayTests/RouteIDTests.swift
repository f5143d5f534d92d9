import Crypto
import Foundation
import NIOCore
import Testing

@testable import Relay

@Suite struct RouteIDTests {
    @Test func routeIsTheHashPrefixOfTheKey() throws {
        let key = Curve25519.Signing.PrivateKey()
        let route = RouteID(publicKey: key.publicKey.rawRepresentation)
        let digest = SHA256.hash(data: key.publicKey.rawRepresentation)
        #expect(route.hex == digest.prefix(16).map { String(format: "%02x", $0) }.joined())
        #expect(RouteID(route.hex) == route)
        #expect(RouteID(route.hex.uppercased()) == nil)
        #expect(RouteID(String(route.hex.dropLast())) == nil)
    }

    @Test func proofVerifiesOnlyForItsKeyChallengeAndRoute() throws {
        let key = Curve25519.Signing.PrivateKey()
        let other = Curve25519.Signing.PrivateKey()
        let route = RouteID(publicKey: key.publicKey.rawRepresentation)
        let challenge = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let answer = try HubProof.answer(challenge: challenge, identity: key)
        #expect(
            HubProof.verify(
                publicKey: answer.publicKey,
                signature: answer.signature,
                challenge: challenge,
                route: route
            )
        )
        var otherChallenge = challenge
        otherChallenge[0] ^= 1
        #expect(
            !HubProof.verify(
                publicKey: answer.publicKey,
                signature: answer.signature,
                challenge: otherChallenge,
                route: route
            )
        )
        let foreign = try HubProof.answer(challenge: challenge, identity: other)
        #expect(
            !HubProof.verify(
                publicKey: foreign.publicKey,
                signature: foreign.signature,
                challenge: challenge,
                route: route
            )
        )
    }

    @Test func framesRoundTrip() {
        let frames: [RelayFrame] = [
            .challenge(Array(repeating: 7, count: 32)),
            .proof(publicKey: Array(repeating: 1, count: 32), signature: Array(repeating: 2, count: 64)),
            .accepted, .open(stream: 9), .data(stream: 0xFFFF_FFFF, payload: ByteBuffer(string: "sealed")),
            .close(stream: 3),
        ]
        for frame in frames { #expect(RelayFrame(decoding: frame.encoded()) == frame) }
        #expect(RelayFrame(decoding: ByteBuffer(bytes: [0x01, 0, 0])) == nil)
        #expect(RelayFrame(decoding: ByteBuffer(bytes: [0x7F])) == nil)
    }
}
