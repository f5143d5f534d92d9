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

/// The hub against a simulated bridge that misbehaves on purpose (docs/simulator.md, faults), next to a healthy one:
/// the faulty one is marked unreachable where the fault makes it so, the hub retries with backoff, the healthy one
/// keeps answering at once, and the faulty one comes back by itself, without pairing again, once the fault is off.
@Suite(.serialized)
struct HubFaultTests {
    let owner = UUID()

    /// The hub's answer timeout in these tests: a request the accessory never answers fails after this.
    ///
    /// Twice the slow fault's 300 ms and more, so a loaded machine (three test groups on two cores) does not turn
    /// slow into too slow.
    static let requestTimeout = Duration.seconds(2)

    /// A hub, a faulty bridge (three dimmable lamps and a sensor) and a healthy one (an outlet), both paired.
    struct Setup {
        var hub: Hub
        var home: UUID
        var faulty: SimulatedBridge
        var healthy: SimulatedBridge
        /// The faulty bridge's own accessory (aid 1): its reachability is the link's.
        var faultyServer: UUID
        var faultyOn: UUID
        var faultyBrightness: UUID
        var faultyLampAID: UInt64
        var faultyOnIID: UInt64
        var healthyOn: UUID
        var events: Recorder<HomeEvent>

        func stop() async {
            await hub.stop()
            await faulty.stop()
            await healthy.stop()
        }
    }

    func start(faults: [String]? = nil) async throws -> Setup {
        var description = SimulatedBridge.description
        description.faults = faults
        let faulty = try await SimulatedBridge.start(description: description)
        let healthy = try await SimulatedBridge.start(
            description: SimulatorDescription(
                bridgeName: "Healthy Bridge",
                presets: [PresetRequest(preset: .outlet, count: 1)]
            )
        )
        var configuration = testConfiguration(folder: temporaryFolder())
        configuration.accessoryLinks.timeouts = ConnectionTimeouts(connect: .seconds(2), request: Self.requestTimeout)
        let hub = try await Hub(configuration: configuration)
        try await hub.start()
        let home = try await hub.addHome(name: "Fault Lane", ownerName: "Ada", as: .user(owner)).id
        let code = try SetupCode(SimulatedBridge.setupCode)
        let faultyAdded = try await hub.pairAccessory(
            home: home,
            host: "127.0.0.1",
            port: faulty.port,
            setupCode: code,
            as: .user(owner)
        )
        let healthyAdded = try await hub.pairAccessory(
            home: home,
            host: "127.0.0.1",
            port: healthy.port,
            setupCode: code,
            as: .user(owner)
        )
        let server = try #require(faultyAdded.first { $0.bridgeID == nil })
        let lamp = try #require(faultyAdded.first { $0.category == .lightbulb })
        let on = try #require(lamp.characteristics.first { $0.type == ShortType.on })
        let brightness = try #require(lamp.characteristics.first { $0.type == ShortType.brightness })
        let outlet = try #require(healthyAdded.first { $0.category == .outlet })
        let outletOn = try #require(outlet.characteristics.first { $0.type == ShortType.on })
        let events = await Recorder.start(await hub.subscribe(as: .user(owner)))
        return Setup(
            hub: hub,
            home: home,
            faulty: faulty,
            healthy: healthy,
            faultyServer: server.id,
            faultyOn: on.id,
            faultyBrightness: brightness.id,
            faultyLampAID: lamp.accessoryInstanceID,
            faultyOnIID: on.instanceID,
            healthyOn: outletOn.id,
            events: events
        )
    }

    // MARK: Helpers

    /// Writes one value through the hub; the outcome and how long it took.
    func write(
        _ setup: Setup,
        _ characteristic: UUID,
        _ value: HAPValue
    ) async throws -> (Result<HAPValue, HubError>?, Duration) {
        let started = ContinuousClock.now
        let results = try await setup.hub.writeCharacteristics(
            home: setup.home,
            [(characteristic, value)],
            as: .user(owner)
        )
        return (results[characteristic], ContinuousClock.now - started)
    }

