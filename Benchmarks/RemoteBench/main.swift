// Issue 19's pairing and pair-verify benchmark (build with -c release): a real `hearthd` child process serves its
// secure listener on loopback; this process is the client (HearthKit's `SecureHub` and `SecureTunnel`).
//
// - Client pairing (SRP-6a with a one-time pairing code, then the exchange of long-term keys): `--pairings` times,
//   each with a new code from `POST /v1/account/pairing-codes` (made outside the timed part).
// - A session: a new local connection to a `SecureTunnel` carrying one `GET /v1/me` with `Connection: close`, so
//   each is a TCP connect, pair-verify (X25519, two Ed25519 signatures and their checks, HKDF, ChaCha20-Poly1305) and
//   one request and answer in the session cipher. `--sessions` times.
// - The same request on one kept-alive session, `--requests` times, so the session's own cost is the difference.
// - The floor (Floor.swift): a bare SwiftNIO server in a child process that answers M1 and M3 with messages of M2's and
//   M4's size and closes; the same count of connections. What a session costs above it is pair-verify's own work.
//
// Each side's CPU is measured apart: the hub's as the sum of /proc/PID/task/*/schedstat of `hearthd`, the
// client's as this process's getrusage (it does nothing else while timing). Prints a markdown table.
//
// With `--hearth-sim PATH`, the same run also measures HAP's own pair-setup and pair-verify between HAPController
// and a hearth-sim child (Reference.swift), and prints each side's ratio against them.
//
//     hearth-remote-bench --hearthd PATH [--pairings 20] [--sessions 300] [--requests 1000] [--hearth-sim PATH]
import AsyncHTTPClient
import Foundation
import HearthAPI
import HearthKit
import NIOCore

/// Options from the command line.
struct Options {
    var hearthd = ""
    var pairings = 20
    var sessions = 300
    var requests = 1000
    var hearthSim = ""

    init(_ arguments: [String]) {
        var index = 1
        while index + 1 < arguments.count {
            let value = arguments[index + 1]
            switch arguments[index] {
            case "--hearthd": hearthd = value
            case "--pairings": pairings = Int(value) ?? pairings
            case "--sessions": sessions = Int(value) ?? sessions
            case "--requests": requests = Int(value) ?? requests
            case "--hearth-sim": hearthSim = value
            default: break
            }
            index += 2
        }
    }
}

/// CPU time of every thread of process `pid` in nanoseconds (the sum of /proc/PID/task/*/schedstat).
func cpuNanoseconds(_ pid: Int32) -> UInt64 {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var total: UInt64 = 0
    for task in tasks {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
            let first = text.split(separator: " ").first, let value = UInt64(first)
        else { continue }
        total += value
    }
    return total
}

/// This process's CPU time (user and system) in nanoseconds.
func ownCPUNanoseconds() -> UInt64 {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = UInt64(usage.ru_utime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_utime.tv_usec) * 1000
    let system = UInt64(usage.ru_stime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_stime.tv_usec) * 1000
    return user + system
}

/// The value at quantile `q` of `sorted` (ascending).
func quantile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.down)))]
}

/// A blocking loopback connection: one request written, the answer read until the server closes or `Content-Length`
/// bytes of body arrived.
final class BlockingConnection {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw BenchFailure("could not connect to 127.0.0.1:\(port)")
        }
    }

    deinit { close(descriptor) }

    /// Sends `request` and returns the answer's status line.
    func exchange(_ request: [UInt8]) throws -> String {
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchFailure("send failed") }
            sent += count
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            if let answer = Self.complete(received) { return answer }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchFailure("the tunnel closed before a whole answer") }
            received += buffer[0..<count]
        }
    }

    /// The status line of a whole answer in `bytes`, or `nil` while it is incomplete.
    static func complete(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound]
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        guard text[end.upperBound...].utf8.count >= length else { return nil }
        return String(head.split(separator: "\r\n").first ?? "")
    }
}

