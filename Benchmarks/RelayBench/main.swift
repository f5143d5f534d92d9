// hearth-relay-bench: issue 19's relay benchmark, on loopback, in one run.
//
// A `hearth-relay` child process (its CPU and RSS are its own, read from /proc) and, in this process, an echo
// target, HubLinks (the hub's end) and ClientForwarders (the client's end):
// 1. added latency: a 100-byte ping-pong through ClientForwarder → relay → HubLink → echo against the same
//    ping-pong direct to the echo; p50/p99, and the relay's CPU per forwarded frame;
// 2. idle homes: N hub links kept connected; the relay's RSS before and after, bytes per idle home;
// 3. active clients: M clients at R requests/s each over some homes (with the idle homes still connected), the
//    same load direct first: p50/p99 and added p99, the relay's CPU;
// 4. the relay alone under that load (RawLoad.swift; plain ws:// only, skipped with --raw 0 or TLS): the same
//    clients and rate, but clients and hubs speak the relay's protocol from NIO channel handlers here (no forwarders,
//    links or echo hop), against the same clients on plain TCP to the echo: added p50/p99 and the relay's CPU, with
//    this process's CPU beside it.
//
// Usage: hearth-relay-bench --relay PATH [--pings 10000] [--homes 10000] [--clients 1000] [--active-homes 50]
//        [--rate 10] [--seconds 20] [--payload 100] [--raw 1] [--relay-threads N (the relay's --threads)]
//        [--tls-certificate PEM --tls-key PEM]
// With --tls-certificate and --tls-key the relay serves wss:// with them, and every hub link and client forwarder
// trusts exactly that certificate (`RelayTrust`), as `hearthd --relay-ca` does.
import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import Relay

#if canImport(Glibc)
    import Glibc
#endif

// MARK: Options

/// The benchmark's settings, from the command line.
struct Options {
    var relay = ".build/release/hearth-relay"
    var pings = 10_000
    var warmup = 500
    var payload = 100
    var homes = 10_000
    var batch = 250
    var clients = 1_000
    var activeHomes = 50
    var rate = 10.0
    var seconds = 20.0
    var raw = true
    var relayThreads = 0
    var tlsCertificate: String?
    var tlsKey: String?

    init(arguments: [String]) {
        var rest = arguments.dropFirst()
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { fail("\(name) needs a value.") }
            func number() -> Int {
                guard let number = Int(value), number >= 0 else {
                    fail("\(name) must be a whole number; got \(value).")
                }
                return number
            }
            switch name {
            case "--relay": relay = value
            case "--pings": pings = number()
            case "--warmup": warmup = number()
            case "--payload": payload = max(1, number())
            case "--homes": homes = number()
            case "--batch": batch = max(1, number())
            case "--clients": clients = number()
            case "--active-homes": activeHomes = max(1, number())
            case "--rate": rate = Double(value) ?? rate
            case "--seconds": seconds = Double(value) ?? seconds
            case "--raw": raw = number() != 0
            case "--relay-threads": relayThreads = number()
            case "--tls-certificate": tlsCertificate = value
            case "--tls-key": tlsKey = value
            default: fail("Unknown option \(name); see the comment at the top of Benchmarks/RelayBench/main.swift.")
            }
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else { fail("--tls-certificate and --tls-key go together.") }
    }
}

/// Prints `message` to standard error and exits with status 2.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("hearth-relay-bench: \(message)\n".utf8))
    exit(2)
}

/// Prints a progress line to standard error.
func note(_ message: String) {
    FileHandle.standardError.write(Data("[\(Date())] \(message)\n".utf8))
}

// MARK: /proc

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

/// A field of /proc/PID/status in KiB (VmRSS, VmHWM).
func statusKiB(_ pid: Int32, _ field: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

/// The number of threads of process `pid`.
func threadCount(_ pid: Int32) -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).count
}

/// Raises this process's open-file limit to its hard limit (the relay child inherits it).
func raiseFileLimit() -> UInt64 {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    return UInt64(limit.rlim_cur)
}

// MARK: Statistics

