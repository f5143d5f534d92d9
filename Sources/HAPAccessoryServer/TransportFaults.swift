import Synchronization

/// Misbehaviour on purpose, for testing controllers: what each connection consults per request and per message.
///
/// An ``AccessoryServer`` given one reads it for every request it takes and every message it writes, so a change
/// applies at once to open connections. Nothing here is on unless set; the protocol core (`HAP`) knows nothing
/// of it. Delays are capped at ``maximumDelay`` so a test cannot hang a server for ever.
public final class TransportFaults: Sendable {
    /// The faults switched on.
    public struct Settings: Sendable, Equatable {
        /// Close a verified session once it has answered this many requests.
        public var dropAfterRequests: Int?
        /// Wait this long (a value picked in the range, from a seeded generator) before answering each request.
        public var delay: ClosedRange<Duration>?
        /// The seed of the delay's random generator.
        public var delaySeed: UInt64 = 1
        /// Take requests and never answer them, without closing the connection.
        public var stopsAnswering = false
        /// Corrupt every encrypted frame sent (its authentication tag), so the controller cannot open it.
        public var sendsMalformedFrames = false
        /// Announce a Content-Length this many bytes off the body's real length (`+1` claims one byte more).
        public var contentLengthError: Int?
        /// Answer pair-verify M1 with an Authentication error, so no session can be made.
        public var refusesPairVerify = false
        /// Close the connection once pair-setup M5 is taken and the pairing stored, instead of answering M6.
        public var dropsPairSetupM6 = false

        /// No fault.
        public init() {}

        /// Whether no fault is on (the seed alone switches nothing on).
        public var isEmpty: Bool {
            dropAfterRequests == nil && delay == nil && !stopsAnswering && !sendsMalformedFrames
                && contentLengthError == nil && !refusesPairVerify && !dropsPairSetupM6
        }
    }

    /// The longest delay a request may be given: 30 s.
    public static let maximumDelay = Duration.seconds(30)

    private struct State {
        var settings = Settings()
        var random = SplitMix64(seed: 1)
        var acceptedConnections = 0
        var pairVerifyAttempts = 0
    }

    private let state = Mutex(State())

    /// No fault switched on.
    public init() {}

    /// The faults now.
    public var settings: Settings { state.withLock { $0.settings } }

    /// Replaces the faults; open connections follow from their next request or message.
    public func update(_ change: (inout Settings) -> Void) {
        state.withLock { state in
            let seed = state.settings.delaySeed
            change(&state.settings)
            if let delay = state.settings.delay {
                let upper = min(delay.upperBound, Self.maximumDelay)
                state.settings.delay = min(delay.lowerBound, upper)...upper
            }
            if state.settings.delaySeed != seed || state.settings.delay == nil {
                state.random = SplitMix64(seed: state.settings.delaySeed)
            }
        }
    }

    /// How many connections the server accepted while this was attached (a controller's reconnect attempts).
    public var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }

    /// How many pair-verify M1 requests arrived (each is one attempt to make a session).
    public var pairVerifyAttempts: Int { state.withLock { $0.pairVerifyAttempts } }

    /// The wait before answering the next request, zero when no delay is set.
    func nextDelay() -> Duration {
        state.withLock { state in
            guard let range = state.settings.delay else { return .zero }
            let low = range.lowerBound.nanosecondsClamped
            let high = range.upperBound.nanosecondsClamped
            guard high > low else { return range.lowerBound }
            let span = UInt64(high - low) + 1
            return .nanoseconds(low + Int64(state.random.next() % span))
        }
    }

    func noteConnectionAccepted() { state.withLock { $0.acceptedConnections += 1 } }

    func notePairVerifyAttempt() { state.withLock { $0.pairVerifyAttempts += 1 } }
}

/// SplitMix64: a tiny seeded generator, so a delay sequence repeats for a given seed.
struct SplitMix64 {
    private var value: UInt64

    init(seed: UInt64) { value = seed }

    mutating func next() -> UInt64 {
        value &+= 0x9E37_79B9_7F4A_7C15
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64`.
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return product.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
