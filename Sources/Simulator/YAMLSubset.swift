#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value of the YAML subset accessory descriptions may be written in (docs/simulator.md, "YAML").
///
/// Block mappings and sequences by indentation (spaces only), `- ` items that start a mapping, flow sequences
/// `[a, b]` and mappings `{a: 1}`, plain, single- and double-quoted scalars, comments and a leading `---`. Anchors,
/// aliases, tags, block scalars (`|`, `>`), multi-line plain scalars and several documents are refused with the
/// line they are on.
indirect enum YAMLValue: Equatable, Encodable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case sequence([YAMLValue])
    case mapping([(key: String, value: YAMLValue)])

    static func == (lhs: YAMLValue, rhs: YAMLValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.sequence(let a), .sequence(let b)): a == b
        case (.mapping(let a), .mapping(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .mapping(let entries):
            var container = encoder.container(keyedBy: Key.self)
            for entry in entries { try container.encode(entry.value, forKey: Key(stringValue: entry.key)) }
        case .sequence(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }
}

/// Why a YAML text was refused: the 1-based line and what is wrong there.
struct YAMLError: Error, Equatable {
    var line: Int
    var reason: String
}

/// Reads the YAML subset of ``YAMLValue`` from text.
struct YAMLSubsetParser {
    private struct Line {
        var number: Int
        var indent: Int
        var text: String
    }

    private var lines: [Line] = []
    private var index = 0

    /// Parses one document.
    static func parse(_ text: String) throws(YAMLError) -> YAMLValue {
        var parser = YAMLSubsetParser()
        try parser.readLines(text)
        guard let first = parser.lines.first else { return .null }
        let value = try parser.parseBlock(indent: first.indent)
        if parser.index < parser.lines.count {
            let line = parser.lines[parser.index]
            throw YAMLError(line: line.number, reason: "unexpected indentation")
        }
        return value
    }

    private mutating func readLines(_ text: String) throws(YAMLError) {
        var sawContent = false
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            var line = String(raw)
            if line.hasSuffix("\r") { line.removeLast() }
            let leading = line.prefix { $0 == " " || $0 == "\t" }
            if leading.contains("\t") { throw YAMLError(line: number, reason: "tabs are not allowed in indentation") }
            let content = try Self.stripComment(String(line.dropFirst(leading.count)), line: number)
                .trimmingWhitespace()
            if content.isEmpty { continue }
            if content == "---" || content.hasPrefix("--- ") {
                if sawContent { throw YAMLError(line: number, reason: "only one document is supported") }
                continue
            }
            if content == "..." { continue }
            if content.hasPrefix("%") { throw YAMLError(line: number, reason: "directives are not supported") }
            sawContent = true
            lines.append(Line(number: number, indent: leading.count, text: content))
        }
    }

    /// The text before a `#` that starts a comment (at the start or after a space, outside quotes).
    private static func stripComment(_ text: String, line: Int) throws(YAMLError) -> String {
        var quote: Character?
        var previous: Character = " "
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if open == "\"" && character == "\\" {
                    index = text.index(after: index)
                    if index < text.endIndex { index = text.index(after: index) }
                    previous = "x"
                    continue
                }
                if character == open { quote = nil }
            } else if character == "#" && (previous == " " || previous == "\t") {
                return String(text[..<index])
            } else if (character == "\"" || character == "'") && Self.quoteMayOpen(after: previous) {
                quote = character
            }
            previous = character
            index = text.index(after: index)
        }
        return text
    }

    private static func quoteMayOpen(after character: Character) -> Bool {
        " \t[{,:-".contains(character)
    }

    // MARK: Blocks

    private mutating func parseBlock(indent: Int) throws(YAMLError) -> YAMLValue {
        let line = lines[index]
        if Self.isSequenceItem(line.text) { return try parseSequence(indent: indent) }
        if try Self.splitKey(line.text, line: line.number) != nil { return try parseMapping(indent: indent) }
        index += 1
        let value = try Self.parseInline(line.text, line: line.number)
        if index < lines.count, lines[index].indent > indent {
            throw YAMLError(line: lines[index].number, reason: "multi-line plain scalars are not supported")
        }
        return value
    }

    private static func isSequenceItem(_ text: String) -> Bool {
        text == "-" || text.hasPrefix("- ")
    }

    private mutating func parseSequence(indent: Int) throws(YAMLError) -> YAMLValue {
        var items: [YAMLValue] = []
        while index < lines.count, lines[index].indent == indent, Self.isSequenceItem(lines[index].text) {
            let line = lines[index]
            let rest = line.text.dropFirst()
            let spaces = rest.prefix { $0 == " " }.count
            let content = String(rest.dropFirst(spaces))
            if content.isEmpty {
                index += 1
                guard index < lines.count, lines[index].indent > indent else {
                    items.append(.null)
                    continue
                }
                items.append(try parseBlock(indent: lines[index].indent))
            } else {
                // "- key: value" or "- - x": the rest is a block that starts at the column after "- ".
                lines[index] = Line(number: line.number, indent: indent + 1 + spaces, text: content)
                items.append(try parseBlock(indent: indent + 1 + spaces))
            }
        }
        if index < lines.count, lines[index].indent > indent {
            throw YAMLError(line: lines[index].number, reason: "unexpected indentation")
        }
        return .sequence(items)
    }

    private mutating func parseMapping(indent: Int) throws(YAMLError) -> YAMLValue {
        var entries: [(key: String, value: YAMLValue)] = []
        while index < lines.count, lines[index].indent == indent, !Self.isSequenceItem(lines[index].text) {
            let line = lines[index]
            guard let (key, rest) = try Self.splitKey(line.text, line: line.number) else {
                throw YAMLError(line: line.number, reason: "expected \"key: value\"")
            }
            if entries.contains(where: { $0.key == key }) {
                throw YAMLError(line: line.number, reason: "the key \"\(key)\" appears twice")
            }
            index += 1
            let value: YAMLValue
            if !rest.isEmpty {
                value = try Self.parseInline(rest, line: line.number)
            } else if index < lines.count, lines[index].indent > indent {
                value = try parseBlock(indent: lines[index].indent)
            } else if index < lines.count, lines[index].indent == indent, Self.isSequenceItem(lines[index].text) {
                // A sequence may sit at its key's own indentation.
                value = try parseSequence(indent: indent)
            } else {
                value = .null
            }
            entries.append((key, value))
        }
        if index < lines.count, lines[index].indent > indent {
            throw YAMLError(line: lines[index].number, reason: "unexpected indentation")
        }
        return .mapping(entries)
    }

    /// Splits `key: rest` at the first `: ` (or a final `:`) outside quotes and brackets; nil when not a key.
    private static func splitKey(_ text: String, line: Int) throws(YAMLError) -> (String, String)? {
        guard let first = text.first, first != "[", first != "{" else { return nil }
        var cursor = FlowCursor(text: text, line: line)
        let key: String
        if first == "\"" || first == "'" {
            guard case .string(let quoted) = try cursor.quoted() else { return nil }
            cursor.skipSpaces()
            guard cursor.peek == ":" else { return nil }
            key = quoted
        } else {
            var end = text.startIndex
            var found = false
            var position = text.startIndex
            while position < text.endIndex {
                if text[position] == ":" {
                    let next = text.index(after: position)
                    if next == text.endIndex || text[next] == " " {
                        end = position
                        found = true
                        break
                    }
                }
                position = text.index(after: position)
            }
            guard found else { return nil }
            key = String(text[..<end]).trimmingWhitespace()
            cursor.position = end
        }
        cursor.position = text.index(after: cursor.position)  // past ":"
        let rest = String(text[cursor.position...]).trimmingWhitespace()
        return (key, rest)
    }

    // MARK: Inline values

    private static func parseInline(_ text: String, line: Int) throws(YAMLError) -> YAMLValue {
        guard let first = text.first else { return .null }
        switch first {
        case "|", ">": throw YAMLError(line: line, reason: "block scalars (| and >) are not supported")
        case "&", "*": throw YAMLError(line: line, reason: "anchors and aliases are not supported")
        case "!": throw YAMLError(line: line, reason: "tags are not supported")
        case "[", "{", "\"", "'":
            var cursor = FlowCursor(text: text, line: line)
            let value = try cursor.value(inFlow: false)
            cursor.skipSpaces()
            guard cursor.isAtEnd else { throw YAMLError(line: line, reason: "unexpected text after a value") }
            return value
        default:
            return plainScalar(text)
        }
    }

    /// A plain scalar: null, a boolean, a number or else a string.
    static func plainScalar(_ text: String) -> YAMLValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let integer = Int64(text) { return .int(integer) }
        if let first = text.first, first.isNumber || first == "-" || first == "+" || first == ".",
            text.contains(where: \.isNumber), let number = Double(text), number.isFinite
        {
            return .double(number)
        }
        return .string(text)
    }
}

