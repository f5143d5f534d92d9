import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces a file's contents atomically and durably, mode 0600: temporary file, fsync, rename, fsync the folder.
///
/// The same steps as `AtomicFile` in HAPAccessoryServer, which this target cannot import (it sits beside it, not
/// below it); HAP, the one shared layer, does no file I/O.
enum SecureFile {
    /// Writes `data` to `path`; the folder must exist.
    static func write(_ data: Data, toPath path: String) throws(ControllerStoreError) {
        let temporaryPath = path + ".tmp"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("open") }
        do throws(ControllerStoreError) {
            // O_CREAT's mode is only used for a new file; make sure an old temp file is not wider.
            guard fchmod(descriptor, 0o600) == 0 else { throw failure("fchmod") }
            let writeFailed = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Bool in
                var offset = 0
                while offset < buffer.count {
                    let written = systemWrite(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
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

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #elseif canImport(Musl)
            Musl.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
    }

    private static func failure(_ operation: String) -> ControllerStoreError {
        .systemCallFailed(operation: operation, code: errno)
    }
}
