import Foundation
import HAPTypes

// The wire forms of the trigger model's enums without Swift's `_0` wrappers: one key naming the case, its value the
// case's payload. `{"all": [ … ]}`, `{"not": { … }}`, `{"presence": "anyone"}`, `{"presence": {"userHome": ID}}`,
// `{"weekdays": ["monday"]}`, `{"every": {"count": 2, "unit": "hour"}}`.

/// A coding key made from any string: the one key of a case.
struct CaseKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == CaseKey {
    /// The one key of a case object; a sentence naming the allowed keys otherwise.
    func onlyKey(of type: String, allowed: [String]) throws -> String {
        guard allKeys.count == 1, let key = allKeys.first?.stringValue, allowed.contains(key) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "a \(type) is an object with one of the keys \(allowed.joined(separator: ", "))"
                )
            )
        }
        return key
    }
}

extension Condition {
    private struct Time: Codable {
        var after: TimePoint?
        var before: TimePoint?
    }

    private struct Compare: Codable {
        var id: UUID
        var comparison: Comparison
        var value: HAPValue
    }

    private struct Seconds: Codable {
        var seconds: Int
    }

    private static let keys = ["all", "any", "not", "time", "characteristic", "presence", "notFiredWithin"]

    /// Reads `{"<case>": payload}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CaseKey.self)
        let key = try container.onlyKey(of: "condition", allowed: Self.keys)
        let name = CaseKey(key)
        switch key {
        case "all": self = .all(try container.decode([Condition].self, forKey: name))
        case "any": self = .any(try container.decode([Condition].self, forKey: name))
        case "not": self = .not(try container.decode(Condition.self, forKey: name))
        case "time":
            let time = try container.decode(Time.self, forKey: name)
            self = .time(after: time.after, before: time.before)
        case "characteristic":
            let compare = try container.decode(Compare.self, forKey: name)
            self = .characteristic(id: compare.id, comparison: compare.comparison, value: compare.value)
        case "presence": self = .presence(try container.decode(PresenceRequirement.self, forKey: name))
        default: self = .notFiredWithin(seconds: try container.decode(Seconds.self, forKey: name).seconds)
        }
    }

    /// Writes `{"<case>": payload}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CaseKey.self)
        switch self {
        case .all(let children): try container.encode(children, forKey: CaseKey("all"))
        case .any(let children): try container.encode(children, forKey: CaseKey("any"))
        case .not(let child): try container.encode(child, forKey: CaseKey("not"))
        case .time(let after, let before):
            try container.encode(Time(after: after, before: before), forKey: CaseKey("time"))
        case .characteristic(let id, let comparison, let value):
            try container.encode(
                Compare(id: id, comparison: comparison, value: value),
                forKey: CaseKey("characteristic")
            )
        case .presence(let requirement): try container.encode(requirement, forKey: CaseKey("presence"))
        case .notFiredWithin(let seconds):
            try container.encode(Seconds(seconds: seconds), forKey: CaseKey("notFiredWithin"))
        }
    }
}

extension PresenceRequirement {
    /// Reads `"anyone"`, `"noOne"`, `{"userHome": ID}` or `{"userAway": ID}`.
    public init(from decoder: any Decoder) throws {
        if let word = try? decoder.singleValueContainer().decode(String.self) {
            switch word {
            case "anyone": self = .anyone
            case "noOne": self = .noOne
            default:
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "presence is \"anyone\", \"noOne\", {\"userHome\": ID} or {\"userAway\": ID}"
                    )
                )
            }
            return
        }
        let container = try decoder.container(keyedBy: CaseKey.self)
        let key = try container.onlyKey(of: "presence requirement", allowed: ["userHome", "userAway"])
        let id = try container.decode(UUID.self, forKey: CaseKey(key))
        self = key == "userHome" ? .userHome(id) : .userAway(id)
    }

    /// Writes `"anyone"`, `"noOne"`, `{"userHome": ID}` or `{"userAway": ID}`.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .anyone, .noOne:
            var container = encoder.singleValueContainer()
            try container.encode(self == .anyone ? "anyone" : "noOne")
        case .userHome(let id), .userAway(let id):
            var container = encoder.container(keyedBy: CaseKey.self)
            try container.encode(id, forKey: CaseKey(self == .userHome(id) ? "userHome" : "userAway"))
        }
    }
}

extension Recurrence {
    private struct Every: Codable {
        var count: Int
        var unit: RecurrenceUnit
    }

    /// Reads `{"every": {"count": N, "unit": U}}`, `{"weekdays": [ … ]}` or `{"daysOfMonth": [ … ]}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CaseKey.self)
        let key = try container.onlyKey(of: "recurrence", allowed: ["every", "weekdays", "daysOfMonth"])
        switch key {
        case "every":
            let every = try container.decode(Every.self, forKey: CaseKey(key))
            self = .every(count: every.count, unit: every.unit)
        case "weekdays": self = .weekdays(try container.decode([Weekday].self, forKey: CaseKey(key)))
        default: self = .daysOfMonth(try container.decode([Int].self, forKey: CaseKey(key)))
        }
    }

    /// Writes the one-key form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CaseKey.self)
        switch self {
        case .every(let count, let unit):
            try container.encode(Every(count: count, unit: unit), forKey: CaseKey("every"))
        case .weekdays(let days): try container.encode(days, forKey: CaseKey("weekdays"))
        case .daysOfMonth(let days): try container.encode(days, forKey: CaseKey("daysOfMonth"))
        }
    }
}
