// Issue 17's in-process automation benchmark, as a release executable (not a timed test):
//
//   swift build -c release --product hearth-automation-bench
//   .build/release/hearth-automation-bench [--firings 1000] [--sizes 10,100,1000,10000] [--timed-percent 0]
//       [--lamps 100] [--gap-ms 5] [--settle-ms 2] [--no-floor]
//
// One in-process accessory server (a hearth-sim bridge of dimmable lamps on 127.0.0.1, event coalescing off) is
// paired with an in-process Hub. The home gets N triggers: 10 listen to lamp A's On becoming true (one runs the
// scene "lamp B on"; nine have a condition that does not hold, so they are decided and recorded as skipped), the
// other N - 10 listen to other lamps' On and Brightness (with `--timed-percent P`, P % of them are calendar
// triggers instead, which the engine scans for its next wake-up). Each firing injects lamp A's On = true the way
// a link hands the hub an accessory's event (`Hub.accessoryReported(deviceID:changes:)`, called from the hub's own
// event loop, where a link's events arrive) and ends when lamp B's
// On write reaches the accessory server's backend (decrypted and parsed: the equivalent of HAP-python's
// set_characteristics hook). Between firings lamp A's On = false is injected (no trigger listens to that value).
//
// Printed per N: event → first write at the accessory (p50, p99, max); the hub's time in `accessoryReported` (the
// report, the engine's decision and the start of the scene's task); process CPU per firing (hub and accessory
// server, from just before the event until the write arrived plus the settle time). The floor row is the same
// write sent by `Hub.writeCharacteristics` with no automation in between.
import Foundation
import HAP
import HAPAccessoryServer
import HAPController
import HAPTypes
import HomeGraph
import Hub
import Logging
import Simulator
import Synchronization

/// Prints one line on stdout at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// The CPU time of this process (every thread) in nanoseconds.
func processCPUNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
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

/// The `p` percentile (0...100) of `values`, interpolated between neighbours.
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = Double(sorted.count - 1) * p / 100
    let low = Int(rank)
    let high = min(low + 1, sorted.count - 1)
    return sorted[low] + (sorted[high] - sorted[low]) * (rank - Double(low))
}

func ms(_ value: Double) -> String { String(format: "%.3f", value) }

/// Records when a write of one characteristic reaches the accessory server's backend, and wakes the bench.
final class WriteHook: Sendable {
    private struct State {
        var watched: CharacteristicID?
        var arrival: UInt64?
        var waiter: CheckedContinuation<UInt64?, Never>?
    }

    private let state = Mutex(State())

    /// Starts watching for the next write of `id`.
    func arm(_ id: CharacteristicID) {
        state.withLock { $0 = State(watched: id) }
    }

    /// A write request reached the backend (called on the accessory server's loop).
    func saw(_ writes: [BackendWrite]) {
        let now = monotonicNanoseconds()
        let waiter: CheckedContinuation<UInt64?, Never>? = state.withLock { state in
            guard let watched = state.watched, state.arrival == nil, writes.contains(where: { $0.id == watched })
            else { return nil }
            state.arrival = now
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: now)
    }

