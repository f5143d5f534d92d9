import HAP
import HAPTypes

/// A ready-made accessory, usable by name in a description (`"preset": "door-lock"`) and on the command line.
public enum Preset: String, Sendable, CaseIterable, Codable {
    /// A lightbulb that only switches on and off.
    case lightbulb
    /// A lightbulb with brightness.
    case lightbulbDimmable = "lightbulb-dimmable"
    /// A lightbulb with brightness, hue and saturation.
    case lightbulbColor = "lightbulb-color"
    /// An outlet whose OutletInUse follows On.
    case outlet
    /// A switch.
    case `switch`
    /// A fan (Fanv2) with speed and direction.
    case fan
    /// A thermostat that drives the temperature toward its target.
    case thermostat
    /// A heater-cooler that drives the temperature toward its thresholds.
    case heaterCooler = "heater-cooler"
    /// A door lock whose state follows its target after a delay, and can jam.
    case doorLock = "door-lock"
    /// A garage door opener that takes seconds to move and can be obstructed.
    case garageDoor = "garage-door"
    /// A window covering that moves step by step.
    case windowCovering = "window-covering"
    /// A motion sensor.
    case motionSensor = "motion-sensor"
    /// A contact sensor (door or window open/closed).
    case contactSensor = "contact-sensor"
    /// An occupancy sensor.
    case occupancySensor = "occupancy-sensor"
    /// A leak sensor.
    case leakSensor = "leak-sensor"
    /// A smoke sensor.
    case smokeSensor = "smoke-sensor"
    /// A temperature sensor.
    case temperatureSensor = "temperature-sensor"
    /// A humidity sensor.
    case humiditySensor = "humidity-sensor"
    /// A light sensor.
    case lightSensor = "light-sensor"
    /// A security system whose state follows its target, and can be set off.
    case securitySystem = "security-system"
    /// A doorbell button.
    case doorbell
    /// A stateless programmable switch: one button, pressed single, double or long.
    case programmableSwitch = "programmable-switch"
    /// An air purifier whose state follows Active.
    case airPurifier = "air-purifier"
    /// A battery that drains over time.
    case battery

    /// The name an accessory made from the preset gets ("Door Lock").
    public var displayName: String {
        rawValue.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    /// The category a standalone accessory of this preset announces (`ci`).
    public var category: AccessoryCategory {
        switch self {
        case .lightbulb, .lightbulbDimmable, .lightbulbColor: .lightbulb
        case .outlet: .outlet
        case .switch: .switch
        case .fan: .fan
        case .thermostat: .thermostat
        case .heaterCooler: .airConditioner
        case .doorLock: .doorLock
        case .garageDoor: .garageDoorOpener
        case .windowCovering: .windowCovering
        case .motionSensor, .contactSensor, .occupancySensor, .leakSensor, .smokeSensor, .temperatureSensor,
            .humiditySensor, .lightSensor:
            .sensor
        case .securitySystem: .securitySystem
        case .doorbell, .programmableSwitch: .programmableSwitch
        case .airPurifier: .airPurifier
        case .battery: .other
        }
    }

    /// The model string in Accessory Information.
    var model: String { "Hearth Simulated \(displayName)" }

    /// The services, in the same shape a description uses; the first is primary.
    var services: [ServiceDescription] {
        switch self {
        case .lightbulb: [Self.service("lightbulb")]
        case .lightbulbDimmable: [Self.service("lightbulb", ["brightness"])]
        case .lightbulbColor: [Self.service("lightbulb", ["brightness", "hue", "saturation"])]
        case .outlet: [Self.service("outlet")]
        case .switch: [Self.service("switch")]
        case .fan: [Self.service("fanV2", ["currentFanState", "rotationSpeed", "rotationDirection"])]
        case .thermostat: [Self.service("thermostat", ["currentRelativeHumidity"])]
        case .heaterCooler:
            [Self.service("heaterCooler", ["heatingThresholdTemperature", "coolingThresholdTemperature"])]
        case .doorLock: [Self.service("lockMechanism")]
        case .garageDoor: [Self.service("garageDoorOpener")]
        case .windowCovering: [Self.service("windowCovering", ["holdPosition", "obstructionDetected"])]
        case .motionSensor: [Self.service("motionSensor", ["statusActive"])]
        case .contactSensor: [Self.service("contactSensor", ["statusActive"])]
        case .occupancySensor: [Self.service("occupancySensor", ["statusActive"])]
        case .leakSensor: [Self.service("leakSensor", ["statusActive"])]
        case .smokeSensor: [Self.service("smokeSensor", ["statusActive"])]
        case .temperatureSensor: [Self.service("temperatureSensor", ["statusActive"])]
        case .humiditySensor: [Self.service("humiditySensor", ["statusActive"])]
        case .lightSensor: [Self.service("lightSensor", ["statusActive"])]
        case .securitySystem: [Self.service("securitySystem", ["securitySystemAlarmType"])]
        case .doorbell: [Self.service("doorbell")]
        case .programmableSwitch: [Self.service("statelessProgrammableSwitch")]
        case .airPurifier: [Self.service("airPurifier", ["rotationSpeed"])]
        case .battery: [Self.service("batteryService")]
        }
    }

    private static func service(_ type: String, _ optional: [String] = []) -> ServiceDescription {
        ServiceDescription(
            type: type,
            primary: true,
            characteristics: Dictionary(uniqueKeysWithValues: optional.map { ($0, CharacteristicOverride()) })
        )
    }
}

/// One `--preset NAME[:COUNT]` argument: a preset and how many accessories to make from it.
public struct PresetRequest: Sendable, Equatable {
    /// The preset.
    public var preset: Preset
    /// How many accessories, 1 to 149.
    public var count: Int

