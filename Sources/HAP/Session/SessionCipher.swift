import Crypto

/// Why the session decoder stopped; either way the connection must be closed (hap-protocol.md §5).
public enum SessionCipherError: Error, Equatable, Sendable {
    /// A frame announced a plaintext length of 0 or more than 1024 bytes; the value is that length.
    case invalidFrameLength(Int)
    /// A frame's tag did not match: changed bytes, a wrong key or a frame out of order.
    case authenticationFailed
}

/// Seals and opens the encrypted frames of a verified HAP session, one value per connection.
///
/// hap-protocol.md §5: a frame is a 2-byte little-endian plaintext length (also the associated data), the
/// ChaCha20-Poly1305 ciphertext and a 16-byte tag. The nonce is 4 zero bytes and a 64-bit little-endian counter;
/// each direction has its own key and counter, both starting at 0. The value does no I/O: the caller feeds it
/// bytes from the socket and writes out what it returns.
public struct SessionCipher: Sendable {
    /// The most plaintext bytes one frame carries (hap-protocol.md §5, §12.3).
    public static let maximumFrameLength = 1024
    /// The size in bytes of the length field in front of each frame.
    public static let lengthByteCount = 2
    /// The size in bytes of the Poly1305 tag after each frame's ciphertext.
    public static let tagByteCount = 16
    /// The bytes a frame adds to its plaintext: length field and tag.
    public static let frameOverhead = lengthByteCount + tagByteCount
    /// The ChaCha20-Poly1305 nonce size in bytes (RFC 8439).
    private static let nonceByteCount = 12

    private let readKey: SymmetricKey
    private let writeKey: SymmetricKey
    private var writeCounter: UInt64 = 0
    private var readCounter: UInt64 = 0
    /// Received bytes not yet decoded start at `readIndex`; the bytes before it are decoded and wait for compaction.
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Scratch space for one frame as nonce, ciphertext and tag, reused so opening a frame allocates less.
    private var combined: [UInt8] = []
    private var failure: SessionCipherError?

    /// Creates the cipher for one side of a session, picking the read and write keys for `role`.
    public init(keys: SessionKeys, role: HAPRole) {
        self.init(readKey: keys.readKey(for: role), writeKey: keys.writeKey(for: role))
    }

    /// Creates the cipher from the key that opens received frames and the key that seals sent frames.
    ///
    /// Both keys must be 32 bytes; a wrong size is a programming error.
    public init(readKey: SymmetricKey, writeKey: SymmetricKey) {
        precondition(readKey.bitCount == 256 && writeKey.bitCount == 256, "HAP session keys are 32 bytes")
        self.readKey = readKey
        self.writeKey = writeKey
        combined.reserveCapacity(Self.nonceByteCount + Self.maximumFrameLength + Self.tagByteCount)
    }

    /// Whether a bad frame has been received; once true, `open` throws on every call.
    public var isFailed: Bool { failure != nil }

    /// The received bytes held back because they do not yet make a whole frame.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Encrypts a message into one or more frames of at most 1024 plaintext bytes each; empty input gives none.
    public mutating func seal(_ plaintext: some Collection<UInt8>) -> [UInt8] {
        if let frames = plaintext.withContiguousStorageIfAvailable({ sealFrames(UnsafeRawBufferPointer($0)) }) {
            return frames
        }
        return Array(plaintext).withUnsafeBytes { sealFrames($0) }
    }

    /// Takes the next received bytes, in pieces of any size, and returns the plaintext of every frame they complete.
    ///
    /// A partial frame is kept until the rest arrives, so the result may be empty. After a frame with a bad length
    /// or a bad tag, this call and every later call throw that error.
    public mutating func open(_ bytes: some Collection<UInt8>) throws(SessionCipherError) -> [UInt8] {
        if let failure { throw failure }
        buffer.append(contentsOf: bytes)
        var plaintext = [UInt8]()
        while buffer.count - readIndex >= Self.lengthByteCount {
            let length = Int(buffer[readIndex]) | Int(buffer[readIndex + 1]) << 8
            guard length > 0, length <= Self.maximumFrameLength else {
                return try fail(.invalidFrameLength(length))
            }
            let frameEnd = readIndex + Self.frameOverhead + length
            guard frameEnd <= buffer.count else { break }
            if plaintext.isEmpty {
                plaintext.reserveCapacity(buffer.count - readIndex)
            }
            guard openFrame(at: readIndex, length: length, into: &plaintext) else {
                return try fail(.authenticationFailed)
            }
            readIndex = frameEnd
        }
        compact()
        return plaintext
    }

