// The hub's API under load, with the hub in a process of its own: HubAPILoad starts a real `hearthd` (the binary
// next to its own, or `--hearthd PATH`) as a child process on a fresh state folder, on 127.0.0.1 with an ephemeral
// port (`--port 0`; the address and the owner's token come from `<state>/client.json`; its log, at `--log-level`,
// goes to stderr), and stops it with SIGTERM at the end (SIGKILL after 10 s; only that PID). Everything is set up
// through the API: a home and a room, and a bridge of one simulated lightbulb served by HAPAccessoryServer on
// 127.0.0.1 in this process (hearth-sim's library) paired by address. The clients and the accessory run in this
// process, so the hub's CPU is its own; it is read from /proc/<pid>/stat around each measurement.
// - p50/p99 of one API call: a characteristic read (the hub's cached value), and a durable change (rename a room);
// - reads per second with 8 concurrent keep-alive connections;
// - event fan-out: 100 WebSocket clients, time from sending a change until the last of them has its event (5 rounds
//   to warm up, then `--rounds`), with the CPU of the hub and of this process (the clients) per change;
// - a characteristic write end to end: client → API → hub → HAP (encrypted session) → the simulated lightbulb → back,
//   one at a time.
// Until commit a2484c2 the hub, the accessory and the clients all ran in one process (the hub made in process).
// Build both, then run: cd Benchmarks && swift build -c release --product HubAPILoad &&
//   swift build -c release --product hearthd && ./.build/release/HubAPILoad
// Each run prints a wake-up probe at start and end (WakeProbe.swift): how slow the VM is at waking a thread on the
// other CPU right now, to tell numbers from quiet and slow periods apart.
// Options: [--clients 100] [--rounds 50] [--seconds 5] [--requests 2000] [--hearthd PATH] [--log-level info]
//          [--samples FOLDER] (FOLDER/writes.txt: per write, in order, the sum of the round trips before it and its own, ms)
import AsyncHTTPClient
import Foundation
import HAP
import HAPAccessoryServer
import HAPTypes
import HearthAPI
import HomeGraph
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Simulator
import Synchronization

