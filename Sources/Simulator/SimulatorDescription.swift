import HAP
import HAPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which accessories a simulator serves, read from JSON; the format is documented in `docs/simulator.md`.
public struct SimulatorDescription: Sendable, Equatable, Codable {
    /// The bridge that exposes the accessories, or `nil` to serve exactly one accessory on its own.
    public var bridge: BridgeDescription?
    /// The accessories, in the order they are served.
    public var accessories: [AccessoryDescription]
    /// Faults switched on from the start, each `NAME[:ARGS]` (docs/simulator.md); `nil` for none.
    public var faults: [String]?

    /// Makes a description.
    public init(bridge: BridgeDescription?, accessories: [AccessoryDescription], faults: [String]? = nil) {
        self.bridge = bridge
        self.accessories = accessories
        self.faults = faults
    }

    /// The faults the description switches on, read; a bad entry names its index and what it takes.
    public func parsedFaults() throws(DescriptionError) -> [SimulatorFault] {
        var parsed: [SimulatorFault] = []
        for (index, text) in (faults ?? []).enumerated() {
            do {
                parsed.append(try SimulatorFault(parsing: text))
            } catch {
                throw .invalidFault(field: "faults[\(index)]", error)
            }
        }
        return parsed
    }

    /// A bridge with the accessories `presets` ask for, named after their presets ("Lightbulb 1", "Lightbulb 2").
    public init(bridgeName: String, presets: [PresetRequest]) {
        var totals: [Preset: Int] = [:]
        for request in presets { totals[request.preset, default: 0] += request.count }
        var numbers: [Preset: Int] = [:]
        var accessories: [AccessoryDescription] = []
        for request in presets {
            for _ in 0..<request.count {
                numbers[request.preset, default: 0] += 1
                let base = request.preset.displayName
                let name = totals[request.preset] == 1 ? base : "\(base) \(numbers[request.preset] ?? 1)"
                accessories.append(AccessoryDescription(name: name, preset: request.preset.rawValue))
            }
        }
        self.init(bridge: BridgeDescription(name: bridgeName), accessories: accessories)
    }

    /// Reads and checks a description from JSON; every failure is a ``DescriptionError``.
    public init(jsonData: Data) throws(DescriptionError) {
        do {
            self = try JSONDecoder().decode(SimulatorDescription.self, from: jsonData)
        } catch let error as DecodingError {
            throw .invalidJSON(Self.explain(error))
        } catch {
            throw .invalidJSON(String(describing: error))
        }
        _ = try parsedFaults()
        _ = try makeDatabase(identifiers: IdentifierMap())
    }

    /// Reads and checks a description from YAML (the subset docs/simulator.md describes); the same checks as JSON.
    public init(yamlText: String) throws(DescriptionError) {
        let value: YAMLValue
        do {
            value = try YAMLSubsetParser.parse(yamlText)
        } catch {
            throw .invalidYAML(line: error.line, reason: error.reason)
        }
        let json: Data
        do {
            json = try JSONEncoder().encode(value)
        } catch {
            throw .invalidJSON("the YAML holds a value JSON cannot carry: \(error)")
        }
        try self.init(jsonData: json)
    }

    /// Reads a description file: YAML when its name ends in `.yaml` or `.yml`, else JSON.
    public init(fileData: Data, path: String) throws(DescriptionError) {
        let lowercased = path.lowercased()
        if lowercased.hasSuffix(".yaml") || lowercased.hasSuffix(".yml") {
            try self.init(yamlText: String(decoding: fileData, as: UTF8.self))
        } else {
            try self.init(jsonData: fileData)
        }
    }

    /// The description as pretty-printed JSON with sorted keys.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    private static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "top level" : String(keys.dropFirst(keys.hasPrefix(".") ? 1 : 0))
        }
        switch error {
        case .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }
}

