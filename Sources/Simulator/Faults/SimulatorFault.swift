import HAP

/// One way the simulator misbehaves on purpose, written `NAME[:ARGS]` everywhere (description file, `--fault`,
/// `fault set`); docs/simulator.md describes each one on the wire.
public enum SimulatorFault: Sendable, Equatable, CustomStringConvertible {
    /// `drop-after:N`: a verified session is closed once it has answered N requests.
    case dropAfter(requests: Int)
    /// `slow:MS` or `slow:MIN-MAX[:SEED]`: each request waits this many milliseconds (random in the range,
    /// from the seed) before it is answered.
    case slow(milliseconds: ClosedRange<Int>, seed: UInt64)
    /// `stop-answering`: requests are read and never answered; the connection stays open.
    case stopAnswering
    /// `malformed-frame`: every encrypted frame goes out with a broken authentication tag.
    case malformedFrame
    /// `wrong-length[:DELTA]`: each response with a body announces a Content-Length DELTA bytes off (default +1).
    case wrongLength(delta: Int)
    /// `refuse-pair-verify`: pair-verify M1 is answered with an Authentication error.
    case refusePairVerify
    /// `drop-after-m5`: pair-setup M5 is taken and the pairing stored, then the connection closes without M6.
    case dropAfterM5
    /// `flap:SECONDS`: offline (not listening, sessions closed) for SECONDS, online for SECONDS, again and again.
    case flap(seconds: Double)
    /// `reboot` or `reboot:SECONDS`: restart once now, or every SECONDS, with `c#` one higher and the same ids.
    case reboot(everySeconds: Double?)
    /// `stray-events[:SECONDS]`: every SECONDS (default 1), each session gets events it never subscribed to.
    case strayEvents(everySeconds: Double)
    /// `out-of-range[:ACCESSORY[:CHARACTERISTIC]]`: a characteristic reports a value above its own maximum.
    case outOfRange(accessory: String?, characteristic: String?)

    /// The longest delay `slow` takes, in milliseconds (30 s).
    public static let maximumDelayMilliseconds = 30_000
    /// The shortest period of `flap`, `reboot` and `stray-events`, in seconds.
    public static let minimumPeriodSeconds = 0.1
    /// The longest period of `flap`, `reboot` and `stray-events`, in seconds (one hour).
    public static let maximumPeriodSeconds = 3600.0
    /// Every fault's name, in the order docs/simulator.md lists them.
    public static let names = [
        "drop-after", "slow", "stop-answering", "malformed-frame", "wrong-length", "refuse-pair-verify",
        "drop-after-m5", "flap", "reboot", "stray-events", "out-of-range",
    ]

    /// The fault's name, the key it is set and cleared by.
    public var name: String {
        switch self {
        case .dropAfter: "drop-after"
        case .slow: "slow"
        case .stopAnswering: "stop-answering"
        case .malformedFrame: "malformed-frame"
        case .wrongLength: "wrong-length"
        case .refusePairVerify: "refuse-pair-verify"
        case .dropAfterM5: "drop-after-m5"
        case .flap: "flap"
        case .reboot: "reboot"
        case .strayEvents: "stray-events"
        case .outOfRange: "out-of-range"
        }
    }

    /// The `NAME[:ARGS]` text that ``init(parsing:)`` reads back as this fault.
    public var description: String {
        switch self {
        case .dropAfter(let requests): "drop-after:\(requests)"
        case .slow(let range, let seed):
            range.lowerBound == range.upperBound
                ? "slow:\(range.lowerBound)" : "slow:\(range.lowerBound)-\(range.upperBound):\(seed)"
        case .stopAnswering, .malformedFrame, .refusePairVerify, .dropAfterM5: name
        case .wrongLength(let delta): "wrong-length:\(delta > 0 ? "+" : "")\(delta)"
        case .flap(let seconds): "flap:\(Self.format(seconds))"
        case .reboot(let seconds): seconds.map { "reboot:\(Self.format($0))" } ?? "reboot"
        case .strayEvents(let seconds): "stray-events:\(Self.format(seconds))"
        case .outOfRange(let accessory, let characteristic):
            ([name] + [accessory, characteristic].compactMap { $0 }).joined(separator: ":")
        }
    }