struct Options {
    var clients = 100
    var rounds = 50
    var seconds = 5.0
    var latencyRequests = 2000
    var hearthd: String?
    var logLevel = "info"
    var samplesFolder: String?

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            let text = iterator.next() ?? ""
            let value = Double(text) ?? 0
            switch argument {
            case "--clients": clients = Int(value)
            case "--rounds": rounds = Int(value)
            case "--seconds": seconds = value
            case "--requests": latencyRequests = Int(value)
            case "--hearthd": hearthd = text
            case "--log-level": logLevel = text
            case "--samples": samplesFolder = text
            default: break
            }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func percentile(_ sorted: [Duration], _ fraction: Double) -> Duration {
    guard !sorted.isEmpty else { return .zero }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

/// A duration in milliseconds.
func milliseconds(_ duration: Duration) -> Double {
    (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 1000
}

func describe(_ samples: [Duration]) -> String {
    let sorted = samples.sorted()
    func ms(_ duration: Duration) -> String { String(format: "%.3f ms", milliseconds(duration)) }
    return
        "p50 \(ms(percentile(sorted, 0.5))), p99 \(ms(percentile(sorted, 0.99))), max \(ms(sorted.last ?? .zero)) (n=\(sorted.count))"
}

/// The hub's process: its CPU time so far (user + system, from /proc/<pid>/stat).
struct HubProcess: Sendable {
    let pid: Int32

    /// User plus system CPU seconds of the process so far.
    func cpuSeconds() -> Double {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return 0 }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return 0 }
        // After the command name: state is field 3, utime field 14, stime field 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Whether the process is still running (neither gone nor a zombie).
    var isRunning: Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return false }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return false }
        return text[text.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// Resident memory in MB (VmRSS).
    func residentMB() -> Double {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/status") else { return 0 }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        let kilobytes = line?.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
        return kilobytes / 1024
    }

    /// Runs `body` and returns its result with the hub's CPU milliseconds spent meanwhile.
    func measuring<T>(_ body: () async throws -> T) async rethrows -> (T, cpuMilliseconds: Double) {
        let before = cpuSeconds()
        let result = try await body()
        return (result, (cpuSeconds() - before) * 1000)
    }
}

/// The number after the first `"sequence":` of a text frame, scanned as bytes (no String, no
/// `String.range(of:)`, which goes through NSString): the 100 clients share the cores with the hub.
func sequenceNumber(in data: ByteBuffer) -> Int? {
    let key = Array(#""sequence":"#.utf8)
    return data.withUnsafeReadableBytes { bytes -> Int? in
        guard bytes.count > key.count else { return nil }
        for start in 0...(bytes.count - key.count) where bytes[start] == key[0] {
            var matches = true
            for offset in 1..<key.count where bytes[start + offset] != key[offset] {
                matches = false
                break
            }
            guard matches else { continue }
            var index = start + key.count
            var value = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                value = value * 10 + Int(bytes[index] - 0x30)
                digits += 1
                index += 1
            }
            return digits > 0 ? value : nil
        }
        return nil
    }
}

/// Prints a line at once (stdout is buffered when it is a file), so a watcher sees each phase as it ends.
func say(_ line: String) {
    print(line)
    fflush(nil)
}

func loadAverage() -> String {
    guard let data = FileManager.default.contents(atPath: "/proc/loadavg") else { return "?" }
    return String(decoding: data, as: UTF8.self).split(separator: " ").prefix(3).joined(separator: " ")
}

/// The machine's stolen time so far in milliseconds: the `steal` field of /proc/stat's `cpu` line, time the
/// hypervisor ran something else while one of this VM's CPUs had work; `nil` where there is none.
func stolenMilliseconds() -> Double? {
    guard let data = FileManager.default.contents(atPath: "/proc/stat"),
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first,
        line.hasPrefix("cpu ")
    else { return nil }
    let fields = line.split(separator: " ")
    guard fields.count > 8, let ticks = Double(fields[8]) else { return nil }
    return ticks * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// "; N ms stolen from the VM's CPUs meanwhile" for a phase, or nothing where steal is not reported.
func stolen(since start: Double?) -> String {
    guard let start, let now = stolenMilliseconds() else { return "" }
    return String(format: "; %.0f ms stolen from the VM's CPUs meanwhile", now - start)
}

/// Shared counters of the load loops and WebSocket clients.
final class Tally: Sendable {
    let reads = Atomic<Int>(0)
    let ready = Atomic<Int>(0)
    let arrivals = Mutex<[Int: [ContinuousClock.Instant]]>([:])
    let stoppers = Mutex<[AsyncStream<Void>.Continuation]>([])
}

/// The API's client: keep-alive HTTP/1.1 with the bearer token.
struct Caller: Sendable {
    let client: HTTPClient
    let base: String
    let token: String

    @discardableResult
    func call(_ method: NIOHTTP1.HTTPMethod, _ path: String, body: String? = nil) async throws -> Int {
        try await send(method, path, body: body).status
    }

    func send(
        _ method: NIOHTTP1.HTTPMethod,
        _ path: String,
        body: String? = nil
    ) async throws -> (status: Int, body: ByteBuffer) {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), answer)
    }

    /// Sends and decodes a JSON answer, which must have `status`.
    func json<T: Decodable>(
        _ type: T.Type,
        _ method: NIOHTTP1.HTTPMethod,
        _ path: String,
        body: String? = nil,
        status expected: Int
    ) async throws -> T {
        let (status, answer) = try await send(method, path, body: body)
        guard status == expected else {
            throw BenchError("\(method) \(path) answered \(status): \(String(buffer: answer))")
        }
        return try JSONDecoder.api.decode(T.self, from: Data(answer.readableBytesView))
    }
}

struct EventsAnswer: Decodable {
    struct Event: Decodable { var sequence: UInt64 }
    var events: [Event]
}

struct RoomAnswer: Decodable { var room: Room }

