import Foundation
import HAPTypes
import HomeGraph

/// What the hub must carry out for one trigger after a decision, and the trigger's state to remember.
public struct AutomationOutcome: Sendable, Equatable {
    /// What to run.
    public enum Run: Sendable, Equatable {
        /// Run the scenes; with `captureUndo`, remember the values they replace, for the end to write back.
        case fire(actionSetIDs: [UUID], captureUndo: Bool)
        /// The end of a firing: write back `restore`, or run `actionSetIDs`.
        case end(restore: [Action], actionSetIDs: [UUID])
    }

    /// The home.
    public var homeID: UUID
    /// The trigger.
    public var triggerID: UUID
    /// What to run; `nil` when the decision runs nothing (a condition failed, a duration began).
    public var run: Run?
    /// Whether to turn the trigger off (it executes once).
    public var turnOff: Bool
    /// The trigger's state after the decision.
    public var state: TriggerState
    /// The decision this outcome records, if it records one (a duration beginning records none).
    public var decision: TriggerDecision?

    /// Makes an outcome.
    public init(
        homeID: UUID,
        triggerID: UUID,
        run: Run? = nil,
        turnOff: Bool = false,
        state: TriggerState,
        decision: TriggerDecision? = nil
    ) {
        self.homeID = homeID
        self.triggerID = triggerID
        self.run = run
        self.turnOff = turnOff
        self.state = state
        self.decision = decision
    }

    /// What to store: the state's fields and only this outcome's decision (`TriggerState.merging(_:)`).
    public var stateToStore: TriggerState {
        var update = state
        update.decisions = decision.map { [$0] } ?? []
        return update
    }
}

/// The evaluation engine: which triggers an event or a time reaches, whether their conditions hold, what they run.
///
/// Pure: the hub gives it the home, what happened and the time, and carries out the outcomes. It keeps the
/// triggers' states (the hub stores each outcome's state) and an index per home, rebuilt by `load(_:now:isStart:)`
/// when a home's triggers or accessories change; an event costs a dictionary lookup and the work of its listeners,
/// however many other triggers the home has.
public struct AutomationEngine: Sendable {
    /// What the engine knows of a home between loads: read while deciding, never written then.
    struct HomeAutomation: Sendable {
        var index: HomeIndex
        var clock: HomeClock
        /// The definition and on/off state each remembered state belongs to.
        var versions: [UUID: Version]
    }

    struct Version: Sendable, Equatable {
        var definition: TriggerDefinition
        var isEnabled: Bool
    }

    private var homes: [UUID: HomeAutomation] = [:]
    /// The triggers' states per home, apart from `homes`: holding a home's index while writing a state must not
    /// make the state dictionary shared (a write would copy all of it).
    private var states: [UUID: [UUID: TriggerState]] = [:]
    /// Per home, the earliest time each trigger waits for, kept as states change.
    private var deadlines: [UUID: [UUID: Date]] = [:]

    /// Makes an engine that knows no home.
    public init() {}

    /// The value `home` holds for one of its characteristics (found through the index, not a scan).
    public func value(of characteristicID: UUID, in home: Home) -> HAPValue? {
        homes[home.id]?.index.characteristic(characteristicID, in: home)?.value
    }

    /// The state the engine holds for a trigger.
    public func state(ofTrigger triggerID: UUID, inHome homeID: UUID) -> TriggerState? {
        states[homeID]?[triggerID]
    }

    /// Remembers a trigger's state and the earliest time it now waits for.
    private mutating func remember(_ state: TriggerState, of triggerID: UUID, inHome homeID: UUID) {
        states[homeID, default: [:]][triggerID] = state
        let version = homes[homeID]?.versions[triggerID]
        deadlines[homeID, default: [:]][triggerID] = Self.deadlines(of: state, definitionOf: version).min()
    }

