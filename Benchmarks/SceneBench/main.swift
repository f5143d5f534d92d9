// A scene's writes sent at once against the same writes one at a time (issue 17), as a release executable:
//
//   cd Benchmarks && swift build -c release --product hearth-scene-bench
//   .build/release/hearth-scene-bench [runs] [servers]
//
// Starts `servers` (default 10) in-process accessory servers on 127.0.0.1, each a bridge of a colour lightbulb (On,
// Brightness, Hue, Saturation) and a plain one (On): five writable characteristics per server. A Hub pairs them into
// one home and a scene writes all of them (50 writes by default). It then times, over `runs` runs (default 200,
// after 20 of warm-up), `Hub.runActionSet` (every write at once, one request per accessory server) from the call to
// its return, which is after the last write's answer and the commit of the values the accessories accepted; and the
// same writes as one `Hub.writeCharacteristics` call each, one after the other. Each run writes the other of two
// value sets, so every write changes the value and is recorded.
import Foundation
import HAP
import HAPAccessoryServer
import HAPTypes
import HomeGraph
import Hub
import Logging
import Simulator

/// Prints one line on stdout at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A logger that prints only critical messages.
func quietLogger() -> Logger {
    var logger = Logger(label: "scene-bench")
    logger.logLevel = .critical
    return logger
}

/// Milliseconds in `duration`.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// "p50 1.23 ms, p99 4.56 ms, mean 1.50 ms" of `samples` (milliseconds).
func summary(_ samples: [Double]) -> String {
    let sorted = samples.sorted()
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
    let mean = sorted.reduce(0, +) / Double(max(sorted.count, 1))
    return String(
        format: "p50 %.2f ms, p99 %.2f ms, mean %.2f ms, max %.2f ms",
        percentile(50),
        percentile(99),
        mean,
        sorted.last ?? 0
    )
}

/// The scene's writes for run `run`: the two value sets alternate, so each write changes the value.
func writes(_ characteristics: [Characteristic], run: Int) -> [Action] {
    let even = run.isMultiple(of: 2)
    return characteristics.map { characteristic in
        let value: HAPValue
        switch characteristic.type {
        case HAPUUID(apple: 0x25): value = .bool(even)
        case HAPUUID(apple: 0x08): value = .int(even ? 30 : 70)
        case HAPUUID(apple: 0x13): value = .float(even ? 120 : 240)
        case HAPUUID(apple: 0x2F): value = .float(even ? 40 : 80)
        default: value = characteristic.value ?? .bool(even)
        }
        return Action(characteristicID: characteristic.id, targetValue: value)
    }
}

func run(runs: Int, servers count: Int) async throws {
    let folder = NSTemporaryDirectory() + "scene-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let code = try SetupCode("031-45-154")
    var servers: [AccessoryServer] = []
    for index in 0..<count {
        let simulator = try SimulatedAccessories(
            description: SimulatorDescription(
                bridgeName: "Scene Bridge \(index)",
                presets: [PresetRequest(preset: .lightbulbColor), PresetRequest(preset: .lightbulb)]
            )
        )
        let server = AccessoryServer(
            configuration: AccessoryServer.Configuration(
                name: "Scene Bridge \(index)",
                model: "SB1",
                category: .bridge,
                host: "127.0.0.1",
                port: 0,
                eventCoalescingWindow: .zero,
                setupCode: code
            ),
            backend: simulator,
            store: InMemoryAccessoryStateStore(),
            logger: quietLogger()
        )
        _ = try await server.start()
        servers.append(server)
    }
    let hub = try await Hub(configuration: Hub.Configuration(stateFolder: folder, logger: quietLogger()))
    try await hub.start()
    let owner = HubCaller.user(UUID())
    let home = try await hub.addHome(name: "Bench Home", ownerName: "Ada", as: owner)
    for server in servers {
        guard let port = await server.port else { continue }
        try await hub.pairAccessory(home: home.id, host: "127.0.0.1", port: port, setupCode: code, as: owner)
    }
    guard let paired = hub.graph.home(withID: home.id) else { return }
    let writable = [0x25, 0x08, 0x13, 0x2F].map { HAPUUID(apple: $0) }
    let characteristics = paired.accessories.filter { $0.bridgeID != nil }.flatMap { accessory in
        accessory.characteristics.filter { writable.contains($0.type) && $0.permissions.contains(.write) }
    }
    let perServer = Dictionary(grouping: characteristics) { characteristic in
        paired.accessories.first { $0.characteristics.contains { $0.id == characteristic.id } }?.deviceID
    }
    say(
        "scene: \(characteristics.count) writes across \(perServer.count) accessory servers "
            + "(\(perServer.values.map(\.count).sorted().map(String.init).joined(separator: "/")) each), "
            + "\(runs) runs after 20 of warm-up"
    )
    guard let scene = paired.actionSet(ofKind: .homeArrival) else { return }

    // Every write at once: Hub.runActionSet.
    var concurrent: [Double] = []
    var failures = 0
    for run in 0..<(runs + 20) {
        try await hub.perform(
            .setActions(home: home.id, actionSet: scene.id, actions: writes(characteristics, run: run)),
            as: owner
        )
        let start = ContinuousClock.now
        let results = try await hub.runActionSet(home: home.id, actionSet: scene.id, as: owner)
        let elapsed = ContinuousClock.now - start
        failures += results.values.filter { if case .failure = $0 { true } else { false } }.count
        if run >= 20 { concurrent.append(milliseconds(elapsed)) }
    }
    say("at once (runActionSet):               \(summary(concurrent)); \(failures) failed writes")

    // The same writes one at a time: one writeCharacteristics call each, each awaited before the next.
    var sequential: [Double] = []
    failures = 0
    for run in 0..<(runs + 20) {
        let actions = writes(characteristics, run: run)
        let start = ContinuousClock.now
        for action in actions {
            let results = try await hub.writeCharacteristics(
                home: home.id,
                [(action.characteristicID, action.targetValue)],
                as: owner
            )
            failures += results.values.filter { if case .failure = $0 { true } else { false } }.count
        }
        let elapsed = ContinuousClock.now - start
        if run >= 20 { sequential.append(milliseconds(elapsed)) }
    }
    say("one at a time (writeCharacteristics): \(summary(sequential)); \(failures) failed writes")
    let ratio = (sequential.sorted()[sequential.count / 2]) / max(concurrent.sorted()[concurrent.count / 2], 1e-9)
    say(String(format: "median ratio: one at a time takes %.1f× as long", ratio))
    await hub.stop()
    for server in servers { await server.stop() }
}

let arguments = CommandLine.arguments.dropFirst()
let runs = arguments.first.flatMap { Int($0) } ?? 200
let serverCount = arguments.dropFirst().first.flatMap { Int($0) } ?? 10
do {
    try await run(runs: max(runs, 1), servers: max(serverCount, 1))
} catch {
    say("failed: \(error)")
    exit(1)
}
