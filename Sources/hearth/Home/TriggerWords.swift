import Foundation
import HearthKit

/// A characteristic as typed on the command line: its accessory and its characteristic, by name or id.
struct CharacteristicWords: Equatable, Sendable {
    /// The accessory, by name or id.
    var accessory: String
    /// The characteristic, by catalog name (`lockCurrentState`), name or id.
    var characteristic: String
}

/// An event of `hearth trigger add|edit` as typed, before names are looked up.
enum EventWords: Equatable, Sendable {
    /// `--when ACCESSORY CHARACTERISTIC [VALUE]`: becomes the value, or any change.
    case change(CharacteristicWords, value: String?)
    /// `--when-above/--when-below ACCESSORY CHARACTERISTIC NUMBER`: enters the range.
    case threshold(CharacteristicWords, min: Double?, max: Double?)
    /// `--at 07:30 [--on mon,tue]`.
    case calendar(TimeOfDay, [Weekday])
    /// `--at sunset-30m`.
    case sun(SunEvent, offsetSeconds: Int)
    /// `--when-arrive first|every`, `--when-leave last|every` [`--who me|NAME,NAME`]: every user of the home unless
    /// `--who` names some (`me`: the trigger's maker).
    case presence(PresenceChange, who: [String] = [])
    /// `--when-enter/--when-exit REGION LATITUDE LONGITUDE RADIUS` [`--who …`]: a position enters or leaves a
    /// circle (radius in metres); the maker's unless `--who` names others.
    case region(name: String, latitude: Double, longitude: Double, radius: Double, RegionTransition, who: [String])
    /// `--when ACCESSORY CHARACTERISTIC VALUE --held-for 10m`: the value has held that long.
    case held(CharacteristicWords, value: String, seconds: Int)
}

/// A condition of `hearth trigger add|edit` (`--if …`) as typed, before names are looked up.
enum ConditionWords: Equatable, Sendable {
    /// `after T`, `before T`, `between T1 T2`.
    case time(after: TimePoint?, before: TimePoint?)
    /// `ACCESSORY CHARACTERISTIC [OP] VALUE`.
    case characteristic(CharacteristicWords, Comparison, value: String)
    /// `anyone home`, `no one home`.
    case presence(PresenceRequirement)
    /// `not fired in 10m`.
    case notFiredWithin(seconds: Int)
}

/// A usage error of `hearth trigger add|edit`: a sentence naming the option and the forms it allows.
struct TriggerWordsError: Error, Equatable, CustomStringConvertible {
    /// The sentence.
    let description: String
}

/// The words of `hearth trigger add|edit NAME …`, read without the hub: what each option says, names unresolved.
///
/// Events, a timer, conditions, scenes and the end are each `nil`/empty when not given, so `edit` replaces only
/// what is given.
struct TriggerWords: Equatable, Sendable {
    /// The trigger's name (the first word that is not an option).
    var name: String?
    /// `--when…`, `--at`: the events, any one fires the trigger.
    var events: [EventWords] = []
    /// `--timer` with `--every` or `--on`.
    var timer: TimerSchedule?
    /// `--if …`: all must hold.
    var conditions: [ConditionWords] = []
    /// `--run SCENE`: the scenes it runs.
    var scenes: [String] = []
    /// `--end-after 5m`: seconds after a firing.
    var endAfterSeconds: Int?
    /// `--end-run SCENE`: the scenes run at the end (none: undo).
    var endScenes: [String] = []
    /// `--once`.
    var executeOnce = false
    /// `--no-conditions` (edit): take the conditions away.
    var removesConditions = false
    /// `--no-end` (edit): take the end away.
    var removesEnd = false
    /// `--repeatable` (edit): turn execute-once off.
    var repeatable = false
    /// `--catch-up 10m`.
    var catchUpSeconds: Int?
    /// `--disabled` (false) or `--enabled` (true); `nil` when neither is given.
    var isEnabled: Bool?
    /// `--json`, `--home HOME`, `--config FILE` when written after the trigger's name.
    var json = false
    /// `--home HOME` when written after the trigger's name.
    var home: String?
    /// `--config FILE` when written after the trigger's name.
    var config: String?

