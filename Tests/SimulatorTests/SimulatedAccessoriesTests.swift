import HAP
import HAPAccessoryServer
import HAPTypes
import Testing

@testable import Simulator

@Suite struct SimulatedAccessoriesTests {
    @Test func aWriteSendsEventsForSideEffectsOnly() async throws {
        let sim = try await SimulatorHarness(.outlet)
        let on = try await sim.id(0x25)
        let inUse = try await sim.id(0x26)
        let outcomes = await sim.simulator.write([BackendWrite(id: on, value: .int(1), wantsResponse: true)])
        #expect(outcomes == [BackendWriteOutcome(status: .success, value: .bool(true))])
        let lamp = try await SimulatorHarness(.lightbulbDimmable)
        _ = try await lamp.write(0x08, .int(40))
        #expect(try await lamp.value(0x08) == .int(40))
        #expect(await lamp.allEvents().isEmpty)
        #expect(await sim.allEvents() == [.valuesChanged([CharacteristicChange(id: inUse, value: .bool(true))])])
    }

    @Test func answersImmediatelyOnlyOnItsOwnEventLoop() async throws {
        let sim = try await SimulatorHarness(.outlet)
        let on = try await sim.id(0x25)
        let inUse = try await sim.id(0x26)
        let simulator = sim.simulator
        // Off the loop (this test's task): the server must await the actor.
        #expect(simulator.readImmediately([on]) == nil)
        #expect(!simulator.canWriteImmediately)
        #expect(simulator.writeImmediately([BackendWrite(id: on, value: .bool(true))]) == nil)
        // On the loop: the same answers as read and write, without suspending.
        let (outcomes, values, canWrite) = try await simulator.eventLoop.submit {
            let outcomes = simulator.writeImmediately([
                BackendWrite(id: on, value: .bool(true), wantsResponse: true)
            ])
            return (outcomes, simulator.readImmediately([on, inUse]), simulator.canWriteImmediately)
        }.get()
        #expect(canWrite)
        #expect(outcomes == [BackendWriteOutcome(status: .success, value: .bool(true))])
        #expect(values == [on: .success(.bool(true)), inUse: .success(.bool(true))])
        #expect(await simulator.read([on]) == [on: .success(.bool(true))])
        #expect(await sim.allEvents() == [.valuesChanged([CharacteristicChange(id: inUse, value: .bool(true))])])
    }

    @Test func badWritesAndReadsMapToHAPStatuses() async throws {
        let sim = try await SimulatorHarness(.doorbell)
        let button = try await sim.id(0x73)
        let missing = CharacteristicID(accessoryID: 9, instanceID: 9)
        let identify = CharacteristicID(accessoryID: 2, instanceID: 2)
        let outcomes = await sim.simulator.write([
            BackendWrite(id: missing, value: .bool(true)),
            BackendWrite(id: button, value: .int(0)),
            BackendWrite(id: identify, value: .bool(true)),
        ])
        #expect(outcomes.map(\.status) == [.resourceDoesNotExist, .readOnlyCharacteristic, .success])
        #expect(await sim.simulator.identifyCount == 1)
        let reads = await sim.simulator.read([button, identify, missing])
        #expect(reads[button] == .success(nil))
        #expect(reads[identify] == .failure(.writeOnlyCharacteristic))
        #expect(reads[missing] == .failure(.resourceDoesNotExist))
        let lock = try await SimulatorHarness(.doorLock)
        #expect(try await lock.write(0x1E, .int(5)).status == .invalidValueInRequest)
    }

