import Foundation
import HAPTypes
import HearthAPI
import HomeGraph
import Hub
import TestFixtures
import Testing

/// `POST /v1/homes/import` over real HTTP: a good home file becomes a home, each hostile one is refused with a
/// sentence that names the problem, and the hub is unchanged.
@Suite(.serialized) struct HomeImportTests {
    /// A home that is on no hub: a kitchen, a lamp in it, the four built-in scenes and one that turns the lamp on.
    static func birchLane() -> Home {
        let kitchen = Room(id: UUID(), name: "Kitchen")
        let lamp = Accessory.testLamp(named: "Counter Lamp", roomID: kitchen.id)
        var scenes = ActionSetKind.builtIn.map { ActionSet(id: UUID(), name: $0.builtInName ?? "", kind: $0) }
        let on = lamp.services[0].characteristics[0].id
        scenes.append(
            ActionSet(id: UUID(), name: "Cooking", actions: [Action(characteristicID: on, targetValue: .bool(true))])
        )
        return Home(
            id: UUID(),
            name: "Birch Lane",
            timeZoneIdentifier: "Europe/Berlin",
            roomForEntireHome: Room(id: UUID(), name: "Whole House"),
            rooms: [kitchen],
            accessories: [lamp],
            actionSets: scenes
        )
    }

    static func text(_ home: Home) throws -> String {
        String(decoding: try HomeFile(home: home).encoded(), as: UTF8.self)
    }

    /// The file of `home` as a JSON object with `change` made to it, as text.
    static func edited(_ home: Home, _ change: (inout [String: Any]) -> Void) throws -> String {
        var object = try #require(
            try JSONSerialization.jsonObject(with: HomeFile(home: home).encoded()) as? [String: Any]
        )
        change(&object)
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test func hostileFilesAreRefusedWithASentenceAndTheHubIsUnchanged() async throws {
        let fixture = try await Fixture()
        let token = fixture.stranger.token
        let good = Self.birchLane()
        let lampOn = good.accessories[0].services[0].characteristics[0].id
        var badName = good
        badName.rooms[0].name = "Kitchen\u{7}"
        var duplicate = good
        duplicate.rooms[0].id = good.accessories[0].id
        duplicate.accessories[0].roomID = good.accessories[0].id
        var dangling = good
        let missing = UUID()
        dangling.actionSets[4].actions = [Action(characteristicID: missing, targetValue: .bool(true))]
        var badValue = good
        badValue.accessories[0].services[0].characteristics[1].value = .int(400)
        var twoWakeUps = good
        twoWakeUps.actionSets.append(ActionSet(id: UUID(), name: "Rise", kind: .wakeUp))
        var badRadius = good
        badRadius.presenceRadius = 5

        let cases: [(body: String, status: Int, message: String)] = [
            ("this is not JSON", 400, "This home file cannot be read: it is not a JSON object"),
            (
                #"{"format": "hearth.room", "version": 1}"#, 400,
                #"This is not a Hearth home file (its field 'format' is not "hearth.home")"#
            ),
            (
                try Self.edited(good) { $0["version"] = 2 }, 400,
                "This home file has version 2; this Hearth reads version 1"
            ),
            (
                try Self.edited(good) { $0["home"] = nil }, 400,
                "This home file cannot be read: field 'home' is missing"
            ),
            (
                try Self.text(badName), 400,
                "field 'home.rooms[0].name': A name cannot contain control characters (found U+0007)"
            ),
            (
                try Self.text(duplicate), 400,
                "field 'home.accessories[0].id': the id \(good.accessories[0].id.uuidString) is also the id of 'home.rooms[0].id'"
            ),
            (
                try Self.text(dangling), 400,
                "field 'home.actionSets[4]': no characteristic with id \(missing.uuidString)"
            ),
            (
                try Self.text(twoWakeUps), 400,
                "field 'home.actionSets[5].kind': the home has two 'wakeUp' scenes; a home has one of each built-in kind"
            ),
            (try Self.text(badRadius), 400, "field 'home.presenceRadius': the radius must be 10 to 100000 metres"),
        ]
        let badValueText = try Self.text(badValue)
        let before = fixture.hub.graph
        try await fixture.withServer { api in
            for (body, status, message) in cases {
                let reply = try await api.call(.post, "/v1/homes/import", token: token, body: body)
                #expect(reply.status == status, "\(reply.text)")
                #expect(reply.errorMessage == message, "\(reply.text)")
                #expect(fixture.hub.graph == before, "the hub is unchanged after: \(message)")
            }
            // A value its characteristic's metadata refuses: named by its field.
            var reply = try await api.call(.post, "/v1/homes/import", token: token, body: badValueText)
            #expect(reply.status == 400)
            #expect(
                reply.errorMessage.hasPrefix("field 'home.accessories[0].services[0].characteristics[1].value': "),
                "\(reply.text)"
            )
            #expect(fixture.hub.graph == before)

            // 70 MB: refused before it is read as JSON.
            let huge =
                #"{"format": "hearth.home", "version": 1, "pad": ""# + String(repeating: "x", count: 70 << 20) + #""}"#
            reply = try await api.call(.post, "/v1/homes/import", token: token, body: huge)
            #expect(reply.status == 413 && reply.errorCode == "bodyTooLarge", "\(reply.text.prefix(300))")
            #expect(reply.errorMessage == "the home file is larger than 64 MiB, the most an import may send")
            #expect(fixture.hub.graph == before)

            // Without a token: 401, nothing read.
            reply = try await api.call(.post, "/v1/homes/import", token: nil, body: try Self.text(good))
            #expect(reply.status == 401)

            // The good file: a new home owned by the importer, its lamp waiting to be paired.
            reply = try await api.call(.post, "/v1/homes/import", token: token, body: try Self.text(good))
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply["role"] as? String == "owner")
            let home = try #require(fixture.hub.graph.home(withID: good.id))
            #expect(home.name == "Birch Lane")
            #expect(home.roomForEntireHome == good.roomForEntireHome)
            #expect(home.timeZoneIdentifier == "Europe/Berlin")
            #expect(home.users.map(\.id) == [fixture.stranger.id])
            #expect(home.users.first?.role == .owner)
            #expect(home.accessories.map(\.id) == good.accessories.map(\.id))
            #expect(home.accessories.allSatisfy { !$0.isReachable })
            let sceneIDs = Set(home.actionSets.map(\.id))
            #expect(sceneIDs == Set(good.actionSets.map(\.id)))
            #expect(home.actionSet(ofKind: .userDefined)?.actions.first?.characteristicID == lampOn)

            // The same file again: 409, unchanged.
            let after = fixture.hub.graph
            reply = try await api.call(.post, "/v1/homes/import", token: token, body: try Self.text(good))
            #expect(reply.status == 409 && reply.errorCode == "conflict", "\(reply.text)")
            #expect(reply.errorMessage == "this home is already on this hub")
            #expect(fixture.hub.graph == after)

            // Another home whose name this hub already has: a conflict that names the field.
            var sameName = Self.birchLane()
            sameName.name = "Maple Street"
            reply = try await api.call(.post, "/v1/homes/import", token: token, body: try Self.text(sameName))
            #expect(reply.status == 409, "\(reply.text)")
            #expect(
                reply.errorMessage.hasPrefix("field 'home.name': the name 'Maple Street' is taken"),
                "\(reply.text)"
            )
            #expect(fixture.hub.graph == after)
        }
    }
}
