import Foundation
import HAPTypes
import HomeGraph

/// One service to build: a catalog type, its name, the optional characteristics it has and their values.
struct ServiceSpec {
    /// The catalog's name of the service type (`lightbulb`).
    var type: String
    /// The service's name; the accessory's name when `nil`.
    var name: String?
    /// Optional characteristics of the type that the service has, besides the required ones.
    var optional: [String] = []
    /// Current values by characteristic name; numbers are converted to the characteristic's format.
    var values: [String: Value] = [:]

    /// A value as the corpus homes state it.
    enum Value {
        case bool(Bool)
        case number(Double)
    }

    /// A service of `type`.
    init(_ type: String, name: String? = nil, optional: [String] = [], values: [String: Value] = [:]) {
        self.type = type
        self.name = name
        self.optional = optional
        self.values = values
    }

    /// A light, dimmable when `brightness` is given.
    static func light(_ on: Bool, _ brightness: Double? = nil, name: String? = nil) -> ServiceSpec {
        var spec = ServiceSpec("lightbulb", name: name, values: ["on": .bool(on)])
        if let brightness {
            spec.optional = ["brightness"]
            spec.values["brightness"] = .number(brightness)
        }
        return spec
    }

    /// A colour light with hue, saturation and colour temperature.
    static func colorLight(
        _ on: Bool,
        _ brightness: Double,
        hue: Double,
        saturation: Double,
        mireds: Double
    ) -> ServiceSpec {
        ServiceSpec(
            "lightbulb",
            optional: ["brightness", "hue", "saturation", "colorTemperature"],
            values: [
                "on": .bool(on), "brightness": .number(brightness), "hue": .number(hue),
                "saturation": .number(saturation), "colorTemperature": .number(mireds),
            ]
        )
    }

    /// An outlet.
    static func outlet(_ on: Bool, name: String? = nil) -> ServiceSpec {
        ServiceSpec("outlet", name: name, values: ["on": .bool(on), "outletInUse": .bool(on)])
    }

    /// A legacy fan with a speed.
    static func fan(_ on: Bool, speed: Double) -> ServiceSpec {
        ServiceSpec("fan", optional: ["rotationSpeed"], values: ["on": .bool(on), "rotationSpeed": .number(speed)])
    }

    /// A fan v2 (ceiling fan) with a speed.
    static func fanV2(_ active: Bool, speed: Double) -> ServiceSpec {
        ServiceSpec(
            "fanV2",
            optional: ["rotationSpeed"],
            values: ["active": .number(active ? 1 : 0), "rotationSpeed": .number(speed)]
        )
    }

    /// A window covering, window or door standing at `position` percent open.
    static func position(_ type: String, _ position: Double) -> ServiceSpec {
        ServiceSpec(
            type,
            values: [
                "currentPosition": .number(position), "targetPosition": .number(position),
                "positionState": .number(2),
            ]
        )
    }

    /// A lock, locked or not.
    static func lock(_ locked: Bool) -> ServiceSpec {
        let state = ServiceSpec.Value.number(locked ? 1 : 0)
        return ServiceSpec("lockMechanism", values: ["lockCurrentState": state, "lockTargetState": state])
    }

    /// A garage door opener, closed or open.
    static func garageDoor(closed: Bool) -> ServiceSpec {
        let state = ServiceSpec.Value.number(closed ? 1 : 0)
        return ServiceSpec(
            "garageDoorOpener",
            values: ["currentDoorState": state, "targetDoorState": state, "obstructionDetected": .bool(false)]
        )
    }

    /// A thermostat heating to `target` °C, with humidity.
    static func thermostat(
        current: Double,
        target: Double,
        mode: Double,
        humidity: Double,
        targetHumidity: Double,
        fahrenheit: Bool = false
    ) -> ServiceSpec {
        ServiceSpec(
            "thermostat",
            optional: ["currentRelativeHumidity", "targetRelativeHumidity"],
            values: [
                "currentHeatingCoolingState": .number(min(mode, 2)), "targetHeatingCoolingState": .number(mode),
                "currentTemperature": .number(current), "targetTemperature": .number(target),
                "temperatureDisplayUnits": .number(fahrenheit ? 1 : 0),
                "currentRelativeHumidity": .number(humidity), "targetRelativeHumidity": .number(targetHumidity),
            ]
        )
    }

