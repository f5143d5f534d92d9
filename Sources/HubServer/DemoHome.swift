import Foundation
import HomeGraph
import Hub

/// The demo home `hearthd --demo` makes on first start: rooms, zones and two scenes, owned by the owner.
public enum DemoHome {
    /// The demo home's name.
    public static let name = "Demo Home"

    /// Makes the demo home unless the owner already has a home; returns the home.
    ///
    /// Hook for the accessory half of the hub (see `AccessoryRoutes.swift`): once `Hub` can pair, start the
    /// hearth-sim demo bridge (lights, thermostat, lock, garage door, sensors) in process on loopback, pair it
    /// with its setup code through `AccessoryControl.pair`, place its accessories in these rooms and fill the
    /// two scenes' actions. Until then the scenes have no actions and the home has no accessories.
    @discardableResult
    public static func create(in hub: Hub, owner: UUID, ownerName: String) async throws -> Home {
        let caller = HubCaller.user(owner)
        if let existing = await hub.graph.homes(visibleTo: caller).first { return existing }
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
        try await hub.perform(
            .addActionSet(home: home.id, id: UUID(), name: "Good Morning", kind: .wakeUp),
            as: caller
        )
        try await hub.perform(.addActionSet(home: home.id, id: UUID(), name: "Good Night", kind: .sleep), as: caller)
        try await hub.perform(
            .setLocation(home: home.id, location: Location(latitude: 52.52, longitude: 13.405)),
            as: caller
        )
        return await hub.graph.home(withID: home.id) ?? home
    }
}