    /// Reads `NAME[:ARGS]`; a wrong name or argument is a ``SimulatorFaultError`` that says what is allowed.
    public init(parsing text: String) throws(SimulatorFaultError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map {
            String($0).trimmingWhitespace()
        }
        let name = parts[0].lowercased()
        let arguments = Array(parts.dropFirst())
        func expect(_ counts: ClosedRange<Int>, _ usage: String) throws(SimulatorFaultError) {
            guard counts.contains(arguments.count) else { throw .usage(fault: name, usage: usage) }
        }
        switch name {
        case "drop-after":
            try expect(1...1, "drop-after:N, N requests from 1 to 10000")
            self = .dropAfter(requests: try Self.integer(arguments[0], in: 1...10_000, fault: name, what: "N"))
        case "slow":
            try expect(1...2, "slow:MILLISECONDS or slow:MIN-MAX[:SEED], at most 30000 ms")
            let bounds = arguments[0].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard bounds.count <= 2 else {
                throw .invalidArgument(fault: name, argument: arguments[0], expected: "MILLISECONDS or MIN-MAX")
            }
            let range = 0...Self.maximumDelayMilliseconds
            let low = try Self.integer(bounds[0], in: range, fault: name, what: "the delay in milliseconds")
            let high =
                bounds.count == 2
                ? try Self.integer(bounds[1], in: range, fault: name, what: "the longest delay in milliseconds") : low
            guard low <= high else {
                throw .invalidArgument(fault: name, argument: arguments[0], expected: "MIN no larger than MAX")
            }
            var seed: UInt64 = 1
            if arguments.count == 2 {
                guard let parsed = UInt64(arguments[1]) else {
                    throw .invalidArgument(fault: name, argument: arguments[1], expected: "a whole number seed")
                }
                seed = parsed
            }
            self = .slow(milliseconds: low...high, seed: seed)
        case "stop-answering":
            try expect(0...0, "stop-answering (no arguments)")
            self = .stopAnswering
        case "malformed-frame":
            try expect(0...0, "malformed-frame (no arguments)")
            self = .malformedFrame
        case "wrong-length":
            try expect(0...1, "wrong-length[:DELTA], DELTA from -1000 to 1000 and not 0")
            var delta = 1
            if let argument = arguments.first {
                delta = try Self.integer(argument, in: -1000...1000, fault: name, what: "DELTA")
                guard delta != 0 else {
                    throw .invalidArgument(fault: name, argument: argument, expected: "a DELTA other than 0")
                }
            }
            self = .wrongLength(delta: delta)
        case "refuse-pair-verify":
            try expect(0...0, "refuse-pair-verify (no arguments)")
            self = .refusePairVerify
        case "drop-after-m5":
            try expect(0...0, "drop-after-m5 (no arguments)")
            self = .dropAfterM5
        case "flap":
            try expect(1...1, "flap:SECONDS, from 0.1 to 3600")
            self = .flap(seconds: try Self.period(arguments[0], fault: name))
        case "reboot":
            try expect(0...1, "reboot or reboot:SECONDS, from 0.1 to 3600")
            self = .reboot(
                everySeconds: try arguments.first.map { argument throws(SimulatorFaultError) in
                    try Self.period(argument, fault: name)
                }
            )
        case "stray-events":
            try expect(0...1, "stray-events[:SECONDS], from 0.1 to 3600")
            self = .strayEvents(
                everySeconds: try arguments.first.map { argument throws(SimulatorFaultError) in
                    try Self.period(argument, fault: name)
                } ?? 1
            )
        case "out-of-range":
            try expect(0...2, "out-of-range[:ACCESSORY[:CHARACTERISTIC]]")
            let accessory = arguments.first.flatMap { $0.isEmpty ? nil : $0 }
            let characteristic = arguments.count == 2 && !arguments[1].isEmpty ? arguments[1] : nil
            self = .outOfRange(accessory: accessory, characteristic: characteristic)
        default:
            throw .unknownFault(name)
        }
    }

    private static func integer(
        _ text: String,
        in range: ClosedRange<Int>,
        fault: String,
        what: String
    ) throws(SimulatorFaultError) -> Int {
        let trimmed = text.hasPrefix("+") ? String(text.dropFirst()) : text
        guard let value = Int(trimmed), range.contains(value) else {
            throw .invalidArgument(
                fault: fault,
                argument: text,
                expected: "\(what) as a whole number from \(range.lowerBound) to \(range.upperBound)"
            )
        }
        return value
    }

    private static func period(_ text: String, fault: String) throws(SimulatorFaultError) -> Double {
        guard let value = Double(text), value.isFinite, (minimumPeriodSeconds...maximumPeriodSeconds).contains(value)
        else {
            throw .invalidArgument(fault: fault, argument: text, expected: "SECONDS from 0.1 to 3600")
        }
        return value
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// Why a fault could not be read or switched on.
public enum SimulatorFaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name is not a fault.
    case unknownFault(String)
    /// The fault got the wrong number of arguments; `usage` shows its form.
    case usage(fault: String, usage: String)
    /// One argument is not what the fault takes.
    case invalidArgument(fault: String, argument: String, expected: String)
    /// The fault cannot be switched on here; the case says why.
    case unavailable(fault: String, reason: String)

    /// A sentence for people.
    public var description: String {
        switch self {
        case .unknownFault(let name):
            "unknown fault \"\(name)\"; use one of \(SimulatorFault.names.joined(separator: ", "))"
        case .usage(let fault, let usage): "fault \"\(fault)\" is written \(usage)"
        case .invalidArgument(let fault, let argument, let expected):
            "fault \"\(fault)\" got \"\(argument)\"; it takes \(expected)"
        case .unavailable(let fault, let reason): "fault \"\(fault)\" cannot be switched on: \(reason)"
        }
    }
}
