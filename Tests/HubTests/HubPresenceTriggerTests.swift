import Automation
import Foundation
import HomeGraph
import Hub
import TestSupport
import Testing

/// Presence triggers run by the hub from presence the users report themselves.
@Suite struct HubPresenceTriggerTests {
    @Test func firstEntryAndLastExitWithTwoUsers() async throws {
        let folder = NSTemporaryDirectory() + "presence-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        let hub = try await Hub(configuration: .init(stateFolder: folder, clock: clock))
        let (ada, bo) = (UUID(), UUID())
        let home = try await hub.addHome(name: "Linden", ownerName: "Ada", as: .user(ada)).id
        try await hub.perform(.addUser(home: home, id: bo, name: "Bo", role: .shared), as: .user(ada))
        try await hub.perform(
            .setLocation(home: home, location: Location(latitude: 52.52, longitude: 13.405)),
            as: .user(ada)
        )
        func add(_ name: String, _ change: PresenceChange) async throws -> UUID {
            let id = UUID()
            let definition = TriggerDefinition(events: [.presence(change: change, users: .everyUser)])
            try await hub.perform(
                .addTrigger(home: home, trigger: Trigger(id: id, name: name, definition: definition, creatorID: ada)),
                as: .user(ada)
            )
            return id
        }
        let first = try await add("First home", .firstEntry)
        let last = try await add("Last out", .lastExit)
        try await hub.start()
        defer { Task { await hub.stop() } }
        func fired(_ trigger: UUID) async -> Int {
            await hub.automationState(ofTrigger: trigger, inHome: home)?.decisions.filter { $0.outcome == .fired }
                .count ?? 0
        }
        func report(_ user: UUID, home isHome: Bool) async throws {
            clock.advance(by: 60)
            _ = try await hub.reportPresence(home: home, isHome: isHome, position: nil, as: .user(user))
        }

        try await report(ada, home: true)
        try await waitUntil("the first entry fired") { await fired(first) == 1 }
        try await report(bo, home: true)
        try await report(ada, home: false)
        #expect(await fired(first) == 1, "Bo came home to Ada: not the first")
        #expect(await fired(last) == 0, "Bo is still home: not the last")
        // Bo reports a position 5 km away: outside the home's 100 m, so Bo left, the last one out.
        clock.advance(by: 60)
        _ = try await hub.reportPresence(
            home: home,
            isHome: nil,
            position: Location(latitude: 52.565, longitude: 13.405),
            as: .user(bo)
        )
        try await waitUntil("the last exit fired") { await fired(last) == 1 }
        #expect(await fired(first) == 1)
        let decision = try #require(await hub.automationState(ofTrigger: last, inHome: home)?.decisions.last)
        #expect(decision.cause == "Bo left, the last one out")
        // The decisions reach the graph (the home's history) with the next group commit.
        try await waitUntil("the decision is stored") {
            hub.graph.home(withID: home)?.triggers.first { $0.id == last }?.state.decisions.last?.cause
                == decision.cause
        }
    }
}
