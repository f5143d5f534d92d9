#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension HAPJSON {
    /// Decodes a `PUT /characteristics` body; the usual shapes are read by hand, the same as `JSONDecoder` reads them.
    ///
    /// A body of `aid`, `iid`, boolean or whole-number `value`, and boolean `ev`, `r` and `remote` items (and a
    /// `pid`) is read without `JSONDecoder`; anything else (strings, fractions, `null`, `authData`, unknown or
    /// repeated keys, malformed JSON) goes through `decode(_:from:)`, so the result or the error is always its own.
    public static func decodeWriteRequest(_ bytes: [UInt8]) throws -> CharacteristicWriteRequest {
        let plain = bytes.withUnsafeBufferPointer { buffer in
            var reader = PlainWriteRequestReader(bytes: buffer)
            return reader.read()
        }
        if let request = plain {
            return request
        }
        return try decode(CharacteristicWriteRequest.self, from: Data(bytes))
    }
}

/// Reads the plain shape of a `PUT /characteristics` body; `nil` for anything outside it.
struct PlainWriteRequestReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func read() -> CharacteristicWriteRequest? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var items: [CharacteristicWriteRequest.Item]?
        var preparedWriteID: UInt64?
        var hasPreparedWriteID = false
        repeat {
            guard let key = readKey() else { return nil }
            switch key {
            case .characteristics:
                guard items == nil, let list = readItems() else { return nil }
                items = list
            case .pid:
                guard !hasPreparedWriteID, let number = readUnsigned() else { return nil }
                preparedWriteID = number
                hasPreparedWriteID = true
            default:
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let items else { return nil }
        skipSpace()
        guard index == bytes.count else { return nil }
        return CharacteristicWriteRequest(characteristics: items, preparedWriteID: preparedWriteID)
    }

    private enum Key: UInt8 {
        case characteristics, pid, aid, iid, value, ev, r, remote

        /// A bit of its own, to find a key given twice.
        var bit: UInt8 { 1 << rawValue }
    }

    private mutating func readItems() -> [CharacteristicWriteRequest.Item]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var items: [CharacteristicWriteRequest.Item] = []
        if take(UInt8(ascii: "]")) { return items }
        repeat {
            guard let item = readItem() else { return nil }
            items.append(item)
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { return nil }
        return items
    }

    private mutating func readItem() -> CharacteristicWriteRequest.Item? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var accessoryID: UInt64?
        var instanceID: UInt64?
        var value: HAPValue?
        var events: Bool?
        var requestsResponse: Bool?
        var isRemote: Bool?
        var seen: UInt8 = 0
        repeat {
            guard let key = readKey(), seen & key.bit == 0 else { return nil }
            seen |= key.bit
            switch key {
            case .aid: accessoryID = readUnsigned()
            case .iid: instanceID = readUnsigned()
            case .value:
                value = readValue()
                if value == nil { return nil }
            case .ev:
                events = readBool()
                if events == nil { return nil }
            case .r:
                requestsResponse = readBool()
                if requestsResponse == nil { return nil }
            case .remote:
                isRemote = readBool()
                if isRemote == nil { return nil }
            case .characteristics, .pid:
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let accessoryID, let instanceID else { return nil }
        return CharacteristicWriteRequest.Item(
            accessoryID: accessoryID,
            instanceID: instanceID,
            value: value,
            events: events,
            requestsResponse: requestsResponse,
            isRemote: isRemote
        )
    }

    /// `"name"` and the colon after it; only the keys of the plain shape.
    private mutating func readKey() -> Key? {
        skipSpace()
        // Not `take`: the space after the opening quote is part of the name.
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            // Escapes and control characters are left to JSONDecoder.
            guard bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 else { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        let name = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        guard take(UInt8(ascii: ":")) else { return nil }
        skipSpace()
        if name.elementsEqual("aid".utf8) { return .aid }
        if name.elementsEqual("iid".utf8) { return .iid }
        if name.elementsEqual("value".utf8) { return .value }
        if name.elementsEqual("ev".utf8) { return .ev }
        if name.elementsEqual("r".utf8) { return .r }
        if name.elementsEqual("remote".utf8) { return .remote }
        if name.elementsEqual("characteristics".utf8) { return .characteristics }
        if name.elementsEqual("pid".utf8) { return .pid }
        return nil
    }

    private mutating func readBool() -> Bool? {
        if takeWord("true") { return true }
        if takeWord("false") { return false }
        return nil
    }

    /// `true`, `false` or a whole number: `.bool`, `.int` when it fits Int64, else `.uint`, as HAPValue decodes.
    private mutating func readValue() -> HAPValue? {
        if let flag = readBool() { return .bool(flag) }
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

    private mutating func readUnsigned() -> UInt64? {
        readDigits()
    }

    /// Decimal digits of a JSON integer (no leading zero, no fraction or exponent) that fit in UInt64.
    private mutating func readDigits() -> UInt64? {
        let start = index
        var number: UInt64 = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let (times10, overflow1) = number.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            number = sum
            index += 1
        }
        let count = index - start
        guard count > 0, count == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        // A fraction or exponent makes it a JSON number JSONDecoder reads by its own rules.
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") {
            return nil
        }
        skipSpace()
        return number
    }

    private mutating func takeWord(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let matches = word.withUTF8Buffer { expected in
            UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(expected)
        }
        guard matches else { return false }
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
    private mutating func take(_ byte: UInt8) -> Bool {
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
