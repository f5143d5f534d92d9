import Foundation
import HAP
import HAPTypes
import HomeGraph
import Hub
import Simulator
import TestFixtures
import TestSupport
import Testing

/// Scenes through the API: the built-in ones, found by kind and never removed, and a run with one accessory down.
@Suite(.serialized) struct SceneTests {
    @Test func builtInScenesAreFoundByKindAndCannotBeRemoved() async throws {
        let fixture = try await Fixture()
        let (o, c) = (fixture.owner.token, fixture.guest.token)
        let h = fixture.home.id.uuidString
        let sleep = try #require(fixture.home.actionSet(ofKind: .sleep))
        try await fixture.withServer { api in
            let kinds = "/v1/homes/{homeID}/actionSets/kinds/{kind}"
            for (kind, name) in [
                ("wakeUp", "Wake Up"), ("homeDeparture", "Leave Home"), ("homeArrival", "Arrive Home"),
                ("sleep", "Sleep"),
            ] {
                // A shared user finds them too.
                let reply = try await api.call(.get, kinds, ["homeID": h, "kind": kind], token: c)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.object("actionSet")["name"] as? String == name)
                #expect(reply.object("actionSet")["kind"] as? String == kind)
            }
            for kind in ["noon", "userDefined", "WAKEUP"] {
                let reply = try await api.call(.get, kinds, ["homeID": h, "kind": kind], token: o)
                #expect(reply.status == 400 && reply.errorCode == "invalidRequest", "\(reply.text)")
                #expect(
                    reply.errorMessage
                        == "kind '\(kind)' is not a built-in kind; use one of wakeUp, homeDeparture, homeArrival, sleep"
                )
            }
            var reply = try await api.call(.get, kinds, ["homeID": UUID().uuidString, "kind": "sleep"], token: o)
            #expect(reply.status == 404)