    /// The healthy bridge answers writes quickly while the faulty one misbehaves, even with a write to the faulty
    /// one in flight.
    func healthyKeepsAnswering(_ setup: Setup, whileWritingFaulty: Bool = true) async throws {
        let faultyWrite: Task<Void, Never>? =
            whileWritingFaulty
            ? Task { _ = try? await write(setup, setup.faultyOn, .bool(true)) } : nil
        for round in 0..<3 {
            let (result, took) = try await write(setup, setup.healthyOn, .bool(round % 2 == 0))
            #expect(result == .success(.bool(round % 2 == 0)), "healthy write \(round): \(String(describing: result))")
            #expect(took < .seconds(2), "healthy write \(round) took \(took)")
        }
        await faultyWrite?.value
    }

    /// Waits for the faulty bridge's reachability event.
    func waitReachable(_ setup: Setup, _ reachable: Bool) async throws {
        let server = setup.faultyServer
        _ = try await setup.events.next(reachable ? "reachable again" : "unreachable", timeout: .seconds(60)) {
            if case .accessoryReachabilityChanged(let id, let value) = $0.change {
                return id == server && value == reachable
            }
            return false
        }
    }

    /// Once the faults are off: the faulty bridge is reachable, takes writes and sends events, with the pairing
    /// it had (no pair-setup again).
    func recovers(_ setup: Setup) async throws {
        await setup.faulty.faults.clearAll()
        let pairings = await setup.faulty.server.pairings
        try await waitUntil("the faulty bridge reachable", timeout: .seconds(60), every: .milliseconds(50)) {
            setup.hub.graph.home(withID: setup.home)?.accessory(setup.faultyServer)?.isReachable == true
        }
        var last: Result<HAPValue, HubError>?
        try await waitUntil("a write to the faulty bridge succeeds", timeout: .seconds(60), every: .milliseconds(100)) {
            last = try await write(setup, setup.faultyOn, .bool(false)).0
            return last == .success(.bool(false))
        }
        try await setup.faulty.simulator.set(
            accessory: "\(setup.faultyLampAID)",
            characteristic: "\(setup.faultyOnIID)",
            value: .bool(true)
        )
        let on = setup.faultyOn
        _ = try await setup.events.next("an event from the recovered bridge") { $0.isValue(.bool(true), of: on) }
        #expect(await setup.faulty.server.pairings == pairings)
        #expect(await setup.faulty.server.pairings.isPaired)
    }

    // MARK: Tests

    @Test func dropAfterRequestsIsReconnectedWithBackoffAndRecovers() async throws {
        let setup = try await start()
        defer { Task { await setup.stop() } }
        let accepted = setup.faulty.server.faults?.acceptedConnections ?? 0
        try await setup.faulty.faults.set(.dropAfter(requests: 1))
        _ = try await write(setup, setup.faultyOn, .bool(true))
        try await waitReachable(setup, false)
        try await healthyKeepsAnswering(setup)
        // The hub came back: each session answers one request (the re-subscription), then is dropped again.
        try await waitUntil("reconnect attempts", every: .milliseconds(50)) {
            (setup.faulty.server.faults?.acceptedConnections ?? 0) >= accepted + 2
        }
        try await recovers(setup)
    }

    @Test func aSlowAccessoryIsWaitedForAndATooSlowOneTimesOut() async throws {
        let setup = try await start(faults: ["slow:300"])
        defer { Task { await setup.stop() } }
        let (result, took) = try await write(setup, setup.faultyOn, .bool(true))
        #expect(result == .success(.bool(true)))
        #expect(took >= .milliseconds(300), "a slow answer came after \(took)")
        try await healthyKeepsAnswering(setup)
        // Slower than the hub waits (random in 3–4 s, seeded): the request times out, the link is reset.
        try await setup.faulty.faults.set(try SimulatorFault(parsing: "slow:3000-4000:7"))
        let (slow, _) = try await write(setup, setup.faultyOn, .bool(false))
        guard case .failure(.accessory) = slow else {
            Issue.record("a write slower than the timeout: \(String(describing: slow))")
            return
        }
        try await waitReachable(setup, false)
        try await recovers(setup)
    }

