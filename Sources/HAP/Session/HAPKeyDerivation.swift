import CHAPCipher
import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials  // ContiguousBytes and DataProtocol, the byte protocols swift-crypto takes
#else
    import Foundation
#endif

/// Which end of a HAP connection this side plays; it decides which session key reads and which writes.
public enum HAPRole: Sendable, Equatable, Hashable {
    /// The accessory (server) end.
    case accessory
    /// The controller (client) end.
    case controller
}

/// The HKDF-SHA-512 key derivations HAP uses for pair-setup, pair-verify and the session.
///
/// hap-protocol.md §3.4: every key is HKDF-SHA-512 with ASCII salt and info, 32 bytes out.
public enum HAPKeyDerivation {
    /// The size in bytes of every key HAP derives.
    public static let keyByteCount = 32

    /// Derives a 32-byte key with HKDF-SHA-512 from key material and ASCII salt and info strings.
    ///
    /// On BoringSSL's HKDF (CHAPCipher): a pair-verify derives three keys on each side, and swift-crypto's generic
    /// HKDF spent about 3 % of a hub's CPU per new session on them (docs/benchmarks.md). The keys are the same
    /// (`HAPKeyDerivationTests`: hap-protocol.md's vectors, and swift-crypto's HKDF on many inputs).
    public static func deriveKey(
        inputKeyMaterial: some ContiguousBytes,
        salt: String,
        info: String
    ) -> SymmetricKey {
        var (salt, info) = (salt, info)
        var key = [UInt8](repeating: 0, count: keyByteCount)
        defer { key.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let derived = inputKeyMaterial.withUnsafeBytes { secret in
            salt.withUTF8 { salt in
                info.withUTF8 { info in
                    key.withUnsafeMutableBytes { out in
                        guard let secretBytes = secret.baseAddress else { return Int32(0) }
                        return chap_hkdf_sha512(
                            secretBytes,
                            secret.count,
                            salt.baseAddress,
                            salt.count,
                            info.baseAddress,
                            info.count,
                            out.baseAddress,
                            out.count
                        )
                    }
                }
            }
        }
        guard derived == 1 else { return swiftCryptoKey(inputKeyMaterial: inputKeyMaterial, salt: salt, info: info) }
        return SymmetricKey(data: key)
    }

    /// ``deriveKey(inputKeyMaterial:salt:info:)`` on swift-crypto's HKDF: the reference it is tested against, and
    /// the way for empty key material (which BoringSSL's HKDF is not given).
    static func swiftCryptoKey(inputKeyMaterial: some ContiguousBytes, salt: String, info: String) -> SymmetricKey {
        HKDF<SHA512>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: inputKeyMaterial),
            salt: Array(salt.utf8),
            info: Array(info.utf8),
            outputByteCount: keyByteCount
        )
    }

    /// The key that seals pair-setup M5 and M6, from the SRP session key K.
    public static func pairSetupEncryptionKey(srpSessionKey: some ContiguousBytes) -> SymmetricKey {
        deriveKey(
            inputKeyMaterial: srpSessionKey,
            salt: "Pair-Setup-Encrypt-Salt",
            info: "Pair-Setup-Encrypt-Info"
        )
    }

    /// The controller's signed material (iOSDeviceX) for pair-setup M5, from the SRP session key K.
    public static func pairSetupControllerSigningKey(srpSessionKey: some ContiguousBytes) -> SymmetricKey {
        deriveKey(
            inputKeyMaterial: srpSessionKey,
            salt: "Pair-Setup-Controller-Sign-Salt",
            info: "Pair-Setup-Controller-Sign-Info"
        )
    }

    /// The accessory's signed material (AccessoryX) for pair-setup M6, from the SRP session key K.
    public static func pairSetupAccessorySigningKey(srpSessionKey: some ContiguousBytes) -> SymmetricKey {
        deriveKey(
            inputKeyMaterial: srpSessionKey,
            salt: "Pair-Setup-Accessory-Sign-Salt",
            info: "Pair-Setup-Accessory-Sign-Info"
        )
    }

    /// The key that seals pair-verify M2 and M3, from the X25519 shared secret.
    public static func pairVerifyEncryptionKey(sharedSecret: some ContiguousBytes) -> SymmetricKey {
        // hap-protocol.md §4: VerifyKey uses "Pair-Verify-Encrypt-Salt" / "Pair-Verify-Encrypt-Info".
        deriveKey(
            inputKeyMaterial: sharedSecret,
            salt: "Pair-Verify-Encrypt-Salt",
            info: "Pair-Verify-Encrypt-Info"
        )
    }
}

/// The two keys of a verified session, one per direction, derived from the pair-verify shared secret.
///
/// hap-protocol.md §5: the accessory writes with the "Read" key and the controller writes with the "Write" key;
/// the names are from the controller's point of view.
public struct SessionKeys: Sendable {
    /// Seals what the accessory sends; the controller opens with it.
    public let accessoryToController: SymmetricKey
    /// Seals what the controller sends; the accessory opens with it.
    public let controllerToAccessory: SymmetricKey

    /// Derives both session keys from the X25519 shared secret of pair-verify.
    public init(sharedSecret: some ContiguousBytes) {
        accessoryToController = HAPKeyDerivation.deriveKey(
            inputKeyMaterial: sharedSecret,
            salt: "Control-Salt",
            info: "Control-Read-Encryption-Key"
        )
        controllerToAccessory = HAPKeyDerivation.deriveKey(
            inputKeyMaterial: sharedSecret,
            salt: "Control-Salt",
            info: "Control-Write-Encryption-Key"
        )
    }

    /// Wraps two keys that are already derived; each must be 32 bytes.
    public init(accessoryToController: SymmetricKey, controllerToAccessory: SymmetricKey) {
        self.accessoryToController = accessoryToController
        self.controllerToAccessory = controllerToAccessory
    }

    /// The key that opens what the peer of `role` sends.
    public func readKey(for role: HAPRole) -> SymmetricKey {
        switch role {
        case .accessory: controllerToAccessory
        case .controller: accessoryToController
        }
    }

    /// The key that seals what `role` sends.
    public func writeKey(for role: HAPRole) -> SymmetricKey {
        switch role {
        case .accessory: accessoryToController
        case .controller: controllerToAccessory
        }
    }
}

extension SessionKeys: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A fixed text: keys never appear in descriptions or logs.
    public var description: String { "SessionKeys(redacted)" }
    /// A fixed text: keys never appear in descriptions or logs.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and reflection cannot print the keys.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
