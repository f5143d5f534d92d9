// The benchmark's home: 500 accessories from four hearth-sim bridges, imported the way the hub imports a paired
// bridge (`Accessory(importing:…)` through `HomeGraph.apply`), in 25 rooms of three zones, with 20 scenes.
import Foundation
import HAPTypes
import HomeGraph
import Simulator

/// SplitMix64: the same seed always gives the same numbers.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One planned device: its preset, its name in the home, its room and the room's zone.
struct Device {
    let preset: Preset
    let name: String
    let room: String
    let zone: String
}

/// What the sentence generator needs to know about the built home.
struct BenchHome {
    let home: Home
    let devices: [Device]
    let rooms: [(name: String, zone: String)]
    let scenes: [String]
    let groups: [String]
}

enum BenchHomeError: Error, CustomStringConvertible {
    case unexpected(String)

    var description: String {
        switch self {
        case .unexpected(let text): text
        }
    }
}

/// The rooms, by zone, in the order they are added.
let zonesAndRooms: [(zone: String, rooms: [String])] = [
    (
        "Downstairs",
        [
            "Kitchen", "Living Room", "Dining Room", "Hallway", "Study", "Family Room", "Utility Room",
            "Guest Bathroom", "Entrance",
        ]
    ),
    (
        "Upstairs",
        [
            "Bedroom 1", "Bedroom 2", "Bedroom 3", "Bedroom 4", "Nursery", "Bathroom", "Landing", "Office",
            "Playroom", "Laundry",
        ]
    ),
    ("Outside", ["Garage", "Garden", "Patio", "Porch", "Driveway", "Shed"]),
]

/// The devices every room of a kind has, by the rest of their name after the room's.
func baseDevices(of room: String) -> [(Preset, String)] {
    switch room {
    case "Kitchen":
        return [
            (.lightbulbDimmable, "Ceiling Light"), (.lightbulbDimmable, "Pendant Light"),
            (.lightbulbColor, "Under Cabinet Light"), (.switch, "Coffee Machine"), (.outlet, "Kettle"),
            (.windowCovering, "Blinds"), (.thermostat, "Thermostat"), (.motionSensor, "Motion Sensor"),
            (.leakSensor, "Leak Sensor"), (.smokeSensor, "Smoke Detector"), (.contactSensor, "Window Sensor"),
            (.fan, "Extractor Fan"),
        ]
    case "Living Room", "Family Room":
        return [
            (.lightbulbDimmable, "Ceiling Light"), (.lightbulbDimmable, "Floor Lamp"), (.lightbulbColor, "Table Lamp"),
            (.lightbulbColor, "Light Strip"), (.outlet, "TV Plug"), (.fan, "Ceiling Fan"),
            (.windowCovering, "Curtains"),
            (.thermostat, "Thermostat"), (.motionSensor, "Motion Sensor"), (.contactSensor, "Window Sensor"),
            (.airPurifier, "Air Purifier"), (.humiditySensor, "Humidity Sensor"),
        ]
    case "Bedroom 1", "Bedroom 2", "Bedroom 3", "Bedroom 4":
        return [
            (.lightbulbDimmable, "Ceiling Light"), (.lightbulbColor, "Bedside Lamp"),
            (.lightbulbDimmable, "Reading Lamp"), (.lightbulb, "Night Light"), (.fan, "Ceiling Fan"),
            (.windowCovering, "Blinds"), (.thermostat, "Thermostat"), (.contactSensor, "Window Sensor"),
            (.motionSensor, "Motion Sensor"), (.outlet, "Outlet"),
        ] + (room == "Bedroom 1" ? [(.heaterCooler, "Air Conditioner")] : [])
    case "Nursery":
        return [
            (.lightbulbDimmable, "Ceiling Light"), (.lightbulbColor, "Night Light"), (.windowCovering, "Blinds"),
            (.thermostat, "Thermostat"), (.temperatureSensor, "Temperature Sensor"),
            (.humiditySensor, "Humidity Sensor"), (.fan, "Fan"),
        ]
    case "Bathroom", "Guest Bathroom":
        return [
            (.lightbulbDimmable, "Ceiling Light"), (.lightbulbDimmable, "Mirror Light"), (.switch, "Towel Rail"),
            (.fan, "Extractor Fan"), (.humiditySensor, "Humidity Sensor"), (.leakSensor, "Leak Sensor"),
        ]
    case "Hallway", "Landing":
        return [
            (.lightbulbDimmable, "Ceiling Light"), (.lightbulbDimmable, "Wall Light"), (.motionSensor, "Motion Sensor"),
            (.smokeSensor, "Smoke Detector"),
        ]
    case "Entrance":
        return [
            (.lightbulbDimmable, "Ceiling Light"), (.doorLock, "Front Door"), (.securitySystem, "Security System"),
            (.contactSensor, "Door Sensor"), (.motionSensor, "Motion Sensor"),
        ]
    case "Study", "Office":
        return [
            (.lightbulbDimmable, "Ceiling Light"), (.lightbulbColor, "Desk Lamp"), (.outlet, "Printer Plug"),
            (.windowCovering, "Blinds"), (.thermostat, "Thermostat"), (.temperatureSensor, "Temperature Sensor"),
            (.fan, "Desk Fan"),
        ]
    case "Dining Room":
        return [
            (.lightbulbDimmable, "Chandelier"), (.lightbulbDimmable, "Wall Light"), (.windowCovering, "Curtains"),
            (.outlet, "Outlet"), (.thermostat, "Thermostat"),
        ]
    case "Utility Room", "Laundry":
        return [
            (.lightbulb, "Light"), (.outlet, "Washing Machine"), (.outlet, "Dryer"), (.leakSensor, "Leak Sensor"),
        ]
    case "Playroom":
        return [
            (.lightbulbDimmable, "Ceiling Light"), (.lightbulbColor, "Light Strip"), (.outlet, "Outlet"),
            (.windowCovering, "Blinds"),
        ]
    case "Garage":
        return [
            (.garageDoor, "Left Door"), (.garageDoor, "Right Door"), (.lightbulb, "Ceiling Light"),
            (.doorLock, "Side Door"), (.motionSensor, "Motion Sensor"), (.outlet, "Charger"),
        ]
    case "Garden":
        return [
            (.lightbulbDimmable, "Path Lights"), (.lightbulb, "Flood Light"), (.switch, "Fountain Pump"),
            (.motionSensor, "Motion Sensor"), (.temperatureSensor, "Temperature Sensor"),
            (.lightSensor, "Light Sensor"),
        ]
    case "Patio":
        return [
            (.lightbulbColor, "Café Lights"), (.lightbulbDimmable, "Wall Light"), (.switch, "Heater"),
            (.doorLock, "Back Door"), (.windowCovering, "Awning"),
        ]
    case "Porch":
        return [(.lightbulbDimmable, "Light"), (.motionSensor, "Motion Sensor"), (.contactSensor, "Door Sensor")]
    case "Driveway":
        return [(.lightbulbDimmable, "Lamp Post"), (.garageDoor, "Gate"), (.motionSensor, "Motion Sensor")]
    case "Shed":
        return [(.lightbulb, "Light"), (.outlet, "Outlet"), (.doorLock, "Door")]
    default:
        return [(.lightbulbDimmable, "Ceiling Light")]
    }
}

