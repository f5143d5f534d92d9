import HAP
import HAPAccessoryServer
import HAPTypes
import Testing

@testable import Simulator

/// A simulator of one accessory behind a bridge, with a manual clock and its event stream.
struct SimulatorHarness {
    let clock = ManualClock()
    let simulator: SimulatedAccessories
    let events: AsyncStream<BackendEvent>

    init(_ preset: Preset, name: String = "Thing", behaviour: BehaviourSettings? = nil) async throws {
        let description = SimulatorDescription(
            bridge: BridgeDescription(name: "Bridge"),
            accessories: [AccessoryDescription(name: name, preset: preset.rawValue, behaviour: behaviour)]
        )
        simulator = try SimulatedAccessories(description: description, clock: clock)
        events = await simulator.events()
    }

    /// The id of the accessory's (aid 2) first characteristic of `type`.
    func id(_ shortType: UInt32) async throws -> CharacteristicID {
        let database = await simulator.database()
        let accessory = try #require(database.accessory(withID: 2))
        let characteristic = try #require(
            accessory.services.flatMap(\.characteristics).first { $0.type == HAPUUID(apple: shortType) }
        )
        return CharacteristicID(accessoryID: 2, instanceID: characteristic.instanceID)
    }

    func value(_ shortType: UInt32) async throws -> HAPValue? {
        let id = try await id(shortType)
        return await simulator.database().characteristic(at: id)?.value
    }

    func write(_ shortType: UInt32, _ value: HAPValue) async throws -> BackendWriteOutcome {
        let outcomes = await simulator.write([BackendWrite(id: try await id(shortType), value: value)])
        return try #require(outcomes.first)
    }

    /// Advances the clock one second at a time, ticking after each.
    func advance(seconds: Int) async {
        for _ in 0..<seconds {
            clock.advance(by: .seconds(1))
            await simulator.tick()
        }
    }

    /// Every event sent so far; ends the stream, so call it once, last.
    func allEvents() async -> [BackendEvent] {
        await simulator.finish()
        var result: [BackendEvent] = []
        for await event in events { result.append(event) }
        return result
    }

    /// The changed values of every `valuesChanged` event so far, flattened; ends the stream.
    func allChanges() async -> [CharacteristicChange] {
        await allEvents().flatMap { event -> [CharacteristicChange] in
            if case .valuesChanged(let changes) = event { return changes }
            return []
        }
    }
}
