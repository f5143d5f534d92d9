import Foundation
import HAP
import HearthAPI
import HearthKit
import HomeGraph
import Hub
import TestFixtures
import Testing

/// A home copied between two hubs through a home file: `exportHome` on one, `importHome` on the other, real HTTP.
@Suite(.serialized) struct HomeFileTests {
    /// The source hub's home, made through the hub: a paired simulated bridge, rooms, a zone, a group, scenes and
    /// triggers (one about another user, which the copy leaves out).
    static func furnish(_ fixture: KitFixture, bridge: SimulatedBridge) async throws -> Home {
        let owner = HubCaller.user(fixture.owner.id)
        let h = fixture.homeID
        try await fixture.hub.start()
        let added = try await fixture.hub.pairAccessory(
            home: h,
            host: "127.0.0.1",
            port: bridge.port,
            setupCode: try SetupCode(SimulatedBridge.setupCode),
            as: owner
        )
        let lights = added.filter { $0.category == .lightbulb }
        #expect(lights.count == 3)
        let (kitchen, bedroom, upstairs, group, movie) = (UUID(), UUID(), UUID(), UUID(), UUID())
        let on = try #require(lights[0].characteristics.first { $0.type == HAPUUID(apple: 0x25) })
        let home = try #require(fixture.hub.graph.home(withID: h))
        let wakeUp = try #require(home.actionSet(ofKind: .wakeUp))
        let sleep = try #require(home.actionSet(ofKind: .sleep))
        let morning = try #require(TimeOfDay("07:00"))
        try await fixture.hub.perform(
            [
                .renameHome(h, name: "Elm Street"),
                .addRoom(home: h, id: kitchen, name: "Kitchen"),
                .addRoom(home: h, id: bedroom, name: "Bedroom"),
                .addZone(home: h, id: upstairs, name: "Upstairs", roomIDs: [bedroom]),
                .moveAccessory(home: h, accessory: lights[0].id, room: kitchen),
                .moveAccessory(home: h, accessory: lights[1].id, room: bedroom),
                .addServiceGroup(
                    home: h,
                    id: group,
                    name: "All Lights",
                    serviceIDs: lights.map { $0.services.first { $0.isPrimary }?.id ?? $0.services[1].id }
                ),
                .addActionSet(
                    home: h,
                    id: movie,
                    name: "Movie Time",
                    actions: [.init(characteristicID: on.id, targetValue: .bool(false))]
                ),
                .setActions(
                    home: h,
                    actionSet: wakeUp.id,
                    actions: [.init(characteristicID: on.id, targetValue: .bool(true))]
                ),
                .renameActionSet(home: h, actionSet: sleep.id, name: "Good Night"),
                .setLocation(home: h, location: Location(latitude: 52.5, longitude: 13.4)),
                .setPresenceRadius(home: h, radius: 250),
                .setTemperatureUnit(home: h, unit: .fahrenheit),
                .addTrigger(
                    home: h,
                    trigger: Trigger(
                        id: UUID(),
                        name: "Morning",
                        actionSetIDs: [wakeUp.id],
                        definition: TriggerDefinition(events: [.calendar(time: morning, weekdays: [])]),
                        creatorID: fixture.owner.id
                    )
                ),
                .addTrigger(
                    home: h,
                    trigger: Trigger(
                        id: UUID(),
                        name: "Welcome",
                        actionSetIDs: [movie],
                        definition: TriggerDefinition(events: [.presence(change: .firstEntry, users: .currentUser)]),
                        creatorID: fixture.owner.id
                    )
                ),
                .addTrigger(
                    home: h,
                    trigger: Trigger(
                        id: UUID(),
                        name: "Lamp On",
                        actionSetIDs: [movie],
                        definition: TriggerDefinition(events: [.characteristic(id: on.id, value: .bool(true))]),
                        creatorID: fixture.owner.id
                    )
                ),
                .addTrigger(
                    home: h,
                    trigger: Trigger(
                        id: UUID(),
                        name: "Bo Arrives",
                        actionSetIDs: [movie],
                        definition: TriggerDefinition(events: [
                            .presence(change: .everyEntry, users: .users([fixture.admin.id]))
                        ]),
                        creatorID: fixture.owner.id
                    )
                ),
            ],
            as: owner
        )
        return try #require(fixture.hub.graph.home(withID: h))
    }