struct AccessoriesAnswer: Decodable { var accessories: [Accessory] }

@main
enum HubAPILoad {
    static func main() async throws {
        let options = Options(CommandLine.arguments)
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let hearthd = options.hearthd ?? executable.deletingLastPathComponent().appendingPathComponent("hearthd").path
        guard FileManager.default.isExecutableFile(atPath: hearthd) else {
            say("HubAPILoad: no hearthd at \(hearthd); build it: swift build -c release --product hearthd")
            exit(2)
        }
        let folder = NSTemporaryDirectory() + "hub-api-load-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: hearthd)
        child.arguments = [
            "--state", folder + "/hub", "--address", "127.0.0.1", "--port", "0", "--no-user-config",
            "--log-level", options.logLevel,
        ]
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        let hub = HubProcess(pid: child.processIdentifier)
        var failure: (any Error)?
        do {
            try await run(options, hub: hub, folder: folder + "/hub")
        } catch {
            failure = error
        }
        // Only the child this run started.
        kill(hub.pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(10)
        while child.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if child.isRunning { kill(hub.pid, SIGKILL) }
        child.waitUntilExit()
        if let failure {
            say("HubAPILoad: \(failure)")
            exit(1)
        }
    }

    static func run(
        _ options: Options,
        hub: HubProcess,
        folder: String
    ) async throws {
        let configurationPath = folder + "/client.json"
        let waitUntil = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: configurationPath) {
            guard hub.isRunning else { throw BenchError("hearthd exited before serving") }
            guard ContinuousClock.now < waitUntil else { throw BenchError("hearthd did not start within 60 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
        let configuration = try ClientConfiguration.read(fromPath: configurationPath)
        guard let url = URL(string: configuration.url), let port = url.port else {
            throw BenchError("no port in \(configuration.url)")
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await measure(options, hub: hub, client: client, configuration: configuration, port: port)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    static func measure(
        _ options: Options,
        hub: HubProcess,
        client: HTTPClient,
        configuration: ClientConfiguration,
        port: Int
    ) async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let api = Caller(client: client, base: configuration.url, token: configuration.token)
        let token = configuration.token
        say(
            "# HubAPILoad: \(ProcessInfo.processInfo.activeProcessorCount) cores, hearthd pid \(hub.pid) on "
                + "\(configuration.url), clients and accessory in this process; load average \(loadAverage())"
        )
        say(WakeProbe.describe("start"))

        let home = try await api.json(
            HomeResponse.self,
            .POST,
            "/v1/homes",
            body: #"{"name": "Bench Home"}"#,
            status: 201
        ).home
        let roomID = try await api.json(
            RoomAnswer.self,
            .POST,
            "/v1/homes/\(home.id)/rooms",
            body: #"{"name": "Hall"}"#,
            status: 201
        ).room.id
        let (bridge, lampOn) = try await startBridge(api: api, home: home.id)

        let readPath = "/v1/homes/\(home.id)/characteristics/\(lampOn)"
        // 1. One call at a time.
        for _ in 0..<200 { try await api.call(.GET, readPath) }
        let (reads, readCPU) = try await hub.measuring {
            try await timed(options.latencyRequests, "a read") { _ in try await api.call(.GET, readPath) }
        }
        say(
            "read a characteristic (GET …/characteristics/{c}, the hub's cached value): \(describe(reads)); "
                + perCall(readCPU, reads.count)
        )
        let (changes, changeCPU) = try await hub.measuring {
            try await timed(min(options.latencyRequests, 500), "a change") { index in
                try await api.call(.PATCH, "/v1/homes/\(home.id)/rooms/\(roomID)", body: #"{"name": "Hall \#(index)"}"#)
            }
        }
        say(
            "rename a room (PATCH, durable change with its event): \(describe(changes)); "
                + perCall(changeCPU, changes.count)
        )

        // 2. Reads per second, 8 connections.
        let tally = Tally()
        let deadline = ContinuousClock.now + .seconds(options.seconds)
        let started = ContinuousClock.now
        let (_, throughputCPU) = try await hub.measuring {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        while ContinuousClock.now < deadline {
                            try await api.call(.GET, readPath)
                            tally.reads.add(1, ordering: .relaxed)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let readCount = tally.reads.load(ordering: .relaxed)
        say(
            String(format: "reads per second, 8 connections for %.1f s: %.0f; ", seconds, Double(readCount) / seconds)
                + perCall(throughputCPU, readCount)
        )

        // 3. Fan-out to N WebSocket clients.
        var sockets: [Task<Void, any Error>] = []
        for _ in 0..<options.clients {
            sockets.append(
                Task {
                    let (stop, stopper) = AsyncStream.makeStream(of: Void.self)
                    tally.stoppers.withLock { $0.append(stopper) }
                    _ = try await WebSocketClient.connect(
                        url: "ws://127.0.0.1:\(port)/v1/events",
                        configuration: .init(
                            maxFrameSize: 1 << 20,
                            additionalHeaders: [.authorization: "Bearer \(token)"]
                        ),
                        logger: logger
                    ) { inbound, outbound, _ in
                        try await outbound.writeTextMessage(#"{"resume": {}}"#)
                        tally.ready.add(1, ordering: .relaxed)
                        await withTaskGroup(of: Void.self) { group in
                            group.addTask {
                                do {
                                    // Frames, not messages: the server sends each event as one text frame, and
                                    // scanning its bytes spares 100 clients a String each.
                                    for try await frame in inbound {
                                        let now = ContinuousClock.now
                                        guard frame.opcode == .text, let sequence = sequenceNumber(in: frame.data)
                                        else {
                                            continue
                                        }
                                        tally.arrivals.withLock { $0[sequence, default: []].append(now) }
                                    }
                                } catch {}
                            }
                            group.addTask { for await _ in stop {} }
                            await group.next()
                            group.cancelAll()
                        }
                    }
                }
            )
        }
        let connectBy = ContinuousClock.now + .seconds(30)
        while tally.ready.load(ordering: .relaxed) < options.clients {
            guard ContinuousClock.now < connectBy else { throw BenchError("the WebSocket clients did not connect") }
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(200))
        // Five rounds to warm up, then the timed ones.
        var fanOut: [Duration] = []
        var fanOutCPU = 0.0
        let clientsBefore = HubProcess(pid: getpid()).cpuSeconds()
        let fanOutSteal = stolenMilliseconds()
        for round in 0..<(options.rounds + 5) {
            let sent = ContinuousClock.now
            let (answer, cpu) = try await hub.measuring {
                let answer = try await api.json(
                    EventsAnswer.self,
                    .PATCH,
                    "/v1/homes/\(home.id)/rooms/\(roomID)",
                    body: #"{"name": "Fan \#(round)"}"#,
                    status: 200
                )
                guard let sequence = answer.events.last.map({ Int($0.sequence) }) else {
                    throw BenchError("a change without an event")
                }
                let waitBy = ContinuousClock.now + .seconds(10)
                while tally.arrivals.withLock({ $0[sequence]?.count ?? 0 }) < options.clients {
                    guard ContinuousClock.now < waitBy else { throw BenchError("an event did not reach every client") }
                    try await Task.sleep(for: .microseconds(200))
                }
                return sequence
            }
            guard round >= 5 else { continue }
            let last = tally.arrivals.withLock { $0[answer]?.max() } ?? sent
            fanOut.append(last - sent)
            fanOutCPU += cpu
            try await Task.sleep(for: .milliseconds(20))
        }
        say(
            "event fan-out to \(options.clients) WebSocket clients (change sent → last client has the event): "
                + "\(describe(fanOut)); " + perCall(fanOutCPU, fanOut.count, unit: "change")
                + String(
                    format: " (this process, the \(options.clients) clients: %.3f ms per change)",
                    (HubProcess(pid: getpid()).cpuSeconds() - clientsBefore) * 1000 / Double(options.rounds + 5)
                ) + stolen(since: fanOutSteal)
        )
        tally.stoppers.withLock { $0.forEach { $0.finish() } }
        for socket in sockets { _ = try? await socket.value }

        // 4. A characteristic write end to end through the simulated accessory, one at a time.
        let writePath = "/v1/homes/\(home.id)/characteristics/\(lampOn)"
        for index in 0..<200 {
            let status = try await api.call(.PUT, writePath, body: #"{"value": \#(index % 2 == 0)}"#)
            guard status == 200 else { throw BenchError("a write answered \(status)") }
        }
        let writeSteal = stolenMilliseconds()
        let (writes, writeCPU) = try await hub.measuring {
            try await timed(options.latencyRequests, "a write") { index in
                try await api.call(.PUT, writePath, body: #"{"value": \#(index % 2 == 0)}"#)
            }
        }
        if let folder = options.samplesFolder {
            // One line per write, in order: the sum of the round trips before it (the writes run back to back, so
            // about when it started, in ms into the phase) and its own round trip.
            var text = ""
            var elapsed = Duration.zero
            for sample in writes {
                text += String(format: "%.3f %.3f\n", milliseconds(elapsed), milliseconds(sample))
                elapsed += sample
            }
            try text.write(toFile: folder + "/writes.txt", atomically: true, encoding: .utf8)
        }
        say(
            "characteristic write end to end (PUT …/characteristics/{c}: API → hub → HAP → simulated light → back): "
                + "\(describe(writes)); " + perCall(writeCPU, writes.count) + stolen(since: writeSteal)
        )
        say(String(format: "# hearthd VmRSS %.1f MB; load average \(loadAverage())", hub.residentMB()))
        say(WakeProbe.describe("end"))
        await bridge.stop()
    }

    /// Makes `count` calls one after another and returns each one's round trip; a call must answer 200.
    static func timed(
        _ count: Int,
        _ what: String,
        _ call: (Int) async throws -> Int
    ) async throws -> [Duration] {
        var samples: [Duration] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            let start = ContinuousClock.now
            let status = try await call(index)
            samples.append(ContinuousClock.now - start)
            guard status == 200 else { throw BenchError("\(what) answered \(status)") }
        }
        return samples
    }

    static func perCall(_ milliseconds: Double, _ count: Int, unit: String = "call") -> String {
        String(format: "hub CPU %.3f ms per %@", milliseconds / Double(max(count, 1)), unit)
    }

    /// Serves a bridge of one simulated lightbulb on 127.0.0.1 in this process as hearth-sim does (one event loop
    /// for the simulation and the server), pairs it through the API by address, and returns its light's On.
    static func startBridge(api: Caller, home: UUID) async throws -> (AccessoryServer, UUID) {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let simulator = try SimulatedAccessories(
            description: SimulatorDescription(bridgeName: "Bench Bridge", presets: [PresetRequest(preset: .lightbulb)]),
            eventLoop: loop
        )
        var logger = Logger(label: "bench.bridge")
        logger.logLevel = .critical
        let bridge = AccessoryServer(
            configuration: AccessoryServer.Configuration(
                name: "Bench Bridge",
                model: "hearth-sim",
                category: simulator.category,
                host: "127.0.0.1",
                port: 0,
                setupCode: try SetupCode("031-45-154")
            ),
            backend: simulator,
            store: InMemoryAccessoryStateStore(),
            logger: logger,
            eventLoopGroup: loop
        )
        let port = try await bridge.start()
        let added = try await api.json(
            AccessoriesAnswer.self,
            .POST,
            "/v1/homes/\(home)/accessories",
            body: #"{"host": "127.0.0.1", "port": \#(port), "setupCode": "031-45-154"}"#,
            status: 201
        ).accessories
        guard
            let on = added.flatMap(\.characteristics).first(where: { characteristic in
                characteristic.type == HAPUUID(apple: 0x25) && characteristic.permissions.contains(.write)
            })
        else {
            await bridge.stop()
            throw BenchError("the bridge has no lightbulb")
        }
        return (bridge, on.id)
    }
}
