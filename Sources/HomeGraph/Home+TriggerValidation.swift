import Foundation
import HAPTypes

/// The checks of a trigger's definition: every part names its field when it is refused.
extension Home {
    /// The most events a trigger may listen to, and the most conditions in its tree.
    static let triggerEventLimit = 32
    static let conditionLimit = 64

    /// Checks a whole definition against the home (characteristics, users, action sets) and the rules of each part.
    func validate(_ definition: TriggerDefinition, creatorID: UUID?) throws(HomeGraphError) {
        if definition.timer != nil, !definition.events.isEmpty {
            throw .invalidTrigger(field: "timer", problem: "a trigger has a timer or events, not both")
        }
        if let timer = definition.timer { try validate(timer) }
        guard definition.events.count <= Self.triggerEventLimit else {
            throw .invalidTrigger(
                field: "events",
                problem: "a trigger listens to at most \(Self.triggerEventLimit) events"
            )
        }
        for (index, event) in definition.events.enumerated() {
            try validate(event, field: "events[\(index)]", creatorID: creatorID)
        }
        if let condition = definition.condition {
            guard condition.flattened.count <= Self.conditionLimit else {
                throw .invalidTrigger(field: "condition", problem: "at most \(Self.conditionLimit) conditions")
            }
            try validate(condition, field: "condition")
        }
        if let end = definition.end { try validate(end, creatorID: creatorID) }
        guard (0...86_400).contains(definition.catchUpSeconds) else {
            throw .invalidTrigger(field: "catchUpSeconds", problem: "the catch-up window must be 0 to 86400 seconds")
        }
    }

    private func validate(_ timer: TimerSchedule) throws(HomeGraphError) {
        guard timer.fireDate.isValid else {
            throw .invalidTrigger(field: "timer.fireDate", problem: "not a real date and time")
        }
        switch timer.recurrence {
        case nil: break
        case .every(let count, let unit):
            let limit = unit == .minute ? 525_600 : 10_000
            guard (1...limit).contains(count) else {
                throw .invalidTrigger(
                    field: "timer.recurrence.every.count",
                    problem: "repeat every 1 to \(limit) \(unit.rawValue)s"
                )
            }
        case .weekdays(let days):
            guard !days.isEmpty else {
                throw .invalidTrigger(field: "timer.recurrence.weekdays", problem: "name at least one weekday")
            }
            guard Set(days).count == days.count else {
                throw .invalidTrigger(field: "timer.recurrence.weekdays", problem: "a weekday is named twice")
            }
        case .daysOfMonth(let days):
            guard !days.isEmpty, days.allSatisfy({ (1...31).contains($0) }) else {
                throw .invalidTrigger(
                    field: "timer.recurrence.daysOfMonth",
                    problem: "name at least one day of the month, each 1 to 31"
                )
            }
        }
    }

    private func validate(_ end: TriggerEnd, creatorID: UUID?) throws(HomeGraphError) {
        if let after = end.afterSeconds, !(1...86_400).contains(after) {
            throw .invalidTrigger(field: "end.afterSeconds", problem: "the end comes 1 to 86400 seconds after a firing")
        }
        guard end.afterSeconds != nil || !end.events.isEmpty else {
            throw .invalidTrigger(field: "end", problem: "an end needs a delay (afterSeconds) or at least one event")
        }
        guard end.events.count <= Self.triggerEventLimit else {
            throw .invalidTrigger(field: "end.events", problem: "at most \(Self.triggerEventLimit) events")
        }
        for (index, event) in end.events.enumerated() {
            try validate(event, field: "end.events[\(index)]", creatorID: creatorID)
        }
        for (offset, id) in end.actionSetIDs.enumerated() where !actionSets.contains(where: { $0.id == id }) {
            throw .invalidTrigger(
                field: "end.actionSetIDs[\(offset)]",
                problem: "the home has no action set with id \(id.uuidString)"
            )
        }
    }

