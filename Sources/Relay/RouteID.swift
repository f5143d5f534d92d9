import Crypto
import Foundation

/// A home's routing id: the first 16 bytes of SHA-256 of the hub's Ed25519 public key, as 32 lowercase hex digits.
public struct RouteID: Hashable, Sendable, CustomStringConvertible {
    /// The 32 lowercase hex digits.
    public let hex: String

    /// The routing id of a hub's long-term public key (its 32 raw bytes).
    public init(publicKey: some DataProtocol) {
        let digest = SHA256.hash(data: publicKey)
        hex = digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// A routing id read from a request; `nil` unless exactly 32 lowercase hex digits.
    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == 32, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        hex = String(text)
    }

    /// The hex digits.
    public var description: String { hex }
}

/// What a hub signs to prove to a relay that it holds the key of its routing id.
public enum HubProof {
    /// The label that keeps this signature from meaning anything in another protocol.
    public static let label = Array("hearth-relay hub proof v1".utf8)
    /// The length of the relay's random challenge.
    public static let challengeLength = 32

    /// The signed message: the label, a zero byte, the challenge, then the routing id's hex digits.
    public static func message(challenge: [UInt8], route: RouteID) -> [UInt8] {
        label + [0] + challenge + Array(route.hex.utf8)
    }

    /// The hub's answer to `challenge`: its public key and its signature of ``message(challenge:route:)``.
    public static func answer(
        challenge: [UInt8],
        identity: Curve25519.Signing.PrivateKey
    ) throws -> (publicKey: [UInt8], signature: [UInt8]) {
        let publicKey = Array(identity.publicKey.rawRepresentation)
        let route = RouteID(publicKey: publicKey)
        let signature = try identity.signature(for: message(challenge: challenge, route: route))
        return (publicKey, Array(signature))
    }

    /// Whether `publicKey` belongs to `route` and `signature` is its signature over the challenge for that route.
    public static func verify(publicKey: [UInt8], signature: [UInt8], challenge: [UInt8], route: RouteID) -> Bool {
        guard RouteID(publicKey: publicKey) == route,
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
        else { return false }
        return key.isValidSignature(signature, for: message(challenge: challenge, route: route))
    }
}
