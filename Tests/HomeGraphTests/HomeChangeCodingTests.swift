import Foundation
import Testing

import enum HAPTypes.HAPValue

@testable import HomeGraph

/// The change feed's wire form (docs/api/openapi.yaml, `HomeChange`): `{"type": "<kind>", …fields}`, and the
/// synthesized form older Hearth stored, which is still read.
@Suite struct HomeChangeCodingTests {
    /// One change of every kind, with every kind of value.
    static func everyKind() throws -> [HomeChange] {
        var fixture = try Fixture()
        let home = try fixture.home
        let lamp = fixture.makeLamp("Lamp")
        let ids = (0..<8).map { _ in fixture.ids.makeID() }
        let action = Action(characteristicID: lamp.brightness.id, targetValue: .int(40))
        return [
            .homeAdded(home),
            .homeRemoved,
            .homeBecamePrimary,
            .homeStoppedBeingPrimary,
            .homeRenamed(old: "Maple Street", new: "Elm Street"),
            .homeLocationChanged(Location(latitude: 52.5, longitude: 13.4)),
            .homeLocationChanged(nil),
            .homeTimeZoneChanged("Europe/Berlin"),
            .homeTemperatureUnitChanged(.fahrenheit),
            .roomAdded(Room(id: ids[0], name: "Hall")),
            .roomRenamed(room: ids[0], old: "Hall", new: "Entrance"),
            .roomRemoved(room: ids[0]),
            .zoneAdded(Zone(id: ids[1], name: "Upstairs", roomIDs: [ids[0]])),
            .zoneRenamed(zone: ids[1], old: "Upstairs", new: "Top"),
            .zoneRemoved(zone: ids[1]),
            .roomAddedToZone(room: ids[0], zone: ids[1]),
            .roomRemovedFromZone(room: ids[0], zone: ids[1]),
            .accessoryAdded(lamp),
            .accessoryRenamed(accessory: lamp.id, old: "Lamp", new: "Desk Lamp"),
            .accessoryMovedToRoom(accessory: lamp.id, from: fixture.entireHomeRoomID, to: ids[0]),
            .accessoryRemoved(accessory: lamp.id),
            .accessoryReachabilityChanged(accessory: lamp.id, isReachable: false),
            .serviceRenamed(service: lamp.services[0].id, accessory: lamp.id, old: "Lamp", new: "Light"),
            .characteristicValueChanged(characteristic: lamp.brightness.id, accessory: lamp.id, value: .int(80)),
            .characteristicValueChanged(characteristic: lamp.temperature.id, accessory: lamp.id, value: .float(21.5)),
            .characteristicValueChanged(characteristic: lamp.on.id, accessory: lamp.id, value: .bool(true)),
            .characteristicNotificationsChanged(characteristic: lamp.on.id, accessory: lamp.id, isEnabled: true),
            .serviceGroupAdded(ServiceGroup(id: ids[2], name: "Lights", serviceIDs: [lamp.services[0].id])),
            .serviceGroupRenamed(group: ids[2], old: "Lights", new: "Lamps"),
            .serviceGroupRemoved(group: ids[2]),
            .serviceAddedToGroup(service: lamp.services[0].id, group: ids[2]),
            .serviceRemovedFromGroup(service: lamp.services[0].id, group: ids[2]),
            .actionSetAdded(ActionSet(id: ids[3], name: "Evening", actions: [action])),
            .actionSetRenamed(actionSet: ids[3], old: "Evening", new: "Night"),
            .actionSetRemoved(actionSet: ids[3]),
            .actionSetActionsChanged(actionSet: ids[3], actions: [action]),
            .triggerAdded(
                Trigger(
                    id: ids[4],
                    name: "At Dusk",
                    actionSetIDs: [ids[3]],
                    definition: TriggerDefinition(events: [.significantTime(sun: .sunset, offsetSeconds: -1800)])
                )
            ),
            .triggerRenamed(trigger: ids[4], old: "At Dusk", new: "Sunset"),
            .triggerRemoved(trigger: ids[4]),
            .triggerEnabledChanged(trigger: ids[4], isEnabled: false),
            .triggerActionSetsChanged(trigger: ids[4], actionSetIDs: []),
            .userAdded(User(id: ids[5], name: "Bo", role: .shared)),
            .userRemoved(user: ids[5]),
            .userRoleChanged(user: ids[5], old: .shared, new: .administrator),
            .triggerDefinitionChanged(
                trigger: ids[4],
                definition: TriggerDefinition(
                    events: [.characteristic(id: lamp.on.id, value: .bool(true))],
                    condition: .all([
                        .time(after: .sun(.sunset, offsetSeconds: -1800), before: nil), .presence(.anyone),
                    ]),
                    end: TriggerEnd(afterSeconds: 300)
                )
            ),
            .triggerStateChanged(
                trigger: ids[4],
                state: TriggerState(
                    lastFired: Date(timeIntervalSince1970: 1_800_000_000),
                    holdingSince: [0: Date(timeIntervalSince1970: 1_800_000_100)],
                    decisions: [
                        TriggerDecision(
                            at: Date(timeIntervalSince1970: 1_800_000_000),
                            cause: "On became true",
                            outcome: .skipped,
                            reason: "a condition did not hold",
                            conditions: [ConditionCheck(condition: "after sunset-30m", observed: "17:02", holds: false)]
                        )
                    ]
                )
            ),
            .userPresenceChanged(
                user: ids[5],
                presence: Presence(isHome: true, reportedAt: Date(timeIntervalSince1970: 1_800_000_000))
            ),
            .homePresenceRadiusChanged(radius: 150),
        ]
    }

