import ByteStreams
import Crypto
import Foundation
import HAP
import HearthAPI
import HomeGraph
import Hub
import HubServer
import Logging
import NIOCore
import NIOPosix
import Relay
import Synchronization
import TestFixtures
import TestSupport
import Testing

@testable import HearthKit

/// Remote access through `hearth-relay` (docs/relay.md): a hub's link and a client's forwarder on a relay in this
/// process, over real loopback sockets; the relay sees only sealed bytes, and a relay that tampers fails closed.
@Suite(.serialized) struct RelayAccessTests {
    /// Every payload a relay forwarded, both ways.
    final class Recording: Sendable {
        private let bytes = Mutex<[UInt8]>([])

        func add(_ payload: ForwardedPayload) { bytes.withLock { $0 += Array(payload.bytes.readableBytesView) } }

        var all: [UInt8] { bytes.withLock { $0 } }

        /// Whether `text` occurs in the recording (as UTF-8).
        func contains(_ text: String) -> Bool {
            let pattern = Array(text.utf8)
            let all = self.all
            guard !pattern.isEmpty, all.count >= pattern.count else { return false }
            for start in 0...(all.count - pattern.count) where all[start] == pattern[0] {
                if Array(all[start..<start + pattern.count]) == pattern { return true }
            }
            return false
        }
    }

