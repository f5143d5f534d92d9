import Foundation
import HAP
import HomeGraph
import Hub
import Synchronization
import TestFixtures
import Testing

/// A hub on a fresh state folder with one home owned by `owner`, an administrator and a shared user.
struct HubFixture {
    let hub: Hub
    let folder: String
    let home: Home
    let owner = UUID()
    let admin = UUID()
    let guest = UUID()
    let stranger = UUID()

    init() async throws {
        folder = NSTemporaryDirectory() + "hub-\(UUID().uuidString)"
        hub = try await Hub(configuration: .init(stateFolder: folder))
        home = try await hub.addHome(name: "Maple Street", ownerName: "Ada", as: .user(owner))
        try await hub.perform(.addUser(home: home.id, id: admin, name: "Bo", role: .administrator), as: .user(owner))
        try await hub.perform(.addUser(home: home.id, id: guest, name: "Cy", role: .shared), as: .user(admin))
    }

    /// Adds a lamp as the hub does after pairing: On (bool, writable, notifying) and Brightness (0–100).
    func addLamp(_ name: String) async throws -> Accessory {
        let lamp = Accessory.testLamp(named: name, roomID: home.roomForEntireHome.id)
        try await hub.perform(.addAccessory(home: home.id, accessory: lamp), as: .hub)
        return lamp
    }

    func stop() async {
        await hub.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

@Suite struct HubAccessTests {
    @Test func theCreatorOwnsTheHomeAndEveryRoleSeesIt() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let graph = fixture.hub.graph
        #expect(graph.role(of: .user(fixture.owner), inHome: fixture.home.id) == .owner)
        #expect(graph.role(of: .user(fixture.admin), inHome: fixture.home.id) == .administrator)
        #expect(graph.role(of: .user(fixture.guest), inHome: fixture.home.id) == .shared)
        #expect(graph.homes(visibleTo: .user(fixture.guest)).map(\.id) == [fixture.home.id])
        #expect(graph.homes(visibleTo: .user(fixture.stranger)).isEmpty)
    }

    @Test func aSharedUserIsRefusedEveryConfigurationAndTheHomeIsUnchanged() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let lamp = try await fixture.addLamp("Desk")
        let room = UUID()
        try await fixture.hub.perform(.addRoom(home: fixture.home.id, id: room, name: "Hall"), as: .user(fixture.admin))
        let h = fixture.home.id
        let service = lamp.services[0].id
        let configuration: [HomeOperation] = [
            .renameHome(h, name: "Elm"), .setPrimaryHome(h), .setTimeZone(home: h, identifier: "Europe/Paris"),
            .setLocation(home: h, location: nil), .addRoom(home: h, id: UUID(), name: "Attic"),
            .renameRoom(home: h, room: room, name: "Lobby"), .removeRoom(home: h, room: room),
            .addZone(home: h, id: UUID(), name: "Up"), .renameAccessory(home: h, accessory: lamp.id, name: "Lamp"),
            .moveAccessory(home: h, accessory: lamp.id, room: room),
            .renameService(home: h, service: service, name: "L"),
            .addServiceGroup(home: h, id: UUID(), name: "Lamps", serviceIDs: [service]),
            .addActionSet(home: h, id: UUID(), name: "Night"), .addUser(home: h, id: UUID(), name: "Di", role: .shared),
            .removeUser(home: h, user: fixture.admin), .setRole(home: h, user: fixture.guest, role: .administrator),
            .removeHome(h),
        ]
        let before = fixture.hub.graph
        for operation in configuration {
            await #expect(throws: HubError.self) { try await fixture.hub.perform(operation, as: .user(fixture.guest)) }
        }
        #expect(fixture.hub.graph == before)
    }