    static func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func everyKindRoundTripsInTheFlatForm() throws {
        let changes = try Self.everyKind()
        #expect(Set(changes.map(\.changeKind)) == Set(HomeChange.Kind.allCases), "a sample of every kind")
        for change in changes {
            let data = try JSONEncoder().encode(change)
            let object = try Self.object(data)
            #expect(object["type"] as? String == change.kind, "\(object)")
            #expect(object[change.kind] == nil && object["_0"] == nil, "not the synthesized form: \(object)")
            #expect(try JSONDecoder().decode(HomeChange.self, from: data) == change)
        }
    }

    @Test func theWireFormIsFlatWithNamedFields() throws {
        let room = UUID(uuidString: "6F1C2E8A-0000-4000-8000-000000000001") ?? UUID()
        let lamp = UUID(uuidString: "6F1C2E8A-0000-4000-8000-000000000002") ?? UUID()
        let brightness = UUID(uuidString: "6F1C2E8A-0000-4000-8000-000000000003") ?? UUID()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func text(_ change: HomeChange) throws -> String {
            String(decoding: try encoder.encode(change), as: UTF8.self)
        }
        #expect(
            try text(.roomAdded(Room(id: room, name: "Hall")))
                == #"{"room":{"id":"6F1C2E8A-0000-4000-8000-000000000001","name":"Hall"},"type":"roomAdded"}"#
        )
        #expect(
            try text(.roomRenamed(room: room, old: "Hall", new: "Entrance"))
                == #"{"new":"Entrance","old":"Hall","roomID":"6F1C2E8A-0000-4000-8000-000000000001","type":"roomRenamed"}"#
        )
        #expect(
            try text(.characteristicValueChanged(characteristic: brightness, accessory: lamp, value: .int(80)))
                == #"{"accessoryID":"6F1C2E8A-0000-4000-8000-000000000002","#
                + #""characteristicID":"6F1C2E8A-0000-4000-8000-000000000003","#
                + #""type":"characteristicValueChanged","value":80}"#
        )
        #expect(
            try text(.accessoryMovedToRoom(accessory: lamp, from: room, to: room))
                == #"{"accessoryID":"6F1C2E8A-0000-4000-8000-000000000002","#
                + #""fromRoomID":"6F1C2E8A-0000-4000-8000-000000000001","#
                + #""toRoomID":"6F1C2E8A-0000-4000-8000-000000000001","type":"accessoryMovedToRoom"}"#
        )
        #expect(try text(.homeLocationChanged(nil)) == #"{"location":null,"type":"homeLocationChanged"}"#)
        #expect(try text(.homeRemoved) == #"{"type":"homeRemoved"}"#)
    }

    @Test func theSynthesizedFormOfEveryKindIsStillRead() throws {
        for change in try Self.everyKind() {
            // Kinds added after the flat form have no old form.
            guard let synthesized = SynthesizedChange(change) else { continue }
            let old = try JSONEncoder().encode(synthesized)
            #expect(try Self.object(old)[change.kind] != nil, "the old form is keyed by the case name")
            #expect(
                try JSONDecoder().decode(HomeChange.self, from: old) == change,
                "\(String(decoding: old, as: UTF8.self))"
            )
        }
        let room = UUID()
        let handWritten = #"{"roomAdded": {"_0": {"id": "\#(room.uuidString)", "name": "Hall"}}}"#
        #expect(
            try JSONDecoder().decode(HomeChange.self, from: Data(handWritten.utf8))
                == .roomAdded(Room(id: room, name: "Hall"))
        )
    }

    @Test func aStoredGraphWhoseRecentChangesAreInTheSynthesizedFormOpens() throws {
        var fixture = try Fixture()
        let room = try fixture.addRoom("Hall")
        let lamp = try fixture.addLamp("Lamp", room: room)
        try fixture.apply(
            .updateCharacteristicValue(home: fixture.homeID, characteristic: lamp.temperature.id, value: .float(21))
        )
        try fixture.apply(.renameRoom(home: fixture.homeID, room: room, name: "Entrance"))
        let graph = fixture.graph
        let current = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(graph))
        var rewritten = 0
        func toOldForm(_ value: Any) throws -> Any {
            if var object = value as? [String: Any] {
                if object["sequence"] != nil, let change = object["change"] {
                    let data = try JSONSerialization.data(withJSONObject: change)
                    let decoded = try JSONDecoder().decode(HomeChange.self, from: data)
                    object["change"] = try JSONSerialization.jsonObject(
                        with: try JSONEncoder().encode(SynthesizedChange(decoded))
                    )
                    rewritten += 1
                    return object
                }
                return try object.mapValues(toOldForm)
            }
            if let array = value as? [Any] { return try array.map(toOldForm) }
            return value
        }
        let old = try JSONSerialization.data(withJSONObject: try toOldForm(current))
        #expect(rewritten >= 4)
        #expect(String(decoding: old, as: UTF8.self).contains(#""roomRenamed":{"#))
        #expect(try JSONDecoder().decode(HomeGraph.self, from: old) == graph)
    }

    @Test func anUnknownTypeIsRefused() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(HomeChange.self, from: Data(#"{"type": "roomPainted"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(HomeChange.self, from: Data(#"{"roomPainted": {}}"#.utf8))
        }
    }
}

