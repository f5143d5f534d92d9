import Foundation
import HAP
import HomeGraph
import Hub
import HubServer
import TestFixtures
import Testing

/// The accessory routes against a real accessory server on 127.0.0.1 (a simulated bridge), over real HTTP.
@Suite(.serialized) struct AccessoryRouteTests {
    @Test func theOwnerPairsWritesRunsIdentifiesReadsAndRemovesABridge() async throws {
        let fixture = try await Fixture()
        let bridge = try await SimulatedBridge.startForAPI()
        let o = fixture.owner.token
        let h = fixture.home.id.uuidString
        let home = ["homeID": h]
        try await fixture.withServer { api in
            try await fixture.hub.start()
            let kitchen = try await api.call(
                .post,
                "/v1/homes/{homeID}/rooms",
                home,
                token: o,
                body: #"{"name": "Kitchen"}"#
            ).id("room")

            // A wrong setup code is refused and changes nothing.
            let before = fixture.hub.graph.lastSequence(ofHome: fixture.home.id)
            var reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories",
                home,
                token: o,
                body: #"{"host": "127.0.0.1", "port": \#(bridge.port), "setupCode": "031-45-155"}"#
            )
            #expect(reply.status == 400 && reply.errorCode == "wrongSetupCode", "\(reply.text)")
            #expect(reply.errorMessage.contains("setupCode"))
            #expect(fixture.hub.graph.lastSequence(ofHome: fixture.home.id) == before)
            #expect(await !bridge.server.pairings.isPaired)
            // Exactly one of the two forms, else 400 naming the field.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories",
                home,
                token: o,
                body: #"{"deviceID": "AA:BB:CC:DD:EE:FF", "host": "127.0.0.1", "port": 1, "setupCode": "031-45-154"}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("'host'"), "\(reply.text)")
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories",
                home,
                token: o,
                body: #"{"host": "127.0.0.1", "setupCode": "031-45-154"}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("'port'"))
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories",
                home,
                token: o,
                body: #"{"setupCode": "031-45-154"}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("'deviceID'"))
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories",
                home,
                token: o,
                body: #"{"host": "127.0.0.1", "port": \#(bridge.port), "setupCode": "12345"}"#
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("'setupCode'"))