    @Test func thePhysicalWorldReachesControllersAsEvents() async throws {
        let sim = try await SimulatorHarness(.doorbell, name: "Front Door")
        try await sim.simulator.press(accessory: "front door", kind: .double)
        try await sim.simulator.trigger(accessory: "2", event: "ring")
        let button = try await sim.id(0x73)
        #expect(try await sim.value(0x73) == nil)
        #expect(
            await sim.allEvents() == [
                .valuesChanged([CharacteristicChange(id: button, value: .uint(1))]),
                .valuesChanged([CharacteristicChange(id: button, value: .uint(0))]),
            ]
        )
    }

    @Test func physicalChangesAreValidatedAndNamesAreChecked() async throws {
        let sim = try await SimulatorHarness(.temperatureSensor, name: "Hall")
        try await sim.simulator.set(accessory: "HALL", characteristic: "Current Temperature", value: .float(-5.5))
        #expect(try await sim.value(0x11) == .float(-5.5))
        await #expect(throws: SimulatorError.unknownAccessory("Attic")) {
            try await sim.simulator.set(accessory: "Attic", characteristic: "temperature", value: .float(1))
        }
        await #expect(throws: SimulatorError.unknownCharacteristic(accessory: "Hall", characteristic: "brightness")) {
            try await sim.simulator.set(accessory: "Hall", characteristic: "brightness", value: .int(1))
        }
        await #expect(
            throws: SimulatorError.invalidValue(
                accessory: "Hall",
                characteristic: "temperature",
                .aboveMaximum(value: 500, minimum: -270, maximum: 100)
            )
        ) {
            try await sim.simulator.set(accessory: "Hall", characteristic: "temperature", value: .float(500))
        }
        await #expect(throws: SimulatorError.notAButton(accessory: "Hall")) {
            try await sim.simulator.press(accessory: "Hall", kind: .single)
        }
        do {
            try await sim.simulator.trigger(accessory: "Hall", event: "explode")
            Issue.record("an unknown event was accepted")
        } catch {
            guard case .unknownEvent(let accessory, let event, _) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(accessory == "Hall" && event == "explode")
        }
        let lock = try await SimulatorHarness(.doorLock, name: "Door")
        try await lock.simulator.set(accessory: "door", characteristic: "lock state", value: .string("jammed"))
        #expect(try await lock.value(0x1D) == .uint(2))
    }

    @Test func addingAndRemovingAccessoriesKeepsIDsAndValues() async throws {
        let sim = try await SimulatorHarness(.lightbulbDimmable, name: "Lamp")
        _ = try await sim.write(0x08, .int(33))
        let aid = try await sim.simulator.addAccessory(preset: "door-lock", name: "Back Door")
        #expect(aid == 3)
        await #expect(throws: SimulatorError.nameTaken("back door")) {
            try await sim.simulator.addAccessory(preset: "switch", name: "back door")
        }
        await #expect(throws: SimulatorError.description(.unknownPreset(accessory: "Toaster", preset: "toaster"))) {
            try await sim.simulator.addAccessory(preset: "toaster", name: "Toaster")
        }
        try await sim.simulator.removeAccessory(name: "lamp")
        #expect(await sim.simulator.database().accessories.map(\.accessoryID) == [1, 3])
        try await sim.simulator.addAccessory(preset: "lightbulb-dimmable", name: "Lamp")
        #expect(await sim.simulator.database().accessories.map(\.accessoryID) == [1, 3, 4])
        try await sim.simulator.trigger(accessory: "Back Door", event: "jam")
        let snapshot = await sim.simulator.snapshot()
        #expect(snapshot.accessories.map(\.name) == ["Bridge", "Back Door", "Lamp"])
        let lock = try #require(snapshot.accessories[1].services.last)
        #expect(lock.characteristics.first?.valueName == "jammed")
        let identifiers = await sim.simulator.identifiers
        #expect(identifiers.nextAccessoryID == 5)
        let events = await sim.allEvents()
        #expect(events.filter { $0 == .databaseChanged }.count == 3)
    }

    @Test func theRunLoopTicksOnTheClock() async throws {
        let sim = try await SimulatorHarness(.doorLock, behaviour: BehaviourSettings(lockDelaySeconds: 3))
        let loop = Task { await sim.simulator.run() }
        _ = try await sim.write(0x1E, .int(0))
        for _ in 0..<3 {
            await sim.clock.waitForSleepers()
            sim.clock.advance(by: .seconds(1))
        }
        await sim.clock.waitForSleepers()
        #expect(try await sim.value(0x1D) == .uint(0))
        loop.cancel()
        await loop.value
        #expect(sim.clock.sleeperCount == 0)
    }

    @Test func aLoneAccessoryIsAid1AndCannotGainAccessories() async throws {
        let description = SimulatorDescription(
            bridge: nil,
            accessories: [AccessoryDescription(name: "Garage", preset: "garage-door")]
        )
        let sim = try SimulatedAccessories(description: description, clock: ManualClock())
        #expect(await sim.database().accessories.map(\.accessoryID) == [1])
        #expect(sim.category == .garageDoorOpener)
        #expect(sim.didChangeAtStart)
        await #expect(throws: SimulatorError.notABridge) {
            try await sim.addAccessory(preset: "switch", name: "Switch")
        }
        try await sim.trigger(accessory: "garage", event: "open")
    }
}