    /// Indexes `home` again and arms what waits for a time.
    ///
    /// Keeps the states of triggers whose definition did not change. With `isStart` (the hub starting), firings missed while it was down are run when inside the
    /// trigger's catch-up window and recorded as missed otherwise.
    public mutating func load(_ home: Home, now: Date, isStart: Bool) -> [AutomationOutcome] {
        let previous = homes[home.id]
        let previousStates = states.removeValue(forKey: home.id) ?? [:]
        var loaded: [UUID: TriggerState] = [:]
        var versions: [UUID: Version] = [:]
        var fresh: [UUID] = []
        for trigger in home.triggers {
            let version = Version(definition: trigger.definition, isEnabled: trigger.isEnabled)
            versions[trigger.id] = version
            if let previous, previous.versions[trigger.id] == version, let state = previousStates[trigger.id] {
                loaded[trigger.id] = state
            } else {
                loaded[trigger.id] = trigger.state
                fresh.append(trigger.id)
            }
        }
        let timeZone = TimeZone(identifier: home.timeZoneIdentifier) ?? TimeZone(secondsFromGMT: 0) ?? .current
        let clock =
            previous?.clock.timeZone == timeZone
            ? previous?.clock ?? HomeClock(timeZone: timeZone)
            : HomeClock(timeZone: timeZone)
        homes[home.id] = HomeAutomation(index: HomeIndex(home, states: loaded), clock: clock, versions: versions)
        deadlines[home.id] = [:]
        for (triggerID, state) in loaded { remember(state, of: triggerID, inHome: home.id) }
        var outcomes: [AutomationOutcome] = []
        let armed = isStart ? home.triggers.map(\.id) : fresh
        for triggerID in armed {
            guard let trigger = homes[home.id]?.index.trigger(triggerID, in: home) else { continue }
            outcomes += arm(trigger, in: home, now: now, isStart: isStart)
        }
        return outcomes
    }

    /// Forgets a removed home.
    public mutating func forget(home homeID: UUID) {
        homes[homeID] = nil
        states[homeID] = nil
        deadlines[homeID] = nil
    }

    /// The earliest time any trigger of `homeID` waits for.
    public func nextWake(home homeID: UUID) -> Date? {
        deadlines[homeID]?.values.min()
    }

    /// The earliest time any home waits for.
    public var nextWake: Date? {
        deadlines.values.compactMap { $0.values.min() }.min()
    }

    // MARK: Events

    /// A characteristic of `home` reported `new` (changed or not: a programmable switch repeats its value).
    ///
    /// `old` is the value before. `pending` holds other values reported but not yet in `home`. A value that was
    /// read (`isEvent` false) is a change only if it differs: reading a switch's last press is not a press.
    public mutating func valueReported(
        _ characteristicID: UUID,
        old: HAPValue?,
        new: HAPValue,
        in home: Home,
        now: Date,
        pending: [UUID: HAPValue] = [:],
        isEvent: Bool = true
    ) -> [AutomationOutcome] {
        guard let automation = homes[home.id], let listeners = automation.index.listeners[characteristicID] else {
            return []
        }
        var overrides = pending
        overrides[characteristicID] = new
        let situation = Situation(
            home: home,
            index: automation.index,
            overrides: overrides,
            presence: [:],
            clock: automation.clock,
            now: now
        )
        let characteristic = automation.index.characteristic(characteristicID, in: home)
        let isStateless =
            isEvent
            && (characteristic.map { !$0.permissions.contains(.read) || Self.statelessTypes.contains($0.type) } ?? false)
        let changed = old.map { !Values.same($0, new) } ?? true
        let name = automation.index.name(of: characteristicID, in: home)
        var outcomes: [AutomationOutcome] = []
        for triggerID in listeners {
            guard let trigger = automation.index.trigger(triggerID, in: home) else { continue }
            var cause: String?
            if trigger.isEnabled {
                for event in trigger.definition.events {
                    switch event {
                    case .characteristic(let id, let value) where id == characteristicID:
                        guard changed || isStateless else { continue }
                        if let value, !Values.same(value, new) { continue }
                        cause = changed ? "\(name) became \(new)" : "\(name) reported \(new)"
                    case .threshold(let id, let min, let max) where id == characteristicID:
                        if Values.inRange(new, min: min, max: max), !Values.inRange(old, min: min, max: max) {
                            cause = "\(name) entered \(Self.range(min, max)) at \(new)"
                        }
                    default: continue
                    }
                    if cause != nil { break }
                }
            }
            outcomes += react(
                to: trigger,
                cause: cause,
                endCause: endCause(of: trigger, characteristicID, old, new, name),
                situation: situation
            )
        }
        return outcomes
    }

