import Foundation
import HAPTypes
import HomeGraph

/// Who speaks and where: what a sentence is read against besides the home.
public struct CommandContext: Sendable, Equatable {
    /// The name of the room the asking device is in ("in here", "turn off the light"), if known.
    public var room: String?
    /// The speaker's role in the home: shared users control but never configure.
    public var role: UserRole

    /// Makes a context; an owner with no room unless told otherwise.
    public init(room: String? = nil, role: UserRole = .owner) {
        self.room = room
        self.role = role
    }
}

/// Plain language against one home: a name index built once per version of its structure, and an interpreter.
///
/// ``interpret(_:context:home:)`` reads a sentence into a ``CommandResult``. Pure: no I/O, no clock.
public struct CommandEngine: Sendable {
    /// The home the index was built from (its values are read from the home given to ``interpret(_:context:home:)``).
    public let home: Home
    /// The words of the language.
    public let lexicon: Lexicon
    /// The most characters a sentence may have.
    public static let maximumLength = 1_000
    /// The largest number a sentence may say (kelvins, mireds and percentages are far below it).
    public static let maximumNumber: Double = 1_000_000
    /// The names and phrases.
    let index: NameIndex
    /// How sentences become words.
    let words: Words

    /// Builds the name index of `home` with the catalog's types and the language's words.
    public init(home: Home, catalog: TypeCatalog, lexicon: Lexicon = .english) {
        self.home = home
        self.lexicon = lexicon
        self.words = Words(lexicon: lexicon)
        self.index = NameIndex(home: home, catalog: catalog, lexicon: lexicon, words: words)
    }

    /// The id of the room named `name` (any case, no articles), or `nil` when the home has none of that name.
    public func room(named name: String) -> UUID? { index.roomByKey[words.of(name)] }

    /// What `text` means in the home, with current values read from `home` (the indexed home when `nil`, or when
    /// its structure differs from the indexed one).
    public func interpret(
        _ text: String,
        context: CommandContext = CommandContext(),
        home values: Home? = nil
    )
        -> CommandResult
    {
        let current = values.flatMap { $0.accessories.count == home.accessories.count ? $0 : nil } ?? home
        var session = Interpretation(engine: self, text: text, context: context, home: current)
        return session.run()
    }
}

/// One sentence being read.
struct Interpretation {
    let engine: CommandEngine
    let text: String
    let context: CommandContext
    /// The home with current values, same structure as the index's.
    let home: Home

    var index: NameIndex { engine.index }
    var lexicon: Lexicon { engine.lexicon }

    /// The result for the sentence.
    mutating func run() -> CommandResult {
        guard text.count <= CommandEngine.maximumLength else {
            return refusal(.notUnderstood, "A sentence can be at most \(CommandEngine.maximumLength) characters.")
        }
        let words = engine.words.of(text)
        guard !words.isEmpty else { return refusal(.notUnderstood, lexicon.message("notUnderstood")) }
        var contextRoom: UUID?
        if let room = context.room {
            guard let id = engine.room(named: room) else {
                return refusal(.notUnderstood, "This home has no room called '\(room)'.")
            }
            contextRoom = id
        }
        if let scene = scene(words) { return scene }
        let tags = Tagger(index: index, lexicon: lexicon).tags(of: words)
        let parser = Parser(lexicon: lexicon, index: index, describe: describe)
        let isQuestion = tags.first?.lexiconWords.contains { if case .question = $0 { true } else { false } } ?? false
        if !isQuestion, let verb = tags.first?.verb, verb == .rename || verb == .move || verb == .call {
            return Configuration(interpretation: self, contextRoom: contextRoom).run(verb: verb, words: words)
        }
        // 1e309 reads as infinity and 1e308 overflows any sum: such a number is refused before it means anything.
        if let absurd = tags.first(where: { $0.number.map { !($0.magnitude <= CommandEngine.maximumNumber) } ?? false })
        {
            return refusal(
                .invalidValue,
                "The number '\(absurd.text)' is too large: numbers in a command can be at most "
                    + "\(Values.text(CommandEngine.maximumNumber))."
            )
        }
        let parse = parser.parse(tags, asQuestion: isQuestion)
        if let unknown = parse.unknown.first {
            return refusal(
                .notUnderstood,
                lexicon.message("unknownWord", ["words": unknown]),
                explanation: parse.explanation
            )
        }
        let resolver = TargetResolver(index: index, home: home, contextRoom: contextRoom, lexicon: lexicon)
        if parse.spec.here, contextRoom == nil {
            return refusal(.notUnderstood, lexicon.message("noRoom"), explanation: parse.explanation)
        }
        if isQuestion {
            return Query(interpretation: self, resolver: resolver).run(parse)
        }
        return control(parse, resolver: resolver)
    }

