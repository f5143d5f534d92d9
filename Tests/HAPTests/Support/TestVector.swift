/// Hex helpers for the test vectors of hap-protocol.md, named so they cannot clash with other suites' helpers.
enum TestVector {
    /// Bytes from a hex string in a test vector; two hex digits per byte, no separators.
    static func bytes(hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { throw HexError() }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<(index + 2)], as: UTF8.self), radix: 16) else {
                throw HexError()
            }
            bytes.append(byte)
        }
        return bytes
    }

    /// The bytes as lower-case hex, for comparing against test vectors.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// A test vector's hex string did not parse.
    struct HexError: Error {}
}