    @Test func anAccessoryThatStopsAnsweringTimesOutWithoutBlockingOthers() async throws {
        let setup = try await start()
        defer { Task { await setup.stop() } }
        try await setup.faulty.faults.set(.stopAnswering)
        try await healthyKeepsAnswering(setup)
        let (result, took) = try await write(setup, setup.faultyOn, .bool(true))
        guard case .failure(.accessory) = result else {
            Issue.record("a write nobody answers: \(String(describing: result))")
            return
        }
        #expect(took < .seconds(20), "the hub gave up after \(took)")
        try await waitReachable(setup, false)
        try await recovers(setup)
    }

    @Test(arguments: ["malformed-frame", "wrong-length:+1", "wrong-length:-1"])
    func aBrokenAnswerResetsTheSessionAndRecovers(fault: String) async throws {
        let setup = try await start()
        defer { Task { await setup.stop() } }
        try await setup.faulty.faults.set(try SimulatorFault(parsing: fault))
        // A read: its answer has a body (a write's 204 has none, so its length cannot be wrong).
        let result = try await setup.hub.readCharacteristics(home: setup.home, [setup.faultyOn], as: .user(owner))[
            setup.faultyOn
        ]
        guard case .failure(.accessory) = result else {
            Issue.record("\(fault): \(String(describing: result))")
            return
        }
        try await waitReachable(setup, false)
        try await healthyKeepsAnswering(setup)
        try await recovers(setup)
    }

    @Test func aRefusedPairVerifyIsRetriedWithBackoffNotInATightLoop() async throws {
        let setup = try await start()
        defer { Task { await setup.stop() } }
        try await setup.faulty.faults.set(.refusePairVerify)
        let before = setup.faulty.server.faults?.pairVerifyAttempts ?? 0
        await setup.faulty.server.closeAllConnections()
        try await waitReachable(setup, false)
        try await healthyKeepsAnswering(setup, whileWritingFaulty: false)
        try await Task.sleep(for: .milliseconds(1500))
        let attempts = (setup.faulty.server.faults?.pairVerifyAttempts ?? 0) - before
        // Backoff from 20 ms up to 300 ms: a handful of attempts in 1.5 s, not hundreds.
        #expect(attempts >= 2, "attempts: \(attempts)")
        #expect(attempts <= 40, "attempts: \(attempts)")
        #expect(await setup.faulty.server.pairings.isPaired)
        try await recovers(setup)
    }

    @Test func aFlappingAccessoryGoesAndComesBackAndStaysOnceCleared() async throws {
        let setup = try await start()
        defer { Task { await setup.stop() } }
        try await setup.faulty.faults.set(.flap(seconds: 0.5))
        try await waitReachable(setup, false)
        try await healthyKeepsAnswering(setup)
        try await waitReachable(setup, true)
        try await waitReachable(setup, false)
        try await recovers(setup)
    }

    @Test func aRebootWithANewConfigurationNumberKeepsTheIDsAndThePairing() async throws {
        let setup = try await start()
        defer { Task { await setup.stop() } }
        let before = try #require(await setup.faulty.server.advertisement)
        try await setup.faulty.faults.set(.reboot(everySeconds: nil))
        let after = try #require(await setup.faulty.server.advertisement)
        #expect(after.configurationNumber == before.configurationNumber + 1)
        #expect(after.deviceID == before.deviceID)
        #expect(after.port == before.port)
        try await waitReachable(setup, false)
        await setup.hub.noteAdvertisement(
            deviceID: after.deviceID,
            host: "127.0.0.1",
            port: after.port,
            configurationNumber: after.configurationNumber
        )
        try await healthyKeepsAnswering(setup)
        let accessories = setup.hub.graph.home(withID: setup.home)?.accessories.map(\.id).sorted()
        try await recovers(setup)
        #expect(setup.hub.graph.home(withID: setup.home)?.accessories.map(\.id).sorted() == accessories)
    }

