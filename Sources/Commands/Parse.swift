import Foundation

/// What the words of a sentence said, sorted into slots: the verb, the value, the targets, the question.
struct Parse: Sendable {
    /// The verb.
    var verb: Verb?
    /// "on", "off", "up", "down" not part of a verb.
    var particle: String?
    /// A number said.
    var number: Double?
    /// The unit after it.
    var unit: UnitWord?
    /// "to" or "by" before the value.
    var preposition: String?
    /// "halfway", "a quarter".
    var fraction: Double?
    /// "a bit", "a lot".
    var amount: Double?
    /// "warmer", "brighter".
    var compare: String?
    /// A colour.
    var color: (hue: Double, saturation: Double)?
    /// A white in mireds.
    var white: Double?
    /// A thermostat mode.
    var mode: Int?
    /// A fan level.
    var level: Double?
    /// A security mode.
    var security: Int?
    /// A characteristic named ("temperature").
    var attribute: String?
    /// The question's opening, for questions.
    var question: String?
    /// The state asked about ("locked", "on").
    var state: String?
    /// "is there …".
    var there = false
    /// A thermostat mode the target's words imply ("heating": heat).
    var heatMode: Int?
    /// The places and things.
    var spec = TargetSpec()
    /// Which words matched what.
    var explanation: [CommandMatch] = []
    /// Words the engine could not place.
    var unknown: [String] = []
}

/// Sorts tags into a ``Parse``.
struct Parser {
    /// The lexicon.
    let lexicon: Lexicon
    /// The index, for the names of what matched.
    let index: NameIndex
    /// Names of things, for the explanation.
    let describe: (Meaning) -> (role: String, meaning: String)

    /// The slots of `tags`; `asQuestion` reads state words as states.
    func parse(_ tags: [Tag], asQuestion: Bool) -> Parse {
        var parse = Parse()
        var previous: Tag?
        for (position, tag) in tags.enumerated() {
            defer { previous = tag }
            if tag.isUnknown {
                parse.unknown.append(tag.text)
                continue
            }
            if let number = tag.number {
                if parse.number != nil { parse.unknown.append(tag.text) }
                parse.number = number
                parse.explanation.append(CommandMatch(words: tag.text, role: "value", meaning: Values.text(number)))
                continue
            }
            let next = position + 1 < tags.count ? tags[position + 1] : nil
            if place(tag, position: position, previous: previous, next: next, asQuestion: asQuestion, into: &parse) {
                continue
            }
            parse.unknown.append(tag.text)
        }
        return parse
    }

    /// Puts one tag in its slot; false when it fits none.
    private func place(
        _ tag: Tag,
        position: Int,
        previous: Tag?,
        next: Tag?,
        asQuestion: Bool,
        into parse: inout Parse
    ) -> Bool {
        var words = tag.lexiconWords
        // "on the landing": a place, once the state or the verb is said ("what's the humidity on the landing",
        // "turn off the lights on the first floor"); "which lights are on upstairs" keeps its state.
        let stateSaid =
            asQuestion ? parse.state != nil || parse.attribute != nil : parse.verb == .on || parse.verb == .off
        if words.contains(.particle("on")), let next, Self.isPlace(next), stateSaid {
            words = [.preposition("in")]
        }
        func explain(_ role: String, _ meaning: String) {
            parse.explanation.append(CommandMatch(words: tag.text, role: role, meaning: meaning))
        }
        // A question's opening, first.
        if position == 0, asQuestion,
            let question = words.lazy.compactMap({ word -> String? in
                if case .question(let kind) = word { return kind }
                return nil
            }).first
        {
            parse.question = question
            explain("question", question)
            return true
        }
        // A verb at the start of a command.
        if position == 0, !asQuestion, let verb = tag.verb {
            parse.verb = verb
            explain("verb", verb.rawValue)
            for case .security(let mode) in words { parse.security = mode }
            return true
        }
        if asQuestion, position > 0, words.contains(where: { if case .question = $0 { true } else { false } }) {
            explain("question", "copula")
            return true
        }
        if asQuestion, let state = questionState(tag, words) {
            parse.state = state
            explain("state", state)
            return true
        }
        let afterPreposition = previous.map { $0.means(.preposition("to")) || $0.means(.preposition("by")) } ?? false
        let afterNumber = previous?.number != nil
        if afterNumber,
            let unit = words.lazy.compactMap({ word -> UnitWord? in
                if case .unit(let unit) = word { return unit }
                return nil
            }).first
        {
            parse.unit = unit
            explain("unit", unit.rawValue)
            return true
        }
        let namesThings = tag.meanings.contains { meaning in
            switch meaning {
            case .entity, .type, .room, .zone: true
            default: false
            }
        }
        if afterPreposition || ((parse.verb == .set || parse.verb == .turn) && !namesThings),
            let value = valueWord(words)
        {
            return apply(value, tag: tag, into: &parse)
        }
        if let attribute = words.lazy.compactMap({ word -> String? in
            if case .attribute(let name) = word { return name }
            return nil
        }).first, parse.attribute == nil {
            parse.attribute = attribute
            explain("characteristic", attribute)
            return true
        }
        if target(tag, previous: previous, into: &parse) { return true }
        for word in words where apply(word, tag: tag, into: &parse) { return true }
        return false
    }