/// Percentiles of a sample of durations, in microseconds.
struct Summary: CustomStringConvertible {
    let count: Int
    let p50: Double
    let p99: Double
    let max: Double

    init(_ sample: [Duration]) {
        let sorted = sample.map { Double($0.components.attoseconds) / 1e12 + Double($0.components.seconds) * 1e6 }
            .sorted()
        count = sorted.count
        func at(_ p: Double) -> Double { sorted.isEmpty ? .nan : sorted[Int((Double(sorted.count - 1) * p).rounded())] }
        p50 = at(0.5)
        p99 = at(0.99)
        max = sorted.last ?? .nan
    }

    var description: String { String(format: "p50 %.1f µs, p99 %.1f µs, max %.1f µs (n = %d)", p50, p99, max, count) }
}

// MARK: The echo target

/// Writes back whatever it reads.
final class EchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

/// An echo server on a free loopback port.
func startEcho() async throws -> any Channel {
    try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 4096)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoHandler()) }
        }
        .bind(host: "127.0.0.1", port: 0).get()
}

// MARK: The relay process

/// Starts `hearth-relay` on a free loopback port; returns the process and its port.
func startRelay(path: String, maxStreams: Int, tls: [String]) throws -> (Process, Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments =
        [
            "--address", "127.0.0.1", "--port", "0", "--max-streams", "\(maxStreams)", "--log-level", "warning",
            // The ping-pong sends thousands of frames a second on one stream: the per-connection rates are raised
            // so the limits (200 and 5,000 frames/s by default) do not end it; everything else is the default.
            "--client-rate", "1000000", "--hub-rate", "1000000",
        ] + tls
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var text = ""
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        let data = output.fileHandleForReading.availableData
        if data.isEmpty { break }
        text += String(decoding: data, as: UTF8.self)
        if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on") }),
            let port = Int(line.split(separator: " ").last ?? "")
        {
            return (process, port)
        }
    }
    process.terminate()
    fail("hearth-relay did not say where it listens (it printed: \(text)).")
}

// MARK: Clients

/// A ping-pong on a blocking socket (its own thread): `warmup` + `count` round trips of `size` bytes to `port`,
/// stopping at `deadline`; the durations of the last `count`.
func blockingPingPong(
    port: Int,
    count: Int,
    warmup: Int,
    size: Int,
    deadline: ContinuousClock.Instant
) async
    -> [Duration]
{
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(
                returning: pingPongOnThisThread(
                    port: port,
                    count: count,
                    warmup: warmup,
                    size: size,
                    deadline: deadline
                )
            )
        }
        thread.start()
    }
}

/// The body of ``blockingPingPong(port:count:warmup:size:deadline:)``.
func pingPongOnThisThread(
    port: Int,
    count: Int,
    warmup: Int,
    size: Int,
    deadline: ContinuousClock.Instant
)
    -> [Duration]
{
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return [] }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = [UInt8](repeating: 0x5a, count: size)
    var answer = [UInt8](repeating: 0, count: size)
    var sample: [Duration] = []
    sample.reserveCapacity(count)
    let clock = ContinuousClock()
    for round in 0..<(warmup + count) {
        let start = clock.now
        if start > deadline { break }
        guard request.withUnsafeBytes({ write(fd, $0.baseAddress, size) }) == size else { break }
        var got = 0
        while got < size {
            let n = answer.withUnsafeMutableBytes { read(fd, $0.baseAddress.map { $0 + got }, size - got) }
            guard n > 0 else { return sample }
            got += n
        }
        if round >= warmup { sample.append(clock.now - start) }
    }
    return sample
}

/// What one active client did.
struct ClientResult: Sendable {
    var sample: [Duration] = []
    var failed = false
}

