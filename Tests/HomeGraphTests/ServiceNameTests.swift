import Foundation
import Testing

import struct HAPTypes.HAPUUID
import struct HAPTypes.TypeCatalog

@testable import HomeGraph

/// Service names are unique within a home like every other name (issue 18), except that a service may carry its
/// own accessory's name, and hidden services are left out.
@Suite struct ServiceNameTests {
    /// An accessory with one Outlet service per name in `outlets`, each named so.
    static func makeStrip(_ name: String, outlets: [String], fixture: inout Fixture) -> Accessory {
        Accessory(
            id: fixture.ids.makeID(),
            name: name,
            roomID: fixture.entireHomeRoomID,
            services: outlets.enumerated().map { index, outlet in
                Service(id: fixture.ids.makeID(), name: outlet, type: HAPUUID(apple: 0x47), instanceID: UInt64(index))
            }
        )
    }

    /// An accessory named `name` with an Accessory Information service of the same name (hidden by the catalog), a
    /// service the accessory marks hidden ("Firmware Update") and a switch named `name`.
    static func makeSwitchWithHiddenServices(_ name: String, fixture: inout Fixture) -> Accessory {
        Accessory(
            id: fixture.ids.makeID(),
            name: name,
            roomID: fixture.entireHomeRoomID,
            services: [
                Service(id: fixture.ids.makeID(), name: name, type: HAPUUID(apple: 0x3E), instanceID: 1),
                Service(
                    id: fixture.ids.makeID(),
                    name: "Firmware Update",
                    type: HAPUUID(apple: 0xFFFF),
                    instanceID: 2,
                    isHidden: true
                ),
                Service(id: fixture.ids.makeID(), name: name, type: HAPUUID(apple: 0x49), instanceID: 3),
            ]
        )
    }

