import Foundation

/// Sentences and names as the engine reads them: lower case, no diacritics, no punctuation, contractions spelled
/// out, possessives and articles dropped, fillers ("please") removed.
struct Words {
    /// The lexicon whose contractions, articles and fillers apply.
    let lexicon: Lexicon

    /// The words of `text`.
    func of(_ text: String) -> [String] {
        var words: [String] = []
        for raw in rawWords(folded(text)) {
            if let expanded = lexicon.contractions[raw] {
                words += expanded.split(separator: " ").map(String.init)
                continue
            }
            var word = raw
            if word.hasSuffix("'s") { word.removeLast(2) }
            word.removeAll { $0 == "'" }
            guard !word.isEmpty, !lexicon.articles.contains(word) else { continue }
            words += splitNumber(word)
        }
        return removingFillers(words)
    }

    /// Lower case without diacritics; ASCII text takes a fast path.
    private func folded(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        let apostrophes = text.replacingOccurrences(of: "\u{2019}", with: "'")
            .replacingOccurrences(of: "\u{2018}", with: "'")
        return apostrophes.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .lowercased()
    }

    /// Letters, digits and inner apostrophes make words; `%` and `°` are words of their own; a point or comma
    /// between digits stays in the number (a comma is dropped: "2,700").
    private func rawWords(_ text: String) -> [String] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(text) }
        var words: [String] = []
        var current = ""
        let characters = Array(text)
        func flush() {
            if !current.isEmpty { words.append(current) }
            current = ""
        }
        for (index, character) in characters.enumerated() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if character == "'" && !current.isEmpty && index + 1 < characters.count
                && characters[index + 1].isLetter
            {
                current.append(character)
            } else if character == "'" && current.hasSuffix("s") {
                flush()
            } else if (character == "." || character == ",") && current.last?.isNumber == true
                && index + 1 < characters.count && characters[index + 1].isNumber
            {
                if character == "." { current.append(character) }
            } else if character == "%" || character == "°" {
                flush()
                words.append(String(character))
            } else {
                flush()
            }
        }
        flush()
        return words
    }

    /// ``rawWords(_:)`` for plain ASCII (already lower case), on bytes.
    private func asciiWords(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        var words: [String] = []
        func isWord(_ byte: UInt8) -> Bool { (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        var current: [UInt8] = []
        func flush() {
            if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
            current.removeAll(keepingCapacity: true)
        }
        for (index, byte) in bytes.enumerated() {
            let next: UInt8 = index + 1 < bytes.count ? bytes[index + 1] : 0
            if isWord(byte) {
                current.append(byte)
            } else if byte == 0x27, !current.isEmpty, next >= 0x61 && next <= 0x7A {
                current.append(byte)
            } else if byte == 0x27, current.last == 0x73 {
                flush()
            } else if byte == 0x2E || byte == 0x2C, let last = current.last, isDigit(last), isDigit(next) {
                if byte == 0x2E { current.append(byte) }
            } else if byte == 0x25 {
                flush()
                words.append("%")
            } else {
                flush()
            }
        }
        flush()
        return words
    }

    /// "21c" as "21" and "c"; "2700k" as "2700" and "k".
    private func splitNumber(_ word: String) -> [String] {
        guard let first = word.first, first.isNumber, let split = word.firstIndex(where: { $0.isLetter }) else {
            return [word]
        }
        let number = String(word[..<split])
        let rest = String(word[split...])
        guard rest.allSatisfy(\.isLetter) else { return [word] }
        return [number, rest]
    }

    /// `words` without the lexicon's fillers.
    private func removingFillers(_ words: [String]) -> [String] {
        var kept: [String] = []
        var index = 0
        outer: while index < words.count {
            for filler in lexicon.fillers[words[index]] ?? [] where words.count - index >= filler.count {
                if words[index..<index + filler.count].elementsEqual(filler) {
                    index += filler.count
                    continue outer
                }
            }
            kept.append(words[index])
            index += 1
        }
        return kept
    }
}
