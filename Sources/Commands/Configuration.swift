import Foundation
import HomeGraph

/// Configuration sentences ("rename X to Y", "move X to the bedroom"), which only owners and administrators may say.
struct Configuration {
    /// The sentence being read.
    let interpretation: Interpretation
    /// The speaker's room.
    let contextRoom: UUID?

    var index: NameIndex { interpretation.index }
    var home: Home { interpretation.home }
    var lexicon: Lexicon { interpretation.lexicon }

    /// The change `verb` asks for, with the words of the sentence.
    func run(verb: Verb, words: [String]) -> CommandResult {
        // The new name keeps the speaker's spelling: it is the original text after the last " to ", or (for "call
        // X Y") after the longest run of words that names a thing.
        let original = interpretation.text
        var subjectWords: [String] = []
        var objectText = ""
        if verb != .call, let cut = original.range(of: " to ", options: [.caseInsensitive, .backwards]) {
            subjectWords = Array(interpretation.engine.words.of(String(original[..<cut.lowerBound])).dropFirst())
            objectText = String(original[cut.upperBound...]).trimmingCharacters(in: Self.trimmed)
        } else if verb != .move {
            let pieces = original.split(whereSeparator: \.isWhitespace).dropFirst().map(String.init)
            for cut in stride(from: pieces.count - 1, to: 0, by: -1) {
                let words = interpretation.engine.words.of(pieces[..<cut].joined(separator: " "))
                if thing(words) != nil {
                    subjectWords = words
                    var rest = pieces[cut...]
                    // "rename the garage to": the "to" of a rename whose new name is missing is not the name.
                    if verb == .rename, rest.first?.lowercased() == "to" { rest = rest.dropFirst() }
                    objectText = rest.joined(separator: " ").trimmingCharacters(in: Self.trimmed)
                    break
                }
            }
        }
        // A new name of only articles and fillers ("rename garage to the") says no name.
        if interpretation.engine.words.of(objectText).isEmpty { objectText = "" }
        guard let subject = thing(subjectWords) else {
            return interpretation.refusal(
                .notUnderstood,
                lexicon.message(
                    "nothingThere",
                    ["what": "called '\(subjectWords.joined(separator: " "))'", "where": "in the home"]
                )
            )
        }
        var explanation = [
            CommandMatch(words: verb.rawValue, role: "verb", meaning: verb.rawValue),
            CommandMatch(words: subjectWords.joined(separator: " "), role: subject.kind, meaning: subject.name),
        ]
        guard !objectText.isEmpty else {
            let message =
                verb == .move ? lexicon.message("notUnderstood") : lexicon.message("noNewName", ["name": subject.name])
            return interpretation.refusal(.notUnderstood, message, explanation: explanation)
        }
        var configuration: CommandConfiguration
        var message: String
        switch verb {
        case .rename, .call:
            guard let newName = try? Names.validated(objectText) else {
                let problem = Names.problem(with: Names.normalized(objectText))?.sentence ?? "That name cannot be used"
                return interpretation.refusal(.invalidValue, problem + ".", explanation: explanation)
            }
            configuration = CommandConfiguration(
                change: "rename",
                kind: subject.kind,
                id: subject.id,
                name: subject.name,
                newName: newName
            )
            message = lexicon.message("rename", ["name": subject.name, "newName": newName])
            explanation.append(CommandMatch(words: objectText, role: "value", meaning: newName))
        default:
            guard subject.kind == "accessory", let room = index.roomByKey[interpretation.engine.words.of(objectText)]
            else {
                return interpretation.refusal(
                    .notUnderstood,
                    lexicon.message("notUnderstood"),
                    explanation: explanation
                )
            }
            let roomName = index.roomNames[room] ?? ""
            configuration = CommandConfiguration(
                change: "move",
                kind: subject.kind,
                id: subject.id,
                name: subject.name,
                roomID: room,
                roomName: roomName
            )
            message = lexicon.message("move", ["name": subject.name, "room": roomName])
            explanation.append(CommandMatch(words: objectText, role: "room", meaning: roomName))
        }
        guard interpretation.context.role.mayConfigure else {
            return interpretation.refusal(.notPermitted, lexicon.message("notPermitted"), explanation: explanation)
        }
        return CommandResult(
            text: original,
            outcome: .configure,
            message: message,
            configuration: configuration,
            explanation: explanation
        )
    }

    /// The one thing the words name exactly: an accessory, service, group, scene, room or zone.
    private func thing(_ words: [String]) -> (kind: String, id: UUID, name: String)? {
        guard let meanings = index.phrases[words] else { return nil }
        var found: [(String, UUID, String)] = []
        for meaning in meanings {
            switch meaning {
            case .room(let id): found.append(("room", id, index.roomNames[id] ?? ""))
            case .zone(let zone): found.append(("zone", home.zones[zone].id, home.zones[zone].name))
            case .entity(.accessory(let accessory), plural: false):
                found.append(("accessory", home.accessories[accessory].id, home.accessories[accessory].name))
            case .entity(.alias(let accessory, let room), plural: false) where room == contextRoom:
                found.append(("accessory", home.accessories[accessory].id, home.accessories[accessory].name))
            case .entity(.service(let entry), plural: false):
                let service = index.services[entry]
                let value = home.accessories[service.accessory].services[service.service]
                found.append(("service", value.id, value.name))
            case .entity(.group(let group), plural: false):
                found.append(("serviceGroup", home.serviceGroups[group].id, home.serviceGroups[group].name))
            case .entity(.scene(let scene), plural: false):
                found.append(("actionSet", home.actionSets[scene].id, home.actionSets[scene].name))
            default: continue
            }
        }
        return found.count == 1 ? found[0] : nil
    }

    /// Characters trimmed from a new name: spaces, full stops, quotes.
    static let trimmed = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: ".!?\"'\u{201C}\u{201D}"))
}
