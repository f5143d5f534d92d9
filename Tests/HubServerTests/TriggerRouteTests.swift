import Foundation
import HAPTypes
import HearthAPI
import HomeGraph
import Hub
import HubServer
import Testing

/// Triggers with typed definitions, their decisions, and presence, over real HTTP.
@Suite(.serialized) struct TriggerRouteTests {
    /// A sensor whose temperature can be read but sends no events, added to the fixture's home.
    static func addQuietSensor(_ fixture: Fixture) async throws -> Characteristic {
        let temperature = Characteristic.testTemperature(id: UUID(), instanceID: 11, permissions: [.read])
        let sensor = Accessory(
            id: UUID(),
            name: "Quiet Sensor",
            roomID: fixture.home.roomForEntireHome.id,
            category: .sensor,
            services: [
                Service(
                    id: UUID(),
                    name: "Quiet Sensor",
                    type: HAPUUID(apple: 0x8A),
                    instanceID: 10,
                    isPrimary: true,
                    characteristics: [temperature]
                )
            ]
        )
        try await fixture.hub.perform(.addAccessory(home: fixture.home.id, accessory: sensor), as: .hub)
        return temperature
    }

    func decode<T: Decodable>(_ type: T.Type, _ reply: Reply) throws -> T {
        try JSONDecoder.api.decode(T.self, from: Data(reply.text.utf8))
    }

