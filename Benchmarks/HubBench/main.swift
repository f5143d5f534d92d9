// The hub's numbers for issue 7, as a release executable (not a timed test):
//
//   swift build -c release --product hearth-hub-bench && .build/release/hearth-hub-bench [bridges] [perBridge]
//
// Starts `bridges` in-process accessory servers of `perBridge` dimmable lightbulbs on 127.0.0.1 (default 5 × 100 =
// 500 accessories), pairs each through a Hub, then measures: value updates persisted per second through the
// hub's report path (group commit) and end to end from the simulator over HAP events; configuration operations per
// second; and, in a child process (`hearth-hub-bench open FOLDER`), the time `Hub(configuration:)` takes to open the
// home and the hub's resident memory once every link is connected.
import Foundation
import HAP
import HAPAccessoryServer
import HAPController
import HAPTypes
import HomeGraph
import Hub
import Logging
import Simulator

/// Prints one line on stdout at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The resident set size of this process in KiB, from /proc/self/status.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
}

func quietLogger() -> Logger {
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    return logger
}

/// CPU seconds (user and system) this process has used.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// The number of change events persisted in `homeID` so far.
func persistedChanges(_ hub: Hub, home homeID: UUID) async -> Int {
    Int(await hub.graph.lastSequences[homeID] ?? 0)
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// `open FOLDER`: opens the hub, connects every link, prints the open time and the memory.
func openAndMeasure(folder: String, linksToo: Bool = true) async throws {
    let start = ContinuousClock.now
    let startCPU = cpuSeconds()
    let hub = try await Hub(configuration: Hub.Configuration(stateFolder: folder, logger: quietLogger()))
    let openSeconds = seconds(since: start)
    let openCPU = cpuSeconds() - startCPU
    let accessories = await hub.graph.homes.reduce(0) { $0 + $1.accessories.count }
    let afterOpen = residentKiB()
    guard linksToo else {
        say(
            "open: \(accessories) accessories in \(String(format: "%.1f", openSeconds * 1000)) ms wall, "
                + "\(String(format: "%.1f", openCPU * 1000)) ms CPU"
        )
        return
    }
    try await hub.start()
    // Wait until every bridge answered (a value read through each link).
    for home in await hub.graph.homes {
        for accessory in home.accessories where accessory.bridgeID == nil {
            guard let on = accessory.characteristics.first(where: { $0.permissions.contains(.read) }) else { continue }
            _ = try await hub.readCharacteristics(home: home.id, [on.id], as: .hub)
        }
    }
    say(
        "open: \(accessories) accessories in \(String(format: "%.1f", openSeconds * 1000)) ms wall, "
            + "\(String(format: "%.1f", openCPU * 1000)) ms CPU; RSS after open "
            + "\(afterOpen / 1024) MB, with every link connected \(residentKiB() / 1024) MB"
    )
    await hub.stop()
}

func run(bridges: Int, perBridge: Int) async throws {
    let folder = NSTemporaryDirectory() + "hub-bench-\(UUID().uuidString)"
    defer {
        if ProcessInfo.processInfo.environment["HEARTH_BENCH_KEEP"] == "1" {
            say("kept the state folder \(folder)")
        } else {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
    let code = try SetupCode("031-45-154")
    var servers: [(AccessoryServer, SimulatedAccessories)] = []
    for index in 0..<bridges {
        let simulator = try SimulatedAccessories(
            description: SimulatorDescription(
                bridgeName: "Bench Bridge \(index)",
                presets: [PresetRequest(preset: .lightbulbDimmable, count: perBridge)]
            )
        )
        let server = AccessoryServer(
            configuration: AccessoryServer.Configuration(
                name: "Bench Bridge \(index)",
                model: "HB1",
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
        servers.append((server, simulator))
    }
    let hub = try await Hub(configuration: Hub.Configuration(stateFolder: folder, logger: quietLogger()))
    try await hub.start()
    let owner = UUID()
    let home = try await hub.addHome(name: "Bench Home", ownerName: "Ada", as: .user(owner))
    let pairStart = ContinuousClock.now
    for (server, _) in servers {
        guard let port = await server.port else { continue }
        try await hub.pairAccessory(home: home.id, host: "127.0.0.1", port: port, setupCode: code, as: .user(owner))
    }
    let total = await hub.graph.home(withID: home.id)?.accessories.count ?? 0
    say("paired \(bridges) bridges, \(total) accessories, in \(String(format: "%.2f", seconds(since: pairStart))) s")

    // 1. The report path: EVENT-sized batches of brightness changes, as links hand them to the hub.
    let graph = await hub.graph
    guard let bench = graph.home(withID: home.id) else { return }
    let deviceIDs = await hub.linkedDeviceIDs
    var targets: [(String, CharacteristicID)] = []
    for accessory in bench.accessories where accessory.bridgeID != nil {
        guard let device = accessory.deviceID?.description.uppercased(),
            let brightness = accessory.characteristics.first(where: { $0.type == HAPUUID(apple: 0x08) })
        else { continue }
        targets.append(
            (device, CharacteristicID(accessoryID: accessory.accessoryInstanceID, instanceID: brightness.instanceID))
        )
    }
    let updates = 100_000
    let before = await persistedChanges(hub, home: home.id)
    let reportStart = ContinuousClock.now
    var sent = 0
    var round = 0
    while sent < updates {
        round += 1
        for (index, target) in targets.enumerated() where sent < updates {
            let value = HAPValue.int(Int64((round * 7 + index) % 101))
            await hub.accessoryReported(
                deviceID: target.0,
                changes: [CharacteristicValueChange(id: target.1, value: value)]
            )
            sent += 1
        }
    }
    await hub.commitReports()
    let reportSeconds = seconds(since: reportStart)
    let persisted = await persistedChanges(hub, home: home.id) - before
    say(
        "report path: \(persisted) value updates persisted in \(String(format: "%.2f", reportSeconds)) s = "
            + "\(Int(Double(persisted) / reportSeconds))/s (\(deviceIDs.count) links, group commit)"
    )

    // 2. End to end: the simulators change values, HAP events carry them to the hub, which persists them.
    let endToEnd = 20_000
    let startCount = await persistedChanges(hub, home: home.id)
    let eventStart = ContinuousClock.now
    var changed = 0
    var flip = false
    while changed < endToEnd {
        flip.toggle()
        for (_, simulator) in servers {
            for accessory in 2...(perBridge + 1) where changed < endToEnd {
                try await simulator.set(accessory: "\(accessory)", characteristic: "on", value: .bool(flip))
                changed += 1
            }
        }
    }
    while await persistedChanges(hub, home: home.id) < startCount + endToEnd {
        try await Task.sleep(for: .milliseconds(5))
    }
    let eventSeconds = seconds(since: eventStart)
    say(
        "end to end: \(endToEnd) simulator changes persisted through HAP events in "
            + "\(String(format: "%.2f", eventSeconds)) s = \(Int(Double(endToEnd) / eventSeconds))/s"
    )

    // 3. Configuration operations, one transaction each: renames of accessories.
    let renames = 2_000
    let bridged = bench.accessories.filter { $0.bridgeID != nil }
    let configStart = ContinuousClock.now
    for index in 0..<renames {
        let accessory = bridged[index % bridged.count]
        try await hub.perform(
            .renameAccessory(home: home.id, accessory: accessory.id, name: "Lamp \(index)"),
            as: .user(owner)
        )
    }
    let configSeconds = seconds(since: configStart)
    say(
        "configuration: \(renames) renames in \(String(format: "%.2f", configSeconds)) s = "
            + "\(Int(Double(renames) / configSeconds)) ops/s"
    )
    say("RSS of this process (hub + \(bridges) accessory servers): \(residentKiB() / 1024) MB")
    await hub.stop()

    // 4. Open and memory, in a fresh process, with the accessory servers still running here.
    for _ in 0..<3 {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["open", folder]
        try child.run()
        child.waitUntilExit()
    }
    for (server, _) in servers { await server.stop() }
}

let arguments = CommandLine.arguments
do {
    if arguments.count >= 3, arguments[1] == "open" {
        try await openAndMeasure(folder: arguments[2], linksToo: !arguments.contains("--no-links"))
    } else {
        let bridges = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
        let perBridge = arguments.count > 2 ? Int(arguments[2]) ?? 100 : 100
        try await run(bridges: bridges, perBridge: min(perBridge, 149))
    }
} catch {
    FileHandle.standardError.write(Data("hearth-hub-bench: \(error)\n".utf8))
    exit(1)
}