/// Reads flow collections and quoted scalars character by character.
private struct FlowCursor {
    let text: String
    let line: Int
    var position: String.Index

    init(text: String, line: Int) {
        self.text = text
        self.line = line
        position = text.startIndex
    }

    var isAtEnd: Bool { position >= text.endIndex }
    var peek: Character? { isAtEnd ? nil : text[position] }

    mutating func advance() { position = text.index(after: position) }

    mutating func skipSpaces() {
        while let character = peek, character == " " { advance() }
    }

    func error(_ reason: String) -> YAMLError { YAMLError(line: line, reason: reason) }

    mutating func value(inFlow: Bool) throws(YAMLError) -> YAMLValue {
        skipSpaces()
        switch peek {
        case "[": return try sequence()
        case "{": return try mapping()
        case "\"", "'": return try quoted()
        case "&", "*": throw error("anchors and aliases are not supported")
        case "!": throw error("tags are not supported")
        default: return YAMLSubsetParser.plainScalar(plain(inFlow: inFlow))
        }
    }

    /// A plain scalar up to a flow indicator (inside a collection) or the end.
    mutating func plain(inFlow: Bool) -> String {
        let start = position
        while let character = peek {
            if inFlow && (character == "," || character == "]" || character == "}") { break }
            if inFlow && character == ":" {
                let next = text.index(after: position)
                if next == text.endIndex || text[next] == " " || text[next] == "," { break }
            }
            advance()
        }
        return String(text[start..<position]).trimmingWhitespace()
    }