    /// A temperature sensor.
    static func temperature(_ celsius: Double, name: String? = nil) -> ServiceSpec {
        ServiceSpec("temperatureSensor", name: name, values: ["currentTemperature": .number(celsius)])
    }

    /// A humidity sensor.
    static func humidity(_ percent: Double, name: String? = nil) -> ServiceSpec {
        ServiceSpec("humiditySensor", name: name, values: ["currentRelativeHumidity": .number(percent)])
    }

    /// A motion sensor.
    static func motion(_ detected: Bool) -> ServiceSpec {
        ServiceSpec("motionSensor", values: ["motionDetected": .bool(detected)])
    }

    /// A contact sensor on a window or door: `open` is contact not detected (1).
    static func contact(open: Bool) -> ServiceSpec {
        ServiceSpec("contactSensor", values: ["contactSensorState": .number(open ? 1 : 0)])
    }

    /// A battery.
    static func battery(_ level: Double, name: String) -> ServiceSpec {
        ServiceSpec(
            "batteryService",
            name: name,
            values: ["batteryLevel": .number(level), "chargingState": .number(2), "statusLowBattery": .number(0)]
        )
    }

    /// A security system in `state` (3 disarmed).
    static func security(_ state: Double) -> ServiceSpec {
        ServiceSpec(
            "securitySystem",
            values: ["securitySystemCurrentState": .number(state), "securitySystemTargetState": .number(state)]
        )
    }
}

/// Builds a home with deterministic ids (a per-home prefix and a counter) and services made from the type catalog
/// with its real metadata.
struct HomeBuilder {
    /// The type catalog services are made from.
    let catalog: TypeCatalog
    /// The home built so far.
    private(set) var home: Home
    private let prefix: UInt32
    private var counter: UInt64 = 0

    /// Starts a home called `name` whose ids all begin with `prefix`.
    init(name: String, prefix: UInt32, catalog: TypeCatalog) {
        self.catalog = catalog
        self.prefix = prefix
        let homeID = Self.id(prefix, 0)
        let defaultRoom = Room(id: Self.id(prefix, 1), name: Room.defaultNameForEntireHome)
        home = Home(id: homeID, name: name, isPrimary: true, roomForEntireHome: defaultRoom)
        counter = 1
    }

    private static func id(_ prefix: UInt32, _ counter: UInt64) -> UUID {
        let text = String(format: "%08X-0000-4000-8000-%012llX", prefix, counter)
        guard let id = UUID(uuidString: text) else { preconditionFailure("bad id text \(text)") }
        return id
    }

    /// The next id.
    mutating func makeID() -> UUID {
        counter += 1
        return Self.id(prefix, counter)
    }

    /// Adds rooms named `names`.
    mutating func rooms(_ names: [String]) {
        for name in names { home.rooms.append(Room(id: makeID(), name: name)) }
    }

    /// The id of the room called `name`.
    func roomID(_ name: String) -> UUID {
        guard let room = home.allRooms.first(where: { $0.name == name }) else { preconditionFailure("no room \(name)") }
        return room.id
    }

    /// Adds a zone of the rooms named `rooms`.
    mutating func zone(_ name: String, rooms: [String]) {
        home.zones.append(Zone(id: makeID(), name: name, roomIDs: rooms.map(roomID)))
    }