    @Test func renamingAServiceToAnotherObjectsNameIsRefused() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let kitchen = try fixture.addRoom("Kitchen")
        let desk = try fixture.addLamp("Desk Lamp")
        let floor = try fixture.addLamp("Floor Lamp")
        let service = desk.services[0].id
        fixture.expectFailure(
            .renameService(home: home, service: service, name: "kitchen"),
            .nameTaken(name: "kitchen", existing: ObjectReference(.room, kitchen))
        )
        fixture.expectFailure(
            .renameService(home: home, service: service, name: "Floor Lamp"),
            .nameTaken(name: "Floor Lamp", existing: ObjectReference(.accessory, floor.id))
        )
        // The other lamp's Temperature service was numbered when it was added.
        #expect(floor.services[1].name == "Temperature 2")
        fixture.expectFailure(
            .renameService(home: home, service: service, name: "Temperature 2"),
            .nameTaken(name: "Temperature 2", existing: ObjectReference(.service, floor.services[1].id))
        )
        fixture.expectFailure(
            .renameService(home: home, service: desk.services[1].id, name: "Desk Lamp"),
            .nameTaken(name: "Desk Lamp", existing: ObjectReference(.service, service))
        )
        // Every other kind of name clashes with a service's too.
        fixture.expectFailure(
            .addRoom(home: home, id: fixture.ids.makeID(), name: "Temperature"),
            .nameTaken(name: "Temperature", existing: ObjectReference(.service, desk.services[1].id))
        )
        fixture.expectFailure(
            .renameAccessory(home: home, accessory: floor.id, name: "Temperature"),
            .nameTaken(name: "Temperature", existing: ObjectReference(.service, desk.services[1].id))
        )
        fixture.expectFailure(
            .addActionSet(home: home, id: fixture.ids.makeID(), name: "TEMPERATURE"),
            .nameTaken(name: "TEMPERATURE", existing: ObjectReference(.service, desk.services[1].id))
        )
        #expect(
            try fixture.changes(.renameService(home: home, service: service, name: "Reading Light"))
                == [.serviceRenamed(service: service, accessory: desk.id, old: "Desk Lamp", new: "Reading Light")]
        )
    }

    @Test func aServiceMayCarryItsOwnAccessorysName() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let desk = try fixture.addLamp("Desk Lamp")
        #expect(desk.services.map(\.name) == ["Desk Lamp", "Temperature"])
        let service = desk.services[0].id
        try fixture.apply(.renameService(home: home, service: service, name: "Reading Light"))
        #expect(
            try fixture.changes(.renameService(home: home, service: service, name: "desk lamp"))
                == [.serviceRenamed(service: service, accessory: desk.id, old: "Reading Light", new: "desk lamp")]
        )
        // And an accessory may take the name of one of its own services.
        #expect(
            try fixture.changes(.renameAccessory(home: home, accessory: desk.id, name: "Temperature"))
                == [.accessoryRenamed(accessory: desk.id, old: "Desk Lamp", new: "Temperature")]
        )
    }

    @Test func addingASecondIdenticalAccessoryGivesDistinctServiceNames() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        _ = try fixture.addLamp("Lamp")
        // The hub numbers a second "Lamp" as "Lamp 2"; its service "Lamp" follows, its "Temperature" is numbered.
        var second = fixture.makeLamp("Lamp")
        second.name = "Lamp 2"
        let events = try fixture.apply(.addAccessory(home: home, accessory: second))
        let added = try #require(try fixture.home.accessory(withID: second.id))
        #expect(added.services.map(\.name) == ["Lamp 2", "Temperature 2"])
        #expect(events.map(\.change) == [.accessoryAdded(added)], "the change carries the names given")

        // Services of one accessory that share a name are numbered too, and the numbers go on across accessories.
        let strip = Self.makeStrip("Strip", outlets: ["Outlet", "Outlet", "outlet"], fixture: &fixture)
        try fixture.apply(.addAccessory(home: home, accessory: strip))
        let other = Self.makeStrip("Strip 2", outlets: ["Outlet", "Strip 2", "Strip 2"], fixture: &fixture)
        try fixture.apply(.addAccessory(home: home, accessory: other))
        let names = try fixture.home.accessories.map { $0.services.map(\.name) }
        #expect(names[2] == ["Outlet", "Outlet 2", "outlet 3"])
        #expect(names[3] == ["Outlet 4", "Strip 2", "Strip 2 2"], "only one service keeps the accessory's name")

        // The accessory's own name still clashes: that is the hub's cue to number it.
        let third = fixture.makeLamp("Lamp")
        fixture.expectFailure(
            .addAccessory(home: home, accessory: third),
            .nameTaken(name: "Lamp", existing: ObjectReference(.accessory, try fixture.home.accessories[0].id))
        )
    }

    @Test func hiddenServicesAreExempt() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let catalog = try TypeCatalog.shared()
        for name in ["accessoryInformation", "protocolInformation", "lockManagement"] {
            #expect(catalog.service(named: name)?.isHidden == true, "\(name)")
        }
        #expect(catalog.service(named: "lightbulb")?.isHidden == false)
        #expect(catalog.services.filter(\.isHidden).count == 3)

        let first = Self.makeSwitchWithHiddenServices("Switch", fixture: &fixture)
        try fixture.apply(.addAccessory(home: home, accessory: first))
        var second = Self.makeSwitchWithHiddenServices("Switch", fixture: &fixture)
        second.name = "Switch 2"
        try fixture.apply(.addAccessory(home: home, accessory: second))
        let added = try #require(try fixture.home.accessory(withID: second.id))
        // Hidden services keep their names; the visible one follows the accessory.
        #expect(added.services.map(\.name) == ["Switch", "Firmware Update", "Switch 2"])
        #expect(added.services.map { $0.isHidden(in: catalog) } == [true, true, false])
        #expect(added.services.map(\.isHiddenFromPeople) == [true, true, false])

        // A hidden service's name is taken by no one, and its own rename is not checked against others.
        let room = try fixture.addRoom("Firmware Update")
        let information = added.services[0].id
        #expect(
            try fixture.changes(.renameService(home: home, service: information, name: "firmware update"))
                == [.serviceRenamed(service: information, accessory: second.id, old: "Switch", new: "firmware update")]
        )
        fixture.expectFailure(
            .renameService(home: home, service: added.services[2].id, name: "Firmware Update"),
            .nameTaken(name: "Firmware Update", existing: ObjectReference(.room, room))
        )
    }

    @Test func aHiddenServiceStaysHiddenThroughJSON() throws {
        var fixture = try Fixture()
        let accessory = Self.makeSwitchWithHiddenServices("Switch", fixture: &fixture)
        let data = try JSONEncoder().encode(accessory)
        #expect(try JSONDecoder().decode(Accessory.self, from: data) == accessory)
        // A visible service is written as before, without the field, and a service without it reads as visible.
        let visible = try JSONEncoder().encode(accessory.services[2])
        #expect(!String(decoding: visible, as: UTF8.self).contains("isHidden"))
        #expect(try JSONDecoder().decode(Service.self, from: visible).isHidden == false)
    }

    @Test func replayNeitherRefusesNorRenames() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let room = try fixture.addRoom("Outlet")
        let strip = Self.makeStrip("Strip", outlets: ["Outlet", "Outlet"], fixture: &fixture)
        // A log written before service names were unique: the names stay as they were.
        _ = try fixture.graph.replay(.addAccessory(home: home, accessory: strip))
        #expect(try fixture.home.accessory(withID: strip.id)?.services.map(\.name) == ["Outlet", "Outlet"])
        _ = try fixture.graph.replay(.renameService(home: home, service: strip.services[1].id, name: "Strip"))
        _ = try fixture.graph.replay(.renameService(home: home, service: strip.services[0].id, name: "Strip"))
        #expect(try fixture.home.accessory(withID: strip.id)?.services.map(\.name) == ["Strip", "Strip"])
        // A new write is checked.
        fixture.expectFailure(
            .renameService(home: home, service: strip.services[0].id, name: "outlet"),
            .nameTaken(name: "outlet", existing: ObjectReference(.room, room))
        )
    }
}
