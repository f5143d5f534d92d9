// ControllerBench: Hearth's controller (the HAPController library) measured against one accessory, the same way
// Benchmarks/peers/aiohomekit_controller_bench.py measures aiohomekit 4.0.1 (scripts/bench-controller.sh runs both).
//
//   ControllerBench --host 127.0.0.1 --port 51836 --setup-code 031-45-154 [--control 127.0.0.1:51837]
//                   [--restart-command CMD] [--setup-reps 10] [--verify-reps 50] [--latency-reps 1000]
//                   [--throughput-count 50000] [--throughput-seconds 5] [--reconnect-reps 5]
//
// Phases: pair-setup (connect + M1..M6, then the pairing is removed and made again), pair-verify (a new
// PairedAccessory, connect + M1..M4, close), read and write round trips on one session, sequential reads for
// --throughput-count reads or --throughput-seconds, and, with --restart-command and --control, the time from the
// accessory listening again after a restart to the first event on the subscribed session (reconnect, verify,
// re-subscribe, then a change made through the control interface every 10 ms until one arrives). Process CPU
// time (every thread) is measured over each phase. Prints one JSON object on stdout.
import Crypto
import Foundation
import HAP
import HAPController
import HAPTypes

#if canImport(Glibc)
    import Glibc
#endif

/// The command line, `--name value` pairs.
struct Options {
    var host = "127.0.0.1"
    var port = 51836
    var setupCode = "031-45-154"
    var control: (host: String, port: Int)?
    var restartCommand: String?
    var setupReps = 10
    var verifyReps = 50
    var latencyReps = 1000
    var throughputCount = 50_000
    var throughputSeconds = 5.0
    var reconnectReps = 5

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var index = 1
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw BenchError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        func count() throws -> Int {
            let text = try value()
            guard let number = Int(text), number >= 0 else { throw BenchError("not a count: \(text)") }
            return number
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--host": options.host = try value()
            case "--port": options.port = try count()
            case "--setup-code": options.setupCode = try value()
            case "--control":
                let text = try value()
                guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
                    throw BenchError("--control is HOST:PORT")
                }
                options.control = (String(text[..<colon]), port)
            case "--restart-command": options.restartCommand = try value()
            case "--setup-reps": options.setupReps = max(1, try count())
            case "--verify-reps": options.verifyReps = try count()
            case "--latency-reps": options.latencyReps = max(1, try count())
            case "--throughput-count": options.throughputCount = max(1, try count())
            case "--throughput-seconds":
                guard let seconds = Double(try value()), seconds > 0 else {
                    throw BenchError("bad --throughput-seconds")
                }
                options.throughputSeconds = seconds
            case "--reconnect-reps": options.reconnectReps = try count()
            default: throw BenchError("unknown argument \(arguments[index])")
            }
            index += 1
        }
        return options
    }
}

/// Why the benchmark stopped.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// When the last event for the watched characteristic arrived.
actor EventClock {
    private(set) var last: UInt64 = 0
    func mark() { last = monotonicNanoseconds() }
}

@main
struct ControllerBench {
    static func main() async {
        // A control connection closed by a restarting accessory must not end the process.
        signal(SIGPIPE, SIG_IGN)
        do {
            let options = try Options.parse(CommandLine.arguments)
            let result = try await run(options)
            let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .prettyPrinted])
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("ControllerBench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func log(_ text: String) {
        FileHandle.standardError.write(Data("[swift] \(text)\n".utf8))
    }

    /// Reads `on` one after another for the options' count or time, the caller preferring `executor` if given.
    static func sequentialReads(
        _ accessory: PairedAccessory,
        _ on: CharacteristicID,
        _ options: Options,
        on executor: (any TaskExecutor)?
    ) async throws -> Phase {
        try await withTaskExecutorPreference(executor) { () async throws -> Phase in
            var phase = Phase()
            let deadline = monotonicNanoseconds() + UInt64(options.throughputSeconds * 1e9)
            let cpu0 = processCPUNanoseconds()
            let wall0 = monotonicNanoseconds()
            while phase.operations < options.throughputCount, monotonicNanoseconds() < deadline {
                guard case .success = try await accessory.read([on])[on] else { throw BenchError("read failed") }
                phase.operations += 1
            }
            phase.cpuNanoseconds = processCPUNanoseconds() - cpu0
            phase.wallNanoseconds = monotonicNanoseconds() - wall0
            return phase
        }
    }

