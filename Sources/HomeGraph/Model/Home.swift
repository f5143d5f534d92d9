import Foundation

/// One home: its rooms, zones, accessories, groups, scenes, triggers and people.
public struct Home: Sendable, Equatable, Codable, Identifiable {
    /// The home's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique among homes.
    public var name: String
    /// Whether this is the primary home; exactly one home is while any exists.
    public var isPrimary: Bool
    /// Where the home is, for sunrise and sunset; `nil` until set.
    public var location: Location?
    /// The IANA time zone identifier the home's clock times are in (`Europe/Berlin`).
    public var timeZoneIdentifier: String
    /// The room that holds every accessory not placed in another room; it cannot be removed.
    public var roomForEntireHome: Room { didSet { nameIndex.clear() } }
    /// The rooms people made, in the order they were added.
    public var rooms: [Room] { didSet { nameIndex.clear() } }
    /// Groups of rooms ("Upstairs").
    public var zones: [Zone] { didSet { nameIndex.clear() } }
    /// Every accessory of the home, bridges and bridged accessories alike; chunked like `triggers`, so a value
    /// change while snapshots share the storage copies one chunk of accessories, not all of them.
    public var accessories: ChunkedArray<Accessory> { didSet { nameIndex.clear() } }
    /// Services from several accessories acted on together.
    public var serviceGroups: [ServiceGroup] { didSet { nameIndex.clear() } }
    /// Scenes: sets of characteristic writes.
    public var actionSets: [ActionSet] { didSet { nameIndex.clear() } }
    /// What runs action sets automatically; chunked, so storing one trigger's state while snapshots of the graph
    /// share the storage copies one chunk, not every trigger.
    public var triggers: ChunkedArray<Trigger> { didSet { nameIndex.clear() } }
    /// The people who share the home.
    public var users: [User] { didSet { nameIndex.clear() } }
    /// The radius in metres of the circle around `location` that counts as home; `nil`: `defaultPresenceRadius`.
    public var presenceRadius: Double?
    /// The unit people of this home say and read temperatures in; `nil`: Celsius.
    ///
    /// Values stay in Celsius.
    public var temperatureUnit: TemperatureUnit?

    /// The names and ids of the home's objects, built when a check needs it and cleared by any change to the
    /// collections above; not part of the home's value (never compared, never encoded).
    var nameIndex = NameIndexCache()
    /// Each trigger's position by id, so an operation on one trigger finds it without a scan; checked on use and
    /// rebuilt when stale, so no change needs to clear it (not compared, not encoded).
    var triggerPositions = TriggerPositionCache()

    private enum CodingKeys: String, CodingKey {
        case id, name, isPrimary, location, timeZoneIdentifier, roomForEntireHome, rooms, zones, accessories,
            serviceGroups, actionSets, triggers, users, presenceRadius, temperatureUnit
    }

    /// The radius that counts as home when the owner has not set one.
    public static let defaultPresenceRadius = 100.0

    /// Makes an empty home with only its room for the entire home.
    public init(
        id: UUID,
        name: String,
        isPrimary: Bool = false,
        location: Location? = nil,
        timeZoneIdentifier: String = "UTC",
        roomForEntireHome: Room,
        rooms: [Room] = [],
        zones: [Zone] = [],
        accessories: [Accessory] = [],
        serviceGroups: [ServiceGroup] = [],
        actionSets: [ActionSet] = [],
        triggers: [Trigger] = [],
        users: [User] = []
    ) {
        self.id = id
        self.name = name
        self.isPrimary = isPrimary
        self.location = location
        self.timeZoneIdentifier = timeZoneIdentifier
        self.roomForEntireHome = roomForEntireHome
        self.rooms = rooms
        self.zones = zones
        self.accessories = ChunkedArray(accessories)
        self.serviceGroups = serviceGroups
        self.actionSets = actionSets
        self.triggers = ChunkedArray(triggers)
        self.users = users
    }

    /// The unit temperatures are said and shown in: ``temperatureUnit``, else Celsius.
    public var displayTemperatureUnit: TemperatureUnit { temperatureUnit ?? .celsius }

