import Commands
import Foundation
import HearthAPI
import HomeGraph
import Hub
import HubServer
import Testing

/// `POST /v1/homes/{homeID}/commands`: hostile text refused with a sentence, and the speaker's rights kept.
@Suite(.serialized) struct CommandRouteTests {
    static let path = "/v1/homes/{homeID}/commands"

    /// `{"text": …}` as JSON, with the other fields given.
    func body(_ text: String, room: String? = nil, dryRun: Bool? = nil) throws -> String {
        String(decoding: try JSONEncoder().encode(CommandBody(text: text, room: room, dryRun: dryRun)), as: UTF8.self)
    }

    @Test func hostileTextAndUnknownRoomsAre400WithASentence() async throws {
        let fixture = try await Fixture()
        let h = ["homeID": fixture.home.id.uuidString]
        let c = fixture.guest.token
        try await fixture.withServer { api in
            for text in ["", " \t ", String(repeating: "x", count: 1001), "lights on\r\nX-Evil: 1", "\u{7F}"] {
                let reply = try await api.call(.post, Self.path, h, token: c, body: try body(text))
                #expect(reply.status == 400 && reply.errorCode == "invalidRequest", "\(reply.text)")
                #expect(reply.errorMessage.hasPrefix("field 'text'"), "\(reply.errorMessage)")
            }
            var reply = try await api.call(.post, Self.path, h, token: c, body: try body("lights on", room: "Attic"))
            #expect(reply.status == 400 && reply.errorMessage.hasPrefix("field 'room'"), "\(reply.text)")
            #expect(reply.errorMessage.contains("'\(fixture.home.roomForEntireHome.name)'"), "\(reply.errorMessage)")
            reply = try await api.call(.post, Self.path, h, token: c, body: #"{"text": 42}"#)
            #expect(reply.status == 400 && reply.errorCode == "invalidRequest", "\(reply.text)")
            reply = try await api.call(.post, Self.path, h, token: c, body: #"{"text": "hi", "speaker": "me"}"#)
            #expect(reply.status == 400, "an unknown field: \(reply.text)")
            // Not a user of the home: not found.
            reply = try await api.call(.post, Self.path, h, token: fixture.stranger.token, body: try body("lights on"))
            #expect(reply.status == 404, "\(reply.text)")
        }
        await fixture.stop()
    }

    @Test func aSharedUserControlsButGetsNotPermittedForAConfigurationChange() async throws {
        let fixture = try await Fixture()
        let h = ["homeID": fixture.home.id.uuidString]
        let c = fixture.guest.token
        let before = fixture.hub.graph
        try await fixture.withServer { api in
            var reply = try await api.call(
                .post,
                Self.path,
                h,
                token: c,
                body: try body("rename desk lamp to reading lamp")
            )
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply["outcome"] as? String == "notPermitted", "\(reply.text)")
            #expect(reply["text"] as? String == "rename desk lamp to reading lamp")
            #expect(fixture.hub.graph.home(withID: fixture.home.id)?.accessories.first?.name == "Desk Lamp")
            #expect(fixture.hub.graph == before, "nothing renamed")

            reply = try await api.call(.post, Self.path, h, token: c, body: try body("turn on desk lamp", dryRun: true))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply["outcome"] as? String == "control", "\(reply.text)")
            #expect(reply["dryRun"] as? Bool == true)
            let action = (reply["actions"] as? [[String: Any]])?.first
            #expect(action?["characteristic"] as? String == "on")
            #expect(action?["value"] as? Bool == true)
            #expect(action?["characteristicID"] as? String == fixture.onCharacteristic.id.uuidString)
        }
        await fixture.stop()
    }

    @Test func anAbsurdNumberOrAMissingNewNameChangesNothingAndAnswersInFull() async throws {
        let fixture = try await Fixture()
        let h = ["homeID": fixture.home.id.uuidString]
        let before = fixture.hub.graph
        try await fixture.withServer { api in
            for (text, outcome) in [
                ("dim the desk lamp by 1e309 percent", "invalidValue"),
                ("dim the desk lamp by 1e308 percent", "invalidValue"),
                ("rename the desk lamp to", "notUnderstood"), ("rename desk lamp to the", "notUnderstood"),
            ] {
                let reply = try await api.call(.post, Self.path, h, token: fixture.owner.token, body: try body(text))
                #expect(reply.status == 200, "\(text): \(reply.text)")
                #expect(reply["outcome"] as? String == outcome, "\(text): \(reply.text)")
                #expect(reply["text"] as? String == text && reply["message"] is String, "\(reply.text)")
            }
            #expect(fixture.hub.graph == before, "nothing written or renamed")
        }
        await fixture.stop()
    }

    @Test func theAnswerDecodesAsACommandResult() async throws {
        let fixture = try await Fixture()
        let h = ["homeID": fixture.home.id.uuidString]
        try await fixture.withServer { api in
            let reply = try await api.call(
                .post,
                Self.path,
                h,
                token: fixture.owner.token,
                body: try body("order a pizza")
            )
            #expect(reply.status == 200, "\(reply.text)")
            let result = try JSONDecoder.api.decode(CommandResult.self, from: Data(reply.text.utf8))
            #expect(result.text == "order a pizza")
            #expect(result.outcome == .notUnderstood)
            #expect(!result.dryRun)
        }
        await fixture.stop()
    }
}