/// A failure of the benchmark, as a sentence.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One measured phase: wall times per operation and both sides' CPU per operation.
struct Phase {
    var name: String
    var wall: [Double] = []
    var hubCPU = 0.0
    var clientCPU = 0.0

    func row() -> String {
        let sorted = wall.sorted()
        let count = Double(wall.count)
        return String(
            format: "| %@ | %d | %.3f / %.3f | %.3f | %.3f |",
            name,
            wall.count,
            quantile(sorted, 0.5),
            quantile(sorted, 0.99),
            hubCPU / count,
            clientCPU / count
        )
    }
}

/// `duration` in milliseconds.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1e3
}

/// Runs `body` `count` times, timing each and both processes' CPU over all of them.
func measure(_ name: String, count: Int, hub: Int32, _ body: (Int) async throws -> Void) async throws -> Phase {
    var phase = Phase(name: name)
    let hubBefore = cpuNanoseconds(hub)
    let clientBefore = ownCPUNanoseconds()
    for index in 0..<count {
        let start = ContinuousClock.now
        try await body(index)
        let elapsed = ContinuousClock.now - start
        phase.wall.append(milliseconds(elapsed))
    }
    phase.hubCPU = Double(cpuNanoseconds(hub) - hubBefore) / 1e6
    phase.clientCPU = Double(ownCPUNanoseconds() - clientBefore) / 1e6
    return phase
}

if CommandLine.arguments.dropFirst().first == "--floor-server" { try serveFloor() }
let options = Options(CommandLine.arguments)
guard !options.hearthd.isEmpty else {
    print("usage: hearth-remote-bench --hearthd PATH [--pairings N] [--sessions N] [--requests N] [--hearth-sim PATH]")
    exit(2)
}
let state = NSTemporaryDirectory() + "hearth-remote-bench-\(UUID().uuidString)"
let process = Process()
process.executableURL = URL(fileURLWithPath: options.hearthd)
process.arguments = [
    "--state", state, "--port", "0", "--remote-address", "127.0.0.1", "--remote-port", "0", "--no-user-config",
    "--log-level", "warning",
]
let output = Pipe()
process.standardOutput = output
try process.run()
/// A one-time pairing code for the owner's account.
func pairingCode(url plainURL: String, token: String) async throws -> String {
    var request = HTTPClientRequest(url: plainURL + "/v1/account/pairing-codes")
    request.method = .POST
    request.headers.add(name: "Authorization", value: "Bearer \(token)")
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(ByteBuffer(string: "{}"))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 65536)
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let answer = try decoder.decode(NewPairingCode.self, from: Data(buffer: body))
    return answer.code
}