    /// A relay in this process on a free loopback port; `recording` sees every forwarded payload.
    static func startRelay(_ recording: Recording? = nil) async throws -> (url: String, task: Task<Void, any Error>) {
        var configuration = RelayServer.Configuration(host: "127.0.0.1", port: 0)
        if let recording { configuration.observer = { recording.add($0) } }
        var logger = Logger(label: "test.relay")
        logger.logLevel = .critical
        let relay = RelayServer(configuration: configuration, logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try relay.makeApplication { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        let port = await iterator.next() ?? 0
        return ("ws://127.0.0.1:\(port)", task)
    }

    /// The hub's link to `relayURL` with `server`'s identity, streams going to `127.0.0.1:targetPort`; connected.
    static func startLink(
        _ server: HubServer,
        relayURL: String,
        targetPort: Int
    ) async throws -> (link: HubLink, task: Task<Void, Never>) {
        let identity = try #require(server.identity)
        var configuration = HubLink.Configuration(
            relayURL: relayURL,
            identity: identity.signingKey,
            targetHost: "127.0.0.1",
            targetPort: targetPort
        )
        configuration.initialBackoff = .milliseconds(50)
        configuration.maximumBackoff = .milliseconds(500)
        var logger = Logger(label: "test.link")
        logger.logLevel = ProcessInfo.processInfo.environment["HEARTH_TEST_LOG"] != nil ? .debug : .critical
        let link = HubLink(configuration: configuration, logger: logger)
        let task = Task { await link.run() }
        #expect(await eventually(timeout: .seconds(20)) { link.isConnected }, "the hub's link came up")
        return (link, task)
    }

    static func port(of address: String) -> Int { Int(address.split(separator: ":").last ?? "") ?? 0 }

    @Test func pairingCallsAndEventsThroughARelayShowItNoPlaintextNamesValuesOrTokens() async throws {
        let fixture = try await KitFixture()
        try await SecureChannelTests().withServers(fixture) { url, address, server in
            let recording = Recording()
            let relay = try await Self.startRelay(recording)
            let hub = try await Self.startLink(server, relayURL: relay.url, targetPort: Self.port(of: address))
            defer {
                hub.task.cancel()
                relay.task.cancel()
            }
            let (_, code) = try await fixture.credentials.createInvite(
                home: fixture.homeID,
                role: .administrator,
                invitedBy: fixture.owner.id,
                lifetime: 3600
            )
            // Paired through the relay only: no direct address at all.
            let secure = try await SecureHub.pair(
                address: "",
                relay: relay.url,
                route: hub.link.route.hex,
                code: code,
                name: "Zelda Quuxley"
            )
            #expect(secure.route == server.identity?.routingID && secure.relay == relay.url)

            let tunnel = try await SecureTunnel.start(secure)
            let zelda = HearthClient(tunnel: tunnel)
            let me = try await zelda.me()
            #expect(me.user.name == "Zelda Quuxley")
            let manager = HomeManager(client: zelda)
            try await manager.start()
            #expect(await manager.waitUntilConnected())
            let updates = UpdateRecorder(await manager.updates(inHome: fixture.homeID))
            // A value the client writes, and one the owner writes over loopback that the client follows.
            let written = try await zelda.addRoom(named: "Obscura Pantry", toHome: fixture.homeID)
            let owner = fixture.client(url, fixture.owner)
            let attic = try await owner.addRoom(named: "Xylophone Attic", toHome: fixture.homeID)
            for room in [written.object.id, attic.object.id] {
                let seen = await updates.first { update in
                    if case .changed(let event) = update, case .roomAdded(let added) = event.change {
                        return added.id == room
                    }
                    return false
                }
                #expect(seen != nil, "the room reached the client's mirror through the relay")
            }
            #expect(await manager.home(withID: fixture.homeID)?.name == "Maple Street")
            await manager.stop()
            await tunnel.stop()

            #expect(recording.all.count > 1000, "the relay forwarded the session")
            let secrets = [
                "Maple Street", "Zelda Quuxley", "Obscura Pantry", "Xylophone Attic", "Desk Lamp",
                fixture.homeID.uuidString, fixture.homeID.uuidString.lowercased(), me.user.id.uuidString,
                me.user.id.uuidString.lowercased(), fixture.owner.token, fixture.admin.token, fixture.guest.token,
                HubPairingTLV.normalized(code), "/v1/", "\"name\"", "Upgrade: websocket",
            ]
            for secret in secrets {
                #expect(!recording.contains(secret), "the relay saw \(secret) in clear")
            }
        }
    }

    @Test func aClientPairedDirectlyMovesToTheRelayWhenTheDirectWayGoesAndItsMirrorMissesNothing() async throws {
        let fixture = try await KitFixture()
        try await SecureChannelTests().withServers(fixture) { url, address, server in
            let recording = Recording()
            let relay = try await Self.startRelay(recording)
            let hub = try await Self.startLink(server, relayURL: relay.url, targetPort: Self.port(of: address))
            defer {
                hub.task.cancel()
                relay.task.cancel()
            }
            // The LAN way: a proxy to the secure listener that the test takes away.
            let lan = try await CuttableProxy(targetPort: Self.port(of: address))
            let (_, code) = try await fixture.credentials.createPairingCode(
                for: fixture.owner.id,
                label: "phone",
                lifetime: 3600
            )
            let secure = try await SecureHub.pair(
                address: "127.0.0.1:\(lan.port)",
                relay: relay.url,
                route: nil,
                code: code
            )
            // The routing id is learned at pairing.
            #expect(secure.route == server.identity?.routingID)
            #expect(recording.all.isEmpty, "the direct way answered, so the relay carried nothing")
            let tunnel = try await SecureTunnel.start(secure)
            let client = HearthClient(tunnel: tunnel)
            let manager = HomeManager(client: client)
            try await manager.start()
            #expect(await manager.waitUntilConnected())
            let updates = UpdateRecorder(await manager.updates(inHome: fixture.homeID))
            let owner = fixture.client(url, fixture.owner)
            let before = try await owner.addRoom(named: "Before Room", toHome: fixture.homeID)
            #expect(await updates.first { Self.isRoomAdded($0, before.object.id) } != nil)

            // The LAN way goes (connections refused); changes made meanwhile arrive through the relay.
            await lan.stop()
            let during = try await owner.addRoom(named: "During Room", toHome: fixture.homeID)
            let after = try await owner.addRoom(named: "After Room", toHome: fixture.homeID)
            for room in [during.object.id, after.object.id] {
                #expect(await updates.first { Self.isRoomAdded($0, room) } != nil, "the mirror resumed")
            }
            let rooms = await manager.home(withID: fixture.homeID)?.rooms.map(\.name) ?? []
            #expect(["Before Room", "During Room", "After Room"].allSatisfy(rooms.contains), "\(rooms)")
            #expect(!recording.all.isEmpty, "the session moved to the relay")
            #expect(try await client.me().user.id == fixture.owner.id)
            await manager.stop()
            await tunnel.stop()
        }
    }

    /// hearth-relay's first line named no port.
    struct NoPort: Error { let line: String }

    static let haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// A `hearth-relay` program on a free loopback port.
    static func startRelayProcess() throws -> (process: ChildProcess, port: Int) {
        let process = try ChildProcess(
            BuiltProducts.path("hearth-relay"),
            ["--port", "0", "--ping-interval", "10", "--log-level", "warning"],
            timeout: 300
        )
        let line = try process.readLine()
        guard let port = line.split(separator: " ").last.flatMap({ Int($0) }) else {
            throw NoPort(line: line)
        }
        return (process, port)
    }

    /// Whether the home answers through the relay at `url`: a request in clear gets the secure listener's 470.
    static func homeAnswers(through url: String, route: RouteID) async -> Bool {
        guard let forwarder = try? await ClientForwarder(configuration: .init(relayURL: url, route: route)) else {
            return false
        }
        let running = Task { await forwarder.run() }
        defer { running.cancel() }
        guard let connection = try? await ByteConnection.connect(host: "127.0.0.1", port: forwarder.port) else {
            return false
        }
        defer { connection.close() }
        try? await connection.write(Array("GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n".utf8))
        let answered = Mutex(false)
        let reader = Task {
            for await bytes in connection.received where bytes.readableBytes > 0 {
                answered.withLock { $0 = true }
                return
            }
        }
        _ = await eventually(timeout: .seconds(2)) { answered.withLock { $0 } }
        reader.cancel()
        return answered.withLock { $0 }
    }

    @Test(.enabled(if: haproxy != nil, "haproxy is not installed (scripts/bootstrap.sh installs it with apt-get)"))
    func behindHAProxyTheMirrorResumesWithNothingMissedWhenTheHomesRelayDies() async throws {
        let fixture = try await KitFixture()
        try await SecureChannelTests().withServers(fixture) { url, address, server in
            let haproxyPath = try #require(Self.haproxy)
            // Started off the cooperative pool: each reads its port from the program's output with a blocking call.
            let relays = try await offThePool { [try Self.startRelayProcess(), try Self.startRelayProcess()] }
            defer { for relay in relays { _ = relay.process.terminate() } }
            let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: 0).get()
            let frontend = probe.localAddress?.port ?? 0
            try await probe.close()
            let folder = NSTemporaryDirectory() + "relay-haproxy-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let configuration = HAProxyConfiguration.relays(frontend: frontend, relays: relays.map(\.port))
            try configuration.write(toFile: folder + "/haproxy.cfg", atomically: true, encoding: .utf8)
            let proxy = try ChildProcess(haproxyPath, ["-db", "-f", folder + "/haproxy.cfg"], timeout: 300)
            defer { _ = proxy.terminate() }
            let proxyURL = "ws://127.0.0.1:\(frontend)"
            // Both relays up behind HAProxy before the hub links (so the hash sees both).
            try await Task.sleep(for: .milliseconds(800))
            let hub = try await Self.startLink(server, relayURL: proxyURL, targetPort: Self.port(of: address))
            defer { hub.task.cancel() }

            let (_, code) = try await fixture.credentials.createPairingCode(
                for: fixture.owner.id,
                label: "phone",
                lifetime: 3600
            )
            var secure: SecureClientConfiguration?
            for _ in 0..<40 where secure == nil {
                secure = try? await SecureHub.pair(address: "", relay: proxyURL, route: hub.link.route.hex, code: code)
                if secure == nil { try await Task.sleep(for: .milliseconds(250)) }
            }
            let tunnel = try await SecureTunnel.start(try #require(secure, "paired through HAProxy"))
            var managerLogger = Logger(label: "test.manager")
            managerLogger.logLevel = ProcessInfo.processInfo.environment["HEARTH_TEST_LOG"] != nil ? .debug : .critical
            let manager = HomeManager(
                client: HearthClient(tunnel: tunnel),
                configuration: .init(
                    initialBackoff: .milliseconds(100),
                    maximumBackoff: .milliseconds(500),
                    logger: managerLogger
                )
            )
            try await manager.start()
            #expect(await manager.waitUntilConnected())
            let updates = UpdateRecorder(await manager.updates(inHome: fixture.homeID))
            let owner = fixture.client(url, fixture.owner)
            let first = try await owner.addRoom(named: "First Room", toHome: fixture.homeID)
            #expect(await updates.first { Self.isRoomAdded($0, first.object.id) } != nil)

            // Kill the instance that holds the home; the hub and the client meet again on the other.
            var holder: Int?
            for (index, relay) in relays.enumerated()
            where await Self.homeAnswers(through: "ws://127.0.0.1:\(relay.port)", route: hub.link.route) {
                holder = index
            }
            let dying = try #require(holder, "one relay instance holds the home")
            kill(relays[dying].process.processIdentifier, SIGKILL)
            _ = relays[dying].process.waitForExit()
            var added: [UUID] = []
            for name in ["Second Room", "Third Room", "Fourth Room"] {
                added.append(try await owner.addRoom(named: name, toHome: fixture.homeID).object.id)
            }
            for room in added {
                #expect(
                    await updates.first(timeout: .seconds(60)) { Self.isRoomAdded($0, room) } != nil,
                    "the mirror resumed through the surviving relay with nothing missed"
                )
            }
            let rooms = await manager.home(withID: fixture.homeID)?.rooms.map(\.name) ?? []
            #expect(["First Room", "Second Room", "Third Room", "Fourth Room"].allSatisfy(rooms.contains), "\(rooms)")
            await manager.stop()
            await tunnel.stop()
        }
    }

    static func isRoomAdded(_ update: HomeUpdate, _ id: UUID) -> Bool {
        if case .changed(let event) = update, case .roomAdded(let room) = event.change { return room.id == id }
        return false
    }

    @Test(arguments: [TamperingProxy.Mode.alter, .replay, .drop, .reorder])
    func aRelayThatTampersWithAFrameMakesTheSessionFailClosed(mode: TamperingProxy.Mode) async throws {
        let fixture = try await KitFixture()
        try await SecureChannelTests().withServers(fixture) { _, address, server in
            let proxy = try await TamperingProxy(targetPort: Self.port(of: address))
            let relay = try await Self.startRelay()
            let hub = try await Self.startLink(server, relayURL: relay.url, targetPort: proxy.port)
            defer {
                hub.task.cancel()
                relay.task.cancel()
            }
            let (_, code) = try await fixture.credentials.createPairingCode(
                for: fixture.owner.id,
                label: "laptop",
                lifetime: 3600
            )
            let secure = try await SecureHub.pair(address: "", relay: relay.url, route: hub.link.route.hex, code: code)
            let tunnel = try await SecureTunnel.start(secure)
            let client = HearthClient(tunnel: tunnel, timeout: .seconds(5))
            // Untouched, the home answers in several frames.
            let clean = try await client.home(fixture.homeID)
            #expect(clean.home.name == "Maple Street")
            // Several frames: a dropped, replayed or reordered first frame is followed by one that must not open.
            #expect(proxy.state.frames.withLock { $0 } >= 2, "the answer spans frames")

            proxy.state.mode.withLock { $0 = mode }
            do {
                let answer = try await client.home(fixture.homeID)
                Issue.record("a tampered session answered (\(answer.home.name))")
            } catch {
                #expect(error is HearthError, "the client gets an error, not altered data: \(error)")
            }
            #expect(proxy.state.tampered.withLock { $0 } == 1, "the proxy did tamper")
            await tunnel.stop()
            await proxy.stop()
        }
    }
}

/// A TCP proxy between a hub's link and its secure listener that, once told, alters, replays, drops or reorders
/// the next session frame the hub sends (2-byte length, sealed bytes, 16-byte tag), as a malicious relay could.
final class TamperingProxy: Sendable {
    /// What the proxy does to the next frame.
    enum Mode: Sendable, CustomStringConvertible {
        case none, alter, replay, drop, reorder
        var description: String {
            switch self {
            case .none: "none"
            case .alter: "alter"
            case .replay: "replay"
            case .drop: "drop"
            case .reorder: "reorder"
            }
        }
    }