    mutating func sequence() throws(YAMLError) -> YAMLValue {
        advance()  // [
        var items: [YAMLValue] = []
        skipSpaces()
        if peek == "]" {
            advance()
            return .sequence(items)
        }
        while true {
            items.append(try value(inFlow: true))
            skipSpaces()
            switch peek {
            case ",":
                advance()
                skipSpaces()
                if peek == "]" {
                    advance()
                    return .sequence(items)
                }
            case "]":
                advance()
                return .sequence(items)
            default: throw error("expected \",\" or \"]\" in a flow sequence")
            }
        }
    }

    mutating func mapping() throws(YAMLError) -> YAMLValue {
        advance()  // {
        var entries: [(key: String, value: YAMLValue)] = []
        skipSpaces()
        if peek == "}" {
            advance()
            return .mapping(entries)
        }
        while true {
            skipSpaces()
            let key: String
            switch try value(inFlow: true) {
            case .string(let text): key = text
            case .int(let number): key = String(number)
            case .bool(let flag): key = String(flag)
            default: throw error("a flow mapping key must be a scalar")
            }
            skipSpaces()
            guard peek == ":" else { throw error("expected \":\" after \"\(key)\" in a flow mapping") }
            advance()
            if entries.contains(where: { $0.key == key }) { throw error("the key \"\(key)\" appears twice") }
            entries.append((key, try value(inFlow: true)))
            skipSpaces()
            switch peek {
            case ",":
                advance()
                skipSpaces()
                if peek == "}" {
                    advance()
                    return .mapping(entries)
                }
            case "}":
                advance()
                return .mapping(entries)
            default: throw error("expected \",\" or \"}\" in a flow mapping")
            }
        }
    }

    mutating func quoted() throws(YAMLError) -> YAMLValue {
        guard let open = peek else { throw error("expected a quoted string") }
        advance()
        var result = ""
        while let character = peek {
            advance()
            if character == open {
                // '' inside single quotes is one quote.
                if open == "'" && peek == "'" {
                    advance()
                    result.append("'")
                    continue
                }
                return .string(result)
            }
            if open == "\"" && character == "\\" {
                result.append(try escape())
            } else {
                result.append(character)
            }
        }
        throw error("a quoted string is not closed")
    }

    private mutating func escape() throws(YAMLError) -> Character {
        guard let code = peek else { throw error("a quoted string ends in \\") }
        advance()
        switch code {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "0": return "\0"
        case "\"", "\\", "/", " ": return code
        case "u", "U", "x":
            let length = code == "x" ? 2 : code == "u" ? 4 : 8
            var digits = ""
            for _ in 0..<length {
                guard let digit = peek, digit.isHexDigit else {
                    throw error("a \\\(code) escape needs \(length) hex digits")
                }
                digits.append(digit)
                advance()
            }
            guard let scalar = UInt32(digits, radix: 16).flatMap(Unicode.Scalar.init) else {
                throw error("\\\(code)\(digits) is not a Unicode scalar")
            }
            return Character(scalar)
        default: throw error("unknown escape \\\(code)")
        }
    }
}
