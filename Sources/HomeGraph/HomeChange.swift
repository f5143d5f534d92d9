import Foundation
import HAPTypes

/// One fine-grained change to a home, as an operation produced it; `HomeEvent` stamps it with home and sequence.
///
/// Its JSON is `{"type": "<kind>", …fields}` (HomeChange+Codable.swift, docs/api/openapi.yaml).
public enum HomeChange: Sendable, Equatable, Codable {
    /// A home was added; it holds its room for the entire home.
    case homeAdded(Home)
    /// The home was removed with everything in it.
    case homeRemoved
    /// The home became the primary one.
    case homeBecamePrimary
    /// The home stopped being the primary one.
    case homeStoppedBeingPrimary
    /// The home was renamed.
    case homeRenamed(old: String, new: String)
    /// The home's location was set or cleared.
    case homeLocationChanged(Location?)
    /// The home's time zone changed.
    case homeTimeZoneChanged(String)
    /// The unit the home's people say and read temperatures in changed.
    case homeTemperatureUnitChanged(TemperatureUnit)

    /// A room was added.
    case roomAdded(Room)
    /// A room was renamed.
    case roomRenamed(room: UUID, old: String, new: String)
    /// A room was removed (its accessories moved first, each with its own change).
    case roomRemoved(room: UUID)
    /// A zone was added.
    case zoneAdded(Zone)
    /// A zone was renamed.
    case zoneRenamed(zone: UUID, old: String, new: String)
    /// A zone was removed.
    case zoneRemoved(zone: UUID)
    /// A room was put in a zone.
    case roomAddedToZone(room: UUID, zone: UUID)
    /// A room was taken out of a zone.
    case roomRemovedFromZone(room: UUID, zone: UUID)

    /// An accessory was added with its services.
    case accessoryAdded(Accessory)
    /// An accessory was renamed.
    case accessoryRenamed(accessory: UUID, old: String, new: String)
    /// An accessory moved from one room to another.
    case accessoryMovedToRoom(accessory: UUID, from: UUID, to: UUID)
    /// An accessory was removed.
    case accessoryRemoved(accessory: UUID)
    /// An accessory became reachable or unreachable.
    case accessoryReachabilityChanged(accessory: UUID, isReachable: Bool)
    /// A service was renamed.
    case serviceRenamed(service: UUID, accessory: UUID, old: String, new: String)
    /// A characteristic's known value changed.
    case characteristicValueChanged(characteristic: UUID, accessory: UUID, value: HAPValue)
    /// Events of a characteristic were turned on or off.
    case characteristicNotificationsChanged(characteristic: UUID, accessory: UUID, isEnabled: Bool)

    /// A service group was added.
    case serviceGroupAdded(ServiceGroup)
    /// A service group was renamed.
    case serviceGroupRenamed(group: UUID, old: String, new: String)
    /// A service group was removed.
    case serviceGroupRemoved(group: UUID)
    /// A service was added to a group.
    case serviceAddedToGroup(service: UUID, group: UUID)
    /// A service was taken out of a group (or its accessory was removed).
    case serviceRemovedFromGroup(service: UUID, group: UUID)

    /// An action set was added.
    case actionSetAdded(ActionSet)
    /// An action set was renamed.
    case actionSetRenamed(actionSet: UUID, old: String, new: String)
    /// An action set was removed.
    case actionSetRemoved(actionSet: UUID)
    /// An action set's actions were replaced (or lost those of a removed accessory).
    case actionSetActionsChanged(actionSet: UUID, actions: [Action])

    /// A trigger was added.
    case triggerAdded(Trigger)
    /// A trigger was renamed.
    case triggerRenamed(trigger: UUID, old: String, new: String)
    /// A trigger was removed.
    case triggerRemoved(trigger: UUID)
    /// A trigger was turned on or off.
    case triggerEnabledChanged(trigger: UUID, isEnabled: Bool)
    /// A trigger's action sets changed (replaced, or one was removed).
    case triggerActionSetsChanged(trigger: UUID, actionSetIDs: [UUID])
    /// A trigger's definition was replaced.
    case triggerDefinitionChanged(trigger: UUID, definition: TriggerDefinition)
    /// What the hub remembers of a trigger changed (it fired, decided not to, or waits for another time): the
    /// fields replace the old ones, the decisions are new ones to add (`TriggerState.merging(_:)`).
    case triggerStateChanged(trigger: UUID, state: TriggerState)
    /// A user reported being home or away, or a position.
    case userPresenceChanged(user: UUID, presence: Presence)
    /// The radius that counts as home changed.
    case homePresenceRadiusChanged(radius: Double)

    /// A user was added.
    case userAdded(User)
    /// A user was removed.
    case userRemoved(user: UUID)
    /// A user's role changed.
    case userRoleChanged(user: UUID, old: UserRole, new: UserRole)
}

