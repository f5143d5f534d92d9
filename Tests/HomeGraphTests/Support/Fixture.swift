import Foundation
import TestFixtures
import Testing

import enum HAPTypes.AccessoryCategory
import struct HAPTypes.CharacteristicMetadata
import enum HAPTypes.Format
import struct HAPTypes.HAPUUID
import enum HAPTypes.Permission

@testable import HomeGraph

/// A graph with one home, ids from a seeded generator, and helpers that add rooms and accessories.
struct Fixture {
    var ids = SeededIDGenerator(seed: 7)
    var graph = HomeGraph()
    let homeID: UUID
    let entireHomeRoomID: UUID

    init(homeName: String = "Maple Street") throws {
        homeID = ids.makeID()
        entireHomeRoomID = ids.makeID()
        try graph.apply(.addHome(id: homeID, name: homeName, roomForEntireHomeID: entireHomeRoomID))
    }

    var home: Home {
        get throws { try #require(graph.home(withID: homeID)) }
    }

    /// Applies an operation to the fixture's graph.
    @discardableResult
    mutating func apply(_ operation: HomeOperation) throws(HomeGraphError) -> [HomeEvent] {
        try graph.apply(operation)
    }

    mutating func addRoom(_ name: String) throws -> UUID {
        let id = ids.makeID()
        try graph.apply(.addRoom(home: homeID, id: id, name: name))
        return id
    }

    mutating func addZone(_ name: String, rooms: [UUID] = []) throws -> UUID {
        let id = ids.makeID()
        try graph.apply(.addZone(home: homeID, id: id, name: name, roomIDs: rooms))
        return id
    }

    /// A lamp: On (bool, read/write/notify), Brightness (0–100 by 1) and a read-only Current Temperature.
    mutating func makeLamp(_ name: String, room: UUID? = nil, bridge: UUID? = nil) -> Accessory {
        Self.makeLamp(name, room: room ?? entireHomeRoomID, bridge: bridge, ids: &ids)
    }

    /// A lamp for any home, with ids from `ids`: the tests' lamp (TestFixtures) with its maker's details, a bridge,
    /// and a Temperature service.
    static func makeLamp(_ name: String, room: UUID, bridge: UUID?, ids: inout SeededIDGenerator) -> Accessory {
        var lamp = Accessory.testLamp(named: name, roomID: room, ids: &ids)
        (lamp.manufacturer, lamp.model, lamp.serialNumber, lamp.firmwareRevision) = (
            "Hearth", "Lamp 1", "SN-\(name)", "1.0"
        )
        lamp.bridgeID = bridge
        lamp.services.append(
            Service(
                id: ids.makeID(),
                name: "Temperature",
                type: HAPUUID(apple: 0x8A),
                instanceID: 20,
                characteristics: [.testTemperature(id: ids.makeID(), instanceID: 21, permissions: [.read])]
            )
        )
        return lamp
    }

    /// Adds a lamp and returns it as added.
    @discardableResult
    mutating func addLamp(_ name: String, room: UUID? = nil, bridge: UUID? = nil) throws -> Accessory {
        let lamp = makeLamp(name, room: room, bridge: bridge)
        try graph.apply(.addAccessory(home: homeID, accessory: lamp))
        return try #require(try home.accessory(withID: lamp.id))
    }

    /// Expects `operation` to fail with `error` and to leave the graph exactly as it was.
    mutating func expectFailure(
        _ operation: HomeOperation,
        _ error: HomeGraphError,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = graph
        #expect(throws: error, sourceLocation: sourceLocation) { try graph.apply(operation) }
        #expect(graph == before, "a failed operation changed the graph", sourceLocation: sourceLocation)
    }

    /// Applies `operation` and returns only the changes, without stamps.
    mutating func changes(_ operation: HomeOperation) throws -> [HomeChange] {
        try graph.apply(operation).map(\.change)
    }
}

extension Accessory {
    /// The On characteristic of a fixture lamp.
    var on: Characteristic { services[0].characteristics[0] }
    /// The Brightness characteristic of a fixture lamp.
    var brightness: Characteristic { services[0].characteristics[1] }
    /// The read-only Current Temperature characteristic of a fixture lamp.
    var temperature: Characteristic { services[1].characteristics[0] }
}
