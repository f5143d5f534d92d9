import Benchmark
import Foundation
import HAPTypes
import HomeGraph
import HomeStore

/// The home store's append of one value change, the commit on the path of every write, report and automation.
///
/// It covers the row's JSON, its sealing, and the SQLite transaction that writes it to the log (WAL, not synced:
/// the store syncs off this path). The home has 150 lamps; a snapshot is written every 2,000 changes, as in
/// `hearthd`.
///
/// Each measured iteration appends 1,000 changes (scaling factor `.kilo`): the time is per change.
func registerStoreBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .syscalls],
        scalingFactor: .kilo,
        maxDuration: .seconds(5),
        maxIterations: 100
    )
    Benchmark("Store append, one value change, 150 lamps", configuration: configuration) { benchmark in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try HomeStore(folder: folder)
        var graph = store.graph
        let (homeID, setUp, lampOns) = benchmarkHome(lamps: 150)
        for operation in setUp { try graph.apply(operation) }
        try store.append(setUp, resulting: graph)
        let changed = lampOns[75]
        let author = ChangeAuthor.person(UUID())
        let at = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        var value = false
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            value.toggle()
            let operation = HomeOperation.writeCharacteristicValue(
                home: homeID,
                characteristic: changed,
                value: .bool(value)
            )
            blackHole(try graph.apply(operation, by: author, at: at))
            try store.append([LoggedOperation(operation, by: author, at: at)], resulting: graph)
        }
        benchmark.stopMeasurement()
        try await store.close()
    }
}