    static func run(_ options: Options) async throws -> [String: Any] {
        let identity = ControllerIdentity(pairingID: UUID().uuidString, signingKey: Curve25519.Signing.PrivateKey())
        let setupCode = try SetupCode(options.setupCode)
        let pairingClient = AccessoryPairingClient()
        var result: [String: Any] = ["controller": "hearth HAPController"]
        func merge(_ fields: [String: Double]) { result.merge(fields) { _, new in new } }

        // Pair-setup: pair, remove the pairing, pair again; the last pairing stays for the other phases.
        log("pair-setup x\(options.setupReps)")
        var setup = Phase()
        var record: PairedAccessoryRecord?
        for rep in 0..<options.setupReps {
            let cpu0 = processCPUNanoseconds()
            let wall0 = monotonicNanoseconds()
            let pairing = try await pairingClient.pairSetup(
                host: options.host,
                port: options.port,
                setupCode: setupCode,
                identity: identity
            )
            setup.samples.append(monotonicNanoseconds() - wall0)
            setup.cpuSamples.append(processCPUNanoseconds() - cpu0)
            setup.cpuNanoseconds += setup.cpuSamples[setup.cpuSamples.count - 1]
            setup.operations += 1
            let paired = PairedAccessoryRecord(pairing: pairing, host: options.host, port: options.port)
            record = paired
            if rep < options.setupReps - 1 {
                let accessory = PairedAccessory(record: paired, identity: identity)
                try await accessory.unpair()
            }
        }
        merge(setup.fields("pair_setup"))
        guard let record else { throw BenchError("no pairing") }

        // Pair-verify: a new client each time, connect (TCP + M1..M4), close; CPU over both.
        log("pair-verify x\(options.verifyReps)")
        var verify = Phase()
        for _ in 0..<options.verifyReps {
            let cpu0 = processCPUNanoseconds()
            let wall0 = monotonicNanoseconds()
            let accessory = PairedAccessory(record: record, identity: identity)
            try await accessory.connect()
            verify.samples.append(monotonicNanoseconds() - wall0)
            await accessory.close()
            verify.cpuNanoseconds += processCPUNanoseconds() - cpu0
            verify.operations += 1
        }
        merge(verify.fields("pair_verify"))

        // One session for reads, writes and events.
        let accessory = PairedAccessory(record: record, identity: identity)
        try await accessory.connect()
        let database = try await accessory.accessories()
        let onType = HAPUUID(apple: 0x25)
        var found: CharacteristicID?
        for entry in database.accessories where found == nil {
            for characteristic in entry.services.flatMap(\.characteristics)
            where characteristic.type == onType && found == nil {
                found = CharacteristicID(accessoryID: entry.accessoryID, instanceID: characteristic.instanceID)
            }
        }
        guard let on = found else { throw BenchError("no On characteristic") }
        result["characteristic"] = "\(on.accessoryID).\(on.instanceID)"
        for _ in 0..<50 { _ = try await accessory.read([on]) }

        log("read and write round trips x\(options.latencyReps)")
        var reads = Phase()
        let readCPU0 = processCPUNanoseconds()
        let readWall0 = monotonicNanoseconds()
        for _ in 0..<options.latencyReps {
            let start = monotonicNanoseconds()
            guard case .success = try await accessory.read([on])[on] else { throw BenchError("read failed") }
            reads.samples.append(monotonicNanoseconds() - start)
        }
        reads.cpuNanoseconds = processCPUNanoseconds() - readCPU0
        reads.wallNanoseconds = monotonicNanoseconds() - readWall0
        reads.operations = options.latencyReps
        merge(reads.fields("read"))

        var writes = Phase()
        var flag = false
        let writeCPU0 = processCPUNanoseconds()
        let writeWall0 = monotonicNanoseconds()
        for _ in 0..<options.latencyReps {
            flag.toggle()
            let start = monotonicNanoseconds()
            guard try await accessory.write([(on, .bool(flag))])[on] == .success else { throw BenchError("write") }
            writes.samples.append(monotonicNanoseconds() - start)
        }
        writes.cpuNanoseconds = processCPUNanoseconds() - writeCPU0
        writes.wallNanoseconds = monotonicNanoseconds() - writeWall0
        writes.operations = options.latencyReps
        merge(writes.fields("write"))

        log("sequential reads: \(options.throughputCount) or \(options.throughputSeconds) s")
        merge(try await sequentialReads(accessory, on, options, on: nil).fields("read_throughput"))
        // The same loop with the caller on the accessory's event loop (`withTaskExecutorPreference`), as an app
        // that cares about CPU runs it: the request then crosses no thread at all.
        log("sequential reads, caller on the accessory's event loop")
        merge(try await sequentialReads(accessory, on, options, on: accessory.taskExecutor).fields("read_on_loop"))

        if let command = options.restartCommand, let control = options.control, options.reconnectReps > 0 {
            log("restart -> first event x\(options.reconnectReps)")
            let clock = EventClock()
            let events = accessory.events
            let follower = Task {
                for await event in events {
                    if case .valuesChanged(let changes) = event, changes.contains(where: { $0.id == on }) {
                        await clock.mark()
                    }
                }
            }
            try await accessory.subscribe([on])
            log("subscribed")
            var reconnect = Phase()
            var value = false
            for rep in 0..<options.reconnectReps {
                guard await runShell(command) else { throw BenchError("the restart command failed") }
                let back = monotonicNanoseconds()
                log("restart \(rep + 1): the accessory listens again")
                let limit = back + 30_000_000_000
                var arrived: UInt64?
                while monotonicNanoseconds() < limit {
                    value.toggle()
                    _ = ControlClient.send(
                        "set \(on.accessoryID) \(on.instanceID) \(value)",
                        host: control.host,
                        port: control.port
                    )
                    try await Task.sleep(for: .milliseconds(10))
                    let last = await clock.last
                    if last > back {
                        arrived = last
                        break
                    }
                }
                guard let arrived else { throw BenchError("no event within 30 s of restart \(rep + 1)") }
                reconnect.samples.append(arrived - back)
                log("restart \(rep + 1): first event after \(Double(arrived - back) / 1e6) ms")
                reconnect.operations += 1
            }
            follower.cancel()
            merge(reconnect.fields("restart_to_event"))
            if let worst = reconnect.samples.max() { result["restart_to_event_max_ms"] = Double(worst) / 1e6 }
        }

        try await accessory.unpair()
        return result
    }
}