    /// A user of `home` reported presence `new` (`old` before).
    public mutating func presenceReported(
        user userID: UUID,
        old: Presence?,
        new: Presence,
        in home: Home,
        now: Date
    ) -> [AutomationOutcome] {
        guard let automation = homes[home.id], !automation.index.presenceListeners.isEmpty else { return [] }
        let situation = Situation(
            home: home,
            index: automation.index,
            overrides: [:],
            presence: [userID: new],
            clock: automation.clock,
            now: now
        )
        let userName = home.users.first { $0.id == userID }?.name ?? "someone"
        let wasHome = old?.isHome ?? false
        var outcomes: [AutomationOutcome] = []
        for triggerID in automation.index.presenceListeners {
            guard let trigger = automation.index.trigger(triggerID, in: home) else { continue }
            func matches(_ event: TriggerEvent) -> String? {
                switch event {
                case .presence(let change, let users):
                    let scope = Self.users(users, of: trigger, in: home)
                    guard scope.contains(userID), wasHome != new.isHome else { return nil }
                    let othersHome = scope.contains { $0 != userID && situation.isHome($0) }
                    switch change {
                    case .everyEntry where new.isHome: return "\(userName) arrived home"
                    case .everyExit where !new.isHome: return "\(userName) left home"
                    case .firstEntry where new.isHome && !othersHome: return "\(userName) arrived, the first one home"
                    case .lastExit where !new.isHome && !othersHome: return "\(userName) left, the last one out"
                    default: return nil
                    }
                case .location(let region, let transition, let users):
                    guard Self.users(users, of: trigger, in: home).contains(userID), let position = new.position
                    else { return nil }
                    let wasInside = old?.position.map(region.contains) ?? false
                    let isInside = region.contains(position)
                    switch transition {
                    case .entry where isInside && !wasInside: return "\(userName) entered \(region.name)"
                    case .exit where !isInside && wasInside: return "\(userName) left \(region.name)"
                    default: return nil
                    }
                default: return nil
                }
            }
            let cause = trigger.isEnabled ? trigger.definition.events.lazy.compactMap(matches).first : nil
            let endCause =
                states[home.id]?[triggerID]?.pendingEnd == nil
                ? nil : (trigger.definition.end?.events ?? []).lazy.compactMap(matches).first
            outcomes += react(to: trigger, cause: cause, endCause: endCause, situation: situation)
        }
        return outcomes
    }

    /// The time is `now`: timers, calendar and sun events, durations and ends that came due run.
    public mutating func timePassed(in home: Home, now: Date) -> [AutomationOutcome] {
        guard let automation = homes[home.id] else { return [] }
        let situation = Situation(
            home: home,
            index: automation.index,
            overrides: [:],
            presence: [:],
            clock: automation.clock,
            now: now
        )
        var outcomes: [AutomationOutcome] = []
        // Only the triggers whose time came: a wake costs its due triggers, not every timed one.
        let due = (deadlines[home.id] ?? [:]).filter { $0.value <= now }.map(\.key)
        for triggerID in due.sorted(by: { $0.uuidString < $1.uuidString }) {
            guard let trigger = automation.index.trigger(triggerID, in: home),
                var state = states[home.id]?[triggerID]
            else { continue }
            var changed = false
            var results: [AutomationOutcome] = []
            if let end = state.pendingEnd, let due = end.due, due <= now {
                results.append(finish(trigger, home: home.id, state: &state, cause: "the end delay passed", now: now))
                changed = true
            }
            if trigger.isEnabled, let due = state.nextFire, due <= now {
                let cause = timeCause(of: trigger, due: due, clock: automation.clock, location: home.location)
                state.nextFire = nextTime(of: trigger.definition, after: now, clock: automation.clock, home: home)
                results.append(decide(trigger, cause: cause, state: &state, situation: situation))
                changed = true
            }
            if trigger.isEnabled {
                for (offset, event) in trigger.definition.events.enumerated() {
                    guard case .duration(let condition, let seconds) = event, let since = state.holdingSince[offset],
                        !state.firedDurations.contains(offset), since.addingTimeInterval(Double(seconds)) <= now
                    else { continue }
                    var evaluator = ConditionEvaluator(situation: situation, lastFired: state.lastFired)
                    guard evaluator.holds(condition) else {
                        state.holdingSince[offset] = nil
                        changed = true
                        continue
                    }
                    state.firedDurations.append(offset)
                    let text = evaluator.checks.map(\.condition).joined(separator: " and ")
                    results.append(
                        decide(
                            trigger,
                            cause: "\(text) held for \(DurationText.text(seconds))",
                            state: &state,
                            situation: situation
                        )
                    )
                    changed = true
                }
            }
            guard changed else { continue }
            outcomes += settle(results, state: state, trigger: triggerID, home: home.id)
        }
        return outcomes
    }

