/// The tokens of the plain JSON bodies HAP sends on every request (reads, writes, events), read from bytes.
///
/// Only what those bodies hold: keys without escapes, `true`/`false`/`null`, whole numbers without a leading zero,
/// fraction or exponent. Anything else makes a reader give up with `nil`, and its caller hands the body to
/// `JSONDecoder`, so a result is always what `JSONDecoder` makes of the same bytes.
struct PlainJSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether only whitespace is left.
    mutating func isAtEnd() -> Bool {
        skipSpace()
        return index == bytes.count
    }

    /// `"name"` and the colon after it; `nil` for a name with escapes or control characters.
    mutating func readKey() -> UnsafeBufferPointer<UInt8>? {
        skipSpace()
        // Not `take`: the space after the opening quote is part of the name.
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            guard bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 else { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        let name = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        guard take(UInt8(ascii: ":")) else { return nil }
        return name
    }

    /// `true` or `false`.
    mutating func readBool() -> Bool? {
        if takeWord("true") { return true }
        if takeWord("false") { return false }
        return nil
    }

    /// `true`, `false` or a whole number: `.bool`, `.int` when it fits Int64, else `.uint`, as HAPValue decodes.
    mutating func readValue() -> HAPValue? {
        if let flag = readBool() { return .bool(flag) }
        skipSpace()
        let isNegative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        guard let magnitude = readDigits() else { return nil }
        if isNegative {
            // -0 and numbers below Int64.min are left to JSONDecoder.
            guard magnitude > 0, magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return .int(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        return magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .uint(magnitude)
    }

    /// Decimal digits of a JSON integer (no sign, no leading zero, no fraction or exponent) that fit in UInt64.
    mutating func readUnsigned() -> UInt64? {
        skipSpace()
        return readDigits()
    }

    /// The digits of a JSON integer right at `index` (after a minus sign no space may come), and the space after.
    private mutating func readDigits() -> UInt64? {
        let start = index
        guard let number = Self.digits(in: bytes, at: &index) else { return nil }
        guard index - start == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        // A fraction or exponent makes it a JSON number JSONDecoder reads by its own rules.
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") {
            return nil
        }
        skipSpace()
        return number
    }

    /// One or more ASCII digits from `index` on that fit in UInt64; `index` ends after them.
    static func digits(in bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt64? {
        let start = index
        var number: UInt64 = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let (times10, overflow1) = number.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            number = sum
            index += 1
        }
        return index > start ? number : nil
    }

    /// Takes the literal `word` (`true`, `false`, `null`) and the whitespace after it.
    mutating func takeWord(_ word: StaticString) -> Bool {
        skipSpace()
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        guard UnsafeBufferPointer(rebasing: bytes[index..<index + count]).equals(word) else { return false }
        // A letter or digit straight after is not this literal.
        if index + count < bytes.count, Self.isWordByte(bytes[index + count]) { return false }
        index += count
        skipSpace()
        return true
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// Skips whitespace, then takes `byte` and the whitespace after it when it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        skipSpace()
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are exactly `literal`'s UTF-8, for the byte readers' keyword tests: a length check, then
    /// one pass over two buffers (comparing with a `String`'s UTF-8 view goes through its iterator).
    package func equals(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            for index in 0..<count where self[index] != expected[index] { return false }
            return true
        }
    }
}
