import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the state file could not be read or written.
public enum AccessoryStateStoreError: Error, Equatable, Sendable {
    /// A system call failed; `operation` names it, `code` is errno.
    case systemCallFailed(operation: String, code: Int32)
    /// The file exists but is not a state record this version can read.
    case unreadable
}

/// Keeps the state as JSON in one file, replaced atomically (temp file, fsync, rename, fsync folder), mode 0600.
public actor FileAccessoryStateStore: AccessoryStateStore {
    /// Where the state lives; its folder must exist.
    public let path: String

    /// Makes a store for the file at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The saved state, or `nil` when the file does not exist yet.
    public func load() throws -> AccessoryState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw AccessoryStateStoreError.unreadable }
        do {
            return try JSONDecoder().decode(AccessoryState.self, from: data)
        } catch {
            throw AccessoryStateStoreError.unreadable
        }
    }

    /// Writes the state durably: the old file stays whole until the new one is complete on disk.
    public func save(_ state: AccessoryState) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(state)
        } catch {
            throw AccessoryStateStoreError.unreadable
        }
        try AtomicFile.write(data, toPath: path)
    }

}

/// Replaces a file's contents atomically and durably: write a temporary file, fsync, rename, fsync the folder.
///
/// A crash or kill at any point leaves either the old file or the new one, whole. The file is mode 0600.
public enum AtomicFile {
    /// Writes `data` to `path`; the folder must exist.
    public static func write(_ data: Data, toPath path: String) throws(AccessoryStateStoreError) {
        let temporaryPath = path + ".tmp"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("open") }
        do throws(AccessoryStateStoreError) {
            // O_CREAT's mode is only used for a new file; make sure an old temp file is not wider.
            guard fchmod(descriptor, 0o600) == 0 else { throw failure("fchmod") }
            let writeFailed = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Bool in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return true
                    }
                    offset += written
                }
                return false
            }
            if writeFailed { throw failure("write") }
            guard fsync(descriptor) == 0 else { throw failure("fsync") }
        } catch {
            close(descriptor)
            unlink(temporaryPath)
            throw error
        }
        guard close(descriptor) == 0 else { throw failure("close") }
        guard rename(temporaryPath, path) == 0 else { throw failure("rename") }
        let folder = (path as NSString).deletingLastPathComponent
        let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderDescriptor >= 0 else { throw failure("open folder") }
        defer { close(folderDescriptor) }
        guard fsync(folderDescriptor) == 0 else { throw failure("fsync folder") }
    }

    private static func failure(_ operation: String) -> AccessoryStateStoreError {
        .systemCallFailed(operation: operation, code: errno)
    }
}

/// Keeps the state in memory, for tests and throwaway accessories; counts saves so tests can wait for them.
public actor InMemoryAccessoryStateStore: AccessoryStateStore {
    /// The state last saved, or given at creation.
    public private(set) var state: AccessoryState?
    /// How many times ``save(_:)`` was called.
    public private(set) var saveCount = 0

    /// Makes a store, empty or holding `state`.
    public init(state: AccessoryState? = nil) {
        self.state = state
    }

    /// The state held.
    public func load() -> AccessoryState? {
        state
    }

    /// Replaces the state held.
    public func save(_ state: AccessoryState) {
        self.state = state
        saveCount += 1
    }
}
