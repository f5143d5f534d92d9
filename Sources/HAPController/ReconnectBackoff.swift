/// How long to wait before each reconnect attempt: exponential growth with a cap and random jitter.
///
/// The defaults wait 0.25 s, 0.5 s, 1 s … up to 30 s, each ±20 %. Tests pass their own `random` and `sleep`, so
/// no test waits on the wall clock.
public struct ReconnectBackoff: Sendable {
    /// The wait before the first attempt.
    public var initialDelay: Duration
    /// The factor between one wait and the next.
    public var multiplier: Double
    /// The longest wait, before jitter.
    public var maximumDelay: Duration
    /// The jitter as a fraction: 0.2 spreads each wait over ±20 %.
    public var jitter: Double
    /// A random number in 0..<1 for the jitter.
    public var random: @Sendable () -> Double
    /// Waits for a duration; throws when cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    /// Makes a backoff; without arguments, 0.25 s × 2 up to 30 s, ±20 %, on the system clock and random source.
    public init(
        initialDelay: Duration = .milliseconds(250),
        multiplier: Double = 2,
        maximumDelay: Duration = .seconds(30),
        jitter: Double = 0.2,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.random = random
        self.sleep = sleep
    }

    /// The wait before attempt `attempt` (0 for the first), jitter included.
    public func delay(forAttempt attempt: Int) -> Duration {
        let initial = Self.seconds(initialDelay)
        let maximum = Self.seconds(maximumDelay)
        var base = initial
        for _ in 0..<max(0, attempt) {
            base *= multiplier
            if base >= maximum { break }
        }
        base = min(base, maximum)
        let factor = 1 + jitter * (2 * random() - 1)
        // Whole microseconds, so equal inputs give equal durations whatever the floating-point rounding.
        return .microseconds(Int64((max(0, base * factor) * 1e6).rounded()))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