    private func validate(_ event: TriggerEvent, field: String, creatorID: UUID?) throws(HomeGraphError) {
        switch event {
        case .characteristic(let id, let value):
            let characteristic = try eventCharacteristic(id, field: field + ".id")
            if let value {
                do {
                    _ = try validatedValue(value, for: characteristic, isWrite: false)
                } catch {
                    throw .invalidTrigger(field: field + ".value", problem: valueProblem(error))
                }
            }
        case .threshold(let id, let min, let max):
            let characteristic = try eventCharacteristic(id, field: field + ".id")
            guard characteristic.format.isNumeric else {
                throw .invalidTrigger(
                    field: field + ".id",
                    problem: "a threshold needs a numeric characteristic; this one is \(characteristic.format.rawValue)"
                )
            }
            guard min != nil || max != nil else {
                throw .invalidTrigger(field: field, problem: "a threshold needs a min, a max or both")
            }
            for (name, bound) in [("min", min), ("max", max)] {
                guard let bound else { continue }
                guard bound.isFinite else { throw .invalidTrigger(field: "\(field).\(name)", problem: "not a number") }
                if let low = characteristic.metadata.minValue, bound < low {
                    throw .invalidTrigger(
                        field: "\(field).\(name)",
                        problem: "\(bound) is below the characteristic's minimum \(low)"
                    )
                }
                if let high = characteristic.metadata.maxValue, bound > high {
                    throw .invalidTrigger(
                        field: "\(field).\(name)",
                        problem: "\(bound) is above the characteristic's maximum \(high)"
                    )
                }
            }
            if let min, let max, min > max {
                throw .invalidTrigger(field: field, problem: "min \(min) is above max \(max)")
            }
        case .calendar(let time, let weekdays):
            guard time.isValid else { throw .invalidTrigger(field: field + ".time", problem: "not a time of day") }
            guard Set(weekdays).count == weekdays.count else {
                throw .invalidTrigger(field: field + ".weekdays", problem: "a weekday is named twice")
            }
        case .significantTime(_, let offset):
            try validateOffset(offset, field: field + ".offsetSeconds")
        case .presence(_, let users):
            try validate(users, field: field + ".users", creatorID: creatorID)
        case .location(let region, _, let users):
            try validate(region, field: field + ".region")
            try validate(users, field: field + ".users", creatorID: creatorID)
        case .duration(let condition, let seconds):
            guard (1...604_800).contains(seconds) else {
                throw .invalidTrigger(field: field + ".seconds", problem: "a duration is 1 to 604800 seconds (a week)")
            }
            for part in condition.flattened {
                switch part {
                case .time, .notFiredWithin:
                    throw .invalidTrigger(
                        field: field + ".condition",
                        problem: "a duration holds on characteristics and presence only, not on time or firings"
                    )
                default: break
                }
            }
            try validate(condition, field: field + ".condition")
        }
    }

    /// A characteristic an event listens to: it must exist in the home and send events.
    private func eventCharacteristic(_ id: UUID, field: String) throws(HomeGraphError) -> Characteristic {
        let characteristic = try triggerCharacteristic(id, field: field)
        guard characteristic.permissions.contains(.notify) else {
            throw .invalidTrigger(
                field: field,
                problem:
                    "\((ValueError.displayName(of: characteristic.type) ?? "This characteristic")) does not send events, so it cannot trigger"
            )
        }
        return characteristic
    }

    private func triggerCharacteristic(_ id: UUID, field: String) throws(HomeGraphError) -> Characteristic {
        guard let path = try? characteristicPath(id) else {
            throw .invalidTrigger(field: field, problem: "the home has no characteristic with id \(id.uuidString)")
        }
        return self[path]
    }