    @Test func triggersAreMadeShownAndChangedWithTypedDefinitions() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        let on = fixture.onCharacteristic.id.uuidString
        let brightness = fixture.brightness.id.uuidString
        try await fixture.withServer { api in
            let scene = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                ["homeID": h],
                token: o,
                body: #"{"name": "Welcome Lights"}"#
            ).id("actionSet")
            // The shapes docs/api/openapi.yaml gives, as a client writes them.
            let definition = """
                {"events": [{"characteristic": {"id": "\(on)", "value": true}},
                            {"threshold": {"id": "\(brightness)", "min": 80}},
                            {"calendar": {"time": "07:30", "weekdays": ["monday", "friday"]}},
                            {"significantTime": {"sun": "sunset", "offsetSeconds": -1800}},
                            {"presence": {"change": "firstEntry", "users": "everyUser"}},
                            {"duration": {"condition": {"characteristic": {"id": "\(on)", "comparison": "==", "value": false}}, "seconds": 600}}],
                 "condition": {"all": [{"time": {"after": "sunset-30m", "before": "23:00"}},
                                              {"characteristic": {"id": "\(brightness)", "comparison": "<", "value": 50}},
                                       {"not": {"presence": "noOne"}},
                                              {"notFiredWithin": {"seconds": 600}}]},
                 "end": {"afterSeconds": 300, "events": [], "actionSetIDs": []},
                 "executeOnce": true, "catchUpSeconds": 600}
                """
            var reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/triggers",
                ["homeID": h],
                token: o,
                body: #"{"name": "Welcome", "actionSetIDs": ["\#(scene)"], "definition": \#(definition)}"#
            )
            #expect(reply.status == 201, "\(reply.text)")
            let id = reply.id("trigger")
            let trigger = ["homeID": h, "triggerID": id]
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}", trigger, token: o)
            #expect(reply.status == 200)
            let shown = try decode(TriggerResponse.self, reply).trigger
            let onID = fixture.onCharacteristic.id
            #expect(shown.definition.events.first == .characteristic(id: onID, value: .bool(true)))
            #expect(shown.definition.events.count == 6)
            #expect(shown.definition.end == TriggerEnd(afterSeconds: 300))
            #expect(shown.definition.executeOnce && shown.definition.catchUpSeconds == 600)
            #expect(
                shown.creatorID == fixture.owner.id && shown.isEnabled
                    && shown.actionSetIDs.map(\.uuidString) == [scene]
            )
            guard case .all(let parts)? = shown.definition.condition else {
                Issue.record("the condition is not all: \(String(describing: shown.definition.condition))")
                return
            }
            #expect(parts.first == .time(after: .sun(.sunset, offsetSeconds: -1800), before: TimePoint("23:00")))
            // The answer writes what the hub stored, in the same shapes.
            let stored = try #require(fixture.hub.graph.home(withID: fixture.home.id)?.triggers.first)
            #expect(stored == shown)

            // Edit: a new definition replaces the old one whole.
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/triggers/{triggerID}",
                trigger,
                token: o,
                body: """
                    {"definition": {"timer": {"fireDate": "2026-12-01T07:00", "recurrence": {"every": {"count": 1, "unit": "day"}}}}}
                    """
            )
            #expect(reply.status == 200 && reply.text.contains("triggerDefinitionChanged"), "\(reply.text)")
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}", trigger, token: o)
            let edited = try decode(TriggerResponse.self, reply).trigger.definition
            #expect(edited.events.isEmpty && edited.condition == nil && !edited.executeOnce)
            #expect(edited.timer?.recurrence == .every(count: 1, unit: .day))

            // Decisions: none yet, then the hub's, newest first.
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}/decisions", trigger, token: o)
            #expect(reply.status == 200 && reply.array("decisions").isEmpty)
            let older = TriggerDecision(
                at: Date(timeIntervalSince1970: 1_000),
                cause: "Desk Lamp On became true",
                outcome: .skipped,
                reason: "Desk Lamp Brightness < 50 did not hold",
                conditions: [ConditionCheck(condition: "Desk Lamp Brightness < 50", observed: "80", holds: false)]
            )
            let newer = TriggerDecision(
                at: Date(timeIntervalSince1970: 2_000),
                cause: "Desk Lamp On became true",
                outcome: .fired,
                writes: [WriteRecord(characteristicID: onID, value: .bool(true), error: "unreachable")]
            )
            let triggerID = try #require(UUID(uuidString: id))
            try await fixture.hub.perform(
                .setTriggerState(
                    home: fixture.home.id,
                    trigger: triggerID,
                    state: TriggerState(decisions: [older, newer])
                ),
                as: .hub
            )
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}/decisions", trigger, token: o)
            #expect(try decode(TriggerDecisionList.self, reply).decisions == [newer, older])
            #expect(reply.array("decisions").last?["reason"] as? String == "Desk Lamp Brightness < 50 did not hold")

            // Unknown triggers are 404 on both routes.
            let unknown = ["homeID": h, "triggerID": UUID().uuidString]
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}", unknown, token: o)
            #expect(reply.status == 404 && reply.errorMessage.contains("trigger"))
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}/decisions", unknown, token: o)
            #expect(reply.status == 404)
            // A stranger sees no trigger of the home.
            reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/triggers/{triggerID}",
                trigger,
                token: fixture.stranger.token
            )
            #expect(reply.status == 404)
        }
    }

    @Test func everyInvalidDefinitionIsRefusedNamingTheFieldAndTheHomeIsUnchanged() async throws {
        let fixture = try await Fixture()
        let quiet = try await Self.addQuietSensor(fixture)
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        let on = fixture.onCharacteristic.id.uuidString
        let brightness = fixture.brightness.id.uuidString
        let nobody = UUID().uuidString
        let cases: [(definition: String, field: String)] = [
            (#"{"events": []}"#, "events"),
            (#"{"events": [{"characteristic": {"id": "\#(nobody)", "value": true}}]}"#, "events[0].id"),
            (#"{"events": [{"characteristic": {"id": "\#(brightness)", "value": 500}}]}"#, "events[0].value"),
            (#"{"events": [{"characteristic": {"id": "\#(quiet.id.uuidString)"}}]}"#, "events[0].id"),
            (
                #"{"events": [{"significantTime": {"sun": "sunset", "offsetSeconds": 50000}}]}"#,
                "events[0].offsetSeconds"
            ),
            (#"{"events": [{"threshold": {"id": "\#(brightness)", "min": 80, "max": 20}}]}"#, "events[0]"),
            (#"{"events": [{"threshold": {"id": "\#(on)", "min": 1}}]}"#, "events[0].id"),
            (#"{"events": [{"presence": {"change": "firstEntry", "users": ["\#(nobody)"]}}]}"#, "events[0].users"),
            (
                #"{"events": [{"location": {"region": {"name": "Office", "center": {"latitude": 1, "longitude": 2}, "radius": 5}, "transition": "entry", "users": "everyUser"}}]}"#,
                "events[0].region.radius"
            ),
            (
                #"{"events": [{"location": {"region": {"name": "Off\u202Eice", "center": {"latitude": 1, "longitude": 2}, "radius": 50}, "transition": "entry", "users": "everyUser"}}]}"#,
                "events[0].region.name"
            ),
            (
                #"{"events": [{"location": {"region": {"name": "\u200B", "center": {"latitude": 1, "longitude": 2}, "radius": 50}, "transition": "entry", "users": "everyUser"}}]}"#,
                "events[0].region.name"
            ),
            (
                #"{"events": [{"duration": {"condition": {"time": {"after": "18:00"}}, "seconds": 600}}]}"#,
                "events[0].condition"
            ),
            (
                #"{"events": [{"calendar": {"time": "07:30", "weekdays": []}}], "condition": {"time": {"after": "sunset+13h"}}}"#,
                "condition.time.after"
            ),
            (
                #"{"events": [{"calendar": {"time": "07:30", "weekdays": []}}], "condition": {"characteristic": {"id": "\#(on)", "comparison": "<", "value": true}}}"#,
                "condition.characteristic.comparison"
            ),
            (
                #"{"events": [{"calendar": {"time": "07:30", "weekdays": []}}], "condition": {"all": []}}"#,
                "condition.all"
            ),
            (
                #"{"timer": {"fireDate": "2026-12-01T07:00", "recurrence": {"every": {"count": 0, "unit": "day"}}}}"#,
                "timer.recurrence.every.count"
            ),
            (
                #"{"timer": {"fireDate": "2026-12-01T07:00", "recurrence": {"weekdays": ["monday", "monday"]}}}"#,
                "timer.recurrence.weekdays"
            ),
            (
                #"{"events": [{"calendar": {"time": "07:30", "weekdays": []}}], "end": {"afterSeconds": 0, "events": [], "actionSetIDs": []}}"#,
                "end.afterSeconds"
            ),
        ]
        try await fixture.withServer { api in
            let existing = try await api.call(
                .post,
                "/v1/homes/{homeID}/triggers",
                ["homeID": h],
                token: o,
                body: #"{"name": "Kept", "definition": {"events": [{"characteristic": {"id": "\#(on)"}}]}}"#
            )
            #expect(existing.status == 201, "\(existing.text)")
            let trigger = ["homeID": h, "triggerID": existing.id("trigger")]
            let before = try #require(fixture.hub.graph.home(withID: fixture.home.id))
            let sequence = fixture.hub.graph.lastSequence(ofHome: fixture.home.id)
            for (definition, field) in cases {
                var reply = try await api.call(
                    .post,
                    "/v1/homes/{homeID}/triggers",
                    ["homeID": h],
                    token: o,
                    body: #"{"name": "Bad", "definition": \#(definition)}"#
                )
                #expect(reply.status == 400 && reply.errorCode == "invalidTrigger", "\(definition): \(reply.text)")
                #expect(reply.errorMessage.hasPrefix("field '\(field)': "), "\(definition): \(reply.errorMessage)")
                reply = try await api.call(
                    .patch,
                    "/v1/homes/{homeID}/triggers/{triggerID}",
                    trigger,
                    token: o,
                    body: #"{"name": "Renamed", "definition": \#(definition)}"#
                )
                #expect(reply.status == 400 && reply.errorMessage.hasPrefix("field '\(field)': "), "\(reply.text)")
            }
            // A time point that is not one is refused when the body is read, naming the field.
            let reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/triggers",
                ["homeID": h],
                token: o,
                body: #"{"name": "Bad", "definition": {"condition": {"time": {"after": "teatime"}}}}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("teatime"), "\(reply.text)")
            #expect(fixture.hub.graph.home(withID: fixture.home.id) == before, "the home is unchanged")
            #expect(fixture.hub.graph.lastSequence(ofHome: fixture.home.id) == sequence)
        }
    }

    @Test func aSharedUserSeesTriggersAndDecisionsButChangesNone() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let g = fixture.guest.token
        let h = fixture.home.id.uuidString
        let on = fixture.onCharacteristic.id.uuidString
        try await fixture.withServer { api in
            let definition = #"{"events": [{"characteristic": {"id": "\#(on)", "value": true}}]}"#
            let id = try await api.call(
                .post,
                "/v1/homes/{homeID}/triggers",
                ["homeID": h],
                token: o,
                body: #"{"name": "Lamp On", "definition": \#(definition)}"#
            ).id("trigger")
            let trigger = ["homeID": h, "triggerID": id]
            #expect(try await api.call(.get, "/v1/homes/{homeID}/triggers", ["homeID": h], token: g).status == 200)
            var reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}", trigger, token: g)
            #expect(reply.status == 200 && reply.object("trigger")["name"] as? String == "Lamp On")
            reply = try await api.call(.get, "/v1/homes/{homeID}/triggers/{triggerID}/decisions", trigger, token: g)
            #expect(reply.status == 200)
            let sequence = fixture.hub.graph.lastSequence(ofHome: fixture.home.id)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/triggers",
                ["homeID": h],
                token: g,
                body: #"{"name": "Mine", "definition": \#(definition)}"#
            )
            #expect(reply.status == 403 && reply.errorCode == "notPermitted")
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/triggers/{triggerID}",
                trigger,
                token: g,
                body: #"{"definition": \#(definition), "isEnabled": false}"#
            )
            #expect(reply.status == 403)
            reply = try await api.call(.delete, "/v1/homes/{homeID}/triggers/{triggerID}", trigger, token: g)
            #expect(reply.status == 403)
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}",
                ["homeID": h],
                token: g,
                body: #"{"presenceRadius": 500}"#
            )
            #expect(reply.status == 403)
            #expect(fixture.hub.graph.lastSequence(ofHome: fixture.home.id) == sequence, "nothing changed")
        }
    }

    @Test func presenceIsReportedForOneselfOnly() async throws {
        let fixture = try await Fixture()
        let o = fixture.owner.token
        let g = fixture.guest.token
        let h = fixture.home.id.uuidString
        let home = ["homeID": h]
        try await fixture.withServer { api in
            func presence(_ user: UUID) -> Presence? {
                fixture.hub.graph.home(withID: fixture.home.id)?.users.first { $0.id == user }?.presence
            }
            // A shared user reports their own presence.
            var reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/presence",
                home,
                token: g,
                body: #"{"isHome": true}"#
            )
            #expect(reply.status == 200 && reply.text.contains("userPresenceChanged"), "\(reply.text)")
            #expect(presence(fixture.guest.id)?.isHome == true)
            #expect(presence(fixture.owner.id) == nil, "only the caller's own")
            // A position needs the home's location.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/presence",
                home,
                token: g,
                body: #"{"position": {"latitude": 52.52, "longitude": 13.405}}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("has no location"), "\(reply.text)")
            reply = try await api.call(.post, "/v1/homes/{homeID}/presence", home, token: g, body: #"{}"#)
            #expect(reply.status == 400 && reply.errorMessage.contains("isHome"), "\(reply.text)")
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/location",
                home,
                token: o,
                body: #"{"latitude": 52.52, "longitude": 13.405}"#
            )
            #expect(reply.status == 200)
            // 100 m by default: about 55 m north is home, about 330 m north is not.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/presence",
                home,
                token: g,
                body: #"{"position": {"latitude": 52.5205, "longitude": 13.405}}"#
            )
            #expect(reply.status == 200)
            #expect(presence(fixture.guest.id)?.isHome == true)
            #expect(presence(fixture.guest.id)?.position == Location(latitude: 52.5205, longitude: 13.405))
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/presence",
                home,
                token: g,
                body: #"{"position": {"latitude": 52.523, "longitude": 13.405}}"#
            )
            #expect(reply.status == 200)
            #expect(presence(fixture.guest.id)?.isHome == false)
            // The owner widens the circle to 500 m: the same position is home.
            reply = try await api.call(.patch, "/v1/homes/{homeID}", home, token: o, body: #"{"presenceRadius": 500}"#)
            #expect(reply.status == 200 && reply.text.contains("homePresenceRadiusChanged"), "\(reply.text)")
            reply = try await api.call(.patch, "/v1/homes/{homeID}", home, token: o, body: #"{"presenceRadius": 5}"#)
            #expect(reply.status == 400 && reply.errorCode == "invalidValue", "\(reply.text)")
            #expect(reply.errorMessage == "field 'presenceRadius': the radius must be 10 to 100000 metres")
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/presence",
                home,
                token: g,
                body: #"{"position": {"latitude": 52.523, "longitude": 13.405}}"#
            )
            #expect(presence(fixture.guest.id)?.isHome == true)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/presence",
                home,
                token: g,
                body: #"{"position": {"latitude": 95, "longitude": 13.405}}"#
            )
            #expect(reply.status == 400)
            // A stranger cannot report presence in a home that is not theirs.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/presence",
                home,
                token: fixture.stranger.token,
                body: #"{"isHome": true}"#
            )
            #expect(reply.status == 404)
        }
        // Nobody reports someone else's presence through the hub, whatever their role.
        let other = try await Fixture()
        let report = HomeOperation.setPresence(
            home: other.home.id,
            user: other.guest.id,
            presence: Presence(isHome: true, reportedAt: Date())
        )
        for caller in [other.owner.id, other.admin.id] {
            await #expect(throws: HubError.notPermitted("presence is reported only for oneself")) {
                try await other.hub.perform(report, as: .user(caller))
            }
        }
        try await other.hub.perform(report, as: .user(other.guest.id))
        #expect(
            other.hub.graph.home(withID: other.home.id)?.users.first { $0.id == other.guest.id }?.presence?.isHome
                == true
        )
        await other.stop()
    }
}