            // Renamed, still found by kind; never removed.
            let scene = ["homeID": h, "actionSetID": sleep.id.uuidString]
            reply = try await api.call(
                .patch,
                "/v1/homes/{homeID}/actionSets/{actionSetID}",
                scene,
                token: o,
                body: #"{"name": "Good Night"}"#
            )
            #expect(reply.status == 200)
            let before = fixture.hub.graph
            reply = try await api.call(.delete, "/v1/homes/{homeID}/actionSets/{actionSetID}", scene, token: o)
            #expect(reply.status == 409 && reply.errorCode == "builtInActionSetNotRemovable", "\(reply.text)")
            #expect(
                reply.errorMessage
                    == "the scene 'Good Night' is built in, and built-in scenes cannot be removed; "
                    + "rename it or change its actions"
            )
            #expect(fixture.hub.graph == before, "the home is unchanged")
            reply = try await api.call(.get, kinds, ["homeID": h, "kind": "sleep"], token: o)
            #expect(reply.object("actionSet")["name"] as? String == "Good Night")
            reply = try await api.call(
                .post,
                "/v1/homes/{homeID}/actionSets",
                ["homeID": h],
                token: o,
                body: #"{"name": "Night", "kind": "sleep"}"#
            )
            #expect(reply.status == 409 && reply.errorCode == "builtInActionSetExists")
        }
    }

    /// One lamp per bridge, so that each is its own accessory server.
    static let oneLamp = SimulatorDescription(
        bridgeName: "Test Bridge",
        presets: [PresetRequest(preset: .lightbulbDimmable, count: 1)]
    )

    @Test func aSceneRunsOnTheReachableAccessoriesAndNamesTheOneThatIsNot() async throws {
        let fixture = try await Fixture()
        var bridges: [SimulatedBridge] = []
        var lamps: [Accessory] = []
        try await fixture.hub.start()
        for name in ["Hall Lamp", "Study Lamp", "Porch Lamp"] {
            let bridge = try await SimulatedBridge.start(description: Self.oneLamp)
            bridges.append(bridge)
            let added = try await fixture.hub.pairAccessory(
                home: fixture.home.id,
                host: "127.0.0.1",
                port: bridge.port,
                setupCode: try SetupCode(SimulatedBridge.setupCode),
                as: .user(fixture.owner.id)
            )
            let lamp = try #require(added.first { $0.category == .lightbulb })
            try await fixture.hub.perform(
                .renameAccessory(home: fixture.home.id, accessory: lamp.id, name: name),
                as: .user(fixture.owner.id)
            )
            lamps.append(lamp)
        }
        defer { Task { [bridges] in for bridge in bridges { await bridge.stop() } } }
        let home = try #require(fixture.hub.graph.home(withID: fixture.home.id))
        var actions: [Action] = []
        for lamp in lamps {
            let accessory = try #require(home.accessories.first { $0.id == lamp.id })
            let on = try #require(accessory.characteristics.first { $0.type == ShortType.on })
            let brightness = try #require(accessory.characteristics.first { $0.type == ShortType.brightness })
            actions += [
                Action(characteristicID: on.id, targetValue: .bool(true)),
                Action(characteristicID: brightness.id, targetValue: .int(40)),
            ]
        }
        let scene = try #require(home.actionSet(ofKind: .homeArrival))
        try await fixture.hub.perform(
            .setActions(home: home.id, actionSet: scene.id, actions: actions),
            as: .user(fixture.owner.id)
        )
        // The porch lamp goes away after pairing, and the hub sees it go (before that, a write may still meet the
        // closing connection: "the accessory closed the connection").
        await bridges[2].stop()
        let porch = lamps[2].id
        try await waitUntil("the hub to see the porch lamp go") {
            await fixture.hub.graph.home(withID: home.id)?.accessories.first { $0.id == porch }?.isReachable == false
        }

        let g = fixture.guest.token
        let path = ["homeID": home.id.uuidString, "actionSetID": scene.id.uuidString]
        try await fixture.withServer { [lamps, bridges, actions] api in
            let start = ContinuousClock.now
            let reply = try await api.call(.post, "/v1/homes/{homeID}/actionSets/{actionSetID}/run", path, token: g)
            let elapsed = ContinuousClock.now - start
            #expect(reply.status == 200, "\(reply.text)")
            #expect(elapsed < .seconds(5), "the unreachable accessory held the run up for \(elapsed)")
            let results = reply.array("results")
            #expect(results.map { $0["characteristicID"] as? String } == actions.map(\.characteristicID.uuidString))
            // The two reachable lamps changed, at the accessory and in the home.
            for (index, lamp) in lamps.prefix(2).enumerated() {
                let accessory = try #require(home.accessories.first { $0.id == lamp.id })
                let on = try #require(accessory.characteristics.first { $0.type == ShortType.on })
                let brightness = try #require(accessory.characteristics.first { $0.type == ShortType.brightness })
                #expect(results[2 * index]["value"] as? Bool == true, "\(results[2 * index])")
                #expect(results[2 * index + 1]["value"] as? Int == 40, "\(results[2 * index + 1])")
                #expect(await bridges[index].value(of: on, on: accessory) == .bool(true))
                #expect(await bridges[index].value(of: brightness, on: accessory) == .int(40))
                let known = try fixture.hub.graph.characteristic(withID: brightness.id, inHome: home.id)
                #expect(known.characteristic.value == .int(40))
            }
            // The porch lamp's writes failed, each saying which accessory and characteristic, and why.
            for (result, type) in zip(results.suffix(2), ["On", "Brightness"]) {
                let error = try #require(result["error"] as? [String: Any], "\(result)")
                #expect(result["value"] == nil)
                #expect(error["code"] as? String == "accessoryUnreachable", "\(error)")
                let message = try #require(error["message"] as? String)
                #expect(message.hasPrefix("Porch Lamp (\(type)): "), "\(message)")
                #expect(message.contains("accessory unreachable at 127.0.0.1:\(bridges[2].port)"), "\(message)")
            }
        }
    }
}
