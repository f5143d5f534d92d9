import Foundation
import NIOCore
import NIOPosix
import NIOWebSocket
import TestSupport
import Testing

@testable import Relay

/// Two `hearth-relay` processes behind HAProxy (Debian's), routing by the `route` query parameter with consistent
/// hashing: a hub and its clients meet on one instance, and when it dies they meet on the other.
@Suite(.serialized) struct HAProxyTests {
    static let haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let required = ProcessInfo.processInfo.environment["HEARTH_REQUIRE_PEERS"] == "1"

    /// A relay program on a free loopback port.
    struct RelayProcess {
        let process: ChildProcess
        let port: Int

        static func start(_ extra: [String] = []) async throws -> RelayProcess {
            let process = try ChildProcess(
                BuiltProducts.path("hearth-relay"),
                ["--port", "0", "--ping-interval", "10", "--log-level", "warning"] + extra,
                timeout: 300
            )
            let line = try await offThePool { try process.readLine() }
            guard let port = line.split(separator: " ").last.flatMap({ Int($0) }) else {
                throw TimedOut(what: "a port in hearth-relay's first line, got \(line)")
            }
            return RelayProcess(process: process, port: port)
        }
    }

    /// The relay's event-loop threads (NIO names them `NIO-SGLTN-…`), read from /proc.
    static func eventLoopThreads(of pid: Int32) throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("NIO-SGLTN")
        }.count
    }

    @Test func threadsSetsTheRelaysEventLoops() async throws {
        let one = try await RelayProcess.start(["--threads", "1"])
        defer { one.process.terminate() }
        let three = try await RelayProcess.start(["--threads", "3"])
        defer { three.process.terminate() }
        #expect(try Self.eventLoopThreads(of: one.process.processIdentifier) == 1)
        #expect(try Self.eventLoopThreads(of: three.process.processIdentifier) == 3)
    }

    /// A free loopback port (bound and released).
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }

    @Test(
        .enabled(
            if: haproxy != nil || required,
            "haproxy is not installed (scripts/bootstrap.sh installs it with apt-get)"
        )
    )
    func aHubAndItsClientsMoveToTheOtherRelayWhenOneDies() async throws {
        let haproxyPath = try #require(Self.haproxy, "haproxy is required (HEARTH_REQUIRE_PEERS=1) but not installed")
        // The second relay runs on one event-loop thread (`--threads 1`): the failover works the same.
        let relays = [try await RelayProcess.start(), try await RelayProcess.start(["--threads", "1"])]
        defer { for relay in relays { relay.process.terminate() } }
        let frontend = try await Self.freePort()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("relay-haproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let configPath = folder.appendingPathComponent("haproxy.cfg").path
        try HAProxyConfiguration.relays(frontend: frontend, relays: relays.map(\.port))
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        let proxy = try ChildProcess(haproxyPath, ["-db", "-f", configPath], timeout: 300)
        defer { proxy.terminate() }
        let proxyURL = "ws://127.0.0.1:\(frontend)"
        try await waitUntil("HAProxy to listen and see both relays up") {
            (try? await roundTripHealth(port: frontend)) == true
        }

        let echo = try await EchoServer.start()
        defer { echo.stop() }
        let hub = try await RunningHub.start(relayURL: proxyURL, targetPort: echo.port)
        let forwarder = try await ClientForwarder(
            configuration: .init(relayURL: proxyURL, route: hub.route),
            logger: quietLogger("test.fwd")
        )
        let running = Task { await forwarder.run() }
        defer { running.cancel() }
        #expect(
            try await roundTrip(port: forwarder.port, Array("through haproxy".utf8)) == Array("through haproxy".utf8)
        )

        // Which instance holds the home: the one that does not answer "home offline" for its route.
        // Asked again until one answers: on a loaded machine a missed ping can move the hub's link between probes.
        var holder: Int?
        let deadline = ContinuousClock.now + .seconds(30)
        while holder == nil, ContinuousClock.now < deadline {
            for (index, relay) in relays.enumerated() where holder == nil {
                let socket = TestSocket(url: "ws://127.0.0.1:\(relay.port)/v1/client?route=\(hub.route)")
                socket.send([42])
                if await eventually(timeout: .seconds(3), { socket.received == [42] }) { holder = index }
                socket.close()
            }
        }
        let dying = try #require(holder, "one relay instance holds the home")
        let survivor = relays[1 - dying]

        kill(relays[dying].process.processIdentifier, SIGKILL)
        _ = relays[dying].process.waitForExit()

        // The hub reconnects through HAProxy to the survivor, and new client streams reach it there.
        try await waitUntil("the hub link on the surviving relay", timeout: .seconds(30)) {
            let socket = TestSocket(url: "ws://127.0.0.1:\(survivor.port)/v1/client?route=\(hub.route)")
            socket.send([7])
            let echoed = await eventually(timeout: .seconds(1)) { socket.received == [7] }
            socket.close()
            return echoed
        }
        let message = (0..<50_000).map { UInt8(truncatingIfNeeded: $0) }
        try await waitUntil("a client stream through HAProxy after the failover", timeout: .seconds(30)) {
            (try? await roundTrip(port: forwarder.port, message, timeout: .seconds(3))) == message
        }
        await hub.stop()
    }
}

/// Whether `GET /healthz` through HAProxy on `port` answers 200.
private func roundTripHealth(port: Int) async throws -> Bool {
    let request = Array("GET /healthz HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n".utf8)
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(bytes: request))
        var text = ""
        for try await chunk in inbound { text += String(buffer: chunk) }
        return text.hasPrefix("HTTP/1.1 200")
    }
}
