import Foundation

/// A run of words of a sentence with what it can mean.
struct Tag: Sendable {
    /// The words.
    var words: [String]
    /// What they can mean; empty for a number or an unknown word.
    var meanings: [Meaning]
    /// The number, when the words are one.
    var number: Double?

    /// The words as one string.
    var text: String { words.joined(separator: " ") }
    /// Whether nothing knows these words.
    var isUnknown: Bool { meanings.isEmpty && number == nil }

    /// The lexicon words among the meanings.
    var lexiconWords: [Word] {
        meanings.compactMap { if case .word(let word) = $0 { word } else { nil } }
    }

    /// Whether one meaning is the word `word`.
    func means(_ word: Word) -> Bool { meanings.contains(.word(word)) }

    /// The verb among the meanings.
    var verb: Verb? {
        for case .word(.verb(let verb)) in meanings { return verb }
        return nil
    }
}

/// Splits a sentence's words into tags: numbers, then the longest phrase of the index at each place.
struct Tagger {
    /// The home's names and the lexicon's phrases.
    let index: NameIndex
    /// The number words.
    let lexicon: Lexicon

    /// The tags of `words`, left to right.
    func tags(of words: [String]) -> [Tag] {
        var tags: [Tag] = []
        var start = 0
        while start < words.count {
            let phrase = index.longestMatch(in: words, at: start)
            let number = self.number(in: words, at: start)
            if let number, number.length >= (phrase?.length ?? 0) {
                tags.append(Tag(words: Array(words[start..<start + number.length]), meanings: [], number: number.value))
                start += number.length
            } else if let phrase {
                let span = Array(words[start..<start + phrase.length])
                if let split = placeAndType(span, phrase.meanings) {
                    tags += split
                } else {
                    tags.append(Tag(words: span, meanings: phrase.meanings))
                }
                start += phrase.length
            } else {
                tags.append(Tag(words: [words[start]], meanings: []))
                start += 1
            }
        }
        return tags
    }

    /// A phrase that only names things in the plural ("kitchen lights" for an accessory "Kitchen Light") read as
    /// a place and a type instead, when it splits that way.
    private func placeAndType(_ span: [String], _ meanings: [Meaning]) -> [Tag]? {
        let onlyPluralNames = meanings.allSatisfy { meaning in
            if case .entity(_, plural: true) = meaning { return true }
            return false
        }
        guard onlyPluralNames, span.count > 1 else { return nil }
        for cut in 1..<span.count {
            let place = Array(span[..<cut])
            let rest = Array(span[cut...])
            guard let placeMeanings = index.phrases[place], let typeMeanings = index.phrases[rest] else { continue }
            let isPlace = placeMeanings.contains { meaning in
                switch meaning {
                case .room, .zone: true
                default: false
                }
            }
            let isType = typeMeanings.contains { meaning in
                if case .type = meaning { return true }
                return false
            }
            if isPlace, isType {
                return [Tag(words: place, meanings: placeMeanings), Tag(words: rest, meanings: typeMeanings)]
            }
        }
        return nil
    }

    /// A number said in digits or words at `start`, and how many words it takes.
    func number(in words: [String], at start: Int) -> (value: Double, length: Int)? {
        if let digits = Double(words[start]), words[start].first?.isNumber == true { return (digits, 1) }
        var index = start
        var total = 0.0
        var current = 0.0
        var any = false
        var lastWasOnes = false
        var lastWasTens = false
        while index < words.count {
            let word = words[index]
            if let ones = lexicon.numbers[word] {
                if lastWasOnes { break }
                current += ones
                lastWasOnes = true
                any = true
            } else if let tens = lexicon.tens[word] {
                if lastWasTens || lastWasOnes { break }
                current += tens
                lastWasTens = true
                any = true
            } else if lexicon.hundreds.contains(word) {
                current = (current == 0 ? 1 : current) * 100
                total += current
                current = 0
                lastWasOnes = false
                lastWasTens = false
                any = true
            } else if lexicon.numberJoiners.contains(word), any, index + 1 < words.count,
                lexicon.numbers[words[index + 1]] != nil || lexicon.tens[words[index + 1]] != nil
            {
                // "a hundred and five": the joiner belongs to the number.
            } else if lexicon.decimalPoints.contains(word), any, index + 1 < words.count,
                let digit = lexicon.numbers[words[index + 1]], digit < 10
            {
                return (total + current + digit / 10, index + 2 - start)
            } else {
                break
            }
            index += 1
        }
        return any ? (total + current, index - start) : nil
    }
}
