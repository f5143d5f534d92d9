import Automation
import Foundation
import HAPController
import HAPTypes
import HomeGraph
import Logging

/// The hub's automation: what it keeps of the engine, its timer and the values reported but not yet committed.
struct AutomationRuntime {
    /// The evaluation engine, with the triggers' states.
    var engine = AutomationEngine()
    /// Whether the hub runs automations (after `start()`).
    var isRunning = false
    /// The task sleeping until the next time a trigger waits for.
    var timer: Task<Void, Never>?
    /// The deadline `timer` sleeps until.
    var timerDeadline: Date?
    /// Values reported since the last group commit, newest per characteristic.
    var uncommitted: [UUID: HAPValue] = [:]
    /// Where each trigger's state waits in the pending group commit: a newer update merges into it there.
    var queuedStates: [UUID: Int] = [:]
    /// Firings whose writes are not answered yet; when the last is, the group commit runs without its window.
    var runsInFlight = 0
}

/// Running automations: the hub feeds the engine accessory values, presence and time, and carries out what it
/// decides (scene writes, undo, state). Writes a trigger makes can set off other triggers, up to `cascadeLimit`
/// deep, so two triggers that answer each other cannot loop forever.
extension Hub {
    /// How many triggers deep a chain of triggers setting off triggers may go.
    static let cascadeLimit = 4

    /// Loads every home into the engine and arms its timers; part of `start()`.
    ///
    /// Firings missed while the hub was down are run or recorded as missed.
    func startAutomation() {
        guard !automation.isRunning, !isStopped else { return }
        automation.isRunning = true
        let now = configuration.clock.now()
        for home in currentGraph.homes {
            carryOut(automation.engine.load(home, now: now, isStart: true), cascade: 0)
        }
        rearmAutomationTimer()
    }

    /// Stops the automation timer; part of `stop()`.
    func stopAutomation() {
        automation.isRunning = false
        automation.timer?.cancel()
        automation.timer = nil
        automation.timerDeadline = nil
    }

    /// An accessory (or a write) changed a characteristic: triggers listening to it decide at once, before the
    /// value's group commit.
    func automationHeard(home homeID: UUID, characteristic: UUID, value: HAPValue, cascade: Int, isEvent: Bool = true) {
        guard automation.isRunning, let home = currentGraph.home(withID: homeID) else { return }
        let old = automation.uncommitted[characteristic] ?? automation.engine.value(of: characteristic, in: home)
        automation.uncommitted[characteristic] = value
        guard cascade < Self.cascadeLimit else { return }
        let outcomes = automation.engine.valueReported(
            characteristic,
            old: old,
            new: value,
            in: home,
            now: configuration.clock.now(),
            pending: automation.uncommitted,
            isEvent: isEvent
        )
        guard !outcomes.isEmpty else { return }
        carryOut(outcomes, cascade: cascade)
        rearmAutomationTimer()
    }

    /// Follows committed changes: a home whose triggers, accessories, place or clock changed is indexed again;
    /// presence reports reach the triggers that listen to them.
    func automationFollow(_ events: [HomeEvent], before: HomeGraph) {
        guard automation.isRunning else { return }
        var reload: Set<UUID> = []
        var presence: [(home: UUID, user: UUID, presence: Presence)] = []
        for event in events {
            switch event.change {
            case .triggerAdded, .triggerRemoved, .triggerEnabledChanged, .triggerDefinitionChanged,
                .triggerActionSetsChanged, .accessoryAdded, .accessoryRemoved, .homeLocationChanged,
                .homeTimeZoneChanged, .homeAdded:
                reload.insert(event.homeID)
            case .homeRemoved:
                automation.engine.forget(home: event.homeID)
            case .userPresenceChanged(let user, let reported):
                presence.append((event.homeID, user, reported))
            case .characteristicValueChanged(let id, _, _):
                automation.uncommitted[id] = nil
            default:
                continue
            }
        }
        let now = configuration.clock.now()
        for homeID in reload {
            guard let home = currentGraph.home(withID: homeID) else { continue }
            carryOut(automation.engine.load(home, now: now, isStart: false), cascade: 0)
        }
        for (homeID, user, reported) in presence {
            guard let home = currentGraph.home(withID: homeID) else { continue }
            let old = before.home(withID: homeID)?.users.first { $0.id == user }?.presence
            carryOut(
                automation.engine.presenceReported(user: user, old: old, new: reported, in: home, now: now),
                cascade: 0
            )
        }
        if !reload.isEmpty || !presence.isEmpty { rearmAutomationTimer() }
    }

