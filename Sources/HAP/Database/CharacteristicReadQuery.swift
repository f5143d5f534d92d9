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
        self.init(
            ids: ids,
            includesMetadata: flags["meta"] ?? false,
            includesPermissions: flags["perms"] ?? false,
            includesType: flags["type"] ?? false,
            includesEventState: flags["ev"] ?? false
        )
    }

    /// The query string a controller sends for this query; flags that are off are left out.
    public var queryString: String {
        var parts = ["id=" + ids.map(\.description).joined(separator: ",")]
        if includesMetadata { parts.append("meta=1") }
        if includesPermissions { parts.append("perms=1") }
        if includesType { parts.append("type=1") }
        if includesEventState { parts.append("ev=1") }
        return parts.joined(separator: "&")
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