/// One active client: connects to `port`, waits for `start`, then sends `size` bytes every `interval` (from its own
/// `offset`) and reads the echo, until `end`.
func activeClient(
    port: Int,
    size: Int,
    start: ContinuousClock.Instant,
    offset: Duration,
    interval: Duration,
    end: ContinuousClock.Instant
) async -> ClientResult {
    var result = ClientResult()
    do {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let request = ByteBuffer(repeating: 0x5a, count: size)
        try await channel.executeThenClose { inbound, outbound in
            var answers = inbound.makeAsyncIterator()
            let clock = ContinuousClock()
            var next = start + offset
            while next < end {
                try await Task.sleep(until: next, clock: clock)
                let sent = clock.now
                try await outbound.write(request)
                var got = 0
                while got < size {
                    guard let chunk = try await answers.next() else { throw ChannelError.eof }
                    got += chunk.readableBytes
                }
                result.sample.append(clock.now - sent)
                next += interval
                // Behind schedule (the machine is busy): skip the missed slots rather than bursting.
                let now = clock.now
                while next < now { next += interval }
            }
        }
    } catch {
        result.failed = true
    }
    return result
}

/// `clients` active clients spread over `ports`, connected gradually, then all started together for `seconds`.
func activeLoad(ports: [Int], clients: Int, size: Int, rate: Double, seconds: Double) async -> (Summary, Int, Int) {
    let clock = ContinuousClock()
    let interval = Duration.seconds(1 / rate)
    // Time to connect everyone first (about 2 ms each on a quiet machine), then the measured window.
    let start = clock.now + .seconds(3) + .milliseconds(5 * clients)
    let end = start + .seconds(seconds)
    let results = await withTaskGroup(of: ClientResult.self) { group in
        for client in 0..<clients {
            let port = ports[client % ports.count]
            let offset = interval * (Double(client) / Double(max(clients, 1)))
            group.addTask {
                await activeClient(port: port, size: size, start: start, offset: offset, interval: interval, end: end)
            }
            if client % 50 == 49 { try? await Task.sleep(for: .milliseconds(20)) }
        }
        var all: [ClientResult] = []
        for await result in group { all.append(result) }
        return all
    }
    let sample = results.flatMap(\.sample)
    return (Summary(sample), sample.count, results.filter(\.failed).count)
}

// MARK: Hub links

/// Starts `count` hub links to `relayURL` whose streams go to `targetPort`, `batch` at a time, each batch waiting
/// (up to 30 s) until connected; returns the links and their tasks.
func connectLinks(count: Int, batch: Int, relayURL: String, targetPort: Int) async -> ([HubLink], [Task<Void, Never>]) {
    var links: [HubLink] = []
    var tasks: [Task<Void, Never>] = []
    links.reserveCapacity(count)
    tasks.reserveCapacity(count)
    var first = 0
    while first < count {
        let size = min(batch, count - first)
        let fresh = (0..<size).map { _ in
            var configuration = HubLink.Configuration(
                relayURL: relayURL,
                identity: Curve25519.Signing.PrivateKey(),
                targetHost: "127.0.0.1",
                targetPort: targetPort
            )
            // Every hub pings from its own machine; here ten thousand links share this process, and links that
            // connected in one batch would ping in one burst every interval (250 at once), stalling the active
            // load measured beside them. Intervals of 30–40 s spread each batch's pings over 10 s.
            configuration.pingInterval = .milliseconds(Int64.random(in: 30_000...40_000))
            configuration.tls = relayTLS
            return HubLink(configuration: configuration)
        }
        for link in fresh { tasks.append(Task { await link.run() }) }
        links += fresh
        let deadline = ContinuousClock.now + .seconds(30)
        while fresh.contains(where: { !$0.isConnected }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        first += size
        if first % 2000 < batch || first == count {
            note("hub links: \(links.filter(\.isConnected).count) of \(first) connected")
        }
    }
    return (links, tasks)
}

/// Starts a ClientForwarder for `route`; returns its port.
func startForwarder(relayURL: String, route: RouteID) async throws -> Int {
    var configuration = ClientForwarder.Configuration(relayURL: relayURL, route: route)
    configuration.tls = relayTLS
    let forwarder = try await ClientForwarder(configuration: configuration)
    Task { await forwarder.run() }
    return forwarder.port
}

/// The relay's CPU over a load: its share of one core over `seconds`, and per forwarded frame (two per answer).
func relayCPUText(nanoseconds: Double, seconds: Double, answers: Int) -> String {
    String(
        format: "%.1f %% of one core over %.1f s (incl. connecting); %.1f µs per frame",
        nanoseconds / (seconds * 1e9) * 100,
        seconds,
        nanoseconds / Double(max(2 * answers, 1)) / 1000
    )
}

// MARK: The run

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}
let options = Options(arguments: CommandLine.arguments)
/// Trust for a relay over TLS: exactly its certificate.
let relayTLS = try options.tlsCertificate.map {
    try RelayTrust.configuration(trustingPEM: String(contentsOfFile: $0, encoding: .utf8))
}
let fileLimit = raiseFileLimit()
let clock = ContinuousClock()
let echo = try await startEcho()
guard let echoPort = echo.localAddress?.port else { fail("The echo server has no port.") }
let maxStreams = max(64, (options.clients + options.activeHomes - 1) / options.activeHomes)
let tlsArguments = options.tlsCertificate.map { ["--tls-certificate", $0, "--tls-key", options.tlsKey ?? ""] } ?? []
let threadArguments = options.relayThreads > 0 ? ["--threads", "\(options.relayThreads)"] : []
let (relay, relayPort) = try startRelay(
    path: options.relay,
    maxStreams: maxStreams,
    tls: tlsArguments + threadArguments
)
let pid = relay.processIdentifier
// TLS names the server by its host name (SNI), never an address: the certificate names localhost.
let relayURL = relayTLS == nil ? "ws://127.0.0.1:\(relayPort)" : "wss://localhost:\(relayPort)"
note("relay pid \(pid) on port \(relayPort); open-file limit \(fileLimit)")
var rows: [(String, String)] = []
var json: [String: Any] = ["payload_bytes": options.payload]

