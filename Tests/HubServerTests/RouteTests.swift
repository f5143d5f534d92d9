import Foundation
import HearthAPI
import HomeGraph
import Hub
import HubServer
import Testing

@Suite(.serialized) struct RouteTests {
    @Test func theServerServesExactlyTheEndpointsOfTheTableAndTheDocumentListsThem() async throws {
        let fixture = try await Fixture()
        let served = Set(fixture.server().makeRouter().routes.map { "\($0.method.rawValue) \($0.path)" })
        await fixture.stop()
        let described = Set(Endpoints.all.map(\.route.description))
        #expect(Endpoints.all.count == 73 && described.count == 73, "each endpoint once")
        #expect(served.subtracting(described).isEmpty, "served but not in Endpoints")
        #expect(described.subtracting(served).isEmpty, "in Endpoints but not served")
        let documented = Set(try documentedOperations().keys)
        #expect(described.subtracting(documented).isEmpty, "in Endpoints but not documented")
        #expect(documented.subtracting(described).isEmpty, "documented but not in Endpoints")
    }

    @Test func theOpenAPIDocumentDescribesEachEndpointAsTheTableDoes() throws {
        let documented = try documentedOperations()
        for endpoint in Endpoints.all {
            let route = endpoint.route.description
            guard let operation = documented[route] else {
                Issue.record("\(route) is not documented")
                continue
            }
            #expect(operation.summary.hasPrefix(endpoint.summary.dropLast()), "\(route): \(operation.summary)")
            #expect(operation.description == "Who may: \(endpoint.access.whoMay)", "\(route)")
            #expect(operation.isOpen == (endpoint.access == .noToken), "\(route)")
            #expect(operation.status == endpoint.status, "\(route)")
            #expect(operation.requestSchema == schemaName(of: endpoint.bodyType), "\(route): request body")
            #expect(operation.answerSchema == schemaName(of: endpoint.answerType), "\(route): answer")
        }
    }

    /// The schema docs/api/openapi.yaml names for a body or answer type: the type's name without `Body`,
    /// `Created<Room>` as `RoomCreated`, none for `NoBody` and `NoContent`.
    func schemaName(of type: Any.Type) -> String? {
        let name = String(describing: type)
        if type == NoBody.self || type == NoContent.self { return nil }
        if name.hasPrefix("Created<") { return String(name.dropFirst("Created<".count).dropLast()) + "Created" }
        return name.hasSuffix("Body") ? String(name.dropLast(4)) : name
    }

