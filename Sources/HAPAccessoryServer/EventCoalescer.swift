import HAP
import HAPTypes

/// One connection's pending events: merges bursts so at most one event message goes out per window.
///
/// A value owned by the connection's handler; times are durations since any fixed origin.
struct EventCoalescer: Sendable {
    /// What the handler should do after changes were added.
    enum Decision: Equatable, Sendable {
        /// Send the pending changes now.
        case sendNow
        /// Arm a timer for this long, then send.
        case sendAfter(Duration)
        /// A timer is armed already; nothing to do.
        case wait
    }

    let window: Duration
    private var pending: [CharacteristicID: HAPValue?] = [:]
    private var order: [CharacteristicID] = []
    private var lastSent: Duration?
    private(set) var isTimerArmed = false

    init(window: Duration) {
        self.window = window
    }

    var hasPending: Bool { !order.isEmpty }

    /// Records changes (the last value of each characteristic wins) and says when to send.
    mutating func add(_ changes: [CharacteristicChange], immediately: Bool, now: Duration) -> Decision {
        for change in changes {
            if pending.updateValue(change.value, forKey: change.id) == nil { order.append(change.id) }
        }
        if immediately || window <= .zero { return .sendNow }
        if let lastSent, now - lastSent < window {
            if isTimerArmed { return .wait }
            isTimerArmed = true
            return .sendAfter(lastSent + window - now)
        }
        return .sendNow
    }

    /// Takes the pending changes in first-seen order and notes the time they are sent.
    mutating func take(now: Duration) -> [CharacteristicChange] {
        let changes = order.compactMap { id in pending[id].map { CharacteristicChange(id: id, value: $0) } }
        pending = [:]
        order = []
        isTimerArmed = false
        if !changes.isEmpty { lastSent = now }
        return changes
    }
}
