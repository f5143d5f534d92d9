import Foundation
import HAP
import HAPTypes
import Testing

@testable import HomeGraph

/// The naming rules of issue 20: normalisation, refused characters, the length cap, invisible characters in
/// uniqueness, cleaning names that come from accessories, and replaying names an older Hearth accepted.
@Suite struct NameRuleTests {
    /// Every operation that takes a name, each given `name`, for a fixture with a room and a lamp.
    static func everyNamingOperation(_ name: String, in fixture: inout Fixture) throws -> [HomeOperation] {
        let home = fixture.homeID
        let room = try #require(try fixture.home.rooms.first).id
        let lamp = try #require(try fixture.home.accessories.first)
        let id = fixture.ids.makeID()
        var namedLamp = fixture.makeLamp("x")
        namedLamp.name = name
        var lampWithNamedService = fixture.makeLamp("Lamp With Bad Service")
        lampWithNamedService.services[0].name = name
        return [
            .addHome(id: id, name: name, roomForEntireHomeID: fixture.ids.makeID()),
            .renameHome(home, name: name),
            .addRoom(home: home, id: id, name: name),
            .renameRoom(home: home, room: room, name: name),
            .addZone(home: home, id: id, name: name),
            .addAccessory(home: home, accessory: namedLamp),
            .addAccessory(home: home, accessory: lampWithNamedService),
            .renameAccessory(home: home, accessory: lamp.id, name: name),
            .renameService(home: home, service: lamp.services[0].id, name: name),
            .addServiceGroup(home: home, id: id, name: name),
            .addActionSet(home: home, id: id, name: name),
            .addTrigger(home: home, trigger: Trigger.make(id: id, name: name)),
            .addUser(home: home, id: id, name: name, role: .shared),
        ]
    }

    /// A fixture with one room ("Office") and one lamp in it ("Desk Lamp").
    static func furnishedFixture() throws -> Fixture {
        var fixture = try Fixture()
        let room = try fixture.addRoom("Office")
        _ = try fixture.addLamp("Desk Lamp", room: room)
        return fixture
    }