    /// Records how a firing's writes went, and for an undo the values to write back; returns the state and the
    /// decision with its writes, to store.
    public mutating func recordRun(
        home homeID: UUID,
        trigger triggerID: UUID,
        decidedAt: Date,
        writes: [WriteRecord],
        restore: [Action]?
    ) -> (state: TriggerState, decision: TriggerDecision?)? {
        guard var state = states[homeID]?[triggerID] else { return nil }
        var decision: TriggerDecision?
        if let index = state.decisions.lastIndex(where: { $0.at == decidedAt && $0.outcome != .skipped }) {
            state.decisions[index].writes = writes
            decision = state.decisions[index]
        }
        if let restore, state.pendingEnd?.firedAt == decidedAt {
            state.pendingEnd?.restore = restore
        }
        remember(state, of: triggerID, inHome: homeID)
        return (state, decision)
    }

    // MARK: Deciding

    /// An event reached `trigger`: `cause` fires it, `endCause` ends its pending end; durations follow values.
    private mutating func react(
        to trigger: Trigger,
        cause: String?,
        endCause: String?,
        situation: Situation
    ) -> [AutomationOutcome] {
        guard var state = states[situation.home.id]?[trigger.id] else { return [] }
        let before = state
        var results: [AutomationOutcome] = []
        if let endCause, state.pendingEnd != nil {
            results.append(finish(trigger, home: situation.home.id, state: &state, cause: endCause, now: situation.now))
        }
        if trigger.isEnabled { followDurations(of: trigger, state: &state, situation: situation) }
        if let cause, trigger.isEnabled {
            results.append(decide(trigger, cause: cause, state: &state, situation: situation))
        }
        guard state != before else { return [] }
        return settle(results, state: state, trigger: trigger.id, home: situation.home.id)
    }

    /// Tests the conditions and records the decision: fire (and arm the end) or say why not.
    private func decide(
        _ trigger: Trigger,
        cause: String,
        state: inout TriggerState,
        situation: Situation,
        isCatchUp: Bool = false
    ) -> AutomationOutcome {
        var evaluator = ConditionEvaluator(situation: situation, lastFired: state.lastFired)
        let holds = trigger.definition.condition.map { evaluator.holds($0) } ?? true
        let now = situation.now
        guard holds else {
            let failing = evaluator.checks.filter { !$0.holds }.map { "\($0.condition) (saw \($0.observed))" }
            let decision = TriggerDecision(
                at: now,
                cause: cause,
                outcome: .skipped,
                reason: "a condition did not hold: " + failing.joined(separator: "; "),
                isCatchUp: isCatchUp,
                conditions: evaluator.checks
            )
            append(decision, to: &state)
            return AutomationOutcome(homeID: situation.home.id, triggerID: trigger.id, state: state, decision: decision)
        }
        state.lastFired = now
        let decision = TriggerDecision(
            at: now,
            cause: cause,
            outcome: .fired,
            isCatchUp: isCatchUp,
            conditions: evaluator.checks
        )
        append(decision, to: &state)
        var captureUndo = false
        if let end = trigger.definition.end {
            // Fired again before its end: the end moves, and an undo still restores what was there first.
            let restore = state.pendingEnd?.restore ?? []
            captureUndo = end.actionSetIDs.isEmpty && state.pendingEnd == nil
            state.pendingEnd = PendingEnd(
                firedAt: now,
                due: end.afterSeconds.map { now.addingTimeInterval(Double($0)) },
                restore: restore
            )
        }
        return AutomationOutcome(
            homeID: situation.home.id,
            triggerID: trigger.id,
            run: .fire(actionSetIDs: trigger.actionSetIDs, captureUndo: captureUndo),
            turnOff: trigger.definition.executeOnce,
            state: state,
            decision: decision
        )
    }

