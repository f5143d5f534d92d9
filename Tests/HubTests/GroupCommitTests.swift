import Automation
import Foundation
import HAP
import HAPController
import HAPTypes
import HomeGraph
import TestFixtures
import Testing

@testable import Hub

/// Value reports wait for the group commit's window on the hub's loop, then are acknowledged together;
/// `commitReports()` acknowledges what is queued at once, and so does the answer to the last firing's writes.
struct GroupCommitTests {
    let owner = UUID()

    @Test func reportsWithinTheWindowAreAcknowledgedTogetherAndCommitReportsDoesNotWait() async throws {
        let bridge = try await SimulatedBridge.start()
        var configuration = testConfiguration(folder: temporaryFolder())
        // Long enough that a loaded machine does not reach it between two reports and the first look.
        configuration.reportWindow = .seconds(3)
        let hub = try await Hub(configuration: configuration)
        try await hub.start()
        let home = try await hub.addHome(name: "Window Lane", ownerName: "Ada", as: .user(owner)).id
        let added = try await hub.pairAccessory(
            home: home,
            host: "127.0.0.1",
            port: bridge.port,
            setupCode: try SetupCode(SimulatedBridge.setupCode),
            as: .user(owner)
        )
        let lamp = try #require(added.first { $0.category == .lightbulb })
        let device = try #require(lamp.deviceID?.description)
        let on = try #require(lamp.characteristics.first { $0.type == ShortType.on })
        let brightness = try #require(lamp.characteristics.first { $0.type == ShortType.brightness })
        func hap(_ characteristic: Characteristic) -> CharacteristicID {
            CharacteristicID(accessoryID: lamp.accessoryInstanceID, instanceID: characteristic.instanceID)
        }
        func stored(_ characteristic: Characteristic) throws -> HAPValue? {
            try hub.graph.characteristic(withID: characteristic.id, inHome: home).characteristic.value
        }
        let lit = HAPValue.bool(try stored(on) != .bool(true))
        #expect(try stored(brightness) != .int(37))
        let startedAt = ContinuousClock.now
        await hub.accessoryReported(deviceID: device, changes: [CharacteristicValueChange(id: hap(on), value: lit)])
        await hub.accessoryReported(
            deviceID: device,
            changes: [CharacteristicValueChange(id: hap(brightness), value: .int(37))]
        )
        // Inside the window nothing is acknowledged yet (unless the machine stalled past it).
        if ContinuousClock.now - startedAt < .seconds(2) {
            #expect(try stored(on) != lit)
            #expect(try stored(brightness) != .int(37))
        }
        // Then both together: whichever is seen first, the other is there too.
        let deadline = ContinuousClock.now + .seconds(30)
        while try stored(on) != lit && stored(brightness) != .int(37) {
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try stored(on) == lit)
        #expect(try stored(brightness) == .int(37))
        #expect(ContinuousClock.now - startedAt >= .seconds(3))

        // commitReports() acknowledges what is queued now, without the window.
        await hub.accessoryReported(
            deviceID: device,
            changes: [CharacteristicValueChange(id: hap(brightness), value: .int(64))]
        )
        let asked = ContinuousClock.now
        await hub.commitReports()
        #expect(try stored(brightness) == .int(64))
        #expect(ContinuousClock.now - asked < .seconds(2))
        await hub.stop()
        await bridge.server.stop()
    }

    @Test func aFiringIsCommittedWhenItsWritesAreAnsweredNotWhenTheWindowEnds() async throws {
        let rig = try await SimulatedHome(
            presets: ["lightbulb", "lightbulb"],
            timeZone: "Europe/Berlin",
            start: try SimulatedHome.instant("Europe/Berlin", 2025, 3, 12, 12, 0),
            reportWindow: .seconds(600)
        )
        try await rig.run { rig in
            let first = try rig.characteristic(AutomationType.on, of: "Lightbulb 1")
            let second = try rig.characteristic(AutomationType.on, of: "Lightbulb 2")
            let scene = try await rig.scene(
                "Second on",
                [Action(characteristicID: second.id, targetValue: .bool(true))]
            )
            let trigger = try await rig.trigger(
                "Follow the first",
                runs: [scene],
                TriggerDefinition(events: [.characteristic(id: first.id, value: .bool(true))])
            )
            let startedAt = ContinuousClock.now
            _ = try await rig.hub.writeCharacteristics(
                home: rig.homeID,
                [(characteristic: first.id, value: .bool(true))],
                as: .user(rig.owner)
            )
            // The window is ten minutes; the waits give up after one. The decision, with its write's outcome, and
            // the second lamp's new value are acknowledged once the accessory answered the write.
            let decisions = try await rig.waitForDecisions(trigger, count: 1)
            #expect(decisions.last?.outcome == .fired)
            #expect(decisions.last?.writes.map(\.error) == [nil])
            try await rig.waitForHub(second.id, .bool(true))
            #expect(ContinuousClock.now - startedAt < .seconds(120))
            #expect(try await rig.accessoryValue("Lightbulb 2", "on") == "true")
        }
    }
}