/// HomeChange as Hearth wrote it before issue 20: the same cases with Swift's synthesized Codable.
private enum SynthesizedChange: Codable {
    case homeAdded(Home)
    case homeRemoved
    case homeBecamePrimary
    case homeStoppedBeingPrimary
    case homeRenamed(old: String, new: String)
    case homeLocationChanged(Location?)
    case homeTimeZoneChanged(String)
    case roomAdded(Room)
    case roomRenamed(room: UUID, old: String, new: String)
    case roomRemoved(room: UUID)
    case zoneAdded(Zone)
    case zoneRenamed(zone: UUID, old: String, new: String)
    case zoneRemoved(zone: UUID)
    case roomAddedToZone(room: UUID, zone: UUID)
    case roomRemovedFromZone(room: UUID, zone: UUID)
    case accessoryAdded(Accessory)
    case accessoryRenamed(accessory: UUID, old: String, new: String)
    case accessoryMovedToRoom(accessory: UUID, from: UUID, to: UUID)
    case accessoryRemoved(accessory: UUID)
    case accessoryReachabilityChanged(accessory: UUID, isReachable: Bool)
    case serviceRenamed(service: UUID, accessory: UUID, old: String, new: String)
    case characteristicValueChanged(characteristic: UUID, accessory: UUID, value: HAPValue)
    case characteristicNotificationsChanged(characteristic: UUID, accessory: UUID, isEnabled: Bool)
    case serviceGroupAdded(ServiceGroup)
    case serviceGroupRenamed(group: UUID, old: String, new: String)
    case serviceGroupRemoved(group: UUID)
    case serviceAddedToGroup(service: UUID, group: UUID)
    case serviceRemovedFromGroup(service: UUID, group: UUID)
    case actionSetAdded(ActionSet)
    case actionSetRenamed(actionSet: UUID, old: String, new: String)
    case actionSetRemoved(actionSet: UUID)
    case actionSetActionsChanged(actionSet: UUID, actions: [Action])
    case triggerAdded(Trigger)
    case triggerRenamed(trigger: UUID, old: String, new: String)
    case triggerRemoved(trigger: UUID)
    case triggerEnabledChanged(trigger: UUID, isEnabled: Bool)
    case triggerActionSetsChanged(trigger: UUID, actionSetIDs: [UUID])
    case userAdded(User)
    case userRemoved(user: UUID)
    case userRoleChanged(user: UUID, old: UserRole, new: UserRole)

