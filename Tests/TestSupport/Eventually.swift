/// Polls `condition` every `interval` until it holds or `timeout` passes; whether it held.
public func eventually(
    timeout: Duration = .seconds(30),
    every interval: Duration = .milliseconds(5),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return false
}

/// Polls `condition` every `interval` until it holds; throws ``WaitTimedOut`` naming `what` after `timeout`.
public func waitUntil(
    _ what: String,
    timeout: Duration = .seconds(60),
    every interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    guard try await eventually(timeout: timeout, every: interval, condition) else { throw WaitTimedOut(what: what) }
}

/// What ``waitUntil(_:timeout:every:_:)`` throws when the condition did not come to hold in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What was waited for.
    public let what: String

    /// "timed out waiting for …".
    public var description: String { "timed out waiting for \(what)" }
}