    /// Adds an accessory with an Accessory Information service and `services` (the first is primary).
    mutating func accessory(
        _ name: String,
        room: String,
        category: AccessoryCategory,
        _ services: [ServiceSpec]
    ) throws {
        let accessoryID = makeID()
        let information = ServiceSpec("accessoryInformation", name: name)
        var built: [Service] = []
        var instanceID: UInt64 = 1
        for (index, spec) in ([information] + services).enumerated() {
            let serviceName = spec.name ?? name
            var hap = try catalog.makeService(
                named: spec.type,
                instanceID: instanceID,
                optionalCharacteristics: spec.optional,
                isPrimary: index == 1
            )
            instanceID += UInt64(hap.characteristics.count) + 1
            var strings: [String: String] = ["name": serviceName]
            if spec.type == "accessoryInformation" {
                strings["manufacturer"] = "Hearth Test"
                strings["model"] = category == .other ? "Device" : "\(category)"
                strings["serialNumber"] = String(format: "SN%06llu", counter)
                strings["firmwareRevision"] = "1.0.0"
            }
            var characteristics: [Characteristic] = []
            for index in hap.characteristics.indices {
                let type = hap.characteristics[index].type
                guard let characteristicType = catalog.characteristic(for: type) else { continue }
                if let text = strings[characteristicType.name] {
                    hap.characteristics[index].value = .string(text)
                } else if let value = spec.values[characteristicType.name] {
                    switch value {
                    case .bool(let flag): hap.characteristics[index].value = .bool(flag)
                    case .number(let number):
                        hap.characteristics[index].value = try HAPValue.float(number).converted(
                            to: hap.characteristics[index].format
                        )
                    }
                }
                let characteristic = hap.characteristics[index]
                characteristics.append(
                    Characteristic(
                        id: makeID(),
                        type: characteristic.type,
                        instanceID: characteristic.instanceID,
                        format: characteristic.format,
                        permissions: characteristic.permissions,
                        metadata: CharacteristicMetadata(characteristic),
                        value: characteristic.value
                    )
                )
            }
            built.append(
                Service(
                    id: makeID(),
                    name: serviceName,
                    type: hap.type,
                    instanceID: hap.instanceID,
                    isPrimary: hap.isPrimary,
                    characteristics: characteristics
                )
            )
        }
        home.accessories.append(
            Accessory(
                id: accessoryID,
                name: name,
                roomID: roomID(room),
                category: category,
                manufacturer: "Hearth Test",
                model: "\(category)",
                serialNumber: String(format: "SN%06llu", counter),
                firmwareRevision: "1.0.0",
                services: built
            )
        )
    }

    /// The service called `name`.
    func service(_ name: String) -> Service {
        for accessory in home.accessories {
            for service in accessory.services.dropFirst() where service.name == name { return service }
        }
        preconditionFailure("no service \(name)")
    }

    /// Adds a service group of the services named `services`.
    mutating func group(_ name: String, _ services: [String]) {
        home.serviceGroups.append(ServiceGroup(id: makeID(), name: name, serviceIDs: services.map { service($0).id }))
    }

    /// Adds a scene of `kind` that writes `writes` (service name, characteristic name, value).
    mutating func scene(
        _ name: String,
        kind: ActionSetKind = .userDefined,
        _ writes: [(service: String, characteristic: String, value: HAPValue)] = []
    ) {
        var actions: [Action] = []
        for write in writes {
            let service = service(write.service)
            guard let type = catalog.characteristic(named: write.characteristic),
                let characteristic = service.characteristics.first(where: { $0.type == type.uuid })
            else { preconditionFailure("no \(write.characteristic) in \(write.service)") }
            actions.append(Action(characteristicID: characteristic.id, targetValue: write.value))
        }
        home.actionSets.append(ActionSet(id: makeID(), name: name, kind: kind, actions: actions))
    }

    /// Adds the four built-in scenes with `names` (Wake Up, Leave Home, Arrive Home, Sleep unless told).
    mutating func builtInScenes(_ names: [String] = ["Wake Up", "Leave Home", "Arrive Home", "Sleep"]) {
        for (kind, name) in zip(ActionSetKind.builtIn, names) { scene(name, kind: kind) }
    }
}
