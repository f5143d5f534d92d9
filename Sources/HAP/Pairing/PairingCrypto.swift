import Crypto

/// The cryptography pairing messages use: HKDF-SHA512 keys, ChaCha20-Poly1305 with HAP's 8-byte nonces, Ed25519.
///
/// hap-protocol.md §3.4: keys are 32 bytes; an 8-byte ASCII nonce sits after 4 zero bytes; there is no AAD.
enum PairingCrypto {
    /// A 32-byte key derived with HKDF-SHA512 from input key material and ASCII salt and info.
    static func deriveKey(from inputKeyMaterial: [UInt8], salt: String, info: String) -> SymmetricKey {
        HKDF<SHA512>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: inputKeyMaterial),
            salt: Array(salt.utf8),
            info: Array(info.utf8),
            outputByteCount: 32
        )
    }

    /// The same derivation as raw bytes, for material that is signed rather than used as a key.
    static func deriveBytes(from inputKeyMaterial: [UInt8], salt: String, info: String) -> [UInt8] {
        deriveKey(from: inputKeyMaterial, salt: salt, info: info).withUnsafeBytes { Array($0) }
    }

    /// The 12-byte nonce for an 8-byte ASCII HAP nonce such as "PS-Msg05".
    static func nonce(_ text: String) throws -> ChaChaPoly.Nonce {
        try ChaChaPoly.Nonce(data: [0, 0, 0, 0] + Array(text.utf8))
    }

    /// Ciphertext followed by the 16-byte tag.
    static func seal(_ plaintext: [UInt8], using key: SymmetricKey, nonce: String) throws -> [UInt8] {
        let box = try ChaChaPoly.seal(plaintext, using: key, nonce: Self.nonce(nonce))
        return Array(box.ciphertext) + Array(box.tag)
    }

    /// The plaintext of ciphertext followed by its tag; throws when the tag does not verify.
    static func open(_ sealed: [UInt8], using key: SymmetricKey, nonce: String) throws -> [UInt8] {
        guard sealed.count >= 16 else { throw CryptoKitError.incorrectParameterSize }
        let box = try ChaChaPoly.SealedBox(
            nonce: Self.nonce(nonce),
            ciphertext: sealed.dropLast(16),
            tag: sealed.suffix(16)
        )
        return Array(try ChaChaPoly.open(box, using: key))
    }

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
