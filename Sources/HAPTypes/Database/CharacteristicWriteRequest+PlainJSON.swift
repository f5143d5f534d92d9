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

extension CharacteristicWriteRequest {
    /// The sorted-key JSON `HAPJSON.encode` writes, made without `JSONEncoder`; `nil` unless plain.
    ///
    /// Plain: every item holds only ids, `ev`, `r` and a boolean or whole-number value (or none). Every write a
    /// controller sends goes through here.
    func plainJSON() -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(32 + characteristics.count * 40)
        out.append(contentsOf: #"{"characteristics":["#.utf8)
        for (index, item) in characteristics.enumerated() {
            guard item.authorizationData == nil, item.isRemote == nil else { return nil }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            // Keys in JSONEncoder's sorted order: aid, ev, iid, r, value.
            out.append(contentsOf: #"{"aid":"#.utf8)
            out.append(contentsOf: String(item.accessoryID).utf8)
            if let events = item.events { out.append(contentsOf: (events ? #","ev":true"# : #","ev":false"#).utf8) }
            out.append(contentsOf: #","iid":"#.utf8)
            out.append(contentsOf: String(item.instanceID).utf8)
            if let response = item.requestsResponse {
                out.append(contentsOf: (response ? #","r":true"# : #","r":false"#).utf8)
            }
            if let value = item.value, !value.appendPlainJSONField(to: &out) { return nil }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        if let preparedWriteID {
            out.append(contentsOf: #","pid":"#.utf8)
            out.append(contentsOf: String(preparedWriteID).utf8)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// Reads the plain shape of a `PUT /characteristics` body; `nil` for anything outside it.
struct PlainWriteRequestReader {
    private var scanner: PlainJSONScanner

    init(bytes: UnsafeBufferPointer<UInt8>) {
        scanner = PlainJSONScanner(bytes: bytes)
    }

    mutating func read() -> CharacteristicWriteRequest? {
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
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
                guard !hasPreparedWriteID, let number = scanner.readUnsigned() else { return nil }
                preparedWriteID = number
                hasPreparedWriteID = true
            default:
                return nil
            }
        } while scanner.take(UInt8(ascii: ","))
        guard scanner.take(UInt8(ascii: "}")), let items, scanner.isAtEnd() else { return nil }
        return CharacteristicWriteRequest(characteristics: items, preparedWriteID: preparedWriteID)
    }

    private enum Key: UInt8 {
        case characteristics, pid, aid, iid, value, ev, r, remote

        /// A bit of its own, to find a key given twice.
        var bit: UInt8 { 1 << rawValue }
    }

    private mutating func readItems() -> [CharacteristicWriteRequest.Item]? {
        guard scanner.take(UInt8(ascii: "[")) else { return nil }
        var items: [CharacteristicWriteRequest.Item] = []
        if scanner.take(UInt8(ascii: "]")) { return items }
        repeat {
            guard let item = readItem() else { return nil }
            items.append(item)
        } while scanner.take(UInt8(ascii: ","))
        guard scanner.take(UInt8(ascii: "]")) else { return nil }
        return items
    }

    private mutating func readItem() -> CharacteristicWriteRequest.Item? {
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
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
            case .aid: accessoryID = scanner.readUnsigned()
            case .iid: instanceID = scanner.readUnsigned()
            case .value:
                value = scanner.readValue()
                if value == nil { return nil }
            case .ev:
                events = scanner.readBool()
                if events == nil { return nil }
            case .r:
                requestsResponse = scanner.readBool()
                if requestsResponse == nil { return nil }
            case .remote:
                isRemote = scanner.readBool()
                if isRemote == nil { return nil }
            case .characteristics, .pid:
                return nil
            }
        } while scanner.take(UInt8(ascii: ","))
        guard scanner.take(UInt8(ascii: "}")), let accessoryID, let instanceID else { return nil }
        return CharacteristicWriteRequest.Item(
            accessoryID: accessoryID,
            instanceID: instanceID,
            value: value,
            events: events,
            requestsResponse: requestsResponse,
            isRemote: isRemote
        )
    }

    /// One of the keys of the plain shape.
    private mutating func readKey() -> Key? {
        guard let name = scanner.readKey() else { return nil }
        if name.equals("aid") { return .aid }
        if name.equals("iid") { return .iid }
        if name.equals("value") { return .value }
        if name.equals("ev") { return .ev }
        if name.equals("r") { return .r }
        if name.equals("remote") { return .remote }
        if name.equals("characteristics") { return .characteristics }
        if name.equals("pid") { return .pid }
        return nil
    }
}
