import Foundation
import HAP
import HAPAccessoryServer
import Simulator
import TestFixtures
import Testing

@testable import HAPController

@Suite struct ReconnectTests {
    @Test func reconnectsResubscribesAndDeliversTheNextEventAfterARestart() async throws {
        let first = try await SimulatedBridge.start()
        let client = try await first.pairedClient()
        let reachability = await Recorder.start(client.reachability)
        let events = await Recorder.start(client.events)
        let on = try await first.id(ShortType.on, accessoryID: 2)
        try await client.connect()
        #expect(try await reachability.next() == true)
        try await client.subscribe([on])

        let identifiers = await first.simulator.identifiers
        await first.stop()
        #expect(try await reachability.next() == false)

        let second = try await SimulatedBridge.start(port: first.port, store: first.store, identifiers: identifiers)
        defer { Task { await second.stop() } }
        #expect(try await reachability.next() == true)
        try await second.simulator.set(accessory: "2", characteristic: "\(on.instanceID)", value: .bool(true))
        let event = try await events.next()
        #expect(event == .valuesChanged([CharacteristicValueChange(id: on, value: .bool(true))]))
        await client.close()
    }

    @Test func followsAnAccessoryToANewAddress() async throws {
        let first = try await SimulatedBridge.start()
        let client = try await first.pairedClient()
        let reachability = await Recorder.start(client.reachability)
        let events = await Recorder.start(client.events)
        let on = try await first.id(ShortType.on, accessoryID: 2)
        try await client.connect()
        #expect(try await reachability.next() == true)
        try await client.subscribe([on])

        let identifiers = await first.simulator.identifiers
        await first.stop()
        #expect(try await reachability.next() == false)
        let moved = try await SimulatedBridge.start(store: first.store, identifiers: identifiers)
        defer { Task { await moved.stop() } }
        #expect(moved.port != first.port)
        await client.noteAddress(host: "127.0.0.1", port: moved.port)
        #expect(try await reachability.next() == true)
        try await moved.simulator.set(accessory: "2", characteristic: "\(on.instanceID)", value: .bool(true))
        #expect(try await events.next() == .valuesChanged([CharacteristicValueChange(id: on, value: .bool(true))]))
        #expect(await client.currentRecord.port == moved.port)
        await client.close()
    }

    @Test func noticesAConfigurationNumberChangeAndReadsTheDatabaseAgain() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let advertisements = await Recorder.start(bridge.server.advertisements)
        let client = try await bridge.pairedClient()
        let events = await Recorder.start(client.events)
        let before = try await client.accessories()
        let firstNumber = try await advertisements.next().configurationNumber
        await client.noteConfigurationNumber(firstNumber)

        let newID = try await bridge.simulator.addAccessory(preset: "lightbulb", name: "New Lamp")
        let changed = try await advertisements.next { $0.configurationNumber != firstNumber }
        await client.noteConfigurationNumber(changed.configurationNumber)
        let event = try await events.next()
        guard case .databaseChanged(let database) = event else {
            Issue.record("expected a database change, got \(event)")
            return
        }
        #expect(database.accessories.count == before.accessories.count + 1)
        #expect(database.accessory(withID: newID) != nil)
        #expect(try await client.accessories() == database)
        #expect(await client.configurationNumber == changed.configurationNumber)
        await client.close()
    }

    @Test func anEventForACharacteristicMissingFromTheDatabaseIsATypedErrorAndEventsGoOn() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        let events = await Recorder.start(client.events)
        _ = try await client.accessories()
        // The accessory grows, but the controller is not told of the new c#: its database is now stale.
        let newID = try await bridge.simulator.addAccessory(preset: "lightbulb", name: "Stale Lamp")
        let unknown = try await bridge.id(ShortType.on, accessoryID: newID)
        let known = try await bridge.id(ShortType.on, accessoryID: 2)
        try await client.subscribe([unknown, known])
        try await bridge.simulator.set(
            accessory: "\(newID)",
            characteristic: "\(unknown.instanceID)",
            value: .bool(true)
        )
        #expect(try await events.next() == .invalidEvent(.unknownCharacteristic(unknown)))
        try await bridge.simulator.set(accessory: "2", characteristic: "\(known.instanceID)", value: .bool(true))
        #expect(try await events.next() == .valuesChanged([CharacteristicValueChange(id: known, value: .bool(true))]))
        await client.close()
    }

    @Test("backoff doubles from 0.25 s up to 30 s with ±20 % jitter")
    func backoffDoublesUpToTheCapWithJitter() {
        let low = ReconnectBackoff(random: { 0 })
        let middle = ReconnectBackoff(random: { 0.5 })
        let high = ReconnectBackoff(random: { 0.999_999 })
        #expect(middle.delay(forAttempt: 0) == .milliseconds(250))
        #expect(middle.delay(forAttempt: 1) == .milliseconds(500))
        #expect(middle.delay(forAttempt: 3) == .seconds(2))
        #expect(middle.delay(forAttempt: 20) == .seconds(30))
        #expect(low.delay(forAttempt: 0) == .milliseconds(200))
        #expect(low.delay(forAttempt: 50) == .seconds(24))
        #expect(high.delay(forAttempt: 50) < .seconds(36))
        #expect(high.delay(forAttempt: 50) > .milliseconds(35_999))
    }
}