// 1. Added latency.
let (firstLinks, _) = await connectLinks(count: 1, batch: 1, relayURL: relayURL, targetPort: echoPort)
guard let firstLink = firstLinks.first, firstLink.isConnected else { fail("The first hub link did not connect.") }
let firstPort = try await startForwarder(relayURL: relayURL, route: firstLink.route)
let direct = Summary(
    await blockingPingPong(
        port: echoPort,
        count: options.pings,
        warmup: options.warmup,
        size: options.payload,
        deadline: clock.now + .seconds(60)
    )
)
let cpuBefore = cpuNanoseconds(pid)
let relayed = Summary(
    await blockingPingPong(
        port: firstPort,
        count: options.pings,
        warmup: options.warmup,
        size: options.payload,
        deadline: clock.now + .seconds(120)
    )
)
let cpuPerFrame = Double(cpuNanoseconds(pid) - cpuBefore) / Double(2 * (relayed.count + options.warmup)) / 1000
note("direct \(direct); relayed \(relayed)")
rows += [
    ("Ping-pong \(options.payload) B direct on loopback (the floor)", "\(direct)"),
    ("Same through ClientForwarder → relay → HubLink", "\(relayed)"),
    ("Added latency", String(format: "p50 %.1f µs, p99 %.1f µs", relayed.p50 - direct.p50, relayed.p99 - direct.p99)),
    (
        "Relay CPU per forwarded frame",
        String(
            format: "%.1f µs (both directions; %d frames)",
            cpuPerFrame,
            2 * (relayed.count + options.warmup)
        )
    ),
]
json["direct"] = ["p50_us": direct.p50, "p99_us": direct.p99, "n": direct.count]
json["relayed"] = ["p50_us": relayed.p50, "p99_us": relayed.p99, "n": relayed.count]
json["relay_cpu_per_frame_us"] = cpuPerFrame

// 2. Idle homes.
try? await Task.sleep(for: .seconds(1))
let rssBefore = statusKiB(pid, "VmRSS")
let threadsBefore = threadCount(pid)
let selfBefore = statusKiB(getpid(), "VmRSS")
let idleStart = clock.now
let (idleLinks, _) = await connectLinks(
    count: options.homes,
    batch: options.batch,
    relayURL: relayURL,
    targetPort: echoPort
)
let connectTime = clock.now - idleStart
let idleConnected = idleLinks.filter(\.isConnected).count
try? await Task.sleep(for: .seconds(3))
let rssAfter = statusKiB(pid, "VmRSS")
let perHome = idleConnected > 0 ? Double(rssAfter - rssBefore) * 1024 / Double(idleConnected) : .nan
let selfPerHome =
    idleConnected > 0 ? Double(statusKiB(getpid(), "VmRSS") - selfBefore) * 1024 / Double(idleConnected) : .nan
