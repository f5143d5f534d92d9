import Foundation
import HAPTypes

/// Services from one or more accessories acted on together ("Reading Lamps").
public struct ServiceGroup: Sendable, Equatable, Codable, Identifiable {
    /// The group's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique within the home.
    public var name: String
    /// The services in the group, from any accessories of the home.
    public var serviceIDs: [UUID]

    /// Makes a service group.
    public init(id: UUID, name: String, serviceIDs: [UUID] = []) {
        self.id = id
        self.name = name
        self.serviceIDs = serviceIDs
    }
}

/// A scene: characteristic writes carried out together.
public struct ActionSet: Sendable, Equatable, Codable, Identifiable {
    /// The action set's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique within the home.
    public var name: String
    /// A built-in purpose, or made by a person.
    public var kind: ActionSetKind
    /// The writes, at most one per characteristic.
    public var actions: [Action]

    /// Makes an action set.
    public init(id: UUID, name: String, kind: ActionSetKind = .userDefined, actions: [Action] = []) {
        self.id = id
        self.name = name
        self.kind = kind
        self.actions = actions
    }
}

/// What an action set is for; a home has at most one of each built-in kind.
public enum ActionSetKind: String, Sendable, Equatable, Codable, CaseIterable {
    /// Run when people wake up.
    case wakeUp
    /// Run when people go to sleep.
    case sleep
    /// Run when the last person leaves.
    case homeDeparture
    /// Run when the first person comes home.
    case homeArrival
    /// Made by a person.
    case userDefined

    /// Whether the kind is one of the four built-in ones.
    public var isBuiltIn: Bool { self != .userDefined }
}

/// One write of an action set: set a characteristic to a value.
public struct Action: Sendable, Equatable, Codable {
    /// The characteristic written.
    public var characteristicID: UUID
    /// The value written, valid for the characteristic's metadata.
    public var targetValue: HAPValue

    /// Makes an action.
    public init(characteristicID: UUID, targetValue: HAPValue) {
        self.characteristicID = characteristicID
        self.targetValue = targetValue
    }
}

/// Something that runs action sets automatically: a timer, or events; conditions; an optional end.
public struct Trigger: Sendable, Equatable, Codable, Identifiable {
    /// The trigger's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique within the home.
    public var name: String
    /// Whether the trigger fires.
    public var isEnabled: Bool
    /// The action sets it runs.
    public var actionSetIDs: [UUID]
    /// What makes it fire, what must hold, and what follows.
    public var definition: TriggerDefinition
    /// The user who made it: the "current user" of its presence events; `nil` for one the hub made.
    public var creatorID: UUID?
    /// What the hub remembers between firings (last and next firing, pending end, recent decisions).
    public var state: TriggerState
    /// A remark about the trigger for people, such as why a migrated one is off.
    public var note: String?

    /// Makes a trigger.
    public init(
        id: UUID,
        name: String,
        isEnabled: Bool = true,
        actionSetIDs: [UUID] = [],
        definition: TriggerDefinition = TriggerDefinition(),
        creatorID: UUID? = nil,
        state: TriggerState = TriggerState(),
        note: String? = nil
    ) {
        self.id = id
        self.name = name
        self.isEnabled = isEnabled
        self.actionSetIDs = actionSetIDs
        self.definition = definition
        self.creatorID = creatorID
        self.state = state
        self.note = note
    }

    /// The note of a trigger stored before definitions were typed.
    public static let migratedNote =
        "This trigger was stored before triggers had typed definitions; it has no events and stays off until it is given some."

    private enum CodingKeys: String, CodingKey {
        case id, name, isEnabled, actionSetIDs, definition, creatorID, state, note
    }

