import Foundation
import Testing

@testable import HomeGraph

@Suite struct HomeTests {
    @Test func theFirstHomeIsPrimaryAndExactlyOneHomeIsPrimary() throws {
        var fixture = try Fixture()
        #expect(try fixture.home.isPrimary)
        let second = fixture.ids.makeID()
        let changes = try fixture.changes(
            .addHome(id: second, name: "Cabin", roomForEntireHomeID: fixture.ids.makeID())
        )
        #expect(changes.count == 1)
        #expect(fixture.graph.primaryHome?.id == fixture.homeID)
        let events = try fixture.apply(.setPrimaryHome(second))
        #expect(events.map(\.change) == [.homeStoppedBeingPrimary, .homeBecamePrimary])
        #expect(events.map(\.homeID) == [fixture.homeID, second])
        #expect(fixture.graph.homes.filter(\.isPrimary).map(\.id) == [second])
        #expect(try fixture.apply(.setPrimaryHome(second)).isEmpty)
    }

    @Test func removingThePrimaryHomePromotesAnother() throws {
        var fixture = try Fixture()
        let second = fixture.ids.makeID()
        try fixture.apply(.addHome(id: second, name: "Cabin", roomForEntireHomeID: fixture.ids.makeID()))
        let events = try fixture.apply(.removeHome(fixture.homeID))
        #expect(events.map(\.change) == [.homeRemoved, .homeBecamePrimary])
        #expect(events.map(\.homeID) == [fixture.homeID, second])
        #expect(fixture.graph.primaryHome?.id == second)
        try fixture.apply(.removeHome(second))
        #expect(fixture.graph.homes.isEmpty)
        #expect(fixture.graph.primaryHome == nil)
        let third = fixture.ids.makeID()
        try fixture.apply(.addHome(id: third, name: "Flat", roomForEntireHomeID: fixture.ids.makeID()))
        #expect(fixture.graph.primaryHome?.id == third)
    }

    @Test func removingAHomeRemovesEverythingInIt() throws {
        var fixture = try Fixture()
        let room = try fixture.addRoom("Kitchen")
        let lamp = try fixture.addLamp("Lamp", room: room)
        try fixture.apply(.removeHome(fixture.homeID))
        #expect(fixture.graph.home(withID: fixture.homeID) == nil)
        fixture.expectFailure(
            .renameAccessory(home: fixture.homeID, accessory: lamp.id, name: "x"),
            .notFound(.home, fixture.homeID)
        )
        #expect(throws: HomeGraphError.notFound(.home, fixture.homeID)) {
            try fixture.graph.changes(after: 0, inHome: fixture.homeID)
        }
    }

    @Test func newIdsMustNotBeTaken() throws {
        var fixture = try Fixture()
        let room = try fixture.addRoom("Kitchen")
        fixture.expectFailure(
            .addZone(home: fixture.homeID, id: room, name: "Zone"),
            .idTaken(ObjectReference(.room, room))
        )
        fixture.expectFailure(
            .addHome(id: fixture.ids.makeID(), name: "Cabin", roomForEntireHomeID: fixture.entireHomeRoomID),
            .idTaken(ObjectReference(.room, fixture.entireHomeRoomID))
        )
        let lamp = try fixture.addLamp("Lamp")
        var copy = fixture.makeLamp("Copy")
        copy.services[0].characteristics[0].id = lamp.on.id
        fixture.expectFailure(
            .addAccessory(home: fixture.homeID, accessory: copy),
            .idTaken(ObjectReference(.characteristic, lamp.on.id))
        )
    }

    @Test func locationAndTimeZoneAreChecked() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let berlin = Location(latitude: 52.52, longitude: 13.405)
        #expect(try fixture.changes(.setLocation(home: home, location: berlin)) == [.homeLocationChanged(berlin)])
        #expect(try fixture.home.location == berlin)
        let bad = Location(latitude: 91, longitude: 0)
        fixture.expectFailure(.setLocation(home: home, location: bad), .invalidLocation(bad))
        let nan = Location(latitude: 0, longitude: .infinity)
        fixture.expectFailure(.setLocation(home: home, location: nan), .invalidLocation(nan))
        #expect(
            try fixture.changes(.setTimeZone(home: home, identifier: "Europe/Berlin"))
                == [.homeTimeZoneChanged("Europe/Berlin")]
        )
        fixture.expectFailure(.setTimeZone(home: home, identifier: "Mars/Olympus"), .invalidTimeZone("Mars/Olympus"))
        fixture.expectFailure(
            .addHome(
                id: fixture.ids.makeID(),
                name: "X",
                roomForEntireHomeID: fixture.ids.makeID(),
                timeZoneIdentifier: "Nowhere"
            ),
            .invalidTimeZone("Nowhere")
        )
    }

    @Test func homeRenamesReportOldAndNewNames() throws {
        var fixture = try Fixture()
        #expect(
            try fixture.changes(.renameHome(fixture.homeID, name: "Elm Street"))
                == [.homeRenamed(old: "Maple Street", new: "Elm Street")]
        )
    }
}

@Suite struct LookupTests {
    @Test func idsAreUniqueAcrossHomes() throws {
        var fixture = try Fixture()
        let room = try fixture.addRoom("Kitchen")
        let other = fixture.ids.makeID()
        try fixture.apply(.addHome(id: other, name: "Cabin", roomForEntireHomeID: fixture.ids.makeID()))
        fixture.expectFailure(.addRoom(home: other, id: room, name: "Kitchen"), .idTaken(ObjectReference(.room, room)))
        // A user's id is the person's: one person may belong to several homes, but within a home it is unique.
        let person = fixture.ids.makeID()
        try fixture.apply(.addUser(home: fixture.homeID, id: person, name: "Sam", role: .owner))
        try fixture.apply(.addUser(home: other, id: person, name: "Sam", role: .shared))
        let otherRoom = fixture.ids.makeID()
        try fixture.apply(.addRoom(home: other, id: otherRoom, name: "Loft"))
        fixture.expectFailure(
            .addUser(home: other, id: otherRoom, name: "Di", role: .shared),
            .idTaken(ObjectReference(.room, otherRoom))
        )
    }

    @Test func aWriteCanBeCheckedWithoutChangingTheGraph() throws {
        var fixture = try Fixture()
        let lamp = try fixture.addLamp("Lamp")
        let before = fixture.graph
        #expect(
            try fixture.graph.validatedWrite(.float(1), toCharacteristic: lamp.on.id, inHome: fixture.homeID)
                == .bool(true)
        )
        #expect(
            throws: HomeGraphError.invalidValue(
                .notWritable(lamp.temperature.type),
                characteristicType: lamp.temperature.type
            )
        ) {
            try fixture.graph.validatedWrite(.float(1), toCharacteristic: lamp.temperature.id, inHome: fixture.homeID)
        }
        #expect(fixture.graph == before)
        let found = try fixture.graph.characteristic(withID: lamp.brightness.id, inHome: fixture.homeID)
        #expect(found.characteristic == lamp.brightness && found.accessory.id == lamp.id)
    }
}