    init?(_ change: HomeChange) {
        switch change {
        case .homeAdded(let value0): self = .homeAdded(value0)
        case .homeRemoved: self = .homeRemoved
        case .homeBecamePrimary: self = .homeBecamePrimary
        case .homeStoppedBeingPrimary: self = .homeStoppedBeingPrimary
        case .homeRenamed(let old, let new): self = .homeRenamed(old: old, new: new)
        case .homeLocationChanged(let value0): self = .homeLocationChanged(value0)
        case .homeTimeZoneChanged(let value0): self = .homeTimeZoneChanged(value0)
        case .roomAdded(let value0): self = .roomAdded(value0)
        case .roomRenamed(let room, let old, let new): self = .roomRenamed(room: room, old: old, new: new)
        case .roomRemoved(let room): self = .roomRemoved(room: room)
        case .zoneAdded(let value0): self = .zoneAdded(value0)
        case .zoneRenamed(let zone, let old, let new): self = .zoneRenamed(zone: zone, old: old, new: new)
        case .zoneRemoved(let zone): self = .zoneRemoved(zone: zone)
        case .roomAddedToZone(let room, let zone): self = .roomAddedToZone(room: room, zone: zone)
        case .roomRemovedFromZone(let room, let zone): self = .roomRemovedFromZone(room: room, zone: zone)
        case .accessoryAdded(let value0): self = .accessoryAdded(value0)
        case .accessoryRenamed(let accessory, let old, let new):
            self = .accessoryRenamed(accessory: accessory, old: old, new: new)
        case .accessoryMovedToRoom(let accessory, let from, let to):
            self = .accessoryMovedToRoom(accessory: accessory, from: from, to: to)
        case .accessoryRemoved(let accessory): self = .accessoryRemoved(accessory: accessory)
        case .accessoryReachabilityChanged(let accessory, let isReachable):
            self = .accessoryReachabilityChanged(accessory: accessory, isReachable: isReachable)
        case .serviceRenamed(let service, let accessory, let old, let new):
            self = .serviceRenamed(service: service, accessory: accessory, old: old, new: new)
        case .characteristicValueChanged(let characteristic, let accessory, let value):
            self = .characteristicValueChanged(characteristic: characteristic, accessory: accessory, value: value)
        case .characteristicNotificationsChanged(let characteristic, let accessory, let isEnabled):
            self = .characteristicNotificationsChanged(
                characteristic: characteristic,
                accessory: accessory,
                isEnabled: isEnabled
            )
        case .serviceGroupAdded(let value0): self = .serviceGroupAdded(value0)
        case .serviceGroupRenamed(let group, let old, let new):
            self = .serviceGroupRenamed(group: group, old: old, new: new)
        case .serviceGroupRemoved(let group): self = .serviceGroupRemoved(group: group)
        case .serviceAddedToGroup(let service, let group): self = .serviceAddedToGroup(service: service, group: group)
        case .serviceRemovedFromGroup(let service, let group):
            self = .serviceRemovedFromGroup(service: service, group: group)
        case .actionSetAdded(let value0): self = .actionSetAdded(value0)
        case .actionSetRenamed(let actionSet, let old, let new):
            self = .actionSetRenamed(actionSet: actionSet, old: old, new: new)
        case .actionSetRemoved(let actionSet): self = .actionSetRemoved(actionSet: actionSet)
        case .actionSetActionsChanged(let actionSet, let actions):
            self = .actionSetActionsChanged(actionSet: actionSet, actions: actions)
        case .triggerAdded(let value0): self = .triggerAdded(value0)
        case .triggerRenamed(let trigger, let old, let new):
            self = .triggerRenamed(trigger: trigger, old: old, new: new)
        case .triggerRemoved(let trigger): self = .triggerRemoved(trigger: trigger)
        case .triggerEnabledChanged(let trigger, let isEnabled):
            self = .triggerEnabledChanged(trigger: trigger, isEnabled: isEnabled)
        case .triggerActionSetsChanged(let trigger, let actionSetIDs):
            self = .triggerActionSetsChanged(trigger: trigger, actionSetIDs: actionSetIDs)
        case .userAdded(let value0): self = .userAdded(value0)
        case .userRemoved(let user): self = .userRemoved(user: user)
        case .userRoleChanged(let user, let old, let new): self = .userRoleChanged(user: user, old: old, new: new)
        case .triggerDefinitionChanged, .triggerStateChanged, .userPresenceChanged, .homePresenceRadiusChanged,
            .homeTemperatureUnitChanged:
            return nil
        }
    }
}
