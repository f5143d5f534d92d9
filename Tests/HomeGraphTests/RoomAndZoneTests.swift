import Foundation
import Testing

@testable import HomeGraph

@Suite struct RoomAndZoneTests {
    @Test func everyHomeHasARoomForTheEntireHomeHoldingUnplacedAccessories() throws {
        var fixture = try Fixture()
        let home = try fixture.home
        #expect(home.roomForEntireHome == Room(id: fixture.entireHomeRoomID, name: "Default Room"))
        #expect(home.rooms.isEmpty)
        let lamp = try fixture.addLamp("Lamp")
        #expect(lamp.roomID == fixture.entireHomeRoomID)
        #expect(try fixture.home.accessories(inRoom: fixture.entireHomeRoomID).map(\.id) == [lamp.id])
    }

    @Test func theRoomForTheEntireHomeCannotBeRemovedOrZoned() throws {
        var fixture = try Fixture()
        let zone = try fixture.addZone("Upstairs")
        let entire = fixture.entireHomeRoomID
        fixture.expectFailure(.removeRoom(home: fixture.homeID, room: entire), .roomForEntireHome(entire))
        fixture.expectFailure(
            .addRoomToZone(home: fixture.homeID, room: entire, zone: zone),
            .roomForEntireHome(entire)
        )
        fixture.expectFailure(
            .addZone(home: fixture.homeID, id: fixture.ids.makeID(), name: "All", roomIDs: [entire]),
            .roomForEntireHome(entire)
        )
    }

    @Test func removingARoomMovesItsAccessoriesToTheRoomForTheEntireHome() throws {
        var fixture = try Fixture()
        let kitchen = try fixture.addRoom("Kitchen")
        let hall = try fixture.addRoom("Hall")
        let zone = try fixture.addZone("Downstairs", rooms: [kitchen, hall])
        let first = try fixture.addLamp("Ceiling", room: kitchen)
        let second = try fixture.addLamp("Counter", room: kitchen)
        let other = try fixture.addLamp("Hall Lamp", room: hall)
        let changes = try fixture.changes(.removeRoom(home: fixture.homeID, room: kitchen))
        let entire = fixture.entireHomeRoomID
        #expect(
            changes == [
                .accessoryMovedToRoom(accessory: first.id, from: kitchen, to: entire),
                .accessoryMovedToRoom(accessory: second.id, from: kitchen, to: entire),
                .roomRemovedFromZone(room: kitchen, zone: zone),
                .roomRemoved(room: kitchen),
            ]
        )
        let home = try fixture.home
        #expect(home.room(withID: kitchen) == nil)
        #expect(home.accessories(inRoom: entire).map(\.id) == [first.id, second.id])
        #expect(home.accessory(withID: other.id)?.roomID == hall)
        #expect(home.zones.first?.roomIDs == [hall])
    }

    @Test func movingAnAccessoryReportsWhereFromAndWhereTo() throws {
        var fixture = try Fixture()
        let kitchen = try fixture.addRoom("Kitchen")
        let hall = try fixture.addRoom("Hall")
        let lamp = try fixture.addLamp("Lamp", room: kitchen)
        let changes = try fixture.changes(.moveAccessory(home: fixture.homeID, accessory: lamp.id, room: hall))
        #expect(changes == [.accessoryMovedToRoom(accessory: lamp.id, from: kitchen, to: hall)])
        #expect(try fixture.home.accessory(withID: lamp.id)?.roomID == hall)
        #expect(try fixture.changes(.moveAccessory(home: fixture.homeID, accessory: lamp.id, room: hall)).isEmpty)
        let entire = fixture.entireHomeRoomID
        #expect(
            try fixture.changes(.moveAccessory(home: fixture.homeID, accessory: lamp.id, room: entire))
                == [.accessoryMovedToRoom(accessory: lamp.id, from: hall, to: entire)]
        )
    }

    @Test func aRoomMayBeInAnyNumberOfZones() throws {
        var fixture = try Fixture()
        let stairs = try fixture.addRoom("Stairs")
        let upstairs = try fixture.addZone("Upstairs")
        let downstairs = try fixture.addZone("Downstairs")
        let home = fixture.homeID
        #expect(
            try fixture.changes(.addRoomToZone(home: home, room: stairs, zone: upstairs))
                == [.roomAddedToZone(room: stairs, zone: upstairs)]
        )
        try fixture.apply(.addRoomToZone(home: home, room: stairs, zone: downstairs))
        #expect(try fixture.changes(.addRoomToZone(home: home, room: stairs, zone: downstairs)).isEmpty)
        #expect(try fixture.home.zones.map(\.roomIDs) == [[stairs], [stairs]])
        #expect(
            try fixture.changes(.removeRoomFromZone(home: home, room: stairs, zone: upstairs))
                == [.roomRemovedFromZone(room: stairs, zone: upstairs)]
        )
        #expect(try fixture.changes(.removeZone(home: home, zone: downstairs)) == [.zoneRemoved(zone: downstairs)])
        #expect(try fixture.home.room(withID: stairs) != nil)
        #expect(try fixture.home.zones.map(\.id) == [upstairs])
    }

    @Test func aZoneNamesOnlyRoomsOfItsHome() throws {
        var fixture = try Fixture()
        let stray = fixture.ids.makeID()
        fixture.expectFailure(
            .addZone(home: fixture.homeID, id: fixture.ids.makeID(), name: "Upstairs", roomIDs: [stray]),
            .notFound(.room, stray)
        )
    }
}
