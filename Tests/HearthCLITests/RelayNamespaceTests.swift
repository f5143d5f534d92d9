import Foundation
import TestSupport
import Testing

/// Issue 19's demonstration: `hearthd --demo --relay` in one network namespace, `hearth-relay` in another, `hearth`
/// in a third; the hub's and the client's namespaces reach only the relay's (a veth pair each, no forwarding), so
/// every byte between `hearth` and the hub goes through the relay. In HomeCommandTests' serialized suite: these tests
/// block a thread of the cooperative pool while they run the programs, so one at a time takes one thread at most.
extension HomeCommandTests {
    /// Three namespaces: hub ↔ relay on 198.18.93.0/24, relay ↔ client on 198.18.94.0/24.
    struct Namespaces {
        let hub: String
        let relay: String
        let client: String
        static let hubAddress = "198.18.93.1"
        static let relayForHub = "198.18.93.2"
        static let relayForClient = "198.18.94.1"
        static let clientAddress = "198.18.94.2"

        static func make() throws -> Namespaces {
            let base = "hearth-relay-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
            let spaces = Namespaces(hub: base + "-h", relay: base + "-r", client: base + "-c")
            do {
                for name in [spaces.hub, spaces.relay, spaces.client] {
                    try NetworkNamespace.run(["netns", "add", name])
                    try NetworkNamespace.run(["-n", name, "link", "set", "lo", "up"])
                }
                for (outer, link, address, relayAddress) in [
                    (spaces.hub, "hrv", hubAddress, relayForHub), (spaces.client, "crv", clientAddress, relayForClient),
                ] {
                    try NetworkNamespace.run([
                        "link", "add", link + "-a", "netns", outer, "type", "veth", "peer", "name", link + "-b",
                        "netns",
                        spaces.relay,
                    ])
                    try NetworkNamespace.run(["-n", outer, "addr", "add", address + "/24", "dev", link + "-a"])
                    try NetworkNamespace.run(["-n", outer, "link", "set", link + "-a", "up"])
                    try NetworkNamespace.run([
                        "-n", spaces.relay, "addr", "add", relayAddress + "/24", "dev", link + "-b",
                    ])
                    try NetworkNamespace.run(["-n", spaces.relay, "link", "set", link + "-b", "up"])
                }
                try? NetworkNamespace.run(
                    ["netns", "exec", spaces.relay, "sysctl", "-qw", "net.ipv4.ip_forward=0"]
                )
            } catch {
                spaces.remove()
                throw error
            }
            return spaces
        }

        func remove() {
            for name in [hub, relay, client] { try? NetworkNamespace.run(["netns", "del", name]) }
        }
    }

    /// `hearth ARGUMENTS` inside `namespace`, to its end.
    static func hearth(in namespace: String, _ arguments: [String]) throws -> HomeCommandTests.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NetworkNamespacePair.ipPath)
        process.arguments = ["netns", "exec", namespace, BuiltProducts.path("hearth")] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HEARTH_CONFIG"] = "/nonexistent/hearth-config.json"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return HomeCommandTests.Result(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self)
        )
    }

    @Test(.enabled(if: NetworkNamespace.isAvailable, "needs root and ip(8) for network namespaces"))
    func hearthPairedThroughARelayControlsTheDemoHomeAndFollowsItsEventsFromAnotherNamespace() throws {
        let spaces = try Namespaces.make()
        defer { spaces.remove() }
        let ip = NetworkNamespacePair.ipPath
        let relay = try ChildProcess(
            ip,
            ["netns", "exec", spaces.relay, BuiltProducts.path("hearth-relay"), "--address", "0.0.0.0", "--port", "0"]
                + ["--log-level", "warning"],
            timeout: 300
        )
        defer { _ = relay.terminate() }
        let relayPort = try #require(try relay.readLine().split(separator: " ").last.flatMap { Int($0) })

        // The client cannot reach the hub's namespace at all.
        let probe = try Self.hearth(
            in: spaces.client,
            ["login", "--hub", "\(Namespaces.hubAddress):7879", "ABCD-EFGH-JKLM", "--config", "/dev/null/x"]
        )
        #expect(probe.status != 0, "\(probe)")

        let state = NSTemporaryDirectory() + "hearth-relayns-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let hub = try ChildProcess(
            ip,
            ["netns", "exec", spaces.hub, BuiltProducts.path("hearthd"), "--demo", "--state", state, "--port", "0"]
                + ["--remote-port", "0", "--no-user-config", "--log-level", "warning"]
                + ["--relay", "ws://\(Namespaces.relayForHub):\(relayPort)"],
            timeout: 300
        )
        defer { _ = hub.terminate() }
        var route: String?
        var linked = false
        while route == nil || !linked {
            let line = try hub.readLine()
            if line.hasPrefix("hearthd: hub key fingerprint"), let range = line.range(of: "routing id ") {
                route = String(line[range.upperBound...])
            }
            if line.hasPrefix("hearthd: relay link to") { linked = true }
        }
        let routeID = try #require(route)
        let code = try String(contentsOfFile: state + "/owner.setup-code", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let config = state + "/remote.json"
        let relayURL = "ws://\(Namespaces.relayForClient):\(relayPort)"
        // The hub's link may still be connecting: the relay then says "home offline" and no code is spent.
        var login = try Self.hearth(
            in: spaces.client,
            ["login", "--relay", relayURL, "--route", routeID, code, "--config", config]
        )
        for _ in 0..<40 where login.status != 0 {
            Thread.sleep(forTimeInterval: 0.25)
            login = try Self.hearth(
                in: spaces.client,
                ["login", "--relay", relayURL, "--route", routeID, code, "--config", config]
            )
        }
        #expect(login.status == 0 && login.output.contains("Paired with the hub"), "\(login)")

        var result = try Self.hearth(in: spaces.client, ["home", "list", "--config", config])
        #expect(result.status == 0 && result.output.contains("Demo Home"), "\(result)")

        // Follows the home's events through the relay while it controls the home.
        let watcher = try ChildProcess(
            ip,
            ["netns", "exec", spaces.client, BuiltProducts.path("hearth"), "watch", "--json", "--count", "1"]
                + ["--config", config],
            timeout: 120
        )
        defer { _ = watcher.terminate() }
        let header = try watcher.receive()
        #expect(header["watching"] != nil, "\(header)")
        result = try Self.hearth(in: spaces.client, ["room", "add", "Far Studio", "--config", config])
        #expect(result.status == 0, "\(result)")
        let line = try watcher.receive()
        let event = try #require(line["event"] as? [String: Any], "\(line)")
        let change = try #require(event["change"] as? [String: Any])
        #expect(change["type"] as? String == "roomAdded", "\(change)")
        #expect((change["room"] as? [String: Any])?["name"] as? String == "Far Studio", "\(change)")
        #expect(watcher.waitForExit() == 0)
        result = try Self.hearth(in: spaces.client, ["room", "list", "--config", config])
        #expect(result.status == 0 && result.output.contains("Far Studio"), "\(result)")
    }
}