    @Test func anEndpointFillsItsPathPercentEncoded() {
        let home = UUID()
        #expect(Endpoints.getHome.path(filling: [home.uuidString]) == "/v1/homes/\(home.uuidString)")
        #expect(Endpoints.getMe.path(filling: []) == "/v1/me")
        #expect(
            Endpoints.removeRoomFromZone.path(filling: ["a b", "x/y", "?#%"])
                == "/v1/homes/a%20b/zones/x%2Fy/rooms/%3F%23%25"
        )
        #expect(Endpoints.getHome.parameters == ["homeID"])
        #expect(Endpoints.getHome.path(filling: []) == nil, "too few values")
        #expect(Endpoints.getMe.path(filling: ["extra"]) == nil, "too many values")
    }

    // Every route, reached over real HTTP by the owner; the test ends by checking it reached every one.
    @Test func everyRouteAnswersTheOwner() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            // Me and tokens
            var reply = try await api.call(.get, "/v1/me", token: o)
            #expect(reply.status == 200)
            #expect(reply.object("user")["name"] as? String == "Ada")
            #expect(reply.array("homes").first?["role"] as? String == "owner")
            reply = try await api.call(.get, "/v1/me/tokens", token: o)
            #expect(reply.status == 200 && reply.array("tokens").count == 1)
            reply = try await api.call(.post, "/v1/me/tokens", token: o, body: #"{"label": "laptop"}"#)
            #expect(reply.status == 201)
            let laptop = try #require(reply["token"] as? String)
            let laptopID = try #require(reply["tokenID"] as? String)
            #expect(try await api.call(.get, "/v1/me", token: laptop).status == 200)
            reply = try await api.call(.delete, "/v1/me/tokens/{tokenID}", ["tokenID": laptopID], token: o)
            #expect(reply.status == 204)
            // A browser's session: signed in with the token, signed out with the cookie.
            let (session, cookie) = try await WebPageTests.signIn(api, token: o)
            #expect(session.status == 201 && cookie.hasPrefix("hearth_session="))
            let signedOut = try await WebPageTests.raw(
                api,
                .delete,
                "/v1/session",
                route: "/v1/session",
                headers: WebPageTests.page.merging([.cookie: cookie]) { $1 }
            )
            #expect(signedOut.status == 204)
            // A password and a sign-in link (SignInTests signs in with them).
            reply = try await api.call(.put, "/v1/account/password", token: o, body: #"{"password": "correct horse"}"#)
            #expect(reply.status == 204)
            reply = try await api.call(.post, "/v1/account/sign-in-links", token: o)
            #expect(reply.status == 201 && (reply["url"] as? String)?.contains("/#signin=") == true)
            #expect(try await api.call(.get, "/v1/me", token: laptop).status == 401)
            reply = try await api.call(.get, "/v1/events", token: o)
            #expect(reply.status == 400 && reply.errorCode == "invalidRequest")

            // Homes
            reply = try await api.call(.get, "/v1/homes", token: o)
            #expect(reply.status == 200 && reply.array("homes").count == 1)
            reply = try await api.call(
                .post,
                "/v1/homes",
                token: o,
                body: #"{"name": "Lake House", "timeZone": "Europe/Berlin"}"#
            )
            #expect(reply.status == 201)
            #expect(reply["role"] as? String == "owner")
            let h2 = reply.id("home")
            reply = try await api.call(.get, "/v1/homes/{homeID}", ["homeID": h2], token: o)
            #expect(reply.status == 200 && reply.object("home")["timeZoneIdentifier"] as? String == "Europe/Berlin")
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}",
                ["homeID": h2],
                token: o,
                body: #"{"name": "Lake Cabin", "timeZone": "Europe/Paris"}"#
            )
            #expect(reply.status == 200 && reply.array("events").count == 2)
            reply = try await api.call(.post, "/v1/homes/{homeID}/primary", ["homeID": h2], token: o)
            #expect(reply.status == 200)
            #expect(reply.text.contains("homeBecamePrimary"))
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/location",
                ["homeID": h2],
                token: o,
                body: #"{"latitude": 52.52, "longitude": 13.405}"#
            )
            #expect(reply.status == 200 && reply.text.contains("homeLocationChanged"))
            reply = try await api.call(.delete, "/v1/homes/{homeID}/location", ["homeID": h2], token: o)
            #expect(reply.status == 200 && reply.array("events").count == 1)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/presence",
                ["homeID": h2],
                token: o,
                body: #"{"isHome": true}"#
            )
            #expect(reply.status == 200 && reply.text.contains("userPresenceChanged"), "\(reply.text)")
            reply = try await api.call(.get, "/v1/homes/{homeID}/changes", ["homeID": h2], token: o, query: "?after=1")
            #expect(reply.status == 200)
            #expect(reply["reloadRequired"] as? Bool == false)
            let sequence = try #require(reply["currentSequence"] as? Int)
            #expect(reply.array("events").count == sequence - 1)
            #expect(reply.array("events").first?["sequence"] as? Int == 2)
            // Each change says who made it and when: the presence report is the owner's own.
            let presence = try #require(reply.array("events").last)
            let by = try #require(presence["by"] as? [String: Any], "\(presence)")
            #expect(by["kind"] as? String == "person")
            #expect((by["userID"] as? String).flatMap(UUID.init(uuidString:)) != nil)
            let at = try #require(presence["at"] as? String)
            let when = try #require(ISO8601DateFormatter().date(from: at), "\(at)")
            #expect(abs(when.timeIntervalSinceNow) < 600)

            // Rooms and zones
            reply = try await api.call(.get, "/v1/homes/{homeID}/rooms", ["homeID": h], token: o)
            #expect(reply.status == 200 && reply.array("rooms").count == 1)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: o,
                body: #"{"name": "Kitchen"}"#
            )
            #expect(reply.status == 201)
            let kitchen = reply.id("room")
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/rooms/{roomID}",
                ["homeID": h, "roomID": kitchen],
                token: o,
                body: #"{"name": "Galley"}"#
            )
            #expect(reply.status == 200 && reply.text.contains("roomRenamed"))
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: o,
                body: #"{"name": "Study"}"#
            )
            let study = reply.id("room")
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/zones",
                ["homeID": h],
                token: o,
                body: #"{"name": "Downstairs", "roomIDs": ["\#(kitchen)"]}"#
            )
            #expect(reply.status == 201)
            let zone = reply.id("zone")
            reply = try await api.call(.get, "/v1/homes/{homeID}/zones", ["homeID": h], token: o)
            #expect(reply.status == 200 && reply.array("zones").count == 1)
            let zoneParameters = ["homeID": h, "zoneID": zone, "roomID": study]
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/zones/{zoneID}",
                zoneParameters,
                token: o,
                body: #"{"name": "Ground Floor"}"#
            )
            #expect(reply.status == 200)
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/zones/{zoneID}/rooms/{roomID}",
                zoneParameters,
                token: o
            )
            #expect(reply.status == 200 && reply.text.contains("roomAddedToZone"))
            reply = try await api.call(
                .delete,
                "/v1/homes/{homeID}/zones/{zoneID}/rooms/{roomID}",
                zoneParameters,
                token: o
            )
            #expect(reply.status == 200 && reply.text.contains("roomRemovedFromZone"))
            reply = try await api.call(.delete, "/v1/homes/{homeID}/zones/{zoneID}", zoneParameters, token: o)
            #expect(reply.status == 200 && reply.text.contains("zoneRemoved"))
            reply = try await api.call(.delete, "/v1/homes/{homeID}/rooms/{roomID}", zoneParameters, token: o)
            #expect(reply.status == 200 && reply.text.contains("roomRemoved"))

            // Accessories, services, characteristics
            let lamp = ["homeID": h, "accessoryID": fixture.lamp.id.uuidString]
            reply = try await api.call(.get, "/v1/homes/{homeID}/accessories", ["homeID": h], token: o)
            #expect(reply.status == 200 && reply.array("accessories").count == 1)
            // The hub browses no interface here: nothing nearby, and no device id to pair (AccessoryRouteTests
            // pairs a simulated bridge by host and port).
            reply = try await api.call(.get, "/v1/homes/{homeID}/accessories/nearby", ["homeID": h], token: o)
            #expect(reply.status == 200 && reply.array("accessories").isEmpty)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories",
                ["homeID": h],
                token: o,
                body: #"{"deviceID": "AA:BB:CC:DD:EE:FF", "setupCode": "031-45-154"}"#
            )
            #expect(reply.status == 404 && reply.errorMessage.contains("AA:BB:CC:DD:EE:FF"))
            reply = try await api.call(.get, "/v1/homes/{homeID}/accessories/{accessoryID}", lamp, token: o)
            #expect(reply.status == 200 && reply.object("accessory")["name"] as? String == "Desk Lamp")
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/accessories/{accessoryID}",
                lamp,
                token: o,
                body: #"{"name": "Reading Lamp", "roomID": "\#(kitchen)"}"#
            )
            #expect(
                reply.status == 200 && reply.text.contains("accessoryRenamed")
                    && reply.text.contains("accessoryMovedToRoom")
            )
            // The fixture's lamp has no accessory server behind it: calls that need one are 404.
            reply = try await api.call(.post, "/v1/homes/{homeID}/accessories/{accessoryID}/identify", lamp, token: o)
            #expect(reply.status == 404 && reply.errorCode == "notFound")
            let service = fixture.service.id.uuidString
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/services/{serviceID}",
                ["homeID": h, "serviceID": service],
                token: o,
                body: #"{"name": "Reading Light"}"#
            )
            #expect(reply.status == 200 && reply.text.contains("serviceRenamed"))
            let on = ["homeID": h, "characteristicID": fixture.onCharacteristic.id.uuidString]
            reply = try await api.call(.get, "/v1/homes/{homeID}/characteristics/{characteristicID}", on, token: o)
            #expect(reply.status == 200 && reply.object("characteristic")["value"] as? Bool == false)
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                on,
                token: o,
                body: #"{"value": true}"#
            )
            #expect(reply.status == 404 && reply.errorCode == "notFound")
            reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                on,
                token: o,
                query: "?refresh=true"
            )
            #expect(reply.status == 404)
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics",
                ["homeID": h],
                token: o,
                body: #"{"writes": [{"characteristicID": "\#(on["characteristicID"] ?? "")", "value": 1}]}"#
            )
            #expect(reply.status == 200 && reply.array("results").first?["error"] != nil)
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics/{characteristicID}/notifications",
                on,
                token: o,
                body: #"{"isEnabled": true}"#
            )
            // No HAP accessory behind the fixture's lamp: nothing to subscribe to, the hub records the choice.
            #expect(reply.status == 200)

            // Service groups
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/serviceGroups",
                ["homeID": h],
                token: o,
                body: #"{"name": "Lamps", "serviceIDs": ["\#(service)"]}"#
            )
            #expect(reply.status == 201)
            let group = ["homeID": h, "groupID": reply.id("serviceGroup"), "serviceID": service]
            reply = try await api.call(.get, "/v1/homes/{homeID}/serviceGroups", ["homeID": h], token: o)
            #expect(reply.status == 200 && reply.array("serviceGroups").count == 1)
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/serviceGroups/{groupID}",
                group,
                token: o,
                body: #"{"name": "Lights"}"#
            )
            #expect(reply.status == 200)
            reply = try await api.call(
                .delete,
                "/v1/homes/{homeID}/serviceGroups/{groupID}/services/{serviceID}",
                group,
                token: o
            )
            #expect(reply.status == 200 && reply.text.contains("serviceRemovedFromGroup"))
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/serviceGroups/{groupID}/services/{serviceID}",
                group,
                token: o
            )
            #expect(reply.status == 200 && reply.text.contains("serviceAddedToGroup"))
            reply = try await api.call(.delete, "/v1/homes/{homeID}/serviceGroups/{groupID}", group, token: o)
            #expect(reply.status == 200)

            // Action sets
            let onID = fixture.onCharacteristic.id.uuidString
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                ["homeID": h],
                token: o,
                body: #"{"name": "Evening", "actions": [{"characteristicID": "\#(onID)", "targetValue": true}]}"#
            )
            #expect(reply.status == 201)
            let scene = ["homeID": h, "actionSetID": reply.id("actionSet")]
            reply = try await api.call(.get, "/v1/homes/{homeID}/actionSets", ["homeID": h], token: o)
            #expect(reply.status == 200 && reply.array("actionSets").count == 5, "the four built-in scenes and Evening")
            reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/actionSets/kinds/{kind}",
                ["homeID": h, "kind": "homeArrival"],
                token: o
            )
            #expect(reply.status == 200 && reply.object("actionSet")["name"] as? String == "Arrive Home")
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/actionSets/{actionSetID}",
                scene,
                token: o,
                body: #"{"name": "Dusk", "actions": []}"#
            )
            #expect(reply.status == 200 && reply.array("events").count == 2)
            reply = try await api.call(.post, "/v1/homes/{homeID}/actionSets/{actionSetID}/run", scene, token: o)
            #expect(reply.status == 200 && reply.array("results").isEmpty)

            // Plain language
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/commands",
                ["homeID": h],
                token: o,
                body: #"{"text": "what is the weather like?", "dryRun": true}"#
            )
            #expect(reply.status == 200 && reply["outcome"] as? String == "notUnderstood", "\(reply.text)")

            // Triggers
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/triggers",
                ["homeID": h],
                token: o,
                body: """
                    {"name": "At Sunset", "actionSetIDs": ["\(scene["actionSetID"] ?? "")"],
                     "definition": {"events": [{"significantTime": {"sun": "sunset", "offsetSeconds": 0}}]}}
                    """
            )
            #expect(reply.status == 201, "\(reply.text)")
            let trigger = ["homeID": h, "triggerID": reply.id("trigger")]
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers", ["homeID": h], token: o)
            #expect(reply.status == 200 && reply.array("triggers").count == 1)
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}", trigger, token: o)
            #expect(reply.status == 200 && reply.object("trigger")["name"] as? String == "At Sunset")
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}/decisions", trigger, token: o)
            #expect(reply.status == 200 && reply.array("decisions").isEmpty)
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/triggers/{triggerID}",
                trigger,
                token: o,
                body: #"{"isEnabled": false}"#
            )
            #expect(reply.status == 200 && reply.text.contains("triggerEnabledChanged"))
            reply = try await api.call(.delete, "/v1/homes/{homeID}/triggers/{triggerID}", trigger, token: o)
            #expect(reply.status == 200)
            reply = try await api.call(.delete, "/v1/homes/{homeID}/actionSets/{actionSetID}", scene, token: o)
            #expect(reply.status == 200)
            // Removing an accessory with no accessory server behind it removes it from the home.
            reply = try await api.call(.delete, "/v1/homes/{homeID}/accessories/{accessoryID}", lamp, token: o)
            #expect(reply.status == 204)
            reply = try await api.call(.get, "/v1/homes/{homeID}/accessories", ["homeID": h], token: o)
            #expect(reply.array("accessories").isEmpty)

            // Users and invites
            reply = try await api.call(.get, "/v1/homes/{homeID}/users", ["homeID": h], token: o)
            #expect(reply.status == 200 && reply.array("users").count == 3)
            let guest = ["homeID": h, "userID": fixture.guest.id.uuidString]
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/users/{userID}",
                guest,
                token: o,
                body: #"{"role": "administrator"}"#
            )
            #expect(reply.status == 200 && reply.text.contains("userRoleChanged"))
            reply = try await api.call(.get, "/v1/homes/{homeID}/invites", ["homeID": h], token: o)
            #expect(reply.status == 200 && reply.array("invites").isEmpty)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: o,
                body: #"{"role": "shared"}"#
            )
            #expect(reply.status == 201)
            let withdrawn = reply.id("invite")
            reply = try await api.call(
                .delete,
                "/v1/homes/{homeID}/invites/{inviteID}",
                ["homeID": h, "inviteID": withdrawn],
                token: o
            )
            #expect(reply.status == 204)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: o,
                body: #"{"role": "shared"}"#
            )
            let code = try #require(reply["code"] as? String)
            reply = try await api.call(
                .post,
                "/v1/invites/redeem",
                token: nil,
                body: #"{"code": "\#(code)", "name": "Eve"}"#
            )
            #expect(reply.status == 201)
            let eve = try #require(reply.object("token")["token"] as? String)
            let eveID = try #require(reply["userID"] as? String)
            reply = try await api.call(.get, "/v1/me", token: eve)
            #expect(reply.array("homes").first?["role"] as? String == "shared")
            reply = try await api.call(
                .delete,
                "/v1/homes/{homeID}/users/{userID}",
                ["homeID": h, "userID": eveID],
                token: o
            )
            #expect(reply.status == 200 && reply.text.contains("userRemoved"))
            #expect(try await api.call(.get, "/v1/homes/{homeID}", ["homeID": h], token: eve).status == 404)

            reply = try await api.call(.delete, "/v1/homes/{homeID}", ["homeID": h2], token: o)
            #expect(reply.status == 200 && reply.text.contains("homeRemoved"))

            // A home file (docs/home-file.md) of a home on no hub.
            let file = HomeFile(
                home: Home(id: UUID(), name: "Copied Cabin", roomForEntireHome: Room(id: UUID(), name: "Cabin"))
            )
            reply = try await api.call(
                .post,
                "/v1/homes/import",
                token: o,
                body: String(decoding: try file.encoded(), as: UTF8.self)
            )
            #expect(reply.status == 201 && reply.object("home")["name"] as? String == "Copied Cabin", "\(reply.text)")
            #expect(reply["role"] as? String == "owner")

            // Remote access (SecureChannelTests pairs for real): this server serves no secure listener.
            reply = try await api.call(.get, "/v1/hub/identity", token: o)
            #expect(reply.status == 404)
            reply = try await api.call(.post, "/v1/account/pairing-codes", token: o, body: #"{"label": "phone"}"#)
            #expect(reply.status == 201 && (reply["code"] as? String)?.count == 12)
            reply = try await api.call(.get, "/v1/account/pairings", token: o)
            #expect(reply.status == 200 && reply.array("pairings").isEmpty)
            reply = try await api.call(.delete, "/v1/account/pairings/{pairingID}", ["pairingID": h], token: o)
            #expect(reply.status == 404)
            reply = try await api.call(.post, "/v1/hub/pairing-attempts/reset", token: o)
            #expect(reply.status == 204)

            let described = Set(Endpoints.all.map(\.route.description))
            #expect(described.subtracting(api.coverage.routes).isEmpty, "routes the test did not reach")
        }
    }
}