    /// The forms of each option, for usage errors.
    static let forms: [String: String] = [
        "--when": "--when ACCESSORY CHARACTERISTIC [VALUE]",
        "--when-above": "--when-above ACCESSORY CHARACTERISTIC NUMBER",
        "--when-below": "--when-below ACCESSORY CHARACTERISTIC NUMBER",
        "--when-arrive": "--when-arrive first|every",
        "--when-leave": "--when-leave last|every",
        "--when-enter": "--when-enter REGION LATITUDE LONGITUDE RADIUS-IN-METRES",
        "--when-exit": "--when-exit REGION LATITUDE LONGITUDE RADIUS-IN-METRES",
        "--who": "--who me|NAME[,NAME…] after --when-arrive, --when-leave, --when-enter or --when-exit",
        "--held-for": "--held-for DURATION (10m, 1h30m, 90s) after a --when with a value",
        "--at": "--at HH:MM or --at sunrise|sunset[+-OFFSET] (sunset-30m)",
        "--on": "--on DAYS (mon,tue,… or weekdays or weekend) after --at HH:MM or --timer",
        "--timer": "--timer YYYY-MM-DDTHH:MM",
        "--every": "--every N(m|h|d|w) (30m, 2h, 1d, 1w) after --timer",
        "--if":
            "--if \"after T\", \"before T\", \"between T1 T2\" (T: 18:00 or sunset-30m), \"anyone home\", \"no one home\", \"not fired in 10m\", or --if ACCESSORY CHARACTERISTIC [==|!=|<|<=|>|>=] VALUE",
        "--run": "--run SCENE",
        "--end-after": "--end-after DURATION (5m)",
        "--end-run": "--end-run SCENE",
        "--catch-up": "--catch-up DURATION (10m)",
        "--home": "--home HOME",
        "--config": "--config FILE",
    ]