/// What indoor rooms get more of until the home has its accessories: numbered recessed lights, sockets and shades.
let extraKinds: [(Preset, String)] = [
    (.lightbulbDimmable, "Downlight"), (.lightbulbDimmable, "Downlight"), (.lightbulbDimmable, "Spotlight"),
    (.lightbulbColor, "Accent Light"), (.outlet, "Wall Socket"), (.windowCovering, "Window Shade"),
    (.contactSensor, "Window Contact"),
]

/// A few accessories named after people, with possessives, as households name them.
let personalNames: [String: [(Preset, String)]] = [
    "Bedroom 2": [(.lightbulbDimmable, "Anna's Lamp")],
    "Bedroom 3": [(.lightbulbColor, "Ben's Galaxy Projector")],
    "Playroom": [(.lightbulbColor, "Mia's Unicorn Light")],
]

/// The user scenes, after the four built-in ones.
let userScenes = [
    "Movie Time", "Dinner", "Reading", "Party", "Relax", "Romantic", "Cleaning", "Morning Coffee", "Evening",
    "All Off", "Welcome Guests", "Focus", "Game Night", "Bath Time", "Kids Bedtime", "Holiday Lights",
]

/// The devices of the whole home, `bridged` of them, deterministic for `seed`.
func planDevices(bridged: Int, seed: UInt64) -> [Device] {
    var random = SeededRandom(seed: seed)
    var devices: [Device] = []
    var indoor: [(room: String, zone: String)] = []
    for (zone, rooms) in zonesAndRooms {
        for room in rooms {
            for (preset, rest) in baseDevices(of: room) {
                devices.append(Device(preset: preset, name: "\(room) \(rest)", room: room, zone: zone))
            }
            for (preset, name) in personalNames[room] ?? [] {
                devices.append(Device(preset: preset, name: name, room: room, zone: zone))
            }
            if zone != "Outside" { indoor.append((room, zone)) }
        }
    }
    var numbers: [String: Int] = [:]
    var next = 0
    while devices.count < bridged {
        let (room, zone) = indoor[next % indoor.count]
        next += 1
        let (preset, rest) = extraKinds[Int(random.next() % UInt64(extraKinds.count))]
        let key = "\(room) \(rest)"
        numbers[key, default: 0] += 1
        devices.append(Device(preset: preset, name: "\(key) \(numbers[key] ?? 1)", room: room, zone: zone))
    }
    return Array(devices.prefix(bridged))
}

