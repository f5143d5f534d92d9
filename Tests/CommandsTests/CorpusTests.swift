import Commands
import Foundation
import HAPTypes
import HomeGraph
import Testing

/// A value the corpus expects: a boolean or a number (compared within ``CorpusExpectation/tolerance``).
enum ExpectedValue: Decodable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case number(Double)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else {
            self = .number(try container.decode(Double.self))
        }
    }

    var description: String {
        switch self {
        case .bool(let flag): "\(flag)"
        case .number(let number): "\(number)"
        }
    }

    /// Whether `actual` is this value: the same boolean, or a number within the tolerance.
    func matches(_ actual: HAPValue?) -> Bool {
        switch (self, actual) {
        case (.bool(let flag), .bool(let other)?): flag == other
        case (.number(let number), let value?):
            value.numericValue.map { abs($0 - number) <= CorpusExpectation.tolerance } ?? false
        default: false
        }
    }
}

/// One line of the corpus: a sentence, where and by whom it is said, and the fields of the result it must have.
///
/// Only the fields present are compared. `targets` are service names (order-free); `characteristic`, `value` and
/// `relative` hold for every action on that characteristic (`also` names further characteristics each target
/// must get, such as a colour's saturation); for a query they are the query's characteristic and every target's
/// current value.
struct CorpusExpectation: Decodable {
    /// How far apart two numbers may be and still match.
    static let tolerance = 0.05

    /// A configuration change expected.
    struct Configuration: Decodable {
        var change: String
        var name: String?
        var newName: String?
        var roomName: String?
    }

    var home: String
    var category: String
    var text: String
    var room: String?
    var role: String?
    var outcome: String
    var targets: [String]?
    var characteristic: String?
    var value: ExpectedValue?
    var relative: Bool?
    var also: [String: ExpectedValue]?
    var queryKind: String?
    var scene: String?
    var candidates: [String]?
    var configuration: Configuration?

    /// The context the sentence is said in.
    var context: CommandContext {
        CommandContext(room: room, role: role.flatMap(UserRole.init(rawValue:)) ?? .owner)
    }

    /// What of `result` differs from this expectation; empty when it matches.
    func mismatches(_ result: CommandResult) -> [String] {
        var problems: [String] = []
        if result.outcome.rawValue != outcome {
            problems.append("outcome \(result.outcome.rawValue), expected \(outcome)")
            return problems
        }
        switch result.outcome {
        case .control: problems += controlMismatches(result.actions ?? [])
        case .query:
            guard let query = result.query else { return ["no query"] }
            if let queryKind, query.kind.rawValue != queryKind {
                problems.append("query kind \(query.kind.rawValue), expected \(queryKind)")
            }
            if let characteristic, query.characteristic != characteristic {
                problems.append("characteristic \(query.characteristic), expected \(characteristic)")
            }
            if let targets, Set(query.targets.map(\.serviceName)) != Set(targets) {
                problems.append("targets \(query.targets.map(\.serviceName).sorted()), expected \(targets.sorted())")
            }
            if let value, let wrong = query.targets.first(where: { !value.matches($0.value) }) {
                problems.append("\(wrong.serviceName) is \(wrong.value.map { "\($0)" } ?? "nil"), expected \(value)")
            }
        case .scene:
            if let scene, result.scene?.name != scene {
                problems.append("scene \(result.scene?.name ?? "none"), expected \(scene)")
            }
        case .ambiguous:
            let names = (result.candidates ?? []).map(\.name)
            if let candidates, Set(names) != Set(candidates) {
                problems.append("candidates \(names.sorted()), expected \(candidates.sorted())")
            }
        case .configure, .notPermitted:
            guard let configuration else { break }
            guard let got = result.configuration else {
                if result.outcome == .configure { problems.append("no configuration") }
                break
            }
            if got.change != configuration.change {
                problems.append("change \(got.change), expected \(configuration.change)")
            }
            if let name = configuration.name, got.name != name { problems.append("name \(got.name), expected \(name)") }
            if let newName = configuration.newName, got.newName?.lowercased() != newName.lowercased() {
                problems.append("new name \(got.newName ?? "none"), expected \(newName)")
            }
            if let roomName = configuration.roomName, got.roomName != roomName {
                problems.append("room \(got.roomName ?? "none"), expected \(roomName)")
            }
        case .notUnderstood, .invalidValue:
            break
        }
        return problems
    }

