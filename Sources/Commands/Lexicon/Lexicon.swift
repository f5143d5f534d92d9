import Foundation

/// The words of one language, which the engine reads sentences with.
///
/// Data, not code: ``english`` is built in, and ``init(json:)`` reads another from a file.
public struct Lexicon: Sendable {
    /// The language's code, such as `en`.
    public let language: String
    /// Words dropped everywhere, in names too ("the", "a").
    let articles: Set<String>
    /// Phrases dropped from sentences and names ("please", "could you"), by their first word, longest first.
    let fillers: [String: [[String]]]
    /// Short forms and what they stand for ("what's" → "what is").
    let contractions: [String: String]
    /// Plural endings, tried in order: a word ending in the first gets the second instead.
    let pluralEndings: [(singular: String, plural: String)]
    /// Plurals that follow no ending.
    let irregularPlurals: [String: String]
    /// Number words below twenty.
    let numbers: [String: Double]
    /// Tens ("twenty").
    let tens: [String: Double]
    /// Words that multiply by a hundred.
    let hundreds: Set<String>
    /// Words allowed inside a number ("a hundred and five").
    let numberJoiners: Set<String>
    /// Words before decimals ("twenty point five").
    let decimalPoints: Set<String>
    /// Every other word or phrase, with its meaning.
    let words: [[String]: [Word]]
    /// State words of questions ("locked").
    let stateWords: [String: String]
    /// The opposite of each state ("locked": "unlocked").
    let stateOpposites: [String: String]
    /// How a state is said in an answer, where it differs from its word.
    let stateText: [String: String]
    /// Names of enumeration values by characteristic ("targetHeatingCoolingState": off, heat, cool, auto).
    let valueNames: [String: [String]]
    /// Phrases said before a scene's name ("run").
    let sceneVerbs: [[String]]
    /// Words said after a scene's name ("scene").
    let sceneWords: Set<String>
    /// The usual phrases of the built-in scenes, by the scene's kind.
    let builtInScenes: [[String]: String]
    /// Type words, by the catalog's service names they mean.
    let typeWords: [[String]: [String]]
    /// Words that make "turn on" a thermostat mode (heat 1, cool 2).
    let heatWords: [[String]: Int]
    /// The change "a bit" or a bare relative verb means: a default, and one for temperatures.
    let amounts: [String: Double]
    /// Sentences the engine answers with; `{name}` marks a part filled in.
    let messages: [String: String]

    /// The built-in English words.
    public static let english: Lexicon = {
        do { return try Lexicon(json: Data(englishJSON.utf8)) } catch {
            preconditionFailure("The built-in English lexicon is invalid: \(error)")
        }
    }()

    /// Reads a lexicon from its JSON (the shape of `Lexicon/English.swift`).
    public init(json: Data) throws(LexiconError) {
        struct File: Decodable {
            var language: String
            var articles: [String]
            var fillers: [String]
            var contractions: [String: String]
            var pluralEndings: [[String]]
            var irregularPlurals: [String: String]
            var numbers: [String: Double]
            var tens: [String: Double]
            var hundreds: [String]
            var numberJoiners: [String]
            var decimalPoints: [String]
            var words: [String: String]
            var stateWords: [String: String]
            var stateOpposites: [String: String]
            var stateText: [String: String]
            var valueNames: [String: [String]]
            var sceneVerbs: [String]
            var sceneWords: [String]
            var builtInScenes: [String: String]
            var typeWords: [String: String]
            var heatWords: [String: Int]
            var amounts: [String: Double]
            var messages: [String: String]
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: json) } catch {
            throw LexiconError(reason: "it is not a lexicon's JSON (\(error.localizedDescription))")
        }
        func split(_ phrase: String) -> [String] { phrase.split(separator: " ").map(String.init) }
        language = file.language
        articles = Set(file.articles)
        var fillers: [String: [[String]]] = [:]
        for phrase in file.fillers.map(split).sorted(by: { $0.count > $1.count }) {
            guard let first = phrase.first else { continue }
            fillers[first, default: []].append(phrase)
        }
        self.fillers = fillers
        contractions = file.contractions
        var endings: [(String, String)] = []
        for pair in file.pluralEndings {
            guard pair.count == 2 else { throw LexiconError(reason: "each plural ending must be a pair") }
            endings.append((pair[0], pair[1]))
        }
        pluralEndings = endings
        irregularPlurals = file.irregularPlurals
        numbers = file.numbers
        tens = file.tens
        hundreds = Set(file.hundreds)
        numberJoiners = Set(file.numberJoiners)
        decimalPoints = Set(file.decimalPoints)
        var words: [[String]: [Word]] = [:]
        for (phrase, meanings) in file.words {
            for meaning in meanings.split(separator: ";") {
                let text = meaning.trimmingCharacters(in: .whitespaces)
                guard let word = Word(text) else {
                    throw LexiconError(reason: "the meaning '\(text)' of '\(phrase)' is not one the engine knows")
                }
                words[split(phrase), default: []].append(word)
            }
        }
        self.words = words
        stateWords = file.stateWords
        stateOpposites = file.stateOpposites
        stateText = file.stateText
        valueNames = file.valueNames
        sceneVerbs = file.sceneVerbs.map(split)
        sceneWords = Set(file.sceneWords)
        var scenes: [[String]: String] = [:]
        for (phrase, kind) in file.builtInScenes { scenes[split(phrase)] = kind }
        builtInScenes = scenes
        var types: [[String]: [String]] = [:]
        for (phrase, names) in file.typeWords { types[split(phrase)] = split(names) }
        typeWords = types
        var heat: [[String]: Int] = [:]
        for (phrase, mode) in file.heatWords { heat[split(phrase)] = mode }
        heatWords = heat
        amounts = file.amounts
        messages = file.messages
    }

    /// The message `key` with each `{name}` replaced.
    func message(_ key: String, _ values: [String: String] = [:]) -> String {
        var text = messages[key] ?? key
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }

    /// The plural of one word.
    func plural(of word: String) -> String {
        if let irregular = irregularPlurals[word] { return irregular }
        for (singular, plural) in pluralEndings where word.hasSuffix(singular) {
            if singular == "y", let before = word.dropLast().last, "aeiou".contains(before) { continue }
            return String(word.dropLast(singular.count)) + plural
        }
        return word + "s"
    }
}