let idleCPUBefore = cpuNanoseconds(pid)
try? await Task.sleep(for: .seconds(5))
let idleCPU = Double(cpuNanoseconds(pid) - idleCPUBefore) / 5e9 * 100
note("idle homes \(idleConnected); relay RSS \(rssBefore) → \(rssAfter) KiB")
rows += [
    ("Idle homes connected", "\(idleConnected) of \(options.homes) in \(connectTime) (batches of \(options.batch))"),
    ("Relay RSS before → after", "\(rssBefore) KiB → \(rssAfter) KiB (threads \(threadsBefore) → \(threadCount(pid)))"),
    ("Relay memory per idle home", String(format: "%.0f bytes (target < 5,120)", perHome)),
    ("Relay CPU while idle", String(format: "%.1f %% of one core", idleCPU)),
    ("Hub side (this process) per link, for reference", String(format: "%.0f bytes", selfPerHome)),
]
json["idle_homes"] = idleConnected
json["relay_rss_kib_before"] = rssBefore
json["relay_rss_kib_after"] = rssAfter
json["relay_bytes_per_idle_home"] = perHome

// 3. Active clients, the idle homes still connected.
if options.clients > 0 {
    let (direct3, directCount, directFailed) = await activeLoad(
        ports: [echoPort],
        clients: options.clients,
        size: options.payload,
        rate: options.rate,
        seconds: options.seconds
    )
    note("active direct: \(direct3), failed \(directFailed)")
    let (activeLinks, _) = await connectLinks(
        count: options.activeHomes,
        batch: options.activeHomes,
        relayURL: relayURL,
        targetPort: echoPort
    )
    var forwarderPorts: [Int] = []
    for link in activeLinks { forwarderPorts.append(try await startForwarder(relayURL: relayURL, route: link.route)) }
    let activeCPUBefore = cpuNanoseconds(pid)
    let selfCPUBefore = cpuNanoseconds(getpid())
    let activeStart = clock.now
    let (relayed3, relayedCount, relayedFailed) = await activeLoad(
        ports: forwarderPorts,
        clients: options.clients,
        size: options.payload,
        rate: options.rate,
        seconds: options.seconds
    )
    let activeWall = clock.now - activeStart
    let activeCPU = Double(cpuNanoseconds(pid) - activeCPUBefore)
    let selfCPU = Double(cpuNanoseconds(getpid()) - selfCPUBefore)
    let wallSeconds = Double(activeWall.components.seconds) + Double(activeWall.components.attoseconds) / 1e18
    note("active relayed: \(relayed3), failed \(relayedFailed)")
    rows += [
        (
            "Active clients, direct (the floor)",
            "\(options.clients) clients × \(options.rate)/s for \(options.seconds) s: "
                + "\(direct3), \(directCount) answered (\(String(format: "%.0f", Double(directCount) / options.seconds))/s), "
                + "\(directFailed) failed"
        ),
        (
            "Active clients through the relay",
            "over \(options.activeHomes) homes: \(relayed3), \(relayedCount) answered "
                + "(\(String(format: "%.0f", Double(relayedCount) / options.seconds))/s), \(relayedFailed) failed"
        ),
        (
            "Added latency under load",
            String(
                format: "p50 %.1f µs, p99 %.1f µs (target p99 < 1,000 µs)",
                relayed3.p50 - direct3.p50,
                relayed3.p99 - direct3.p99
            )
        ),
        (
            "Relay CPU under load",
            relayCPUText(nanoseconds: activeCPU, seconds: wallSeconds, answers: relayedCount)
        ),
        (
            "This process (clients, forwarders, hub links, echo) under load",
            String(
                format: "%.1f %% of one core",
                selfCPU / (wallSeconds * 1e9) * 100
            )
        ),
        ("Relay RSS after the load", "\(statusKiB(pid, "VmRSS")) KiB (peak \(statusKiB(pid, "VmHWM")) KiB)"),
    ]
    json["active_direct"] = ["p50_us": direct3.p50, "p99_us": direct3.p99, "n": directCount, "failed": directFailed]
    json["active_relayed"] = [
        "p50_us": relayed3.p50, "p99_us": relayed3.p99, "n": relayedCount, "failed": relayedFailed,
    ]
    json["active_added_p99_us"] = relayed3.p99 - direct3.p99
    json["active_relay_cpu_percent"] = activeCPU / (wallSeconds * 1e9) * 100
}

