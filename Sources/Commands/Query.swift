import Foundation
import HAPTypes
import HomeGraph

/// Questions: which characteristic is asked about, of which services, and the answer from current values.
struct Query {
    /// The sentence being read.
    let interpretation: Interpretation
    /// Resolves the targets.
    let resolver: TargetResolver

    var index: NameIndex { interpretation.index }
    var home: Home { interpretation.home }
    var lexicon: Lexicon { interpretation.lexicon }

    /// The characteristics that answer a state, in order of preference, with whether a value has the state.
    static let states: [String: [(characteristic: String, holds: @Sendable (Double) -> Bool)]] = [
        "on": [("on", { $0 != 0 }), ("active", { $0 != 0 })],
        "off": [("on", { $0 == 0 }), ("active", { $0 == 0 })],
        "locked": [("lockCurrentState", { $0 == 1 })],
        "unlocked": [("lockCurrentState", { $0 == 0 })],
        "open": [
            ("currentPosition", { $0 > 0 }), ("currentDoorState", { $0 != 1 }), ("contactSensorState", { $0 == 1 }),
        ],
        "closed": [
            ("currentPosition", { $0 == 0 }), ("currentDoorState", { $0 == 1 }), ("contactSensorState", { $0 == 0 }),
        ],
        "motion": [("motionDetected", { $0 != 0 })],
        "armed": [("securitySystemCurrentState", { $0 <= 2 })],
        "disarmed": [("securitySystemCurrentState", { $0 == 3 })],
    ]

    /// The characteristics a named value is read from.
    static let attributes: [String: [String]] = [
        "temperature": ["currentTemperature"], "humidity": ["currentRelativeHumidity"],
        "brightness": ["brightness"], "battery": ["batteryLevel"], "speed": ["rotationSpeed"],
        "position": ["currentPosition"], "airQuality": ["airQuality"], "colorTemperature": ["colorTemperature"],
        "mode": ["targetHeatingCoolingState"], "color": ["hue"], "targetTemperature": ["targetTemperature"],
        "targetHumidity": ["targetRelativeHumidity"],
        "setting": [
            "targetTemperature", "rotationSpeed", "brightness", "targetPosition", "securitySystemTargetState",
            "targetDoorState",
        ],
    ]

    /// The answer to the question `parse` holds.
    func run(_ parse: Parse) -> CommandResult {
        var attribute = parse.attribute
        switch parse.question {
        case "temperature": attribute = "temperature"
        case "humidity": attribute = "humidity"
        case "brightness": attribute = "brightness"
        default: break
        }
        if attribute == "temperature", parse.verb == .set || parse.preposition == "to" {
            attribute = "targetTemperature"
        }
        if attribute == nil, parse.state == nil, parse.verb == .set { attribute = "setting" }
        var state = parse.state
        if state == nil, parse.there, parse.spec.items.contains(where: { $0.tag.text == "motion" }) { state = "motion" }
        if let state, Self.states[state] != nil {
            return stateQuestion(parse, state: state)
        }
        if let attribute, let characteristics = Self.attributes[attribute] {
            return valueQuestion(parse, characteristics: characteristics)
        }
        return interpretation.refusal(.notUnderstood, lexicon.message("notUnderstood"), explanation: parse.explanation)
    }

    /// The kind of a yes/no or list question.
    private func kind(_ parse: Parse) -> QueryKind {
        switch parse.question {
        case "count": return .count
        case "which": return .which
        case "what" where !parse.spec.items.isEmpty && parse.spec.items.allSatisfy(\.plural): return .which
        default: break
        }
        switch parse.spec.quantifier {
        case "any", "anything": return .any
        case "all", "everything": return .all
        default: return .state
        }
    }

    /// "is the front door locked?", "which lights are on?", "how many …", "are any …", "is everything …".
    private func stateQuestion(_ parse: Parse, state: String) -> CommandResult {
        let kind = kind(parse)
        let options = Self.states[state] ?? []
        var spec = parse.spec
        // "is there motion": the motion sensors are what is asked about, not a target.
        spec.items.removeAll { item in item.tag.text == "motion" && state == "motion" }
        if kind != .state, spec.items.isEmpty { spec.wholeHome = true }
        if kind != .state { spec.quantifier = spec.quantifier ?? "all" }
        let resolution = resolver.resolve(spec) { entry, _ in
            options.contains { option in readable(entry, option.characteristic) }
        }
        let (entries, refusal) = interpretation.entries(of: resolution, parse.explanation)
        if let refusal { return refusal }
        var targets: [CommandTarget] = []
        var holding: [String] = []
        var notHolding: [String] = []
        var characteristicName = options.first?.characteristic ?? ""
        for entry in entries {
            guard let option = options.first(where: { readable(entry, $0.characteristic) }) else { continue }
            if targets.isEmpty { characteristicName = option.characteristic }
            let value = self.value(entry, option.characteristic)
            targets.append(interpretation.target(entry, value: value))
            let name = serviceName(entry)
            if let number = value.flatMap(Self.number), option.holds(number) {
                holding.append(name)
            } else {
                notHolding.append(name)
            }
        }
        let answer = answerState(
            kind: kind,
            state: state,
            holding: holding,
            notHolding: notHolding,
            total: targets.count
        )
        return CommandResult(
            text: interpretation.text,
            outcome: .query,
            message: answer,
            query: CommandQuery(kind: kind, characteristic: characteristicName, targets: targets, answer: answer),
            explanation: parse.explanation
        )
    }

