import Benchmark

/// Every HAP benchmark; package-benchmark's plugin looks for this name.
///
/// Each benchmark builds its inputs before the measured closure runs, so only the named operation is timed.
/// Pairing benchmarks replay messages recorded once from the other side (see `PairingTranscripts.swift`).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        warmupIterations: 3,
        maxDuration: .seconds(5),
        maxIterations: 1_000
    )
    registerArithmeticBenchmarks()
    registerGraphBenchmarks()
    registerStoreBenchmarks()
    registerPairingBenchmarks()
    registerSessionBenchmarks()
    registerTLV8Benchmarks()
}