// 4. The relay alone under the same load, the idle homes still connected.
if options.clients > 0, options.raw, relayTLS == nil {
    let (direct4, direct4Count, direct4Failed) = await rawLoad(
        clients: options.clients,
        size: options.payload,
        rate: options.rate,
        seconds: options.seconds
    ) { _, pacer, results, done in
        ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        RawTCPClient(RawClient(pacer: pacer, results: results, done: done))
                    )
                }
            }
            .connect(host: "127.0.0.1", port: echoPort)
    }
    note("raw direct: \(direct4), failed \(direct4Failed)")
    let routes = try await connectRawHubs(count: options.activeHomes, port: relayPort)
    let rawCPUBefore = cpuNanoseconds(pid)
    let rawSelfBefore = cpuNanoseconds(getpid())
    let rawStart = clock.now
    let (relayed4, relayed4Count, relayed4Failed) = await rawLoad(
        clients: options.clients,
        size: options.payload,
        rate: options.rate,
        seconds: options.seconds
    ) { index, pacer, results, done in
        connectWebSocket(port: relayPort, path: "/v1/client?route=\(routes[index % routes.count])") { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    RawRelayClient(RawClient(pacer: pacer, results: results, done: done))
                )
            }
        }
    }
    let rawWall = clock.now - rawStart
    let rawSeconds = Double(rawWall.components.seconds) + Double(rawWall.components.attoseconds) / 1e18
    let rawCPU = Double(cpuNanoseconds(pid) - rawCPUBefore)
    let rawSelf = Double(cpuNanoseconds(getpid()) - rawSelfBefore)
    note("raw relayed: \(relayed4), failed \(relayed4Failed)")
    rows += [
        (
            "Raw clients (NIO handlers), direct to the echo (the floor)",
            "\(options.clients) clients × \(options.rate)/s for \(options.seconds) s: \(direct4), "
                + "\(direct4Count) answered, \(direct4Failed) failed"
        ),
        (
            "Raw clients and hubs through the relay alone",
            "over \(options.activeHomes) homes: \(relayed4), \(relayed4Count) answered "
                + "(\(String(format: "%.0f", Double(relayed4Count) / options.seconds))/s), \(relayed4Failed) failed"
        ),
        (
            "Added by the relay under load",
            String(
                format: "p50 %.1f µs, p99 %.1f µs (target p99 < 1,000 µs)",
                relayed4.p50 - direct4.p50,
                relayed4.p99 - direct4.p99
            )
        ),
        (
            "Relay CPU under the raw load",
            relayCPUText(nanoseconds: rawCPU, seconds: rawSeconds, answers: relayed4Count)
        ),
        ("This process under the raw load", String(format: "%.1f %% of one core", rawSelf / (rawSeconds * 1e9) * 100)),
    ]
    json["raw_direct"] = ["p50_us": direct4.p50, "p99_us": direct4.p99, "n": direct4Count, "failed": direct4Failed]
    json["raw_relayed"] = [
        "p50_us": relayed4.p50, "p99_us": relayed4.p99, "n": relayed4Count, "failed": relayed4Failed,
    ]
    json["raw_added_p99_us"] = relayed4.p99 - direct4.p99
    json["raw_relay_cpu_percent"] = rawCPU / (rawSeconds * 1e9) * 100
}

print("| measure | value |\n|---|---|")
for (name, value) in rows { print("| \(name) | \(value) |") }
if let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]) {
    print("{\"bench\":\"relay\",\"results\":\(String(decoding: data, as: UTF8.self))}")
}
relay.terminate()
relay.waitUntilExit()
exit(0)