/// Why a lexicon file cannot be used.
public struct LexiconError: Error, Sendable, Equatable {
    /// What is wrong, for people.
    public var reason: String

    /// The error as a sentence.
    public var sentence: String { "The lexicon cannot be used: \(reason)" }
}

/// What a word of the lexicon means.
enum Word: Sendable, Equatable, Hashable {
    /// A verb: what to do.
    case verb(Verb)
    /// "on", "off", "up", "down" after a verb or a target.
    case particle(String)
    /// A preposition ("in", "to", "by", "of", "from").
    case preposition(String)
    /// "and" between targets.
    case and
    /// "not".
    case not
    /// A unit after a number.
    case unit(UnitWord)
    /// A fraction of the way ("halfway" is 50).
    case fraction(Double)
    /// A small or large change ("a bit" is 10).
    case amount(Double)
    /// A comparative ("warmer").
    case compare(String)
    /// A colour: hue and saturation.
    case color(hue: Double, saturation: Double)
    /// A white: colour temperature in mireds.
    case white(Double)
    /// A thermostat mode (targetHeatingCoolingState).
    case mode(Int)
    /// A fan level in percent.
    case level(Double)
    /// A security system mode (securitySystemTargetState).
    case security(Int)
    /// "all", "any", "everything", "anything".
    case quantifier(String)
    /// A question's opening.
    case question(String)
    /// A state asked about ("locked").
    case state(String)
    /// "there" ("is there motion").
    case there
    /// The speaker's room.
    case here
    /// The whole home.
    case home
    /// A characteristic people name ("temperature").
    case attribute(String)
    /// "scene" after a scene's name.
    case sceneWord
    /// "it", "them": what the context gives.
    case it

    /// Reads a meaning such as `verb on` or `color 0 100`.
    init?(_ text: String) {
        let parts = text.split(separator: " ").map(String.init)
        guard let head = parts.first else { return nil }
        let numbers = parts.dropFirst().compactMap(Double.init)
        let argument = parts.count > 1 ? parts[1] : ""
        switch head {
        case "verb":
            guard let verb = Verb(rawValue: argument) else { return nil }
            self = .verb(verb)
        case "particle": self = .particle(argument)
        case "prep": self = .preposition(argument)
        case "and": self = .and
        case "not": self = .not
        case "unit":
            guard let unit = UnitWord(rawValue: argument) else { return nil }
            self = .unit(unit)
        case "fraction" where numbers.count == 1: self = .fraction(numbers[0])
        case "amount" where numbers.count == 1: self = .amount(numbers[0])
        case "compare": self = .compare(argument)
        case "color" where numbers.count == 2: self = .color(hue: numbers[0], saturation: numbers[1])
        case "white" where numbers.count == 1: self = .white(numbers[0])
        case "mode" where numbers.count == 1: self = .mode(Int(numbers[0]))
        case "level" where numbers.count == 1: self = .level(numbers[0])
        case "security" where numbers.count == 1: self = .security(Int(numbers[0]))
        case "quantifier": self = .quantifier(argument)
        case "question": self = .question(argument)
        case "state": self = .state(argument)
        case "there": self = .there
        case "here": self = .here
        case "home": self = .home
        case "attribute": self = .attribute(argument)
        case "scene": self = .sceneWord
        case "it": self = .it
        default: return nil
        }
    }
}

/// What a verb asks for.
enum Verb: String, Sendable, Equatable, Hashable {
    case on, off, toggle, set, turn, dim, brighten, open, close, lock, unlock, raise, lower, up, down, arm, disarm
    case run, rename, move, call
}

/// A unit said after a number.
enum UnitWord: String, Sendable, Equatable, Hashable {
    case percent, degrees, celsius, fahrenheit, kelvin
}
