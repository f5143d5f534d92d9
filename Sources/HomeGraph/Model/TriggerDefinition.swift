import Foundation
import HAPTypes

/// Something that happens and may fire an event trigger.
public enum TriggerEvent: Sendable, Equatable, Hashable, Codable {
    /// A characteristic becomes `value`, or changes at all when `value` is `nil` (a programmable switch's press is
    /// an event without state: each press is a change).
    case characteristic(id: UUID, value: HAPValue?)
    /// A numeric characteristic enters the range `min...max` (either bound may be open), from outside it.
    case threshold(id: UUID, min: Double?, max: Double?)
    /// A clock time, every day or on the given weekdays.
    case calendar(time: TimeOfDay, weekdays: [Weekday])
    /// Sunrise or sunset, moved by `offsetSeconds` (negative: before), at most 12 hours either way.
    case significantTime(sun: SunEvent, offsetSeconds: Int)
    /// Users of the home arrive or leave.
    case presence(change: PresenceChange, users: UserScope)
    /// A user's reported position enters or leaves a region.
    case location(region: Region, transition: RegionTransition, users: UserScope)
    /// A condition on characteristics or presence has held for `seconds` ("no motion for 10 minutes").
    case duration(condition: Condition, seconds: Int)
}

extension TriggerEvent {
    /// The keys of an event's wire form, `{"<key>": payload}`, one a case, for the sentences that list them.
    public static let caseKeys = [
        "characteristic", "threshold", "calendar", "significantTime", "presence", "location", "duration",
    ]
}

/// Which presence changes fire a presence event.
public enum PresenceChange: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Every arrival of one of the users.
    case everyEntry
    /// Every departure of one of the users.
    case everyExit
    /// An arrival when none of the users was home.
    case firstEntry
    /// A departure that leaves none of the users home.
    case lastExit
}

/// Whom a presence or location event is about.
public enum UserScope: Sendable, Equatable, Hashable, Codable {
    /// The user who made the trigger.
    case currentUser
    /// Every user of the home.
    case everyUser
    /// The users named by id.
    case users([UUID])

    private enum Kind: String, Codable { case currentUser, everyUser }

    /// Reads `"currentUser"`, `"everyUser"` or an array of user ids.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let ids = try? container.decode([UUID].self) {
            self = .users(ids)
            return
        }
        guard let kind = try? container.decode(Kind.self) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "users must be \"currentUser\", \"everyUser\" or an array of user ids"
                )
            )
        }
        self = kind == .currentUser ? .currentUser : .everyUser
    }

    /// Writes `"currentUser"`, `"everyUser"` or an array of user ids.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .currentUser: try container.encode(Kind.currentUser)
        case .everyUser: try container.encode(Kind.everyUser)
        case .users(let ids): try container.encode(ids)
        }
    }
}

/// A circle on the map: a named place a user's position can enter or leave.
public struct Region: Sendable, Equatable, Hashable, Codable {
    /// The name people see ("Office").
    public var name: String
    /// The centre.
    public var center: Location
    /// The radius in metres, 10 to 100 000.
    public var radius: Double

    /// Makes a region.
    public init(name: String, center: Location, radius: Double) {
        self.name = name
        self.center = center
        self.radius = radius
    }

    /// The allowed radii in metres.
    public static let radiusRange: ClosedRange<Double> = 10...100_000

    /// Whether `position` is inside the circle (great-circle distance).
    public func contains(_ position: Location) -> Bool { center.distance(to: position) <= radius }
}

