import HAP
import HAPTypes

/// Applies a description's metadata overrides and builds custom characteristics, checking every field.
enum CharacteristicOverrides {
    /// Narrows `characteristic`'s metadata and sets its start value as `override` says.
    static func apply(
        _ override: CharacteristicOverride,
        to characteristic: inout HAPCharacteristic,
        type: CharacteristicType,
        accessory: String,
        field: String
    ) throws(DescriptionError) {
        let lower = type.minValue ?? characteristic.format.integerRange.map { Double($0.lowerBound) } ?? -.infinity
        let upper = type.maxValue ?? characteristic.format.integerRange.map { Double($0.upperBound) } ?? .infinity
        let allowed = lower...upper
        if let minValue = override.minValue {
            guard minValue.isFinite, allowed.contains(minValue) else {
                throw .outOfRange(accessory: accessory, field: "\(field).minValue", value: minValue, allowed: allowed)
            }
            characteristic.minValue = minValue
        }
        if let maxValue = override.maxValue {
            let floor = characteristic.minValue ?? lower
            guard maxValue.isFinite, (floor...upper).contains(maxValue) else {
                throw .outOfRange(
                    accessory: accessory,
                    field: "\(field).maxValue",
                    value: maxValue,
                    allowed: floor...upper
                )
            }
            characteristic.maxValue = maxValue
        }
        if let minStep = override.minStep {
            let smallest = type.minStep ?? .leastNonzeroMagnitude
            guard minStep.isFinite, minStep >= smallest else {
                throw .outOfRange(
                    accessory: accessory,
                    field: "\(field).minStep",
                    value: minStep,
                    allowed: smallest...Double.greatestFiniteMagnitude
                )
            }
            characteristic.minStep = minStep
        }
        if let maxLength = override.maxLen {
            let limit = Double(HAPCharacteristic.absoluteMaxLength)
            guard characteristic.format == .string, (1...HAPCharacteristic.absoluteMaxLength).contains(maxLength) else {
                throw .outOfRange(
                    accessory: accessory,
                    field: "\(field).maxLen",
                    value: Double(maxLength),
                    allowed: 1...limit
                )
            }
            characteristic.maxLength = maxLength
        }
        if let validValues = override.validValues {
            let known = type.validValues?.map(\.value)
            if let bad = validValues.first(where: { value in known.map { !$0.contains(value) } ?? false }) {
                throw .invalidValue(
                    accessory: accessory,
                    field: "\(field).validValues",
                    .notAValidValue(value: .int(Int64(bad)), validValues: known ?? [])
                )
            }
            characteristic.validValues = validValues
        }
        if let description = override.description {
            characteristic.description = description
        }
        if let value = override.value {
            do {
                characteristic.value = try characteristic.normalized(
                    named(value, type: type, format: characteristic.format)
                )
            } catch {
                throw .invalidValue(accessory: accessory, field: "\(field).value", error)
            }
        } else if let current = characteristic.value, (try? characteristic.validate(current)) == nil {
            characteristic.value = neutralValue(for: characteristic)
        }
        if let value = characteristic.value {
            do {
                try characteristic.validate(value)
            } catch {
                throw .invalidValue(accessory: accessory, field: "\(field).value", error)
            }
        }
    }

    /// A custom characteristic with its own UUID; its iid comes from `instanceID`.
    static func makeCustom(
        _ custom: CustomCharacteristic,
        accessory: String,
        field: String,
        existing: [HAPCharacteristic],
        instanceID: (HAPUUID) -> UInt64
    ) throws(DescriptionError) -> HAPCharacteristic {
        func invalid(_ reason: String) -> DescriptionError {
            .invalidCustomCharacteristic(accessory: accessory, field: field, reason: reason)
        }
        guard let uuid = try? HAPUUID(custom.uuid) else { throw invalid("\"\(custom.uuid)\" is not a UUID") }
        guard !existing.contains(where: { $0.type == uuid }) else {
            throw .duplicateCharacteristic(accessory: accessory, field: "\(field).uuid")
        }
        guard !custom.perms.isEmpty else { throw invalid("perms is empty") }
        if let minValue = custom.minValue, let maxValue = custom.maxValue, !(minValue <= maxValue) {
            throw invalid("minValue is above maxValue")
        }
        if let minStep = custom.minStep, !(minStep > 0 && minStep.isFinite) {
            throw invalid("minStep must be positive")
        }
        if let maxLen = custom.maxLen, !(1...HAPCharacteristic.absoluteMaxLength).contains(maxLen) {
            throw invalid("maxLen must be 1 to \(HAPCharacteristic.absoluteMaxLength)")
        }
        var characteristic = HAPCharacteristic(
            instanceID: instanceID(uuid),
            type: uuid,
            permissions: custom.perms,
            format: custom.format,
            description: custom.description,
            unit: custom.unit,
            minValue: custom.minValue,
            maxValue: custom.maxValue,
            minStep: custom.minStep,
            maxLength: custom.maxLen,
            validValues: custom.validValues
        )
        if let value = custom.value {
            guard characteristic.has(.read) else { throw invalid("a value for a characteristic without pr") }
            do {
                characteristic.value = try characteristic.normalized(value)
            } catch {
                throw .invalidValue(accessory: accessory, field: "\(field).value", error)
            }
        } else {
            characteristic.value = neutralValue(for: characteristic)
            if let value = characteristic.value, (try? characteristic.validate(value)) == nil {
                throw invalid("no start value fits the metadata; give one")
            }
        }
        return characteristic
    }

    /// A number for an enumeration's value name (`"secured"` → 1), or `value` unchanged.
    static func named(_ value: HAPValue, type: CharacteristicType?, format: Format) -> HAPValue {
        guard format.isNumeric, case .string(let text) = value, let number = type?.value(named: text) else {
            return value
        }
        return .int(Int64(number))
    }

    /// A neutral start value honouring the metadata: false, the first valid value, the minimum or 0, "", no bytes.
    static func neutralValue(for characteristic: HAPCharacteristic) -> HAPValue? {
        guard characteristic.has(.read), characteristic.type != HAPUUID(apple: 0x73) else { return nil }
        switch characteristic.format {
        case .bool: return .bool(false)
        case .string: return .string("")
        case .tlv8, .data: return .data([])
        case .uint8, .uint16, .uint32, .uint64, .int, .float:
            let start = characteristic.validValues?.first.map(Double.init) ?? max(characteristic.minValue ?? 0, 0)
            return try? HAPValue.float(min(start, characteristic.maxValue ?? start)).converted(
                to: characteristic.format
            )
        }
    }
}
