#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One command of the simulator's control interface: what a person or the environment does to a device.
///
/// The wire form is one line of UTF-8 with space-separated words; a word with spaces is written in double
/// quotes. The `set AID IID JSON` and `get AID IID` forms are the control socket of `shared/peers` too.
public enum ControlCommand: Sendable, Equatable {
    /// `ping`: answers `pong`.
    case ping
    /// `set ACCESSORY CHARACTERISTIC JSON`: the physical world changes a value.
    case set(accessory: String, characteristic: String, json: String)
    /// `get ACCESSORY CHARACTERISTIC`: reads a value.
    case get(accessory: String, characteristic: String)
    /// `press ACCESSORY [single|double|long]`: a button or doorbell is pressed.
    case press(accessory: String, kind: String)
    /// `trigger ACCESSORY EVENT`: an event happens (motion, open, close, jam, obstruct, alarm, leak, smoke …).
    case trigger(accessory: String, event: String)
    /// `status`: a JSON snapshot of every accessory.
    case status
    /// `add PRESET NAME`: a new accessory appears on the bridge.
    case add(preset: String, name: String)
    /// `remove NAME`: an accessory leaves the bridge.
    case remove(name: String)
    /// `fault set NAME[:ARGS]` (or `fault set NAME ARG …`): switches a fault on (docs/simulator.md).
    case faultSet(String)
    /// `fault clear NAME` or `fault clear all`: switches a fault off.
    case faultClear(String)
    /// `fault list`: the faults switched on, one `NAME:ARGS` each, space-separated.
    case faultList

    /// hap-protocol.md has no say here; a line longer than this is refused so a client cannot grow our buffers.
    public static let maximumLineLength = 4096

    /// Parses one line; a malformed line is a ``ControlCommandError`` that names what is wrong.
    public init(line: String) throws(ControlCommandError) {
        let words = try Self.split(line)
        guard let verb = words.first?.lowercased() else { throw .empty }
        let arguments = Array(words.dropFirst())
        func expect(_ counts: ClosedRange<Int>, _ usage: String) throws(ControlCommandError) {
            guard counts.contains(arguments.count) else { throw .usage(usage) }
        }
        switch verb {
        case "ping":
            try expect(0...0, "ping")
            self = .ping
        case "set":
            try expect(3...3, "set ACCESSORY CHARACTERISTIC JSON-VALUE")
            self = .set(accessory: arguments[0], characteristic: arguments[1], json: arguments[2])
        case "get":
            try expect(2...2, "get ACCESSORY CHARACTERISTIC")
            self = .get(accessory: arguments[0], characteristic: arguments[1])
        case "press":
            try expect(1...2, "press ACCESSORY [single|double|long]")
            self = .press(accessory: arguments[0], kind: arguments.count == 2 ? arguments[1].lowercased() : "single")
        case "trigger":
            try expect(2...2, "trigger ACCESSORY EVENT")
            self = .trigger(accessory: arguments[0], event: arguments[1].lowercased())
        case "status":
            try expect(0...0, "status")
            self = .status
        case "add":
            try expect(2...2, "add PRESET NAME")
            self = .add(preset: arguments[0].lowercased(), name: arguments[1])
        case "remove":
            try expect(1...1, "remove NAME")
            self = .remove(name: arguments[0])
        case "fault":
            let usage = "fault set NAME[:ARGS] | fault clear NAME|all | fault list"
            switch arguments.first?.lowercased() {
            case "set" where arguments.count >= 2:
                self = .faultSet(arguments.dropFirst().joined(separator: ":"))
            case "clear" where arguments.count == 2:
                self = .faultClear(arguments[1].lowercased())
            case "list" where arguments.count == 1:
                self = .faultList
            default:
                throw .usage(usage)
            }
        default:
            throw .unknownCommand(verb)
        }
    }

    /// The line that ``init(line:)`` reads back as this command.
    public var line: String {
        switch self {
        case .ping: "ping"
        case .set(let accessory, let characteristic, let json):
            "set \(Self.quote(accessory)) \(Self.quote(characteristic)) \(Self.quote(json))"
        case .get(let accessory, let characteristic): "get \(Self.quote(accessory)) \(Self.quote(characteristic))"
        case .press(let accessory, let kind): "press \(Self.quote(accessory)) \(Self.quote(kind))"
        case .trigger(let accessory, let event): "trigger \(Self.quote(accessory)) \(Self.quote(event))"
        case .status: "status"
        case .add(let preset, let name): "add \(Self.quote(preset)) \(Self.quote(name))"
        case .remove(let name): "remove \(Self.quote(name))"
        case .faultSet(let fault): "fault set \(Self.quote(fault))"
        case .faultClear(let name): "fault clear \(Self.quote(name))"
        case .faultList: "fault list"
        }
    }

    /// Splits a line into words; double quotes group words and `\"` or `\\` escape inside them.
    static func split(_ line: String) throws(ControlCommandError) -> [String] {
        guard line.utf8.count <= maximumLineLength else { throw .lineTooLong }
        var words: [String] = []
        var current = ""
        var inQuotes = false
        var hasWord = false
        var escaping = false
        for character in line {
            if escaping {
                current.append(character)
                escaping = false
            } else if inQuotes && character == "\\" {
                escaping = true
            } else if character == "\"" {
                inQuotes.toggle()
                hasWord = true
            } else if character.isWhitespace && !inQuotes {
                if hasWord { words.append(current) }
                current = ""
                hasWord = false
            } else {
                current.append(character)
                hasWord = true
            }
        }
        guard !inQuotes && !escaping else { throw .unterminatedQuote }
        if hasWord { words.append(current) }
        return words
    }

    /// A word as it must be written so ``split(_:)`` reads it back whole.
    static func quote(_ word: String) -> String {
        let needsQuotes = word.isEmpty || word.contains { $0.isWhitespace || $0 == "\"" || $0 == "\\" }
        guard needsQuotes else { return word }
        return "\"" + word.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            + "\""
    }
}

/// Why a control line could not be read.
public enum ControlCommandError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The line had no words.
    case empty
    /// The first word is not a command.
    case unknownCommand(String)
    /// The command has the wrong number of arguments; the case carries its usage.
    case usage(String)
    /// A double quote was never closed.
    case unterminatedQuote
    /// The line is longer than ``ControlCommand/maximumLineLength``.
    case lineTooLong

    /// A sentence for people.
    public var description: String {
        switch self {
        case .empty: "empty command"
        case .unknownCommand(let verb):
            "unknown command \"\(verb)\"; use ping, set, get, press, trigger, status, add, remove or fault"
        case .usage(let usage): "usage: \(usage)"
        case .unterminatedQuote: "a double quote is not closed"
        case .lineTooLong: "command longer than \(ControlCommand.maximumLineLength) bytes"
        }
    }
}
