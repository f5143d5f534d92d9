#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a `GET /characteristics` query was refused; the accessory answers HTTP 400.
public enum CharacteristicQueryError: Error, Equatable, Sendable {
    /// There is no `id` parameter (an empty one is allowed: ADK answers 204).
    case missingID
    /// An `id` entry that is not `aid.iid` with two decimal numbers.
    case invalidID(String)
    /// A flag whose value is not `0` or `1`.
    case invalidFlag(name: String, value: String)
    /// A parameter given twice.
    case duplicateParameter(String)
    /// A parameter without `=`.
    case malformedParameter(String)
}

/// The parsed query of `GET /characteristics`: which characteristics, and what to include; hap-protocol.md §7.5.
public struct CharacteristicReadQuery: Sendable, Equatable {
    /// The characteristics to read, in the order asked (`id=1.10,1.11`).
    public var ids: [CharacteristicID]
    /// Whether to add format, unit and range metadata (`meta=1`).
    public var includesMetadata: Bool
    /// Whether to add permissions (`perms=1`).
    public var includesPermissions: Bool
    /// Whether to add the type (`type=1`).
    public var includesType: Bool
    /// Whether to add this connection's subscription state (`ev=1`).
    public var includesEventState: Bool

    /// Makes a query for `ids` with the given flags.
    public init(
        ids: [CharacteristicID],
        includesMetadata: Bool = false,
        includesPermissions: Bool = false,
        includesType: Bool = false,
        includesEventState: Bool = false
    ) {
        self.ids = ids
        self.includesMetadata = includesMetadata
        self.includesPermissions = includesPermissions
        self.includesType = includesType
        self.includesEventState = includesEventState
    }

    /// Parses the part of the URL after `?`, for example `id=1.10,1.11&meta=1&ev=1`.
    ///
    /// Unknown parameters are ignored; `%2C` is read as a comma. Flags must be `0` or `1` (ADK rejects others).
    public init(query: String) throws(CharacteristicQueryError) {
        if let plain = query.utf8.withContiguousStorageIfAvailable(Self.parsePlain), let plain {
            self = plain
        } else {
            self = try Self.parseGeneral(query)
        }
    }

    /// The parser for every query, character by character; `init(query:)` tries the byte reader first.
    static func parseGeneral(_ query: String) throws(CharacteristicQueryError) -> CharacteristicReadQuery {
        var seen: Set<String> = []
        var ids: [CharacteristicID]?
        var flags: [String: Bool] = [:]
        for parameter in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = parameter.firstIndex(of: "=") else {
                throw .malformedParameter(String(parameter))
            }
            let name = String(parameter[..<equals])
            let value = String(parameter[parameter.index(after: equals)...])
            guard seen.insert(name).inserted else { throw .duplicateParameter(name) }
            switch name {
            case "id":
                ids = try Self.parseIDs(value)
            case "meta", "perms", "type", "ev":
                switch value {
                case "0": flags[name] = false
                case "1": flags[name] = true
                default: throw .invalidFlag(name: name, value: value)
                }
            default:
                continue
            }
        }
        guard let ids else { throw .missingID }
        return CharacteristicReadQuery(
            ids: ids,
            includesMetadata: flags["meta"] ?? false,
            includesPermissions: flags["perms"] ?? false,
            includesType: flags["type"] ?? false,
            includesEventState: flags["ev"] ?? false
        )
    }

    /// The query string a controller sends for this query; flags that are off are left out.
    public var queryString: String {
        var bytes: [UInt8] = []
        appendQuery(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``queryString``'s bytes to `bytes`, for a request written straight as bytes.
    public func appendQuery(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "id=".utf8)
        for (index, id) in ids.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            DecimalText.append(id.accessoryID, to: &bytes)
            bytes.append(UInt8(ascii: "."))
            DecimalText.append(id.instanceID, to: &bytes)
        }
        if includesMetadata { bytes.append(contentsOf: "&meta=1".utf8) }
        if includesPermissions { bytes.append(contentsOf: "&perms=1".utf8) }
        if includesType { bytes.append(contentsOf: "&type=1".utf8) }
        if includesEventState { bytes.append(contentsOf: "&ev=1".utf8) }
    }

    /// A valid ASCII query of only `id`, `meta`, `perms`, `type` and `ev`, read from its bytes; `nil` for anything
    /// else, which the general parser then reads (and refuses with the right error).
    private static func parsePlain(_ bytes: UnsafeBufferPointer<UInt8>) -> CharacteristicReadQuery? {
        var ids: [CharacteristicID]?
        var flags: UInt8 = 0
        var seen: UInt8 = 0
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            defer { start = end + 1 }
            if end == start { continue }
            let parameter = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let name = UnsafeBufferPointer(rebasing: parameter[0..<equals])
            let value = UnsafeBufferPointer(rebasing: parameter[(equals + 1)...])
            let bit: UInt8
            if name.equals("id") {
                bit = 1
            } else if name.equals("meta") {
                bit = 2
            } else if name.equals("perms") {
                bit = 4
            } else if name.equals("type") {
                bit = 8
            } else if name.equals("ev") {
                bit = 16
            } else {
                return nil
            }
            guard seen & bit == 0 else { return nil }
            seen |= bit
            if bit == 1 {
                guard let parsed = parsePlainIDs(value) else { return nil }
                ids = parsed
            } else {
                guard value.count == 1 else { return nil }
                switch value[0] {
                case UInt8(ascii: "0"): break
                case UInt8(ascii: "1"): flags |= bit
                default: return nil
                }
            }
        }
        guard let ids else { return nil }
        return CharacteristicReadQuery(
            ids: ids,
            includesMetadata: flags & 2 != 0,
            includesPermissions: flags & 4 != 0,
            includesType: flags & 8 != 0,
            includesEventState: flags & 16 != 0
        )
    }

    /// `aid.iid` entries separated by `,` or `%2C`, each number only ASCII digits; `nil` for anything else.
    private static func parsePlainIDs(_ bytes: UnsafeBufferPointer<UInt8>) -> [CharacteristicID]? {
        var ids: [CharacteristicID] = []
        guard !bytes.isEmpty else { return ids }
        var index = 0
        while true {
            guard let accessoryID = PlainJSONScanner.digits(in: bytes, at: &index), index < bytes.count,
                bytes[index] == UInt8(ascii: ".")
            else { return nil }
            index += 1
            guard let instanceID = PlainJSONScanner.digits(in: bytes, at: &index) else { return nil }
            ids.append(CharacteristicID(accessoryID: accessoryID, instanceID: instanceID))
            if index == bytes.count { return ids }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes.count - index >= 3, bytes[index] == UInt8(ascii: "%"),
                bytes[index + 1] == UInt8(ascii: "2"),
                bytes[index + 2] | 0x20 == UInt8(ascii: "c")
            {
                index += 3
            } else {
                return nil
            }
        }
    }

    private static func parseIDs(_ text: String) throws(CharacteristicQueryError) -> [CharacteristicID] {
        let list = text.replacing("%2C", with: ",").replacing("%2c", with: ",")
        if list.isEmpty { return [] }
        var ids: [CharacteristicID] = []
        for entry in list.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = entry.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2,
                let accessoryID = parseDecimal(parts[0]),
                let instanceID = parseDecimal(parts[1])
            else {
                throw .invalidID(String(entry))
            }
            ids.append(CharacteristicID(accessoryID: accessoryID, instanceID: instanceID))
        }
        return ids
    }

    /// Only ASCII digits: `UInt64("+1")` would accept a sign.
    private static func parseDecimal(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return UInt64(text)
    }
}
