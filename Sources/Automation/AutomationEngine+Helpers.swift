import Foundation
import HAPTypes
import HomeGraph

// The engine's helpers: decision records, end events, the next time a definition waits for, and words for causes.
extension AutomationEngine {
    func append(_ decision: TriggerDecision, to state: inout TriggerState) {
        state.decisions.append(decision)
        if state.decisions.count > TriggerState.decisionLimit {
            state.decisions.removeFirst(state.decisions.count - TriggerState.decisionLimit)
        }
    }

    /// What an end event heard, when the trigger waits for its end.
    func endCause(
        of trigger: Trigger,
        _ id: UUID,
        _ old: HAPValue?,
        _ new: HAPValue,
        _ name: String
    ) -> String? {
        guard let end = trigger.definition.end, !end.events.isEmpty else { return nil }
        for event in end.events {
            switch event {
            case .characteristic(let eventID, let value) where eventID == id:
                if let value, !Values.same(value, new) { continue }
                return "\(name) became \(new)"
            case .threshold(let eventID, let min, let max) where eventID == id:
                if Values.inRange(new, min: min, max: max), !Values.inRange(old, min: min, max: max) {
                    return "\(name) entered \(Self.range(min, max))"
                }
            default: continue
            }
        }
        return nil
    }

    /// The next instant a timer, calendar or sun event of `definition` comes, after `date`.
    func nextTime(of definition: TriggerDefinition, after date: Date, clock: HomeClock, home: Home) -> Date? {
        var candidates: [Date] = []
        if let timer = definition.timer, let next = clock.nextFire(of: timer, after: date) { candidates.append(next) }
        for event in definition.events {
            switch event {
            case .calendar(let time, let weekdays):
                candidates.append(clock.nextCalendarTime(time, weekdays: weekdays, after: date))
            case .significantTime(let sun, let offset):
                guard let location = home.location,
                    let next = clock.nextSunTime(
                        sun,
                        offsetSeconds: offset,
                        latitude: location.latitude,
                        longitude: location.longitude,
                        after: date
                    )
                else { continue }
                candidates.append(next)
            default: continue
            }
        }
        return candidates.min()
    }

    /// Which time event came due at `due`, in words.
    func timeCause(of trigger: Trigger, due: Date, clock: HomeClock, location: Location?) -> String {
        let local = clock.local(due)
        if let timer = trigger.definition.timer {
            return "the timer (first \(timer.fireDate)) came due at \(local)"
        }
        for event in trigger.definition.events {
            switch event {
            case .calendar(let time, _)
            where clock.nextCalendarTime(time, weekdays: [], after: due.addingTimeInterval(-1)) == due:
                return "it was \(time)"
            case .significantTime(let sun, let offset):
                let point = TimePoint.sun(sun, offsetSeconds: offset)
                guard let location,
                    clock.nextSunTime(
                        sun,
                        offsetSeconds: offset,
                        latitude: location.latitude,
                        longitude: location.longitude,
                        after: due.addingTimeInterval(-1)
                    ) == due
                else { continue }
                return "it was \(point) (\(local.time))"
            default: continue
            }
        }
        return "the time came (\(local))"
    }

    /// The ids a user scope names in `home`.
    static func users(_ scope: UserScope, of trigger: Trigger, in home: Home) -> [UUID] {
        switch scope {
        case .currentUser: trigger.creatorID.map { [$0] } ?? []
        case .everyUser: home.users.map(\.id)
        case .users(let ids): ids
        }
    }

    /// Every instant a state waits for.
    static func deadlines(of state: TriggerState, definitionOf version: Version?) -> [Date] {
        var dates: [Date] = []
        if version?.isEnabled ?? false, let next = state.nextFire { dates.append(next) }
        if let due = state.pendingEnd?.due { dates.append(due) }
        if let version, version.isEnabled {
            for (offset, since) in state.holdingSince where !state.firedDurations.contains(offset) {
                guard offset < version.definition.events.count,
                    case .duration(_, let seconds) = version.definition.events[offset]
                else { continue }
                dates.append(since.addingTimeInterval(Double(seconds)))
            }
        }
        return dates
    }

    /// Characteristic types whose events carry no state (each report is an event): programmable switch presses.
    static let statelessTypes: Set<HAPUUID> = [HAPUUID(apple: 0x73)]

    static func range(_ min: Double?, _ max: Double?) -> String {
        switch (min, max) {
        case (let low?, let high?): "\(low)…\(high)"
        case (let low?, nil): "≥ \(low)"
        case (nil, let high?): "≤ \(high)"
        case (nil, nil): "any value"
        }
    }
}
