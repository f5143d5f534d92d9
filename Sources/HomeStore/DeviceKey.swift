import AtomicFiles
import CHAPCipher
import Crypto
import Foundation
import HAP
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The 32-byte key that seals every payload in the database, kept in `<state>/device.key` with mode 0600.
struct DeviceKey: Sendable {
    /// A BoringSSL context keyed once with the key, for every row.
    private let cipher: RowCipher

    /// The key `key`, kept only in its context.
    init(key: SymmetricKey) {
        cipher = RowCipher(key: key)
    }

    /// The key's length in bytes.
    static let byteCount = 32

    /// Reads the key at `path`, or makes a random one and writes it there durably when there is none.
    static func loadOrCreate(atPath path: String) throws(HomeStoreError) -> DeviceKey {
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == byteCount else { throw .invalidDeviceKey(path: path) }
            return DeviceKey(key: SymmetricKey(data: data))
        }
        if FileManager.default.fileExists(atPath: path) { throw .stateFolder(path: path, code: EACCES) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        do {
            try AtomicFile.write(Data(bytes), toPath: path)
        } catch {
            throw .deviceKeyNotWritten(error)
        }
        return DeviceKey(key: SymmetricKey(data: bytes))
    }

    /// Seals `plaintext` for the row `sequence` of `table`; the place is authenticated so rows cannot be swapped.
    ///
    /// The layout is `ChaChaPoly.SealedBox.combined`'s (a random 12-byte nonce, the ciphertext, the tag), so rows
    /// written before the kept context open alike.
    func seal(_ plaintext: Data, table: String, sequence: Int64) throws(HomeStoreError) -> Data {
        guard let sealed = cipher.seal(plaintext, authenticating: Self.associatedData(table: table, sequence: sequence))
        else { throw .sealFailed(table: table, sequence: sequence) }
        return sealed
    }

    /// Opens a payload sealed by `seal(_:table:sequence:)` for the same place.
    func open(_ sealed: Data, table: String, sequence: Int64) throws(HomeStoreError) -> Data {
        guard let plaintext = cipher.open(sealed, authenticating: Self.associatedData(table: table, sequence: sequence))
        else { throw .sealFailed(table: table, sequence: sequence) }
        return plaintext
    }

    private static func associatedData(table: String, sequence: Int64) -> Data {
        Data("hearth.homestore.v1/\(table)/\(sequence)".utf8)
    }
}

/// ChaCha20-Poly1305 on one BoringSSL context for the device key (CHAPCipher), in `ChaChaPoly`'s combined layout.
///
/// swift-crypto's `ChaChaPoly` builds a context for every call: a third of a row's sealing on the path of every
/// commit. The context is used under a lock, so rows may be sealed and opened from any thread.
final class RowCipher: Sendable {
    /// The context's address, freed (and its key schedule cleansed by BoringSSL) in deinit.
    private let context: Mutex<Int>

    /// Creates the context for a 32-byte key.
    init(key: SymmetricKey) {
        context = Mutex(Int(bitPattern: UnsafeMutableRawPointer(makeChaChaPolyContext(key: key))))
    }

    deinit {
        context.withLock { address in chap_cipher_free(OpaquePointer(bitPattern: address)) }
    }

    /// The bytes ChaChaPoly's combined layout adds to a plaintext: the nonce and the tag.
    private static let overhead = Int(CHAP_CIPHER_NONCE_BYTES) + Int(CHAP_CIPHER_TAG_BYTES)

    /// A random nonce, the ciphertext of `plaintext` and the tag authenticating it and `aad`; `nil` on a BoringSSL
    /// failure.
    func seal(_ plaintext: Data, authenticating aad: Data) -> Data? {
        run(chap_cipher_seal_combined, plaintext, aad, outputCount: plaintext.count + Self.overhead)
    }

    /// The plaintext of `sealed` (nonce, ciphertext, tag) when its tag matches it and `aad`; `nil` otherwise.
    func open(_ sealed: Data, authenticating aad: Data) -> Data? {
        guard sealed.count >= Self.overhead else { return nil }
        return run(chap_cipher_open_combined, sealed, aad, outputCount: sealed.count - Self.overhead)
    }

    /// Calls `operation` (the seal or the open, which take the same arguments) on the context with `input` and
    /// `aad`, into `outputCount` new bytes; `nil` when it fails.
    private func run(
        _ operation: (OpaquePointer?, UnsafeRawPointer?, Int, UnsafeRawPointer?, Int, UnsafeMutableRawPointer?) ->
            Int32,
        _ input: Data,
        _ aad: Data,
        outputCount: Int
    ) -> Data? {
        var output = Data(count: outputCount)
        let ok = context.withLock { address in
            output.withUnsafeMutableBytes { out in
                input.withUnsafeBytes { bytes in
                    aad.withUnsafeBytes { aadBytes in
                        operation(
                            OpaquePointer(bitPattern: address),
                            aadBytes.baseAddress,
                            aadBytes.count,
                            bytes.baseAddress,
                            bytes.count,
                            out.baseAddress
                        )
                    }
                }
            }
        }
        return ok == 1 ? output : nil
    }
}
