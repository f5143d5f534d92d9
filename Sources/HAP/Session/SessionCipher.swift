import Crypto

/// Why the session decoder stopped; either way the connection must be closed (hap-protocol.md §5).
public enum SessionCipherError: Error, Equatable, Sendable {
    /// A frame announced a plaintext length of 0 or more than 1024 bytes; the value is that length.
    case invalidFrameLength(Int)
    /// A frame's tag did not match: changed bytes, a wrong key or a frame out of order.
    case authenticationFailed
}

extension SessionCipherError: CustomStringConvertible {
    /// A sentence for people.
    public var description: String {
        switch self {
        case .invalidFrameLength(let length): "an encrypted frame announced \(length) bytes (1 to 1024 are allowed)"
        case .authenticationFailed: "an encrypted frame did not authenticate"
        }
    }
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
    /// The frame AEADs, each a BoringSSL context kept for the whole session; copy-on-write, see `FrameAEAD`.
    private var reader: FrameAEAD
    private var writer: FrameAEAD
    private var writeCounter: UInt64 = 0
    private var readCounter: UInt64 = 0
    /// Received bytes not yet decoded start at `readIndex`; the bytes before it are decoded and wait for compaction.
    private var buffer: [UInt8] = []
    private var readIndex = 0
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
        reader = FrameAEAD(key: readKey)
        writer = FrameAEAD(key: writeKey)
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
        var plaintext: [UInt8] = []
        try open(bytes, appendingTo: &plaintext)
        return plaintext
    }

    /// Like ``open(_:)``, appending the plaintext to `plaintext` rather than returning a new array.
    ///
    /// A reader that keeps one array for every message makes no new one each time. On an error, `plaintext` is left
    /// as it was.
    public mutating func open(
        _ bytes: some Collection<UInt8>,
        appendingTo plaintext: inout [UInt8]
    ) throws(SessionCipherError) {
        if let failure { throw failure }
        // Appending from contiguous storage is a plain copy; the unspecialised generic append looks up type metadata.
        if bytes.withContiguousStorageIfAvailable({ buffer.append(contentsOf: $0) }) == nil {
            buffer.append(contentsOf: bytes)
        }
        try openBuffered(appendingTo: &plaintext)
    }

    /// Like ``open(_:appendingTo:)`` for bytes in memory: not generic, so a caller in another module runs code
    /// compiled for exactly this type rather than the generic version.
    public mutating func open(
        _ bytes: UnsafeRawBufferPointer,
        appendingTo plaintext: inout [UInt8]
    ) throws(SessionCipherError) {
        if let failure { throw failure }
        buffer.append(contentsOf: bytes)
        try openBuffered(appendingTo: &plaintext)
    }

    /// Opens the whole frames now in `buffer`, appending their plaintext.
    private mutating func openBuffered(appendingTo plaintext: inout [UInt8]) throws(SessionCipherError) {
        // First find the whole frames buffered and whether a bad length field follows them, then open them all
        // straight into `plaintext`. Frames before a bad length are still checked first, as if taken one by one.
        var framesEnd = readIndex
        var plaintextCount = 0
        var invalidLength: Int?
        while buffer.count - framesEnd >= Self.lengthByteCount {
            let length = Int(buffer[framesEnd]) | Int(buffer[framesEnd + 1]) << 8
            guard length > 0, length <= Self.maximumFrameLength else {
                invalidLength = length
                break
            }
            let frameEnd = framesEnd + Self.frameOverhead + length
            guard frameEnd <= buffer.count else { break }
            plaintextCount += length
            framesEnd = frameEnd
        }
        if plaintextCount > 0 {
            guard openFrames(from: readIndex, to: framesEnd, plaintextCount: plaintextCount, appendingTo: &plaintext)
            else {
                try fail(.authenticationFailed)
            }
            readIndex = framesEnd
        }
        if let invalidLength {
            // The frames before the bad length were good, but the call fails: none of their plaintext is kept.
            plaintext.removeSubrange((plaintext.count - plaintextCount)...)
            try fail(.invalidFrameLength(invalidLength))
        }
        compact()
    }

    private mutating func fail(_ error: SessionCipherError) throws(SessionCipherError) -> Never {
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

    /// Which of the read and write cipher contexts this value still shares with `other`; for copy-on-write tests.
    func sharedFrameAEADs(with other: SessionCipher) -> (read: Bool, write: Bool) {
        (reader === other.reader, writer === other.writer)
    }

    /// The write AEAD, first replaced by a fresh copy if another copy of this value shares it (copy-on-write).
    private mutating func uniqueWriter() -> FrameAEAD {
        if !isKnownUniquelyReferenced(&writer) {
            writer = writer.copy()
        }
        return writer
    }

    /// The read AEAD, first replaced by a fresh copy if another copy of this value shares it (copy-on-write).
    private mutating func uniqueReader() -> FrameAEAD {
        if !isKnownUniquelyReferenced(&reader) {
            reader = reader.copy()
        }
        return reader
    }

    private mutating func sealFrames(_ plaintext: UnsafeRawBufferPointer) -> [UInt8] {
        guard !plaintext.isEmpty else { return [] }
        let sealedCount = Self.sealedByteCount(plaintextCount: plaintext.count)
        return [UInt8](unsafeUninitializedCapacity: sealedCount) { output, initializedCount in
            initializedCount = seal(plaintext, into: UnsafeMutableRawBufferPointer(output))
        }
    }

    /// The bytes `seal` makes of `plaintextCount` plaintext bytes: the plaintext plus 18 bytes per frame.
    public static func sealedByteCount(plaintextCount: Int) -> Int {
        let frameCount = (plaintextCount + maximumFrameLength - 1) / maximumFrameLength
        return plaintextCount + frameCount * frameOverhead
    }

    /// Encrypts a message into frames written to `output`, the same bytes `seal(_:)` returns; returns their count.
    ///
    /// `output` must hold at least ``sealedByteCount(plaintextCount:)`` bytes, so that a caller can seal straight
    /// into the buffer it sends; a smaller one is a programming error.
    public mutating func seal(_ plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        guard let input = plaintext.baseAddress, !plaintext.isEmpty else { return 0 }
        precondition(output.count >= Self.sealedByteCount(plaintextCount: plaintext.count), "output too small")
        guard let frame = output.baseAddress else { return 0 }
        let aead = uniqueWriter()
        var counter = writeCounter
        // Each frame is sealed straight into its place in the result: length field, ciphertext, tag.
        var start = 0
        var offset = 0
        while start < plaintext.count {
            let length = min(Self.maximumFrameLength, plaintext.count - start)
            frame.storeBytes(of: UInt8(truncatingIfNeeded: length), toByteOffset: offset, as: UInt8.self)
            frame.storeBytes(of: UInt8(truncatingIfNeeded: length >> 8), toByteOffset: offset + 1, as: UInt8.self)
            let ciphertext = frame + offset + Self.lengthByteCount
            let sealed = aead.seal(
                counter: counter,
                header: frame + offset,
                plaintext: input + start,
                length: length,
                ciphertext: ciphertext,
                tag: ciphertext + length
            )
            // The key size is checked in init, so only an internal BoringSSL error could make sealing fail.
            precondition(sealed, "BoringSSL ChaCha20-Poly1305 sealing failed")
            // A 64-bit counter cannot wrap within a connection's life: 2^64 frames is far beyond any session.
            counter &+= 1
            start += length
            offset += Self.frameOverhead + length
        }
        writeCounter = counter
        return offset
    }

    /// Checks and decrypts the whole frames in `buffer[start..<end]`, which hold `plaintextCount` plaintext bytes,
    /// appending their plaintext to `plaintext`.
    ///
    /// Returns false as soon as a tag does not match, with `plaintext` as it was; the read counter counts the frames
    /// opened before it.
    private mutating func openFrames(
        from start: Int,
        to end: Int,
        plaintextCount: Int,
        appendingTo plaintext: inout [UInt8]
    ) -> Bool {
        let aead = uniqueReader()
        var counter = readCounter
        var authentic = true
        let base = plaintext.count
        plaintext.append(contentsOf: repeatElement(0, count: plaintextCount))
        buffer.withUnsafeBytes { frames in
            plaintext.withUnsafeMutableBytes { output in
                guard let input = frames.baseAddress, let opened = output.baseAddress else {
                    authentic = false
                    return
                }
                var offset = start
                var written = base
                while offset < end {
                    let length = Int(frames[offset]) | Int(frames[offset + 1]) << 8
                    let ciphertext = input + offset + Self.lengthByteCount
                    guard
                        aead.open(
                            counter: counter,
                            header: input + offset,
                            ciphertext: ciphertext,
                            length: length,
                            tag: ciphertext + length,
                            plaintext: opened + written
                        )
                    else {
                        authentic = false
                        break
                    }
                    counter &+= 1
                    offset += Self.frameOverhead + length
                    written += length
                }
            }
        }
        readCounter = counter
        if !authentic { plaintext.removeSubrange(base...) }
        return authentic
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
