import AtomicFiles
import HomeGraph

/// Why the store could not open, read or write; no message ever holds a key or a sealed payload.
public enum HomeStoreError: Error, Equatable, Sendable {
    /// The state folder could not be created or the device key could not be read (errno).
    case stateFolder(path: String, code: Int32)
    /// The device key file exists but is not 32 bytes.
    case invalidDeviceKey(path: String)
    /// Writing a new device key failed.
    case deviceKeyNotWritten(AtomicFileError)
    /// SQLite failed: its extended result code and message.
    case database(code: Int32, message: String)
    /// The database was written by a newer Hearth (an unknown migration is recorded); it is left untouched.
    case newerSchema
    /// A row did not open under the device key: a wrong key, a tampered row, or a row moved to another place.
    case sealFailed(table: String, sequence: Int64)
    /// A value could not be written as JSON (a float that is not finite, say); nothing was written.
    case unencodable(table: String, sequence: Int64)
    /// A row opened but did not decode.
    case undecodable(table: String, sequence: Int64)
    /// The operation log has a hole: `expected` is missing and `found` follows.
    case missingOperation(expected: Int64, found: Int64)
    /// A logged operation failed when replayed onto the graph it was applied to.
    case replayFailed(sequence: Int64, HomeGraphError)
    /// The state folder or a file in it is not private and cannot be made so (another user's folder, not a folder).
    case notPrivate(PrivateFolderError)
    /// The store was closed.
    case closed
    /// Syncing the log to disk failed (errno); what was written may not survive a power cut.
    case syncFailed(code: Int32)

    /// The stable API error code (docs/style.md §4).
    public var code: String {
        switch self {
        case .stateFolder, .notPrivate: "stateFolder"
        case .invalidDeviceKey: "invalidDeviceKey"
        case .deviceKeyNotWritten: "deviceKeyNotWritten"
        case .database: "database"
        case .newerSchema: "newerSchema"
        case .sealFailed: "sealFailed"
        case .unencodable: "unencodable"
        case .undecodable: "undecodable"
        case .missingOperation: "missingOperation"
        case .replayFailed: "replayFailed"
        case .closed: "closed"
        case .syncFailed: "syncFailed"
        }
    }
}