    private mutating func fail(_ error: SessionCipherError) throws(SessionCipherError) -> [UInt8] {
        failure = error
        buffer = []
        readIndex = 0
        throw error
    }

    /// Drops decoded bytes from the front; what is left is less than one frame, so the move is short.
    private mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer.removeSubrange(0..<readIndex)
        }
        readIndex = 0
    }

    private mutating func sealFrames(_ plaintext: UnsafeRawBufferPointer) -> [UInt8] {
        let frameCount = (plaintext.count + Self.maximumFrameLength - 1) / Self.maximumFrameLength
        var frames = [UInt8]()
        frames.reserveCapacity(plaintext.count + frameCount * Self.frameOverhead)
        var start = 0
        while start < plaintext.count {
            let end = min(start + Self.maximumFrameLength, plaintext.count)
            sealFrame(UnsafeRawBufferPointer(rebasing: plaintext[start..<end]), into: &frames)
            start = end
        }
        return frames
    }

    private mutating func sealFrame(_ chunk: UnsafeRawBufferPointer, into frames: inout [UInt8]) {
        let length = UInt16(chunk.count)
        let counter = writeCounter
        // A 64-bit counter cannot wrap within a connection's life: 2^64 frames is far beyond any session.
        writeCounter &+= 1
        do {
            let box = try withUnsafeBytes(of: length.littleEndian) { header in
                try Self.withNonce(counter) { nonce in
                    try ChaChaPoly.seal(chunk, using: writeKey, nonce: nonce, authenticating: header)
                }
            }
            frames.append(UInt8(truncatingIfNeeded: length))
            frames.append(UInt8(truncatingIfNeeded: length >> 8))
            // `combined` is nonce, ciphertext, tag: one append of ciphertext and tag, no Data slices.
            let combined = box.combined
            frames.append(contentsOf: combined[(combined.startIndex + Self.nonceByteCount)...])
        } catch {
            // The key size is checked in init and the nonce is always 12 bytes, so ChaChaPoly cannot fail here.
            preconditionFailure("ChaChaPoly.seal failed with a valid key and nonce: \(error)")
        }
    }

    /// Checks and decrypts the frame whose length field is at `start`; false when the tag does not match.
    private mutating func openFrame(at start: Int, length: Int, into plaintext: inout [UInt8]) -> Bool {
        let ciphertextStart = start + Self.lengthByteCount
        let frameEnd = ciphertextStart + length + Self.tagByteCount
        // swift-crypto's SealedBox(nonce:ciphertext:tag:) concatenates three Data values, which measured slower
        // than copying nonce, ciphertext and tag once into this reused buffer and taking it as `combined`.
        combined.removeAll(keepingCapacity: true)
        Self.appendNonce(readCounter, to: &combined)
        combined.append(contentsOf: buffer[ciphertextStart..<frameEnd])
        do {
            let box = try ChaChaPoly.SealedBox(combined: combined)
            let opened = try ChaChaPoly.open(box, using: readKey, authenticating: buffer[start..<ciphertextStart])
            readCounter &+= 1
            plaintext.append(contentsOf: opened)
            return true
        } catch {
            return false
        }
    }

    /// Appends the 12-byte nonce for a frame counter: 4 zero bytes, then the counter little-endian.
    private static func appendNonce(_ counter: UInt64, to bytes: inout [UInt8]) {
        for _ in 0..<4 {
            bytes.append(0)
        }
        for shift in stride(from: 0, to: 64, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: counter >> UInt64(shift)))
        }
    }

    /// Calls `body` with the 12-byte nonce for a frame counter: 4 zero bytes, then the counter little-endian.
    private static func withNonce<Result>(
        _ counter: UInt64,
        _ body: (ChaChaPoly.Nonce) throws -> Result
    ) throws -> Result {
        let words = (
            UInt32(0),
            UInt32(truncatingIfNeeded: counter).littleEndian,
            UInt32(truncatingIfNeeded: counter >> 32).littleEndian
        )
        let nonce = try withUnsafeBytes(of: words) { try ChaChaPoly.Nonce(data: $0) }
        return try body(nonce)
    }
}

extension SessionCipher: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The counters and buffer state, never the keys.
    public var description: String {
        "SessionCipher(sent: \(writeCounter) frames, received: \(readCounter) frames, "
            + "buffered: \(bufferedByteCount) bytes\(isFailed ? ", failed" : ""))"
    }
    /// Same as `description`: keys never appear in descriptions or logs.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and reflection cannot print the keys.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
