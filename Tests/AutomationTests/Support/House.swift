import Automation
import Foundation
import HAPTypes
import HomeGraph

/// A home for engine tests, in Berlin's place and time zone.
///
/// It has a front door lock, a hallway motion sensor, a programmable switch, a thermometer, two lamps and two users. Triggers are added through the graph, so they are checked
/// as the hub's would be.
struct House {
    var graph = HomeGraph()
    let homeID = UUID()
    let owner = UUID()
    let partner = UUID()
    let lock = UUID()
    let motion = UUID()
    let button = UUID()
    let temperature = UUID()
    let lampOn = UUID()
    let porchOn = UUID()
    var arriveHome = UUID()
    var lightsOff = UUID()

    init() throws {
        let room = UUID()
        try graph.apply(
            .addHome(id: homeID, name: "Linden", roomForEntireHomeID: room, timeZoneIdentifier: "Europe/Berlin")
        )
        try graph.apply(.setLocation(home: homeID, location: Location(latitude: 52.52, longitude: 13.405)))
        try graph.apply(.addUser(home: homeID, id: owner, name: "Ada", role: .owner))
        try graph.apply(.addUser(home: homeID, id: partner, name: "Bo", role: .shared))
        let notify: [Permission] = [.read, .notify]
        func accessory(_ name: String, _ characteristic: Characteristic) -> Accessory {
            Accessory(
                id: UUID(),
                name: name,
                roomID: room,
                services: [
                    Service(id: UUID(), name: name, type: HAPUUID(apple: 0x43), characteristics: [characteristic])
                ]
            )
        }
        let uint8 = { (id: UUID, type: UInt32, max: Double, permissions: [Permission], value: HAPValue?) in
            Characteristic(
                id: id,
                type: HAPUUID(apple: type),
                instanceID: 10,
                format: .uint8,
                permissions: permissions,
                metadata: CharacteristicMetadata(minValue: 0, maxValue: max, minStep: 1),
                value: value
            )
        }
        let bool = { (id: UUID, type: UInt32, permissions: [Permission]) in
            Characteristic(
                id: id,
                type: HAPUUID(apple: type),
                instanceID: 10,
                format: .bool,
                permissions: permissions,
                value: .bool(false)
            )
        }
        let accessories = [
            accessory("Front Door", uint8(lock, 0x1D, 3, notify, .uint(1))),
            accessory("Hallway Motion", bool(motion, 0x22, notify)),
            accessory("Wall Button", uint8(button, 0x73, 2, [.read, .notify], nil)),
            accessory(
                "Thermometer",
                Characteristic(
                    id: temperature,
                    type: HAPUUID(apple: 0x11),
                    instanceID: 10,
                    format: .float,
                    permissions: notify,
                    metadata: CharacteristicMetadata(minValue: -50, maxValue: 100),
                    value: .float(20)
                )
            ),
            accessory("Hall Lamp", bool(lampOn, 0x25, [.read, .write, .notify])),
            accessory("Porch Light", bool(porchOn, 0x25, [.read, .write, .notify])),
        ]
        for item in accessories { try graph.apply(.addAccessory(home: homeID, accessory: item)) }
        try graph.apply(
            .addActionSet(
                home: homeID,
                id: arriveHome,
                name: "Welcome Light",
                actions: [Action(characteristicID: lampOn, targetValue: .bool(true))]
            )
        )
        try graph.apply(
            .addActionSet(
                home: homeID,
                id: lightsOff,
                name: "Lights Off",
                actions: [
                    Action(characteristicID: lampOn, targetValue: .bool(false)),
                    Action(characteristicID: porchOn, targetValue: .bool(false)),
                ]
            )
        )
    }

    var home: Home {
        get throws {
            guard let home = graph.home(withID: homeID) else { throw HouseError.noHome }
            return home
        }
    }

    /// Adds a trigger running `scenes` and returns its id.
    @discardableResult
    mutating func addTrigger(
        _ name: String,
        _ definition: TriggerDefinition,
        runs scenes: [UUID],
        creator: UUID? = nil
    ) throws -> UUID {
        let id = UUID()
        try graph.apply(
            .addTrigger(
                home: homeID,
                trigger: Trigger(
                    id: id,
                    name: name,
                    actionSetIDs: scenes,
                    definition: definition,
                    creatorID: creator ?? owner
                )
            )
        )
        return id
    }

    /// Records a value as the hub would after a report.
    mutating func set(_ characteristic: UUID, _ value: HAPValue) throws {
        try graph.apply(.updateCharacteristicValue(home: homeID, characteristic: characteristic, value: value))
    }

    /// Stores the engine's outcome states as the hub does.
    mutating func store(_ outcomes: [AutomationOutcome]) throws {
        for outcome in outcomes {
            try graph.apply(.setTriggerState(home: homeID, trigger: outcome.triggerID, state: outcome.stateToStore))
        }
    }

    /// Berlin wall-clock time on 2026-06-15 (CEST).
    static func june15(_ hour: Int, _ minute: Int) -> Date {
        HomeClock(timeZone: TimeZone(identifier: "Europe/Berlin") ?? .gmt).instant(
            of: LocalDateTime(year: 2026, month: 6, day: 15, time: TimeOfDay(hour: hour, minute: minute))
        )
    }
}

enum HouseError: Error { case noHome }

extension [AutomationOutcome] {
    /// The outcomes that run scenes.
    var firings: [AutomationOutcome] {
        filter { if case .fire? = $0.run { true } else { false } }
    }
}