    /// The sentence answering a state question.
    private func answerState(
        kind: QueryKind,
        state: String,
        holding: [String],
        notHolding: [String],
        total: Int
    ) -> String {
        let said = lexicon.stateText[state] ?? state
        let opposite = lexicon.stateOpposites[state].map { lexicon.stateText[$0] ?? $0 } ?? "not \(said)"
        func names(_ list: [String], _ state: String) -> String {
            lexicon.message(list.count == 1 ? "isState" : "areState", ["names": Phrases.list(list), "state": state])
        }
        let yes = lexicon.message("yes")
        let no = lexicon.message("no")
        switch kind {
        case .state:
            if notHolding.isEmpty { return "\(yes), \(names(holding, said))." }
            if holding.isEmpty { return "\(no), \(names(notHolding, opposite))." }
            return "\(names(holding, said)); \(names(notHolding, opposite))."
        case .which:
            if holding.isEmpty { return capitalized(lexicon.message("noneState", ["state": said])) + "." }
            return names(holding, said) + "."
        case .any:
            if holding.isEmpty { return "\(no), \(lexicon.message("noneState", ["state": said]))." }
            return "\(yes), \(names(holding, said))."
        case .all:
            if notHolding.isEmpty, total == 1 { return "\(yes), \(names(holding, said))." }
            if notHolding.isEmpty {
                return "\(yes), \(lexicon.message("allState", ["count": String(total), "state": said]))."
            }
            return "\(no), \(names(notHolding, opposite))."
        case .count:
            let key = holding.count == 1 ? "countOne" : "countState"
            let counted = lexicon.message(key, ["count": String(holding.count), "total": String(total), "state": said])
            return capitalized(counted) + (holding.isEmpty ? "." : ": \(Phrases.list(holding)).")
        }
    }

    /// "what's the temperature in the nursery?": each target's value.
    private func valueQuestion(_ parse: Parse, characteristics: [String]) -> CommandResult {
        var spec = parse.spec
        if spec.items.isEmpty, spec.rooms.isEmpty, spec.zones.isEmpty, !spec.here, interpretation.context.room == nil {
            spec.wholeHome = true
            spec.quantifier = "all"
        }
        if spec.items.isEmpty, !spec.rooms.isEmpty || !spec.zones.isEmpty || spec.here { spec.quantifier = "all" }
        let resolution = resolver.resolve(spec) { entry, _ in
            characteristics.contains { readable(entry, $0) }
        }
        let (entries, refusal) = interpretation.entries(of: resolution, parse.explanation)
        if let refusal { return refusal }
        let describe = Describe(home: home, index: index, lexicon: lexicon)
        var targets: [CommandTarget] = []
        var parts: [String] = []
        var used = characteristics[0]
        for entry in entries {
            guard let characteristic = characteristics.first(where: { readable(entry, $0) }) else { continue }
            if targets.isEmpty { used = characteristic }
            let value = self.value(entry, characteristic)
            targets.append(interpretation.target(entry, value: value))
            let what = index.characteristicNames[characteristic] ?? characteristic
            let room = index.roomNames[index.services[entry].roomID] ?? ""
            let said = describe.text(of: value, characteristic: characteristic)
            let onlyOneInRoom = entries.filter { index.services[$0].roomID == index.services[entry].roomID }.count == 1
            parts.append(
                onlyOneInRoom && !spec.rooms.isEmpty
                    ? lexicon.message("valueIn", ["what": what, "room": room, "value": said])
                    : lexicon.message("valueOf", ["what": what, "name": serviceName(entry), "value": said])
            )
        }
        let answer = parts.joined(separator: "; ") + "."
        return CommandResult(
            text: interpretation.text,
            outcome: .query,
            message: answer,
            query: CommandQuery(kind: .state, characteristic: used, targets: targets, answer: answer),
            explanation: parse.explanation
        )
    }

    /// Whether the service has the characteristic, readable.
    private func readable(_ entry: Int, _ characteristic: String) -> Bool {
        let service = index.services[entry]
        guard let position = service.characteristics[characteristic] else { return false }
        return home.accessories[service.accessory].services[service.service].characteristics[position].permissions
            .contains(.read)
    }

    /// The current value of a characteristic of the service.
    private func value(_ entry: Int, _ characteristic: String) -> HAPValue? {
        let service = index.services[entry]
        guard let position = service.characteristics[characteristic] else { return nil }
        return home.accessories[service.accessory].services[service.service].characteristics[position].value
    }

    /// A value as a number (true is 1).
    private static func number(_ value: HAPValue) -> Double? {
        if case .bool(let flag) = value { return flag ? 1 : 0 }
        return value.numericValue
    }

    /// The service's name.
    private func serviceName(_ entry: Int) -> String {
        let service = index.services[entry]
        return home.accessories[service.accessory].services[service.service].name
    }

    /// The sentence with a capital first letter.
    private func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