    private func controlMismatches(_ actions: [CommandAction]) -> [String] {
        var problems: [String] = []
        if actions.isEmpty { return ["no actions"] }
        let served = actions.map(\.serviceName)
        if let targets, Set(served) != Set(targets) {
            problems.append("targets \(Set(served).sorted()), expected \(targets.sorted())")
        }
        let covered = Set(targets ?? served)
        var checks: [(characteristic: String, value: ExpectedValue?)] = []
        if let characteristic { checks.append((characteristic, value)) }
        for (name, value) in (also ?? [:]).sorted(by: { $0.key < $1.key }) { checks.append((name, value)) }
        if !checks.isEmpty {
            let allowed = Set(checks.map(\.characteristic))
            for action in actions where !allowed.contains(action.characteristic) {
                problems.append(
                    "\(action.serviceName) gets \(action.characteristic), expected only \(allowed.sorted())"
                )
            }
        }
        for check in checks {
            let matching = actions.filter { $0.characteristic == check.characteristic }
            let missing = covered.subtracting(matching.map(\.serviceName))
            if !missing.isEmpty { problems.append("no \(check.characteristic) for \(missing.sorted())") }
            if let value = check.value {
                for action in matching where !value.matches(action.value) {
                    problems.append("\(action.serviceName) \(check.characteristic) \(action.value), expected \(value)")
                }
            }
        }
        if let relative {
            for action in actions where action.relative != relative {
                problems.append("\(action.serviceName) relative \(action.relative), expected \(relative)")
            }
        }
        return problems
    }
}

/// Reads the corpus files.
enum Corpus {
    /// The categories the corpus covers; each has at least ``minimumPerCategory`` sentences.
    static let categories = [
        "power", "brightness", "color", "position", "lock", "temperature", "fan", "humidity", "security",
        "relative", "rooms", "zones", "here", "names", "questions", "scenes", "numbers", "refusal", "ambiguous",
        "invalidValue", "permission", "configure", "hard",
    ]
    /// The fewest sentences a category has.
    static let minimumPerCategory = 20
    /// The fewest sentences in all.
    static let minimumTotal = 500
    /// The accuracy every category must reach.
    static let requiredAccuracy = 0.98

    /// Every line of every Corpus/*.jsonl file, with its file and line number.
    static func load() throws -> [(place: String, expectation: CorpusExpectation)] {
        let directory = try #require(Bundle.module.url(forResource: "Corpus", withExtension: nil))
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "jsonl" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        var lines: [(String, CorpusExpectation)] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                let place = "\(file.lastPathComponent):\(number + 1)"
                do {
                    lines.append((place, try JSONDecoder().decode(CorpusExpectation.self, from: Data(line.utf8))))
                } catch {
                    Issue.record("\(place) is not a corpus line: \(error)")
                }
            }
        }
        return lines
    }
}