    /// The arrival time of the watched write, waiting up to `timeout` for it; `nil` when it did not come.
    func wait(timeout: Duration) async -> UInt64? {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.giveUp()
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready: UInt64?? = state.withLock { state in
                if let arrival = state.arrival { return .some(arrival) }
                if state.watched == nil { return .some(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func giveUp() {
        let waiter = state.withLock { state in
            defer {
                state.waiter = nil
                state.watched = nil
            }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}

/// The simulator behind a hook that notes each write's arrival.
struct HookedBackend: AccessoryBackend {
    let inner: SimulatedAccessories
    let hook: WriteHook

    func database() async -> AccessoryDatabase { await inner.database() }
    func read(_ ids: [CharacteristicID]) async -> [CharacteristicID: Result<HAPValue?, HAPStatus>] {
        await inner.read(ids)
    }
    func write(_ writes: [BackendWrite]) async -> [BackendWriteOutcome] {
        hook.saw(writes)
        return await inner.write(writes)
    }
    func identify() async { await inner.identify() }
    func events() async -> AsyncStream<BackendEvent> { await inner.events() }
    func readImmediately(_ ids: [CharacteristicID]) -> [CharacteristicID: Result<HAPValue?, HAPStatus>]? {
        inner.readImmediately(ids)
    }
    var canWriteImmediately: Bool { inner.canWriteImmediately }
    func writeImmediately(_ writes: [BackendWrite]) -> [BackendWriteOutcome]? {
        guard inner.canWriteImmediately else { return nil }
        hook.saw(writes)
        return inner.writeImmediately(writes)
    }
}

/// One lamp's characteristics, as the hub and the accessory know them.
struct Lamp {
    var on: UUID
    var brightness: UUID
    var onHAP: CharacteristicID
}

/// A hub paired with one bridge of lamps, with `size` triggers.
struct Setup {
    var hub: Hub
    var server: AccessoryServer
    var hook: WriteHook
    var folder: String
    var homeID: UUID
    var deviceID: String
    var lamps: [Lamp]
}

let onType = HAPUUID(apple: 0x25)
let brightnessType = HAPUUID(apple: 0x08)
let setupCode = "031-45-154"

func makeSetup(lampCount: Int) async throws -> Setup {
    let folder = NSTemporaryDirectory() + "automation-bench-\(UUID().uuidString)"
    let code = try SetupCode(setupCode)
    let simulator = try SimulatedAccessories(
        description: SimulatorDescription(
            bridgeName: "Automation Bench Bridge",
            presets: [PresetRequest(preset: .lightbulbDimmable, count: lampCount)]
        )
    )
    let hook = WriteHook()
    let server = AccessoryServer(
        configuration: AccessoryServer.Configuration(
            name: "Automation Bench Bridge",
            model: "AB1",
            category: .bridge,
            host: "127.0.0.1",
            port: 0,
            eventCoalescingWindow: .zero,
            setupCode: code
        ),
        backend: HookedBackend(inner: simulator, hook: hook),
        store: InMemoryAccessoryStateStore(),
        logger: quietLogger()
    )
    _ = try await server.start()
    guard let port = await server.port else { throw BenchError("the accessory server has no port") }
    let hub = try await Hub(configuration: Hub.Configuration(stateFolder: folder, logger: quietLogger()))
    try await hub.start()
    let home = try await hub.addHome(name: "Bench Home", ownerName: "Ada", as: .user(owner))
    try await hub.pairAccessory(home: home.id, host: "127.0.0.1", port: port, setupCode: code, as: .user(owner))
    guard let paired = await hub.graph.home(withID: home.id) else { throw BenchError("the home is gone") }
    var lamps: [Lamp] = []
    var deviceID = ""
    for accessory in paired.accessories.sorted(by: { $0.accessoryInstanceID < $1.accessoryInstanceID })
    where accessory.bridgeID != nil {
        guard let device = accessory.deviceID?.description.uppercased(),
            let on = accessory.characteristics.first(where: { $0.type == onType }),
            let brightness = accessory.characteristics.first(where: { $0.type == brightnessType })
        else { continue }
        deviceID = device
        lamps.append(
            Lamp(
                on: on.id,
                brightness: brightness.id,
                onHAP: CharacteristicID(accessoryID: accessory.accessoryInstanceID, instanceID: on.instanceID)
            )
        )
    }
    guard lamps.count >= 4 else { throw BenchError("the bridge has \(lamps.count) lamps; 4 or more are needed") }
    return Setup(
        hub: hub,
        server: server,
        hook: hook,
        folder: folder,
        homeID: home.id,
        deviceID: deviceID,
        lamps: lamps
    )
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let owner = UUID()

/// Adds `size` triggers (10 on lamp A's On) and the scenes they run; returns the scene of the firing trigger.
func addTriggers(_ setup: Setup, size: Int, timedPercent: Int) async throws {
    let hub = setup.hub
    let homeID = setup.homeID
    let lamps = setup.lamps
    let (a, b, c) = (lamps[0], lamps[1], lamps[2])
    let others = Array(lamps[3...])
    // Twenty scenes, each turning one of the other lamps on; the bench's scene (lamp B on) comes last.
    var scenes: [UUID] = []
    var operations: [HomeOperation] = []
    for index in 0..<20 {
        let id = UUID()
        scenes.append(id)
        let lamp = others[index % others.count]
        operations.append(
            .addActionSet(
                home: homeID,
                id: id,
                name: "Scene \(index)",
                actions: [Action(characteristicID: lamp.on, targetValue: .bool(true))]
            )
        )
    }
    let sceneB = UUID()
    operations.append(
        .addActionSet(
            home: homeID,
            id: sceneB,
            name: "Lamp B on",
            actions: [Action(characteristicID: b.on, targetValue: .bool(true))]
        )
    )
    try await hub.perform(operations, as: .user(owner))

    var triggers: [Trigger] = []
    // The other triggers first, so the bench's triggers are not the first ones of the home.
    for index in 0..<(size - 10) {
        let lamp = others[index % others.count]
        let definition: TriggerDefinition
        if timedPercent > 0, index % 100 < timedPercent {
            definition = TriggerDefinition(
                events: [.calendar(time: TimeOfDay(hour: index % 24, minute: (index / 24) % 60), weekdays: [])]
            )
        } else {
            switch index % 3 {
            case 0: definition = TriggerDefinition(events: [.characteristic(id: lamp.on, value: .bool(true))])
            case 1: definition = TriggerDefinition(events: [.characteristic(id: lamp.on, value: .bool(false))])
            default:
                definition = TriggerDefinition(
                    events: [.threshold(id: lamp.brightness, min: Double(index % 90), max: nil)]
                )
            }
        }
        triggers.append(
            Trigger(
                id: UUID(),
                name: "Other \(index)",
                actionSetIDs: [scenes[index % scenes.count]],
                definition: definition,
                creatorID: owner
            )
        )
    }
    // Nine listeners of lamp A's On whose condition (lamp C is on) does not hold; then the one that fires.
    for index in 0..<9 {
        triggers.append(
            Trigger(
                id: UUID(),
                name: "Lamp A, lamp C on \(index)",
                actionSetIDs: [sceneB],
                definition: TriggerDefinition(
                    events: [.characteristic(id: a.on, value: .bool(true))],
                    condition: .characteristic(id: c.on, comparison: .equal, value: .bool(true))
                ),
                creatorID: owner
            )
        )
    }
    triggers.append(
        Trigger(
            id: UUID(),
            name: "Lamp A on → lamp B on",
            actionSetIDs: [sceneB],
            definition: TriggerDefinition(events: [.characteristic(id: a.on, value: .bool(true))]),
            creatorID: owner
        )
    )
    var start = 0
    while start < triggers.count {
        let batch = triggers[start..<min(start + 500, triggers.count)]
        try await hub.perform(batch.map { .addTrigger(home: homeID, trigger: $0) }, as: .user(owner))
        start += 500
    }
}

/// Figures of one series of firings.
struct Series {
    var latencies: [Double] = []
    var reportCalls: [Double] = []
    var cpu: UInt64 = 0
    var misses = 0

    func line(_ label: String) -> String {
        let count = max(latencies.count, 1)
        return "\(label): event → write at accessory p50 \(ms(percentile(latencies, 50))) ms, p99 "
            + "\(ms(percentile(latencies, 99))) ms, max \(ms(latencies.max() ?? .nan)) ms (n=\(latencies.count), "
            + "misses \(misses)); accessoryReported p50 \(ms(percentile(reportCalls, 50))) ms, p99 "
            + "\(ms(percentile(reportCalls, 99))) ms; process CPU per firing "
            + "\(ms(Double(cpu) / 1e6 / Double(count))) ms"
    }
}

/// `firings` firings: lamp A off (reset), a gap, lamp A on → lamp B's write at the accessory.
func fire(_ setup: Setup, firings: Int, warmUp: Int, gap: Duration, settle: Duration) async throws -> Series {
    let hub = setup.hub
    let a = setup.lamps[0]
    let b = setup.lamps[1]
    var series = Series()
    for index in 0..<(warmUp + firings) {
        await hub.accessoryReported(
            deviceID: setup.deviceID,
            changes: [CharacteristicValueChange(id: a.onHAP, value: .bool(false))]
        )
        try await Task.sleep(for: gap)
        setup.hook.arm(b.onHAP)
        let cpu0 = processCPUNanoseconds()
        let t0 = monotonicNanoseconds()
        await hub.accessoryReported(
            deviceID: setup.deviceID,
            changes: [CharacteristicValueChange(id: a.onHAP, value: .bool(true))]
        )
        let t1 = monotonicNanoseconds()
        let arrival = await setup.hook.wait(timeout: .seconds(5))
        try await Task.sleep(for: settle)
        let cpu1 = processCPUNanoseconds()
        guard index >= warmUp else { continue }
        guard let arrival else {
            series.misses += 1
            continue
        }
        series.latencies.append(Double(arrival - t0) / 1e6)
        series.reportCalls.append(Double(t1 - t0) / 1e6)
        series.cpu += cpu1 - cpu0
    }
    return series
}

/// The floor: the same write sent by `Hub.writeCharacteristics`, no automation.
func floorWrites(_ setup: Setup, count: Int, gap: Duration, settle: Duration) async throws -> Series {
    let b = setup.lamps[1]
    var series = Series()
    for index in 0..<(count + 20) {
        try await Task.sleep(for: gap)
        setup.hook.arm(b.onHAP)
        let cpu0 = processCPUNanoseconds()
        let t0 = monotonicNanoseconds()
        let task = Task(executorPreference: EventLoopTaskExecutor(setup.hub.eventLoop)) {
            _ = try? await setup.hub.writeCharacteristics(
                home: setup.homeID,
                [(b.on, .bool(index % 2 == 0))],
                as: .user(owner)
            )
        }
        let arrival = await setup.hook.wait(timeout: .seconds(5))
        _ = await task.value
        try await Task.sleep(for: settle)
        let cpu1 = processCPUNanoseconds()
        guard index >= 20 else { continue }
        guard let arrival else {
            series.misses += 1
            continue
        }
        series.latencies.append(Double(arrival - t0) / 1e6)
        series.cpu += cpu1 - cpu0
    }
    return series
}

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

do {
    let firings = argument("--firings").flatMap(Int.init) ?? 1000
    let sizes = (argument("--sizes") ?? "10,100,1000,10000").split(separator: ",").compactMap { Int($0) }
    let timedPercent = argument("--timed-percent").flatMap(Int.init) ?? 0
    let lampCount = argument("--lamps").flatMap(Int.init) ?? 100
    let gap = Duration.milliseconds(argument("--gap-ms").flatMap(Int.init) ?? 5)
    let settle = Duration.milliseconds(argument("--settle-ms").flatMap(Int.init) ?? 2)
    say(
        "hearth-automation-bench: \(firings) firings per size, \(lampCount) lamps on one bridge, "
            + "\(timedPercent) % of the other triggers timed, gap \(gap), settle \(settle)"
    )
    var floorDone = CommandLine.arguments.contains("--no-floor")
    for size in sizes where size >= 10 {
        let setup = try await makeSetup(lampCount: lampCount)
        if !floorDone {
            let floor = try await withTaskExecutorPreference(EventLoopTaskExecutor(setup.hub.eventLoop)) {
                try await floorWrites(setup, count: firings, gap: gap, settle: settle)
            }
            say(floor.line("floor (Hub.writeCharacteristics, no automation)"))
            floorDone = true
        }
        let addStart = monotonicNanoseconds()
        try await addTriggers(setup, size: size, timedPercent: timedPercent)
        let addSeconds = Double(monotonicNanoseconds() - addStart) / 1e9
        await setup.hub.commitReports()
        // From the hub's loop, as a link's events come.
        let series = try await withTaskExecutorPreference(EventLoopTaskExecutor(setup.hub.eventLoop)) {
            try await fire(setup, firings: firings, warmUp: 20, gap: gap, settle: settle)
        }
        say(
            series.line("\(size) triggers")
                + String(format: "; adding them took %.2f s; RSS %d MB", addSeconds, residentKiB() / 1024)
        )
        await setup.hub.stop()
        await setup.server.stop()
        try? FileManager.default.removeItem(atPath: setup.folder)
    }
} catch {
    FileHandle.standardError.write(Data("hearth-automation-bench: \(error)\n".utf8))
    exit(1)
}