    @Test func aHomeCopiedToASecondHubKeepsItsStructureAndWaitsForPairing() async throws {
        let bridge = try await SimulatedBridge.start()
        let source = try await KitFixture()
        let target = try await KitFixture()
        let original = try await Self.furnish(source, bridge: bridge)
        try await source.withServer { sourceURL, _ in
            let file = try await source.client(sourceURL, source.owner).exportHome(original.id)
            #expect(file.home.id == original.id && file.home.accessories.count == original.accessories.count)
            let data = try file.encoded()
            let read = try HomeFile.decode(data)
            #expect(read.home == file.home, "the file reads back whole")

            try await target.withServer { targetURL, _ in
                // Cy (a shared user of the second hub's other home) imports it: any signed-in user may, and becomes owner.
                let importer = target.client(targetURL, target.guest)
                let response = try await importer.importHome(read)
                let copy = response.home
                #expect(response.role == .owner)
                #expect(copy.id == original.id)
                #expect(copy.name == "Elm Street")
                #expect(copy.users.map(\.id) == [target.guest.id], "the file's users stay on their hub")
                #expect(copy.allRooms.map(\.name) == original.allRooms.map(\.name))
                #expect(copy.rooms.map(\.id) == original.rooms.map(\.id))
                #expect(copy.zones == original.zones)
                #expect(copy.serviceGroups == original.serviceGroups)
                #expect(copy.location == original.location)
                #expect(copy.presenceRadius == 250)
                #expect(copy.temperatureUnit == .fahrenheit)
                #expect(copy.accessories.map(\.id) == original.accessories.map(\.id))
                #expect(copy.accessories.map(\.name) == original.accessories.map(\.name))
                #expect(copy.accessories.map(\.roomID) == original.accessories.map(\.roomID))
                #expect(copy.accessories.allSatisfy { !$0.isReachable }, "not paired with this hub")
                // The scenes: the same, one of each built-in kind, actions and names kept.
                #expect(copy.actionSets.count == original.actionSets.count)
                for kind in ActionSetKind.builtIn {
                    #expect(copy.actionSets.count(where: { $0.kind == kind }) == 1)
                }
                for actionSet in original.actionSets {
                    #expect(copy.actionSets.first { $0.id == actionSet.id } == actionSet)
                }
                // The triggers: all but the one about Bo, who is not on this hub; the owner is now the importer.
                #expect(copy.triggers.map(\.name) == ["Morning", "Welcome", "Lamp On"])
                for trigger in copy.triggers {
                    let before = try #require(original.triggers.first { $0.id == trigger.id })
                    #expect(trigger.definition == before.definition)
                    #expect(trigger.actionSetIDs == before.actionSetIDs)
                    #expect(trigger.creatorID == target.guest.id)
                    #expect(trigger.state == TriggerState())
                }

                // The copy is a home of the second hub: the same file again is a conflict, and nothing changes.
                let before = target.hub.graph
                await #expect {
                    try await importer.importHome(read)
                } throws: { error in
                    guard let error = error as? HearthError else { return false }
                    return error.status == 409 && error.message == "this home is already on this hub"
                }
                #expect(target.hub.graph == before)

                // Its accessories have no pairing here: no link, and a write fails with a sentence, no crash.
                #expect(await target.hub.linkedDeviceIDs.isEmpty)
                let on = try #require(
                    copy.accessories.first { $0.category == .lightbulb }?.characteristics.first {
                        $0.type == HAPUUID(apple: 0x25)
                    }
                )
                let results = try? await importer.write(
                    .bool(!(on.value == .bool(true))),
                    toCharacteristic: on.id,
                    inHome: copy.id
                )
                #expect(results?.allSatisfy { $0.error != nil } ?? true, "the write cannot reach the accessory")
                let cached = target.hub.graph.home(withID: copy.id)?.accessories.flatMap(\.characteristics)
                #expect(cached?.first { $0.id == on.id }?.value == on.value, "the cached value is unchanged")
                try await Task.sleep(for: .milliseconds(200))
                #expect(await target.hub.linkedDeviceIDs.isEmpty, "no connection attempts")
                #expect(target.hub.graph.home(withID: copy.id)?.accessories.allSatisfy { !$0.isReachable } == true)
            }
        }
        await bridge.stop()
    }
}