@Suite struct CorpusTests {
    @Test func theCorpusIsLargeEnoughAndCoversEveryCategory() throws {
        let lines = try Corpus.load()
        #expect(lines.count >= Corpus.minimumTotal)
        let counts = Dictionary(grouping: lines, by: \.expectation.category).mapValues(\.count)
        for category in Corpus.categories {
            #expect((counts[category] ?? 0) >= Corpus.minimumPerCategory, "\(category): \(counts[category] ?? 0)")
        }
        for category in counts.keys { #expect(Corpus.categories.contains(category), "unknown category \(category)") }
        let outcomes = Set(CommandOutcome.allCases.map(\.rawValue))
        let kinds = Set(QueryKind.allCases.map(\.rawValue))
        for (place, expectation) in lines {
            #expect(outcomes.contains(expectation.outcome), "\(place): outcome \(expectation.outcome)")
            if let kind = expectation.queryKind { #expect(kinds.contains(kind), "\(place): kind \(kind)") }
            if let role = expectation.role { #expect(UserRole(rawValue: role) != nil, "\(place): role \(role)") }
        }
        let duplicates = Dictionary(grouping: lines) {
            "\($0.expectation.home)|\($0.expectation.room ?? "")|\($0.expectation.role ?? "")|\($0.expectation.text)"
        }
        .filter { $0.value.count > 1 }.keys
        #expect(duplicates.isEmpty, "sentences twice: \(duplicates.sorted())")
    }

    /// Every name a line mentions is one the home has, so the expectations cannot rot when a home changes.
    @Test func everyNameTheCorpusUsesIsInItsHome() throws {
        let homes = try CorpusHomes.all()
        let catalog = try TypeCatalog.shared()
        for (place, expectation) in try Corpus.load() {
            let home = try #require(homes[expectation.home], "\(place): no home \(expectation.home)")
            let services = Set(home.accessories.flatMap { $0.services.dropFirst().map(\.name) })
            let rooms = Set(home.allRooms.map(\.name))
            let everything = Set(home.uniquelyNamedObjects()).union(services)
            for target in expectation.targets ?? [] {
                #expect(services.contains(target), "\(place): no service \(target) in \(expectation.home)")
            }
            for candidate in expectation.candidates ?? [] {
                #expect(everything.contains(candidate), "\(place): no \(candidate) in \(expectation.home)")
            }
            if let scene = expectation.scene {
                #expect(home.actionSets.contains { $0.name == scene }, "\(place): no scene \(scene)")
            }
            if let room = expectation.room { #expect(rooms.contains(room), "\(place): no room \(room)") }
            if let configuration = expectation.configuration {
                if let name = configuration.name { #expect(everything.contains(name), "\(place): no \(name)") }
                if let roomName = configuration.roomName {
                    #expect(rooms.contains(roomName), "\(place): no room \(roomName)")
                }
            }
            for name in [expectation.characteristic].compactMap(\.self) + (expectation.also ?? [:]).keys.sorted() {
                #expect(catalog.characteristic(named: name) != nil, "\(place): no characteristic \(name)")
            }
        }
    }

    /// The engine reads every sentence as the corpus says, to at least 98 % in every category.
    @Test func theEngineReadsTheCorpus() throws {
        let catalog = try TypeCatalog.shared()
        let engines = try CorpusHomes.all().mapValues { CommandEngine(home: $0, catalog: catalog) }
        var passed: [String: Int] = [:]
        var total: [String: Int] = [:]
        var failures: [String] = []
        for (place, expectation) in try Corpus.load() {
            let engine = try #require(engines[expectation.home])
            let result = engine.interpret(expectation.text, context: expectation.context)
            let problems = expectation.mismatches(result)
            total[expectation.category, default: 0] += 1
            if problems.isEmpty {
                passed[expectation.category, default: 0] += 1
            } else {
                failures.append(
                    "\(place) [\(expectation.home)\(expectation.room.map { ", in \($0)" } ?? "")] \"\(expectation.text)\": "
                        + problems.joined(separator: "; ") + " (message: \(result.message))"
                )
            }
        }
        var report = ["corpus accuracy by category:"]
        for category in total.keys.sorted() {
            let accuracy = Double(passed[category] ?? 0) / Double(total[category] ?? 1)
            report.append(
                "  \(category): \(passed[category] ?? 0)/\(total[category] ?? 0) "
                    + String(format: "%.1f %%", accuracy * 100)
            )
        }
        let all = total.values.reduce(0, +)
        report.append("  all: \(passed.values.reduce(0, +))/\(all)")
        print((report + ["failures:"] + failures.map { "  " + $0 }).joined(separator: "\n"))
        for category in total.keys.sorted() {
            let accuracy = Double(passed[category] ?? 0) / Double(total[category] ?? 1)
            #expect(
                accuracy >= Corpus.requiredAccuracy,
                "\(category): \(String(format: "%.1f", accuracy * 100)) % is below 98 %"
            )
        }
    }
}

/// The comparison itself: a matching result passes and each kind of mismatch fails.
@Suite struct CorpusExpectationTests {
    static let id = UUID(uuidString: "00000000-0000-4000-8000-000000000001") ?? UUID()

    static func expectation(_ json: String) throws -> CorpusExpectation {
        try JSONDecoder().decode(CorpusExpectation.self, from: Data(json.utf8))
    }

    static func action(
        _ service: String,
        _ characteristic: String,
        _ value: HAPValue,
        relative: Bool = false
    )
        -> CommandAction
    {
        CommandAction(
            accessoryID: id,
            accessoryName: service,
            serviceID: id,
            serviceName: service,
            serviceType: "lightbulb",
            room: "Kitchen",
            characteristic: characteristic,
            characteristicID: id,
            value: value,
            relative: relative,
            target: value
        )
    }

    static func control(_ actions: [CommandAction]) -> CommandResult {
        CommandResult(text: "x", outcome: .control, message: "Done.", actions: actions)
    }

    @Test func controlMatchesOnlyTheSameTargetsCharacteristicAndValue() throws {
        let e = try Self.expectation(
            #"{"home":"flat","category":"power","text":"x","outcome":"control","targets":["Lamp","Hall Light"],"characteristic":"on","value":true}"#
        )
        #expect(
            e.mismatches(
                Self.control([Self.action("Hall Light", "on", .bool(true)), Self.action("Lamp", "on", .bool(true))])
            ).isEmpty
        )
        #expect(!e.mismatches(Self.control([Self.action("Lamp", "on", .bool(true))])).isEmpty)
        #expect(
            !e.mismatches(
                Self.control([Self.action("Lamp", "on", .bool(true)), Self.action("Hall Light", "on", .bool(false))])
            ).isEmpty
        )
        #expect(
            !e.mismatches(
                Self.control([Self.action("Lamp", "on", .bool(true)), Self.action("Hall Light", "brightness", .int(1))])
            ).isEmpty
        )
        #expect(!e.mismatches(CommandResult(text: "x", outcome: .notUnderstood, message: "No.")).isEmpty)
        #expect(!e.mismatches(Self.control([])).isEmpty)
    }

    @Test func numbersMatchWithinTheToleranceAndRelativeIsChecked() throws {
        let e = try Self.expectation(
            #"{"home":"house","category":"temperature","text":"x","outcome":"control","targets":["Lamp"],"characteristic":"targetTemperature","value":21.11,"relative":false}"#
        )
        #expect(e.mismatches(Self.control([Self.action("Lamp", "targetTemperature", .float(21.1))])).isEmpty)
        #expect(!e.mismatches(Self.control([Self.action("Lamp", "targetTemperature", .float(21.2))])).isEmpty)
        #expect(
            !e.mismatches(Self.control([Self.action("Lamp", "targetTemperature", .float(21.1), relative: true)]))
                .isEmpty
        )
        #expect(!e.mismatches(Self.control([Self.action("Lamp", "targetTemperature", .bool(true))])).isEmpty)
    }