    @Test func aSharedUserControlsButValuesOnlyComeFromTheHub() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let lamp = try await fixture.addLamp("Desk")
        let on = lamp.services[0].characteristics[0].id
        try await fixture.hub.perform(
            .setNotifications(home: fixture.home.id, characteristic: on, isEnabled: true),
            as: .user(fixture.guest)
        )
        for caller in [fixture.guest, fixture.owner] {
            let error = await #expect(throws: HubError.self) {
                try await fixture.hub.perform(
                    .updateCharacteristicValue(home: fixture.home.id, characteristic: on, value: .bool(true)),
                    as: .user(caller)
                )
            }
            guard case .notPermitted = error else {
                Issue.record("expected notPermitted, got \(String(describing: error))"); continue
            }
        }
    }

    @Test func onlyTheOwnerRemovesTheHomeOrHandsOutOwnership() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let h = fixture.home.id
        let error = await #expect(throws: HubError.self) {
            try await fixture.hub.perform(.removeHome(h), as: .user(fixture.admin))
        }
        #expect(error == .notPermitted("only the home's owner may do this"))
        await #expect(throws: HubError.self) {
            try await fixture.hub.perform(
                .setRole(home: h, user: fixture.admin, role: .owner),
                as: .user(fixture.admin)
            )
        }
        try await fixture.hub.perform(.removeHome(h), as: .user(fixture.owner))
        #expect(fixture.hub.graph.homes.isEmpty)
    }

    @Test func anAdministratorCannotDemoteOrRemoveTheOwner() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let h = fixture.home.id
        let before = fixture.hub.graph
        for operation: HomeOperation in [
            .removeUser(home: h, user: fixture.owner), .setRole(home: h, user: fixture.owner, role: .shared),
            .setRole(home: h, user: fixture.owner, role: .administrator),
        ] {
            let error = await #expect(throws: HubError.self) {
                try await fixture.hub.perform(operation, as: .user(fixture.admin))
            }
            #expect(error == .notPermitted("only the home's owner may change or remove the owner"))
            #expect(error?.httpStatus == 403)
        }
        #expect(fixture.hub.graph == before)
    }

    @Test func theOwnerCannotLeaveTheHomeWithoutAnOwner() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let h = fixture.home.id
        let before = fixture.hub.graph
        for operation: HomeOperation in [
            .removeUser(home: h, user: fixture.owner), .setRole(home: h, user: fixture.owner, role: .administrator),
        ] {
            let error = await #expect(throws: HubError.self) {
                try await fixture.hub.perform(operation, as: .user(fixture.owner))
            }
            #expect(error?.httpStatus == 409)
            #expect(error?.sentence.contains("keeps its owner") == true)
        }
        #expect(fixture.hub.graph == before)
        // The owner still removes and demotes others, and an administrator still removes a shared user.
        try await fixture.hub.perform(.setRole(home: h, user: fixture.admin, role: .shared), as: .user(fixture.owner))
        try await fixture.hub.perform(.removeUser(home: h, user: fixture.guest), as: .user(fixture.owner))
        #expect(fixture.hub.graph.role(of: .user(fixture.owner), inHome: h) == .owner)
    }

    @Test func aStrangerIsToldTheHomeDoesNotExist() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let error = await #expect(throws: HubError.self) {
            try await fixture.hub.perform(
                .addRoom(home: fixture.home.id, id: UUID(), name: "Attic"),
                as: .user(fixture.stranger)
            )
        }
        #expect(error == .homeNotFound(fixture.home.id))
        #expect(error?.httpStatus == 404)
        await #expect(throws: HubError.self) {
            try await fixture.hub.changes(after: 0, inHome: fixture.home.id, as: .user(fixture.stranger))
        }
    }

    @Test func onePersonOwnsOneHomeAndIsSharedInAnother() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let second = try await fixture.hub.addHome(name: "Cabin", ownerName: "Cy", as: .user(fixture.guest))
        try await fixture.hub.perform(
            .addUser(home: second.id, id: fixture.owner, name: "Ada", role: .shared),
            as: .user(fixture.guest)
        )
        let graph = fixture.hub.graph
        #expect(graph.role(of: .user(fixture.guest), inHome: second.id) == .owner)
        #expect(graph.role(of: .user(fixture.owner), inHome: second.id) == .shared)
        #expect(graph.homes(visibleTo: .user(fixture.owner)).count == 2)
        #expect(graph.primaryHome?.id == fixture.home.id)
    }

    @Test func errorsNameTheirCodeAndStatus() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        try await fixture.hub.perform(
            .addRoom(home: fixture.home.id, id: UUID(), name: "Hall"),
            as: .user(fixture.owner)
        )
        let error = await #expect(throws: HubError.self) {
            try await fixture.hub.perform(
                .addRoom(home: fixture.home.id, id: UUID(), name: " hALL "),
                as: .user(fixture.owner)
            )
        }
        #expect(error?.code == "nameTaken")
        #expect(error?.httpStatus == 409)
    }
}

@Suite struct HubEventTests {
    @Test func membersHearOfChangesAndOthersDoNot() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let guestEvents = await fixture.hub.subscribe(as: .user(fixture.guest))
        let strangerEvents = await fixture.hub.subscribe(as: .user(fixture.stranger))
        let other = try await fixture.hub.addHome(name: "Cabin", ownerName: "Di", as: .user(fixture.stranger))
        let room = UUID()
        try await fixture.hub.perform(.addRoom(home: fixture.home.id, id: room, name: "Hall"), as: .user(fixture.owner))
        // The guest is then removed: they hear of their removal and nothing after it.
        try await fixture.hub.perform(.removeUser(home: fixture.home.id, user: fixture.guest), as: .user(fixture.owner))
        try await fixture.hub.perform(
            .renameRoom(home: fixture.home.id, room: room, name: "Lobby"),
            as: .user(fixture.owner)
        )

