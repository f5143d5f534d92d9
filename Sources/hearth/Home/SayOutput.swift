import Foundation
import HearthKit

/// How `hearth say` prints a result: one line of JSON, or the message and a line per action or target.
enum SayOutput {
    /// `value` as one line of JSON (the API's encoder, sorted keys), escaped for terminals, with its newline.
    static func jsonLine(_ value: any Encodable) -> String {
        guard let data = try? JSONEncoder.api.encode(value) else { return "{}\n" }
        return Terminal.jsonEscaped(String(decoding: data, as: UTF8.self)) + "\n"
    }

    /// The result as text: the message, then one indented line per action, target, candidate or write.
    static func text(of result: CommandResult) -> String {
        var lines = [result.message]
        switch result.outcome {
        case .control:
            for action in result.actions ?? [] {
                let outcome = result.results?.first { $0.characteristicID == action.characteristicID }
                lines.append("  " + describe(action) + describe(outcome))
            }
        case .query:
            for target in result.query?.targets ?? [] {
                let name = place(target.accessoryName, target.serviceName, target.room)
                lines.append("  \(name): \(target.value?.description ?? "unknown")")
            }
        case .scene:
            if let results = result.results {
                lines.append("  \(results.filter(\.ok).count) of \(results.count) writes done")
                for failed in results where !failed.ok {
                    lines.append("  failed: \(failed.error ?? "the accessory did not take the value")")
                }
            }
        case .ambiguous:
            for candidate in result.candidates ?? [] {
                let room = candidate.room.map { " (\($0))" } ?? ""
                lines.append("  \(words(candidate.kind)) \(candidate.name)\(room)")
            }
        case .configure, .notUnderstood, .notPermitted, .invalidValue:
            break
        }
        if result.dryRun && [.control, .scene, .configure].contains(result.outcome) {
            lines.append("  (dry run: nothing was changed)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An action in words: where, what, and the value.
    private static func describe(_ action: CommandAction) -> String {
        let name = place(action.accessoryName, action.serviceName, action.room)
        guard action.relative else { return "\(name): \(action.characteristic) = \(action.value)" }
        let target = action.target.map { " → \($0)" } ?? " (current value unknown)"
        return "\(name): \(action.characteristic) by \(action.value)\(target)"
    }

    /// A write's outcome in words; nothing when it went well or was not carried out.
    private static func describe(_ outcome: CommandActionResult?) -> String {
        guard let outcome, !outcome.ok else { return "" }
        return " — failed: \(outcome.error ?? "the accessory did not take the value")"
    }

    /// "Accessory (Room)", with the service's name when it is not the accessory's.
    private static func place(_ accessory: String, _ service: String, _ room: String) -> String {
        let name = service.isEmpty || service == accessory ? accessory : "\(accessory) – \(service)"
        return "\(name) (\(room))"
    }

    /// A kind of object in words: "serviceGroup" is "service group".
    private static func words(_ kind: String) -> String {
        kind.reduce(into: "") { text, character in
            text += character.isUppercase ? " " + character.lowercased() : String(character)
        }
    }
}

/// Splits standard input into lines, keeping at most `maximumLength` bytes of each: a longer line is reported as
/// too long, not kept whole.
struct LineReader {
    /// One line: its bytes (without the newline), or the news that it was too long.
    enum Line {
        case bytes([UInt8])
        case tooLong
    }

    /// The most bytes of a line kept.
    let maximumLength: Int
    private var pending: [UInt8] = []
    private var isTooLong = false
    private var hasPending = false

    /// Makes a reader that keeps lines of up to `maximumLength` bytes.
    init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// The lines `chunk` ends.
    mutating func add(_ chunk: Data) -> [Line] {
        var lines: [Line] = []
        var start = chunk.startIndex
        while let newline = chunk[start...].firstIndex(of: 0x0A) {
            keep(chunk[start..<newline])
            lines.append(take())
            start = chunk.index(after: newline)
        }
        keep(chunk[start...])
        return lines
    }

    /// The last line, when the input did not end with a newline.
    mutating func finish() -> [Line] {
        hasPending ? [take()] : []
    }

    private mutating func keep(_ bytes: Data) {
        guard !bytes.isEmpty else { return }
        hasPending = true
        guard !isTooLong else { return }
        if pending.count + bytes.count > maximumLength {
            isTooLong = true
            pending = []
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    private mutating func take() -> Line {
        defer {
            pending = []
            isTooLong = false
            hasPending = false
        }
        return isTooLong ? .tooLong : .bytes(pending)
    }
}
