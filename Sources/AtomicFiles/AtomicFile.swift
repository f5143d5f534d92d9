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

/// A system call failed while writing a file; `operation` names it, `code` is errno.
public struct AtomicFileError: Error, Equatable, Sendable {
    /// The step that failed: open, write, fsync or rename.
    public var operation: String
    /// errno at the time.
    public var code: Int32

    /// Makes an error.
    public init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }
}

/// Replaces a file's contents atomically and durably: write a temporary file, fsync, rename, fsync the folder.
///
/// A crash or kill at any point leaves either the old file or the new one, whole. The file is mode 0600.
public enum AtomicFile {
    /// Writes `data` to `path`; the folder must exist.
    public static func write(_ data: Data, toPath path: String) throws(AtomicFileError) {
        let temporaryPath = path + ".tmp"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("open") }
        do throws(AtomicFileError) {
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
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        let folderPath = path.hasPrefix("/") && folder.isEmpty ? "/" : folder
        let folderDescriptor = open(folderPath.isEmpty ? "." : folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderDescriptor >= 0 else { throw failure("open folder") }
        defer { close(folderDescriptor) }
        guard fsync(folderDescriptor) == 0 else { throw failure("fsync folder") }
    }

    private static func failure(_ operation: String) -> AtomicFileError {
        AtomicFileError(operation: operation, code: errno)
    }
}