    /// What the proxy is told and what it did.
    final class State: Sendable {
        let mode = Mutex(Mode.none)
        let tampered = Mutex(0)
        let frames = Mutex(0)
    }

    let state = State()
    private let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let task: Task<Void, Never>
    let port: Int

    init(targetPort: Int) async throws {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        self.listener = listener
        port = listener.channel.localAddress?.port ?? 0
        let state = state
        task = Task {
            try? await listener.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            group.addTask { await Self.splice(connection, targetPort: targetPort, state: state) }
                        }
                    } catch {}
                }
            }
        }
    }

    func stop() async {
        task.cancel()
        try? await listener.channel.close()
    }

    /// One connection: the client side to the hub's listener as is; the hub's frames one by one.
    private static func splice(
        _ inbound: NIOAsyncChannel<ByteBuffer, ByteBuffer>,
        targetPort: Int,
        state: State
    ) async {
        guard
            let outbound = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(
                    host: "127.0.0.1",
                    port: targetPort,
                    channelInitializer: { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
                )
        else { return }
        try? await inbound.executeThenClose { clientIn, clientOut in
            try await outbound.executeThenClose { hubIn, hubOut in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { for try await chunk in clientIn { try await hubOut.write(chunk) } }
                    group.addTask {
                        var pending: [UInt8] = []
                        var held: [UInt8]?
                        for try await chunk in hubIn {
                            // Pair-setup's and pair-verify's answers travel in clear; every later byte is frames.
                            if pending.isEmpty, chunk.readableBytesView.starts(with: Array("HTTP/1.1".utf8)) {
                                try await clientOut.write(chunk)
                                continue
                            }
                            pending += Array(chunk.readableBytesView)
                            var out: [UInt8] = []
                            while pending.count >= 2 {
                                let length = 2 + (Int(pending[0]) | Int(pending[1]) << 8) + 16
                                guard pending.count >= length else { break }
                                var frame = Array(pending[0..<length])
                                pending.removeFirst(length)
                                state.frames.withLock { $0 += 1 }
                                if let earlier = held {
                                    out += frame + earlier
                                    held = nil
                                    continue
                                }
                                let mode = state.mode.withLock { mode in
                                    defer { mode = .none }
                                    return mode
                                }
                                if mode != .none { state.tampered.withLock { $0 += 1 } }
                                switch mode {
                                case .none: out += frame
                                case .alter:
                                    frame[5] ^= 0x01
                                    out += frame
                                case .replay: out += frame + frame
                                case .drop: break
                                case .reorder: held = frame
                                }
                            }
                            if !out.isEmpty { try await clientOut.write(ByteBuffer(bytes: out)) }
                        }
                    }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        }
    }
}