    /// Reads the words after `add` or `edit`; throws a sentence naming the option and its forms.
    static func parse(_ words: [String]) throws(TriggerWordsError) -> TriggerWords {
        var result = TriggerWords()
        var index = 0
        var lastAt: Int?  // the index in `events` of the last `--at HH:MM`
        var lastWhen: Int?  // the index in `events` of the last `--when`
        var every: (option: String, recurrence: Recurrence)?
        var days: [Weekday]?
        while index < words.count {
            let word = words[index]
            index += 1
            guard word.hasPrefix("--") else {
                guard result.name == nil else {
                    throw TriggerWordsError(
                        description:
                            "'\(word)' is not an option; an option starts with -- (see 'hearth trigger add --help')"
                    )
                }
                result.name = word
                continue
            }
            // The values of the option: the words up to the next option.
            var values: [String] = []
            while index < words.count, !words[index].hasPrefix("--") {
                values.append(words[index])
                index += 1
            }
            func fail(_ problem: String) -> TriggerWordsError {
                let form = forms[word].map { "; write \($0)" } ?? ""
                return TriggerWordsError(description: "\(word): \(problem)\(form)")
            }
            func one() throws(TriggerWordsError) -> String {
                guard values.count == 1 else { throw fail("takes one value, got \(values.count)") }
                return values[0]
            }
            func none() throws(TriggerWordsError) {
                guard values.isEmpty else { throw fail("takes no value, got '\(values.joined(separator: " "))'") }
            }
            func duration() throws(TriggerWordsError) -> Int {
                let text = try one()
                guard let seconds = Self.seconds(text), seconds > 0 else {
                    throw fail("'\(text)' is not a duration")
                }
                return seconds
            }
            switch word {
            case "--when":
                guard values.count == 2 || values.count == 3 else {
                    throw fail("takes an accessory, a characteristic and maybe a value, got \(values.count) words")
                }
                let target = CharacteristicWords(accessory: values[0], characteristic: values[1])
                lastWhen = result.events.count
                result.events.append(.change(target, value: values.count == 3 ? values[2] : nil))
            case "--when-above", "--when-below":
                guard values.count == 3 else {
                    throw fail("takes an accessory, a characteristic and a number, got \(values.count) words")
                }
                guard let number = Double(values[2]), number.isFinite else {
                    throw fail("'\(values[2])' is not a number")
                }
                let target = CharacteristicWords(accessory: values[0], characteristic: values[1])
                result.events.append(
                    word == "--when-above"
                        ? .threshold(target, min: number, max: nil) : .threshold(target, min: nil, max: number)
                )
            case "--when-arrive", "--when-leave":
                let text = try one()
                let change: PresenceChange? =
                    switch (word, text) {
                    case ("--when-arrive", "first"): .firstEntry
                    case ("--when-arrive", "every"): .everyEntry
                    case ("--when-leave", "last"): .lastExit
                    case ("--when-leave", "every"): .everyExit
                    default: nil
                    }
                guard let change else { throw fail("'\(text)' is not allowed") }
                result.events.append(.presence(change))
            case "--when-enter", "--when-exit":
                guard values.count == 4 else {
                    throw fail("takes a region's name, latitude, longitude and radius, got \(values.count) words")
                }
                guard let latitude = Double(values[1]), let longitude = Double(values[2]),
                    let radius = Double(values[3])
                else { throw fail("latitude, longitude and radius are numbers") }
                let transition: RegionTransition = word == "--when-enter" ? .entry : .exit
                result.events.append(
                    .region(
                        name: values[0],
                        latitude: latitude,
                        longitude: longitude,
                        radius: radius,
                        transition,
                        who: ["me"]
                    )
                )
            case "--who":
                let names = try one().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard !names.isEmpty, !names.contains(where: \.isEmpty), let last = result.events.indices.last else {
                    throw fail("must follow --when-arrive, --when-leave, --when-enter or --when-exit")
                }
                switch result.events[last] {
                case .presence(let change, _): result.events[last] = .presence(change, who: names)
                case .region(let name, let latitude, let longitude, let radius, let transition, _):
                    result.events[last] = .region(
                        name: name,
                        latitude: latitude,
                        longitude: longitude,
                        radius: radius,
                        transition,
                        who: names
                    )
                default: throw fail("must follow --when-arrive, --when-leave, --when-enter or --when-exit")
                }
            case "--held-for":
                let seconds = try duration()
                guard let at = lastWhen, case .change(let target, let value?) = result.events[at] else {
                    throw fail("must follow a --when with a value (\"no motion\": --when SENSOR motionDetected false)")
                }
                result.events[at] = .held(target, value: value, seconds: seconds)
                lastWhen = nil
            case "--at":
                let text = try one()
                if let time = TimeOfDay(text) {
                    lastAt = result.events.count
                    result.events.append(.calendar(time, []))
                } else if case .sun(let sun, let offset)? = TimePoint(text) {
                    result.events.append(.sun(sun, offsetSeconds: offset))
                } else {
                    throw fail("'\(text)' is not a time")
                }
            case "--on":
                let text = try one()
                guard let parsed = Self.weekdays(text) else { throw fail("'\(text)' is not a list of days") }
                if let at = lastAt, case .calendar(let time, _) = result.events[at] {
                    result.events[at] = .calendar(time, parsed)
                } else {
                    days = parsed
                }
            case "--timer":
                let text = try one()
                guard let date = LocalDateTime(text) else { throw fail("'\(text)' is not a date and time") }
                result.timer = TimerSchedule(fireDate: date)
            case "--every":
                let text = try one()
                guard let recurrence = Self.recurrence(text) else { throw fail("'\(text)' is not a repeat") }
                every = (word, recurrence)
            case "--if":
                result.conditions.append(try condition(values, fail))
            case "--run":
                result.scenes.append(try one())
            case "--end-after":
                result.endAfterSeconds = try duration()
            case "--end-run":
                result.endScenes.append(try one())
            case "--once":
                try none()
                result.executeOnce = true
            case "--no-conditions":
                try none()
                result.removesConditions = true
            case "--no-end":
                try none()
                result.removesEnd = true
            case "--repeatable":
                try none()
                result.repeatable = true
            case "--catch-up":
                result.catchUpSeconds = try duration()
            case "--disabled", "--enabled":
                try none()
                result.isEnabled = word == "--enabled"
            case "--json":
                try none()
                result.json = true
            case "--home":
                result.home = try one()
            case "--config":
                result.config = try one()
            default:
                throw TriggerWordsError(
                    description: "\(word) is not an option of hearth trigger add/edit (see 'hearth trigger add --help')"
                )
            }
        }
        if every != nil || days != nil {
            guard result.timer != nil else {
                throw TriggerWordsError(
                    description: every != nil
                        ? "--every repeats a --timer; write --timer YYYY-MM-DDTHH:MM --every 1d"
                        : "--on follows --at HH:MM or --timer; write --at 07:30 --on mon,tue"
                )
            }
            guard every == nil || days == nil else {
                throw TriggerWordsError(description: "--timer repeats with --every or --on, not both")
            }
            result.timer?.recurrence = every?.recurrence ?? days.map { .weekdays($0) }
        }
        if result.endAfterSeconds == nil, !result.endScenes.isEmpty {
            throw TriggerWordsError(description: "--end-run needs --end-after DURATION: when the end comes")
        }
        return result
    }

