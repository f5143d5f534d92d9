import Foundation
import HAP
import HearthAPI
import HearthKit
import HomeGraph
import Testing

/// Every call of `HearthClient` against a live HubServer: each operation of openapi.yaml once, with its answer.
@Suite struct ClientOperationTests {
    @Test func everyOperationAnswers() async throws {
        let fixture = try await KitFixture()
        try await fixture.withServer { url, _ in
            let owner = fixture.client(url, fixture.owner)
            let homeID = fixture.homeID

            let me = try await owner.me()
            #expect(me.user.name == "Ada" && me.homes.map(\.id) == [homeID])
            let token = try await owner.createToken(label: "second")
            #expect(try await owner.tokens().contains { $0.id == token.tokenID })
            try await owner.revokeToken(token.tokenID)

            let created = try await owner.createHome(name: "Cabin", timeZone: "Europe/Berlin")
            #expect(created.role == .owner && created.home.timeZoneIdentifier == "Europe/Berlin")
            #expect(try await owner.homes().count == 2)
            try await owner.updateHome(created.home.id, name: "Lake Cabin", timeZone: "UTC")
            try await owner.setPrimaryHome(created.home.id)
            try await owner.setLocation(Location(latitude: 52.5, longitude: 13.4), ofHome: created.home.id)
            try await owner.setPresenceRadius(250, ofHome: created.home.id)
            try await owner.reportPresence(
                position: Location(latitude: 52.501, longitude: 13.4),
                inHome: created.home.id
            )
            let cabin = try await owner.home(created.home.id).home
            #expect(cabin.presenceRadius == 250 && cabin.users.first?.presence?.isHome == true, "112 m of 250")
            try await owner.setTemperatureUnit(.fahrenheit, ofHome: created.home.id)
            #expect(try await owner.home(created.home.id).home.temperatureUnit == .fahrenheit)
            try await owner.reportPresence(isHome: false, inHome: created.home.id)
            try await owner.setLocation(nil, ofHome: created.home.id)
            let history = try await owner.changes(inHome: created.home.id, after: 1)
            #expect(!history.reloadRequired && history.events.first?.sequence == 2)
            let newest = try await owner.recentChanges(inHome: created.home.id, last: 2)
            #expect(newest.events.map(\.sequence) == [history.currentSequence - 1, history.currentSequence])
            try await owner.removeHome(created.home.id)

            let room = try await owner.addRoom(named: "Office", toHome: homeID).object
            try await owner.renameRoom(room.id, to: "Study", inHome: homeID)
            #expect(try await owner.rooms(inHome: homeID).rooms.map(\.name).contains("Study"))
            let zone = try await owner.addZone(named: "Upstairs", toHome: homeID).object
            try await owner.addRoom(room.id, toZone: zone.id, inHome: homeID)
            try await owner.removeRoom(room.id, fromZone: zone.id, inHome: homeID)
            try await owner.renameZone(zone.id, to: "Top", inHome: homeID)
            #expect(try await owner.zones(inHome: homeID).map(\.name) == ["Top"])
            try await owner.removeZone(zone.id, fromHome: homeID)

            #expect(try await owner.accessories(inHome: homeID).map(\.id) == [fixture.lamp.id])
            #expect(try await owner.accessory(fixture.lamp.id, inHome: homeID).name == "Desk Lamp")
            try await owner.updateAccessory(fixture.lamp.id, name: "Lamp", roomID: room.id, inHome: homeID)
            let service = fixture.lamp.services[0]
            try await owner.renameService(service.id, to: "Light", inHome: homeID)
            let read = try await owner.characteristic(fixture.brightness.id, inHome: homeID)
            #expect(read.accessoryID == fixture.lamp.id && read.characteristic.value == .int(0))
            try await owner.setNotifications(true, forCharacteristic: fixture.brightness.id, inHome: homeID)
            // This fixture's lamp has no HAP accessory behind it and the hub browses no network: the accessory calls
            // answer, and refuse what needs an accessory (round trips with a real bridge: AccessoryRouteTests).
            #expect(try await owner.nearbyAccessories(forHome: homeID).isEmpty)
            let unknown = await #expect(throws: HearthError.self) {
                _ = try await owner.pairAccessory(
                    deviceID: "AA:BB:CC:DD:EE:FF",
                    setupCode: "031-45-154",
                    toHome: homeID
                )
            }
            #expect(unknown?.status == 404)
            let identify = await #expect(throws: HearthError.self) {
                try await owner.identifyAccessory(fixture.lamp.id, inHome: homeID)
            }
            #expect(identify?.status == 404)
            // A write is refused per characteristic, or as a whole with 404.
            func expectRefused(_ write: () async throws -> [CharacteristicWriteResult]) async {
                do {
                    let results = try await write()
                    #expect(results.count == 1 && results[0].error?.code == "notFound" && results[0].value == nil)
                } catch let error as HearthError {
                    #expect(error.status == 404)
                } catch {
                    Issue.record("unexpected \(error)")
                }
            }
            await expectRefused {
                try await owner.write(.int(40), toCharacteristic: fixture.brightness.id, inHome: homeID)
            }
            await expectRefused {
                try await owner.write(
                    [CharacteristicWrite(characteristicID: fixture.brightness.id, value: .int(40))],
                    inHome: homeID
                )
            }

