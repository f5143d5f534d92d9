import HAP
import HAPAccessoryServer
import Testing

@testable import Simulator

@Suite struct BehaviourTests {
    @Test func aLockFollowsItsTargetAfterTheDelayAndCanJam() async throws {
        let sim = try await SimulatorHarness(.doorLock, behaviour: BehaviourSettings(lockDelaySeconds: 2))
        #expect(try await sim.value(0x1D) == .uint(1))
        #expect(try await sim.write(0x1E, .int(0)).status == .success)
        await sim.advance(seconds: 1)
        #expect(try await sim.value(0x1D) == .uint(1))
        await sim.advance(seconds: 1)
        #expect(try await sim.value(0x1D) == .uint(0))
        try await sim.simulator.trigger(accessory: "thing", event: "jam")
        #expect(try await sim.value(0x1D) == .uint(2))
        _ = try await sim.write(0x1E, .int(1))
        await sim.advance(seconds: 2)
        #expect(try await sim.value(0x1D) == .uint(1))
        let changes = await sim.allChanges()
        let current = try await sim.id(0x1D)
        #expect(changes.filter { $0.id == current }.map(\.value) == [.uint(0), .uint(2), .uint(1)])
    }

    @Test func aGarageDoorOpensOverTimeAndStopsWhenObstructed() async throws {
        let sim = try await SimulatorHarness(.garageDoor, behaviour: BehaviourSettings(doorTravelSeconds: 5))
        _ = try await sim.write(0x32, .int(0))
        #expect(try await sim.value(0x0E) == .uint(2))
        await sim.advance(seconds: 4)
        #expect(try await sim.value(0x0E) == .uint(2))
        await sim.advance(seconds: 1)
        #expect(try await sim.value(0x0E) == .uint(0))
        _ = try await sim.write(0x32, .int(1))
        #expect(try await sim.value(0x0E) == .uint(3))
        await sim.advance(seconds: 2)
        try await sim.simulator.trigger(accessory: "Thing", event: "obstruct")
        #expect(try await sim.value(0x0E) == .uint(4))
        #expect(try await sim.value(0x24) == .bool(true))
        await sim.advance(seconds: 10)
        #expect(try await sim.value(0x0E) == .uint(4))
    }

    @Test func aWindowCoveringMovesStepByStep() async throws {
        let sim = try await SimulatorHarness(.windowCovering)
        #expect(try await sim.value(0x72) == .uint(2))
        _ = try await sim.write(0x7C, .int(35))
        #expect(try await sim.value(0x72) == .uint(1))
        await sim.advance(seconds: 1)
        #expect(try await sim.value(0x6D) == .uint(10))
        await sim.advance(seconds: 2)
        #expect(try await sim.value(0x6D) == .uint(30))
        #expect(try await sim.value(0x72) == .uint(1))
        await sim.advance(seconds: 1)
        #expect(try await sim.value(0x6D) == .uint(35))
        #expect(try await sim.value(0x72) == .uint(2))
        _ = try await sim.write(0x7C, .int(0))
        await sim.advance(seconds: 1)
        #expect(try await sim.value(0x72) == .uint(0))
        _ = try await sim.write(0x6F, .bool(true))
        #expect(try await sim.value(0x72) == .uint(2))
        #expect(try await sim.value(0x7C) == .uint(25))
    }

    @Test func aThermostatDrivesTheTemperatureToItsTarget() async throws {
        let sim = try await SimulatorHarness(
            .thermostat,
            behaviour: BehaviourSettings(temperatureStepCelsius: 0.5, temperatureStepSeconds: 1)
        )
        #expect(try await sim.value(0x11) == .float(20))
        _ = try await sim.write(0x35, .float(22))
        _ = try await sim.write(0x33, .int(1))
        #expect(try await sim.value(0x0F) == .uint(1))
        await sim.advance(seconds: 2)
        #expect(try await sim.value(0x11) == .float(21))
        await sim.advance(seconds: 10)
        #expect(try await sim.value(0x11) == .float(22))
        #expect(try await sim.value(0x0F) == .uint(0))
        try await sim.simulator.set(accessory: "Thing", characteristic: "temperature", value: .float(18))
        #expect(try await sim.value(0x0F) == .uint(1))
        await sim.advance(seconds: 8)
        #expect(try await sim.value(0x11) == .float(22))
        _ = try await sim.write(0x33, .int(0))
        try await sim.simulator.set(accessory: "Thing", characteristic: "temperature", value: .float(15))
        await sim.advance(seconds: 5)
        #expect(try await sim.value(0x11) == .float(15))
        #expect(try await sim.value(0x0F) == .uint(0))
    }

