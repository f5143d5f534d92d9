import Foundation

extension UUID {
    /// The same text as `uuidString` (upper-case hex in 8-4-4-4-12 groups), written from a table: Foundation's
    /// `uuidString` formats with `snprintf` on Linux, about five times slower, and the hub's JSON writers call it
    /// for every id in an event frame or a stored row.
    public var canonicalString: String {
        String(unsafeUninitializedCapacity: 36) { buffer in Self.writeCanonical(uuid, into: buffer) }
    }

    /// Writes `uuidString`'s 36 bytes at the start of `buffer`, which must hold at least 36; returns 36.
    @discardableResult
    public static func writeCanonical(_ uuid: uuid_t, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        precondition(buffer.count >= 36, "a UUID's text is 36 bytes")
        var index = 0
        withUnsafeBytes(of: uuid) { raw in
            for (offset, byte) in raw.enumerated() {
                if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                    buffer[index] = UInt8(ascii: "-")
                    index += 1
                }
                buffer[index] = upperHexDigit(byte >> 4)
                buffer[index + 1] = upperHexDigit(byte & 0x0F)
                index += 2
            }
        }
        return index
    }

    private static func upperHexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