    /// Carries out the engine's outcomes: scene writes start at once (each trigger's in a task of its own), and
    /// the states go to the next group commit: an outcome that runs writes is stored once, when they are
    /// answered, with their outcomes in its decision (and the commit runs then, once no firing waits for writes).
    private func carryOut(_ outcomes: [AutomationOutcome], cascade: Int) {
        for outcome in outcomes {
            if outcome.turnOff {
                queueAutomationState([
                    .enableTrigger(home: outcome.homeID, trigger: outcome.triggerID, isEnabled: false)
                ])
            }
            guard let run = outcome.run, let home = currentGraph.home(withID: outcome.homeID) else {
                queueAutomationState([
                    .setTriggerState(home: outcome.homeID, trigger: outcome.triggerID, state: outcome.stateToStore)
                ])
                continue
            }
            let decidedAt = outcome.decision?.at ?? configuration.clock.now()
            var writes: [(characteristic: UUID, value: HAPValue)] = []
            var restore: [Action]?
            switch run {
            case .fire(let actionSetIDs, let captureUndo):
                writes = Self.writes(of: actionSetIDs, in: home)
                if captureUndo {
                    restore = writes.compactMap { write in
                        let current =
                            automation.uncommitted[write.characteristic]
                            ?? automation.engine.value(of: write.characteristic, in: home)
                        return current.map { Action(characteristicID: write.characteristic, targetValue: $0) }
                    }
                }
            case .end(let values, let actionSetIDs):
                writes = values.map { ($0.characteristicID, $0.targetValue) } + Self.writes(of: actionSetIDs, in: home)
            }
            let homeID = outcome.homeID
            let triggerID = outcome.triggerID
            guard !writes.isEmpty else {
                recordAutomationRun(
                    home: homeID,
                    trigger: triggerID,
                    decidedAt: decidedAt,
                    writes: [],
                    restore: restore
                )
                continue
            }
            let (allWrites, undo) = (writes, restore)
            automation.runsInFlight += 1
            Task {
                await self.runAutomationWrites(
                    home: homeID,
                    trigger: triggerID,
                    decidedAt: decidedAt,
                    writes: allWrites,
                    restore: undo,
                    cascade: cascade + 1
                )
            }
        }
    }

    /// Sends a trigger's writes, then records how each went.
    private func runAutomationWrites(
        home homeID: UUID,
        trigger triggerID: UUID,
        decidedAt: Date,
        writes: [(characteristic: UUID, value: HAPValue)],
        restore: [Action]?,
        cascade: Int
    ) async {
        let results: [UUID: Result<HAPValue, HubError>]
        do {
            results = try await writeCharacteristics(home: homeID, writes, as: .hub, cascade: cascade)
        } catch {
            results = Dictionary(writes.map { ($0.characteristic, .failure(error)) }, uniquingKeysWith: { a, _ in a })
        }
        let records = writes.map { write in
            let error: String? =
                switch results[write.characteristic] {
                case .success: nil
                case .failure(let error): error.sentence
                case nil: "no answer"
                }
            return WriteRecord(characteristicID: write.characteristic, value: write.value, error: error)
        }
        for record in records where record.error != nil {
            logger.info(
                "an automation write failed",
                metadata: ["trigger": "\(triggerID)", "error": "\(record.error ?? "")"]
            )
        }
        recordAutomationRun(home: homeID, trigger: triggerID, decidedAt: decidedAt, writes: records, restore: restore)
        // Every firing's writes are answered: what they queued (the trigger's report, the writes, the decisions) is
        // committed now in one transaction, not when the window ends, which saves the loop a timer's wake.
        automation.runsInFlight -= 1
        if automation.runsInFlight == 0 { commitReports() }
    }

