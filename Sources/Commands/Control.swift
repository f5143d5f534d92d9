import Foundation
import HAPTypes
import HomeGraph

/// Control sentences: the plan a parse asks for, and the writes it comes to on the resolved services.
struct Control {
    /// The home's index.
    let index: NameIndex
    /// The home with its current values.
    let home: Home
    /// The lexicon.
    let lexicon: Lexicon
    /// The unit the home speaks temperatures in.
    let unit: TemperatureUnit

    /// What the words ask to do, or `nil` when they ask nothing this engine does.
    func plan(_ parse: Parse) -> Plan? {
        let percent = parse.unit == .percent || parse.unit == nil ? parse.number ?? parse.fraction : parse.fraction
        let isRelative = parse.preposition == "by"
        switch parse.verb {
        case .lock: return single("lockTargetState", .value(1))
        case .unlock: return single("lockTargetState", .value(0))
        case .arm: return single("securitySystemTargetState", .value(Double(parse.security ?? 1)))
        case .disarm: return single("securitySystemTargetState", .value(3))
        case .toggle:
            return Plan(
                alternatives: [Alternative(writes: [("on", .toggle)]), Alternative(writes: [("active", .toggle)])],
                perService: true
            )
        case .open, .close:
            let opening = parse.verb == .open
            if let percent, parse.compare == nil { return single("targetPosition", .value(percent)) }
            return Plan(alternatives: [
                Alternative(writes: [("targetPosition", .value(opening ? 100 : 0))]),
                Alternative(writes: [("targetDoorState", .value(opening ? 0 : 1))]),
            ])
        case .dim, .brighten:
            let sign = parse.verb == .dim ? -1.0 : 1.0
            if let percent, !isRelative, parse.amount == nil { return single("brightness", .value(percent)) }
            return single("brightness", .change(sign * (percent ?? parse.amount ?? defaultAmount)))
        case .raise, .lower, .up, .down:
            let sign = parse.verb == .lower || parse.verb == .down ? -1.0 : 1.0
            if parse.preposition == "to", parse.number != nil || parse.fraction != nil { return absolute(parse) }
            return relative(parse, sign: sign)
        default: break
        }
        if parse.compare != nil { return relative(parse, sign: 1) }
        if parse.verb == .on || parse.verb == .off || (parse.particle == "on" || parse.particle == "off") {
            if parse.number != nil || parse.fraction != nil { return absolute(parse) }
            if parse.mode != nil || parse.color != nil || parse.white != nil || parse.level != nil {
                return absolute(parse)
            }
            let on = parse.verb == .on || (parse.verb != .off && parse.particle == "on")
            return power(on: on, heatMode: parse.heatMode)
        }
        if parse.particle == "up" || parse.particle == "down" {
            return relative(parse, sign: parse.particle == "down" ? -1 : 1)
        }
        return absolute(parse)
    }

    /// Setting a value: a temperature, a percentage, a colour, a mode.
    private func absolute(_ parse: Parse) -> Plan? {
        if let mode = parse.mode { return single("targetHeatingCoolingState", .value(Double(mode))) }
        if let security = parse.security { return single("securitySystemTargetState", .value(Double(security))) }
        if let color = parse.color {
            return Plan(alternatives: [
                Alternative(writes: [("hue", .value(color.hue)), ("saturation", .value(color.saturation))])
            ])
        }
        if let white = parse.white { return single("colorTemperature", .value(white)) }
        if let level = parse.level { return single("rotationSpeed", .value(level)) }
        if let number = parse.number, parse.unit == .kelvin {
            return number > 0 ? single("colorTemperature", .value((1_000_000 / number).rounded())) : nil
        }
        if let number = parse.number,
            isTemperatureUnit(parse.unit) || parse.attribute == "temperature" || parse.attribute == "targetTemperature"
        {
            var plan = single("targetTemperature", .value(celsius(number, parse.unit)))
            plan.isTemperature = true
            return plan
        }
        guard let value = parse.number ?? parse.fraction else { return nil }
        if let attribute = parse.attribute {
            guard let characteristic = Self.settable[attribute] else { return nil }
            return single(characteristic, .value(value))
        }
        var alternatives = ["brightness", "targetPosition", "rotationSpeed"].map {
            Alternative(writes: [($0, .value(value))])
        }
        if parse.unit == nil, parse.fraction == nil {
            alternatives.append(Alternative(writes: [("targetTemperature", .value(celsius(value, nil)))]))
        }
        alternatives.append(Alternative(writes: [("targetRelativeHumidity", .value(value))]))
        return Plan(alternatives: alternatives)
    }

