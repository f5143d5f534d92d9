import Foundation
import HAPTypes
import HearthAPI
import HomeGraph

// Types named and shaped like HomeKit's trigger classes, so an app written the HomeKit way compiles with small
// changes. Each is a thin value over HomeGraph's typed model (TriggerEvent, Condition, TriggerDefinition); see
// README.md "HomeKit-style triggers".

/// HomeKit's `HMActionSet`: a scene.
public typealias HMActionSet = ActionSet
/// HomeKit's `HMCharacteristicWriteAction`: one write of a scene.
public typealias HMCharacteristicWriteAction = Action
/// HomeKit's `HMSignificantEvent`: sunrise or sunset.
public typealias HMSignificantEvent = SunEvent

/// Anything an event trigger can listen for (HomeKit's `HMEvent`).
public protocol HMEvent: Sendable {
    /// The event in Hearth's model.
    var triggerEvent: TriggerEvent { get }
}

/// A characteristic becomes `triggerValue`, or changes at all when it is `nil` (HomeKit's `HMCharacteristicEvent`).
public struct HMCharacteristicEvent: HMEvent {
    /// The characteristic listened to.
    public var characteristic: Characteristic
    /// The value that fires; `nil`: any change.
    public var triggerValue: HAPValue?

    /// Makes the event.
    public init(characteristic: Characteristic, triggerValue: HAPValue?) {
        self.characteristic = characteristic
        self.triggerValue = triggerValue
    }

    /// The event in Hearth's model.
    public var triggerEvent: TriggerEvent { .characteristic(id: characteristic.id, value: triggerValue) }
}

/// A numeric characteristic enters a range (HomeKit's `HMCharacteristicThresholdRangeEvent`).
public struct HMCharacteristicThresholdRangeEvent: HMEvent {
    /// The characteristic listened to.
    public var characteristic: Characteristic
    /// The lower bound, `nil` for none.
    public var minValue: Double?
    /// The upper bound, `nil` for none.
    public var maxValue: Double?

    /// Makes the event; at least one bound must be given (checked when saved).
    public init(characteristic: Characteristic, minValue: Double?, maxValue: Double?) {
        self.characteristic = characteristic
        self.minValue = minValue
        self.maxValue = maxValue
    }

    /// The event in Hearth's model.
    public var triggerEvent: TriggerEvent { .threshold(id: characteristic.id, min: minValue, max: maxValue) }
}

/// Sunrise or sunset, moved by an offset (HomeKit's `HMSignificantTimeEvent`).
public struct HMSignificantTimeEvent: HMEvent {
    /// Sunrise or sunset.
    public var significantEvent: HMSignificantEvent
    /// The offset in minutes; negative: before.
    public var offsetMinutes: Int

    /// Makes the event.
    public init(significantEvent: HMSignificantEvent, offsetMinutes: Int = 0) {
        self.significantEvent = significantEvent
        self.offsetMinutes = offsetMinutes
    }

    /// The event in Hearth's model.
    public var triggerEvent: TriggerEvent { .significantTime(sun: significantEvent, offsetSeconds: offsetMinutes * 60) }

    /// The same sun point as a time for a predicate.
    var timePoint: TimePoint { .sun(significantEvent, offsetSeconds: offsetMinutes * 60) }
}

/// A time of day, every day or on given weekdays (HomeKit's `HMCalendarEvent`).
public struct HMCalendarEvent: HMEvent {
    /// The time of day.
    public var time: TimeOfDay
    /// The weekdays; empty: every day.
    public var weekdays: [Weekday]

    /// Makes the event at `hour`:`minute`.
    public init(hour: Int, minute: Int, weekdays: [Weekday] = []) {
        time = TimeOfDay(hour: hour, minute: minute)
        self.weekdays = weekdays
    }

    /// The event in Hearth's model.
    public var triggerEvent: TriggerEvent { .calendar(time: time, weekdays: weekdays) }
}

/// People arrive or leave (HomeKit's `HMPresenceEvent`).
public struct HMPresenceEvent: HMEvent {
    /// Every or first entry, every or last exit.
    public var presenceEventType: PresenceChange
    /// Whose presence: the current user, every user, or named users.
    public var presenceUserType: UserScope

    /// Makes the event.
    public init(presenceEventType: PresenceChange, presenceUserType: UserScope) {
        self.presenceEventType = presenceEventType
        self.presenceUserType = presenceUserType
    }

    /// The event in Hearth's model.
    public var triggerEvent: TriggerEvent { .presence(change: presenceEventType, users: presenceUserType) }
}

/// A predicate has held for a time (HomeKit's `HMDurationEvent`, which HomeKit uses with a predicate).
public struct HMDurationEvent: HMEvent {
    /// How long the predicate must hold, in seconds.
    public var duration: Int
    /// What must hold.
    public var predicate: HMPredicate

    /// Makes the event.
    public init(duration: Int, predicate: HMPredicate) {
        self.duration = duration
        self.predicate = predicate
    }

    /// The event in Hearth's model.
    public var triggerEvent: TriggerEvent { .duration(condition: predicate.condition, seconds: duration) }
}

/// A typed stand-in for the `NSPredicate`s HomeKit's triggers evaluate; combine with ``and(_:)``, ``or(_:)``,
/// ``not(_:)``.
public struct HMPredicate: Sendable, Equatable {
    /// The condition in Hearth's model.
    public var condition: Condition

