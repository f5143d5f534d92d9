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

/// A state folder or file that others could read, or that cannot be made private; `reason` is a sentence.
public struct PrivateFolderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The folder or file.
    public var path: String
    /// What is wrong, for people.
    public var reason: String

    /// Makes an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The path and the reason as one sentence.
    public var description: String { "\(path): \(reason)" }
}

/// Folders and files only their owner may read: secrets and home data live in them.
///
/// A new folder is made 0700 and a new file 0600. One that exists with group or other permission bits is
/// tightened; one that belongs to another user, or is not what it should be, is refused with a clear error.
public enum PrivateFolder {
    /// What preparing a folder or file did.
    public enum Outcome: Equatable, Sendable {
        /// It was made now.
        case created
        /// It existed and was private already.
        case unchanged
        /// It existed and others could use it; its mode was tightened from this one.
        case tightened(from: UInt32)
    }

    /// Makes `path` a folder only its owner can enter: creates it (and missing parents) 0700, or tightens it.
    @discardableResult
    public static func prepare(atPath path: String) throws(PrivateFolderError) -> Outcome {
        var status = stat()
        var created = false
        // stat, not lstat: a state folder may be a link to a folder elsewhere (the folder is what is checked).
        if stat(path, &status) != 0 {
            guard errno == ENOENT else {
                throw failure(path, "cannot be examined (\(String(cString: strerror(errno))))")
            }
            do {
                try FileManager.default.createDirectory(
                    atPath: path,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw failure(path, "cannot be created (check that its parent folder exists and is writable)")
            }
            guard stat(path, &status) == 0 else { throw failure(path, "vanished right after it was created") }
            created = true
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw failure(path, "exists and is not a folder") }
        let outcome = try tighten(path, status, to: 0o700)
        return created ? .created : outcome
    }

    /// Makes `path` a file only its owner can read and write: creates it empty 0600, or tightens it.
    @discardableResult
    public static func prepareFile(atPath path: String) throws(PrivateFolderError) -> Outcome {
        var status = stat()
        if lstat(path, &status) != 0 {
            guard errno == ENOENT else {
                throw failure(path, "cannot be examined (\(String(cString: strerror(errno))))")
            }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw failure(path, "cannot be created (\(String(cString: strerror(errno))))")
            }
            defer { close(descriptor) }
            guard fchmod(descriptor, 0o600) == 0 else { throw failure(path, "cannot be made private (chmod failed)") }
            return .created
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure(path, "exists and is not a regular file") }
        return try tighten(path, status, to: 0o600)
    }

    /// Tightens `path` to at most `allowed` (the owner's bits of the existing mode are kept).
    private static func tighten(
        _ path: String,
        _ status: stat,
        to allowed: mode_t
    ) throws(PrivateFolderError) -> Outcome {
        guard status.st_uid == geteuid() else {
            throw failure(path, "belongs to another user (uid \(status.st_uid)); use a folder of your own")
        }
        let mode = status.st_mode & 0o7777
        guard mode & 0o077 != 0 || mode & ~allowed != 0 else { return .unchanged }
        guard chmod(path, mode & allowed) == 0 else {
            throw failure(path, "others can read it and its mode cannot be tightened (chmod failed)")
        }
        return .tightened(from: UInt32(mode))
    }

    private static func failure(_ path: String, _ reason: String) -> PrivateFolderError {
        PrivateFolderError(path: path, reason: reason)
    }
}
