import Foundation
import TestSupport
import Testing

/// `hearth hap test` run as a program against hearth-sim and HAP-python 5.0.0, each in its own network namespace.
@Suite(
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"),
    .enabled(if: ChildProcess.arePeersAvailable, "run scripts/setup-peers.sh to set up the peers"),
    .serialized
)
struct HAPTestCommandTests {
    /// The checks that skip against hearth-sim, and why: hearth-sim has no tw or wr characteristic in its presets,
    /// the tester cannot change a database, MaxTries needs --destructive, the restart check --restart-command.
    static let skippedOnSimulator: Set<String> = [
        "mdns.c#", "pair-setup.max-tries", "rw.timed-write", "rw.write-response", "restart.reconnect",
    ]

    /// Runs `hearth hap test --json`; returns the exit status and the results by check id.
    static func runTester(
        _ hearth: HearthCLI,
        _ arguments: [String]
    ) async throws -> (status: Int32, results: [String: [String: Any]], order: [String], elapsed: TimeInterval) {
        let started = Date()
        let run = try await hearth.runOffThePool(["hap", "test", "--json"] + arguments, timeout: 120)
        let elapsed = Date().timeIntervalSince(started)
        let parsed = try parse(run)
        return (run.status, parsed.results, parsed.order, elapsed)
    }

