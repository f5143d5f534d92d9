import AtomicFiles

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
        do {
            try AtomicFile.write(data, toPath: path)
        } catch {
            throw AccessoryStateStoreError.systemCallFailed(operation: error.operation, code: error.code)
        }
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