    /// Changing a value by an amount: warmer, brighter, raise by 20 percent.
    private func relative(_ parse: Parse, sign: Double) -> Plan? {
        var direction = sign
        var characteristics: [String]
        switch parse.compare {
        case "warmer": characteristics = ["targetTemperature"]
        case "cooler":
            characteristics = ["targetTemperature"]
            direction = -1
        case "brighter": characteristics = ["brightness"]
        case "dimmer":
            characteristics = ["brightness"]
            direction = -1
        case "faster": characteristics = ["rotationSpeed"]
        case "slower":
            characteristics = ["rotationSpeed"]
            direction = -1
        case "lower":
            characteristics = ["brightness", "targetPosition", "rotationSpeed", "targetTemperature"]
            direction = -1
        default:
            characteristics = ["brightness", "targetPosition", "rotationSpeed", "targetTemperature"]
        }
        if isTemperatureUnit(parse.unit) || parse.attribute == "temperature" || parse.attribute == "targetTemperature" {
            characteristics = ["targetTemperature"]
        } else if let attribute = parse.attribute {
            guard let characteristic = Self.settable[attribute] else { return nil }
            characteristics = [characteristic]
        } else if parse.unit == .percent {
            characteristics.removeAll { $0 == "targetTemperature" }
        }
        let said = parse.number ?? parse.fraction ?? parse.amount
        let alternatives = characteristics.map { characteristic -> Alternative in
            if characteristic == "targetTemperature" {
                let amount = said ?? lexicon.amounts["temperature"] ?? 1
                let inCelsius = parse.unit == .celsius || (parse.unit != .fahrenheit && unit == .celsius)
                let delta = inCelsius ? amount : (amount * 5 / 9 * 100).rounded() / 100
                return Alternative(writes: [(characteristic, .change(direction * delta))])
            }
            return Alternative(writes: [(characteristic, .change(direction * (said ?? defaultAmount)))])
        }
        var plan = Plan(alternatives: alternatives)
        plan.isTemperature = characteristics == ["targetTemperature"]
        return plan
    }

    /// Turning on or off: lights, switches, outlets and fans by any target; thermostats and security systems only
    /// when named or typed.
    private func power(on: Bool, heatMode: Int?) -> Plan {
        Plan(
            alternatives: [
                Alternative(writes: [("on", .flag(on))]),
                Alternative(writes: [("active", .value(on ? 1 : 0))]),
                Alternative(
                    writes: [("targetHeatingCoolingState", .value(on ? Double(heatMode ?? 3) : 0))],
                    byPlace: false
                ),
                Alternative(writes: [("securitySystemTargetState", .value(on ? 1 : 3))], byPlace: false),
            ],
            perService: true
        )
    }

    /// A plan of one write.
    private func single(_ characteristic: String, _ value: Planned) -> Plan {
        Plan(alternatives: [Alternative(writes: [(characteristic, value)])])
    }

    /// "a bit" when no amount is said.
    private var defaultAmount: Double { lexicon.amounts["default"] ?? 10 }

    /// Whether the unit says the number is a temperature.
    private func isTemperatureUnit(_ unit: UnitWord?) -> Bool {
        unit == .degrees || unit == .celsius || unit == .fahrenheit
    }

    /// A temperature said in `said` (or the home's unit) in Celsius.
    private func celsius(_ value: Double, _ said: UnitWord?) -> Double {
        let isFahrenheit = said == .fahrenheit || (said != .celsius && unit == .fahrenheit)
        return isFahrenheit ? Values.celsius(fromFahrenheit: value) : value
    }

    /// Characteristics people set by naming them.
    static let settable: [String: String] = [
        "temperature": "targetTemperature", "brightness": "brightness", "humidity": "targetRelativeHumidity",
        "speed": "rotationSpeed", "position": "targetPosition", "colorTemperature": "colorTemperature",
        "mode": "targetHeatingCoolingState", "targetTemperature": "targetTemperature",
        "targetHumidity": "targetRelativeHumidity",
    ]

    /// Whether `entry` can take `alternative`: it has every characteristic, writable.
    func accepts(_ entry: ServiceEntry, _ alternative: Alternative, explicit: Bool) -> Bool {
        guard explicit || alternative.byPlace else { return false }
        let service = home.accessories[entry.accessory].services[entry.service]
        return alternative.writes.allSatisfy { write in
            guard let position = entry.characteristics[write.characteristic] else { return false }
            return service.characteristics[position].permissions.contains(.write)
        }
    }

    /// Whether `entry` can take some way of the plan.
    func fits(_ entry: ServiceEntry, _ plan: Plan, explicit: Bool) -> Bool {
        plan.alternatives.contains { accepts(entry, $0, explicit: explicit) }
    }
}