/// The bridge's own Accessory Information.
public struct BridgeDescription: Sendable, Equatable, Codable {
    /// The bridge's name, shown during setup.
    public var name: String
    /// The manufacturer; "Hearth" when absent.
    public var manufacturer: String?
    /// The model; "Hearth Simulator Bridge" when absent.
    public var model: String?
    /// The serial number; derived from the name when absent.
    public var serialNumber: String?
    /// The firmware revision; "1.0.0" when absent.
    public var firmwareRevision: String?

    /// Makes a bridge description.
    public init(
        name: String,
        manufacturer: String? = nil,
        model: String? = nil,
        serialNumber: String? = nil,
        firmwareRevision: String? = nil
    ) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.serialNumber = serialNumber
        self.firmwareRevision = firmwareRevision
    }
}

/// One accessory: a preset, services of its own, or a preset extended by services.
public struct AccessoryDescription: Sendable, Equatable, Codable {
    /// The stable key for its aid; the lower-cased name when absent (so renaming without an `id` gives a new aid).
    public var id: String?
    /// The accessory's name, unique case-insensitively.
    public var name: String
    /// A preset name (`lightbulb-color`), or `nil` for an accessory described only by `services`.
    public var preset: String?
    /// How many such accessories to serve; more than one are numbered "Name 1", "Name 2" … (default 1).
    public var count: Int?
    /// The manufacturer; "Hearth" when absent.
    public var manufacturer: String?
    /// The model; the preset's model, or "Hearth Simulated Accessory", when absent.
    public var model: String?
    /// The serial number; derived from the aid when absent.
    public var serialNumber: String?
    /// The firmware revision; "1.0.0" when absent.
    public var firmwareRevision: String?
    /// Services to add, or to merge into the preset's service of the same type (the first not yet matched).
    public var services: [ServiceDescription]?
    /// Timing of the simulated behaviour.
    public var behaviour: BehaviourSettings?

    /// Makes an accessory description.
    public init(
        id: String? = nil,
        name: String,
        preset: String? = nil,
        count: Int? = nil,
        services: [ServiceDescription]? = nil,
        behaviour: BehaviourSettings? = nil
    ) {
        self.id = id
        self.name = name
        self.preset = preset
        self.count = count
        self.services = services
        self.behaviour = behaviour
    }
}

/// One service: a catalog type with overrides, optional characteristics and custom characteristics.
public struct ServiceDescription: Sendable, Equatable, Codable {
    /// A catalog identifier, display name or synonym (`lightbulb`, `lamp`), or a UUID (short or full).
    public var type: String
    /// A Name characteristic for the service.
    public var name: String?
    /// Whether this is the accessory's primary service.
    public var primary: Bool?
    /// Whether the service is hidden from users.
    public var hidden: Bool?
    /// Catalog characteristics by identifier or synonym: each one named is added if optional, then overridden.
    public var characteristics: [String: CharacteristicOverride]?
    /// Characteristics with their own UUIDs and metadata.
    public var custom: [CustomCharacteristic]?

    /// Makes a service description.
    public init(
        type: String,
        name: String? = nil,
        primary: Bool? = nil,
        characteristics: [String: CharacteristicOverride]? = nil,
        custom: [CustomCharacteristic]? = nil
    ) {
        self.type = type
        self.name = name
        self.primary = primary
        self.characteristics = characteristics
        self.custom = custom
    }
}

/// A start value and metadata for a catalog characteristic; metadata may only narrow the type's own range.
public struct CharacteristicOverride: Sendable, Equatable, Codable {
    /// The start value; an enumeration also takes a value name (`"secured"`).
    public var value: HAPValue?
    /// The smallest value.
    public var minValue: Double?
    /// The largest value.
    public var maxValue: Double?
    /// The step between values.
    public var minStep: Double?
    /// The longest string in UTF-8 bytes (at most 256).
    public var maxLen: Int?
    /// The only values allowed, a subset of the type's.
    public var validValues: [Int]?
    /// The description shown to people.
    public var description: String?

