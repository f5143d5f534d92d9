import Foundation
import Testing

@testable import HomeGraph

/// Every operation that names an object that does not exist fails with `notFound` and changes nothing.
@Suite struct NotFoundTests {
    /// A home with one of everything, and the ids of each.
    struct Populated {
        var fixture: Fixture
        let room: UUID
        let zone: UUID
        let lamp: Accessory
        let group: UUID
        let actionSet: UUID
        let trigger: UUID
        let user: UUID

        init() throws {
            fixture = try Fixture()
            let home = fixture.homeID
            room = try fixture.addRoom("Kitchen")
            zone = try fixture.addZone("Downstairs", rooms: [room])
            lamp = try fixture.addLamp("Lamp", room: room)
            group = fixture.ids.makeID()
            try fixture.apply(.addServiceGroup(home: home, id: group, name: "Lamps", serviceIDs: [lamp.services[0].id]))
            actionSet = fixture.ids.makeID()
            try fixture.apply(.addActionSet(home: home, id: actionSet, name: "Evening"))
            trigger = fixture.ids.makeID()
            try fixture.apply(.addTrigger(home: home, trigger: Trigger.make(id: trigger, name: "Dusk")))
            user = fixture.ids.makeID()
            try fixture.apply(.addUser(home: home, id: user, name: "Sam", role: .administrator))
        }
    }

    @Test func everyOperationWithAnUnknownIDFailsAndChangesNothing() throws {
        var populated = try Populated()
        let missing = UUID()
        let home = populated.fixture.homeID
        let room = populated.room
        let zone = populated.zone
        let lamp = populated.lamp
        let service = lamp.services[0].id
        let characteristic = lamp.on.id
        let group = populated.group
        let scene = populated.actionSet
        let trigger = populated.trigger
        let user = populated.user
        let newID = populated.fixture.ids.makeID()
        let newLamp = populated.fixture.makeLamp("New Lamp")
        let cases: [(HomeOperation, ObjectKind)] = [
            (.removeHome(missing), .home),
            (.setPrimaryHome(missing), .home),
            (.renameHome(missing, name: "X"), .home),
            (.setLocation(home: missing, location: nil), .home),
            (.setTimeZone(home: missing, identifier: "UTC"), .home),
            (.addRoom(home: missing, id: newID, name: "X"), .home),
            (.renameRoom(home: home, room: missing, name: "X"), .room),
            (.removeRoom(home: home, room: missing), .room),
            (.addZone(home: missing, id: newID, name: "X"), .home),
            (.renameZone(home: home, zone: missing, name: "X"), .zone),
            (.removeZone(home: home, zone: missing), .zone),
            (.addRoomToZone(home: home, room: missing, zone: zone), .room),
            (.addRoomToZone(home: home, room: room, zone: missing), .zone),
            (.removeRoomFromZone(home: home, room: missing, zone: zone), .room),
            (.removeRoomFromZone(home: home, room: room, zone: missing), .zone),
            (.addAccessory(home: missing, accessory: newLamp), .home),
            (.renameAccessory(home: home, accessory: missing, name: "X"), .accessory),
            (.moveAccessory(home: home, accessory: missing, room: room), .accessory),
            (.moveAccessory(home: home, accessory: lamp.id, room: missing), .room),
            (.removeAccessory(home: home, accessory: missing), .accessory),
            (.setReachability(home: home, accessory: missing, isReachable: false), .accessory),
            (.renameService(home: home, service: missing, name: "X"), .service),
            (.updateCharacteristicValue(home: home, characteristic: missing, value: .bool(true)), .characteristic),
            (.writeCharacteristicValue(home: home, characteristic: missing, value: .bool(true)), .characteristic),
            (.setNotifications(home: home, characteristic: missing, isEnabled: true), .characteristic),
            (.addServiceGroup(home: home, id: newID, name: "X", serviceIDs: [missing]), .service),
            (.renameServiceGroup(home: home, group: missing, name: "X"), .serviceGroup),
            (.removeServiceGroup(home: home, group: missing), .serviceGroup),
            (.addServiceToGroup(home: home, service: missing, group: group), .service),
            (.addServiceToGroup(home: home, service: service, group: missing), .serviceGroup),
            (.removeServiceFromGroup(home: home, service: missing, group: group), .service),
            (.removeServiceFromGroup(home: home, service: service, group: missing), .serviceGroup),
            (
                .addActionSet(
                    home: home,
                    id: newID,
                    name: "X",
                    actions: [Action(characteristicID: missing, targetValue: .bool(true))]
                ), .characteristic
            ),
            (.renameActionSet(home: home, actionSet: missing, name: "X"), .actionSet),
            (.removeActionSet(home: home, actionSet: missing), .actionSet),
            (.setActions(home: home, actionSet: missing, actions: []), .actionSet),
            (
                .setActions(
                    home: home,
                    actionSet: scene,
                    actions: [Action(characteristicID: missing, targetValue: .bool(true))]
                ), .characteristic
            ),
            (.addTrigger(home: home, trigger: Trigger.make(id: newID, name: "X", actionSetIDs: [missing])), .actionSet),
            (.renameTrigger(home: home, trigger: missing, name: "X"), .trigger),
            (.removeTrigger(home: home, trigger: missing), .trigger),
            (.enableTrigger(home: home, trigger: missing, isEnabled: false), .trigger),
            (.addUser(home: missing, id: newID, name: "X", role: .shared), .home),
            (.removeUser(home: home, user: missing), .user),
            (.setRole(home: home, user: missing, role: .shared), .user),
        ]
        for (operation, kind) in cases {
            populated.fixture.expectFailure(operation, .notFound(kind, missing))
        }
        // Ids of one home are unknown in another.
        let other = populated.fixture.ids.makeID()
        try populated.fixture.apply(.addHome(id: other, name: "Cabin", roomForEntireHomeID: UUID()))
        populated.fixture.expectFailure(
            .renameAccessory(home: other, accessory: lamp.id, name: "X"),
            .notFound(.accessory, lamp.id)
        )
        populated.fixture.expectFailure(
            .removeUser(home: other, user: user),
            .notFound(.user, user)
        )
        _ = (characteristic, trigger)
    }
}
