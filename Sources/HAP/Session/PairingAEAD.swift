import CHAPCipher
import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials  // ContiguousBytes and DataProtocol, the byte protocols swift-crypto takes
#else
    import Foundation
#endif

/// Why sealing or opening a pairing message's encrypted sub-TLV failed.
public enum PairingAEADError: Error, Equatable, Sendable {
    /// The key is not 32 bytes; the value is its size in bytes.
    case invalidKeySize(Int)
    /// The sealed bytes are shorter than the 16-byte tag.
    case tooShort(byteCount: Int)
    /// The tag did not match: a wrong key, a wrong nonce or changed bytes. Pairing answers Authentication.
    case authenticationFailed
}

/// The 8-byte ASCII nonces of the encrypted pairing messages (hap-protocol.md §3.4).
public enum PairingNonce: String, Sendable, CaseIterable {
    /// Pair-setup M4, only with MFi authentication.
    case pairSetupM4 = "PS-Msg04"
    /// Pair-setup M5, controller to accessory.
    case pairSetupM5 = "PS-Msg05"
    /// Pair-setup M6, accessory to controller.
    case pairSetupM6 = "PS-Msg06"
    /// Pair-verify M2, accessory to controller.
    case pairVerifyM2 = "PV-Msg02"
    /// Pair-verify M3, controller to accessory.
    case pairVerifyM3 = "PV-Msg03"

    /// The 8 ASCII bytes read as a little-endian number: CHAPCipher's frame counter that makes the same nonce.
    var counter: UInt64 {
        rawValue.utf8.reversed().reduce(0) { ($0 << 8) | UInt64($1) }
    }
}

/// Seals and opens the EncryptedData item of pair-setup M5/M6 and pair-verify M2/M3.
///
/// hap-protocol.md §3.4: ChaCha20-Poly1305 (RFC 8439), no associated data; the output is ciphertext then the
/// 16-byte tag, with no nonce in front. On CHAPCipher's BoringSSL context, as the session frames are: the pairing
/// nonce is the frame nonce of ``PairingNonce/counter`` (swift-crypto's `ChaChaPoly` cost about 1.4 % of a hub's
/// CPU per new session, with its boxes and copies).
public enum PairingAEAD {
    /// The size in bytes of the Poly1305 tag at the end of a sealed message.
    public static let tagByteCount = 16

    /// Encrypts a sub-TLV payload and returns ciphertext followed by the tag.
    public static func seal(
        _ plaintext: some DataProtocol,
        using key: SymmetricKey,
        nonce: PairingNonce
    ) throws(PairingAEADError) -> [UInt8] {
        guard key.bitCount == 256 else { throw .invalidKeySize(key.bitCount / 8) }
        let input = Array(plaintext)
        var sealed = [UInt8](repeating: 0, count: input.count + tagByteCount)
        let context = makeChaChaPolyContext(key: key)
        defer { chap_cipher_free(context) }
        let done = input.withUnsafeBytes { input in
            sealed.withUnsafeMutableBytes { output in
                guard let out = output.baseAddress else { return Int32(0) }
                return chap_cipher_seal(
                    context,
                    nonce.counter,
                    nil,
                    0,
                    input.baseAddress,
                    input.count,
                    out,
                    out + input.count
                )
            }
        }
        // Only an internal failure of BoringSSL fails here; the key's size is checked above.
        guard done == 1 else { throw .invalidKeySize(key.bitCount / 8) }
        return sealed
    }

    /// Checks the tag and decrypts ciphertext followed by the tag, returning the sub-TLV payload.
    public static func open(
        _ sealed: some DataProtocol,
        using key: SymmetricKey,
        nonce: PairingNonce
    ) throws(PairingAEADError) -> [UInt8] {
        guard key.bitCount == 256 else { throw .invalidKeySize(key.bitCount / 8) }
        let bytes = Array(sealed)
        guard bytes.count >= tagByteCount else { throw .tooShort(byteCount: bytes.count) }
        let length = bytes.count - tagByteCount
        var plaintext = [UInt8](repeating: 0, count: length)
        let context = makeChaChaPolyContext(key: key)
        defer { chap_cipher_free(context) }
        let opened = bytes.withUnsafeBytes { input in
            plaintext.withUnsafeMutableBytes { output in
                guard let sealedBytes = input.baseAddress else { return Int32(0) }
                return chap_cipher_open(
                    context,
                    nonce.counter,
                    nil,
                    0,
                    sealedBytes,
                    length,
                    sealedBytes + length,
                    output.baseAddress
                )
            }
        }
        guard opened == 1 else { throw .authenticationFailed }
        return plaintext
    }
}
