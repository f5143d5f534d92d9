import Foundation

// A few constructors that make app code about triggers read like HomeKit's (`HMEventTrigger` with
// `HMCharacteristicEvent`s and predicates, `HMTimerTrigger`): the types themselves are HomeGraph's.

extension TriggerDefinition {
    /// An event trigger (HomeKit's `HMEventTrigger`): fires when any one of `events` happens and `condition` holds.
    public static func event(_ events: TriggerEvent..., if condition: Condition? = nil) -> TriggerDefinition {
        TriggerDefinition(events: events, condition: condition)
    }

    /// A timer trigger (HomeKit's `HMTimerTrigger`): at `fireDate` in the home's time zone, then by `recurrence`.
    public static func timer(
        _ fireDate: LocalDateTime,
        repeating recurrence: Recurrence? = nil,
        if condition: Condition? = nil
    ) -> TriggerDefinition {
        TriggerDefinition(timer: TimerSchedule(fireDate: fireDate, recurrence: recurrence), condition: condition)
    }
}

extension TriggerEvent {
    /// A characteristic event (HomeKit's `HMCharacteristicEvent`): `characteristic` becomes `value`, or changes
    /// at all when `value` is `nil`.
    public static func change(of characteristic: Characteristic, to value: HAPValue? = nil) -> TriggerEvent {
        .characteristic(id: characteristic.id, value: value)
    }

    /// A significant time event (HomeKit's `HMSignificantTimeEvent`): sunset moved by `minutes` (negative: before).
    public static func sunset(offsetMinutes minutes: Int = 0) -> TriggerEvent {
        .significantTime(sun: .sunset, offsetSeconds: minutes * 60)
    }

    /// A significant time event: sunrise moved by `minutes` (negative: before).
    public static func sunrise(offsetMinutes minutes: Int = 0) -> TriggerEvent {
        .significantTime(sun: .sunrise, offsetSeconds: minutes * 60)
    }
}

extension TimePoint {
    /// A clock time of the day: `.time(18, 0)`.
    public static func time(_ hour: Int, _ minute: Int) -> TimePoint {
        .clock(TimeOfDay(hour: hour, minute: minute))
    }
}

extension Condition {
    /// The time of day is after `point` (HomeKit's predicate for "after sunset").
    public static func after(_ point: TimePoint) -> Condition { .time(after: point, before: nil) }

    /// The time of day is before `point`.
    public static func before(_ point: TimePoint) -> Condition { .time(after: nil, before: point) }

    /// `characteristic`'s current value compares with `value` (HomeKit's characteristic predicate).
    public static func value(
        of characteristic: Characteristic,
        _ comparison: Comparison,
        _ value: HAPValue
    ) -> Condition {
        .characteristic(id: characteristic.id, comparison: comparison, value: value)
    }
}