            let group = try await owner.addServiceGroup(named: "Lights", toHome: homeID).object
            try await owner.addService(service.id, toGroup: group.id, inHome: homeID)
            try await owner.removeService(service.id, fromGroup: group.id, inHome: homeID)
            try await owner.renameServiceGroup(group.id, to: "All Lights", inHome: homeID)
            #expect(try await owner.serviceGroups(inHome: homeID).map(\.name) == ["All Lights"])
            try await owner.removeServiceGroup(group.id, fromHome: homeID)

            let action = Action(characteristicID: fixture.onCharacteristic.id, targetValue: .bool(true))
            let scene = try await owner.addActionSet(named: "Evening", actions: [action], toHome: homeID).object
            try await owner.updateActionSet(scene.id, name: "Late Evening", actions: [], inHome: homeID)
            #expect(
                try await owner.actionSets(inHome: homeID).map(\.name)
                    == ["Wake Up", "Leave Home", "Arrive Home", "Sleep", "Late Evening"]
            )
            // The built-in scenes, found by kind.
            let arrive = try await owner.builtInActionSet(ofKind: .homeArrival, inHome: homeID)
            #expect(arrive.name == "Arrive Home" && arrive.kind == .homeArrival)
            await #expect(throws: HearthError.self) {
                try await owner.builtInActionSet(ofKind: .userDefined, inHome: homeID)
            }
            do throws(HearthError) {
                try await owner.removeActionSet(arrive.id, fromHome: homeID)
                Issue.record("a built-in scene was removed")
            } catch {
                #expect(error.status == 409 && error.code == "builtInActionSetNotRemovable", "\(error)")
            }
            // Emptied above: running it writes nothing.
            #expect(try await owner.runActionSet(scene.id, inHome: homeID).isEmpty)
            let dusk = TriggerDefinition(events: [.significantTime(sun: .sunset, offsetSeconds: -600)])
            let trigger = try await owner.addTrigger(
                named: "At Dusk",
                actionSetIDs: [scene.id],
                definition: dusk,
                toHome: homeID
            ).object
            #expect(trigger.definition == dusk)
            #expect(try await owner.trigger(trigger.id, inHome: homeID) == trigger)
            #expect(try await owner.decisions(ofTrigger: trigger.id, inHome: homeID).isEmpty)
            let dawn = TriggerDefinition.event(.sunrise(offsetMinutes: 15), if: .after(.time(6, 0)))
            try await owner.updateTrigger(trigger.id, definition: dawn, inHome: homeID)
            #expect(try await owner.trigger(trigger.id, inHome: homeID).definition == dawn)
            try await owner.updateTrigger(trigger.id, name: "Dusk", isEnabled: false, inHome: homeID)
            #expect(try await owner.triggers(inHome: homeID).map(\.isEnabled) == [false])
            try await owner.removeTrigger(trigger.id, fromHome: homeID)
            try await owner.removeActionSet(scene.id, fromHome: homeID)
            try await owner.removeRoom(room.id, fromHome: homeID)
            // An accessory the hub has no connection to is removed from the home all the same.
            try await owner.removeAccessory(fixture.lamp.id, fromHome: homeID)
            #expect(try await owner.accessories(inHome: homeID).isEmpty)

            #expect(try await owner.users(inHome: homeID).count == 3)
            try await owner.setRole(.administrator, ofUser: fixture.guest.id, inHome: homeID)
            try await owner.removeUser(fixture.guest.id, fromHome: homeID)
            let invite = try await owner.createInvite(role: .shared, forHome: homeID)
            #expect(try await owner.invites(forHome: homeID).map(\.id) == [invite.invite.id])
            let newcomer = HearthClient(url: url, token: nil)
            let redeemed = try await newcomer.redeemInvite(code: invite.code, name: "Eve")
            let eve = try #require(redeemed.token)
            #expect(redeemed.role == .shared)
            #expect(try await HearthClient(url: url, token: eve.token).homes().map(\.role) == [.shared])
            let second = try await owner.createInvite(role: .administrator, forHome: homeID)
            try await owner.removeInvite(second.invite.id, fromHome: homeID)
            #expect(try await owner.invites(forHome: homeID).isEmpty)

            // The client's mirror of the home agrees with a fresh read after all of it.
            let home = try await owner.home(homeID)
            #expect(home.home.accessory(withID: fixture.lamp.id) == nil, "removed above")
            #expect(home.home.users.map(\.name).contains("Eve"))
        }
    }
}