    /// Makes an override.
    public init(
        value: HAPValue? = nil,
        minValue: Double? = nil,
        maxValue: Double? = nil,
        minStep: Double? = nil,
        maxLen: Int? = nil,
        validValues: [Int]? = nil,
        description: String? = nil
    ) {
        self.value = value
        self.minValue = minValue
        self.maxValue = maxValue
        self.minStep = minStep
        self.maxLen = maxLen
        self.validValues = validValues
        self.description = description
    }
}

/// A characteristic the catalog does not know, with its own UUID, format, permissions and metadata.
public struct CustomCharacteristic: Sendable, Equatable, Codable {
    /// The type UUID in full form (short forms are Apple's).
    public var uuid: String
    /// How values are represented.
    public var format: Format
    /// What a controller may do, in wire form (`pr`, `pw`, `ev` …).
    public var perms: [Permission]
    /// The start value; a neutral one (false, the minimum, "") when absent and readable.
    public var value: HAPValue?
    /// The unit of a numeric value.
    public var unit: HAPTypes.Unit?
    /// The smallest value.
    public var minValue: Double?
    /// The largest value.
    public var maxValue: Double?
    /// The step between values.
    public var minStep: Double?
    /// The longest string in UTF-8 bytes.
    public var maxLen: Int?
    /// The only values allowed.
    public var validValues: [Int]?
    /// The description shown to people; also a name the control interface accepts.
    public var description: String?

    /// Makes a custom characteristic.
    public init(
        uuid: String,
        format: Format,
        perms: [Permission],
        value: HAPValue? = nil,
        unit: HAPTypes.Unit? = nil,
        minValue: Double? = nil,
        maxValue: Double? = nil,
        minStep: Double? = nil,
        maxLen: Int? = nil,
        validValues: [Int]? = nil,
        description: String? = nil
    ) {
        self.uuid = uuid
        self.format = format
        self.perms = perms
        self.value = value
        self.unit = unit
        self.minValue = minValue
        self.maxValue = maxValue
        self.minStep = minStep
        self.maxLen = maxLen
        self.validValues = validValues
        self.description = description
    }
}

/// Timing of simulated behaviour; every field has a default, so `{}` is valid.
public struct BehaviourSettings: Sendable, Equatable, Codable {
    /// Seconds a lock takes for its current state to follow the target (default 2).
    public var lockDelaySeconds: Double?
    /// Seconds a garage door takes to open or close (default 10).
    public var doorTravelSeconds: Double?
    /// Percent a window covering, door or window moves per step (default 10).
    public var positionStepPercent: Int?
    /// Seconds between position steps (default 1).
    public var positionStepSeconds: Double?
    /// Degrees Celsius a thermostat or heater-cooler moves the temperature per step (default 0.5).
    public var temperatureStepCelsius: Double?
    /// Seconds between temperature steps (default 5).
    public var temperatureStepSeconds: Double?
    /// Seconds for a battery to lose 1 % (default 60); 0 stops draining.
    public var batteryDrainSeconds: Double?
    /// Battery level below which StatusLowBattery is 1 (default 20).
    public var lowBatteryThreshold: Int?

    /// Makes settings; fields left `nil` take their defaults.
    public init(
        lockDelaySeconds: Double? = nil,
        doorTravelSeconds: Double? = nil,
        positionStepPercent: Int? = nil,
        positionStepSeconds: Double? = nil,
        temperatureStepCelsius: Double? = nil,
        temperatureStepSeconds: Double? = nil,
        batteryDrainSeconds: Double? = nil,
        lowBatteryThreshold: Int? = nil
    ) {
        self.lockDelaySeconds = lockDelaySeconds
        self.doorTravelSeconds = doorTravelSeconds
        self.positionStepPercent = positionStepPercent
        self.positionStepSeconds = positionStepSeconds
        self.temperatureStepCelsius = temperatureStepCelsius
        self.temperatureStepSeconds = temperatureStepSeconds
        self.batteryDrainSeconds = batteryDrainSeconds
        self.lowBatteryThreshold = lowBatteryThreshold
    }
}