    /// Reads a trigger; one stored before definitions were typed (an opaque `definition`) comes back with no
    /// events, turned off, with `migratedNote`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        isEnabled = try container.decode(Bool.self, forKey: .isEnabled)
        actionSetIDs = try container.decodeIfPresent([UUID].self, forKey: .actionSetIDs) ?? []
        creatorID = try container.decodeIfPresent(UUID.self, forKey: .creatorID)
        state = try container.decodeIfPresent(TriggerState.self, forKey: .state) ?? TriggerState()
        note = try container.decodeIfPresent(String.self, forKey: .note)
        if container.contains(.definition), (try? container.decode(String.self, forKey: .definition)) == nil {
            definition = try container.decode(TriggerDefinition.self, forKey: .definition)
        } else {
            // The old opaque blob (base64 text, or absent): nothing any code ever read.
            definition = TriggerDefinition()
            isEnabled = false
            note = Self.migratedNote
        }
    }
}

/// What makes a trigger fire (a timer, or any one of its events), what must hold, and what follows a firing.
public struct TriggerDefinition: Sendable, Equatable, Hashable, Codable {
    /// A timer trigger's schedule; `nil` for an event trigger.
    public var timer: TimerSchedule?
    /// An event trigger's events: any one fires it.
    public var events: [TriggerEvent]
    /// What must hold when it fires; `nil`: nothing.
    public var condition: Condition?
    /// What follows a firing: undo or other scenes, after a time or an event.
    public var end: TriggerEnd?
    /// Turn the trigger off after its first firing.
    public var executeOnce: Bool
    /// How late, in seconds, a firing missed while the hub was down may still run when it starts; 0: never.
    public var catchUpSeconds: Int

    /// Makes a definition.
    public init(
        timer: TimerSchedule? = nil,
        events: [TriggerEvent] = [],
        condition: Condition? = nil,
        end: TriggerEnd? = nil,
        executeOnce: Bool = false,
        catchUpSeconds: Int = 0
    ) {
        self.timer = timer
        self.events = events
        self.condition = condition
        self.end = end
        self.executeOnce = executeOnce
        self.catchUpSeconds = catchUpSeconds
    }

    /// Whether it has neither a timer nor events (a migrated trigger).
    public var isEmpty: Bool { timer == nil && events.isEmpty }

    private enum CodingKeys: String, CodingKey {
        case timer, events, condition, end, executeOnce, catchUpSeconds
    }

    /// Reads a definition; absent lists and flags take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timer = try container.decodeIfPresent(TimerSchedule.self, forKey: .timer)
        events = try container.decodeIfPresent([TriggerEvent].self, forKey: .events) ?? []
        condition = try container.decodeIfPresent(Condition.self, forKey: .condition)
        end = try container.decodeIfPresent(TriggerEnd.self, forKey: .end)
        executeOnce = try container.decodeIfPresent(Bool.self, forKey: .executeOnce) ?? false
        catchUpSeconds = try container.decodeIfPresent(Int.self, forKey: .catchUpSeconds) ?? 0
    }
}

/// What the hub remembers of a trigger between firings, stored so a restart carries on where it stopped.
public struct TriggerState: Sendable, Equatable, Codable {
    /// When it last ran its scenes.
    public var lastFired: Date?
    /// The next time it waits for (timer, calendar or sun time), as last computed.
    public var nextFire: Date?
    /// The end of its last firing, while it has not come.
    public var pendingEnd: PendingEnd?
    /// Per duration event (by its index in the events), since when its condition has held.
    public var holdingSince: [Int: Date]
    /// The duration events (by index) that fired since their condition began to hold: once per holding.
    public var firedDurations: [Int]
    /// Its recent decisions, oldest first, at most `decisionLimit`.
    public var decisions: [TriggerDecision]

    /// How many decisions a trigger keeps.
    public static let decisionLimit = 20

