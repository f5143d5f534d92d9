// The hub's API under load, server and clients in one process on loopback (127.0.0.1, ephemeral port):
// - p50/p99 of one API call: a characteristic read, and a durable change (rename a room), one at a time;
// - reads per second with 8 concurrent keep-alive connections;
// - event fan-out: 100 WebSocket clients, time from sending a change until the last of them has its event;
// - a characteristic write end to end: client → API → hub → HAP (encrypted session) → a simulated lightbulb behind a
//   bridge served by HAPAccessoryServer on 127.0.0.1 (hearth-sim's library, in process) → back, one at a time.
// Usage: swift run -c release HubAPILoad [--clients 100] [--rounds 50] [--seconds 5] [--requests 2000]
import AsyncHTTPClient
import Foundation
import HAP
import HAPAccessoryServer
import HomeGraph
import Hub
import HubServer
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

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next().flatMap(Double.init) ?? 0
            switch argument {
            case "--clients": clients = Int(value)
            case "--rounds": rounds = Int(value)
            case "--seconds": seconds = value
            case "--requests": latencyRequests = Int(value)
            default: break
            }
        }
    }
}

func percentile(_ sorted: [Duration], _ fraction: Double) -> Duration {
    guard !sorted.isEmpty else { return .zero }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

func describe(_ samples: [Duration]) -> String {
    let sorted = samples.sorted()
    func ms(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.3f ms", seconds * 1000)
    }
    return
        "p50 \(ms(percentile(sorted, 0.5))), p99 \(ms(percentile(sorted, 0.99))), max \(ms(sorted.last ?? .zero)) (n=\(sorted.count))"
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

    func call(_ method: NIOHTTP1.HTTPMethod, _ path: String, body: String? = nil) async throws -> Int {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }
}

@main
enum HubAPILoad {
    static func main() async throws {
        let options = Options(CommandLine.arguments)
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let folder = NSTemporaryDirectory() + "hub-api-load-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hub = try await Hub(configuration: .init(stateFolder: folder, logger: logger))
        let credentials = try CredentialStore(path: folder + "/credentials.json")
        let (account, token) = try await credentials.createAccount(name: "Bench", label: "bench")
        let home = try await hub.addHome(name: "Bench Home", ownerName: "Bench", as: .user(account.id))
        let characteristicID = UUID()
        let lamp = HomeAccessory(
            id: UUID(),
            name: "Lamp",
            roomID: home.roomForEntireHome.id,
            category: .lightbulb,
            services: [
                HomeService(
                    id: UUID(),
                    name: "Lamp",
                    type: HAPUUID(apple: 0x43),
                    instanceID: 10,
                    isPrimary: true,
                    characteristics: [
                        HomeCharacteristic(
                            id: characteristicID,
                            type: HAPUUID(apple: 0x25),
                            instanceID: 11,
                            format: .bool,
                            permissions: [.read, .write, .notify],
                            value: .bool(false)
                        )
                    ]
                )
            ]
        )
        try await hub.perform(.addAccessory(home: home.id, accessory: lamp), as: .hub)
        let roomID = UUID()
        try await hub.perform(.addRoom(home: home.id, id: roomID, name: "Hall"), as: .user(account.id))

        let server = HubServer(
            hub: hub,
            credentials: credentials,
            configuration: .init(host: "127.0.0.1", port: 0, resumeGrace: .milliseconds(10)),
            logger: logger
        )
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = server.makeApplication { channel in portContinuation.yield(channel.localAddress?.port ?? 0) }
        let serverTask = Task { try await app.runService() }
        var portIterator = portStream.makeAsyncIterator()
        guard let port = await portIterator.next() else { fatalError("the server did not start") }
        let base = "http://127.0.0.1:\(port)"
        let client = HTTPClient(eventLoopGroupProvider: .singleton)

        let api = Caller(client: client, base: base, token: token)

        let readPath = "/v1/homes/\(home.id)/characteristics/\(characteristicID)"
        print("# HubAPILoad: \(ProcessInfo.processInfo.activeProcessorCount) cores, server and clients in one process")

        // 1. One call at a time.
        for _ in 0..<200 { _ = try await api.call(.GET, readPath) }
        var reads: [Duration] = []
        for _ in 0..<options.latencyRequests {
            let start = ContinuousClock.now
            let status = try await api.call(.GET, readPath)
            reads.append(ContinuousClock.now - start)
            precondition(status == 200)
        }
        print(
            "read a characteristic (GET \(readPath.replacingOccurrences(of: "\(home.id)", with: "{h}").replacingOccurrences(of: "\(characteristicID)", with: "{c}"))): \(describe(reads))"
        )
        var changes: [Duration] = []
        for index in 0..<min(options.latencyRequests, 500) {
            let start = ContinuousClock.now
            let status = try await api.call(
                .PATCH,
                "/v1/homes/\(home.id)/rooms/\(roomID)",
                body: #"{"name": "Hall \#(index)"}"#
            )
            changes.append(ContinuousClock.now - start)
            precondition(status == 200)
        }
        print("rename a room (PATCH, durable change with its event): \(describe(changes))")

        // 2. Reads per second, 8 connections.
        let tally = Tally()
        let deadline = ContinuousClock.now + .seconds(options.seconds)
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    while ContinuousClock.now < deadline {
                        _ = try await api.call(.GET, readPath)
                        tally.reads.add(1, ordering: .relaxed)
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            String(
                format: "reads per second, 8 connections for %.1f s: %.0f",
                seconds,
                Double(tally.reads.load(ordering: .relaxed)) / seconds
            )
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
                                    for try await message in inbound.messages(maxSize: 1 << 20) {
                                        let now = ContinuousClock.now
                                        guard case .text(let text) = message,
                                            let range = text.range(of: "\"sequence\":")
                                        else {
                                            continue
                                        }
                                        let digits = text[range.upperBound...].prefix { $0.isNumber }
                                        if let sequence = Int(digits) {
                                            tally.arrivals.withLock { $0[sequence, default: []].append(now) }
                                        }
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
        while tally.ready.load(ordering: .relaxed) < options.clients { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))
        var fanOut: [Duration] = []
        var lastSequence = Int(await hub.graph.lastSequence(ofHome: home.id))
        for round in 0..<options.rounds {
            let sent = ContinuousClock.now
            _ = try await api.call(.PATCH, "/v1/homes/\(home.id)/rooms/\(roomID)", body: #"{"name": "Fan \#(round)"}"#)
            lastSequence += 1
            let sequence = lastSequence
            while tally.arrivals.withLock({ $0[sequence]?.count ?? 0 }) < options.clients {
                try await Task.sleep(for: .microseconds(200))
            }
            let last = tally.arrivals.withLock { $0[sequence]?.max() } ?? sent
            fanOut.append(last - sent)
            try await Task.sleep(for: .milliseconds(20))
        }
        print(
            "event fan-out to \(options.clients) WebSocket clients (change sent → last client has the event): \(describe(fanOut))"
        )
        tally.stoppers.withLock { $0.forEach { $0.finish() } }
        for socket in sockets { _ = try? await socket.value }

        // 4. A characteristic write end to end through a simulated accessory, one at a time.
        try await measureWrites(hub: hub, home: home.id, owner: account.id, api: api, requests: options.latencyRequests)
        try await client.shutdown()
        serverTask.cancel()
        await hub.stop()
    }

    /// Serves a bridge of simulated lightbulbs on 127.0.0.1 as hearth-sim does (one event loop for the simulation
    /// and the server), pairs it through the hub, then times `PUT …/characteristics/{id}` on a light's On.
    static func measureWrites(hub: Hub, home: UUID, owner: UUID, api: Caller, requests: Int) async throws {
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
        let added = try await hub.pairAccessory(
            home: home,
            host: "127.0.0.1",
            port: port,
            setupCode: try SetupCode("031-45-154"),
            as: .user(owner)
        )
        guard
            let on = added.flatMap(\.characteristics).first(where: { characteristic in
                characteristic.type == HAPUUID(apple: 0x25) && characteristic.permissions.contains(.write)
            })
        else { fatalError("the bridge has no lightbulb") }
        let path = "/v1/homes/\(home)/characteristics/\(on.id)"
        for index in 0..<200 {
            let status = try await api.call(.PUT, path, body: #"{"value": \#(index % 2 == 0)}"#)
            precondition(status == 200)
        }
        var writes: [Duration] = []
        for index in 0..<requests {
            let start = ContinuousClock.now
            let status = try await api.call(.PUT, path, body: #"{"value": \#(index % 2 == 0)}"#)
            writes.append(ContinuousClock.now - start)
            precondition(status == 200)
        }
        print(
            "characteristic write end to end (PUT …/characteristics/{c}: API → hub → HAP → simulated light → back): \(describe(writes))"
        )
        await bridge.stop()
    }
}