    /// The room for the entire home followed by every other room.
    public var allRooms: [Room] { [roomForEntireHome] + rooms }

    /// The room with `id`, including the room for the entire home.
    public func room(withID id: UUID) -> Room? {
        id == roomForEntireHome.id ? roomForEntireHome : rooms.first { $0.id == id }
    }

    /// The accessory with `id`, if the home has it.
    public func accessory(withID id: UUID) -> Accessory? {
        accessories.first { $0.id == id }
    }

    /// The accessories placed in the room `roomID`.
    public func accessories(inRoom roomID: UUID) -> [Accessory] {
        accessories.filter { $0.roomID == roomID }
    }
}

/// A unit of temperature people use.
public enum TemperatureUnit: String, Sendable, Equatable, Codable, CaseIterable {
    /// Degrees Celsius.
    case celsius
    /// Degrees Fahrenheit.
    case fahrenheit

    /// Reads the unit's name; any other text fails with a sentence that lists the allowed values.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let unit = Self(rawValue: text) else {
            let allowed = Self.allCases.map { "'\($0.rawValue)'" }.joined(separator: " or ")
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "it must be \(allowed)")
        }
        self = unit
    }
}

/// A point on Earth in degrees, for the sun's position.
public struct Location: Sendable, Equatable, Hashable, Codable {
    /// Degrees north of the equator, −90 to 90.
    public var latitude: Double
    /// Degrees east of Greenwich, −180 to 180.
    public var longitude: Double

    /// Makes a location from degrees of latitude and longitude.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether both coordinates are finite and in range.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}

/// A room of a home; every accessory is in exactly one room.
public struct Room: Sendable, Equatable, Codable, Identifiable {
    /// The room's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique within the home.
    public var name: String

    /// The name the room for the entire home gets when none is given.
    public static let defaultNameForEntireHome = "Default Room"

    /// Makes a room.
    public init(id: UUID, name: String) {
        self.id = id
        self.name = name
    }
}

/// A group of rooms ("Upstairs"); a room may be in any number of zones.
public struct Zone: Sendable, Equatable, Codable, Identifiable {
    /// The zone's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique within the home.
    public var name: String
    /// The rooms in the zone, in the order they were added.
    public var roomIDs: [UUID]

    /// Makes a zone of `roomIDs`.
    public init(id: UUID, name: String, roomIDs: [UUID] = []) {
        self.id = id
        self.name = name
        self.roomIDs = roomIDs
    }
}

/// A person who shares a home, and what they may do there.
public struct User: Sendable, Equatable, Codable, Identifiable {
    /// The user's identity, fixed for their life.
    public var id: UUID
    /// The name people see; need not be unique.
    public var name: String
    /// What the user may do in the home.
    public var role: UserRole
    /// Whether they are home and where they are, as they last reported; `nil` before any report.
    public var presence: Presence?

    /// Makes a user.
    public init(id: UUID, name: String, role: UserRole) {
        self.id = id
        self.name = name
        self.role = role
    }
}

/// What a user may do in a home; the hub enforces it.
public enum UserRole: String, Sendable, Equatable, Codable, CaseIterable {
    /// Made the home; configures everything. At most one per home.
    case owner
    /// Configures the home: adds, removes and renames, manages automations and users.
    case administrator
    /// Reads and controls (writes characteristics, runs scenes) but never configures.
    case shared

    /// Whether the role may change the home's configuration.
    public var mayConfigure: Bool { self != .shared }
}

/// Whether a user is home and where, as their device last reported it.
public struct Presence: Sendable, Equatable, Codable {
    /// Whether they are home.
    public var isHome: Bool
    /// Their position, when they reported one (kept to tell region entries from exits).
    public var position: Location?
    /// When they reported it.
    public var reportedAt: Date

    /// Makes a presence report.
    public init(isHome: Bool, position: Location? = nil, reportedAt: Date) {
        self.isHome = isHome
        self.position = position
        self.reportedAt = reportedAt
    }
}
