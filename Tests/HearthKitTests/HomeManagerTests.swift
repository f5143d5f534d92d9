import Foundation
import HAP
import HearthAPI
import HearthKit
import HomeGraph
import Hub
import HubServer
import Synchronization
import TestSupport
import Testing

/// HearthKit against a live HubServer on loopback: two clients at once, resuming after a cut, typed errors.
@Suite(.serialized) struct HomeManagerTests {
    @Test func aChangeByOneClientReachesTheOthersManagerAsTheRightChangeWithin50Milliseconds() async throws {
        let fixture = try await KitFixture()
        try await fixture.withServer { url, _ in
            let alice = HomeManager(client: fixture.client(url, fixture.owner))
            let bob = HomeManager(client: fixture.client(url, fixture.admin))
            try await alice.start()
            try await bob.start()
            #expect(await alice.waitUntilConnected())
            #expect(await bob.waitUntilConnected())
            #expect(await bob.currentUser?.name == "Bo")
            #expect(await bob.role(inHome: fixture.homeID) == .administrator)
            #expect(await bob.primaryHome?.id == fixture.homeID)
            #expect(await bob.homes.count == 1)

            let homeID = fixture.homeID
            let all = UpdateRecorder(await bob.updates(inHome: homeID))
            let ofLamp = UpdateRecorder(await bob.updates(ofAccessory: fixture.lamp.id))
            let ofBrightness = UpdateRecorder(await bob.updates(ofCharacteristic: fixture.brightness.id))

            // 20 rooms added by Alice: each reaches Bob as `roomAdded` of that room; latency from Alice's return.
            var latencies: [Double] = []
            var roundTrips: [Double] = []
            for index in 0..<20 {
                let sent = ContinuousClock.now
                let created = try await alice.client.addRoom(named: "Room \(index)", toHome: homeID)
                let returned = ContinuousClock.now
                let seen = await all.first { update in
                    if case .changed(let event) = update, case .roomAdded(let room) = event.change {
                        return room.id == created.object.id
                    }
                    return false
                }
                let entry = try #require(seen, "Bob saw Room \(index)")
                #expect(entry.update.event?.sequence == created.events.first?.sequence)
                latencies.append(max(0, (entry.at - returned).milliseconds))
                roundTrips.append((entry.at - sent).milliseconds)
            }
            latencies.sort()
            roundTrips.sort()
            let median = latencies[latencies.count / 2]
            print(
                "propagation to the other client, ms after the change call returned: median \(median), max",
                latencies.last ?? 0,
                "; from the call's start (HTTP request included): median",
                roundTrips[roundTrips.count / 2],
                "max",
                roundTrips.last ?? 0
            )
            // Live, not held back nor polled; the 50 ms target is measured by Benchmarks/HubAPILoad, not here.
            #expect(median < 750, "median propagation \(median) ms")

            // The room keeps its identity across a rename in Bob's mirror.
            let room = try #require(await bob.home(withID: homeID)?.rooms.first { $0.name == "Room 0" })
            try await alice.client.renameRoom(room.id, to: "Study", inHome: homeID)
            #expect(await eventually { await bob.home(withID: homeID)?.room(withID: room.id)?.name == "Study" })

            // Per-accessory and per-characteristic sequences get only their own changes.
            try await alice.client.setNotifications(true, forCharacteristic: fixture.brightness.id, inHome: homeID)
            try await alice.client.updateAccessory(fixture.lamp.id, name: "Reading Lamp", inHome: homeID)
            try await fixture.hub.perform(
                .updateCharacteristicValue(
                    home: homeID,
                    characteristic: fixture.onCharacteristic.id,
                    value: .bool(true)
                ),
                as: .hub
            )
            try await fixture.hub.perform(
                .updateCharacteristicValue(home: homeID, characteristic: fixture.brightness.id, value: .int(40)),
                as: .hub
            )
            #expect(
                await ofLamp.first {
                    $0.event?.change.kind == "characteristicValueChanged"
                        && $0.event?.change.characteristicID == fixture.brightness.id
                } != nil
            )
            let lampKinds = ofLamp.entries.compactMap { $0.update.event?.change.kind }
            #expect(
                lampKinds == [
                    "characteristicNotificationsChanged", "accessoryRenamed", "characteristicValueChanged",
                    "characteristicValueChanged",
                ]
            )
            // Each sequence is read by its own task: wait for the brightness one to have the value change too.
            #expect(await ofBrightness.first { $0.event?.change.kind == "characteristicValueChanged" } != nil)
            let brightnessChanges = ofBrightness.entries.compactMap { $0.update.event?.change }
            #expect(
                brightnessChanges == [
                    .characteristicNotificationsChanged(
                        characteristic: fixture.brightness.id,
                        accessory: fixture.lamp.id,
                        isEnabled: true
                    ),
                    .characteristicValueChanged(
                        characteristic: fixture.brightness.id,
                        accessory: fixture.lamp.id,
                        value: .int(40)
                    ),
                ]
            )
            let mirrored = await bob.home(withID: homeID)?.accessory(withID: fixture.lamp.id)
            #expect(mirrored?.name == "Reading Lamp")
            #expect(mirrored?.characteristics.first { $0.id == fixture.brightness.id }?.value == .int(40))

            // Both mirrors equal the server's home.
            let server = try await alice.client.home(homeID)
            // Alice's own events reach her mirror over the WebSocket, after her calls returned: wait for the last.
            _ = await eventually(every: .milliseconds(20)) {
                (await alice.sequence(ofHome: homeID) ?? 0) >= server.sequence
            }
            #expect(await alice.home(withID: homeID) == server.home)
            #expect(await bob.home(withID: homeID) == server.home)
            #expect(await bob.sequence(ofHome: homeID) == server.sequence)
            await alice.stop()
            await bob.stop()
        }
    }

    @Test func aClientCutOffWhileChangesHappenResumesWithExactlyTheMissedEvents() async throws {
        let fixture = try await KitFixture()
        try await fixture.withServer { url, _ in
            let homeID = fixture.homeID
            let writer = fixture.client(url, fixture.owner)
            let reader = HomeManager(client: fixture.client(url, fixture.admin))
            try await reader.start()
            #expect(await reader.waitUntilConnected())
            let updates = UpdateRecorder(await reader.updates())
            let before = try #require(await reader.sequence(ofHome: homeID))

            await reader.disconnect()
            #expect(await reader.connectionState == .idle)
            var made: [HomeEvent] = []
            let office = try await writer.addRoom(named: "Office", toHome: homeID)
            made += office.events
            made += try await writer.renameRoom(office.object.id, to: "Den", inHome: homeID)
            let zone = try await writer.addZone(named: "Upstairs", roomIDs: [office.object.id], toHome: homeID)
            made += zone.events
            made += try await writer.updateAccessory(
                fixture.lamp.id,
                name: "Reading Lamp",
                roomID: office.object.id,
                inHome: homeID
            )
            made += try await writer.setNotifications(
                true,
                forCharacteristic: fixture.onCharacteristic.id,
                inHome: homeID
            )
            made += try await writer.removeRoom(office.object.id, fromHome: homeID)
            let scene = try await writer.addActionSet(named: "Evening", toHome: homeID)
            made += scene.events
            made += try await writer.updateHome(homeID, name: "Maple Street 2")
            #expect(made.count >= 9)
            #expect(updates.entries.isEmpty, "nothing arrives while cut off")

            await reader.connect()
            let server = try await writer.home(homeID)
            #expect(await eventually { await reader.sequence(ofHome: homeID) == server.sequence })
            try await Task.sleep(for: .milliseconds(300))  // anything extra (a repeat) would arrive by now
            let received = updates.entries.map(\.update)
            #expect(received == made.map { HomeUpdate.changed($0) }, "exactly the missed events, in order")
            #expect(made.first?.sequence == before + 1)
            #expect(await reader.home(withID: homeID) == server.home)
            await reader.stop()
        }
    }

    @Test func aClientBehindTheKeptHistoryReloadsTheHome() async throws {
        let fixture = try await KitFixture(historyLimit: 2)
        try await fixture.withServer { url, _ in
            let homeID = fixture.homeID
            let writer = fixture.client(url, fixture.owner)
            let reader = HomeManager(client: fixture.client(url, fixture.guest))
            try await reader.start()
            #expect(await reader.waitUntilConnected())
            let updates = UpdateRecorder(await reader.updates())
            await reader.disconnect()
            for index in 0..<8 { _ = try await writer.addRoom(named: "Room \(index)", toHome: homeID) }
            await reader.connect()
            let server = try await writer.home(homeID)
            let reloaded = await updates.first { $0 == .reloaded(homeID: homeID, sequence: server.sequence) }
            #expect(reloaded != nil, "reloadRequired makes the manager reload the home")
            #expect(await reader.home(withID: homeID) == server.home)
            #expect(await reader.role(inHome: homeID) == .shared)
            await reader.stop()
        }
    }

    @Test func errorsAreTypedWithTheAPIsCodeMessageAndStatus() async throws {
        let fixture = try await KitFixture()
        try await fixture.withServer { url, _ in
            let homeID = fixture.homeID
            let guest = fixture.client(url, fixture.guest)
            let owner = fixture.client(url, fixture.owner)

            let forbidden = await #expect(throws: HearthError.self) {
                _ = try await guest.addRoom(named: "Attic", toHome: homeID)
            }
            #expect(forbidden?.status == 403 && forbidden?.code == "notPermitted" && forbidden?.isNotPermitted == true)
            #expect(forbidden?.message.contains("shared users") == true, "\(forbidden?.message ?? "")")

            let missing = await #expect(throws: HearthError.self) {
                try await owner.renameRoom(UUID(), to: "X", inHome: homeID)
            }
            #expect(missing?.status == 404 && missing?.code == "notFound" && missing?.isNotFound == true)

            _ = try await owner.addRoom(named: "Kitchen", toHome: homeID)
            let clash = await #expect(throws: HearthError.self) {
                _ = try await owner.addRoom(named: "kitchen ", toHome: homeID)
            }
            #expect(clash?.status == 409 && clash?.code == "nameTaken" && clash?.isConflict == true)

            let nobody = HearthClient(url: url, token: "not-a-token")
            let unauthorized = await #expect(throws: HearthError.self) { _ = try await nobody.homes() }
            #expect(unauthorized?.status == 401 && unauthorized?.code == "unauthorized")
            #expect(unauthorized.map { !"\($0)".contains("not-a-token") } == true, "no token in errors")

            // A shared user controls: reading works; this fixture's lamp has no HAP accessory behind it, so a write
            // is refused as an accessory the hub does not know (real writes: HubServerTests' AccessoryRouteTests).
            #expect(
                try await guest.characteristic(fixture.onCharacteristic.id, inHome: homeID).accessoryID
                    == fixture.lamp.id
            )
            let unwired = await #expect(throws: HearthError.self) {
                _ = try await guest.write(.bool(true), toCharacteristic: fixture.onCharacteristic.id, inHome: homeID)
            }
            #expect(unwired?.status == 404 && unwired?.code == "notFound")
        }
        let closed = HearthClient(url: "http://127.0.0.1:9", token: "secret-token", timeout: .seconds(10))
        let unreachable = await #expect(throws: HearthError.self) { _ = try await closed.me() }
        #expect(unreachable?.status == 0 && unreachable?.isUnreachable == true)
        #expect(unreachable.map { !"\($0)".contains("secret-token") } == true)
    }

    @Test func aRevokedTokenEndsTheManagersConnection() async throws {
        let fixture = try await KitFixture()
        try await fixture.withServer { url, _ in
            let guest = fixture.client(url, fixture.guest)
            let manager = HomeManager(client: guest)
            try await manager.start()
            #expect(await manager.waitUntilConnected())
            let me = try await guest.me()
            try await guest.revokeToken(me.tokenID)
            #expect(
                await eventually {
                    if case .revoked = await manager.connectionState { return true }
                    return false
                }
            )
            await manager.stop()
        }
    }
}