    /// Stores a firing or an end once its writes are answered: the state, and the decision with their outcomes.
    private func recordAutomationRun(
        home homeID: UUID,
        trigger triggerID: UUID,
        decidedAt: Date,
        writes: [WriteRecord],
        restore: [Action]?
    ) {
        guard
            let (state, decision) = automation.engine.recordRun(
                home: homeID,
                trigger: triggerID,
                decidedAt: decidedAt,
                writes: writes,
                restore: restore
            )
        else { return }
        var update = state
        update.decisions = decision.map { [$0] } ?? []
        queueAutomationState([.setTriggerState(home: homeID, trigger: triggerID, state: update)])
    }

    /// The writes of action sets, one per characteristic (a later scene's write wins).
    static func writes(of actionSetIDs: [UUID], in home: Home) -> [(characteristic: UUID, value: HAPValue)] {
        var order: [UUID] = []
        var values: [UUID: HAPValue] = [:]
        for id in actionSetIDs {
            guard let actionSet = home.actionSets.first(where: { $0.id == id }) else { continue }
            for action in actionSet.actions {
                if values.updateValue(action.targetValue, forKey: action.characteristicID) == nil {
                    order.append(action.characteristicID)
                }
            }
        }
        return order.compactMap { id in values[id].map { (id, $0) } }
    }

    /// Puts trigger states in the next group commit with the accessories' value reports.
    ///
    /// A trigger's state still waiting there takes in the newer one (its fields, and the decisions of both), so a
    /// trigger that decides several times in one window is stored once.
    private func queueAutomationState(_ operations: [HomeOperation]) {
        for operation in operations {
            if case .setTriggerState(let home, let trigger, let update) = operation {
                if let index = automation.queuedStates[trigger], index < accessories.pendingReports.count,
                    case .setTriggerState(_, _, let waiting) = accessories.pendingReports[index]
                {
                    var combined = update
                    combined.decisions = waiting.decisions + update.decisions
                    accessories.pendingReports[index] = .setTriggerState(home: home, trigger: trigger, state: combined)
                    continue
                }
                automation.queuedStates[trigger] = accessories.pendingReports.count
            }
            accessories.pendingReports.append(operation)
        }
        scheduleFlush()
    }

    /// Takes the operations waiting for the group commit.
    func takePendingReports() -> [HomeOperation] {
        let batch = accessories.pendingReports
        accessories.pendingReports = []
        automation.queuedStates = [:]
        return batch
    }

    /// Sleeps until the earliest time a trigger waits for, then lets the engine act.
    func rearmAutomationTimer() {
        guard automation.isRunning else { return }
        let deadline = automation.engine.nextWake
        guard deadline != automation.timerDeadline || automation.timer == nil else { return }
        automation.timer?.cancel()
        automation.timer = nil
        automation.timerDeadline = deadline
        guard let deadline else { return }
        let clock = configuration.clock
        automation.timer = Task(executorPreference: taskExecutor) { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            await self?.automationTimeCame()
        }
    }

    /// The time came: every home's due timers, durations and ends run.
    private func automationTimeCame() {
        automation.timer = nil
        automation.timerDeadline = nil
        guard automation.isRunning else { return }
        let now = configuration.clock.now()
        for home in currentGraph.homes {
            carryOut(automation.engine.timePassed(in: home, now: now), cascade: 0)
        }
        rearmAutomationTimer()
    }

    /// The state the engine holds for a trigger (for tests and the API's explanations while a commit is pending).
    public func automationState(ofTrigger triggerID: UUID, inHome homeID: UUID) -> TriggerState? {
        automation.engine.state(ofTrigger: triggerID, inHome: homeID)
    }
}
