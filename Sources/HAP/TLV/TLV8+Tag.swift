extension TLV8 {
    /// The type byte of a TLV8 item; the pairing types are listed in hap-protocol.md §2.2.
    public struct Tag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The byte on the wire.
        public var rawValue: UInt8

        /// Makes a tag from its wire byte; unknown bytes are allowed and skipped by readers.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// The pairing method (pair-setup, add pairing, …).
        public static let method = Tag(rawValue: 0x00)
        /// A pairing identifier: device ID or controller UUID.
        public static let identifier = Tag(rawValue: 0x01)
        /// The 16-byte SRP salt.
        public static let salt = Tag(rawValue: 0x02)
        /// An SRP, X25519 or Ed25519 public key.
        public static let publicKey = Tag(rawValue: 0x03)
        /// An SRP proof.
        public static let proof = Tag(rawValue: 0x04)
        /// ChaCha20-Poly1305 ciphertext followed by its tag.
        public static let encryptedData = Tag(rawValue: 0x05)
        /// The pairing step, 1 for M1 through 6 for M6.
        public static let state = Tag(rawValue: 0x06)
        /// A pairing error code; present only when non-zero.
        public static let error = Tag(rawValue: 0x07)
        /// Seconds to wait before retrying; obsolete and never sent.
        public static let retryDelay = Tag(rawValue: 0x08)
        /// An MFi X.509 certificate.
        public static let certificate = Tag(rawValue: 0x09)
        /// An Ed25519 signature.
        public static let signature = Tag(rawValue: 0x0A)
        /// A controller's permissions: 0 regular user, 1 admin.
        public static let permissions = Tag(rawValue: 0x0B)
        /// A non-final fragment (BLE, obsolete).
        public static let fragmentData = Tag(rawValue: 0x0C)
        /// The final fragment (BLE, obsolete).
        public static let fragmentLast = Tag(rawValue: 0x0D)
        /// A pair-resume session ID (BLE).
        public static let sessionID = Tag(rawValue: 0x0E)
        /// Pairing type flags, a little-endian uint32.
        public static let flags = Tag(rawValue: 0x13)
        /// An empty item that separates records in a list.
        public static let separator = Tag(rawValue: 0xFF)

        /// The tag's name for error messages, or its hex value when unknown.
        public var description: String {
            switch rawValue {
            case 0x00: "Method"
            case 0x01: "Identifier"
            case 0x02: "Salt"
            case 0x03: "PublicKey"
            case 0x04: "Proof"
            case 0x05: "EncryptedData"
            case 0x06: "State"
            case 0x07: "Error"
            case 0x08: "RetryDelay"
            case 0x09: "Certificate"
            case 0x0A: "Signature"
            case 0x0B: "Permissions"
            case 0x0C: "FragmentData"
            case 0x0D: "FragmentLast"
            case 0x0E: "SessionID"
            case 0x13: "Flags"
            case 0xFF: "Separator"
            default: "0x" + String(rawValue, radix: 16, uppercase: true)
            }
        }
    }
}