/// A cut at the network: the manager notices, reconnects by itself with backoff, and resumes exactly.
@Suite(.serialized) struct NetworkCutTests {
    @Test func aWebSocketCutByTheNetworkReconnectsWithBackoffAndResumesExactly() async throws {
        let fixture = try await KitFixture()
        try await fixture.withServer { url, _ in
            let homeID = fixture.homeID
            let serverPort = try #require(Int(url.split(separator: ":").last ?? ""))
            let proxy = try await CuttableProxy(targetPort: serverPort)
            let writer = fixture.client(url, fixture.owner)
            let reader = HomeManager(
                client: HearthClient(url: "http://127.0.0.1:\(proxy.port)", token: fixture.admin.token),
                configuration: .init(initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(400))
            )
            try await reader.start()
            #expect(await reader.waitUntilConnected())
            let updates = UpdateRecorder(await reader.updates())
            let states = await reader.connectionStates()
            let seenStates = Mutex<[ConnectionState]>([])
            let stateTask = Task { for await state in states { seenStates.withLock { $0.append(state) } } }

            await proxy.cut()
            #expect(
                await eventually {
                    if case .connecting(let attempt) = await reader.connectionState { return attempt >= 2 }
                    return false
                },
                "the manager notices the cut and retries (and fails) while cut"
            )
            var made: [HomeEvent] = []
            for index in 0..<6 {
                made += try await writer.addRoom(named: "Room \(index)", toHome: homeID).events
            }
            made += try await writer.setNotifications(true, forCharacteristic: fixture.brightness.id, inHome: homeID)
            made += try await writer.updateAccessory(fixture.lamp.id, name: "Reading Lamp", inHome: homeID)
            #expect(updates.entries.isEmpty, "nothing arrives while cut")

            proxy.restore()
            let server = try await writer.home(homeID)
            #expect(await eventually { await reader.sequence(ofHome: homeID) == server.sequence })
            try await Task.sleep(for: .milliseconds(300))
            #expect(updates.entries.map(\.update) == made.map { HomeUpdate.changed($0) }, "no gap, no repeat")
            #expect(await reader.home(withID: homeID) == server.home)
            #expect(await reader.connectionState == .connected)
            let attempts = seenStates.withLock { $0 }.compactMap { state -> Int? in
                if case .connecting(let attempt) = state { return attempt }
                return nil
            }
            #expect((attempts.max() ?? 0) >= 2, "\(attempts)")
            stateTask.cancel()
            await reader.stop()
            await proxy.stop()
        }
    }
}
