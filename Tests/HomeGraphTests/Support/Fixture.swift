import Foundation
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

    /// A lamp for any home, with ids from `ids`.
    static func makeLamp(_ name: String, room: UUID, bridge: UUID?, ids: inout SeededIDGenerator) -> Accessory {
        Accessory(
            id: ids.makeID(),
            name: name,
            roomID: room,
            category: .lightbulb,
            manufacturer: "Hearth",
            model: "Lamp 1",
            serialNumber: "SN-\(name)",
            firmwareRevision: "1.0",
            bridgeID: bridge,
            services: [
                Service(
                    id: ids.makeID(),
                    name: name,
                    type: HAPUUID(apple: 0x43),
                    instanceID: 10,
                    isPrimary: true,
                    characteristics: [
                        Characteristic(
                            id: ids.makeID(),
                            type: HAPUUID(apple: 0x25),
                            instanceID: 11,
                            format: .bool,
                            permissions: [.read, .write, .notify],
                            value: .bool(false)
                        ),
                        Characteristic(
                            id: ids.makeID(),
                            type: HAPUUID(apple: 0x08),
                            instanceID: 12,
                            format: .int,
                            permissions: [.read, .write, .notify],
                            metadata: CharacteristicMetadata(unit: .percentage, minValue: 0, maxValue: 100, minStep: 1),
                            value: .int(0)
                        ),
                    ]
                ),
                Service(
                    id: ids.makeID(),
                    name: "Temperature",
                    type: HAPUUID(apple: 0x8A),
                    instanceID: 20,
                    characteristics: [
                        Characteristic(
                            id: ids.makeID(),
                            type: HAPUUID(apple: 0x11),
                            instanceID: 21,
                            format: .float,
                            permissions: [.read],
                            metadata: CharacteristicMetadata(
                                unit: .celsius,
                                minValue: -50,
                                maxValue: 100,
                                minStep: 0.1
                            ),
                            value: .float(20)
                        )
                    ]
                ),
            ]
        )
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
