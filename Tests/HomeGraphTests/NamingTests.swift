import Foundation
import TestSupport
import Testing

@testable import HomeGraph

@Suite struct NamingTests {
    @Test func rejectsANameThatDiffersOnlyInCase() throws {
        var fixture = try Fixture()
        let kitchen = try fixture.addRoom("Kitchen")
        fixture.expectFailure(
            .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: "KITCHEN"),
            .nameTaken(name: "KITCHEN", existing: ObjectReference(.room, kitchen))
        )
    }

    @Test func rejectsANameThatDiffersOnlyInAccents() throws {
        var fixture = try Fixture()
        let kitchen = try fixture.addRoom("Küche")
        fixture.expectFailure(
            .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: "kuche"),
            .nameTaken(name: "kuche", existing: ObjectReference(.room, kitchen))
        )
        let cafe = try fixture.addRoom("cafe\u{301}")  // a combining accent
        fixture.expectFailure(
            .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: "Café"),
            .nameTaken(name: "Café", existing: ObjectReference(.room, cafe))
        )
    }

    @Test func trimsWhiteSpaceBeforeComparingAndStoring() throws {
        var fixture = try Fixture()
        let hall = try fixture.addRoom("  Hall\n")
        #expect(try fixture.home.room(withID: hall)?.name == "Hall")
        fixture.expectFailure(
            .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: "\thall "),
            .nameTaken(name: "hall", existing: ObjectReference(.room, hall))
        )
    }

    @Test func rejectsEmptyAndBlankNamesForEveryKind() throws {
        var fixture = try Fixture()
        let room = try fixture.addRoom("Office")
        let lamp = try fixture.addLamp("Desk Lamp", room: room)
        let home = fixture.homeID
        for blank in ["", " ", "\n\t", "\u{3000}"] {
            let id = fixture.ids.makeID()
            var blankLamp = fixture.makeLamp("x")
            blankLamp.name = blank
            let operations: [HomeOperation] = [
                .addHome(id: id, name: blank, roomForEntireHomeID: fixture.ids.makeID()),
                .renameHome(home, name: blank),
                .addRoom(home: home, id: id, name: blank),
                .renameRoom(home: home, room: room, name: blank),
                .addZone(home: home, id: id, name: blank),
                .addAccessory(home: home, accessory: blankLamp),
                .renameAccessory(home: home, accessory: lamp.id, name: blank),
                .renameService(home: home, service: lamp.services[0].id, name: blank),
                .addServiceGroup(home: home, id: id, name: blank),
                .addActionSet(home: home, id: id, name: blank),
                .addTrigger(home: home, trigger: Trigger.make(id: id, name: blank)),
                .addUser(home: home, id: id, name: blank, role: .shared),
            ]
            for operation in operations { fixture.expectFailure(operation, .invalidName(blank, .nothingVisible)) }
        }
    }

    @Test func namesClashAcrossKindsAndTheErrorNamesTheOtherObject() throws {
        var fixture = try Fixture()
        let home = fixture.homeID
        let room = try fixture.addRoom("Study")
        let lamp = try fixture.addLamp("Reading Light")
        let zone = try fixture.addZone("Upstairs")
        let group = fixture.ids.makeID()
        try fixture.apply(.addServiceGroup(home: home, id: group, name: "Lamps"))
        let scene = fixture.ids.makeID()
        try fixture.apply(.addActionSet(home: home, id: scene, name: "Good Night"))
        let trigger = fixture.ids.makeID()
        try fixture.apply(.addTrigger(home: home, trigger: Trigger.make(id: trigger, name: "Sunset")))
        let taken: [(String, ObjectReference)] = [
            ("study", ObjectReference(.room, room)),
            ("READING LIGHT", ObjectReference(.accessory, lamp.id)),
            ("upstairs", ObjectReference(.zone, zone)),
            ("lamps", ObjectReference(.serviceGroup, group)),
            ("good night", ObjectReference(.actionSet, scene)),
            ("sunset", ObjectReference(.trigger, trigger)),
            ("default room", ObjectReference(.room, fixture.entireHomeRoomID)),
        ]
        for (name, existing) in taken {
            let id = fixture.ids.makeID()
            var newLamp = fixture.makeLamp("x")
            newLamp.name = name
            for operation: HomeOperation in [
                .addRoom(home: home, id: id, name: name),
                .addZone(home: home, id: id, name: name),
                .addAccessory(home: home, accessory: newLamp),
                .addServiceGroup(home: home, id: id, name: name),
                .addActionSet(home: home, id: id, name: name),
                .addTrigger(home: home, trigger: Trigger.make(id: id, name: name)),
            ] {
                fixture.expectFailure(operation, .nameTaken(name: name, existing: existing))
            }
        }
        fixture.expectFailure(
            .renameZone(home: home, zone: zone, name: "Sunset"),
            .nameTaken(name: "Sunset", existing: ObjectReference(.trigger, trigger))
        )
    }

    @Test func acceptsAnyUnicodeName() throws {
        var fixture = try Fixture()
        let names = ["東京の部屋", "غرفة المعيشة", "🛋️ Lounge", "Ωmega", "大阪の部屋", "Straße"]
        for name in names { _ = try fixture.addRoom(name) }
        #expect(try fixture.home.rooms.map(\.name) == names)
        fixture.expectFailure(
            .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: "🛋️ LOUNGE"),
            .nameTaken(name: "🛋️ LOUNGE", existing: ObjectReference(.room, try fixture.home.rooms[2].id))
        )
    }

    @Test func anObjectMayBeRenamedToAnotherCaseOfItsOwnName() throws {
        var fixture = try Fixture()
        let room = try fixture.addRoom("kitchen")
        #expect(
            try fixture.changes(.renameRoom(home: fixture.homeID, room: room, name: "Kitchen"))
                == [.roomRenamed(room: room, old: "kitchen", new: "Kitchen")]
        )
        #expect(try fixture.changes(.renameRoom(home: fixture.homeID, room: room, name: " Kitchen ")).isEmpty)
    }

    @Test func homeNamesAreUniqueAmongHomes() throws {
        var fixture = try Fixture(homeName: "Maple Street")
        fixture.expectFailure(
            .addHome(id: fixture.ids.makeID(), name: "maple street", roomForEntireHomeID: fixture.ids.makeID()),
            .nameTaken(name: "maple street", existing: ObjectReference(.home, fixture.homeID))
        )
        // A room may share its name with a home: names are unique within a home.
        _ = try fixture.addRoom("Maple Street")
    }

    /// Issue 18 made service names unique like every other name (ServiceNameTests); users' names need not be.
    @Test func userNamesNeedNotBeUniqueButServiceNamesAre() throws {
        var fixture = try Fixture()
        let first = try fixture.addLamp("Lamp A")
        let second = try fixture.addLamp("Lamp B")
        try fixture.apply(.renameService(home: fixture.homeID, service: first.services[0].id, name: "Light"))
        fixture.expectFailure(
            .renameService(home: fixture.homeID, service: second.services[0].id, name: "light"),
            .nameTaken(name: "light", existing: ObjectReference(.service, first.services[0].id))
        )
        try fixture.apply(.addUser(home: fixture.homeID, id: fixture.ids.makeID(), name: "Sam", role: .shared))
        try fixture.apply(.addUser(home: fixture.homeID, id: fixture.ids.makeID(), name: "Sam", role: .shared))
        #expect(try fixture.home.users.count == 2)
    }

    @Test func theRoomForTheEntireHomeCannotBeRenamedToClash() throws {
        var fixture = try Fixture()
        let room = try fixture.addRoom("Hall")
        fixture.expectFailure(
            .renameRoom(home: fixture.homeID, room: fixture.entireHomeRoomID, name: "HALL"),
            .nameTaken(name: "HALL", existing: ObjectReference(.room, room))
        )
        try fixture.apply(.renameRoom(home: fixture.homeID, room: fixture.entireHomeRoomID, name: "Whole House"))
        #expect(try fixture.home.roomForEntireHome.name == "Whole House")
    }

    @Test func theASCIIShortcutFoldsLikeFoundation() {
        var random = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let length = Int.random(in: 1..<12, using: &random)
            let text = String(
                (0..<length).map { _ in Character(UnicodeScalar(UInt8.random(in: 0x21..<0x7F, using: &random))) }
            )
            #expect(Names.key(text) == text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
        }
        #expect(Names.key("Küche") == Names.key("KUCHE"))
    }
}