extension Location {
    /// The great-circle distance to `other` in metres (haversine, mean Earth radius).
    public func distance(to other: Location) -> Double {
        let radians = Double.pi / 180
        let dLat = (other.latitude - latitude) * radians
        let dLon = (other.longitude - longitude) * radians
        let a =
            sin(dLat / 2) * sin(dLat / 2)
            + cos(latitude * radians) * cos(other.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 6_371_008.8 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

/// Entering or leaving a region.
public enum RegionTransition: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// The position moves from outside to inside.
    case entry
    /// The position moves from inside to outside.
    case exit
}

/// A point of the day: a clock time, or sunrise or sunset moved by an offset.
///
/// Its text form is what people write: `18:00`, `sunset`, `sunset-30m`, `sunrise+1h15m`, `sunrise+90s`.
public enum TimePoint: Sendable, Equatable, Hashable, TextCodable {
    /// A clock time.
    case clock(TimeOfDay)
    /// Sunrise or sunset plus `offsetSeconds` (negative: before).
    case sun(SunEvent, offsetSeconds: Int)

    /// Reads the text form; `nil` for anything else.
    public init?(_ text: String) {
        if let time = TimeOfDay(text) {
            self = .clock(time)
            return
        }
        for event in SunEvent.allCases where text.hasPrefix(event.rawValue) {
            let rest = text.dropFirst(event.rawValue.count)
            if rest.isEmpty {
                self = .sun(event, offsetSeconds: 0)
                return
            }
            guard let sign = rest.first, sign == "+" || sign == "-",
                let seconds = DurationText.seconds(rest.dropFirst())
            else { return nil }
            self = .sun(event, offsetSeconds: sign == "-" ? -seconds : seconds)
            return
        }
        return nil
    }

    /// The text form.
    public var description: String {
        switch self {
        case .clock(let time): return time.description
        case .sun(let event, let offset):
            guard offset != 0 else { return event.rawValue }
            return event.rawValue + (offset < 0 ? "-" : "+") + DurationText.text(abs(offset))
        }
    }

    /// Reads the text form.
    public init?(textForm text: String) { self.init(text) }

    /// What the text form looks like.
    public static let textFormHint =
        "a time point: a clock time (18:00) or sunrise/sunset with an optional offset (sunset-30m)"
}

/// How a characteristic's value is compared with a given one.
public enum Comparison: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Equal.
    case equal = "=="
    /// Not equal.
    case notEqual = "!="
    /// Less than (numbers).
    case less = "<"
    /// Less than or equal (numbers).
    case lessOrEqual = "<="
    /// Greater than (numbers).
    case greater = ">"
    /// Greater than or equal (numbers).
    case greaterOrEqual = ">="

    /// Whether the comparison needs numbers (orders values).
    public var isOrdering: Bool { self != .equal && self != .notEqual }
}

/// Who must be home for a presence condition.
public enum PresenceRequirement: Sendable, Equatable, Hashable, Codable {
    /// At least one user of the home is home.
    case anyone
    /// No user of the home is home.
    case noOne
    /// The given user is home.
    case userHome(UUID)
    /// The given user is away.
    case userAway(UUID)
}

/// A test that must hold for a trigger to run its scenes; combined with all / any / not.
public indirect enum Condition: Sendable, Equatable, Hashable, Codable {
    /// Every one holds (an empty list holds).
    case all([Condition])
    /// At least one holds.
    case any([Condition])
    /// The condition does not hold.
    case not(Condition)
    /// The time of day is after `after` and/or before `before` (both: between; when `after` is later than `before`
    /// the span crosses midnight).
    case time(after: TimePoint?, before: TimePoint?)
    /// The characteristic's current value compares with `value`.
    case characteristic(id: UUID, comparison: Comparison, value: HAPValue)
    /// Who is home.
    case presence(PresenceRequirement)
    /// The trigger has not fired in the last `seconds`.
    case notFiredWithin(seconds: Int)

    /// Every condition in the tree, this one included, depth first.
    public var flattened: [Condition] {
        switch self {
        case .all(let children), .any(let children): [self] + children.flatMap(\.flattened)
        case .not(let child): [self] + child.flattened
        default: [self]
        }
    }
}

/// What happens after a trigger fired: its writes undone, or other scenes run, after a time or an event.
public struct TriggerEnd: Sendable, Equatable, Hashable, Codable {
    /// Seconds after the firing; `nil` when only `events` end it.
    public var afterSeconds: Int?
    /// Events that end it early (or alone, with no delay).
    public var events: [TriggerEvent]
    /// The scenes to run at the end; empty: undo, writing back the values the trigger's writes replaced.
    public var actionSetIDs: [UUID]

    /// Makes an end.
    public init(afterSeconds: Int? = nil, events: [TriggerEvent] = [], actionSetIDs: [UUID] = []) {
        self.afterSeconds = afterSeconds
        self.events = events
        self.actionSetIDs = actionSetIDs
    }

    private enum CodingKeys: String, CodingKey { case afterSeconds, events, actionSetIDs }

    /// Reads an end; absent lists are empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        afterSeconds = try container.decodeIfPresent(Int.self, forKey: .afterSeconds)
        events = try container.decodeIfPresent([TriggerEvent].self, forKey: .events) ?? []
        actionSetIDs = try container.decodeIfPresent([UUID].self, forKey: .actionSetIDs) ?? []
    }
}
