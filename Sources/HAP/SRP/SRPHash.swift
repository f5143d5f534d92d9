import Crypto

/// The hash function an SRP-6a exchange is built on.
public enum SRPHash: Sendable, Equatable {
    /// SHA-512, as HAP pair-setup uses (hap-protocol.md §3.1).
    case sha512
    /// SHA-1, as the RFC 5054 test vectors use; not for new protocols.
    case sha1

    /// The length of a digest in bytes.
    public var byteCount: Int {
        switch self {
        case .sha512: SHA512.byteCount
        case .sha1: Insecure.SHA1.byteCount
        }
    }

    /// The digest of the concatenation of `parts`.
    func digest(_ parts: [UInt8]...) -> [UInt8] {
        digest(of: parts)
    }

    /// The digest of the concatenation of `parts`.
    func digest(of parts: [[UInt8]]) -> [UInt8] {
        switch self {
        case .sha512:
            var hasher = SHA512()
            for part in parts { hasher.update(data: part) }
            return Array(hasher.finalize())
        case .sha1:
            var hasher = Insecure.SHA1()
            for part in parts { hasher.update(data: part) }
            return Array(hasher.finalize())
        }
    }
}