    /// The results of `hearth hap test --json` by check id, and their order.
    static func parse(_ run: HearthCLI.Result) throws -> (results: [String: [String: Any]], order: [String]) {
        var results: [String: [String: Any]] = [:]
        var order: [String] = []
        for line in run.output.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let result = try #require(object as? [String: Any], "not a JSON object: \(line)")
            let id = try #require(result["id"] as? String)
            #expect(results[id] == nil, "\(id) reported twice")
            #expect((result["spec"] as? String)?.hasPrefix("hap-protocol.md §") == true, "\(result)")
            results[id] = result
            order.append(id)
        }
        #expect(run.errors.isEmpty, "\(run)")
        return (results, order)
    }

    /// The ids of the results with this outcome.
    static func ids(_ results: [String: [String: Any]], _ outcome: String) -> Set<String> {
        Set(results.filter { $0.value["result"] as? String == outcome }.keys)
    }

    @Test(
        arguments: [
            ["--bridge", "--preset", "lightbulb-color", "--preset", "door-lock", "--preset", "thermostat"],
            [
                "--bridge", "--preset", "outlet", "--preset", "switch", "--preset", "fan", "--preset", "heater-cooler",
                "--preset", "garage-door", "--preset", "window-covering", "--preset", "security-system",
            ],
            [
                "--bridge", "--preset", "motion-sensor", "--preset", "contact-sensor", "--preset", "occupancy-sensor",
                "--preset", "leak-sensor", "--preset", "smoke-sensor", "--preset", "temperature-sensor", "--preset",
                "humidity-sensor", "--preset", "light-sensor", "--preset", "doorbell", "--preset",
                "programmable-switch", "--preset", "air-purifier", "--preset", "battery",
            ],
            ["--preset", "lightbulb-dimmable"],
        ]
    )
    func everyCheckPassesAgainstHearthSim(presets: [String]) async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = try await HearthSimInteropTests.startSimulatorOffThePool(
            in: network,
            state: folder + "/sim",
            accessories: presets
        )
        let simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let address = network.accessoryAddress
        let run = try await Self.runTester(
            hearth,
            [
                "--host", address, "--port", "51826", "--setup-uri", started.setupURI, "--interface",
                network.controllerAddress,
            ]
        )
        #expect(run.status == 0, "\(run.results)")
        #expect(Self.ids(run.results, "fail").isEmpty, "\(run.results)")
        #expect(Self.ids(run.results, "warning").isEmpty, "\(run.results)")
        #expect(Self.ids(run.results, "skipped") == Self.skippedOnSimulator, "\(run.results)")
        #expect(run.results.count == 39)
        let details = run.results.values.flatMap { $0["details"] as? [String] ?? [] }
        #expect(!details.contains { $0.contains("left paired") || $0.contains("never learned about") }, "\(details)")

        // Never left paired: pair-setup works again, and the state folder holds nothing of the tester.
        let paired = try await hearth.runOffThePool([
            "hap", "pair", "--setup-uri", started.setupURI, "\(address):51826",
        ])
        #expect(paired.status == 0, "\(paired)")
        let unpaired = try await hearth.runOffThePool(["hap", "unpair", "\(address):51826"])
        #expect(unpaired.status == 0, "\(unpaired)")
    }

    /// The outcome of a command run on another thread.
    final class Outcome: @unchecked Sendable {
        // @unchecked: `value` is only touched under `lock`.
        private let lock = NSLock()
        private var stored: Result<HearthCLI.Result, any Error>?

        var value: Result<HearthCLI.Result, any Error>? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    /// The restart command asks the test to restart hearth-sim (a file appears) and waits until it has (another
    /// file appears); the test restarts it with the same state folder, or with a new one, which must fail.
    @Test(arguments: [true, false])
    func theRestartCheckReconnectsToARestartedHearthSim(sameState: Bool) async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let presets = ["--bridge", "--preset", "lightbulb-color", "--preset", "door-lock"]
        let started = try await HearthSimInteropTests.startSimulatorOffThePool(
            in: network,
            state: folder + "/sim",
            accessories: presets
        )
        var simulator = started.process
        defer { simulator.terminate() }
        let requested = folder + "/restart-requested"
        let restarted = folder + "/restarted"
        let command =
            "touch '\(requested)'; i=0; while [ ! -e '\(restarted)' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; "
            + "[ -e '\(restarted)' ]"
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let arguments = [
            "hap", "test", "--json", "--host", network.accessoryAddress, "--port", "51826", "--setup-uri",
            started.setupURI, "--restart-command", command,
        ]
        let outcome = Outcome()
        let tester = Thread { outcome.value = Result { try hearth.run(arguments, timeout: 150) } }
        tester.start()
        var waited = 0
        while !FileManager.default.fileExists(atPath: requested), outcome.value == nil, waited < 900 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        try #require(FileManager.default.fileExists(atPath: requested), "the tester never ran the restart command")
        #expect(simulator.terminate() == 0, "hearth-sim exits 0 on SIGTERM")
        let state = folder + (sameState ? "/sim" : "/other-sim")
        simulator = try await HearthSimInteropTests.startSimulatorOffThePool(
            in: network,
            state: state,
            accessories: presets
        ).process
        #expect(FileManager.default.createFile(atPath: restarted, contents: nil))
        waited = 0
        while outcome.value == nil, waited < 1800 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        let run = try #require(try outcome.value?.get(), "the tester did not finish")
        let restart = try #require(try Self.parse(run).results["restart.reconnect"], "\(run)")
        let details = restart["details"] as? [String] ?? []
        if sameState {
            #expect(run.status == 0, "\(run)")
            #expect(restart["result"] as? String == "pass", "\(restart)")
            #expect(details.contains { $0.hasPrefix("events on ") && $0.hasSuffix("resumed after re-subscribing") })
        } else {
            // A new state folder is a new accessory that does not know the tester.
            #expect(run.status == 1, "\(run)")
            #expect(restart["result"] as? String == "fail", "\(restart)")
            #expect(details.first?.hasPrefix("pair-verify did not succeed within 30 s of the restart") == true)
        }
    }

    @Test func eventsSentWithoutCoalescingAreAWarning() async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = try await HearthSimInteropTests.startSimulatorOffThePool(
            in: network,
            state: folder + "/sim",
            accessories: ["--coalesce-milliseconds", "0", "--preset", "switch"]
        )
        let simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let run = try await Self.runTester(
            hearth,
            ["--host", network.accessoryAddress, "--port", "51826", "--setup-uri", started.setupURI]
        )
        #expect(run.status == 0, "\(run.results)")
        #expect(Self.ids(run.results, "warning") == ["events.coalescing"], "\(run.results)")
        let details = run.results["events.coalescing"]?["details"] as? [String] ?? []
        #expect(details.first?.hasPrefix("30 event messages for 30 writes") == true, "\(details)")
    }

    /// An accessory whose characteristics need `/prepare` (tw) and answer writes with their value (wr): the
    /// timed-write and write-response checks run and pass instead of being skipped.
    @Test func timedWritesAndWriteResponsesAreCheckedWhereAnAccessoryNeedsThem() async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let description = folder + "/vault.json"
        try Data(
            """
            {"accessories": [{"name": "Vault", "services": [{"type": "switch", "primary": true, "custom": [
              {"uuid": "E863F10D-079E-48FF-8F27-9C2605A29F60", "format": "uint8", "perms": ["pr", "pw", "ev", "tw"],
               "value": 0, "minValue": 0, "maxValue": 100, "minStep": 1, "description": "Timed Level"},
              {"uuid": "E863F10D-079E-48FF-8F27-9C2605A29F61", "format": "bool", "perms": ["pr", "pw", "wr"],
               "value": false, "description": "Echo"}]}]}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: description))
        let started = try await HearthSimInteropTests.startSimulatorOffThePool(
            in: network,
            state: folder + "/sim",
            accessories: [description]
        )
        let simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let run = try await Self.runTester(
            hearth,
            ["--host", network.accessoryAddress, "--port", "51826", "--setup-uri", started.setupURI]
        )
        #expect(run.results["rw.timed-write"]?["result"] as? String == "pass", "\(run.results)")
        #expect(run.results["rw.write-response"]?["result"] as? String == "pass", "\(run.results)")
        #expect(Self.ids(run.results, "fail").isEmpty, "\(run.results)")
    }

    /// An Apple characteristic in an Apple service whose catalog entry does not list it (Brightness in a Switch):
    /// `db.optional` warns and names it; nothing fails.
    @Test func aCharacteristicTheServiceDoesNotListIsAWarning() async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let description = folder + "/odd.json"
        try Data(
            """
            {"accessories": [{"name": "Odd", "services": [{"type": "switch", "primary": true, "custom": [
              {"uuid": "00000008-0000-1000-8000-0026BB765291", "format": "int", "perms": ["pr", "pw", "ev"],
               "value": 0, "minValue": 0, "maxValue": 100, "minStep": 1, "unit": "percentage"}]}]}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: description))
        let started = try await HearthSimInteropTests.startSimulatorOffThePool(
            in: network,
            state: folder + "/sim",
            accessories: [description]
        )
        let simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let run = try await Self.runTester(
            hearth,
            ["--host", network.accessoryAddress, "--port", "51826", "--setup-uri", started.setupURI]
        )
        #expect(run.results["db.optional"]?["result"] as? String == "warning", "\(run.results)")
        let details = (run.results["db.optional"]?["details"] as? [String] ?? []).joined(separator: " ")
        #expect(
            details.contains("Switch") && details.contains("Brightness") && details.contains("neither required"),
            "\(details)"
        )
        #expect(Self.ids(run.results, "fail").isEmpty, "\(run.results)")
    }

    @Test func aFullBridgeIsCheckedInUnderAMinute() async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = try await HearthSimInteropTests.startSimulatorOffThePool(
            in: network,
            state: folder + "/sim",
            accessories: ["--bridge", "--preset", "lightbulb-color:100", "--preset", "door-lock:49"]
        )
        let simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let run = try await Self.runTester(
            hearth,
            ["--host", network.accessoryAddress, "--port", "51826", "--setup-uri", started.setupURI]
        )
        #expect(run.status == 0, "\(run.results)")
        #expect((run.results["db.count"]?["details"] as? [String])?.first == "150 accessories", "\(run.results)")
        #expect(run.elapsed < 60, "took \(run.elapsed) s")
        print("hearth hap test against a 150-accessory hearth-sim bridge: \(String(format: "%.1f", run.elapsed)) s")
    }

    @Test func theMaxTriesCheckRunsOnlyWhenDestructive() async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = try await HearthSimInteropTests.startSimulatorOffThePool(
            in: network,
            state: folder + "/sim",
            accessories: ["--preset", "switch"]
        )
        let simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let run = try await Self.runTester(
            hearth,
            ["--host", network.accessoryAddress, "--port", "51826", "--setup-uri", started.setupURI, "--destructive"]
        )
        #expect(run.status == 0, "\(run.results)")
        #expect(run.results["pair-setup.max-tries"]?["result"] as? String == "pass", "\(run.results)")
        // The accessory now refuses every pair-setup, the right code too.
        let refused = try await hearth.runOffThePool([
            "hap", "pair", "--setup-uri", started.setupURI, "\(network.accessoryAddress):51826",
        ])
        #expect(refused.status == 1 && refused.errors.contains("too many wrong setup codes"), "\(refused)")
    }

    @Test func hapPythonFailsTheKnownChecksAndIsLeftUnpaired() async throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = ChildProcess.repositoryRoot.appendingPathComponent("Tests/Peers/hap_python_accessory.py").path
        let python = try network.start(
            inAccessoryNamespace: true,
            ChildProcess.python,
            [script, "--address", network.accessoryAddress, "--state-file", folder + "/accessory.state"]
        )
        defer { python.terminate() }
        let line = try await offThePool {
            var line = try python.readLine()
            while !line.hasPrefix("{") { line = try python.readLine() }
            return line
        }
        let ready = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let port = try #require(ready["port"] as? Int)
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let run = try await Self.runTester(
            hearth,
            [
                "--host", network.accessoryAddress, "--port", "\(port)", "--setup-code", "031-45-154", "--interface",
                network.controllerAddress,
            ]
        )
        #expect(run.status == 1, "\(run.results)")
        #expect(Self.ids(run.results, "fail") == Self.failingOnHAPPython, "\(run.results)")
        // Version (37) with ev and CurrentTemperature's −273.1…1000 range: allowed, sources disagree (§14 item 8).
        #expect(Self.ids(run.results, "warning") == ["db.catalog"], "\(run.results)")
        // What it saw on the wire is in the report.
        let plain = run.results["plain.470"]?["details"] as? [String] ?? []
        #expect(plain.first == #"GET /accessories answered HTTP 401 {"status":-70401}"#, "\(plain)")
        let busy = run.results["pair-setup.busy"]?["details"] as? [String] ?? []
        #expect(busy.first?.contains("instead of Error 7 (Busy)") == true, "\(busy)")
        // The tester removed its pairing although checks failed: pairing works again.
        let paired = try await hearth.runOffThePool([
            "hap", "pair", "--code", "031-45-154", "\(network.accessoryAddress):\(port)",
        ])
        #expect(paired.status == 0, "\(paired)")
        let unpaired = try await hearth.runOffThePool(["hap", "unpair", "\(network.accessoryAddress):\(port)"])
        #expect(unpaired.status == 0, "\(unpaired)")
    }

    /// The checks HAP-python 5.0.0 fails (docs/hap-test.md lists why).
    static let failingOnHAPPython: Set<String> = [
        // 401 and -70401 instead of 470 (hap-protocol.md §14 item 3); /pairings unverified answers 500.
        "plain.470",
        // HAP-python has no /identify handler: 500 with -70402.
        "identify.unpaired",
        // No Busy: a second pair-setup M1 gets M2.
        "pair-setup.busy",
        // Writes are not checked against perms or metadata (values are clamped), reads not against perms.
        "rw.read-only", "rw.write-only", "rw.out-of-range",
        // An unknown iid reads as -70402 and a write to one answers HTTP 500.
        "rw.unknown-iid",
        // A removed controller's session stays open (hap-protocol.md §14 item 7).
        "pairings.remove-closes-sessions",
    ]
}
