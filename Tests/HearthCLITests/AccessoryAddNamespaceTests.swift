import Foundation
import TestSupport
import Testing

/// `hearth accessory add` end to end with real mDNS: two hearth-sim accessories advertise in one network namespace,
/// `hearthd --interface` browses from the other, and `hearth` (in the hub's namespace) lists them, asks which and
/// for the setup code, pairs, and drives the paired accessory.
@Suite(
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"),
    .serialized
)
struct AccessoryAddNamespaceTests {
    static let setupCode = "031-45-154"

    /// Starts `hearth-sim serve` advertising on the accessory namespace's interface.
    static func startSimulator(
        in network: NetworkNamespacePair,
        state: String,
        port: Int,
        _ arguments: [String]
    ) throws -> ChildProcess {
        let process = try network.start(
            inAccessoryNamespace: true,
            BuiltProducts.path("hearth-sim"),
            [
                "serve", "--unverified-timeout", "600", "--state", state, "--port", "\(port)", "--setup-code",
                setupCode, "--interface",
                network.accessoryAddress, "--json", "--coalesce-milliseconds", "0",
            ] + arguments
        )
        _ = try process.receive()
        return process
    }

    /// Runs `hearth ARGUMENTS --config CONFIG` in the hub's namespace to its end.
    static func hearth(
        _ network: NetworkNamespacePair,
        _ arguments: [String],
        config: String
    ) throws -> (status: Int32, output: String) {
        let process = try network.start(
            inAccessoryNamespace: false,
            BuiltProducts.path("hearth"),
            arguments + ["--config", config],
            timeout: 90
        )
        var lines: [String] = []
        while let line = try? process.readLine() { lines.append(line) }
        return (process.waitForExit(), lines.joined(separator: "\n"))
    }

    @Test func listsNearbyAccessoriesAsksForTheCodePairsAndControls() throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bridgeState = folder + "/bridge"
        let bridge = try Self.startSimulator(
            in: network,
            state: bridgeState,
            port: 51826,
            ["--name", "Porch Bridge", "--bridge", "--preset", "lightbulb"]
        )
        defer { bridge.terminate() }
        let lock = try Self.startSimulator(
            in: network,
            state: folder + "/lock",
            port: 51827,
            ["--name", "Garden Lock", "--preset", "door-lock"]
        )
        defer { lock.terminate() }

        let hub = try network.start(
            inAccessoryNamespace: false,
            BuiltProducts.path("hearthd"),
            [
                "--state", folder + "/hub", "--port", "0", "--no-user-config", "--log-level", "warning",
                "--interface", network.controllerAddress,
            ],
            timeout: 300
        )
        defer { hub.terminate() }
        while try !hub.readLine().hasPrefix("Stop with") {}
        let config = folder + "/hub/client.json"

        var result = try Self.hearth(network, ["home", "add", "Cabin"], config: config)
        #expect(result.status == 0, "\(result.output)")

        // Both accessories are found over mDNS; the hub may need a moment to hear them.
        var nearby: [[String: Any]] = []
        for _ in 0..<100 {
            result = try Self.hearth(network, ["accessory", "nearby", "--json"], config: config)
            #expect(result.status == 0, "\(result.output)")
            nearby =
                (try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["accessories"]
                as? [[String: Any]] ?? []
            if nearby.count == 2 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        // hearth-sim advertises its name with the end of its device ID, as HAP-python does.
        let advertised = nearby.compactMap { $0["name"] as? String }.sorted()
        #expect(advertised.count == 2, "\(nearby)")
        #expect(
            advertised.first?.hasPrefix("Garden Lock") == true && advertised.last?.hasPrefix("Porch Bridge") == true
        )
        #expect(nearby.allSatisfy { $0["isPairable"] as? Bool == true }, "\(nearby)")

        // `add` lists them, asks which and for the code.
        let add = try network.start(
            inAccessoryNamespace: false,
            BuiltProducts.path("hearth"),
            ["accessory", "add", "--config", config],
            timeout: 90
        )
        let listing = [try add.readLine(), try add.readLine()]
        #expect(listing[0].hasPrefix("1. ") && listing[1].hasPrefix("2. "), "\(listing)")
        let choice = try #require(listing.firstIndex { $0.contains("Porch Bridge") }, "\(listing)")
        #expect(listing[1 - choice].contains("Garden Lock"), "\(listing)")
        try add.send(line: "\(choice + 1)")
        try add.send(line: Self.setupCode)
        let answer = try add.readLine()
        #expect(answer.contains("Which one (1–2)?"), "\(answer)")
        #expect(answer.contains("Setup code of Porch Bridge"), "\(answer)")
        #expect(answer.contains("Added") && answer.contains("to Cabin"), "\(answer)")
        #expect(add.waitForExit() == 0)

        // The bridge's accessories are in the home, and a write reaches the simulated lamp.
        result = try Self.hearth(network, ["accessory", "list", "--json"], config: config)
        #expect(result.status == 0, "\(result.output)")
        let accessories =
            (try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["accessories"]
            as? [[String: Any]] ?? []
        let names = accessories.compactMap { $0["name"] as? String }
        #expect(names.contains("Porch Bridge"), "\(names)")
        let lamp = try #require(names.first { $0 != "Porch Bridge" }, "\(names)")
        result = try Self.hearth(network, ["accessory", "set", lamp, "on", "true"], config: config)
        #expect(result.status == 0, "\(result.output)")
        let read = Process()
        read.executableURL = URL(fileURLWithPath: BuiltProducts.path("hearth-sim"))
        read.arguments = ["get", "--state", bridgeState, "--json", "2", "on"]
        let pipe = Pipe()
        read.standardOutput = pipe
        try read.run()
        let value = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        read.waitUntilExit()
        #expect(value.contains("true"), "\(value)")

        // The lock is still unpaired: a wrong code is refused with its own exit code and message.
        result = try Self.hearth(
            network,
            ["accessory", "add", "--device", "Garden Lock", "--code", "111-22-333"],
            config: config
        )
        #expect(result.status != 0)
        result = try Self.hearth(network, ["accessory", "list", "--json"], config: config)
        #expect(!result.output.contains("Garden Lock"), "a refused pairing adds nothing")
    }
}
