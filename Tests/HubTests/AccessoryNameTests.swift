import Foundation
import HAP
import HomeGraph
import TestFixtures
import Testing

@testable import Hub

extension HubAccessoryTests {
    @Test func accessoriesWithHostileNamesAreCleanedNumberedAndNeverRefused() async throws {
        let (hub, bridge, homeID, _) = try await pairedHub()
        defer { Task { await bridge.stop() } }
        let events = await Recorder.start(await hub.subscribe(as: .user(owner)))
        let deviceID = try #require(await hub.linkedDeviceIDs.first)
        var number = try #require(await bridge.server.advertisement?.configurationNumber)
        await hub.noteAdvertisement(deviceID: deviceID, host: nil, port: nil, configurationNumber: number)
        // A room holds the longest name an accessory may have, so the accessory named the same must be numbered.
        let longest = String(repeating: "N", count: Names.maximumLength)
        try await hub.perform(.addRoom(home: homeID, id: UUID(), name: longest), as: .user(owner))

        let names = ["\u{1B}[31mPorch\u{7} Lamp\u{202E}", "[31mPorch\u{200B} Lamp", longest]
        var added: [Accessory] = []
        for name in names {
            let aid = try await bridge.simulator.addAccessory(preset: "lightbulb", name: name)
            number = try await waitForNewConfigurationNumber(bridge, after: number)
            await hub.noteAdvertisement(deviceID: deviceID, host: nil, port: nil, configurationNumber: number)
            let addition = try await events.next("the addition of \(name.debugDescription)") { event in
                if case .accessoryAdded(let accessory) = event.change { return accessory.accessoryInstanceID == aid }
                return false
            }
            guard case .accessoryAdded(let accessory) = addition.change else { return }
            added.append(accessory)
        }
        #expect(
            added.map(\.name) == [
                "[31mPorch Lamp", "[31mPorch\u{200B} Lamp 2", String(repeating: "N", count: 62) + " 2",
            ]
        )
        for accessory in added {
            #expect(Names.problem(with: accessory.name) == nil, "\(accessory.name.debugDescription)")
            #expect(accessory.services.allSatisfy { Names.problem(with: $0.name) == nil })
        }
        await hub.stop()
    }
}