/// The name hearth-sim gives each accessory of `presets` (`SimulatorDescription(bridgeName:presets:)`'s rule).
func simulatorNames(_ presets: [Preset]) -> [String] {
    var totals: [Preset: Int] = [:]
    for preset in presets { totals[preset, default: 0] += 1 }
    var numbers: [Preset: Int] = [:]
    return presets.map { preset in
        numbers[preset, default: 0] += 1
        return totals[preset] == 1 ? preset.displayName : "\(preset.displayName) \(numbers[preset] ?? 1)"
    }
}

/// Builds the home: `accessories` in all (four bridges and the accessories behind them), deterministic for `seed`.
func buildHome(accessories total: Int, bridges: Int, seed: UInt64, catalog: TypeCatalog) async throws -> BenchHome {
    var ids = SeededIDGenerator(seed: seed)
    var random = SeededRandom(seed: seed ^ 0x5EED)
    var graph = HomeGraph()
    let homeID = ids.makeID()
    _ = try graph.apply(
        .addHome(
            id: homeID,
            name: "Large House",
            roomForEntireHomeID: ids.makeID(),
            timeZoneIdentifier: "Europe/London",
            builtInActionSetIDs: BuiltInActionSetIDs(using: &ids)
        )
    )
    var roomIDs: [String: UUID] = [:]
    var rooms: [(name: String, zone: String)] = []
    for (zone, names) in zonesAndRooms {
        var zoneRooms: [UUID] = []
        for name in names {
            let id = ids.makeID()
            _ = try graph.apply(.addRoom(home: homeID, id: id, name: name))
            roomIDs[name] = id
            zoneRooms.append(id)
            rooms.append((name, zone))
        }
        _ = try graph.apply(.addZone(home: homeID, id: ids.makeID(), name: zone, roomIDs: zoneRooms))
    }
    let devices = planDevices(bridged: total - bridges, seed: seed)
    let perBridge = (devices.count + bridges - 1) / bridges
    let serverRoom = roomIDs["Utility Room"] ?? UUID()
    for bridgeIndex in 0..<bridges {
        let slice = Array(devices.dropFirst(bridgeIndex * perBridge).prefix(perBridge))
        let bridgeName = "Bridge \(bridgeIndex + 1)"
        let simulator = try SimulatedAccessories(
            description: SimulatorDescription(
                bridgeName: bridgeName,
                presets: slice.map { PresetRequest(preset: $0.preset) }
            )
        )
        let database = await simulator.database()
        await simulator.finish()
        let deviceID = try DeviceID(bytes: [0x0E, 0x18, 0x00, 0x00, 0x00, UInt8(bridgeIndex + 1)])
        let ordered = database.accessories.sorted { $0.accessoryID < $1.accessoryID }
        guard let server = ordered.first, server.accessoryID == 1, ordered.count == slice.count + 1 else {
            throw BenchHomeError.unexpected("\(bridgeName) has \(ordered.count) accessories, not \(slice.count + 1)")
        }
        let bridge = Accessory(
            importing: server,
            name: bridgeName,
            roomID: serverRoom,
            category: .bridge,
            deviceID: deviceID,
            catalog: catalog,
            ids: &ids
        )
        _ = try graph.apply(.addAccessory(home: homeID, accessory: bridge))
        let expected = simulatorNames(slice.map(\.preset))
        for (offset, (hapAccessory, device)) in zip(ordered.dropFirst(), slice).enumerated() {
            let imported = Accessory(
                importing: hapAccessory,
                roomID: roomIDs[device.room] ?? serverRoom,
                category: device.preset.category,
                deviceID: deviceID,
                bridgeID: bridge.id,
                catalog: catalog,
                ids: &ids
            )
            guard imported.name == expected[offset] else {
                throw BenchHomeError.unexpected("accessory \(hapAccessory.accessoryID) is '\(imported.name)'")
            }
            _ = try graph.apply(.addAccessory(home: homeID, accessory: imported))
            // Renamed as a person does after pairing: the accessory, and its services after it.
            _ = try graph.apply(.renameAccessory(home: homeID, accessory: imported.id, name: device.name))
            for service in imported.services where service.isPrimary && service.name != device.name {
                _ = try graph.apply(.renameService(home: homeID, service: service.id, name: device.name))
            }
        }
    }
    guard var home = graph.home(withID: homeID) else { throw BenchHomeError.unexpected("the home is missing") }

    // Current values, so that questions have varied answers.
    func characteristic(_ accessory: Accessory, _ name: String) -> Characteristic? {
        accessory.services.lazy.flatMap(\.characteristics).first { catalog.characteristic(for: $0.type)?.name == name }
    }
    func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
    var updates: [(UUID, HAPValue)] = []
    for accessory in home.accessories where accessory.bridgeID != nil {
        if let on = characteristic(accessory, "on") { updates.append((on.id, .bool(chance(35)))) }
        if let brightness = characteristic(accessory, "brightness") {
            updates.append((brightness.id, .int(Int64(10 + random.next() % 91))))
        }
        if let lock = characteristic(accessory, "lockCurrentState"), chance(25),
            let target = characteristic(accessory, "lockTargetState")
        {
            updates.append((lock.id, .uint(0)))
            updates.append((target.id, .uint(0)))
        }
        if let position = characteristic(accessory, "currentPosition") {
            updates.append((position.id, .uint(chance(40) ? UInt64(random.next() % 101) : 0)))
        }
        if let contact = characteristic(accessory, "contactSensorState") {
            updates.append((contact.id, .uint(chance(20) ? 1 : 0)))
        }
        if let motion = characteristic(accessory, "motionDetected") { updates.append((motion.id, .bool(chance(15)))) }
        if let temperature = characteristic(accessory, "currentTemperature") {
            updates.append((temperature.id, .float(Double(170 + random.next() % 60) / 10)))
        }
    }
    for (id, value) in updates {
        _ = try graph.apply(.updateCharacteristicValue(home: homeID, characteristic: id, value: value))
    }

    // Scenes and service groups.
    home = graph.home(withID: homeID) ?? home
    let lights = home.accessories.compactMap { accessory -> UUID? in
        accessory.bridgeID == nil ? nil : characteristic(accessory, "on")?.id
    }
    for (index, name) in userScenes.enumerated() {
        let actions = (0..<6).map { step in
            Action(characteristicID: lights[(index * 7 + step * 13) % lights.count], targetValue: .bool(step % 2 == 0))
        }
        _ = try graph.apply(.addActionSet(home: homeID, id: ids.makeID(), name: name, actions: actions))
    }
    for (index, builtIn) in home.actionSets.enumerated() {
        let actions = (0..<4).map { step in
            Action(characteristicID: lights[(index * 11 + step * 5) % lights.count], targetValue: .bool(step == 0))
        }
        _ = try graph.apply(.setActions(home: homeID, actionSet: builtIn.id, actions: actions))
    }
    let groups: [(String, (Device) -> Bool)] = [
        ("Christmas Lights", { $0.preset == .lightbulbColor && $0.zone == "Downstairs" }),
        ("Reading Lights", { $0.name.hasSuffix("Reading Lamp") || $0.name.hasSuffix("Desk Lamp") }),
        ("Garden Lighting", { $0.zone == "Outside" && $0.preset.category == .lightbulb }),
        (
            "Kids Lights",
            { ["Bedroom 3", "Bedroom 4", "Nursery", "Playroom"].contains($0.room) && $0.preset == .lightbulbColor }
        ),
    ]
    for (name, member) in groups {
        let names = Set(devices.filter(member).map(\.name))
        let services = home.accessories.filter { names.contains($0.name) }.compactMap {
            $0.services.first(where: \.isPrimary)?.id
        }
        _ = try graph.apply(.addServiceGroup(home: homeID, id: ids.makeID(), name: name, serviceIDs: services))
    }
    guard let built = graph.home(withID: homeID) else { throw BenchHomeError.unexpected("the home is missing") }
    return BenchHome(
        home: built,
        devices: devices,
        rooms: rooms,
        scenes: built.actionSets.map(\.name),
        groups: groups.map(\.0)
    )
}
