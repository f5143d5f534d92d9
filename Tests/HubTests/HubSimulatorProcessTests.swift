import Foundation
import HAP
import HAPController
import HomeGraph
import Hub
import TestFixtures
import TestSupport
import Testing

/// The hub against the real `hearth-sim` program on 127.0.0.1 (`--no-mdns`): pair, events, writes, a removed
/// accessory, a restart of the simulator.
@Suite(.serialized)
struct HubSimulatorProcessTests {
    static let setupCode = "031-45-154"

    /// Starts `hearth-sim serve` with a bridge of a lightbulb and a door lock; returns it and its port.
    static func startSimulator(state: String, port: Int = 0) throws -> (process: ChildProcess, port: Int) {
        let process = try ChildProcess(
            BuiltProducts.path("hearth-sim"),
            [
                "serve", "--unverified-timeout", "600", "--state", state, "--port", "\(port)", "--setup-code",
                setupCode, "--no-mdns", "--json",
                "--bridge", "--preset", "lightbulb", "--preset", "door-lock", "--coalesce-milliseconds", "0",
            ],
            timeout: 600
        )
        let ready = try process.receive()
        let bound = try #require(ready["port"] as? Int, "\(ready)")
        return (process, bound)
    }

    /// Runs a hearth-sim control command to its end; returns its exit status and what it printed.
    static func simulator(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path("hearth-sim"))
        process.arguments = arguments
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The configuration number hearth-sim saved in its state folder (what its mDNS advertisement would carry).
    static func configurationNumber(state: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: state + "/accessory.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["configurationNumber"] as? Int)
    }

    @Test func pairsAHearthSimBridgeFollowsItAndReconnectsAfterARestart() async throws {
        let folder = NSTemporaryDirectory() + "hub-sim-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let simState = folder + "/sim"
        let started = try Self.startSimulator(state: simState)
        var simulator = started.process
        defer { simulator.terminate() }

        let owner = UUID()
        let hub = try await Hub(configuration: testConfiguration(folder: folder + "/hub"))
        try await hub.start()
        let home = try await hub.addHome(name: "Maple Street", ownerName: "Ada", as: .user(owner))
        let events = await Recorder.start(await hub.subscribe(as: .user(owner)))
        let added = try await hub.pairAccessory(
            home: home.id,
            host: "127.0.0.1",
            port: started.port,
            setupCode: try SetupCode(Self.setupCode),
            as: .user(owner)
        )
        // The bridge and each bridged accessory, as accessories of their own.
        #expect(added.count == 3)
        let bridge = try #require(added.first { $0.bridgeID == nil })
        let lamp = try #require(added.first { $0.category == .lightbulb })
        let lock = try #require(added.first { $0.category == .doorLock })
        #expect(lamp.bridgeID == bridge.id && lock.bridgeID == bridge.id)
        let on = try #require(lamp.characteristics.first { $0.type == ShortType.on })

        // A change in the simulator reaches the graph as a change event.
        let now = on.value == .bool(true)
        let set = try Self.simulator([
            "set", "--state", simState, "\(lamp.accessoryInstanceID)", "on", now ? "false" : "true",
        ])
        #expect(set.status == 0, "\(set.output)")
        _ = try await events.next("the simulator's change") { $0.isValue(.bool(!now), of: on.id) }

        // A write through the hub reaches the simulator.
        let written = try await hub.writeCharacteristics(home: home.id, [(on.id, .bool(now))], as: .user(owner))
        #expect(written[on.id] == .success(.bool(now)))
        let read = try Self.simulator(["get", "--state", simState, "--json", "\(lamp.accessoryInstanceID)", "on"])
        #expect(read.status == 0)
        #expect(read.output.contains(now ? "true" : "false"), "\(read.output)")

        // The simulator removes an accessory: it disappears from the graph.
        let before = try Self.configurationNumber(state: simState)
        let removed = try Self.simulator(["remove", "--state", simState, lock.name])
        #expect(removed.status == 0, "\(removed.output)")
        var after = before
        try await waitUntil("hearth-sim saves a new c#") {
            after = (try? Self.configurationNumber(state: simState)) ?? before
            return after != before
        }
        // Standing in for the mDNS browser (hearth-sim runs with --no-mdns here).
        let deviceID = try #require(await hub.linkedDeviceIDs.first)
        await hub.noteAdvertisement(deviceID: deviceID, host: nil, port: nil, configurationNumber: after)
        _ = try await events.next("the removal") { event in
            if case .accessoryRemoved(let id) = event.change { return id == lock.id }
            return false
        }
        #expect(hub.graph.home(withID: home.id)?.accessories.map(\.id).sorted() == [bridge.id, lamp.id].sorted())

        // The simulator restarts: the hub sees it go and come back, and events flow again.
        #expect(simulator.terminate() == 0)
        _ = try await events.next("unreachable") { event in
            if case .accessoryReachabilityChanged(let id, false) = event.change { return id == bridge.id }
            return false
        }
        simulator = try Self.startSimulator(state: simState, port: started.port).process
        _ = try await events.next("reachable") { event in
            if case .accessoryReachabilityChanged(let id, true) = event.change { return id == bridge.id }
            return false
        }
        let current = try #require(
            try hub.graph.characteristic(withID: on.id, inHome: home.id).characteristic.value
        )
        let next = current != .bool(true)
        let again = try Self.simulator([
            "set", "--state", simState, "\(lamp.accessoryInstanceID)", "on", next ? "true" : "false",
        ])
        #expect(again.status == 0, "\(again.output)")
        _ = try await events.next("an event after the restart") { $0.isValue(.bool(next), of: on.id) }
        await hub.stop()
    }
}

