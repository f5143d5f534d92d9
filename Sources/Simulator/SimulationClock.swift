import Synchronization

/// The time simulated devices run on: a real clock when serving, a ``ManualClock`` in tests.
///
/// Instants are durations since the clock started, so behaviours never read the wall clock.
public protocol SimulationClock: Sendable {
    /// Time since the clock started.
    var now: Duration { get }
    /// Suspends until `now` reaches `deadline`; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Duration) async throws
}

/// Real time from `ContinuousClock`, counted from when this clock was made.
public struct ContinuousSimulationClock: SimulationClock {
    private let origin: ContinuousClock.Instant

    /// Starts a clock at zero now.
    public init() {
        origin = ContinuousClock.now
    }

    /// Time since the clock was made.
    public var now: Duration { origin.duration(to: ContinuousClock.now) }

    /// Sleeps on `ContinuousClock` until `deadline` after the origin.
    public func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin.advanced(by: deadline), clock: .continuous)
    }
}

/// A clock that moves only when told, for tests: sleepers wake when ``advance(by:)`` passes their deadline.
public final class ManualClock: SimulationClock {
    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    /// Starts a clock at zero.
    public init() {}

    /// The current time, moved only by ``advance(by:)``.
    public var now: Duration { state.withLock { $0.now } }

    /// How many tasks are asleep on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now += duration
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Suspends until ``advance(by:)`` reaches `deadline`.
    public func sleep(until deadline: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start { case wait, wake, cancel }
                let start = state.withLock { state -> Start in
                    if state.cancelled.remove(id) != nil { return .cancel }
                    if deadline <= state.now { return .wake }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .wait
                }
                switch start {
                case .wait: break
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return CheckedContinuation<Void, any Error>?.none
                }
                return sleeper.continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Waits (yielding, never sleeping) until at least `count` tasks sleep on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        while sleeperCount < count { await Task.yield() }
    }
}