    @Test func alsoNamesFurtherCharacteristics() throws {
        let e = try Self.expectation(
            #"{"home":"flat","category":"color","text":"x","outcome":"control","targets":["Lamp"],"characteristic":"hue","value":240,"also":{"saturation":100}}"#
        )
        #expect(
            e.mismatches(
                Self.control([Self.action("Lamp", "hue", .float(240)), Self.action("Lamp", "saturation", .float(100))])
            ).isEmpty
        )
        #expect(!e.mismatches(Self.control([Self.action("Lamp", "hue", .float(240))])).isEmpty)
        #expect(
            !e.mismatches(
                Self.control([Self.action("Lamp", "hue", .float(240)), Self.action("Lamp", "saturation", .float(0))])
            ).isEmpty
        )
    }

    @Test func queriesScenesCandidatesAndConfigurationAreCompared() throws {
        let target = CommandTarget(
            accessoryID: Self.id,
            accessoryName: "Nursery Sensor",
            serviceID: Self.id,
            serviceName: "Nursery Temperature",
            serviceType: "temperatureSensor",
            room: "Nursery",
            value: .float(19.5)
        )
        let query = try Self.expectation(
            #"{"home":"flat","category":"questions","text":"x","outcome":"query","queryKind":"state","characteristic":"currentTemperature","targets":["Nursery Temperature"],"value":19.5}"#
        )
        func answer(_ kind: QueryKind, _ characteristic: String, _ target: CommandTarget) -> CommandResult {
            CommandResult(
                text: "x",
                outcome: .query,
                message: "19.5",
                query: CommandQuery(kind: kind, characteristic: characteristic, targets: [target], answer: "19.5")
            )
        }
        #expect(query.mismatches(answer(.state, "currentTemperature", target)).isEmpty)
        #expect(!query.mismatches(answer(.which, "currentTemperature", target)).isEmpty)
        #expect(!query.mismatches(answer(.state, "targetTemperature", target)).isEmpty)
        var warmer = target
        warmer.value = .float(22)
        #expect(!query.mismatches(answer(.state, "currentTemperature", warmer)).isEmpty)

        let scene = try Self.expectation(
            #"{"home":"flat","category":"scenes","text":"x","outcome":"scene","scene":"Sleep"}"#
        )
        func running(_ name: String) -> CommandResult {
            CommandResult(text: "x", outcome: .scene, message: "OK", scene: CommandScene(id: Self.id, name: name))
        }
        #expect(scene.mismatches(running("Sleep")).isEmpty)
        #expect(!scene.mismatches(running("Wake Up")).isEmpty)

        let ambiguous = try Self.expectation(
            #"{"home":"house","category":"ambiguous","text":"x","outcome":"ambiguous","candidates":["Front Door","Back Door"]}"#
        )
        func asking(_ names: [String]) -> CommandResult {
            CommandResult(
                text: "x",
                outcome: .ambiguous,
                message: "Which one?",
                candidates: names.map { CommandCandidate(kind: "service", id: Self.id, name: $0) }
            )
        }
        #expect(ambiguous.mismatches(asking(["Back Door", "Front Door"])).isEmpty)
        #expect(!ambiguous.mismatches(asking(["Back Door"])).isEmpty)

        let rename = try Self.expectation(
            #"{"home":"flat","category":"configure","text":"x","outcome":"configure","configuration":{"change":"rename","name":"Kitchen Light","newName":"Counter Light"}}"#
        )
        func change(_ newName: String) -> CommandResult {
            CommandResult(
                text: "x",
                outcome: .configure,
                message: "OK",
                configuration: CommandConfiguration(
                    change: "rename",
                    kind: "accessory",
                    id: Self.id,
                    name: "Kitchen Light",
                    newName: newName
                )
            )
        }
        #expect(rename.mismatches(change("counter light")).isEmpty)
        #expect(!rename.mismatches(change("Counter Lamp")).isEmpty)
    }

    @Test func booleansAndNumbersDecodeApart() throws {
        let flag = try Self.expectation(#"{"home":"f","category":"c","text":"x","outcome":"control","value":true}"#)
        let number = try Self.expectation(#"{"home":"f","category":"c","text":"x","outcome":"control","value":1}"#)
        #expect(flag.value == .bool(true))
        #expect(number.value == .number(1))
        #expect(!ExpectedValue.bool(true).matches(.uint(1)))
        #expect(ExpectedValue.number(1).matches(.uint(1)))
    }
}