    /// This state updated by `update`.
    ///
    /// Its fields replace these, its decisions are added to these (in time order, the newest `decisionLimit`
    /// kept). The hub stores a trigger's new decisions only, not its whole history.
    public func merging(_ update: TriggerState) -> TriggerState {
        var merged = update
        merged.decisions = decisions + update.decisions
        if let last = decisions.last, let first = update.decisions.first, first.at < last.at {
            merged.decisions = merged.decisions.enumerated().sorted {
                ($0.element.at, $0.offset) < ($1.element.at, $1.offset)
            }
            .map(\.element)
        }
        if merged.decisions.count > Self.decisionLimit {
            merged.decisions.removeFirst(merged.decisions.count - Self.decisionLimit)
        }
        return merged
    }

    /// Makes a state.
    public init(
        lastFired: Date? = nil,
        nextFire: Date? = nil,
        pendingEnd: PendingEnd? = nil,
        holdingSince: [Int: Date] = [:],
        firedDurations: [Int] = [],
        decisions: [TriggerDecision] = []
    ) {
        self.lastFired = lastFired
        self.nextFire = nextFire
        self.pendingEnd = pendingEnd
        self.holdingSince = holdingSince
        self.firedDurations = firedDurations
        self.decisions = decisions
    }
}

/// The end of a firing still to come.
public struct PendingEnd: Sendable, Equatable, Codable {
    /// When the firing it ends happened.
    public var firedAt: Date
    /// When it comes by itself; `nil` when only an end event brings it.
    public var due: Date?
    /// For an undo: the values to write back.
    public var restore: [Action]

    /// Makes a pending end.
    public init(firedAt: Date, due: Date?, restore: [Action]) {
        self.firedAt = firedAt
        self.due = due
        self.restore = restore
    }
}

/// One decision of a trigger, kept so people can ask why it did or did not fire.
public struct TriggerDecision: Sendable, Equatable, Codable {
    /// What the decision was.
    public enum Outcome: String, Sendable, Equatable, Codable {
        /// Its conditions held and it ran its scenes.
        case fired
        /// It heard its event but did not run (a condition failed, or it was off…); `reason` says why.
        case skipped
        /// Its end came: it undid its writes or ran its end scenes.
        case ended
    }

    /// When it was decided.
    public var at: Date
    /// What happened, in words ("Front Door Lock Current State became 0").
    public var cause: String
    /// The outcome.
    public var outcome: Outcome
    /// Why it did not fire, in words; `nil` when it fired.
    public var reason: String?
    /// Whether this was a firing missed while the hub was down, run late on start.
    public var isCatchUp: Bool
    /// Each condition tested, with what it saw.
    public var conditions: [ConditionCheck]
    /// Each write it made and how it went.
    public var writes: [WriteRecord]

    /// Makes a decision record.
    public init(
        at: Date,
        cause: String,
        outcome: Outcome,
        reason: String? = nil,
        isCatchUp: Bool = false,
        conditions: [ConditionCheck] = [],
        writes: [WriteRecord] = []
    ) {
        self.at = at
        self.cause = cause
        self.outcome = outcome
        self.reason = reason
        self.isCatchUp = isCatchUp
        self.conditions = conditions
        self.writes = writes
    }
}

/// One condition as a decision tested it.
public struct ConditionCheck: Sendable, Equatable, Codable {
    /// The condition in words ("Hallway Motion Motion Detected == true").
    public var condition: String
    /// What it saw ("false", "19:42", "nobody home").
    public var observed: String
    /// Whether it held.
    public var holds: Bool

    /// Makes a check record.
    public init(condition: String, observed: String, holds: Bool) {
        self.condition = condition
        self.observed = observed
        self.holds = holds
    }
}

/// One write a trigger made and how it went.
public struct WriteRecord: Sendable, Equatable, Codable {
    /// The characteristic written.
    public var characteristicID: UUID
    /// The value written.
    public var value: HAPValue
    /// Why it failed, in words; `nil` when the accessory took it.
    public var error: String?

    /// Makes a write record.
    public init(characteristicID: UUID, value: HAPValue, error: String? = nil) {
        self.characteristicID = characteristicID
        self.value = value
        self.error = error
    }
}