    /// The pending end came: undo or run the end scenes.
    private func finish(
        _ trigger: Trigger,
        home homeID: UUID,
        state: inout TriggerState,
        cause: String,
        now: Date
    ) -> AutomationOutcome {
        let pending = state.pendingEnd
        state.pendingEnd = nil
        let scenes = trigger.definition.end?.actionSetIDs ?? []
        let decision = TriggerDecision(at: now, cause: cause, outcome: .ended)
        append(decision, to: &state)
        return AutomationOutcome(
            homeID: homeID,
            triggerID: trigger.id,
            run: .end(restore: scenes.isEmpty ? pending?.restore ?? [] : [], actionSetIDs: scenes),
            state: state,
            decision: decision
        )
    }

    /// Starts or stops the clocks of duration events as their conditions begin or stop holding.
    private func followDurations(of trigger: Trigger, state: inout TriggerState, situation: Situation) {
        for (offset, event) in trigger.definition.events.enumerated() {
            guard case .duration(let condition, _) = event else { continue }
            var evaluator = ConditionEvaluator(situation: situation, lastFired: state.lastFired)
            if evaluator.holds(condition) {
                if state.holdingSince[offset] == nil { state.holdingSince[offset] = situation.now }
            } else {
                state.holdingSince[offset] = nil
                state.firedDurations.removeAll { $0 == offset }
            }
        }
    }

    /// Arms a trigger: its next time, its durations; at start, a firing missed while the hub was down.
    private mutating func arm(_ trigger: Trigger, in home: Home, now: Date, isStart: Bool) -> [AutomationOutcome] {
        guard let automation = homes[home.id], var state = states[home.id]?[trigger.id], trigger.isEnabled else {
            return []
        }
        let before = state
        let situation = Situation(
            home: home,
            index: automation.index,
            overrides: [:],
            presence: [:],
            clock: automation.clock,
            now: now
        )
        var results: [AutomationOutcome] = []
        if isStart, let missed = state.nextFire, missed < now {
            let cause = timeCause(of: trigger, due: missed, clock: automation.clock, location: home.location)
            let late = now.timeIntervalSince(missed)
            if late <= Double(trigger.definition.catchUpSeconds) {
                results.append(
                    decide(
                        trigger,
                        cause: cause + " (missed while the hub was down)",
                        state: &state,
                        situation: situation,
                        isCatchUp: true
                    )
                )
            } else {
                let decision = TriggerDecision(
                    at: now,
                    cause: cause,
                    outcome: .skipped,
                    reason: "the hub was down at \(automation.clock.local(missed)), \(Int(late))s ago, outside the "
                        + "catch-up window of \(trigger.definition.catchUpSeconds)s"
                )
                append(decision, to: &state)
                results.append(
                    AutomationOutcome(homeID: home.id, triggerID: trigger.id, state: state, decision: decision)
                )
            }
            state.nextFire = nil
        }
        // Turned on again (or edited) after its time passed: it waits for the next time, it does not catch up.
        if !isStart, let next = state.nextFire, next <= now { state.nextFire = nil }
        if state.nextFire == nil {
            state.nextFire = nextTime(of: trigger.definition, after: now, clock: automation.clock, home: home)
        }
        followDurations(of: trigger, state: &state, situation: situation)
        guard state != before else { return results }
        return settle(results, state: state, trigger: trigger.id, home: home.id)
    }

    /// Remembers a trigger's changed state and hands it out with each outcome of the decision (or alone, to be
    /// stored, when the decision ran nothing).
    private mutating func settle(
        _ results: [AutomationOutcome],
        state: TriggerState,
        trigger triggerID: UUID,
        home homeID: UUID
    ) -> [AutomationOutcome] {
        remember(state, of: triggerID, inHome: homeID)
        guard !results.isEmpty else { return [AutomationOutcome(homeID: homeID, triggerID: triggerID, state: state)] }
        // Each outcome carries the state after all of them.
        return results.map { result in
            var result = result
            result.state = state
            return result
        }
    }
}
