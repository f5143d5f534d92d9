import Crypto

/// The accessory's long-term identity: its device ID (pairing identifier) and Ed25519 key pair.
public struct AccessoryIdentity: Sendable {
    /// The device ID, `XX:XX:XX:XX:XX:XX` in upper-case hex, also advertised as `id` over mDNS.
    public var deviceID: String
    /// The long-term signing key; never logged.
    public var signingKey: Curve25519.Signing.PrivateKey

    /// Makes an identity from a device ID and a signing key.
    public init(deviceID: String, signingKey: Curve25519.Signing.PrivateKey) {
        self.deviceID = deviceID
        self.signingKey = signingKey
    }

    /// The long-term public key sent to controllers, 32 bytes.
    public var publicKey: [UInt8] { Array(signingKey.publicKey.rawRepresentation) }
}

/// A controller's long-term identity: its pairing identifier (a UUID string) and Ed25519 key pair.
public struct ControllerIdentity: Sendable {
    /// The pairing identifier; HAP-python requires a UUID string (peers/README quirk 12).
    public var pairingID: String
    /// The long-term signing key; never logged.
    public var signingKey: Curve25519.Signing.PrivateKey

    /// Makes an identity from a pairing identifier and a signing key.
    public init(pairingID: String, signingKey: Curve25519.Signing.PrivateKey) {
        self.pairingID = pairingID
        self.signingKey = signingKey
    }

    /// The long-term public key sent to accessories, 32 bytes.
    public var publicKey: [UInt8] { Array(signingKey.publicKey.rawRepresentation) }

    /// This controller as the accessory stores it.
    public func pairing(isAdmin: Bool) -> Pairing {
        Pairing(identifier: Array(pairingID.utf8), publicKey: publicKey, isAdmin: isAdmin)
    }
}

/// What a controller keeps about an accessory it paired with: the device ID and its long-term public key.
public struct AccessoryPairing: Sendable, Equatable, Codable {
    /// The accessory's device ID as it sent it.
    public var deviceID: String
    /// The accessory's Ed25519 long-term public key, 32 bytes.
    public var publicKey: [UInt8]

    /// Makes a record of a paired accessory.
    public init(deviceID: String, publicKey: [UInt8]) {
        self.deviceID = deviceID
        self.publicKey = publicKey
    }
}
