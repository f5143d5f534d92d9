import Foundation
import NIOCore
import TestSupport
import Testing

@testable import DNSSD

/// python-zeroconf 0.154.0 (from the repository's `.venv`, made by `scripts/setup-peers.sh`) finds our responder.
@Suite(
    .enabled(if: NetworkNamespace.isAvailable, NetworkNamespace.skipReason),
    .enabled(if: ZeroconfPeer.python != nil, "needs .venv/bin/python with zeroconf: run scripts/setup-peers.sh")
)
struct ZeroconfInteropTests {
    /// Browses `_hap._tcp` for up to ten seconds on one interface and prints each service as a JSON line.
    static let browseScript = """
        import json, sys, time
        from zeroconf import IPVersion, ServiceBrowser, Zeroconf
        zc = Zeroconf(interfaces=[sys.argv[1]], ip_version=IPVersion.V4Only)
        found = []
        class Listener:
            def add_service(self, zc, type_, name): found.append(name)
            def update_service(self, zc, type_, name): pass
            def remove_service(self, zc, type_, name): pass
        browser = ServiceBrowser(zc, "_hap._tcp.local.", Listener())
        deadline = time.time() + 10
        while time.time() < deadline and not found:
            time.sleep(0.05)
        for name in found:
            info = zc.get_service_info("_hap._tcp.local.", name, timeout=3000)
            if info is None:
                print(json.dumps({"name": name}))
                continue
            txt = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
            print(json.dumps({"name": name, "port": info.port, "server": info.server,
                              "addresses": info.parsed_addresses(), "txt": txt}))
        zc.close()
        """

    struct Found: Decodable {
        var name: String
        var port: Int?
        var server: String?
        var addresses: [String]?
        var txt: [String: String]?
    }

    @Test func zeroconfBrowsesAndResolvesOurResponder() async throws {
        let python = try #require(ZeroconfPeer.python)
        try await withVethNamespaces { _, accessoryGroup, controller, _ in
            let accessoryAddress = try #require(IPv4Address("\(NetworkNamespace.subnet).1"))
            let responder = MDNSResponder(interfaces: [accessoryAddress], group: accessoryGroup)
            _ = try await responder.register(MDNSNetworkTests.bridge(address: accessoryAddress))
            let output = try await Self.runInNamespace(
                controller,
                [python, "-c", Self.browseScript, "\(NetworkNamespace.subnet).2"]
            )
            await responder.stop()
            let lines = output.split(separator: "\n").map { Data($0.utf8) }
            let found = try lines.map { try JSONDecoder().decode(Found.self, from: $0) }
            let service = try #require(found.first, "zeroconf found nothing; output: \(output)")
            #expect(service.name == "Hearth Bridge 1A2B._hap._tcp.local.")
            #expect(service.port == 51826)
            #expect(service.server == "Hearth-1A2B-51826.local.")
            #expect(service.addresses == ["\(accessoryAddress)"])
            #expect(service.txt?["c#"] == "1")
            #expect(service.txt?["id"] == "1A:2B:3C:4D:5E:6F")
            #expect(service.txt?["sh"] == "yf4bzw==")
        }
    }

    /// Runs a command inside a namespace with `ip netns exec` and returns its stdout.
    static func runInNamespace(_ namespace: NetworkNamespace, _ command: [String]) async throws -> String {
        let ipPath = try #require(NetworkNamespace.ipPath)
        return try await withCheckedThrowingContinuation { continuation in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ipPath)
            process.arguments = namespace.execArguments(command)
            let output = Pipe()
            process.standardOutput = output
            process.terminationHandler = { _ in
                let data = output.fileHandleForReading.readDataToEndOfFile()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// Where the repository's Python peers live.
enum ZeroconfPeer {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `.venv/bin/python` at the repository root, when `scripts/setup-peers.sh` has made it.
    static let python: String? = {
        let path = repositoryRoot.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
}
