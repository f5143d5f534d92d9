import Foundation
import HTTPTypes
import HearthAPI
import HomeGraph
import Hub
import HubServer
import Testing

@Suite(.serialized) struct AccessTests {
    /// One configuration route with parameters and a valid body.
    struct Attempt: Sendable {
        let method: HTTPRequest.Method
        let path: String
        let body: String?
    }

    @Test func aSharedUserGetsForbiddenForEveryConfigurationRoute() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            // Objects of every kind for the shared user to try to change.
            let room = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: o,
                body: #"{"name": "Den"}"#
            )
            .id("room")
            let zone = try await api.call(
                .post,
                "/v1/homes/{homeID}/zones",
                ["homeID": h],
                token: o,
                body: #"{"name": "Up"}"#
            )
            .id("zone")
            let service = fixture.service.id.uuidString
            let group = try await api.call(
                .post,
                "/v1/homes/{homeID}/serviceGroups",
                ["homeID": h],
                token: o,
                body: #"{"name": "G"}"#
            ).id("serviceGroup")
            let scene = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                ["homeID": h],
                token: o,
                body: #"{"name": "S"}"#
            ).id("actionSet")
            let trigger = try await api.call(
                .post,
                "/v1/homes/{homeID}/triggers",
                ["homeID": h],
                token: o,
                body: #"{"name": "T", "isEnabled": false}"#
            ).id("trigger")
            let invite = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: o,
                body: #"{"role": "shared"}"#
            ).id("invite")
            let accessory = fixture.lamp.id.uuidString
            let admin = fixture.admin.id.uuidString
            let base = "/v1/homes/\(h)"
            let attempts: [Attempt] = [
                Attempt(method: .patch, path: base, body: #"{"name": "Mine"}"#),
                Attempt(method: .delete, path: base, body: nil),
                Attempt(method: .post, path: "\(base)/primary", body: nil),
                Attempt(method: .put, path: "\(base)/location", body: #"{"latitude": 1, "longitude": 2}"#),
                Attempt(method: .delete, path: "\(base)/location", body: nil),
                Attempt(method: .post, path: "\(base)/rooms", body: #"{"name": "Attic"}"#),
                Attempt(method: .patch, path: "\(base)/rooms/\(room)", body: #"{"name": "Attic"}"#),
                Attempt(method: .delete, path: "\(base)/rooms/\(room)", body: nil),
                Attempt(method: .post, path: "\(base)/zones", body: #"{"name": "Out"}"#),
                Attempt(method: .patch, path: "\(base)/zones/\(zone)", body: #"{"name": "Out"}"#),
                Attempt(method: .delete, path: "\(base)/zones/\(zone)", body: nil),
                Attempt(method: .put, path: "\(base)/zones/\(zone)/rooms/\(room)", body: nil),
                Attempt(method: .delete, path: "\(base)/zones/\(zone)/rooms/\(room)", body: nil),
                Attempt(method: .get, path: "\(base)/accessories/nearby", body: nil),
                Attempt(
                    method: .post,
                    path: "\(base)/accessories",
                    body: #"{"deviceID": "AA:BB:CC:DD:EE:FF", "setupCode": "031-45-154"}"#
                ),
                Attempt(method: .patch, path: "\(base)/accessories/\(accessory)", body: #"{"name": "Mine"}"#),
                Attempt(method: .delete, path: "\(base)/accessories/\(accessory)", body: nil),
                Attempt(method: .patch, path: "\(base)/services/\(service)", body: #"{"name": "Mine"}"#),
                Attempt(method: .post, path: "\(base)/serviceGroups", body: #"{"name": "Mine"}"#),
                Attempt(method: .patch, path: "\(base)/serviceGroups/\(group)", body: #"{"name": "Mine"}"#),
                Attempt(method: .delete, path: "\(base)/serviceGroups/\(group)", body: nil),
                Attempt(method: .put, path: "\(base)/serviceGroups/\(group)/services/\(service)", body: nil),
                Attempt(method: .delete, path: "\(base)/serviceGroups/\(group)/services/\(service)", body: nil),
                Attempt(method: .post, path: "\(base)/actionSets", body: #"{"name": "Mine"}"#),
                Attempt(method: .patch, path: "\(base)/actionSets/\(scene)", body: #"{"name": "Mine"}"#),
                Attempt(method: .delete, path: "\(base)/actionSets/\(scene)", body: nil),
                Attempt(method: .post, path: "\(base)/triggers", body: #"{"name": "Mine"}"#),
                Attempt(method: .patch, path: "\(base)/triggers/\(trigger)", body: #"{"isEnabled": false}"#),
                Attempt(method: .delete, path: "\(base)/triggers/\(trigger)", body: nil),
                Attempt(method: .patch, path: "\(base)/users/\(admin)", body: #"{"role": "shared"}"#),
                Attempt(method: .delete, path: "\(base)/users/\(admin)", body: nil),
                Attempt(method: .get, path: "\(base)/invites", body: nil),
                Attempt(method: .post, path: "\(base)/invites", body: #"{"role": "shared"}"#),
                Attempt(method: .delete, path: "\(base)/invites/\(invite)", body: nil),
            ]
            let before = fixture.hub.graph.lastSequence(ofHome: fixture.home.id)
            for attempt in attempts {
                let reply = try await api.call(
                    attempt.method,
                    attempt.path,
                    token: fixture.guest.token,
                    body: attempt.body
                )
                let route = "\(attempt.method) \(attempt.path)"
                #expect(reply.status == 403, "\(route) answered \(reply.status) \(reply.text)")
                #expect(reply.errorCode == "notPermitted", "\(route)")
                #expect(
                    reply.errorMessage.contains("shared users") || reply.errorMessage.contains("owner"),
                    "\(route): \(reply.errorMessage)"
                )
            }
            #expect(fixture.hub.graph.lastSequence(ofHome: fixture.home.id) == before, "nothing changed")
            // The configuration endpoints (Endpoints, checked against the document) are exactly the ones tried here.
            let names = [
                (h, "{homeID}"), (room, "{roomID}"), (zone, "{zoneID}"), (service, "{serviceID}"),
                (group, "{groupID}"), (scene, "{actionSetID}"), (trigger, "{triggerID}"), (invite, "{inviteID}"),
                (accessory, "{accessoryID}"), (admin, "{userID}"),
            ]
            let tried = Set(
                attempts.map { attempt in
                    names.reduce("\(attempt.method.rawValue) \(attempt.path)") {
                        $0.replacingOccurrences(of: $1.0, with: $1.1)
                    }
                }
            )
            let configuration = Set(
                Endpoints.all.filter { $0.access == .configure || $0.access == .owner }.map(\.route.description)
            )
            #expect(attempts.count == 34)
            #expect(
                tried == configuration,
                "tried \(tried.subtracting(configuration)), missed \(configuration.subtracting(tried))"
            )
            // Only the owner removes the home; an administrator is refused too.
            let reply = try await api.call(.delete, base, token: fixture.admin.token)
            #expect(reply.status == 403 && reply.errorMessage.contains("owner"))
        }
    }

    @Test func aSharedUserReadsAndControls() async throws {
        let fixture = try await Fixture()
        let g = fixture.guest.token
        let h = fixture.home.id.uuidString
        let on = ["homeID": h, "characteristicID": fixture.onCharacteristic.id.uuidString]
        try await fixture.withServer { api in
            #expect(try await api.call(.get, "/v1/homes/{homeID}", ["homeID": h], token: g).status == 200)
            #expect(try await api.call(.get, "/v1/homes/{homeID}/accessories", ["homeID": h], token: g).status == 200)
            #expect(try await api.call(.get, "/v1/homes/{homeID}/users", ["homeID": h], token: g).status == 200)
            #expect(
                try await api.call(.get, "/v1/homes/{homeID}/changes", ["homeID": h], token: g, query: "?after=0")
                    .status
                    == 200
            )
            var reply = try await api.call(.get, "/v1/homes/{homeID}/characteristics/{characteristicID}", on, token: g)
            #expect(reply.status == 200)
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics/{characteristicID}/notifications",
                on,
                token: g,
                body: #"{"isEnabled": true}"#
            )
            // No HAP accessory behind the fixture's lamp: nothing to subscribe to, the hub records the choice.
            #expect(reply.status == 200)
            // Control passes the hub's rights (not 403); the fixture's lamp has no accessory server behind it, so the
            // write and identify find none (404). AccessoryRouteTests does both against a simulated bridge.
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                on,
                token: g,
                body: #"{"value": true}"#
            )
            #expect(reply.status == 404)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories/{accessoryID}/identify",
                ["homeID": h, "accessoryID": fixture.lamp.id.uuidString],
                token: g
            )
            #expect(reply.status == 404)
            reply = try await api.call(.get, "/v1/me", token: g)
            #expect(reply.array("homes").first?["role"] as? String == "shared")
        }
    }

    @Test func invitesAreOneTimeCodesRedeemedForATokenOrByAnAccount() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            // An administrator invites an administrator.
            var reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: fixture.admin.token,
                body: #"{"role": "administrator"}"#
            )
            #expect(reply.status == 201)
            let code = try #require(reply["code"] as? String)
            #expect(code.count == 12)
            #expect(
                !FileManager.default.contents(atPath: fixture.folder + "/credentials.json").map {
                    String(decoding: $0, as: UTF8.self).contains(code)
                }!
            )
            reply = try await api.call(.post, "/v1/invites/redeem", token: nil, body: #"{"code": "\#(code)"}"#)
            #expect(reply.status == 400 && reply.errorMessage.contains("name"))
            // A name breaking a naming rule is refused before the invite is used up.
            reply = try await api.call(
                .post,
                "/v1/invites/redeem",
                token: nil,
                body: #"{"code": "\#(code)", "name": "Fay\u001b[2J"}"#
            )
            #expect(reply.status == 400 && reply.errorCode == "invalidName", "\(reply.text)")
            reply = try await api.call(
                .post,
                "/v1/invites/redeem",
                token: nil,
                body: #"{"code": "\#(code)", "name": "  Fay \t"}"#
            )
            #expect(reply.status == 201)
            #expect(reply["role"] as? String == "administrator")
            let token = try #require(reply.object("token")["token"] as? String)
            #expect(try await api.call(.get, "/v1/homes/{homeID}/invites", ["homeID": h], token: token).status == 200)
            // A code works once.
            reply = try await api.call(
                .post,
                "/v1/invites/redeem",
                token: nil,
                body: #"{"code": "\#(code)", "name": "Gus"}"#
            )
            #expect(reply.status == 404)
            // An existing account (Dee, no home yet) redeems with her own token and keeps her user id.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: fixture.owner.token,
                body: #"{"role": "shared"}"#
            )
            let second = try #require(reply["code"] as? String)
            reply = try await api.call(
                .post,
                "/v1/invites/redeem",
                token: fixture.stranger.token,
                body: #"{"code": "\#(second)"}"#
            )
            #expect(reply.status == 201)
            #expect(reply["userID"] as? String == fixture.stranger.id.uuidString)
            #expect(reply["token"] == nil)
            // A shared user cannot invite, and only the owner could invite an owner (the home has one: 409).
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: fixture.guest.token,
                body: #"{"role": "shared"}"#
            )
            #expect(reply.status == 403)
            // The credentials file is private.
            let attributes = try FileManager.default.attributesOfItem(atPath: fixture.folder + "/credentials.json")
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
    }

    @Test func aFailedRedemptionKeepsTheInviteAndNoOwnerInviteIsMadeForAHomeWithAnOwner() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            var reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: fixture.owner.token,
                body: #"{"role": "owner"}"#
            )
            #expect(reply.status == 409 && reply.errorCode == "ownerExists", "\(reply.text)")
            #expect(reply.errorMessage.contains("field 'role'") && reply.errorMessage.contains("'administrator'"))
            #expect(await fixture.credentials.invites(home: fixture.home.id).isEmpty)
            // An owner invite made before (the home had no owner then) fails to redeem and stays.
            let (ownerInvite, ownerCode) = try await fixture.credentials.createInvite(
                home: fixture.home.id,
                role: .owner,
                invitedBy: fixture.owner.id,
                lifetime: 600
            )
            reply = try await api.call(
                .post,
                "/v1/invites/redeem",
                token: nil,
                body: #"{"code": "\#(ownerCode)", "name": "Gus"}"#
            )
            #expect(reply.status == 409 && reply.errorCode == "ownerExists", "\(reply.text)")
            #expect(await fixture.credentials.invites(home: fixture.home.id).map(\.id) == [ownerInvite.id])
            // An invite whose inviter has left goes with them: redeeming it is 404, and nobody was added.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: fixture.admin.token,
                body: #"{"role": "shared"}"#
            )
            let code = try #require(reply["code"] as? String)
            reply = try await api.call(
                .delete,
                "/v1/homes/{homeID}/users/{userID}",
                ["homeID": h, "userID": fixture.admin.id.uuidString],
                token: fixture.owner.token
            )
            #expect(reply.status == 200)
            let users = fixture.hub.graph.home(withID: fixture.home.id)?.users
            reply = try await api.call(
                .post,
                "/v1/invites/redeem",
                token: nil,
                body: #"{"code": "\#(code)", "name": "Hal"}"#
            )
            #expect(reply.status == 404, "\(reply.text)")
            #expect(await fixture.credentials.invites(home: fixture.home.id).map(\.id) == [ownerInvite.id])
            #expect(fixture.hub.graph.home(withID: fixture.home.id)?.users == users)
        }
    }

    @Test func anAdministratorDemotedToSharedTakesTheirInvitesAlong() async throws {
        let fixture = try await Fixture()
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            var reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/invites",
                ["homeID": h],
                token: fixture.admin.token,
                body: #"{"role": "shared"}"#
            )
            #expect(reply.status == 201)
            #expect(await fixture.credentials.invites(home: fixture.home.id).count == 1)
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/users/{userID}",
                ["homeID": h, "userID": fixture.admin.id.uuidString],
                token: fixture.owner.token,
                body: #"{"role": "shared"}"#
            )
            #expect(reply.status == 200, "\(reply.text)")
            #expect(await fixture.credentials.invites(home: fixture.home.id).isEmpty)
        }
    }

    @Test func errorsNameTheFieldAndUseTheRightStatus() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        try await fixture.withServer { api in
            var reply = try await api.call(.get, "/v1/homes", token: nil)
            #expect(reply.status == 401 && reply.errorCode == "unauthorized")
            reply = try await api.call(.get, "/v1/homes", token: "hearth_not-a-token")
            #expect(reply.status == 401)
            reply = try await api.call(.post, "/v1/homes", token: o, body: "{")
            #expect(reply.status == 400 && reply.errorCode == "invalidRequest" && reply.errorMessage.contains("JSON"))
            reply = try await api.call(.post, "/v1/homes", token: o, body: nil)
            #expect(reply.status == 400 && reply.errorCode == "invalidRequest")
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{"name": "A", "colour": "red"}"#)
            #expect(reply.status == 400 && reply.errorMessage.contains("'colour'"), "\(reply.text)")
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{"name": 5}"#)
            #expect(
                reply.status == 400 && reply.errorMessage.contains("'name'") && reply.errorMessage.contains("string")
            )
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{}"#)
            #expect(reply.status == 400 && reply.errorMessage.contains("'name' is required"))
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{"name": "   "}"#)
            #expect(reply.status == 400 && reply.errorCode == "invalidName")
            // The message says which naming rule the name breaks.
            let long = String(repeating: "a", count: 200)
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{"name": "\#(long)"}"#)
            #expect(reply.status == 400 && reply.errorCode == "invalidName")
            #expect(reply.errorMessage == "A name can be at most 64 characters (got 200)", "\(reply.text)")
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{"name": "Bell\u0007\u001b[31m"}"#)
            #expect(reply.errorMessage == "A name cannot contain control characters (found U+0007)", "\(reply.text)")
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{"name": "\u202eevil"}"#)
            #expect(reply.errorMessage.contains("bidirectional override or isolate characters (found U+202E)"))
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{"name": "\u200b\ufeff"}"#)
            #expect(reply.errorMessage == "A name must have at least one visible character", "\(reply.text)")
            let onID = fixture.onCharacteristic.id.uuidString
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                ["homeID": h],
                token: o,
                body: #"{"name": "X", "actions": [{"characteristicID": "\#(onID)", "targetValue": true, "delay": 3}]}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("actions[0].delay"), "\(reply.text)")
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/zones",
                ["homeID": h],
                token: o,
                body: #"{"name": "Z", "roomIDs": ["nope"]}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("roomIDs[0]"), "\(reply.text)")
            let big = String(repeating: "x", count: 300 * 1024)
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{"name": "\#(big)"}"#)
            #expect(reply.status == 413 && reply.errorCode == "bodyTooLarge", "\(reply.text)")
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/location",
                ["homeID": h],
                token: o,
                body: #"{"latitude": 91, "longitude": 0}"#
            )
            #expect(reply.status == 400 && reply.errorCode == "invalidLocation")
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}",
                ["homeID": h],
                token: o,
                body: #"{"timeZone": "Mars/Olympus"}"#
            )
            #expect(reply.status == 400 && reply.errorCode == "invalidTimeZone")
            let brightness = ["homeID": h, "characteristicID": fixture.brightness.id.uuidString]
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                brightness,
                token: o,
                body: #"{"value": 500}"#
            )
            #expect(
                reply.status == 400 && reply.errorCode == "invalidValue"
                    && reply.errorMessage == "Brightness must be between 0 and 100 (got 500)"
            )
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics",
                ["homeID": h],
                token: o,
                body: #"{"writes": []}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("writes"))
            reply = try await api.call(.get, "/v1/homes/{homeID}/changes", ["homeID": h], token: o)
            #expect(reply.status == 400 && reply.errorMessage.contains("after"))

            // Unknown ids: 404, a malformed id too, and homes of others look the same.
            reply = try await api.call(.get, "/v1/homes/{homeID}", ["homeID": UUID().uuidString], token: o)
            #expect(reply.status == 404 && reply.errorCode == "notFound")
            reply = try await api.call(.get, "/v1/homes/{homeID}", ["homeID": "not-an-id"], token: o)
            #expect(reply.status == 404)
            reply = try await api.call(.get, "/v1/homes/{homeID}", ["homeID": h], token: fixture.stranger.token)
            #expect(reply.status == 404)
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/rooms/{roomID}",
                ["homeID": h, "roomID": UUID().uuidString],
                token: o,
                body: #"{"name": "Nowhere"}"#
            )
            #expect(reply.status == 404 && reply.errorMessage.contains("room"))
            reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                ["homeID": h, "characteristicID": UUID().uuidString],
                token: o
            )
            #expect(reply.status == 404)
            reply = try await api.call(.get, "/v1/nothing-here", token: o)
            #expect(reply.status == 404 && reply.errorCode == "notFound")

            // Name clashes: 409.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: o,
                body: #"{"name": "Kitchen"}"#
            )
            #expect(reply.status == 201)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                ["homeID": h],
                token: o,
                body: #"{"name": " kitchen "}"#
            )
            #expect(reply.status == 409 && reply.errorCode == "nameTaken" && reply.errorMessage.contains("kitchen"))
            reply = try await api.call(.post, "/v1/homes", token: o, body: #"{"name": "Maple Street"}"#)
            #expect(reply.status == 409)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                ["homeID": h],
                token: o,
                body: #"{"name": "Up", "kind": "wakeUp"}"#
            )
            // Every home has its built-in Wake Up scene from the start: a second one is refused.
            #expect(reply.status == 409 && reply.errorCode == "builtInActionSetExists")
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                ["homeID": h],
                token: o,
                body: #"{"name": "Up 2", "kind": "wakeUp"}"#
            )
            #expect(reply.status == 409 && reply.errorCode == "builtInActionSetExists")
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                ["homeID": h],
                token: o,
                body: #"{"name": "Up 3", "kind": "noon"}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("kind"), "\(reply.text)")
        }
    }
}
