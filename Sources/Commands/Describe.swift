import Foundation
import HAPTypes
import HomeGraph

/// Sentences about actions, values and limits, in the lexicon's words.
struct Describe {
    /// The home.
    let home: Home
    /// The index.
    let index: NameIndex
    /// The lexicon.
    let lexicon: Lexicon

    /// What the actions do, grouped by what they write.
    func control(_ actions: [CommandAction]) -> String {
        var groups: [(key: String, actions: [CommandAction])] = []
        var positions: [String: Int] = [:]
        for action in actions {
            let key = "\(action.characteristic)|\(action.value)|\(action.relative)"
            if let position = positions[key] {
                groups[position].actions.append(action)
            } else {
                positions[key] = groups.count
                groups.append((key, [action]))
            }
        }
        let sentences = groups.map { group -> String in
            let first = group.actions[0]
            var names: [String] = []
            var seen = Set<String>()
            for action in group.actions {
                let name =
                    index.serviceCount[action.accessoryID, default: 1] > 1 ? action.serviceName : action.accessoryName
                if seen.insert(name).inserted { names.append(name) }
            }
            let list = Phrases.list(names)
            switch (first.characteristic, first.value.numericValue ?? (first.value == .bool(true) ? 1 : 0)) {
            case ("on", let value), ("active", let value):
                if !first.relative { return lexicon.message(value != 0 ? "turnOn" : "turnOff", ["names": list]) }
            case ("lockTargetState", let value): return lexicon.message(value == 1 ? "lock" : "unlock", ["names": list])
            case ("targetDoorState", let value): return lexicon.message(value == 0 ? "open" : "close", ["names": list])
            default: break
            }
            let what = index.characteristicNames[first.characteristic] ?? first.characteristic
            var value = text(of: first.value, characteristic: first.characteristic)
            if first.relative, Self.isTemperature(first.characteristic), let delta = first.value.numericValue {
                value = temperatureChange(delta)
            }
            return lexicon.message(first.relative ? "change" : "set", ["what": what, "names": list, "value": value])
        }
        return sentences.joined(separator: " ")
    }

    /// A value as people read it: temperatures in the home's unit, percentages with "%".
    func text(of value: HAPValue?, characteristic: String) -> String {
        guard let value else { return "unknown" }
        if case .bool(let flag) = value { return flag ? "on" : "off" }
        guard let number = value.numericValue else { return value.description }
        if let names = lexicon.valueNames[characteristic], number >= 0, Int(number) < names.count,
            number.rounded() == number
        {
            return names[Int(number)]
        }
        if Self.isTemperature(characteristic) {
            return temperature(number)
        }
        if Self.percentages.contains(characteristic) { return Values.text(number) + " %" }
        return Values.text(number)
    }

    /// A temperature in Celsius as the home says it.
    func temperature(_ celsius: Double) -> String {
        switch home.displayTemperatureUnit {
        case .celsius: Values.text((celsius * 10).rounded() / 10) + " °C"
        case .fahrenheit: Values.text(Values.fahrenheit(fromCelsius: celsius).rounded()) + " °F"
        }
    }

    /// A change of temperature given in Celsius, in the home's unit.
    func temperatureChange(_ celsius: Double) -> String {
        switch home.displayTemperatureUnit {
        case .celsius: Values.text((celsius * 10).rounded() / 10) + " °C"
        case .fahrenheit: Values.text((celsius * 9 / 5 * 10).rounded() / 10) + " °F"
        }
    }

    /// Whether the characteristic holds a temperature in Celsius.
    static func isTemperature(_ characteristic: String) -> Bool {
        characteristic.lowercased().contains("temperature") && characteristic != "colorTemperature"
    }

    /// Why `value` cannot be written: the limits, in the home's unit for temperatures.
    func outOfRange(_ value: Double, name: String, accessory: String, metadata: CharacteristicMetadata) -> String {
        let what = index.characteristicNames[name] ?? name
        let isTemperature = Self.isTemperature(name)
        func say(_ number: Double) -> String {
            isTemperature
                ? temperature(number)
                : Self.percentages.contains(name) ? Values.text(number) + " %" : Values.text(number)
        }
        guard let min = metadata.minValue, let max = metadata.maxValue else {
            return lexicon.message("notAllowed", ["what": what, "name": accessory, "value": say(value)])
        }
        return lexicon.message(
            "outOfRange",
            ["what": what, "name": accessory, "min": say(min), "max": say(max), "value": say(value)]
        )
    }

    /// Characteristics whose numbers are percentages.
    static let percentages: Set<String> = [
        "brightness", "targetPosition", "currentPosition", "rotationSpeed", "targetRelativeHumidity",
        "currentRelativeHumidity", "saturation", "batteryLevel",
    ]
}
