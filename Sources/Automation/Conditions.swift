import Foundation
import HAPTypes
import HomeGraph

/// What a condition sees: the home's values (with values just reported over them), its users, its clock.
struct Situation {
    /// The home as last committed.
    let home: Home
    /// The home's characteristics by id.
    let index: HomeIndex
    /// Values reported but not yet in `home`.
    let overrides: [UUID: HAPValue]
    /// Presence reported but not yet in `home`.
    let presence: [UUID: Presence]
    /// The home's wall clock.
    let clock: HomeClock
    /// Now.
    let now: Date

    /// The current value of a characteristic.
    func value(of id: UUID) -> HAPValue? {
        if let value = overrides[id] { return value }
        return index.characteristic(id, in: home)?.value
    }

    /// Whether `user` is home.
    func isHome(_ user: UUID) -> Bool {
        if let reported = presence[user] { return reported.isHome }
        return home.users.first { $0.id == user }?.presence?.isHome ?? false
    }

    /// The users who are home.
    var usersHome: [User] { home.users.filter { isHome($0.id) } }

    /// The instant of a time point today, or why there is none.
    func instant(of point: TimePoint) -> Result<Date, Refusal> {
        switch point {
        case .clock(let time):
            return .success(clock.instant(of: time, onDayOf: now))
        case .sun(let event, let offset):
            guard let location = home.location else {
                return .failure(Refusal("the home has no location, so \(event.rawValue) is unknown"))
            }
            switch clock.sunTime(
                event,
                offsetSeconds: offset,
                latitude: location.latitude,
                longitude: location.longitude,
                onDayOf: now
            ) {
            // As a clock time today, as a clock time is read: "sunrise-12h" is today's 19:48 when sunrise is at
            // 07:48, not yesterday's.
            case .at(let date): return .success(clock.instant(of: clock.local(date).time, onDayOf: now))
            case .polarDay: return .failure(Refusal("the sun does not set today (polar day)"))
            case .polarNight: return .failure(Refusal("the sun does not rise today (polar night)"))
            }
        }
    }
}

/// A reason, in words, that a condition could not be decided.
struct Refusal: Error {
    let sentence: String
    init(_ sentence: String) { self.sentence = sentence }
}

/// Evaluates condition trees, recording each leaf with what it saw.
struct ConditionEvaluator {
    let situation: Situation
    let lastFired: Date?
    private(set) var checks: [ConditionCheck] = []

    init(situation: Situation, lastFired: Date?) {
        self.situation = situation
        self.lastFired = lastFired
    }

    /// Whether `condition` holds now; every leaf tested is in `checks`.
    mutating func holds(_ condition: Condition) -> Bool {
        switch condition {
        case .all(let children):
            // Every leaf is recorded, so "why not" lists each failing part, not only the first.
            var result = true
            for child in children where !holds(child) { result = false }
            return result
        case .any(let children):
            var result = false
            for child in children where holds(child) { result = true }
            return result
        case .not(let child):
            return !holds(child)
        case .time(let after, let before):
            return timeHolds(after: after, before: before)
        case .characteristic(let id, let comparison, let value):
            let current = situation.value(of: id)
            let holds = current.map { Values.compare($0, comparison, value) } ?? false
            record(
                "\(situation.index.name(of: id, in: situation.home)) \(comparison.rawValue) \(value)",
                observed: current?.description ?? "no value yet",
                holds
            )
            return holds
        case .presence(let requirement):
            let home = situation.usersHome
            let names = home.isEmpty ? "nobody home" : home.map(\.name).joined(separator: ", ") + " home"
            let holds: Bool
            let text: String
            switch requirement {
            case .anyone: (holds, text) = (!home.isEmpty, "anyone home")
            case .noOne: (holds, text) = (home.isEmpty, "no one home")
            case .userHome(let id): (holds, text) = (situation.isHome(id), "\(userName(id)) home")
            case .userAway(let id): (holds, text) = (!situation.isHome(id), "\(userName(id)) away")
            }
            record(text, observed: names, holds)
            return holds
        case .notFiredWithin(let seconds):
            let holds = lastFired.map { situation.now.timeIntervalSince($0) >= Double(seconds) } ?? true
            let observed =
                lastFired.map { "last fired \(Int(situation.now.timeIntervalSince($0)))s ago" } ?? "never fired"
            record("not fired in the last \(seconds)s", observed: observed, holds)
            return holds
        }
    }

    private mutating func timeHolds(after: TimePoint?, before: TimePoint?) -> Bool {
        let text: String =
            switch (after, before) {
            case (let a?, let b?): "between \(a) and \(b)"
            case (let a?, nil): "after \(a)"
            case (nil, let b?): "before \(b)"
            case (nil, nil): "any time"
            }
        let observed = situation.clock.local(situation.now).time.description
        var start: Date?
        var end: Date?
        for (point, slot) in [(after, 0), (before, 1)] {
            guard let point else { continue }
            switch situation.instant(of: point) {
            case .success(let date): if slot == 0 { start = date } else { end = date }
            case .failure(let refusal):
                record(text, observed: "\(observed); \(refusal.sentence)", false)
                return false
            }
        }
        let now = situation.now
        let holds: Bool =
            switch (start, end) {
            case (let a?, let b?) where a <= b: a <= now && now < b
            case (let a?, let b?): now >= a || now < b
            case (let a?, nil): now >= a
            case (nil, let b?): now < b
            case (nil, nil): true
            }
        var seen = observed
        if let start { seen += ", \(text.hasPrefix("before") ? "" : "from ")\(situation.clock.local(start).time)" }
        if let end { seen += ", until \(situation.clock.local(end).time)" }
        record(text, observed: seen, holds)
        return holds
    }

    private func userName(_ id: UUID) -> String {
        situation.home.users.first { $0.id == id }?.name ?? "a removed user"
    }

    private mutating func record(_ condition: String, observed: String, _ holds: Bool) {
        checks.append(ConditionCheck(condition: condition, observed: observed, holds: holds))
    }
}

/// Comparing values whatever case they arrived in (a bool written as 1, an integer as 1.0).
enum Values {
    /// The value as a number: bools are 0 and 1.
    static func number(_ value: HAPValue) -> Double? {
        if case .bool(let flag) = value { return flag ? 1 : 0 }
        return value.numericValue
    }

    /// Whether two values are the same value.
    static func same(_ lhs: HAPValue, _ rhs: HAPValue) -> Bool {
        if let left = number(lhs), let right = number(rhs) { return left == right }
        return lhs == rhs
    }

    /// Whether `lhs` compares with `rhs`; ordering comparisons of non-numbers never hold.
    static func compare(_ lhs: HAPValue, _ comparison: Comparison, _ rhs: HAPValue) -> Bool {
        switch comparison {
        case .equal: return same(lhs, rhs)
        case .notEqual: return !same(lhs, rhs)
        default:
            guard let left = number(lhs), let right = number(rhs) else { return false }
            switch comparison {
            case .less: return left < right
            case .lessOrEqual: return left <= right
            case .greater: return left > right
            case .greaterOrEqual: return left >= right
            case .equal, .notEqual: return false
            }
        }
    }

    /// Whether a number is in `min...max` (open ends allowed).
    static func inRange(_ value: HAPValue?, min: Double?, max: Double?) -> Bool {
        guard let value, let number = number(value) else { return false }
        if let min, number < min { return false }
        if let max, number > max { return false }
        return true
    }
}
