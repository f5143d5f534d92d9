import Benchmark
import Foundation
import HAPTypes
import HomeGraph

/// The home graph's value change, the step every write, report and automation takes: one lamp's On in a home of
/// 150 lamps, while a snapshot of the graph is held (as the hub holds the last acknowledged graph for its readers),
/// so the change copies what it shares with the snapshot.
///
/// Each measured iteration changes the value 1,000 times (scaling factor `.kilo`): the time is per change.
func registerGraphBenchmarks() {
    var graph = HomeGraph()
    let (homeID, operations, lampOns) = benchmarkHome(lamps: 150)
    do {
        for operation in operations { try graph.apply(operation) }
    } catch {
        fatalError("the benchmark's home could not be built: \(error)")
    }
    let changed = lampOns[75]
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(5),
        maxIterations: 1_000
    )
    Benchmark("Graph value change, 150 lamps, snapshot held", configuration: configuration) { benchmark in
        var current = graph
        var value = false
        for _ in benchmark.scaledIterations {
            let snapshot = current
            value.toggle()
            let events = try current.apply(
                .updateCharacteristicValue(home: homeID, characteristic: changed, value: .bool(value))
            )
            blackHole(events)
            blackHole(snapshot)
        }
    }
}

/// The operations that make a home of `count` lamps (`benchmarkLamp`), its id and each lamp's On characteristic.
func benchmarkHome(lamps count: Int) -> (homeID: UUID, operations: [HomeOperation], lampOns: [UUID]) {
    let homeID = UUID()
    let roomID = UUID()
    var operations: [HomeOperation] = [.addHome(id: homeID, name: "Bench", roomForEntireHomeID: roomID)]
    var lampOns: [UUID] = []
    for number in 1...count {
        let on = UUID()
        lampOns.append(on)
        operations.append(.addAccessory(home: homeID, accessory: benchmarkLamp(number, on: on, room: roomID)))
    }
    return (homeID, operations, lampOns)
}

/// A lamp as a bridge's lightbulb arrives: Accessory Information (five strings) and a Lightbulb service with On.
func benchmarkLamp(_ number: Int, on: UUID, room: UUID) -> Accessory {
    func text(_ type: UInt32, _ value: String, _ iid: UInt64) -> Characteristic {
        Characteristic(
            id: UUID(),
            type: HAPUUID(apple: type),
            instanceID: iid,
            format: .string,
            permissions: [.read],
            value: .string(value)
        )
    }
    return Accessory(
        id: UUID(),
        name: "Lamp \(number)",
        roomID: room,
        category: .lightbulb,
        manufacturer: "Hearth",
        model: "Lamp",
        serialNumber: "SN-\(number)",
        firmwareRevision: "1.0",
        accessoryInstanceID: UInt64(number + 1),
        services: [
            Service(
                id: UUID(),
                name: "Lamp \(number)",
                type: HAPUUID(apple: 0x3E),
                instanceID: 1,
                characteristics: [
                    text(0x20, "Hearth", 2), text(0x21, "Lamp", 3), text(0x23, "Lamp \(number)", 4),
                    text(0x30, "SN-\(number)", 5), text(0x52, "1.0", 6),
                ]
            ),
            Service(
                id: UUID(),
                name: "Lamp \(number)",
                type: HAPUUID(apple: 0x43),
                instanceID: 10,
                isPrimary: true,
                characteristics: [
                    Characteristic(
                        id: on,
                        type: HAPUUID(apple: 0x25),
                        instanceID: 11,
                        format: .bool,
                        permissions: [.read, .write, .notify],
                        value: .bool(false)
                    )
                ]
            ),
        ]
    )
}