    /// The condition of `--if` from its words.
    private static func condition(
        _ values: [String],
        _ fail: (String) -> TriggerWordsError
    ) throws(TriggerWordsError) -> ConditionWords {
        switch values.count {
        case 3:
            let target = CharacteristicWords(accessory: values[0], characteristic: values[1])
            return .characteristic(target, .equal, value: values[2])
        case 4:
            guard let comparison = Comparison(rawValue: values[2]) else {
                throw fail("'\(values[2])' is not a comparison")
            }
            let target = CharacteristicWords(accessory: values[0], characteristic: values[1])
            return .characteristic(target, comparison, value: values[3])
        case 1, 2:
            let phrase = values.joined(separator: " ").split(whereSeparator: \.isWhitespace).map(String.init)
            return try condition(phrase: phrase, fail)
        default:
            throw fail("got \(values.count) words")
        }
    }

    /// `after T`, `before T`, `between T1 T2`, `anyone home`, `no one home`, `not fired in 10m`.
    private static func condition(
        phrase words: [String],
        _ fail: (String) -> TriggerWordsError
    ) throws(TriggerWordsError) -> ConditionWords {
        let text = words.joined(separator: " ")
        func point(_ word: String) throws(TriggerWordsError) -> TimePoint {
            guard let point = TimePoint(word) else { throw fail("'\(word)' is not a time (18:00, sunset-30m)") }
            return point
        }
        switch words.first?.lowercased() {
        case "after" where words.count == 2: return .time(after: try point(words[1]), before: nil)
        case "before" where words.count == 2: return .time(after: nil, before: try point(words[1]))
        case "between" where words.count == 3 || (words.count == 4 && words[2].lowercased() == "and"):
            return .time(after: try point(words[1]), before: try point(words[words.count - 1]))
        default: break
        }
        switch text.lowercased() {
        case "anyone home", "someone home": return .presence(.anyone)
        case "no one home", "nobody home": return .presence(.noOne)
        default: break
        }
        let lowered = words.map { $0.lowercased() }
        if lowered.count == 4, lowered[0...2] == ["not", "fired", "in"] {
            guard let seconds = Self.seconds(words[3]), seconds > 0 else {
                throw fail("'\(words[3])' is not a duration")
            }
            return .notFiredWithin(seconds: seconds)
        }
        throw fail("'\(text)' is not a condition")
    }

    /// `10m`, `1h30m`, `90s`, `2d`: a duration in seconds; `nil` for anything else.
    static func seconds(_ text: String) -> Int? { DurationText.seconds(text) }

    /// `30m`, `2h`, `1d`, `1w`: a repeat every N minutes, hours, days or weeks.
    static func recurrence(_ text: String) -> Recurrence? {
        guard let last = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        let unit: RecurrenceUnit? =
            switch last {
            case "m": .minute
            case "h": .hour
            case "d": .day
            case "w": .week
            default: nil
            }
        return unit.map { .every(count: count, unit: $0) }
    }

    /// `mon,tue`, `monday`, `weekdays`, `weekend`: the days, in week order.
    static func weekdays(_ text: String) -> [Weekday]? {
        var days = Set<Weekday>()
        for part in text.lowercased().split(separator: ",") {
            let word = part.trimmingCharacters(in: .whitespaces)
            switch word {
            case "weekdays", "workdays": days.formUnion(Weekday.workdays)
            case "weekend", "weekends": days.formUnion([.saturday, .sunday])
            case "daily", "every day": days.formUnion(Weekday.allCases)
            default:
                guard word.count >= 2, let day = Weekday.allCases.first(where: { $0.rawValue.hasPrefix(word) })
                else { return nil }
                days.insert(day)
            }
        }
        return days.isEmpty ? nil : days.sorted()
    }

    /// Whether any part of a definition is given (events, timer, conditions, end, once, catch-up, removals).
    var changesDefinition: Bool {
        !events.isEmpty || timer != nil || !conditions.isEmpty || endAfterSeconds != nil || executeOnce
            || catchUpSeconds != nil || removesConditions || removesEnd || repeatable
    }

    /// `definition` without what `--no-conditions`, `--no-end` and `--repeatable` take away.
    func removingParts(of definition: TriggerDefinition) -> TriggerDefinition {
        var result = definition
        if removesConditions { result.condition = nil }
        if removesEnd { result.end = nil }
        if repeatable { result.executeOnce = false }
        return result
    }
}
