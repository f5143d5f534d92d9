import Foundation
import TestSupport
import Testing

/// hearth-sim run as a program in one network namespace, aiohomekit 4.0.1 (with zeroconf 0.154.0) in another,
/// joined by a veth pair: discovery over mDNS, pairing, control, events, pairings, restart, MaxTries.
@Suite(
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"),
    .enabled(if: ChildProcess.arePeersAvailable, "run scripts/setup-peers.sh to install aiohomekit"),
    .serialized
)
struct AiohomekitSimulatorTests {
    static let setupCode = "031-45-154"

    /// A running hearth-sim and what it printed when ready.
    struct Simulator {
        var process: ChildProcess
        var deviceID: String
        var port: Int
    }

    static func startSimulator(
        in network: NetworkNamespacePair,
        state: String,
        arguments: [String]
    ) throws -> Simulator {
        let process = try network.start(
            inAccessoryNamespace: true,
            BuiltProducts.path("hearth-sim"),
            [
                "serve", "--unverified-timeout", "600", "--state", state, "--port", "51826", "--setup-code", setupCode,
                "--interface",
                network.accessoryAddress, "--control", "\(network.accessoryAddress):51899", "--json",
            ] + arguments
        )
        let ready = try process.receive()
        let deviceID = try #require(ready["deviceID"] as? String)
        let port = try #require(ready["port"] as? Int)
        return Simulator(process: process, deviceID: deviceID, port: port)
    }

    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        return path.path
    }

    /// Runs the aiohomekit check script in the controller namespace and returns its steps by name.
    static func runCheck(
        in network: NetworkNamespacePair,
        mode: String,
        deviceID: String,
        extra: [String] = [],
        onRestartRequest: () throws -> Void = {}
    ) throws -> [String: [String: Any]] {
        let script = ChildProcess.repositoryRoot.appendingPathComponent("Tests/Peers/aiohomekit_sim_check.py").path
        let check = try network.start(
            inAccessoryNamespace: false,
            ChildProcess.python,
            [
                script, mode, "--mdns-interface", network.controllerAddress, "--device-id", deviceID, "--pin",
                setupCode, "--control", "\(network.accessoryAddress):51899",
            ] + extra
        )
        var steps: [String: [String: Any]] = [:]
        while true {
            let step = try check.receive()
            let name = step["step"] as? String ?? "?"
            if name == "restart-request" {
                try onRestartRequest()
                try check.send(line: "restarted")
                continue
            }
            steps[name] = step
            if name == "done" { break }
        }
        #expect(check.waitForExit() == 0)
        return steps
    }

    @Test func aiohomekitDiscoversPairsAndControlsTheSimulator() throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let state = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let arguments = ["--bridge", "--preset", "lightbulb", "--preset", "door-lock", "--preset", "motion-sensor"]
        var simulator = try Self.startSimulator(in: network, state: state, arguments: arguments)
        defer { simulator.process.terminate() }

        let steps = try Self.runCheck(in: network, mode: "full", deviceID: simulator.deviceID) {
            #expect(simulator.process.terminate() == 0, "hearth-sim exits 0 on SIGTERM")
            simulator = try Self.startSimulator(in: network, state: state, arguments: arguments)
        }
        for name in [
            "discover-unpaired", "identify-unpaired", "wrong-code-refused", "pair", "list-accessories",
            "write-and-read-back", "event-after-control-change", "event-after-second-controller-write",
            "list-pairings", "remove-second-pairing", "removed-controller-refused", "reconnect-after-restart",
            "unpaired-after-last-admin-removed", "max-tries",
        ] {
            let step = steps[name]
            #expect(step?["ok"] as? Bool == true, "\(name): \(step.map { "\($0)" } ?? "missing")")
        }
        #expect(steps["unexpected-error"] == nil, "\(steps["unexpected-error"].map { "\($0)" } ?? "")")
        #expect(steps["done"]?["ok"] as? Bool == true)
    }

    @Test("aiohomekit lists and controls a bridge of 150 accessories")
    func aiohomekitControlsABridgeOf150Accessories() throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let state = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let simulator = try Self.startSimulator(
            in: network,
            state: state,
            arguments: ["--bridge", "--preset", "lightbulb:149"]
        )
        defer { simulator.process.terminate() }
        let steps = try Self.runCheck(
            in: network,
            mode: "bridge",
            deviceID: simulator.deviceID,
            extra: ["--expect-accessories", "150"]
        )
        for name in ["list-bridge", "control-last-accessory", "read-every-switch", "done"] {
            #expect(steps[name]?["ok"] as? Bool == true, "\(name): \(steps[name].map { "\($0)" } ?? "missing")")
        }
    }
}
