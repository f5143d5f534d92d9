import Foundation
import HomeGraph
import Hub
import Testing

/// A PATCH that changes several fields is one batch in the hub: when one field is refused, none is applied,
/// nothing is written and no event is sent.
@Suite struct BatchPatchTests {
    @Test func aPatchWithOneRefusedFieldChangesNothing() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        let lamp = ["homeID": h, "accessoryID": fixture.lamp.id.uuidString]
        let onID = fixture.onCharacteristic.id.uuidString
        try await fixture.withServer { api in
            var reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                ["homeID": h],
                token: o,
                body: #"{"name": "Evening", "actions": [{"characteristicID": "\#(onID)", "targetValue": true}]}"#
            )
            let scene = ["homeID": h, "actionSetID": reply.id("actionSet")]
            let before = fixture.hub.graph
            let sequence = before.lastSequence(ofHome: fixture.home.id)

            // The rename comes first and is valid; the move names a room the home does not have.
            let missingRoom = UUID().uuidString
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/accessories/{accessoryID}",
                lamp,
                token: o,
                body: #"{"name": "Reading Lamp", "roomID": "\#(missingRoom)"}"#
            )
            #expect(reply.status == 404 && reply.errorMessage.contains(missingRoom), "\(reply.text)")

            // The name is valid, the time zone is not.
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}",
                ["homeID": h],
                token: o,
                body: #"{"name": "Elm Street", "timeZone": "Mars/Olympus_Mons"}"#
            )
            #expect(reply.status == 400, "\(reply.text)")

            // The name is valid, an action writes a characteristic the home does not have.
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/actionSets/{actionSetID}",
                scene,
                token: o,
                body: #"{"name": "Dusk", "actions": [{"characteristicID": "\#(UUID())", "targetValue": true}]}"#
            )
            #expect(reply.status == 404, "\(reply.text)")

            let after = fixture.hub.graph
            #expect(after == before)
            #expect(after.lastSequence(ofHome: fixture.home.id) == sequence)
            reply = try await api.call(.get, "/v1/homes/{homeID}/accessories/{accessoryID}", lamp, token: o)
            #expect(reply.object("accessory")["name"] as? String == fixture.lamp.name)
            reply = try await api.call(.get, "/v1/homes/{homeID}", ["homeID": h], token: o)
            #expect(reply.object("home")["name"] as? String == fixture.home.name)
            reply = try await api.call(.get, "/v1/homes/{homeID}/actionSets", ["homeID": h], token: o)
            let evening = reply.array("actionSets").first { $0["id"] as? String == scene["actionSetID"] }
            #expect(evening?["name"] as? String == "Evening")

            // The same fields, all valid, apply together in one answer.
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/accessories/{accessoryID}",
                lamp,
                token: o,
                body: #"{"name": "Reading Lamp", "roomID": "\#(fixture.home.roomForEntireHome.id)"}"#
            )
            #expect(reply.status == 200 && reply.array("events").count == 1, "\(reply.text)")
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}",
                ["homeID": h],
                token: o,
                body: #"{"name": "Elm Street", "timeZone": "Europe/Paris"}"#
            )
            #expect(reply.status == 200 && reply.array("events").count == 2, "\(reply.text)")
        }
    }
}
