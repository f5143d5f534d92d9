import AtomicFiles
import Crypto
import Foundation
import HAP

/// Why the pairing store could not be read or written.
public enum ControllerStoreError: Error, Equatable, Sendable {
    /// A system call failed; `operation` names it, `code` is errno.
    case systemCallFailed(operation: String, code: Int32)
    /// The file exists but is not a record this version can read; `file` is its name in the folder.
    case unreadable(file: String)
}

extension ControllerStoreError: CustomStringConvertible {
    /// A sentence for people.
    public var description: String {
        switch self {
        case .systemCallFailed(let operation, let code):
            "\(operation) failed (\(String(cString: strerror(code))))"
        case .unreadable(let file): "the file \(file) is not a pairing record this version can read"
        }
    }
}

/// An accessory this controller is paired with, as the store keeps it.
public struct PairedAccessoryRecord: Sendable, Equatable, Codable {
    /// The accessory's device ID (`XX:XX:XX:XX:XX:XX`).
    public var deviceID: String
    /// The accessory's Ed25519 long-term public key, 32 bytes.
    public var publicKey: [UInt8]
    /// The host to connect to: an IPv4 address or a name.
    public var host: String
    /// Every IPv4 address last seen for the accessory, as text.
    public var addresses: [String]
    /// The TCP port.
    public var port: Int
    /// The configuration number (`c#`) of the accessory database last read; `nil` before the first read.
    public var configurationNumber: Int?

    /// Makes a record.
    public init(
        deviceID: String,
        publicKey: [UInt8],
        host: String,
        addresses: [String] = [],
        port: Int,
        configurationNumber: Int? = nil
    ) {
        self.deviceID = deviceID
        self.publicKey = publicKey
        self.host = host
        self.addresses = addresses
        self.port = port
        self.configurationNumber = configurationNumber
    }

    /// Makes a record from a pair-setup result and the address it was reached at.
    public init(pairing: AccessoryPairing, host: String, port: Int) {
        self.init(deviceID: pairing.deviceID, publicKey: pairing.publicKey, host: host, addresses: [host], port: port)
    }

    /// The device ID and key, as pair-verify needs them.
    public var pairing: AccessoryPairing { AccessoryPairing(deviceID: deviceID, publicKey: publicKey) }
}

/// Keeps this controller's identity and its paired accessories as JSON files in one folder, mode 0600.
///
/// `identity.json` holds the pairing ID (an upper-case UUID, peers/README quirk 12) and the Ed25519 private key;
/// `accessories.json` the paired accessories. Each write replaces its file atomically and durably.
public actor ControllerPairingStore {
    /// The folder holding the files; it must exist.
    public let folder: String

    static let identityFile = "identity.json"
    static let accessoriesFile = "accessories.json"

    private struct StoredIdentity: Codable {
        var pairingID: String
        var privateKey: Data
    }

    /// Makes a store for the files in `folder`.
    public init(folder: String) {
        self.folder = folder
    }

    /// The controller identity, made and saved on first use.
    public func identity() throws(ControllerStoreError) -> ControllerIdentity {
        if let stored: StoredIdentity = try read(Self.identityFile) {
            guard UUID(uuidString: stored.pairingID) != nil,
                let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: stored.privateKey)
            else {
                throw .unreadable(file: Self.identityFile)
            }
            return ControllerIdentity(pairingID: stored.pairingID, signingKey: key)
        }
        let identity = ControllerIdentity(
            pairingID: UUID().uuidString.uppercased(),
            signingKey: Curve25519.Signing.PrivateKey()
        )
        let stored = StoredIdentity(pairingID: identity.pairingID, privateKey: identity.signingKey.rawRepresentation)
        try write(stored, to: Self.identityFile)
        return identity
    }

    /// Every paired accessory, in the order they were added.
    public func accessories() throws(ControllerStoreError) -> [PairedAccessoryRecord] {
        try read(Self.accessoriesFile) ?? []
    }

    /// The accessory with this device ID (compared without regard to case), or `nil`.
    public func accessory(deviceID: String) throws(ControllerStoreError) -> PairedAccessoryRecord? {
        try accessories().first { $0.deviceID.uppercased() == deviceID.uppercased() }
    }

    /// Adds an accessory, or replaces the record with the same device ID.
    public func save(_ record: PairedAccessoryRecord) throws(ControllerStoreError) {
        var records = try accessories()
        if let index = records.firstIndex(where: { $0.deviceID.uppercased() == record.deviceID.uppercased() }) {
            records[index] = record
        } else {
            records.append(record)
        }
        try write(records, to: Self.accessoriesFile)
    }

    /// Forgets an accessory; forgetting an unknown one does nothing.
    public func remove(deviceID: String) throws(ControllerStoreError) {
        let records = try accessories()
        let kept = records.filter { $0.deviceID.uppercased() != deviceID.uppercased() }
        guard kept.count != records.count else { return }
        try write(kept, to: Self.accessoriesFile)
    }

    private func path(_ file: String) -> String {
        (folder as NSString).appendingPathComponent(file)
    }

    private func read<Value: Decodable>(_ file: String) throws(ControllerStoreError) -> Value? {
        let path = path(file)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path),
            let value = try? JSONDecoder().decode(Value.self, from: data)
        else {
            throw .unreadable(file: file)
        }
        return value
    }

    private func write(_ value: some Encodable, to file: String) throws(ControllerStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(value) else { throw .unreadable(file: file) }
        do {
            try AtomicFile.write(data, toPath: path(file))
        } catch {
            throw ControllerStoreError.systemCallFailed(operation: error.operation, code: error.code)
        }
    }
}