        var guest = guestEvents.makeAsyncIterator()
        let first = try #require(await guest.next())
        #expect(first.change == .roomAdded(Room(id: room, name: "Hall")))
        let second = try #require(await guest.next())
        #expect(second.change == .userRemoved(user: fixture.guest))
        #expect(second.sequence == first.sequence + 1)

        var stranger = strangerEvents.makeAsyncIterator()
        let strangerFirst = try #require(await stranger.next())
        #expect(strangerFirst.homeID == other.id)
        await fixture.hub.stop()
        #expect(await guest.next() == nil)
        // Only the stranger's own home: its addition and the owner joining it.
        let rest = await drain(stranger)
        #expect(rest.allSatisfy { $0.homeID == other.id })
    }

    @Test func callbackSubscribersGetTheirHomesEventsInOrderUntilTheyUnsubscribe() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let guestSeen = Mutex<[HomeEvent]>([])
        let strangerSeen = Mutex<[HomeEvent]>([])
        let ended = Mutex(0)
        let guest = await fixture.hub.subscribe(
            as: .user(fixture.guest),
            onEvent: { event in guestSeen.withLock { $0.append(event) } },
            onEnd: { ended.withLock { $0 += 1 } }
        )
        _ = await fixture.hub.subscribe(
            as: .user(fixture.stranger),
            onEvent: { event in strangerSeen.withLock { $0.append(event) } },
            onEnd: { ended.withLock { $0 += 1 } }
        )
        for name in ["Hall", "Den", "Loft"] {
            try await fixture.hub.perform(
                .addRoom(home: fixture.home.id, id: UUID(), name: name),
                as: .user(fixture.owner)
            )
        }
        // Delivered on the hub's actor before perform returns: nothing to wait for.
        let sequences = guestSeen.withLock { $0.map(\.sequence) }
        #expect(sequences.count == 3)
        #expect(sequences == Array(sequences.sorted()))
        #expect(guestSeen.withLock { $0.allSatisfy { $0.homeID == fixture.home.id } })
        #expect(strangerSeen.withLock { $0.isEmpty })

        await fixture.hub.unsubscribe(guest)
        try await fixture.hub.perform(
            .addRoom(home: fixture.home.id, id: UUID(), name: "Attic"),
            as: .user(fixture.owner)
        )
        #expect(guestSeen.withLock { $0.count } == 3)
        await fixture.hub.stop()
        // Only the subscription still open hears that the hub stopped; one made afterwards ends at once.
        #expect(ended.withLock { $0 } == 1)
        _ = await fixture.hub.subscribe(
            as: .user(fixture.owner),
            onEvent: { _ in },
            onEnd: { ended.withLock { $0 += 1 } }
        )
        #expect(ended.withLock { $0 } == 2)
    }

    @Test func eventsOfOneHomeArriveInSequenceOrderFromConcurrentCallers() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let events = await fixture.hub.subscribe(as: .user(fixture.owner))
        let hub = fixture.hub
        let home = fixture.home.id
        let owner = fixture.owner
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await hub.perform(.addRoom(home: home, id: UUID(), name: "Room \(index)"), as: .user(owner))
                }
            }
            try await group.waitForAll()
        }
        await fixture.hub.stop()
        let sequences = await drain(events.makeAsyncIterator()).map(\.sequence)
        #expect(sequences.count == 40)
        #expect(sequences == Array(sequences.sorted()))
        #expect(Set(sequences).count == 40)
    }

    @Test func aResumingClientGetsExactlyWhatItMissed() async throws {
        let fixture = try await HubFixture()
        defer { Task { await fixture.stop() } }
        let start = fixture.hub.graph.lastSequence(ofHome: fixture.home.id)
        for name in ["Hall", "Den", "Loft"] {
            try await fixture.hub.perform(
                .addRoom(home: fixture.home.id, id: UUID(), name: name),
                as: .user(fixture.owner)
            )
        }
        let missed = try await fixture.hub.changes(after: start + 1, inHome: fixture.home.id, as: .user(fixture.guest))
        guard case .events(let events) = missed else {
            Issue.record("expected events, got \(missed)")
            return
        }
        #expect(events.map(\.sequence) == [start + 2, start + 3])
    }
}

/// Every event left in a finished stream.
func drain(_ iterator: AsyncStream<HomeEvent>.Iterator) async -> [HomeEvent] {
    var iterator = iterator
    var events: [HomeEvent] = []
    while let event = await iterator.next() { events.append(event) }
    return events
}