            // Pair by host and port, in the kitchen, renaming the bridge.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories",
                home,
                token: o,
                body: #"""
                    {"host": "127.0.0.1", "port": \#(bridge.port), "setupCode": "031-45-154", "name": "Hall Bridge",
                     "roomID": "\#(kitchen)"}
                    """#
            )
            #expect(reply.status == 201, "\(reply.text)")
            let added = reply.array("accessories")
            #expect(added.count == 5)
            #expect(added.contains { $0["name"] as? String == "Hall Bridge" })
            #expect(added.allSatisfy { $0["roomID"] as? String == kitchen })
            #expect(await bridge.server.pairings.isPaired)
            reply = try await api.call(.get, "/v1/homes/{homeID}/accessories", home, token: o)
            #expect(reply.array("accessories").count == 6)

            let graph = try #require(fixture.hub.graph.home(withID: fixture.home.id))
            let on1 = try #require(graph.find(ShortType.on, on: "Lightbulb Dimmable 1"))
            let brightness1 = try #require(graph.find(ShortType.brightness, on: "Lightbulb Dimmable 1"))
            let on2 = try #require(graph.find(ShortType.on, on: "Lightbulb Dimmable 2"))
            let brightness2 = try #require(graph.find(ShortType.brightness, on: "Lightbulb Dimmable 2"))
            let light = ["homeID": h, "characteristicID": on1.characteristic.id.uuidString]

            // One write reaches the simulator and comes back with the value recorded.
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                light,
                token: o,
                body: #"{"value": true}"#
            )
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.array("results").first?["value"] as? Bool == true)
            #expect(await bridge.value(of: on1.characteristic, on: on1.accessory) == .bool(true))

            // A batch: results in request order, each with its value or its error.
            let writes = [
                (brightness1.characteristic.id, "40"), (fixture.onCharacteristic.id, "true"),
                (on2.characteristic.id, "true"),
            ]
            let body = writes.map { #"{"characteristicID": "\#($0.0.uuidString)", "value": \#($0.1)}"# }
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics",
                home,
                token: o,
                body: #"{"writes": [\#(body.joined(separator: ", "))]}"#
            )
            #expect(reply.status == 200, "\(reply.text)")
            let results = reply.array("results")
            #expect(results.map { $0["characteristicID"] as? String } == writes.map { $0.0.uuidString })
            #expect(results.count == 3 && results[0]["value"] as? Int == 40 && results[2]["value"] as? Bool == true)
            #expect((results[1]["error"] as? [String: Any])?["code"] as? String == "notFound")
            #expect(await bridge.value(of: brightness1.characteristic, on: brightness1.accessory) == .int(40))
            #expect(await bridge.value(of: on2.characteristic, on: on2.accessory) == .bool(true))

            // A scene: every action at once, each with its outcome.
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                home,
                token: o,
                body: #"""
                    {"name": "Lights Out", "actions": [
                      {"characteristicID": "\#(on1.characteristic.id)", "targetValue": false},
                      {"characteristicID": "\#(on2.characteristic.id)", "targetValue": false}]}
                    """#
            )
            #expect(reply.status == 201)
            let scene = ["homeID": h, "actionSetID": reply.id("actionSet")]
            reply = try await api.call(.post, "/v1/homes/{homeID}/actionSets/{actionSetID}/run", scene, token: o)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.array("results").map { $0["value"] as? Bool } == [false, false])
            #expect(await bridge.value(of: on1.characteristic, on: on1.accessory) == .bool(false))
            #expect(await bridge.value(of: on2.characteristic, on: on2.accessory) == .bool(false))

            // Identify reaches the accessory.
            let identified = await bridge.simulator.identifyCount
            let lamp = ["homeID": h, "accessoryID": on1.accessory.id.uuidString]
            reply = try await api.call(.post, "/v1/homes/{homeID}/accessories/{accessoryID}/identify", lamp, token: o)
            #expect(reply.status == 204, "\(reply.text)")
            #expect(await bridge.simulator.identifyCount == identified + 1)

            // Notifications off at the accessory; then a change in the simulator is read with refresh.
            let dim = ["homeID": h, "characteristicID": brightness2.characteristic.id.uuidString]
            reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics/{characteristicID}/notifications",
                dim,
                token: o,
                body: #"{"isEnabled": false}"#
            )
            #expect(reply.status == 200 && reply.text.contains("characteristicNotificationsChanged"), "\(reply.text)")
            try await bridge.simulator.set(
                accessory: "Lightbulb Dimmable 2",
                characteristic: "brightness",
                value: .int(77)
            )
            reply = try await api.call(.get, "/v1/homes/{homeID}/characteristics/{characteristicID}", dim, token: o)
            #expect(reply.object("characteristic")["value"] as? Int != 77)
            reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                dim,
                token: o,
                query: "?refresh=true"
            )
            #expect(reply.status == 200 && reply.object("characteristic")["value"] as? Int == 77, "\(reply.text)")
            reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                dim,
                token: o,
                query: "?refresh=maybe"
            )
            #expect(reply.status == 400 && reply.errorMessage.contains("refresh"))

            // A bridged accessory goes only with its bridge; removing the bridge unpairs it.
            reply = try await api.call(.delete, "/v1/homes/{homeID}/accessories/{accessoryID}", lamp, token: o)
            #expect(reply.status == 400)
            let bridgeID = try #require(added.first { $0["name"] as? String == "Hall Bridge" }?["id"] as? String)
            reply = try await api.call(
                .delete,
                "/v1/homes/{homeID}/accessories/{accessoryID}",
                ["homeID": h, "accessoryID": bridgeID],
                token: o
            )
            #expect(reply.status == 204, "\(reply.text)")
            reply = try await api.call(.get, "/v1/homes/{homeID}/accessories", home, token: o)
            #expect(reply.array("accessories").count == 1)
            #expect(await !bridge.server.pairings.isPaired)
        }
        await bridge.stop()
    }

    @Test func aSharedUserControlsButNeitherPairsNorRemoves() async throws {
        let fixture = try await Fixture()
        let bridge = try await SimulatedBridge.startForAPI()
        let g = fixture.guest.token
        let h = fixture.home.id.uuidString
        let (added, graph) = try await fixture.startAndPair(bridge)
        let on = try #require(graph.find(ShortType.on, on: "Lightbulb Dimmable 1"))
        let lock = try #require(graph.find(ShortType.lockTarget, on: "Door Lock"))
        let sceneID = UUID()
        try await fixture.hub.perform(
            .addActionSet(
                home: fixture.home.id,
                id: sceneID,
                name: "Night",
                kind: .userDefined,
                actions: [Action(characteristicID: lock.characteristic.id, targetValue: .uint(1))]
            ),
            as: .user(fixture.owner.id)
        )
        try await fixture.withServer { api in
            let light = ["homeID": h, "characteristicID": on.characteristic.id.uuidString]
            var reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                light,
                token: g,
                body: #"{"value": true}"#
            )
            #expect(reply.status == 200, "\(reply.text)")
            #expect(await bridge.value(of: on.characteristic, on: on.accessory) == .bool(true))
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets/{actionSetID}/run",
                ["homeID": h, "actionSetID": sceneID.uuidString],
                token: g
            )
            #expect(reply.status == 200, "\(reply.text)")
            #expect(await bridge.value(of: lock.characteristic, on: lock.accessory) == .uint(1))
            reply = try await api.call(
                .get,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                light,
                token: g,
                query: "?refresh=true"
            )
            #expect(reply.status == 200)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories/{accessoryID}/identify",
                ["homeID": h, "accessoryID": on.accessory.id.uuidString],
                token: g
            )
            #expect(reply.status == 204)
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories",
                ["homeID": h],
                token: g,
                body: #"{"host": "127.0.0.1", "port": \#(bridge.port), "setupCode": "031-45-154"}"#
            )
            #expect(reply.status == 403 && reply.errorCode == "notPermitted")
            let bridgeID = try #require(added.first { $0.bridgeID == nil }?.id)
            reply = try await api.call(
                .delete,
                "/v1/homes/{homeID}/accessories/{accessoryID}",
                ["homeID": h, "accessoryID": bridgeID.uuidString],
                token: g
            )
            #expect(reply.status == 403 && reply.errorCode == "notPermitted")
            #expect(await bridge.server.pairings.isPaired)
        }
        await bridge.stop()
    }

    @Test func aWebSocketClientSeesAChangeMadeInTheSimulator() async throws {
        let fixture = try await Fixture()
        let bridge = try await SimulatedBridge.startForAPI()
        let graph = try await fixture.startAndPair(bridge).home
        let on = try #require(graph.find(ShortType.on, on: "Lightbulb Dimmable 2"))
        try await fixture.withServer { api in
            let client = EventClient(port: api.port, token: fixture.owner.token)
            client.send(#"{"resume": {}}"#)
            _ = try await client.messages(count: 1)
            try await bridge.simulator.set(accessory: "Lightbulb Dimmable 2", characteristic: "on", value: .bool(true))
            let found = try await client.first(timeout: .seconds(30)) { message in
                guard let event = message["event"] as? [String: Any],
                    let change = event["change"] as? [String: Any],
                    change["type"] as? String == "characteristicValueChanged"
                else { return false }
                return change["characteristicID"] as? String == on.characteristic.id.uuidString
                    && change["value"] as? Bool == true
            }
            #expect(found != nil, "events: \(client.events)")
            client.close()
        }
        await bridge.stop()
    }

    @Test func anAccessoryThatIsGoneIsABadGatewayAndNothingChanges() async throws {
        let fixture = try await Fixture()
        let bridge = try await SimulatedBridge.start()
        let graph = try await fixture.startAndPair(bridge).home
        let on = try #require(graph.find(ShortType.on, on: "Lightbulb Dimmable 1"))
        await bridge.stop()
        try await fixture.withServer { api in
            let h = fixture.home.id.uuidString
            let light = ["homeID": h, "characteristicID": on.characteristic.id.uuidString]
            var reply = try await api.call(
                .put,
                "/v1/homes/{homeID}/characteristics/{characteristicID}",
                light,
                token: fixture.owner.token,
                body: #"{"value": true}"#
            )
            let codes = ["accessoryUnreachable", "accessoryError", "accessoryTimedOut"]
            #expect([502, 504].contains(reply.status) && codes.contains(reply.errorCode ?? ""), "\(reply.text)")
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/accessories/{accessoryID}/identify",
                ["homeID": h, "accessoryID": on.accessory.id.uuidString],
                token: fixture.owner.token
            )
            #expect([502, 504].contains(reply.status) && codes.contains(reply.errorCode ?? ""), "\(reply.text)")
            let after = try #require(fixture.hub.graph.home(withID: fixture.home.id))
            #expect(
                after.find(ShortType.on, on: "Lightbulb Dimmable 1")?.characteristic.value == on.characteristic.value
            )
        }
    }
}
