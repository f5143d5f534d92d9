import Foundation
import HAPTypes
import HomeGraph

/// A value a plan writes, before it meets a characteristic.
enum Planned: Sendable {
    /// This number (a percentage, degrees Celsius, an enumeration's value).
    case value(Double)
    /// This boolean (or 1 / 0 for a number).
    case flag(Bool)
    /// The current value changed by this much.
    case change(Double)
    /// The opposite of the current value.
    case toggle
}

/// One way of carrying out a command on a service: the characteristics it writes and their values.
struct Alternative: Sendable {
    /// The writes, by the catalog's characteristic names.
    var writes: [(characteristic: String, value: Planned)]
    /// Whether a service found only by its place takes this way too (a light in the bedroom does; a thermostat
    /// does not, for "turn off the bedroom").
    var byPlace = true
}

/// How a command is carried out: the ways to try, per service or one for all.
struct Plan: Sendable {
    /// The ways, in order of preference.
    var alternatives: [Alternative]
    /// Whether each service takes the first way it can (power on and off), rather than all taking the first way
    /// any can.
    var perService = false
    /// Whether the temperature values are in the home's unit for messages.
    var isTemperature = false
}

/// Numbers, units and HAP values.
enum Values {
    /// A number as people write it: no ".0", at most two decimals.
    static func text(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        let rounded = (value * 100).rounded() / 100
        return String(rounded)
    }

    /// Degrees Fahrenheit as Celsius.
    static func celsius(fromFahrenheit value: Double) -> Double { (value - 32) * 5 / 9 }

    /// Degrees Celsius as Fahrenheit.
    static func fahrenheit(fromCelsius value: Double) -> Double { value * 9 / 5 + 32 }

    /// `value` rounded to the characteristic's step (from its minimum).
    static func stepped(_ value: Double, _ metadata: CharacteristicMetadata) -> Double {
        guard let step = metadata.minStep, step > 0 else { return value }
        let base = metadata.minValue ?? 0
        let steps = ((value - base) / step).rounded()
        let result = base + steps * step
        // Keep decimal steps tidy: 21.1 rather than 21.100000000000001.
        let decimals = max(0, Int((-log10(step)).rounded(.up)))
        let scale = pow(10, Double(decimals))
        return (result * scale).rounded() / scale
    }

    /// `value` in the characteristic's format, or `nil` when the format takes no numbers.
    static func hapValue(_ value: Double, format: Format) -> HAPValue? {
        switch format {
        case .bool: .bool(value != 0)
        case .uint8, .uint16, .uint32, .uint64: value >= 0 && value < 0x1p64 ? .uint(UInt64(value.rounded())) : nil
        case .int: value >= -0x1p63 && value < 0x1p63 ? .int(Int64(value.rounded())) : nil
        case .float: .float(value)
        default: nil
        }
    }

    /// Whether `value` is inside the characteristic's limits and valid values.
    static func isAllowed(_ value: Double, _ metadata: CharacteristicMetadata) -> Bool {
        if let min = metadata.minValue, value < min - 1e-9 { return false }
        if let max = metadata.maxValue, value > max + 1e-9 { return false }
        if let valid = metadata.validValues, !valid.contains(Int(value.rounded())) { return false }
        if let range = metadata.validValuesRange, !range.contains(Int(value.rounded())) { return false }
        return true
    }
}
