// HAPLoad: a HAP controller that loads an accessory harder than aiohomekit can (one request in flight per
// connection there), to measure the accessory rather than the client.
//
//   HAPLoad --host 127.0.0.1 --port 51826 [--setup-code 031-45-154] [--pairing-file F] [--server-pid PID]
//           [--count 10000] [--seconds 20] [--sessions 8] [--verify-reps 20] [--hold-sessions 16]
//           [--event-reps 0] [--characteristic AID.IID]
//
// Pairs (or reuses --pairing-file), finds the first `On` characteristic, then measures: pair-verify latency,
// sequential reads on one session, reads over --sessions sessions in parallel, sequential writes; with
// --event-reps, the time from a write on one session to the event on another subscribed one; and with
// --hold-sessions, the server's resident memory with that many verified sessions open. Each phase stops after
// --count requests or --seconds, whichever comes first. With --server-pid, the server's CPU time (utime + stime
// from /proc/PID/stat) over each phase is divided by that phase's requests. Prints one JSON object on stdout.
import Crypto
import Foundation
import HAP

#if canImport(Glibc)
    import Glibc
#endif

/// The command line, `--name value` pairs.
struct Options {
    var host = "127.0.0.1"
    var port = 51826
    var setupCode = "031-45-154"
    var pairingFile: String?
    var serverPID: Int32?
    var count = 10_000
    var seconds = 20.0
    var sessions = 8
    var verifyReps = 20
    var holdSessions = 0
    var eventReps = 0
    var characteristic: (aid: Int, iid: Int)?

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var index = 1
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw LoadError.unexpected("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        func number(_ text: String) throws -> Int {
            guard let number = Int(text), number >= 0 else { throw LoadError.unexpected("not a count: \(text)") }
            return number
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--host": options.host = try value()
            case "--port": options.port = try number(value())
            case "--setup-code": options.setupCode = try value()
            case "--pairing-file": options.pairingFile = try value()
            case "--server-pid": options.serverPID = Int32(try number(value()))
            case "--count": options.count = max(1, try number(value()))
            case "--seconds":
                guard let seconds = Double(try value()), seconds > 0 else {
                    throw LoadError.unexpected("bad --seconds")
                }
                options.seconds = seconds
            case "--sessions": options.sessions = max(1, try number(value()))
            case "--verify-reps": options.verifyReps = try number(value())
            case "--hold-sessions": options.holdSessions = try number(value())
            case "--event-reps": options.eventReps = try number(value())
            case "--characteristic":
                let parts = try value().split(separator: ".").compactMap { Int($0) }
                guard parts.count == 2 else { throw LoadError.unexpected("--characteristic is AID.IID") }
                options.characteristic = (parts[0], parts[1])
            case "--help", "-h":
                print("usage: HAPLoad --host ADDR --port P [--setup-code C] [--pairing-file F] [--server-pid PID]")
                print("       [--count N] [--seconds S] [--sessions K] [--verify-reps N] [--hold-sessions K]")
                print("       [--event-reps N]")
                print("       [--characteristic AID.IID]")
                exit(0)
            default: throw LoadError.unexpected("unknown argument \(arguments[index])")
            }
            index += 1
        }
        return options
    }
}

/// A pairing kept between runs, so that a second run (the memory one) needs no pair-setup.
struct SavedPairing: Codable {
    var controllerID: String
    var controllerKey: Data
    var accessory: AccessoryPairing
}

/// The results, printed as one JSON object.
final class Report {
    private(set) var fields: [String: Any] = [:]

    subscript(key: String) -> Any? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    func printJSON() throws {
        let data = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .prettyPrinted])
        print(String(decoding: data, as: UTF8.self))
    }
}

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// The server's CPU seconds now, or nil without --server-pid.
func serverCPU(_ options: Options) -> Double? {
    options.serverPID.flatMap { ProcessStats.cpuSeconds(pid: $0) }
}

