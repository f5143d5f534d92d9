import Foundation
import HAP
import HAPTypes
import HomeGraph
import Hub

/// The demo home `hearthd --demo` makes on first start: rooms, zones and the built-in scenes, two of them renamed.
enum DemoHome {
    /// The demo home's name.
    static let name = "Demo Home"

    /// Makes the demo home unless the owner already has a home; returns the home.
    ///
    /// The home starts with rooms, zones, a location and its four built-in scenes, Wake Up renamed Good Morning and
    /// Sleep renamed Good Night; `hearthd --demo` then pairs its simulated bridge and calls ``furnish(_:in:owner:)``.
    @discardableResult
    static func create(in hub: Hub, owner: UUID, ownerName: String) async throws -> Home {
        let caller = HubCaller.user(owner)
        if let existing = hub.graph.homes(visibleTo: caller).first { return existing }
        let home = try await hub.addHome(
            name: name,
            timeZoneIdentifier: "Europe/Berlin",
            ownerName: ownerName,
            as: caller
        )
        var rooms: [String: UUID] = [:]
        for room in ["Living Room", "Kitchen", "Bedroom", "Hallway", "Garage"] {
            let id = UUID()
            try await hub.perform(.addRoom(home: home.id, id: id, name: room), as: caller)
            rooms[room] = id
        }
        let downstairs = ["Living Room", "Kitchen", "Hallway", "Garage"].compactMap { rooms[$0] }
        try await hub.perform(.addZone(home: home.id, id: UUID(), name: "Downstairs", roomIDs: downstairs), as: caller)
        try await hub.perform(
            .addZone(home: home.id, id: UUID(), name: "Upstairs", roomIDs: [rooms["Bedroom"]].compactMap { $0 }),
            as: caller
        )
        for (kind, name) in [(ActionSetKind.wakeUp, "Good Morning"), (.sleep, "Good Night")] {
            guard let scene = home.actionSet(ofKind: kind) else { continue }
            try await hub.perform(.renameActionSet(home: home.id, actionSet: scene.id, name: name), as: caller)
        }
        try await hub.perform(
            .setLocation(home: home.id, location: Location(latitude: 52.52, longitude: 13.405)),
            as: caller
        )
        return hub.graph.home(withID: home.id) ?? home
    }

    /// The room each accessory of hearth-sim's demo bridge goes to, by the name the bridge gives it.
    static let placement: [String: String] = [
        "Demo Bridge": "Hallway",
        "Lightbulb Color 1": "Living Room",
        "Lightbulb Color 2": "Bedroom",
        "Door Lock": "Hallway",
        "Motion Sensor": "Hallway",
        "Thermostat": "Living Room",
        "Garage Door": "Garage",
        "Window Covering": "Bedroom",
        "Contact Sensor": "Kitchen",
        "Doorbell": "Hallway",
        "Outlet": "Kitchen",
    ]

    /// The names the demo gives the bridge's lights.
    static let renames: [String: String] = [
        "Lightbulb Color 1": "Living Room Lamp",
        "Lightbulb Color 2": "Bedroom Lamp",
    ]

    /// Places the paired demo accessories in the demo rooms and fills the two scenes: Good Morning turns the lights
    /// on and sets the thermostat to 21 °C; Good Night turns the lights off and locks the door.
    static func furnish(
        _ accessories: [Accessory],
        home homeID: UUID,
        in hub: Hub,
        owner: UUID
    )
        async throws(HubError)
    {
        let caller = HubCaller.user(owner)
        guard let home = hub.graph.home(withID: homeID) else { throw .homeNotFound(homeID) }
        let roomIDs = Dictionary(home.rooms.map { ($0.name, $0.id) }, uniquingKeysWith: { first, _ in first })
        for accessory in accessories {
            if let room = placement[accessory.name].flatMap({ roomIDs[$0] }), room != accessory.roomID {
                try await hub.perform(.moveAccessory(home: homeID, accessory: accessory.id, room: room), as: caller)
            }
            if let name = renames[accessory.name] {
                try await hub.perform(.renameAccessory(home: homeID, accessory: accessory.id, name: name), as: caller)
            }
        }
        /// The writable characteristics of `type` in services of `serviceType`.
        func characteristics(_ type: HAPUUID, in serviceType: HAPUUID) -> [UUID] {
            accessories.flatMap { accessory in
                accessory.services.filter { $0.type == serviceType }.flatMap { service in
                    service.characteristics.filter { $0.type == type && $0.permissions.contains(.write) }.map(\.id)
                }
            }
        }
        let lights = characteristics(HAPUUID(apple: 0x25), in: HAPUUID(apple: 0x43))
        let targetTemperature = characteristics(HAPUUID(apple: 0x35), in: HAPUUID(apple: 0x4A))
        let lockTarget = characteristics(HAPUUID(apple: 0x1E), in: HAPUUID(apple: 0x45))
        let morning =
            lights.map { Action(characteristicID: $0, targetValue: .bool(true)) }
            + targetTemperature.map { Action(characteristicID: $0, targetValue: .float(21)) }
        let night =
            lights.map { Action(characteristicID: $0, targetValue: .bool(false)) }
            + lockTarget.map { Action(characteristicID: $0, targetValue: .uint(1)) }
        for (kind, actions) in [(ActionSetKind.wakeUp, morning), (ActionSetKind.sleep, night)] {
            guard let actionSet = home.actionSets.first(where: { $0.kind == kind }) else { continue }
            try await hub.perform(.setActions(home: homeID, actionSet: actionSet.id, actions: actions), as: caller)
        }
    }
}