    /// A control sentence.
    private func control(_ parse: Parse, resolver: TargetResolver) -> CommandResult {
        let control = Control(index: index, home: home, lexicon: lexicon, unit: home.displayTemperatureUnit)
        guard let plan = control.plan(parse), parse.verb != nil || !parse.spec.isEmpty || parse.compare != nil else {
            return refusal(.notUnderstood, lexicon.message("notUnderstood"), explanation: parse.explanation)
        }
        let resolution = resolver.resolve(parse.spec) { entry, explicit in
            control.fits(index.services[entry], plan, explicit: explicit)
        }
        let (entries, refusal) = self.entries(of: resolution, parse.explanation)
        if let refusal { return refusal }
        var chosen: [(entry: Int, alternative: Alternative)] = []
        if plan.perService {
            for entry in entries {
                if let alternative = plan.alternatives.first(where: {
                    control.accepts(index.services[entry], $0, explicit: true)
                }) {
                    chosen.append((entry, alternative))
                }
            }
        } else if let alternative = plan.alternatives.first(where: { alternative in
            entries.contains { control.accepts(index.services[$0], alternative, explicit: true) }
        }) {
            for entry in entries where control.accepts(index.services[entry], alternative, explicit: true) {
                chosen.append((entry, alternative))
            }
        }
        var actions: [CommandAction] = []
        for (entry, alternative) in chosen {
            for write in alternative.writes {
                switch action(entry: entry, characteristic: write.characteristic, planned: write.value) {
                case .success(let action): actions.append(action)
                case .failure(let refusal):
                    return self.refusal(.invalidValue, refusal.message, explanation: parse.explanation)
                }
            }
        }
        guard !actions.isEmpty else {
            return self.refusal(.notUnderstood, lexicon.message("notUnderstood"), explanation: parse.explanation)
        }
        return CommandResult(
            text: text,
            outcome: .control,
            message: Describe(home: home, index: index, lexicon: lexicon).control(actions),
            actions: actions,
            explanation: parse.explanation
        )
    }

    /// The write of `planned` to the characteristic named `name` of `entry`, or why not.
    private func action(entry: Int, characteristic name: String, planned: Planned) -> Result<CommandAction, Refusal> {
        let service = index.services[entry]
        let accessory = home.accessories[service.accessory]
        guard let position = service.characteristics[name] else {
            return .failure(Refusal(lexicon.message("notUnderstood")))
        }
        let characteristic = accessory.services[service.service].characteristics[position]
        let metadata = characteristic.metadata
        let current = characteristic.value
        var value: HAPValue
        var target: HAPValue?
        var relative = false
        switch planned {
        case .flag(let flag):
            guard
                let hap = characteristic.format == .bool
                    ? .bool(flag) : Values.hapValue(flag ? 1 : 0, format: characteristic.format)
            else {
                return .failure(Refusal(lexicon.message("notUnderstood")))
            }
            value = hap
            target = hap
        case .toggle:
            let isOn: Bool
            switch current {
            case .bool(let flag)?: isOn = flag
            case let other?: isOn = (other.numericValue ?? 0) != 0
            case nil: isOn = false
            }
            guard
                let hap = characteristic.format == .bool
                    ? .bool(!isOn) : Values.hapValue(isOn ? 0 : 1, format: characteristic.format)
            else {
                return .failure(Refusal(lexicon.message("notUnderstood")))
            }
            value = hap
            target = hap
        case .value(let number):
            let stepped = Values.stepped(number, metadata)
            guard Values.isAllowed(stepped, metadata), let hap = Values.hapValue(stepped, format: characteristic.format)
            else {
                let describe = Describe(home: home, index: index, lexicon: lexicon)
                return .failure(
                    Refusal(describe.outOfRange(number, name: name, accessory: accessory.name, metadata: metadata))
                )
            }
            value = hap
            target = hap
        case .change(let delta):
            relative = true
            guard let deltaValue = Values.hapValue(delta, format: .float) else {
                return .failure(Refusal(lexicon.message("notUnderstood")))
            }
            value = deltaValue
            if let number = current?.numericValue {
                var next = Values.stepped(number + delta, metadata)
                if let min = metadata.minValue { next = max(min, next) }
                if let max = metadata.maxValue { next = min(max, next) }
                target = Values.hapValue(next, format: characteristic.format)
            }
        }
        return .success(
            CommandAction(
                self.target(entry, value: nil),
                characteristic: name,
                characteristicID: characteristic.id,
                value: value,
                relative: relative,
                target: target
            )
        )
    }