/// This process's CPU seconds.
func clientCPU() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Records a phase: rate, latency percentiles, CPU per request on both sides.
func record(
    _ name: String,
    requests: Int,
    elapsed: UInt64,
    samples: Samples?,
    serverCPU cpu: (Double?, Double?),
    clientCPU client: Double,
    into report: Report
) {
    let seconds = Double(elapsed) / 1e9
    report["\(name)_count"] = requests
    report["\(name)_per_second"] = (Double(requests) / seconds).rounded()
    if let samples {
        report["\(name)_p50_ms"] = samples.percentileMilliseconds(0.5)
        report["\(name)_p99_ms"] = samples.percentileMilliseconds(0.99)
    }
    report["\(name)_client_cpu_ms_per_request"] = client * 1000 / Double(requests)
    var line = "\(name): \(requests) in \(String(format: "%.2f", seconds)) s = \(Int(Double(requests) / seconds))/s"
    if let samples {
        line += String(
            format: ", p50 %.3f ms, p99 %.3f ms",
            samples.percentileMilliseconds(0.5),
            samples.percentileMilliseconds(0.99)
        )
    }
    if let before = cpu.0, let after = cpu.1 {
        let used = after - before
        report["\(name)_server_cpu_s"] = used
        report["\(name)_server_cpu_ms_per_request"] = used * 1000 / Double(requests)
        report["\(name)_requests_per_server_cpu_second"] = used > 0 ? (Double(requests) / used).rounded() : nil
        line += String(format: ", server CPU %.4f ms/request", used * 1000 / Double(requests))
    }
    log(line)
}

/// A verified session, or an error.
func verifiedConnection(
    _ options: Options,
    _ identity: ControllerIdentity,
    _ accessory: AccessoryPairing
) throws
    -> HAPConnection
{
    let connection = try HAPConnection(host: options.host, port: options.port)
    try connection.pairVerify(identity: identity, accessory: accessory)
    return connection
}

/// The first characteristic of type On (0x25) that can be read and written.
func findOnCharacteristic(_ body: [UInt8]) throws -> (aid: Int, iid: Int) {
    let root = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
    for accessory in root?["accessories"] as? [[String: Any]] ?? [] {
        guard let aid = accessory["aid"] as? Int else { continue }
        for service in accessory["services"] as? [[String: Any]] ?? [] {
            for characteristic in service["characteristics"] as? [[String: Any]] ?? [] {
                var type = (characteristic["type"] as? String ?? "").uppercased()
                type = String(type.split(separator: "-").first ?? "")
                while type.hasPrefix("0") { type.removeFirst() }
                let perms = characteristic["perms"] as? [String] ?? []
                if type == "25", perms.contains("pr"), perms.contains("pw"), let iid = characteristic["iid"] as? Int {
                    return (aid, iid)
                }
            }
        }
    }
    throw LoadError.unexpected("no readable and writable On characteristic in /accessories")
}

