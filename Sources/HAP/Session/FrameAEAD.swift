import CHAPCipher
import Crypto

/// One direction's ChaCha20-Poly1305 for session frames: a BoringSSL context keyed once and reused for every frame.
///
/// swift-crypto's `ChaChaPoly` sets up a new BoringSSL context for every call; keeping one context (CHAPCipher, on
/// the same BoringSSL) and passing only the nonce per frame removes that cost.
///
/// Thread safety: the C context is treated as mutable state (it was an OpenSSL context that every call changed),
/// so an instance must never be used from two threads at once. It is `@unchecked Sendable` only so that `SessionCipher`, a `Sendable`
/// value, can store it, and it is safe because `SessionCipher` keeps it copy-on-write: it calls `seal` and `open`
/// only from its `mutating` methods, and only after `isKnownUniquelyReferenced` shows that no other copy of the
/// `SessionCipher` holds this instance, replacing it with `copy()` otherwise. A `mutating` method has exclusive
/// access to its value, so a uniquely referenced instance cannot be reached from any other thread. Nothing else
/// may hold an instance.
final class FrameAEAD: @unchecked Sendable {
    /// The key, kept to build the context of a copy; SymmetricKey zeroes its storage when freed.
    private let key: SymmetricKey
    /// The BoringSSL context, owned by this instance and freed (and cleansed by BoringSSL) in deinit.
    private let context: OpaquePointer

    /// Creates the context for a 32-byte key.
    init(key: SymmetricKey) {
        self.key = key
        self.context = makeChaChaPolyContext(key: key)
    }

    deinit {
        chap_cipher_free(context)
    }

    /// A new instance with the same key and its own context, for a copy of the owning value.
    func copy() -> FrameAEAD {
        FrameAEAD(key: key)
    }

    /// Encrypts `length` bytes at `plaintext` with the nonce for `counter`, authenticating the 2 bytes at `header`.
    ///
    /// Writes the ciphertext to `ciphertext` and the 16-byte tag to `tag`. Fails only on a BoringSSL internal error.
    func seal(
        counter: UInt64,
        header: UnsafeRawPointer,
        plaintext: UnsafeRawPointer,
        length: Int,
        ciphertext: UnsafeMutableRawPointer,
        tag: UnsafeMutableRawPointer
    ) -> Bool {
        chap_cipher_seal(context, counter, header, SessionCipher.lengthByteCount, plaintext, length, ciphertext, tag)
            == 1
    }

    /// Checks the tag at `tag` and decrypts `length` bytes at `ciphertext` into `plaintext`; false on a mismatch.
    ///
    /// On false the `plaintext` bytes are zeroed and must be discarded.
    func open(
        counter: UInt64,
        header: UnsafeRawPointer,
        ciphertext: UnsafeRawPointer,
        length: Int,
        tag: UnsafeRawPointer,
        plaintext: UnsafeMutableRawPointer
    ) -> Bool {
        chap_cipher_open(context, counter, header, SessionCipher.lengthByteCount, ciphertext, length, tag, plaintext)
            == 1
    }
}

/// A new CHAPCipher context keyed with the 32-byte `key`, for its owner to free with `chap_cipher_free`.
///
/// Only an allocation failure inside BoringSSL fails, and nothing can carry on without a cipher: it stops.
public func makeChaChaPolyContext(key: SymmetricKey) -> OpaquePointer {
    precondition(key.bitCount == 256, "ChaCha20-Poly1305 keys are 32 bytes")
    let created = key.withUnsafeBytes { bytes in
        bytes.withMemoryRebound(to: UInt8.self) { chap_cipher_create($0.baseAddress) }
    }
    guard let created else { preconditionFailure("BoringSSL could not create a ChaCha20-Poly1305 context") }
    return created
}