    /// Wraps a condition.
    public init(_ condition: Condition) { self.condition = condition }

    /// Every one of `predicates` holds (`NSCompoundPredicate(andPredicateWithSubpredicates:)`).
    public static func and(_ predicates: [HMPredicate]) -> HMPredicate {
        HMPredicate(.all(predicates.map(\.condition)))
    }

    /// Any one of `predicates` holds.
    public static func or(_ predicates: [HMPredicate]) -> HMPredicate { HMPredicate(.any(predicates.map(\.condition))) }

    /// `predicate` does not hold.
    public static func not(_ predicate: HMPredicate) -> HMPredicate { HMPredicate(.not(predicate.condition)) }
}

/// A trigger fired by events, run when its predicate holds (HomeKit's `HMEventTrigger`).
public struct HMEventTrigger: Sendable {
    /// The trigger's name, unique in the home.
    public var name: String
    /// Any one of these fires it.
    public var events: [any HMEvent]
    /// What must hold when an event happens; `nil`: always.
    public var predicate: HMPredicate?
    /// The scenes it runs.
    public var actionSets: [HMActionSet]
    /// Turned off after its first firing.
    public var executeOnce: Bool

    /// Makes the trigger.
    public init(
        name: String,
        events: [any HMEvent],
        predicate: HMPredicate?,
        actionSets: [HMActionSet] = [],
        executeOnce: Bool = false
    ) {
        self.name = name
        self.events = events
        self.predicate = predicate
        self.actionSets = actionSets
        self.executeOnce = executeOnce
    }

    /// The definition in Hearth's model.
    public var definition: TriggerDefinition {
        var definition = TriggerDefinition(events: events.map(\.triggerEvent), condition: predicate?.condition)
        definition.executeOnce = executeOnce
        return definition
    }

    /// The time of day is after `event` (`predicateForEvaluatingTrigger(occurringAfter:)`).
    public static func predicateForEvaluatingTrigger(occurringAfter event: HMSignificantTimeEvent) -> HMPredicate {
        HMPredicate(.time(after: event.timePoint, before: nil))
    }

    /// The time of day is before `event` (`predicateForEvaluatingTrigger(occurringBefore:)`).
    public static func predicateForEvaluatingTrigger(occurringBefore event: HMSignificantTimeEvent) -> HMPredicate {
        HMPredicate(.time(after: nil, before: event.timePoint))
    }

    /// The time of day is after `hour`:`minute` (`predicateForEvaluatingTrigger(occurringAfter:)` with components).
    public static func predicateForEvaluatingTrigger(occurringAfterHour hour: Int, minute: Int) -> HMPredicate {
        HMPredicate(.time(after: .clock(TimeOfDay(hour: hour, minute: minute)), before: nil))
    }

    /// The time of day is before `hour`:`minute`.
    public static func predicateForEvaluatingTrigger(occurringBeforeHour hour: Int, minute: Int) -> HMPredicate {
        HMPredicate(.time(after: nil, before: .clock(TimeOfDay(hour: hour, minute: minute))))
    }

    /// `characteristic`'s value compares with `value` (`predicateForEvaluatingTrigger(_:relatedBy:toValue:)`).
    public static func predicateForEvaluatingTrigger(
        _ characteristic: Characteristic,
        relatedBy comparison: Comparison,
        toValue value: HAPValue
    ) -> HMPredicate {
        HMPredicate(.characteristic(id: characteristic.id, comparison: comparison, value: value))
    }

    /// Someone, no one, or a given user is at home (`predicateForEvaluatingTriggerWithPresence(_:)`).
    public static func predicateForEvaluatingTriggerWithPresence(_ presence: PresenceRequirement) -> HMPredicate {
        HMPredicate(.presence(presence))
    }
}

/// A trigger at a date, then by a recurrence (HomeKit's `HMTimerTrigger`).
public struct HMTimerTrigger: Sendable {
    /// The trigger's name, unique in the home.
    public var name: String
    /// The first firing, in the home's time zone.
    public var fireDate: LocalDateTime
    /// How it repeats; `nil`: once.
    public var recurrence: Recurrence?
    /// The scenes it runs.
    public var actionSets: [HMActionSet]

    /// Makes the trigger.
    public init(name: String, fireDate: LocalDateTime, recurrence: Recurrence? = nil, actionSets: [HMActionSet] = []) {
        self.name = name
        self.fireDate = fireDate
        self.recurrence = recurrence
        self.actionSets = actionSets
    }

    /// The definition in Hearth's model.
    public var definition: TriggerDefinition { .timer(fireDate, repeating: recurrence) }
}

extension HearthClient {
    /// Saves an event trigger (HomeKit's `HMHome.addTrigger(_:completionHandler:)`).
    public func addTrigger(_ trigger: HMEventTrigger, toHome homeID: UUID) async throws(HearthError) -> Created<Trigger>
    {
        try await addTrigger(
            named: trigger.name,
            actionSetIDs: trigger.actionSets.map(\.id),
            definition: trigger.definition,
            toHome: homeID
        )
    }

    /// Saves a timer trigger.
    public func addTrigger(_ trigger: HMTimerTrigger, toHome homeID: UUID) async throws(HearthError) -> Created<Trigger>
    {
        try await addTrigger(
            named: trigger.name,
            actionSetIDs: trigger.actionSets.map(\.id),
            definition: trigger.definition,
            toHome: homeID
        )
    }
}
