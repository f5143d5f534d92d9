import Foundation
import Synchronization

/// Where automation time comes from: the system clock in a hub, a clock tests control, or a faster one.
public protocol AutomationClock: Sendable {
    /// The current instant.
    func now() -> Date
    /// Returns at `deadline` (or soon after); throws `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The machine's clock.
public struct SystemClock: AutomationClock {
    /// Makes the system clock.
    public init() {}

    /// `Date()`.
    public func now() -> Date { Date() }

    /// Sleeps until `deadline` by the machine's clock.
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else { return }
        try await Task.sleep(for: .seconds(seconds))
    }
}

/// A clock that starts at a chosen instant and runs `speed` times faster than the machine's: two processes given
/// the same start, real start and speed agree on the time (a hub killed and started again, in a test).
public struct ScaledClock: AutomationClock {
    /// The instant the clock showed at `realStart`.
    public let start: Date
    /// The machine's time when the clock showed `start`.
    public let realStart: Date
    /// How many clock seconds pass per real second.
    public let speed: Double

    /// Makes a scaled clock.
    public init(start: Date, realStart: Date, speed: Double) {
        self.start = start
        self.realStart = realStart
        self.speed = max(speed, 0.001)
    }

    /// Reads `start=<unix seconds>,real=<unix seconds>,speed=<factor>` (the form of `HEARTH_CLOCK`); `nil` otherwise.
    public init?(specification: String) {
        var fields: [String: Double] = [:]
        for part in specification.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = Double(pair[1]), value.isFinite else { return nil }
            fields[String(pair[0])] = value
        }
        guard let start = fields["start"], let real = fields["real"], let speed = fields["speed"], speed > 0 else {
            return nil
        }
        self.init(
            start: Date(timeIntervalSince1970: start),
            realStart: Date(timeIntervalSince1970: real),
            speed: speed
        )
    }

    /// The scaled time.
    public func now() -> Date { start.addingTimeInterval(Date().timeIntervalSince(realStart) * speed) }

    /// Sleeps the real time that makes the scaled clock reach `deadline`.
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSince(now()) / speed
        guard seconds > 0 else { return }
        try await Task.sleep(for: .seconds(seconds))
    }
}

/// A clock that moves only when told (`advance(to:)`), for tests: sleepers wake when it passes their deadline.
public final class ManualClock: AutomationClock {
    private struct State {
        var now: Date
        var sleepers: [UUID: (deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = [:]
    }

    private let state: Mutex<State>

    /// Makes a clock showing `start`.
    public init(start: Date) {
        state = Mutex(State(now: start))
    }

    /// The time it shows.
    public func now() -> Date { state.withLock { $0.now } }

    /// Moves the clock to `date` (never back) and wakes every sleeper whose deadline it reached.
    public func advance(to date: Date) {
        let woken = state.withLock { state in
            state.now = max(state.now, date)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Moves the clock on by `seconds`.
    public func advance(by seconds: TimeInterval) { advance(to: now().addingTimeInterval(seconds)) }

    /// How many tasks sleep on the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns when the clock reaches `deadline`.
    public func sleep(until deadline: Date) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state in
                    if state.now >= deadline || Task.isCancelled { return true }
                    state.sleepers[id] = (deadline, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { $0.sleepers.removeValue(forKey: id)?.continuation }
            continuation?.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}
