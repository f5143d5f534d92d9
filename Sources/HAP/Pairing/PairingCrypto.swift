import Crypto

/// The public-key operations pairing messages use: Ed25519 signature checks and X25519 agreement.
enum PairingCrypto {
    /// Whether `signature` is a valid Ed25519 signature of `message` by the 32-byte public key.
    static func isValidSignature(_ signature: [UInt8], of message: [UInt8], by publicKey: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// The X25519 shared secret with a peer's 32-byte public key, or `nil` for an invalid key.
    static func sharedSecret(
        _ privateKey: Curve25519.KeyAgreement.PrivateKey,
        with peerPublicKey: [UInt8]
    ) -> [UInt8]? {
        guard peerPublicKey.count == 32,
            let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: peerPublicKey),
            let secret = try? privateKey.sharedSecretFromKeyAgreement(with: peer)
        else { return nil }
        let bytes = secret.withUnsafeBytes { Array($0) }
        // An all-zero secret means a low-order peer key; refuse it (OR of every byte: no early exit on secret data).
        return bytes.reduce(0, |) == 0 ? nil : bytes
    }
}
