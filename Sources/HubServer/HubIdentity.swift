import AtomicFiles
import Crypto
import Foundation
import HAP
import HearthAPI

/// The hub's long-term Ed25519 identity for remote access: made on first start, kept in `<state>/hub.key` (the
/// 32-byte private key, mode 0600, written atomically).
public struct HubIdentity: Sendable {
    /// The long-term signing key; never logged.
    public let signingKey: Curve25519.Signing.PrivateKey

    /// Wraps a key.
    public init(signingKey: Curve25519.Signing.PrivateKey) { self.signingKey = signingKey }

    /// Reads the key at `path`, or makes one and writes it there when there is none.
    public static func loadOrCreate(atPath path: String) throws -> HubIdentity {
        if let data = FileManager.default.contents(atPath: path) {
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: data) else {
                throw APIError(
                    .internalServerError,
                    code: "internal",
                    message: "the hub's identity file \(path) is not a 32-byte Ed25519 key"
                )
            }
            return HubIdentity(signingKey: key)
        }
        let key = Curve25519.Signing.PrivateKey()
        try AtomicFile.write(key.rawRepresentation, toPath: path)
        return HubIdentity(signingKey: key)
    }

    /// The public key, 32 bytes.
    public var publicKey: [UInt8] { Array(signingKey.publicKey.rawRepresentation) }

    /// The first 16 bytes of SHA-256 of the public key as 32 lowercase hex characters; also the hub's pairing
    /// identifier in pair-setup and pair-verify.
    public var routingID: String { Self.routingID(of: publicKey) }

    /// SHA-256 of the public key as lowercase hex in groups of four characters.
    public var fingerprint: String { Self.fingerprint(of: publicKey) }

    /// The routing id of a hub's public key.
    public static func routingID(of publicKey: [UInt8]) -> String {
        hex(Array(SHA256.hash(data: publicKey).prefix(16)))
    }

    /// The fingerprint of a hub's public key.
    public static func fingerprint(of publicKey: [UInt8]) -> String {
        let digits = Array(hex(Array(SHA256.hash(data: publicKey))))
        return stride(from: 0, to: digits.count, by: 4).map { String(digits[$0..<min($0 + 4, digits.count)]) }
            .joined(separator: " ")
    }

    /// The identity as HAP's pairing machines take it: the routing id as device id.
    public var accessoryIdentity: AccessoryIdentity {
        AccessoryIdentity(deviceID: routingID, signingKey: signingKey)
    }

    /// The answer of `GET /v1/hub/identity`.
    public func info(
        secureAddress: String?,
        relay: String? = nil,
        webURL: String? = nil,
        webCertificateFingerprint: String? = nil,
        relayCertificates: String? = nil
    ) -> HubIdentityInfo {
        HubIdentityInfo(
            publicKey: Self.hex(publicKey),
            fingerprint: fingerprint,
            routingID: routingID,
            secureAddress: secureAddress,
            relay: relay,
            webURL: webURL,
            webCertificateFingerprint: webCertificateFingerprint,
            relayCertificates: relayCertificates
        )
    }

    /// Lowercase hex of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }
}