    @Test func namesAreStoredInNFCTrimmedWithInnerWhiteSpaceCollapsed() throws {
        var fixture = try Fixture()
        let living = try fixture.addRoom("  Living \t\n  Room\u{3000}")
        #expect(try fixture.home.room(withID: living)?.name == "Living Room")
        let cafe = try fixture.addRoom("Cafe\u{301}  Corner")
        #expect(try fixture.home.room(withID: cafe)?.name == "Caf\u{E9} Corner")
        #expect(try fixture.home.room(withID: cafe)?.name.unicodeScalars.count == 11, "NFC: é is one scalar")
        try fixture.apply(.renameHome(fixture.homeID, name: "Maple\u{A0}\u{A0}Street"))
        #expect(try fixture.home.name == "Maple Street")
        fixture.expectFailure(
            .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: "living  room"),
            .nameTaken(name: "living room", existing: ObjectReference(.room, living))
        )
    }

    @Test func controlCharactersAreRefusedForEveryKindOfName() throws {
        var fixture = try Self.furnishedFixture()
        let cases: [(String, UInt32)] = [
            ("Null\u{0}Room", 0x0), ("Bell\u{7}", 0x7), ("\u{1B}[31mRed", 0x1B), ("Del\u{7F}", 0x7F),
            ("C1\u{80}", 0x80), ("CSI\u{9B}31m", 0x9B), ("Back\u{8}space", 0x8),
        ]
        for (name, codePoint) in cases {
            for operation in try Self.everyNamingOperation(name, in: &fixture) {
                fixture.expectFailure(operation, .invalidName(name, .controlCharacter(codePoint)))
            }
        }
    }

    @Test func bidirectionalOverrideAndIsolateCharactersAreRefused() throws {
        var fixture = try Self.furnishedFixture()
        let codePoints: [UInt32] = [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
        for codePoint in codePoints {
            let name = "Evil" + String(Character(Unicode.Scalar(codePoint)!)) + "txt.exe"
            for operation in try Self.everyNamingOperation(name, in: &fixture) {
                fixture.expectFailure(operation, .invalidName(name, .bidiControl(codePoint)))
            }
        }
    }

    @Test func namesOfOnlyInvisibleCharactersAreRefused() throws {
        var fixture = try Self.furnishedFixture()
        let names = ["\u{200D}\u{200C}\u{FEFF}", "\u{200B}", " \u{2060} ", "\u{3164}", "\u{00AD}\u{200B}"]
        for name in names {
            for operation in try Self.everyNamingOperation(name, in: &fixture) {
                fixture.expectFailure(operation, .invalidName(name, .nothingVisible))
            }
        }
    }

    @Test func namesAreAtMost64Characters() throws {
        var fixture = try Self.furnishedFixture()
        for count in [65, 200_000] {
            let name = String(repeating: "a", count: count)
            for operation in try Self.everyNamingOperation(name, in: &fixture) {
                fixture.expectFailure(operation, .invalidName(name, .tooLong(count)))
            }
        }
        let accented = String(repeating: "e\u{301}", count: 65)
        fixture.expectFailure(
            .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: accented),
            .invalidName(accented, .tooLong(65))
        )
        // Characters are counted, not bytes or scalars: 64 families of three joined emoji fit.
        let families = String(repeating: "👨‍👩‍👧", count: 64)
        let exactly = String(repeating: "b", count: 64)
        for name in [families, exactly, "  " + exactly + "  "] {
            let room = try fixture.addRoom(name)
            try fixture.apply(.removeRoom(home: fixture.homeID, room: room))
        }
    }

    @Test func zeroWidthCharactersDoNotGetRoundUniqueness() throws {
        var fixture = try Fixture()
        let room = try fixture.addRoom("Dup Room")
        for name in [
            "Dup\u{200B} Room", "D\u{200C}up Room", "\u{FEFF}Dup Room", "Dup R\u{2060}oom", "Dup\u{200D} ROOM",
            // An invisible character between spaces or at an end leaves spaces that must not tell names apart.
            "Dup \u{200B} Room", "\u{200B} Dup Room", "Dup Room \u{2060}", "Dup \u{3164} Room",
        ] {
            fixture.expectFailure(
                .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: name),
                .nameTaken(name: name, existing: ObjectReference(.room, room))
            )
        }
        let other = try fixture.addRoom("Other")
        fixture.expectFailure(
            .renameRoom(home: fixture.homeID, room: other, name: "Dup\u{AD} Room"),
            .nameTaken(name: "Dup\u{AD} Room", existing: ObjectReference(.room, room))
        )
        fixture.expectFailure(
            .addHome(id: fixture.ids.makeID(), name: "Maple\u{200B} Street", roomForEntireHomeID: fixture.ids.makeID()),
            .nameTaken(name: "Maple\u{200B} Street", existing: ObjectReference(.home, fixture.homeID))
        )
    }

    @Test func oneCharacterCannotCarryThousandsOfMarks() throws {
        var fixture = try Fixture()
        // NFC composes the first mark with the "a": 1,100 code points remain, in one character.
        let heavy = "a" + String(repeating: "\u{301}", count: 1100)
        #expect(heavy.count == 1)
        fixture.expectFailure(
            .addRoom(home: fixture.homeID, id: fixture.ids.makeID(), name: heavy),
            .invalidName(heavy, .tooManyCodePoints(1100))
        )
        #expect(
            NameProblem.tooManyCodePoints(1100).sentence
                == "A name can hold at most 1024 Unicode code points, accents and marks included (got 1100)"
        )
        let cleaned = try #require(Names.cleaned(heavy))
        #expect(cleaned.unicodeScalars.count <= Names.maximumCodePoints && Names.problem(with: cleaned) == nil)
    }

    @Test func eachRefusalIsASentenceNamingTheRule() {
        #expect(NameProblem.tooLong(200_000).sentence == "A name can be at most 64 characters (got 200000)")
        #expect(
            NameProblem.controlCharacter(0x1B).sentence == "A name cannot contain control characters (found U+001B)"
        )
        #expect(
            NameProblem.bidiControl(0x202E).sentence
                == "A name cannot contain bidirectional override or isolate characters (found U+202E)"
        )
        #expect(NameProblem.nothingVisible.sentence == "A name must have at least one visible character")
        #expect(HomeGraphError.invalidName("\u{7}", .controlCharacter(7)).code == "invalidName")
    }

    // MARK: Names from accessories

    @Test func accessoryNamesAreCleanedNeverRefused() {
        #expect(Names.cleaned("\u{1B}[31mEvil\u{7}  \u{202E}Lamp\u{202C}\n") == "[31mEvil Lamp")
        #expect(Names.cleaned("Bell \u{7} Lamp") == "Bell Lamp")
        #expect(Names.cleaned("\u{200B}\u{FEFF}\u{7}") == nil)
        #expect(Names.cleaned(" \t ") == nil)
        let long = Names.cleaned(String(repeating: "x", count: 63) + " " + String(repeating: "y", count: 200))
        #expect(long == String(repeating: "x", count: 63), "cut to 64, then the trailing space trimmed")
        #expect(Names.cleaned("Cafe\u{301}") == "Caf\u{E9}")
        for name in ["\u{1B}[31mEvil", String(repeating: "é", count: 300), "a\u{2066}b", "Desk Lamp"] {
            let cleaned = try? #require(Names.cleaned(name))
            #expect(cleaned.flatMap { Names.problem(with: $0) } == nil)
        }
    }

    @Test func numberingAnAccessoryNameKeepsItWithinTheCap() {
        #expect(Names.numbered("Lamp", 2) == "Lamp 2")
        let long = String(repeating: "z", count: 64)
        let numbered = Names.numbered(long, 12)
        #expect(numbered == String(repeating: "z", count: 61) + " 12")
        #expect(numbered.count == 64)
    }

    /// A HAP accessory whose information Name and lightbulb Name are `name` and `serviceName`.
    func makeHAPAccessory(named name: String, serviceName: String) throws -> HAPAccessory {
        let catalog = try TypeCatalog.shared()
        var information = try catalog.makeService(named: "accessoryInformation", instanceID: 1)
        for index in information.characteristics.indices
        where information.characteristics[index].type == HAPUUID(apple: 0x23) {
            information.characteristics[index].value = .string(name)
        }
        var bulb = try catalog.makeService(
            named: "lightbulb",
            instanceID: 10,
            optionalCharacteristics: ["name"],
            isPrimary: true
        )
        for index in bulb.characteristics.indices where bulb.characteristics[index].type == HAPUUID(apple: 0x23) {
            bulb.characteristics[index].value = .string(serviceName)
        }
        return HAPAccessory(accessoryID: 2, services: [information, bulb])
    }

    @Test func anAccessoryWithHostileNamesIsImportedWithCleanNamesAndAdded() throws {
        var fixture = try Fixture()
        var ids = SeededIDGenerator(seed: 3)
        let catalog = try TypeCatalog.shared()
        let hostile = Accessory(
            importing: try makeHAPAccessory(
                named: "\u{1B}]0;pwned\u{7}Lamp\u{202E}" + String(repeating: "!", count: 100),
                serviceName: "\u{0}Bulb\u{9B}"
            ),
            roomID: fixture.entireHomeRoomID,
            catalog: catalog,
            ids: &ids
        )
        #expect(hostile.name == "]0;pwnedLamp" + String(repeating: "!", count: 52))
        #expect(hostile.services.map(\.name) == [hostile.name, "Bulb"])
        try fixture.apply(.addAccessory(home: fixture.homeID, accessory: hostile))

        // Nothing visible in the accessory's Name: the primary service's name; nothing there either: the catalog's.
        let invisible = Accessory(
            importing: try makeHAPAccessory(named: "\u{200B}\u{FEFF}", serviceName: "\u{7}\u{200D}"),
            roomID: fixture.entireHomeRoomID,
            catalog: catalog,
            ids: &ids
        )
        #expect(invisible.name == "Lightbulb")
        #expect(invisible.services.map(\.name) == ["Accessory Information", "Lightbulb"])
        try fixture.apply(.addAccessory(home: fixture.homeID, accessory: invisible))
    }

    // MARK: Replaying old names

    @Test func replayingAcceptsNamesAnOlderHearthAcceptedAndNewWritesAreStillChecked() throws {
        var ids = SeededIDGenerator(seed: 9)
        let home = ids.makeID()
        let bell = ids.makeID()
        let dup = ids.makeID()
        let zeroWidthDup = ids.makeID()
        let long = String(repeating: "L", count: 200)
        var graph = HomeGraph()
        try graph.replay(.addHome(id: home, name: "Old\u{202E}Home", roomForEntireHomeID: ids.makeID()))
        try graph.replay(.addRoom(home: home, id: bell, name: "Bell\u{7}\u{1B}[31m Room"))
        try graph.replay(.addRoom(home: home, id: dup, name: "Dup Room"))
        try graph.replay(.addRoom(home: home, id: zeroWidthDup, name: "Dup\u{200B} Room"))
        try graph.replay(.addRoom(home: home, id: ids.makeID(), name: long))
        try graph.replay(.addRoom(home: home, id: ids.makeID(), name: "\u{200B}\u{FEFF}"))
        try graph.replay(.addUser(home: home, id: ids.makeID(), name: "Eve\u{0}", role: .shared))
        let rooms = try #require(graph.home(withID: home)).rooms.map(\.name)
        #expect(rooms == ["Bell\u{7}\u{1B}[31m Room", "Dup Room", "Dup\u{200B} Room", long, "\u{200B}\u{FEFF}"])

        // New writes follow today's rules, against the old names too.
        #expect(throws: HomeGraphError.nameTaken(name: "dup room", existing: ObjectReference(.room, dup))) {
            try graph.apply(.addRoom(home: home, id: ids.makeID(), name: "dup room"))
        }
        #expect(throws: HomeGraphError.invalidName("Bell\u{7}", .controlCharacter(7))) {
            try graph.apply(.renameRoom(home: home, room: bell, name: "Bell\u{7}"))
        }
        try graph.apply(.renameRoom(home: home, room: bell, name: "Bell Room"))
        try graph.apply(.renameRoom(home: home, room: zeroWidthDup, name: "Second Dup Room"))
        try graph.apply(.addRoom(home: home, id: ids.makeID(), name: "Attic"))
        // Replay normalises as a new write does, so a log written today replays to the same graph.
        try graph.replay(.addRoom(home: home, id: ids.makeID(), name: "  Spare \t Room "))
        #expect(try #require(graph.home(withID: home)).rooms.last?.name == "Spare Room")
    }
}
