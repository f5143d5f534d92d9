import AtomicFiles
import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The 32-byte key that seals every payload in the database, kept in `<state>/device.key` with mode 0600.
struct DeviceKey: Sendable {
    /// The ChaChaPoly key.
    let key: SymmetricKey

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
    func seal(_ plaintext: Data, table: String, sequence: Int64) throws(HomeStoreError) -> Data {
        do {
            return try ChaChaPoly.seal(
                plaintext,
                using: key,
                authenticating: Self.associatedData(table: table, sequence: sequence)
            ).combined
        } catch {
            throw .sealFailed(table: table, sequence: sequence)
        }
    }

    /// Opens a payload sealed by `seal(_:table:sequence:)` for the same place.
    func open(_ sealed: Data, table: String, sequence: Int64) throws(HomeStoreError) -> Data {
        do {
            let box = try ChaChaPoly.SealedBox(combined: sealed)
            return try ChaChaPoly.open(
                box,
                using: key,
                authenticating: Self.associatedData(table: table, sequence: sequence)
            )
        } catch {
            throw .sealFailed(table: table, sequence: sequence)
        }
    }

    private static func associatedData(table: String, sequence: Int64) -> Data {
        Data("hearth.homestore.v1/\(table)/\(sequence)".utf8)
    }
}