    /// Whether a tag names a room, zone or the whole home.
    static func isPlace(_ tag: Tag) -> Bool {
        tag.meanings.contains { meaning in
            switch meaning {
            case .room, .zone, .word(.home), .word(.here): true
            default: false
            }
        }
    }

    /// The state a question's word asks about.
    private func questionState(_ tag: Tag, _ words: [Word]) -> String? {
        for word in words {
            switch word {
            case .state(let state): return state
            case .particle(let particle) where particle == "on" || particle == "off": return particle
            case .verb(.open): return "open"
            case .verb(.close): return "closed"
            case .verb(.lock): return "locked"
            case .verb(.unlock): return "unlocked"
            default: continue
            }
        }
        guard !words.contains(.preposition("in")) else { return nil }
        return lexicon.stateWords[tag.text]
    }

    /// The first of `words` that is a value.
    private func valueWord(_ words: [Word]) -> Word? {
        words.first { word in
            switch word {
            case .fraction, .color, .white, .mode, .level, .security, .particle("off"), .particle("on"): true
            default: false
            }
        }
    }

    /// A tag that names places or things.
    private func target(_ tag: Tag, previous: Tag?, into parse: inout Parse) -> Bool {
        var isTarget = false
        var plural = false
        var singular = false
        let hasType = tag.meanings.contains { if case .type = $0 { true } else { false } }
        for meaning in tag.meanings {
            switch meaning {
            case .room(let id):
                parse.spec.rooms.append(id)
                let (role, name) = describe(meaning)
                parse.explanation.append(CommandMatch(words: tag.text, role: role, meaning: name))
                return true
            case .zone(let zone):
                parse.spec.zones.append(zone)
                let (role, name) = describe(meaning)
                parse.explanation.append(CommandMatch(words: tag.text, role: role, meaning: name))
                return true
            case .entity(.scene, _): continue
            case .type(_, let isPlural):
                isTarget = true
                if isPlural { plural = true } else { singular = true }
            case .entity(_, let isPlural):
                isTarget = true
                guard !hasType else { continue }
                if isPlural { plural = true } else { singular = true }
            default: continue
            }
        }
        guard isTarget else { return false }
        let quantified = parse.spec.quantifier == "all" || parse.spec.quantifier == "everything"
        parse.spec.items.append(TargetItem(tag: tag, plural: (plural && !singular) || quantified))
        if let heat = lexicon.heatWords[tag.words] { parse.heatMode = heat }
        let described = tag.meanings.filter { if case .word = $0 { false } else { true } }.prefix(3).map(describe)
        for (role, name) in described {
            parse.explanation.append(CommandMatch(words: tag.text, role: role, meaning: name))
        }
        return true
    }

    /// Puts a lexicon word in its slot; false when it has none here.
    private func apply(_ word: Word, tag: Tag, into parse: inout Parse) -> Bool {
        func explain(_ role: String, _ meaning: String) {
            parse.explanation.append(CommandMatch(words: tag.text, role: role, meaning: meaning))
        }
        switch word {
        case .verb(let verb) where parse.verb == nil || parse.verb == .turn:
            parse.verb = verb == .turn ? (parse.verb ?? .turn) : verb
            explain("verb", verb.rawValue)
        case .particle(let particle) where parse.particle == nil:
            parse.particle = particle
            explain("particle", particle)
        case .preposition(let preposition):
            if preposition == "to" || preposition == "by" { parse.preposition = preposition }
            explain("preposition", preposition)
        case .and: explain("and", "and")
        case .fraction(let value) where parse.fraction == nil:
            parse.fraction = value
            explain("value", Values.text(value) + " %")
        case .amount(let value) where parse.amount == nil:
            parse.amount = value
            explain("amount", Values.text(value))
        case .compare(let direction) where parse.compare == nil:
            parse.compare = direction
            explain("change", direction)
        case .color(let hue, let saturation) where parse.color == nil:
            parse.color = (hue, saturation)
            explain("color", "hue \(Values.text(hue)), saturation \(Values.text(saturation))")
        case .white(let mireds) where parse.white == nil:
            parse.white = mireds
            explain("colorTemperature", Values.text(mireds) + " mireds")
        case .mode(let mode) where parse.mode == nil:
            parse.mode = mode
            explain("mode", String(mode))
        case .level(let level) where parse.level == nil:
            parse.level = level
            explain("value", Values.text(level) + " %")
        case .security(let mode) where parse.security == nil:
            parse.security = mode
            explain("securityMode", String(mode))
        case .quantifier(let quantifier) where parse.spec.quantifier == nil:
            parse.spec.quantifier = quantifier
            if quantifier == "everything" || quantifier == "anything" { parse.spec.wholeHome = true }
            explain("quantifier", quantifier)
        case .here:
            parse.spec.here = true
            explain("here", "the speaker's room")
        case .home:
            parse.spec.wholeHome = true
            explain("home", "the whole home")
        case .there:
            parse.there = true
            explain("there", "there")
        case .it: explain("it", "the context")
        case .sceneWord: explain("sceneWord", "scene")
        case .unit(let unit) where parse.unit == nil:
            parse.unit = unit
            explain("unit", unit.rawValue)
        default: return false
        }
        return true
    }
}