extension HomeChange {
    /// The object an addition adds (a home, room, zone, accessory, service group, action set, trigger or user), as
    /// the graph stored it; `nil` for every other change.
    public var addedObject: (any Sendable)? {
        switch self {
        case .homeAdded(let home): home
        case .roomAdded(let room): room
        case .zoneAdded(let zone): zone
        case .accessoryAdded(let accessory): accessory
        case .serviceGroupAdded(let group): group
        case .actionSetAdded(let actionSet): actionSet
        case .triggerAdded(let trigger): trigger
        case .userAdded(let user): user
        default: nil
        }
    }
}

/// A change stamped with its home and that home's sequence number, which only grows, and with who made it and when.
public struct HomeEvent: Sendable, Equatable, Codable {
    /// The home the change happened in.
    public var homeID: UUID
    /// The position of the change in the home's history, starting at 1.
    public var sequence: UInt64
    /// What changed.
    public var change: HomeChange
    /// Who made the change; `nil` for changes recorded before Hearth kept it.
    public var by: ChangeAuthor?
    /// When the hub recorded the change; `nil` for changes recorded before Hearth kept it.
    public var at: Date?

    /// Stamps `change`.
    public init(homeID: UUID, sequence: UInt64, change: HomeChange, by: ChangeAuthor? = nil, at: Date? = nil) {
        self.homeID = homeID
        self.sequence = sequence
        self.change = change
        self.by = by
        self.at = at
    }
}

/// Who made a change: a person, an automation, an accessory reporting its state, or the hub's own bookkeeping.
///
/// In JSON: `{"kind": "person", "userID": …}`, or `{"kind": "automation" | "accessory" | "hub"}`.
public enum ChangeAuthor: Sendable, Hashable, Codable {
    /// A user of the home, by their user id.
    case person(UUID)
    /// A trigger's automation.
    case automation
    /// An accessory, reporting a value or its reachability.
    case accessory
    /// The hub itself (built-in scenes, pairing results and other bookkeeping).
    case hub

    private enum CodingKeys: String, CodingKey { case kind, userID }

    /// Reads `{"kind": …}`; an unknown kind is read as the hub's.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "person": self = .person(try container.decode(UUID.self, forKey: .userID))
        case "automation": self = .automation
        case "accessory": self = .accessory
        default: self = .hub
        }
    }

    /// The author as `JSONEncoder` writes it (`{"kind":"person","userID":"…"}`), for hand-written JSON.
    public var plainJSON: String {
        switch self {
        case .person(let userID): "{\"kind\":\"person\",\"userID\":\"\(userID.canonicalString)\"}"
        case .automation: "{\"kind\":\"automation\"}"
        case .accessory: "{\"kind\":\"accessory\"}"
        case .hub: "{\"kind\":\"hub\"}"
        }
    }

    /// Writes `{"kind": …}`, with `userID` for a person.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .person(let userID):
            try container.encode("person", forKey: .kind)
            try container.encode(userID, forKey: .userID)
        case .automation: try container.encode("automation", forKey: .kind)
        case .accessory: try container.encode("accessory", forKey: .kind)
        case .hub: try container.encode("hub", forKey: .kind)
        }
    }

    /// Who made `operation` when no caller is named: the hub applying what it heard.
    ///
    /// Accessories report values and reachability; a trigger's writes and state are its automation's; the rest is
    /// the hub's.
    public init(reporting operation: HomeOperation) {
        switch operation {
        case .updateCharacteristicValue, .setReachability: self = .accessory
        case .writeCharacteristicValue, .setTriggerState: self = .automation
        default: self = .hub
        }
    }
}

/// An operation as the hub's store logs it: with who made it and when, so the history read back says so too.
public struct LoggedOperation: Sendable, Equatable, Codable {
    /// The operation.
    public var operation: HomeOperation
    /// Who made it; `nil` in logs written before Hearth kept it.
    public var by: ChangeAuthor?
    /// When; `nil` in logs written before Hearth kept it.
    public var at: Date?

    /// `operation`, made by `by` at `at`.
    public init(_ operation: HomeOperation, by: ChangeAuthor?, at: Date?) {
        self.operation = operation
        self.by = by
        self.at = at
    }

    private enum CodingKeys: String, CodingKey { case operation, by, at }

    /// Reads `{"operation": …, "by": …, "at": …}`, or a bare operation as older logs hold.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.operation) else {
            self.init(try HomeOperation(from: decoder), by: nil, at: nil)
            return
        }
        self.init(
            try container.decode(HomeOperation.self, forKey: .operation),
            by: try container.decodeIfPresent(ChangeAuthor.self, forKey: .by),
            at: try container.decodeIfPresent(Date.self, forKey: .at)
        )
    }
}

/// What a client that reconnects gets when it asks for the changes after the last one it saw.
public enum ChangeHistory: Sendable, Equatable, Codable {
    /// Every change after the one asked for, oldest first (empty when the client is up to date).
    case events([HomeEvent])
    /// The changes asked for are no longer kept: reload the home, which is at `currentSequence`.
    case reloadRequired(currentSequence: UInt64)
}