    /// Makes a request for `count` accessories of `preset`.
    public init(preset: Preset, count: Int = 1) {
        self.preset = preset
        self.count = count
    }

    /// Parses `lightbulb` or `lightbulb:20`.
    public init(parsing text: String) throws(DescriptionError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw .invalidPresetRequest(text) }
        guard let preset = Preset(rawValue: String(parts[0]).lowercased()) else {
            throw .unknownPreset(accessory: text, preset: String(parts[0]))
        }
        var count = 1
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (1..<AccessoryDatabase.maximumAccessoryCount).contains(parsed) else {
                throw .invalidPresetRequest(text)
            }
            count = parsed
        }
        self.init(preset: preset, count: count)
    }
}

/// Start values for each service type, applied before a description's overrides, so devices start consistent.
enum ServiceDefaults {
    /// Start values by characteristic identifier, for services of the type with identifier `serviceName`.
    static func values(forService serviceName: String) -> [String: HAPValue] {
        var values = typeValues(forService: serviceName)
        if sensorServices.contains(serviceName) { values["statusActive"] = .bool(true) }
        return values
    }

    private static let sensorServices: Set<String> = [
        "motionSensor", "contactSensor", "occupancySensor", "leakSensor", "smokeSensor", "temperatureSensor",
        "humiditySensor", "lightSensor", "carbonMonoxideSensor", "airQualitySensor",
    ]

    private static func typeValues(forService serviceName: String) -> [String: HAPValue] {
        switch serviceName {
        case "lightbulb": ["brightness": .int(100), "saturation": .float(0)]
        case "thermostat":
            ["currentTemperature": .float(20), "targetTemperature": .float(21), "currentRelativeHumidity": .float(45)]
        case "heaterCooler":
            [
                "currentTemperature": .float(22), "heatingThresholdTemperature": .float(20),
                "coolingThresholdTemperature": .float(24), "targetHeaterCoolerState": .uint(0),
            ]
        case "lockMechanism": ["lockCurrentState": .uint(1), "lockTargetState": .uint(1)]
        case "garageDoorOpener": ["currentDoorState": .uint(1), "targetDoorState": .uint(1)]
        case "windowCovering", "door", "window": ["positionState": .uint(2)]
        case "securitySystem": ["securitySystemCurrentState": .uint(3), "securitySystemTargetState": .uint(3)]
        case "temperatureSensor": ["currentTemperature": .float(20)]
        case "humiditySensor": ["currentRelativeHumidity": .float(45)]
        case "lightSensor": ["currentAmbientLightLevel": .float(100)]
        case "batteryService": ["batteryLevel": .uint(100), "chargingState": .uint(0)]
        default: [:]
        }
    }
}