/// The hub in a child process (`hearth-hub-probe`) browsing over mDNS in a network namespace made by the test,
/// against hearth-sim advertising in the other: discovery, pairing by device ID, and `c#` seen over mDNS.
@Suite(
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"),
    .serialized
)
struct HubNamespaceTests {
    static let setupCode = "031-45-154"

    static func startSimulator(in network: NetworkNamespacePair, state: String) throws -> ChildProcess {
        let process = try network.start(
            inAccessoryNamespace: true,
            BuiltProducts.path("hearth-sim"),
            [
                "serve", "--unverified-timeout", "600", "--state", state, "--port", "51826", "--setup-code", setupCode,
                "--interface",
                network.accessoryAddress, "--json", "--bridge", "--preset", "lightbulb", "--preset", "door-lock",
                "--coalesce-milliseconds", "0",
            ]
        )
        _ = try process.receive()
        return process
    }

    @Test func discoversPairsAndFollowsAHearthSimBridgeOverMDNS() throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = NSTemporaryDirectory() + "hub-netns-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let simState = folder + "/sim"
        var simulator = try Self.startSimulator(in: network, state: simState)
        defer { simulator.terminate() }
        let probe = try network.start(
            inAccessoryNamespace: false,
            BuiltProducts.path("hearth-hub-probe"),
            [folder + "/hub", network.controllerAddress, Self.setupCode]
        )
        defer { probe.terminate() }

        #expect(try probe.receive()["ready"] as? Bool == true)
        let discovered = try probe.receive()
        #expect(discovered["discovered"] as? String != nil, "\(discovered)")
        let paired = try probe.receive()
        #expect(paired["paired"] as? Int == 3, "\(paired)")
        var accessories: [[String: Any]] = []
        for _ in 0..<3 { accessories.append(try probe.receive()) }
        let lamp = try #require(accessories.first { ($0["on"] as? Int ?? 0) != 0 && $0["aid"] as? Int != 1 })
        let lampAID = try #require(lamp["aid"] as? Int)
        let onIID = try #require(lamp["on"] as? Int)
        let lock = try #require(accessories.first { $0["aid"] as? Int != 1 && $0["aid"] as? Int != lampAID })
        let lockAID = try #require(lock["aid"] as? Int)
        let lockName = try #require(lock["accessory"] as? String)

        // A change in the simulator reaches the hub's graph.
        #expect(
            try HubSimulatorProcessTests.simulator(["set", "--state", simState, "\(lampAID)", "on", "true"]).status == 0
        )
        _ = try probe.receive {
            $0["event"] as? String == "value" && $0["aid"] as? Int == lampAID && $0["iid"] as? Int == onIID
                && ($0["value"] as? String ?? "").contains("true")
        }
        // A write through the hub reaches the simulator.
        try probe.send(line: "write \(lampAID) \(onIID) false")
        #expect(try probe.receive { $0["written"] != nil }["written"] as? String == "ok")
        let read = try HubSimulatorProcessTests.simulator(["get", "--state", simState, "--json", "\(lampAID)", "on"])
        #expect(read.output.contains("false"), "\(read.output)")

        // The simulator removes an accessory: the new c# comes over mDNS and the accessory leaves the graph.
        #expect(try HubSimulatorProcessTests.simulator(["remove", "--state", simState, lockName]).status == 0)
        _ = try probe.receive { $0["event"] as? String == "removed" && $0["aid"] as? Int == lockAID }

        // The simulator restarts: unreachable, reachable, and events flow again.
        #expect(simulator.terminate() == 0)
        _ = try probe.receive { $0["event"] as? String == "reachable" && $0["value"] as? Bool == false }
        simulator = try Self.startSimulator(in: network, state: simState)
        _ = try probe.receive { $0["event"] as? String == "reachable" && $0["value"] as? Bool == true }
        #expect(
            try HubSimulatorProcessTests.simulator(["set", "--state", simState, "\(lampAID)", "on", "true"]).status == 0
        )
        _ = try probe.receive {
            $0["event"] as? String == "value" && $0["aid"] as? Int == lampAID
                && ($0["value"] as? String ?? "").contains("true")
        }
    }
}

extension ChildProcess {
    /// Reads JSON lines until one satisfies `predicate`, and returns it.
    func receive(until predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
        while true {
            let object = try receive()
            if predicate(object) { return object }
        }
    }
}