func run() throws {
    let options = try Options.parse(CommandLine.arguments)
    let report = Report()
    report["host"] = options.host
    report["port"] = options.port
    if let pid = options.serverPID {
        report["server_pid"] = Int(pid)
        report["server_rss_kb_start"] = ProcessStats.residentKilobytes(pid: pid)
    }

    // Pairing: reuse a saved one, else pair-setup (timed) and save it.
    let identity: ControllerIdentity
    let accessory: AccessoryPairing
    if let path = options.pairingFile, let data = FileManager.default.contents(atPath: path) {
        let saved = try JSONDecoder().decode(SavedPairing.self, from: data)
        identity = ControllerIdentity(
            pairingID: saved.controllerID,
            signingKey: try Curve25519.Signing.PrivateKey(rawRepresentation: saved.controllerKey)
        )
        accessory = saved.accessory
        log("reusing the pairing in \(path)")
    } else {
        identity = ControllerIdentity(pairingID: UUID().uuidString, signingKey: Curve25519.Signing.PrivateKey())
        let start = monotonicNanoseconds()
        let connection = try HAPConnection(host: options.host, port: options.port)
        accessory = try connection.pairSetup(setupCode: options.setupCode, identity: identity)
        let elapsed = monotonicNanoseconds() - start
        connection.close()
        report["pair_setup_ms"] = Double(elapsed) / 1e6
        log(String(format: "pair-setup: %.1f ms (TCP connect + M1..M6)", Double(elapsed) / 1e6))
        if let path = options.pairingFile {
            let saved = SavedPairing(
                controllerID: identity.pairingID,
                controllerKey: identity.signingKey.rawRepresentation,
                accessory: accessory
            )
            try JSONEncoder().encode(saved).write(to: URL(fileURLWithPath: path))
        }
    }

    // Pair-verify latency: TCP connect + M1..M4, then close.
    if options.verifyReps > 0 {
        var samples = Samples()
        let cpuBefore = serverCPU(options)
        let clientBefore = clientCPU()
        let start = monotonicNanoseconds()
        for _ in 0..<options.verifyReps {
            let begin = monotonicNanoseconds()
            let connection = try verifiedConnection(options, identity, accessory)
            samples.nanoseconds.append(monotonicNanoseconds() - begin)
            connection.close()
        }
        record(
            "pair_verify",
            requests: options.verifyReps,
            elapsed: monotonicNanoseconds() - start,
            samples: samples,
            serverCPU: (cpuBefore, serverCPU(options)),
            clientCPU: clientCPU() - clientBefore,
            into: report
        )
    }

    let main = try verifiedConnection(options, identity, accessory)
    let target: (aid: Int, iid: Int)
    if let characteristic = options.characteristic {
        target = characteristic
    } else {
        let listing = try main.request(.get, "/accessories")
        guard listing.status.code == 200 else { throw LoadError.unexpected("/accessories: HTTP \(listing.status)") }
        target = try findOnCharacteristic(listing.body)
        report["accessories_bytes"] = listing.body.count
    }
    report["characteristic"] = "\(target.aid).\(target.iid)"
    let readTarget = "/characteristics?id=\(target.aid).\(target.iid)"
    let deadline = { (start: UInt64) in start + UInt64(options.seconds * 1e9) }

    // Sequential reads, one request in flight.
    do {
        var samples = Samples()
        samples.nanoseconds.reserveCapacity(options.count)
        let cpuBefore = serverCPU(options)
        let clientBefore = clientCPU()
        let start = monotonicNanoseconds()
        let end = deadline(start)
        var begin = start
        while samples.nanoseconds.count < options.count, begin < end {
            let response = try main.request(.get, readTarget)
            guard response.status.code == 200 else { throw LoadError.unexpected("read: HTTP \(response.status)") }
            let now = monotonicNanoseconds()
            samples.nanoseconds.append(now - begin)
            begin = now
        }
        record(
            "read_sequential",
            requests: samples.nanoseconds.count,
            elapsed: monotonicNanoseconds() - start,
            samples: samples,
            serverCPU: (cpuBefore, serverCPU(options)),
            clientCPU: clientCPU() - clientBefore,
            into: report
        )
    }

    // Reads over several sessions in parallel, one thread and one request in flight per session.
    do {
        let connections = try (0..<options.sessions).map { _ in try verifiedConnection(options, identity, accessory) }
        let perSession = max(1, options.count / options.sessions)
        let lock = NSLock()
        nonisolated(unsafe) var all = Samples()
        nonisolated(unsafe) var failures: [String] = []
        let group = DispatchGroup()
        let seconds = options.seconds
        let cpuBefore = serverCPU(options)
        let clientBefore = clientCPU()
        let start = monotonicNanoseconds()
        for connection in connections {
            group.enter()
            let thread = Thread {
                var samples = Samples()
                samples.nanoseconds.reserveCapacity(perSession)
                let end = start + UInt64(seconds * 1e9)
                var begin = monotonicNanoseconds()
                do {
                    while samples.nanoseconds.count < perSession, begin < end {
                        let response = try connection.request(.get, readTarget)
                        guard response.status.code == 200 else {
                            throw LoadError.unexpected("read: HTTP \(response.status)")
                        }
                        let now = monotonicNanoseconds()
                        samples.nanoseconds.append(now - begin)
                        begin = now
                    }
                } catch {
                    lock.withLock { failures.append("\(error)") }
                }
                lock.withLock { all.nanoseconds += samples.nanoseconds }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        let elapsed = monotonicNanoseconds() - start
        let cpuAfter = serverCPU(options)
        let clientUsed = clientCPU() - clientBefore
        let (samples, errors) = lock.withLock { (all, failures) }
        if let first = errors.first { throw LoadError.unexpected("parallel reads: \(first)") }
        for connection in connections { connection.close() }
        report["read_parallel_sessions"] = options.sessions
        record(
            "read_parallel",
            requests: samples.nanoseconds.count,
            elapsed: elapsed,
            samples: samples,
            serverCPU: (cpuBefore, cpuAfter),
            clientCPU: clientUsed,
            into: report
        )
    }

    // Sequential writes, alternating on and off; success is 204.
    do {
        var samples = Samples()
        samples.nanoseconds.reserveCapacity(options.count)
        let bodies = [true, false].map {
            Array(#"{"characteristics":[{"aid":\#(target.aid),"iid":\#(target.iid),"value":\#($0)}]}"#.utf8)
        }
        let cpuBefore = serverCPU(options)
        let clientBefore = clientCPU()
        let start = monotonicNanoseconds()
        let end = deadline(start)
        var begin = start
        while samples.nanoseconds.count < options.count, begin < end {
            let body = bodies[samples.nanoseconds.count % 2]
            let response = try main.request(.put, "/characteristics", body: body, contentType: .hapJSON)
            guard response.status.code == 204 else { throw LoadError.unexpected("write: HTTP \(response.status)") }
            let now = monotonicNanoseconds()
            samples.nanoseconds.append(now - begin)
            begin = now
        }
        record(
            "write_sequential",
            requests: samples.nanoseconds.count,
            elapsed: monotonicNanoseconds() - start,
            samples: samples,
            serverCPU: (cpuBefore, serverCPU(options)),
            clientCPU: clientCPU() - clientBefore,
            into: report
        )
    }
    main.close()

    // Event latency: session A subscribes; each write on session B (request sent) until A has the event.
    if options.eventReps > 0 {
        let listener = try verifiedConnection(options, identity, accessory)
        let writer = try verifiedConnection(options, identity, accessory)
        let subscribe = #"{"characteristics":[{"aid":\#(target.aid),"iid":\#(target.iid),"ev":true}]}"#
        let subscribed = try listener.request(
            .put,
            "/characteristics",
            body: Array(subscribe.utf8),
            contentType: .hapJSON
        )
        guard subscribed.status.code == 204 else { throw LoadError.unexpected("subscribe: HTTP \(subscribed.status)") }
        // A known starting value (off), so that every measured write is a change that makes an event.
        let off = #"{"characteristics":[{"aid":\#(target.aid),"iid":\#(target.iid),"value":false}]}"#
        _ = try writer.request(.put, "/characteristics", body: Array(off.utf8), contentType: .hapJSON)
        usleep(100_000)
        var samples = Samples()
        let start = monotonicNanoseconds()
        for index in 0..<options.eventReps {
            let body = #"{"characteristics":[{"aid":\#(target.aid),"iid":\#(target.iid),"value":\#(index % 2 == 0)}]}"#
            let begin = monotonicNanoseconds()
            let response = try writer.request(.put, "/characteristics", body: Array(body.utf8), contentType: .hapJSON)
            guard response.status.code == 204 else { throw LoadError.unexpected("write: HTTP \(response.status)") }
            _ = try listener.event()
            samples.nanoseconds.append(monotonicNanoseconds() - begin)
        }
        record(
            "event_write_to_event",
            requests: options.eventReps,
            elapsed: monotonicNanoseconds() - start,
            samples: samples,
            serverCPU: (nil, nil),
            clientCPU: 0,
            into: report
        )
        listener.close()
        writer.close()
    }

    // Resident memory with verified sessions held open (each has read once, as a controller would).
    if options.holdSessions > 0 {
        if let pid = options.serverPID {
            report["server_rss_kb_before_hold"] = ProcessStats.residentKilobytes(pid: pid)
        }
        let held = try (0..<options.holdSessions).map { _ in
            let connection = try verifiedConnection(options, identity, accessory)
            _ = try connection.request(.get, readTarget)
            return connection
        }
        usleep(500_000)
        report["held_sessions"] = held.count
        if let pid = options.serverPID {
            let rss = ProcessStats.residentKilobytes(pid: pid)
            report["server_rss_kb_with_held_sessions"] = rss
            log("server VmRSS with \(held.count) verified sessions: \(rss ?? 0) kB")
        }
        for connection in held { connection.close() }
    }
    if let pid = options.serverPID { report["server_rss_kb_end"] = ProcessStats.residentKilobytes(pid: pid) }
    try report.printJSON()
}

do {
    try run()
} catch {
    log("HAPLoad: \(error)")
    exit(1)
}
