import Foundation
import HAP
import HAPAccessoryServer
import HAPController
import HAPTypes
import HomeGraph
import Simulator
import TestFixtures
import TestSupport
import Testing

@testable import Hub

/// The hub against a real accessory server on 127.0.0.1 serving simulated accessories.
@Suite(.serialized)
struct HubAccessoryTests {
    let owner = UUID()
    let guest = UUID()

    /// A started hub with one home (owner and a shared user) and a bridge paired into it.
    func pairedHub(
        folder: String = temporaryFolder()
    ) async throws -> (hub: Hub, bridge: SimulatedBridge, home: UUID, added: [Accessory]) {
        let bridge = try await SimulatedBridge.start()
        let hub = try await Hub(configuration: testConfiguration(folder: folder))
        try await hub.start()
        let home = try await hub.addHome(name: "Maple Street", ownerName: "Ada", as: .user(owner))
        try await hub.perform(.addUser(home: home.id, id: guest, name: "Cy", role: .shared), as: .user(owner))
        let added = try await hub.pairAccessory(
            home: home.id,
            host: "127.0.0.1",
            port: bridge.port,
            setupCode: try SetupCode(SimulatedBridge.setupCode),
            as: .user(owner)
        )
        return (hub, bridge, home.id, added)
    }

    @Test func pairsABridgeAsOneAccessoryPerBridgedAccessoryAndSubscribes() async throws {
        let (hub, bridge, homeID, added) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let database = await bridge.simulator.database()
        #expect(added.count == database.accessories.count)
        let home = try #require(hub.graph.home(withID: homeID))
        let server = try #require(home.accessories.first { $0.bridgeID == nil })
        #expect(server.category == .bridge)
        #expect(server.accessoryInstanceID == 1)
        let bridged = home.accessories.filter { $0.bridgeID == server.id }
        #expect(bridged.count == database.accessories.count - 1)
        #expect(
            Set(bridged.map(\.accessoryInstanceID)) == Set(database.accessories.map(\.accessoryID)).subtracting([1])
        )
        #expect(bridged.filter { $0.category == .lightbulb }.count == 3)
        #expect(bridged.filter { $0.category == .sensor }.count == 1)
        for accessory in home.accessories {
            #expect(accessory.deviceID == server.deviceID)
            for characteristic in accessory.characteristics where characteristic.permissions.contains(.notify) {
                #expect(characteristic.isNotificationEnabled, "\(accessory.name) \(characteristic.type)")
            }
        }
        #expect(await hub.linkedDeviceIDs.count == 1)
        await hub.stop()
    }

    @Test func valuesFlowBothWaysAndBadWritesChangeNothing() async throws {
        let (hub, bridge, homeID, _) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let events = await Recorder.start(await hub.subscribe(as: .user(guest)))
        var home = try #require(hub.graph.home(withID: homeID))
        let lamp = try #require(home.accessories.first { $0.category == .lightbulb })
        let on = try home.characteristic(ShortType.on, ofAccessoryNamed: lamp.name)
        let brightness = try home.characteristic(ShortType.brightness, ofAccessoryNamed: lamp.name)
        let sensor = try #require(home.accessories.first { $0.category == .sensor })
        let temperature = try home.characteristic(ShortType.currentTemperature, ofAccessoryNamed: sensor.name)

        // The physical world changes: the graph hears of it as a change event.
        let now = on.value == .bool(true)
        try await bridge.simulator.set(
            accessory: "\(lamp.accessoryInstanceID)",
            characteristic: "\(on.instanceID)",
            value: .bool(!now)
        )
        let reported = try await events.next("the simulator's change") { $0.isValue(.bool(!now), of: on.id) }
        #expect(try hub.graph.characteristic(withID: on.id, inHome: homeID).characteristic.value == .bool(!now))
        // The history says who: the accessory reported it.
        #expect(reported.by == .accessory)
        #expect(reported.at.map { abs($0.timeIntervalSinceNow) < 60 } == true)

        // A shared user writes through the hub: the simulator and the graph both change.
        let results = try await hub.writeCharacteristics(
            home: homeID,
            [(on.id, .bool(now)), (brightness.id, .int(42))],
            as: .user(guest)
        )
        #expect(results[on.id] == .success(.bool(now)))
        #expect(results[brightness.id] == .success(.int(42)))
        let simulated = await bridge.simulator.read([
            CharacteristicID(accessoryID: lamp.accessoryInstanceID, instanceID: on.instanceID),
            CharacteristicID(accessoryID: lamp.accessoryInstanceID, instanceID: brightness.instanceID),
        ])
        #expect(
            simulated[CharacteristicID(accessoryID: lamp.accessoryInstanceID, instanceID: on.instanceID)]
                == .success(.bool(now))
        )
        #expect(
            simulated[CharacteristicID(accessoryID: lamp.accessoryInstanceID, instanceID: brightness.instanceID)]
                == .success(.int(42))
        )
        let written = try await events.next("the write's change") { $0.isValue(.int(42), of: brightness.id) }
        #expect(written.by == .person(guest))

        // Out of range, read-only, unknown: typed errors, nothing sent, nothing changed.
        let before = hub.graph
        let refused = try await hub.writeCharacteristics(
            home: homeID,
            [(brightness.id, .int(150)), (temperature.id, .float(30)), (UUID(), .bool(true))],
            as: .user(guest)
        )
        guard case .failure(.rejected(.invalidValue(.aboveMaximum, _))) = refused[brightness.id] else {
            Issue.record("out of range: \(String(describing: refused[brightness.id]))")
            return
        }
        guard case .failure(.rejected(.invalidValue(.notWritable, _))) = refused[temperature.id] else {
            Issue.record("read-only: \(String(describing: refused[temperature.id]))")
            return
        }
        #expect(refused.count == 3)
        #expect(hub.graph == before)
        let stillBright = await bridge.simulator.read([
            CharacteristicID(accessoryID: lamp.accessoryInstanceID, instanceID: brightness.instanceID)
        ])
        #expect(stillBright.values.first == .success(.int(42)))

        // Reading refreshes from the accessory; identify reaches it.
        let read = try await hub.readCharacteristics(home: homeID, [temperature.id, on.id], as: .user(guest))
        #expect(read[on.id] == .success(.bool(now)))
        guard case .success(.some) = read[temperature.id] else {
            Issue.record("temperature read: \(String(describing: read[temperature.id]))")
            return
        }
        try await hub.identify(home: homeID, accessory: lamp.id, as: .user(guest))

        // Notifications can be turned off and on by a shared user, through the accessory.
        try await hub.setNotifications(home: homeID, characteristic: on.id, isEnabled: false, as: .user(guest))
        home = try #require(hub.graph.home(withID: homeID))
        #expect(try home.characteristic(ShortType.on, ofAccessoryNamed: lamp.name).isNotificationEnabled == false)
        try await hub.setNotifications(home: homeID, characteristic: on.id, isEnabled: true, as: .user(guest))
        await hub.stop()
    }

    @Test func sharedUsersControlButNeverConfigure() async throws {
        let (hub, bridge, homeID, added) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let other = try await SimulatedBridge.start()
        defer { Task { await other.stop() } }
        let before = hub.graph
        let lamp = try #require(added.first { $0.category == .lightbulb })
        let code = try SetupCode(SimulatedBridge.setupCode)
        do {
            try await hub.pairAccessory(
                home: homeID,
                host: "127.0.0.1",
                port: other.port,
                setupCode: code,
                as: .user(guest)
            )
            Issue.record("a shared user paired an accessory")
        } catch {
            #expect(error.code == "notPermitted")
        }
        let server = try #require(added.first { $0.bridgeID == nil })
        do {
            try await hub.removeAccessory(home: homeID, accessory: server.id, as: .user(guest))
            Issue.record("a shared user removed an accessory")
        } catch {
            #expect(error.code == "notPermitted")
        }
        do {
            try await hub.perform(.renameAccessory(home: homeID, accessory: lamp.id, name: "Mine"), as: .user(guest))
            Issue.record("a shared user renamed an accessory")
        } catch {
            #expect(error.code == "notPermitted")
        }
        do {
            _ = try await hub.discoveredAccessories(as: .user(guest))
            Issue.record("a shared user listed accessories to pair")
        } catch {
            #expect(error.code == "notPermitted")
        }
        #expect(hub.graph == before)
        #expect(await hub.linkedDeviceIDs.count == 1)
        // The other bridge is still unpaired: the owner can pair it.
        let second = try await hub.pairAccessory(
            home: homeID,
            host: "127.0.0.1",
            port: other.port,
            setupCode: try SetupCode(SimulatedBridge.setupCode),
            as: .user(owner)
        )
        #expect(second.count == added.count)
        #expect(Set(second.map(\.name)).isDisjoint(with: Set(added.map(\.name))), "names are made unique")
        await hub.stop()
    }

    @Test func aSharedUserRunsASceneAndItReachesTheAccessory() async throws {
        let (hub, bridge, homeID, _) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let home = try #require(hub.graph.home(withID: homeID))
        let lamp = try #require(home.accessories.first { $0.category == .lightbulb })
        let on = try home.characteristic(ShortType.on, ofAccessoryNamed: lamp.name)
        let brightness = try home.characteristic(ShortType.brightness, ofAccessoryNamed: lamp.name)
        let scene = UUID()
        try await hub.perform(
            .addActionSet(
                home: homeID,
                id: scene,
                name: "Reading",
                actions: [
                    Action(characteristicID: on.id, targetValue: .bool(true)),
                    Action(characteristicID: brightness.id, targetValue: .int(35)),
                ]
            ),
            as: .user(owner)
        )
        let results = try await hub.runActionSet(home: homeID, actionSet: scene, as: .user(guest))
        #expect(results[on.id] == .success(.bool(true)))
        #expect(results[brightness.id] == .success(.int(35)))
        let brightnessID = CharacteristicID(accessoryID: lamp.accessoryInstanceID, instanceID: brightness.instanceID)
        #expect(await bridge.simulator.read([brightnessID])[brightnessID] == .success(.int(35)))
        let graph = hub.graph
        #expect(try graph.characteristic(withID: brightness.id, inHome: homeID).characteristic.value == .int(35))
        await #expect(throws: HubError.self) {
            try await hub.runActionSet(home: homeID, actionSet: UUID(), as: .user(guest))
        }
        await hub.stop()
    }

    @Test func aWrongSetupCodeChangesNothing() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let folder = temporaryFolder()
        let hub = try await Hub(configuration: testConfiguration(folder: folder))
        try await hub.start()
        let home = try await hub.addHome(name: "Maple Street", ownerName: "Ada", as: .user(owner))
        let before = hub.graph
        let wrong = try SetupCode("111-22-333")
        do {
            try await hub.pairAccessory(
                home: home.id,
                host: "127.0.0.1",
                port: bridge.port,
                setupCode: wrong,
                as: .user(owner)
            )
            Issue.record("paired with a wrong setup code")
        } catch {
            #expect(error == .accessory(.wrongSetupCode))
        }
        #expect(hub.graph == before)
        #expect(await hub.linkedDeviceIDs.isEmpty)
        #expect(try await ControllerPairingStore(folder: folder + "/controller").accessories().isEmpty)
        #expect(await bridge.server.advertisement?.statusFlags == 1, "the bridge is still unpaired")
        await hub.stop()
    }

    @Test func followsAccessoriesRemovedFromAndAddedToTheBridge() async throws {
        let (hub, bridge, homeID, added) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let events = await Recorder.start(await hub.subscribe(as: .user(owner)))
        let deviceID = try #require(await hub.linkedDeviceIDs.first)
        let firstNumber = try #require(await bridge.server.advertisement?.configurationNumber)
        await hub.noteAdvertisement(deviceID: deviceID, host: nil, port: nil, configurationNumber: firstNumber)

        let victim = try #require(added.first { $0.category == .lightbulb })
        try await bridge.simulator.removeAccessory(name: victim.name)
        let removedNumber = try await waitForNewConfigurationNumber(bridge, after: firstNumber)
        // Standing in for the mDNS browser, which sees c# change in the advertisement.
        await hub.noteAdvertisement(deviceID: deviceID, host: nil, port: nil, configurationNumber: removedNumber)
        _ = try await events.next("the removal") { event in
            if case .accessoryRemoved(let id) = event.change { return id == victim.id }
            return false
        }
        var home = try #require(hub.graph.home(withID: homeID))
        #expect(home.accessory(victim.id) == nil)
        for kept in added where kept.id != victim.id {
            #expect(home.accessory(kept.id) != nil, "\(kept.name) keeps its id")
        }

        let newAID = try await bridge.simulator.addAccessory(preset: "lightbulb", name: "Porch Lamp")
        let addedNumber = try await waitForNewConfigurationNumber(bridge, after: removedNumber)
        await hub.noteAdvertisement(deviceID: deviceID, host: nil, port: nil, configurationNumber: addedNumber)
        let addition = try await events.next("the addition") { event in
            if case .accessoryAdded(let accessory) = event.change { return accessory.accessoryInstanceID == newAID }
            return false
        }
        guard case .accessoryAdded(let porch) = addition.change else { return }
        #expect(porch.name == "Porch Lamp")
        #expect(porch.bridgeID == added.first { $0.bridgeID == nil }?.id)
        // The new accessory is subscribed: its events reach the graph.
        home = try #require(hub.graph.home(withID: homeID))
        let porchOn = try home.characteristic(ShortType.on, ofAccessoryNamed: "Porch Lamp")
        _ = try await events.next("notifications on") { event in
            if case .characteristicNotificationsChanged(let id, _, true) = event.change { return id == porchOn.id }
            return false
        }
        let now = porchOn.value == .bool(true)
        try await bridge.simulator.set(
            accessory: "\(newAID)",
            characteristic: "\(porchOn.instanceID)",
            value: .bool(!now)
        )
        _ = try await events.next("the new lamp's change") { $0.isValue(.bool(!now), of: porchOn.id) }
        await hub.stop()
    }

    @Test func anAccessoryRestartMakesItUnreachableThenReachableAndEventsFlowAgain() async throws {
        let (hub, bridge, homeID, added) = try await pairedHub()
        let events = await Recorder.start(await hub.subscribe(as: .user(owner)))
        let server = try #require(added.first { $0.bridgeID == nil })
        let lamp = try #require(added.first { $0.category == .lightbulb })
        let on = try #require(lamp.characteristics.first { $0.type == ShortType.on })

        await bridge.stop()
        _ = try await events.next("unreachable") { event in
            if case .accessoryReachabilityChanged(let id, false) = event.change { return id == server.id }
            return false
        }
        let restarted = try await bridge.restarted()
        defer { Task { await restarted.stop() } }
        _ = try await events.next("reachable") { event in
            if case .accessoryReachabilityChanged(let id, true) = event.change { return id == server.id }
            return false
        }
        let home = try #require(hub.graph.home(withID: homeID))
        #expect(home.accessories.allSatisfy { $0.isReachable })
        let now = try home.characteristic(ShortType.on, ofAccessoryNamed: lamp.name).value == .bool(true)
        try await restarted.simulator.set(
            accessory: "\(lamp.accessoryInstanceID)",
            characteristic: "\(on.instanceID)",
            value: .bool(!now)
        )
        _ = try await events.next("an event after the restart") { $0.isValue(.bool(!now), of: on.id) }
        await hub.stop()
    }

    @Test func aRestartedHubKeepsItsIdsAndReconnects() async throws {
        let folder = temporaryFolder()
        let (hub, bridge, homeID, added) = try await pairedHub(folder: folder)
        defer { Task { await bridge.stop() } }
        let before = try #require(hub.graph.home(withID: homeID))
        await hub.stop()

        let again = try await Hub(configuration: testConfiguration(folder: folder))
        let events = await Recorder.start(await again.subscribe(as: .user(owner)))
        try await again.start()
        #expect(await again.linkedDeviceIDs.count == 1)
        let after = try #require(await again.graph.home(withID: homeID))
        #expect(after.accessories.map(\.id) == before.accessories.map(\.id))
        #expect(
            after.accessories.flatMap(\.characteristics).map(\.id)
                == before.accessories.flatMap(\.characteristics).map(\.id)
        )

        let lamp = try #require(added.first { $0.category == .lightbulb })
        let on = try after.characteristic(ShortType.on, ofAccessoryNamed: lamp.name)
        let now = on.value == .bool(true)
        // The reconnected hub subscribes again on its own: a change in the simulator arrives (retried while the
        // new session is still being set up).
        var value = !now
        var arrived = false
        for _ in 0..<30 where !arrived {
            try await bridge.simulator.set(
                accessory: "\(lamp.accessoryInstanceID)",
                characteristic: "\(on.instanceID)",
                value: .bool(value)
            )
            let expected = value
            arrived =
                (try? await events.next("an event after the hub's restart", timeout: .seconds(2)) {
                    $0.isValue(.bool(expected), of: on.id)
                }) != nil
            value.toggle()
        }
        #expect(arrived)
        let results = try await again.writeCharacteristics(home: homeID, [(on.id, .bool(now))], as: .user(owner))
        #expect(results[on.id] == .success(.bool(now)))
        await again.stop()
    }

    @Test func pairingAgainAfterTheAccessoryForgotTheHubKeepsEveryID() async throws {
        let folder = temporaryFolder()
        let (hub, bridge, homeID, added) = try await pairedHub(folder: folder)
        defer { Task { await bridge.stop() } }
        let events = await Recorder.start(await hub.subscribe(as: .user(owner)))
        // As a reset would: the accessory forgets the hub's pairing (removed here with the hub's own identity).
        let store = ControllerPairingStore(folder: folder + "/controller")
        let record = try #require(try await store.accessories().first)
        let client = PairedAccessory(record: record, identity: try await store.identity(), logger: quietLogger())
        try await client.unpair()
        try await waitUntil("the bridge is unpaired") { await bridge.server.advertisement?.statusFlags == 1 }

        let again = try await hub.pairAccessory(
            home: homeID,
            host: "127.0.0.1",
            port: bridge.port,
            setupCode: try SetupCode(SimulatedBridge.setupCode),
            as: .user(owner)
        )
        #expect(Set(again.map(\.id)) == Set(added.map(\.id)))
        #expect(hub.graph.home(withID: homeID)?.accessories.count == added.count)
        #expect(await hub.linkedDeviceIDs.count == 1)
        let lamp = try #require(again.first { $0.category == .lightbulb })
        let on = try #require(lamp.characteristics.first { $0.type == ShortType.on })
        let now = on.value == .bool(true)
        try await bridge.simulator.set(
            accessory: "\(lamp.accessoryInstanceID)",
            characteristic: "\(on.instanceID)",
            value: .bool(!now)
        )
        _ = try await events.next("an event on the new pairing") { $0.isValue(.bool(!now), of: on.id) }
        await hub.stop()
    }

    @Test func removingABridgeUnpairsItAndRemovesItsAccessories() async throws {
        let folder = temporaryFolder()
        let (hub, bridge, homeID, added) = try await pairedHub(folder: folder)
        defer { Task { await bridge.stop() } }
        let server = try #require(added.first { $0.bridgeID == nil })
        let lamp = try #require(added.first { $0.bridgeID != nil })
        do {
            try await hub.removeAccessory(home: homeID, accessory: lamp.id, as: .user(owner))
            Issue.record("removed a bridged accessory alone")
        } catch {
            #expect(error.code == "invalidRequest")
        }
        let removal = try await hub.removeAccessory(home: homeID, accessory: server.id, as: .user(owner))
        #expect(removal.isUnpairedOnAccessory)
        #expect(Set(removal.removedAccessoryIDs) == Set(added.map(\.id)))
        #expect(hub.graph.home(withID: homeID)?.accessories.isEmpty == true)
        #expect(await hub.linkedDeviceIDs.isEmpty)
        #expect(try await ControllerPairingStore(folder: folder + "/controller").accessories().isEmpty)
        try await waitUntil("the bridge is unpaired") { await bridge.server.advertisement?.statusFlags == 1 }
        await hub.stop()
    }

    @Test func removingAnUnreachableBridgeRemovesItLocallyAndSaysSo() async throws {
        let (hub, bridge, homeID, added) = try await pairedHub()
        await bridge.stop()
        let server = try #require(added.first { $0.bridgeID == nil })
        let removal = try await hub.removeAccessory(home: homeID, accessory: server.id, as: .user(owner))
        #expect(removal.isUnpairedOnAccessory == false)
        #expect(hub.graph.home(withID: homeID)?.accessories.isEmpty == true)
        await hub.stop()
    }
}

/// Waits until the bridge advertises a configuration number other than `previous`.
func waitForNewConfigurationNumber(_ bridge: SimulatedBridge, after previous: Int) async throws -> Int {
    var number = previous
    try await waitUntil("c# changes") {
        number = await bridge.server.advertisement?.configurationNumber ?? previous
        return number != previous
    }
    return number
}