    private func validate(_ users: UserScope, field: String, creatorID: UUID?) throws(HomeGraphError) {
        switch users {
        case .everyUser: break
        case .currentUser:
            guard let creatorID, self.users.contains(where: { $0.id == creatorID }) else {
                throw .invalidTrigger(
                    field: field,
                    problem: "only a trigger a user makes can be about the current user"
                )
            }
        case .users(let ids):
            guard !ids.isEmpty else { throw .invalidTrigger(field: field, problem: "name at least one user") }
            for id in ids where !self.users.contains(where: { $0.id == id }) {
                throw .invalidTrigger(field: field, problem: "the home has no user with id \(id.uuidString)")
            }
        }
    }

    private func validate(_ region: Region, field: String) throws(HomeGraphError) {
        // The rules of every other name: something visible, no control or bidi characters, at most 64 characters.
        if let problem = Names.problem(with: Names.normalized(region.name)) {
            throw .invalidTrigger(field: field + ".name", problem: problem.sentence)
        }
        guard region.center.isValid else {
            throw .invalidTrigger(
                field: field + ".center",
                problem: "latitude must be -90 to 90, longitude -180 to 180"
            )
        }
        guard region.radius.isFinite, Region.radiusRange.contains(region.radius) else {
            throw .invalidTrigger(field: field + ".radius", problem: "the radius must be 10 to 100000 metres")
        }
    }

    private func validateOffset(_ offset: Int, field: String) throws(HomeGraphError) {
        guard (-43_200...43_200).contains(offset) else {
            throw .invalidTrigger(
                field: field,
                problem: "an offset from sunrise or sunset is at most 12 hours either way"
            )
        }
    }

    private func validate(_ condition: Condition, field: String) throws(HomeGraphError) {
        switch condition {
        case .all(let children), .any(let children):
            let name = if case .all = condition { "all" } else { "any" }
            guard !children.isEmpty else { throw .invalidTrigger(field: field + "." + name, problem: "empty list") }
            for (index, child) in children.enumerated() { try validate(child, field: "\(field).\(name)[\(index)]") }
        case .not(let child):
            try validate(child, field: field + ".not")
        case .time(let after, let before):
            guard after != nil || before != nil else {
                throw .invalidTrigger(field: field + ".time", problem: "give after, before or both")
            }
            for (name, point) in [("after", after), ("before", before)] {
                guard case .sun(_, let offset)? = point else { continue }
                try validateOffset(offset, field: "\(field).time.\(name)")
            }
        case .characteristic(let id, let comparison, let value):
            let characteristic = try triggerCharacteristic(id, field: field + ".characteristic.id")
            guard characteristic.permissions.contains(.read) || characteristic.permissions.contains(.notify) else {
                throw .invalidTrigger(
                    field: field + ".characteristic.id",
                    problem:
                        "\((ValueError.displayName(of: characteristic.type) ?? "This characteristic")) cannot be read"
                )
            }
            if comparison.isOrdering, !characteristic.format.isNumeric {
                throw .invalidTrigger(
                    field: field + ".characteristic.comparison",
                    problem: "\(comparison.rawValue) needs a numeric characteristic; use == or !="
                )
            }
            do {
                _ = try validatedValue(value, for: characteristic, isWrite: false)
            } catch {
                throw .invalidTrigger(field: field + ".characteristic.value", problem: valueProblem(error))
            }
        case .presence(let requirement):
            switch requirement {
            case .anyone, .noOne: break
            case .userHome(let id), .userAway(let id):
                guard users.contains(where: { $0.id == id }) else {
                    throw .invalidTrigger(
                        field: field + ".presence",
                        problem: "the home has no user with id \(id.uuidString)"
                    )
                }
            }
        case .notFiredWithin(let seconds):
            guard (1...2_592_000).contains(seconds) else {
                throw .invalidTrigger(field: field + ".notFiredWithin", problem: "1 to 2592000 seconds (30 days)")
            }
        }
    }

    /// A sentence for a value the characteristic's metadata refuses.
    private func valueProblem(_ error: HomeGraphError) -> String {
        if case .invalidValue(let valueError, let type) = error {
            return valueError.message(naming: ValueError.displayName(of: type))
        }
        return "\(error.code)"
    }
}