    /// A scene said alone, after a scene verb, or by a built-in scene's usual phrase.
    private func scene(_ words: [String]) -> CommandResult? {
        var rest = words
        for verb in lexicon.sceneVerbs where rest.count > verb.count && Array(rest.prefix(verb.count)) == verb {
            rest.removeFirst(verb.count)
            break
        }
        var found = index.sceneByWords[rest]
        if found == nil, let last = rest.last, rest.count > 1, lexicon.sceneWords.contains(last) {
            rest.removeLast()
            found = index.sceneByWords[rest]
        }
        var how = "name"
        if found == nil, let kind = lexicon.builtInScenes[words] ?? lexicon.builtInScenes[rest] {
            found = index.sceneByKind[kind]
            how = "phrase"
        }
        guard let found else { return nil }
        let scene = home.actionSets[found]
        return CommandResult(
            text: text,
            outcome: .scene,
            message: "Running \(scene.name).",
            scene: CommandScene(id: scene.id, name: scene.name),
            explanation: [
                CommandMatch(
                    words: rest.joined(separator: " "),
                    role: "actionSet",
                    meaning: scene.name + (how == "phrase" ? " (usual phrase)" : "")
                )
            ]
        )
    }

    /// What a matched phrase stands for, for the explanation.
    func describe(_ meaning: Meaning) -> (role: String, meaning: String) {
        switch meaning {
        case .room(let id): return ("room", index.roomNames[id] ?? "")
        case .zone(let zone): return ("zone", home.zones[zone].name)
        case .type(let names, _): return ("type", names.joined(separator: " or "))
        case .word(let word): return ("word", "\(word)")
        case .entity(let entity, _):
            switch entity {
            case .accessory(let accessory): return ("accessory", home.accessories[accessory].name)
            case .alias(let accessory, let room):
                return ("accessory", "\(home.accessories[accessory].name) (in \(index.roomNames[room] ?? ""))")
            case .service(let entry):
                let service = index.services[entry]
                return ("service", home.accessories[service.accessory].services[service.service].name)
            case .group(let group): return ("serviceGroup", home.serviceGroups[group].name)
            case .scene(let scene): return ("actionSet", home.actionSets[scene].name)
            }
        }
    }

    /// The services a resolution found, or the result that says why there are none.
    func entries(of resolution: Resolution, _ explanation: [CommandMatch]) -> ([Int], CommandResult?) {
        switch resolution {
        case .services(let found): (found, nil)
        case .ambiguous(let candidates): ([], ambiguous(candidates, explanation))
        case .nothing(let message): ([], refusal(.notUnderstood, message, explanation: explanation))
        }
    }

    /// The JSON target of a service entry, with `value`.
    func target(_ entry: Int, value: HAPValue?) -> CommandTarget {
        let service = index.services[entry]
        let accessory = home.accessories[service.accessory]
        return CommandTarget(
            accessoryID: accessory.id,
            accessoryName: accessory.name,
            serviceID: accessory.services[service.service].id,
            serviceName: accessory.services[service.service].name,
            serviceType: service.typeName,
            room: index.roomNames[accessory.roomID] ?? "",
            value: value
        )
    }

    /// A result that does nothing.
    func refusal(_ outcome: CommandOutcome, _ message: String, explanation: [CommandMatch] = []) -> CommandResult {
        CommandResult(text: text, outcome: outcome, message: message, explanation: explanation)
    }

    /// A question back.
    func ambiguous(_ candidates: [CommandCandidate], _ explanation: [CommandMatch]) -> CommandResult {
        let names = candidates.map { candidate in
            candidate.room.map { "\(candidate.name) in the \($0)" } ?? candidate.name
        }
        return CommandResult(
            text: text,
            outcome: .ambiguous,
            message: lexicon.message("whichOne", ["candidates": Phrases.list(names)]),
            candidates: candidates,
            explanation: explanation
        )
    }
}

/// Why a sentence is refused, as a sentence.
struct Refusal: Error {
    /// The sentence.
    var message: String

    /// Makes a refusal.
    init(_ message: String) { self.message = message }
}
