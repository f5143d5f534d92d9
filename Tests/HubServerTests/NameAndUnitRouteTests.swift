import Foundation
import HomeGraph
import Testing

/// Issue 18's graph prerequisites over the API: a service's name clashes like every other name, and the home's
/// temperature unit is set with `PATCH /v1/homes/{homeID}`.
@Suite struct NameAndUnitRouteTests {
    @Test func renamingAServiceToATakenNameIs409WithASentence() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        let service = ["homeID": h, "serviceID": fixture.service.id.uuidString]
        try await fixture.withServer { api in
            let kitchen = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: o,
                body: #"{"name": "Kitchen"}"#
            ).id("room")
            let sequence = fixture.hub.graph.lastSequence(ofHome: fixture.home.id)
            var reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/services/{serviceID}",
                service,
                token: o,
                body: #"{"name": "kitchen"}"#
            )
            #expect(reply.status == 409 && reply.errorCode == "nameTaken", "\(reply.text)")
            #expect(
                reply.errorMessage
                    == "the name 'kitchen' is taken by the room \(kitchen): names are unique within a home",
                "\(reply.text)"
            )
            #expect(fixture.hub.graph.lastSequence(ofHome: fixture.home.id) == sequence, "nothing changed")
            // The lamp's own name is the service's to keep.
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/services/{serviceID}",
                service,
                token: o,
                body: #"{"name": "Reading Light"}"#
            )
            #expect(reply.status == 200 && reply.text.contains("serviceRenamed"), "\(reply.text)")
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/services/{serviceID}",
                service,
                token: o,
                body: #"{"name": "\#(fixture.lamp.name)"}"#
            )
            #expect(reply.status == 200 && reply.text.contains("serviceRenamed"), "\(reply.text)")
        }
    }

    @Test func tokenAndPairingCodeLabelsFollowTheRulesOfNames() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        try await fixture.withServer { api in
            let long = String(repeating: "x", count: 100_000)
            for path in ["/v1/me/tokens", "/v1/account/pairing-codes"] {
                for label in [long, #"bell\u0007"#, #"evil\u202Etxt"#, "", "   ", #"\u200B"#] {
                    let reply = try await api.call(.post, path, token: o, body: #"{"label": "\#(label)"}"#)
                    #expect(reply.status == 400 && reply.errorCode == "invalidName", "\(path): \(reply.text)")
                    #expect(reply.errorMessage.hasPrefix("field 'label': "), "\(reply.text)")
                    #expect(reply.text.count < 400)
                }
            }
            #expect(await fixture.credentials.account(fixture.owner.id)?.tokens.count == 1)
            // A label is normalised as a name is; none gives the default.
            var reply = try await api.call(.post, "/v1/me/tokens", token: o, body: #"{"label": "  My   laptop "}"#)
            #expect(reply.status == 201)
            reply = try await api.call(.post, "/v1/me/tokens", token: o, body: "{}")
            #expect(reply.status == 201)
            let labels = await fixture.credentials.account(fixture.owner.id)?.tokens.map(\.label) ?? []
            #expect(labels.suffix(2) == ["My laptop", "token"])
            reply = try await api.call(.post, "/v1/account/pairing-codes", token: o, body: #"{"label": "phone"}"#)
            #expect(reply.status == 201)
        }
    }

    @Test func theOwnerSetsTheTemperatureUnitAndASharedUserCannot() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let g = fixture.guest.token
        let home = ["homeID": fixture.home.id.uuidString]
        try await fixture.withServer { api in
            var reply = try await api.call(.get, "/v1/homes/{homeID}", home, token: o)
            #expect(reply.status == 200 && reply.object("home")["temperatureUnit"] == nil, "Celsius when absent")
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}",
                home,
                token: o,
                body: #"{"temperatureUnit": "fahrenheit"}"#
            )
            #expect(reply.status == 200 && reply.text.contains("homeTemperatureUnitChanged"), "\(reply.text)")
            reply = try await api.call(.get, "/v1/homes/{homeID}", home, token: g)
            #expect(reply.object("home")["temperatureUnit"] as? String == "fahrenheit", "\(reply.text)")
            #expect(fixture.hub.graph.home(withID: fixture.home.id)?.temperatureUnit == .fahrenheit)

            let sequence = fixture.hub.graph.lastSequence(ofHome: fixture.home.id)
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}",
                home,
                token: o,
                body: #"{"temperatureUnit": "kelvin"}"#
            )
            #expect(reply.status == 400 && reply.errorCode == "invalidRequest", "\(reply.text)")
            #expect(
                reply.errorMessage
                    == "field 'temperatureUnit' is not valid: it must be 'celsius' or 'fahrenheit'",
                "\(reply.text)"
            )
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}",
                home,
                token: g,
                body: #"{"temperatureUnit": "celsius"}"#
            )
            #expect(reply.status == 403 && reply.errorCode == "notPermitted", "\(reply.text)")
            #expect(fixture.hub.graph.lastSequence(ofHome: fixture.home.id) == sequence, "nothing changed")
            #expect(fixture.hub.graph.home(withID: fixture.home.id)?.temperatureUnit == .fahrenheit)
        }
    }
}