/// Pairs, opens sessions and sends requests against the `hearthd` that `process` runs; prints the table.
func run(_ process: Process, output: Pipe, state: String) async throws {
    // The secure listener's address from hearthd's output, then the plain URL and token from client.json.
    var secureAddress = ""
    var pending = Data()
    while secureAddress.isEmpty {
        let chunk = output.fileHandleForReading.availableData
        guard !chunk.isEmpty else { throw BenchFailure("hearthd exited before it listened") }
        pending += chunk
        let text = String(decoding: pending, as: UTF8.self)
        if let line = text.split(separator: "\n").first(where: {
            $0.contains("secure listener (paired clients only) on")
        }),
            let address = line.split(separator: " ").first(where: { $0.hasPrefix("127.0.0.1:") })
        {
            secureAddress = String(address.trimmingCharacters(in: CharacterSet(charactersIn: ";")))
        }
    }
    var found: (url: String, token: String)?
    for _ in 0..<500 where found == nil {
        if let data = FileManager.default.contents(atPath: state + "/client.json"),
            let client = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let url = client["url"] as? String, let value = client["token"] as? String
        {
            found = (url, value)
        } else {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
    guard let (plainURL, token) = found else { throw BenchFailure("hearthd wrote no client.json") }
    let pid = process.processIdentifier

    // Warm-up: one pairing and a few sessions, so first-use costs (code paths, allocator) are not counted.
    let codes = try await (0..<(options.pairings + 1)).asyncMap { _ in
        try await pairingCode(url: plainURL, token: token)
    }
    let client = try await SecureHub.pair(address: secureAddress, code: codes[options.pairings])
    let pairing = try await measure("client pairing (SRP-6a, key exchange)", count: options.pairings, hub: pid) {
        index in
        _ = try await SecureHub.pair(address: secureAddress, code: codes[index])
    }
    let tunnel = try await SecureTunnel.start(client)
    let tunnelPort = Int(tunnel.url.split(separator: ":").last ?? "") ?? 0
    let closing = Array(
        "GET /v1/me HTTP/1.1\r\nHost: hub\r\n\(SecureTunnel.header): \(tunnel.secret)\r\nConnection: close\r\n\r\n".utf8
    )
    let keepAlive = Array("GET /v1/me HTTP/1.1\r\nHost: hub\r\n\(SecureTunnel.header): \(tunnel.secret)\r\n\r\n".utf8)
    for _ in 0..<20 {
        let status = try BlockingConnection(port: tunnelPort).exchange(closing)
        guard status.contains(" 200 ") else { throw BenchFailure("GET /v1/me through the tunnel answered \(status)") }
    }
    let sessions = try await measure("session: connect, pair-verify, one request", count: options.sessions, hub: pid) {
        _ in
        _ = try BlockingConnection(port: tunnelPort).exchange(closing)
    }
    let floor = try await floorRow(sessions: options.sessions)
    let open = try BlockingConnection(port: tunnelPort)
    for _ in 0..<20 { _ = try open.exchange(keepAlive) }
    let requests = try await measure("one request on an open session", count: options.requests, hub: pid) { _ in
        _ = try open.exchange(keepAlive)
    }
    await tunnel.stop()

    print("| operation | count | wall p50 / p99 (ms) | hub CPU per op (ms) | client CPU per op (ms) |")
    print("|---|---|---|---|---|")
    for phase in [pairing, sessions, requests, floor] { print(phase.row()) }
    let verifyHub = sessions.hubCPU / Double(sessions.wall.count) - requests.hubCPU / Double(requests.wall.count)
    let verifyClient =
        sessions.clientCPU / Double(sessions.wall.count) - requests.clientCPU / Double(requests.wall.count)
    print(
        String(
            format: "| pair-verify and connection set-up (session − request) | | %.3f (p50) | %.3f | %.3f |",
            quantile(sessions.wall.sorted(), 0.5) - quantile(requests.wall.sorted(), 0.5),
            verifyHub,
            verifyClient
        )
    )
    let floorCount = Double(floor.wall.count)
    print(
        String(
            format: "| pair-verify above the floor (session − request − floor) | | | %.3f | %.3f |",
            verifyHub - floor.hubCPU / floorCount,
            verifyClient - floor.clientCPU / floorCount
        )
    )
    guard !options.hearthSim.isEmpty else { return }
    let reference = try await referenceRows(
        hearthSim: options.hearthSim,
        pairings: options.pairings,
        sessions: options.sessions
    )
    print(reference.setup.row())
    print(reference.verify.row())
    let count = { (phase: Phase) in Double(phase.wall.count) }
    print(
        String(
            format: "\nclient pairing / HAP pair-setup at the controller, CPU: hub %.2f×, client %.2f×; "
                + "pair-verify and set-up / HAP's: hub %.2f×, client %.2f×",
            (pairing.hubCPU / count(pairing)) / (reference.setup.clientCPU / count(reference.setup)),
            (pairing.clientCPU / count(pairing)) / (reference.setup.clientCPU / count(reference.setup)),
            verifyHub / (reference.verify.hubCPU / count(reference.verify)),
            verifyClient / (reference.verify.clientCPU / count(reference.verify))
        )
    )
}

do {
    try await run(process, output: output, state: state)
} catch {
    print("hearth-remote-bench: \(error)")
}
process.terminate()
process.waitUntilExit()
try? FileManager.default.removeItem(atPath: state)

extension Sequence {
    /// `transform` applied to each element in order, awaiting each.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