    @Test func aHeaterCoolerCoolsToItsThreshold() async throws {
        let sim = try await SimulatorHarness(
            .heaterCooler,
            behaviour: BehaviourSettings(temperatureStepCelsius: 1, temperatureStepSeconds: 1)
        )
        try await sim.simulator.set(accessory: "Thing", characteristic: "temperature", value: .float(27))
        _ = try await sim.write(0xB0, .int(1))
        #expect(try await sim.value(0xB1) == .uint(3))
        await sim.advance(seconds: 5)
        #expect(try await sim.value(0x11) == .float(24))
        #expect(try await sim.value(0xB1) == .uint(1))
        _ = try await sim.write(0xB0, .int(0))
        #expect(try await sim.value(0xB1) == .uint(0))
    }

    @Test func aBatteryDrainsAndRaisesTheLowFlag() async throws {
        let sim = try await SimulatorHarness(.battery, behaviour: BehaviourSettings(batteryDrainSeconds: 1))
        #expect(try await sim.value(0x68) == .uint(100))
        await sim.advance(seconds: 80)
        #expect(try await sim.value(0x68) == .uint(20))
        #expect(try await sim.value(0x79) == .uint(0))
        await sim.advance(seconds: 1)
        #expect(try await sim.value(0x68) == .uint(19))
        #expect(try await sim.value(0x79) == .uint(1))
        await sim.advance(seconds: 100)
        #expect(try await sim.value(0x68) == .uint(0))
        try await sim.simulator.trigger(accessory: "Thing", event: "charge")
        await sim.advance(seconds: 30)
        #expect(try await sim.value(0x68) == .uint(30))
    }

    @Test func fansPurifiersOutletsAndAlarmsFollowTheirControls() async throws {
        let fan = try await SimulatorHarness(.fan)
        _ = try await fan.write(0xB0, .int(1))
        #expect(try await fan.value(0xAF) == .uint(2))
        let purifier = try await SimulatorHarness(.airPurifier)
        _ = try await purifier.write(0xB0, .int(1))
        #expect(try await purifier.value(0xA9) == .uint(2))
        let outlet = try await SimulatorHarness(.outlet)
        _ = try await outlet.write(0x25, .bool(true))
        #expect(try await outlet.value(0x26) == .bool(true))
        let alarm = try await SimulatorHarness(.securitySystem)
        _ = try await alarm.write(0x67, .int(1))
        #expect(try await alarm.value(0x66) == .uint(1))
        try await alarm.simulator.trigger(accessory: "Thing", event: "alarm")
        #expect(try await alarm.value(0x66) == .uint(4))
        _ = try await alarm.write(0x67, .int(3))
        #expect(try await alarm.value(0x66) == .uint(3))
    }

    @Test func sensorsChangeOnlyWhenTold() async throws {
        let motion = try await SimulatorHarness(.motionSensor)
        await motion.advance(seconds: 100)
        #expect(try await motion.value(0x22) == .bool(false))
        try await motion.simulator.trigger(accessory: "Thing", event: "motion")
        #expect(try await motion.value(0x22) == .bool(true))
        let contact = try await SimulatorHarness(.contactSensor)
        try await contact.simulator.trigger(accessory: "Thing", event: "open")
        #expect(try await contact.value(0x6A) == .uint(1))
        let leak = try await SimulatorHarness(.leakSensor)
        try await leak.simulator.trigger(accessory: "Thing", event: "leak")
        #expect(try await leak.value(0x70) == .uint(1))
        let light = try await SimulatorHarness(.lightSensor)
        try await light.simulator.set(accessory: "Thing", characteristic: "lux", value: .float(2500))
        #expect(try await light.value(0x6B) == .float(2500))
        let changes = await motion.allChanges()
        #expect(changes == [CharacteristicChange(id: try await motion.id(0x22), value: .bool(true))])
    }
}