    @Test func strayEventsChangeNothingTheHubDoesNotKnow() async throws {
        let setup = try await start()
        defer { Task { await setup.stop() } }
        // One characteristic the hub does not listen to any more: events for it are stray.
        try await setup.hub.setNotifications(
            home: setup.home,
            characteristic: setup.faultyBrightness,
            isEnabled: false,
            as: .user(owner)
        )
        let before = setup.hub.graph.home(withID: setup.home)
        try await setup.faulty.faults.set(.strayEvents(everySeconds: 0.1))
        try await Task.sleep(for: .milliseconds(600))
        try await healthyKeepsAnswering(setup)
        let (result, _) = try await write(setup, setup.faultyOn, .bool(true))
        #expect(result == .success(.bool(true)))
        let home = try #require(setup.hub.graph.home(withID: setup.home))
        #expect(home.accessories.map(\.id) == before?.accessories.map(\.id))
        #expect(home.accessories.allSatisfy { $0.isReachable })
        try await recovers(setup)
    }

    @Test func aValueOutsideItsOwnMetadataIsNotRecordedNorActedOn() async throws {
        let setup = try await start()
        defer { Task { await setup.stop() } }
        let brightness = setup.faultyBrightness
        _ = try await write(setup, brightness, .int(50))
        // A trigger for "brightness 95 or more" turns the healthy outlet on.
        let scene = UUID()
        _ = try await setup.hub.perform(
            .addActionSet(
                home: setup.home,
                id: scene,
                name: "Outlet On",
                actions: [Action(characteristicID: setup.healthyOn, targetValue: .bool(true))]
            ),
            as: .user(owner)
        )
        _ = try await write(setup, setup.healthyOn, .bool(false))
        let triggerID = UUID()
        let trigger = Trigger(
            id: triggerID,
            name: "Bright",
            actionSetIDs: [scene],
            definition: TriggerDefinition(events: [.threshold(id: brightness, min: 95, max: nil)]),
            creatorID: owner
        )
        _ = try await setup.hub.perform(.addTrigger(home: setup.home, trigger: trigger), as: .user(owner))

        // The accessory reports 110 for a 0–100 characteristic: refused, not stored, no trigger fires.
        try await setup.faulty.faults.set(
            .outOfRange(accessory: "\(setup.faultyLampAID)", characteristic: "brightness")
        )
        let brightnessID = try faultyBrightnessID(setup)
        let reported = await setup.faulty.simulator.read([brightnessID])[brightnessID]
        #expect(reported == .success(.int(110)))
        try await Task.sleep(for: .milliseconds(500))
        await setup.hub.commitReports()
        let stored = try setup.hub.graph.characteristic(withID: brightness, inHome: setup.home).characteristic
        #expect(stored.value == .int(50))
        let home = try #require(setup.hub.graph.home(withID: setup.home))
        #expect(home.triggers.first { $0.id == triggerID }?.state.decisions.isEmpty == true)

        let read = try await setup.hub.readCharacteristics(home: setup.home, [brightness], as: .user(owner))[brightness]
        guard case .failure(.rejected(.invalidValue(.aboveMaximum, _))) = read else {
            Issue.record("reading a value above the maximum: \(String(describing: read))")
            return
        }

        // A value inside its metadata does fire it: the trigger was listening all along.
        await setup.faulty.faults.clearAll()
        try await setup.faulty.simulator.set(
            accessory: "\(setup.faultyLampAID)",
            characteristic: "brightness",
            value: .int(97)
        )
        try await waitUntil("the trigger fires on 97") {
            let home = setup.hub.graph.home(withID: setup.home)
            return home?.triggers.first { $0.id == triggerID }?.state.decisions.isEmpty == false
        }
        try await recovers(setup)
    }

    func faultyBrightnessID(_ setup: Setup) throws -> CharacteristicID {
        let home = try #require(setup.hub.graph.home(withID: setup.home))
        let characteristic = try #require(
            home.accessories.flatMap(\.characteristics).first { $0.id == setup.faultyBrightness }
        )
        return CharacteristicID(accessoryID: setup.faultyLampAID, instanceID: characteristic.instanceID)
    }
}
