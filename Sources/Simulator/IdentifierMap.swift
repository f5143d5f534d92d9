/// Stable accessory and instance ids, kept by the caller as JSON between runs so ids survive restarts and edits.
///
/// hap-protocol.md §7.4: aids of bridged accessories and iids must not change for the life of a pairing. The bridge
/// (or a lone accessory) is aid 1; bridged accessories get aids from 2 up. A removed accessory's aid is never given
/// again; a removed service's or characteristic's iid comes back only for the same slot of the same accessory.
public struct IdentifierMap: Sendable, Equatable, Codable {
    /// The ids of the bridge, or of the one accessory served without a bridge (aid 1).
    public var primary: AccessoryIdentifiers?
    /// The ids of each bridged accessory, by its key (the description's `id`, or its lower-cased name).
    public var accessories: [String: AccessoryIdentifiers]
    /// The aid the next new accessory gets; only ever grows.
    public var nextAccessoryID: UInt64
    /// A digest of the database's structure (everything but values) when it was last built.
    public var structureDigest: String?

    /// An empty map, for a first run.
    public init() {
        primary = nil
        accessories = [:]
        nextAccessoryID = 2
        structureDigest = nil
    }

    /// The aid for the accessory with `key`, given a new one if it has none.
    mutating func accessoryID(forKey key: String) -> UInt64 {
        if let known = accessories[key] { return known.accessoryID }
        let accessoryID = nextAccessoryID
        nextAccessoryID += 1
        accessories[key] = AccessoryIdentifiers(accessoryID: accessoryID)
        return accessoryID
    }

    /// Forgets every accessory whose key is not in `keys`; their aids are not given again.
    mutating func keepOnly(_ keys: Set<String>) {
        accessories = accessories.filter { keys.contains($0.key) }
    }
}

/// The ids of one accessory: its aid and the iids of its services and characteristics by slot.
public struct AccessoryIdentifiers: Sendable, Equatable, Codable {
    /// The accessory id.
    public var accessoryID: UInt64
    /// Instance ids by slot: `"43#0"` for the first Lightbulb service, `"43#0/8"` for its Brightness.
    public var instanceIDs: [String: UInt64]
    /// The iid the next new slot gets; only ever grows.
    public var nextInstanceID: UInt64

    /// Ids for accessory `accessoryID` with no slots yet.
    public init(accessoryID: UInt64) {
        self.accessoryID = accessoryID
        instanceIDs = [:]
        nextInstanceID = 1
    }

    /// The iid of `slot`, given a new one if it has none.
    mutating func instanceID(forSlot slot: String) -> UInt64 {
        if let known = instanceIDs[slot] { return known }
        let instanceID = nextInstanceID
        nextInstanceID += 1
        instanceIDs[slot] = instanceID
        return instanceID
    }
}
