import Foundation
import HAP
import HTTPTypes
import HomeGraph
import Hub
import HubServer
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NIOCore
import Synchronization
import TestFixtures
import Testing

/// A hub on a fresh state folder with one home (owner Ada, administrator Bo, shared user Cy), a lamp, and an
/// account with no home (Dee); each person has a token.
struct Fixture {
    let hub: Hub
    let credentials: CredentialStore
    let folder: String
    let home: Home
    let lamp: Accessory
    let owner: Person
    let admin: Person
    let guest: Person
    let stranger: Person

    typealias Person = TestPerson

    init(historyLimit: Int = 1000, configure: (inout Hub.Configuration) -> Void = { _ in }) async throws {
        let base = try await TestHome(
            folderPrefix: "hubserver",
            historyLimit: historyLimit,
            strangers: ["Dee"],
            configure: configure
        )
        (hub, credentials, folder, home, lamp) = (base.hub, base.credentials, base.folder, base.home, base.lamp)
        (owner, admin, guest, stranger) = (base.owner, base.admin, base.guest, base.strangers[0])
    }

    var service: Service { lamp.services[0] }
    var onCharacteristic: Characteristic { lamp.services[0].characteristics[0] }
    var brightness: Characteristic { lamp.services[0].characteristics[1] }

    /// Starts the hub and pairs `bridge` into the home as the owner; returns what was added and the home after it.
    @discardableResult
    func startAndPair(_ bridge: SimulatedBridge) async throws -> (added: [Accessory], home: Home) {
        try await hub.start()
        let added = try await hub.pairAccessory(
            home: home.id,
            host: "127.0.0.1",
            port: bridge.port,
            setupCode: try SetupCode(SimulatedBridge.setupCode),
            as: .user(owner.id)
        )
        return (added, try #require(hub.graph.home(withID: home.id)))
    }

    /// The server for this hub on an ephemeral loopback port.
    func server(
        resumeGrace: Duration = .seconds(1),
        configure: (inout HubServer.Configuration) -> Void = { _ in }
    ) -> HubServer {
        var logger = Logger(label: "test.api")
        logger.logLevel = .warning
        var configuration = HubServer.Configuration(host: "127.0.0.1", port: 0, resumeGrace: resumeGrace)
        // The test's client runs on the cooperative pool, which a full test run stalls for tens of seconds while the
        // server's loop keeps time: a 10 s head timeout then closes connections the client has not written to yet
        // ("I/O on closed channel"). Tests of the timeouts set their own.
        configuration.headTimeout = .seconds(180)
        configuration.idleTimeout = .seconds(300)
        configure(&configuration)
        return HubServer(hub: hub, credentials: credentials, configuration: configuration, logger: logger)
    }

    /// Runs `body` with a live server on loopback and a client for it; stops the hub afterwards.
    func withServer(
        resumeGrace: Duration = .seconds(1),
        configure: (inout HubServer.Configuration) -> Void = { _ in },
        _ body: @escaping @Sendable (API) async throws -> Void
    ) async throws {
        let server = server(resumeGrace: resumeGrace, configure: configure)
        let app = server.makeApplication()
        do {
            try await app.test(.live) { client in
                try await body(API(client: client, port: client.port ?? 0, server: server))
            }
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    func stop() async {
        await hub.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// A JSON answer of the API.
struct Reply: @unchecked Sendable {
    let status: Int
    let json: Any?
    let text: String

    subscript(key: String) -> Any? { (json as? [String: Any])?[key] }
    var errorCode: String? { (self["error"] as? [String: Any])?["code"] as? String }
    var errorMessage: String { (self["error"] as? [String: Any])?["message"] as? String ?? "" }
    func object(_ key: String) -> [String: Any] { self[key] as? [String: Any] ?? [:] }
    func array(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
    func id(_ key: String) -> String { object(key)["id"] as? String ?? "" }
}

/// Records which documented routes a test reached.
final class Coverage: Sendable {
    private let reached = Mutex<Set<String>>([])
    func record(_ route: String) { reached.withLock { _ = $0.insert(route) } }
    var routes: Set<String> { reached.withLock { $0 } }
}

/// A client for the API on a live server.
struct API: Sendable {
    let client: any TestClientProtocol
    let port: Int
    let server: HubServer
    let coverage = Coverage()

    /// Calls `method template` with the path's parameters filled in, as `token`, with a raw JSON body.
    func call(
        _ method: HTTPRequest.Method,
        _ template: String,
        _ parameters: [String: String] = [:],
        token: String?,
        body: String? = nil,
        query: String = ""
    ) async throws -> Reply {
        var path = template
        for (name, value) in parameters { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
        coverage.record("\(method.rawValue) \(template)")
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = "application/json" }
        let response = try await client.execute(
            uri: path + query,
            method: method,
            headers: headers,
            body: body.map { ByteBuffer(string: $0) }
        )
        let text = String(buffer: response.body)
        let json =
            text.isEmpty ? nil : try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        return Reply(status: Int(response.status.code), json: json, text: text)
    }
}

/// A test client of the event WebSocket: keeps every message it receives with the time it arrived.
final class EventClient: Sendable {
    struct Received: Sendable {
        let text: String
        let at: ContinuousClock.Instant
    }

    final class State: Sendable {
        let value = Mutex<(received: [Received], closed: Bool)>(([], false))
        func withLock<T: Sendable>(_ body: (inout (received: [Received], closed: Bool)) -> T) -> T {
            value.withLock { body(&$0) }
        }
    }

    private let state = State()
    private let outgoing: AsyncStream<String>.Continuation
    let task: Task<WebSocketCloseFrame?, any Error>

    init(port: Int, token: String) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        outgoing = continuation
        let state = self.state
        var logger = Logger(label: "test.ws")
        logger.logLevel = .critical
        task = Task {
            defer { state.withLock { $0.closed = true } }
            return try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/events",
                configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: [.authorization: "Bearer \(token)"]),
                logger: logger
            ) { inbound, outbound, _ in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do {
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                if case .text(let text) = message {
                                    let now = ContinuousClock.now
                                    state.withLock { $0.received.append(Received(text: text, at: now)) }
                                }
                            }
                        } catch {}
                    }
                    group.addTask {
                        for await text in stream {
                            try? await outbound.writeTextMessage(text)
                        }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    /// Every message so far.
    var received: [Received] { state.withLock { $0.received } }
    /// Whether the connection has ended.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Sends a text message.
    func send(_ text: String) { outgoing.yield(text) }

    /// Closes the connection from the client side.
    func close() { outgoing.finish() }

    /// Waits until at least `count` messages arrived (or `timeout` passes) and returns them parsed.
    func messages(count: Int, timeout: Duration = .seconds(10)) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + timeout
        while received.count < count, ContinuousClock.now < deadline, !isClosed {
            try await Task.sleep(for: .milliseconds(1))
        }
        return received.map { Self.parse($0.text) }
    }

    /// Waits until a message satisfying `match` arrives and returns it with its arrival time.
    func first(
        timeout: Duration = .seconds(10),
        where match: ([String: Any]) -> Bool
    ) async throws -> (message: [String: Any], at: ContinuousClock.Instant)? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = received.first(where: { match(Self.parse($0.text)) }) {
                return (Self.parse(found.text), found.at)
            }
            if isClosed { return nil }
            try await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    /// The events received, in order.
    var events: [[String: Any]] {
        received.compactMap { Self.parse($0.text)["event"] as? [String: Any] }
    }

    static func parse(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
}

/// One operation as `docs/api/openapi.yaml` documents it.
struct DocumentedOperation: Equatable {
    var summary = ""
    /// The description, which says who may call it ("Who may: …").
    var description = ""
    /// Whether it may be called without a token (`security: [{}, …]`).
    var isOpen = false
    /// The schema of the request body, when it takes one.
    var requestSchema: String?
    /// The status of the first (successful) answer and the schema of its body, when it has one.
    var status = 0
    var answerSchema: String?
}

/// Each operation `docs/api/openapi.yaml` documents in its `paths:` section, by "METHOD path".
func documentedOperations() throws -> [String: DocumentedOperation] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let text = try String(contentsOf: root.appendingPathComponent("docs/api/openapi.yaml"), encoding: .utf8)
    var operations: [String: DocumentedOperation] = [:]
    var inPaths = false
    var path: String?
    var current: String?
    var section = ""
    func value(_ line: Substring, after key: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix(key) else { return nil }
        return trimmed.dropFirst(key.count).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\""])
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line == "paths:" {
            inPaths = true
            continue
        }
        guard inPaths else { continue }
        if let first = line.first, first != " " { break }
        if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
            path = String(line.dropFirst(2).dropLast())
            current = nil
        } else if let path, line.hasPrefix("    "), !line.hasPrefix("     ") {
            let key = String(line.trimmingCharacters(in: .whitespaces).dropLast())
            current = nil
            if ["get", "put", "post", "patch", "delete"].contains(key) {
                current = "\(key.uppercased()) \(path)"
                operations[current ?? ""] = DocumentedOperation()
            }
        } else if let operation = current {
            if line.hasPrefix("      "), !line.hasPrefix("       ") {
                section = line.trimmingCharacters(in: .whitespaces)
            }
            let schema = line.firstRange(of: "#/components/schemas/").map { range in
                String(line[range.upperBound...].prefix { $0 != "'" })
            }
            if let text = value(line, after: "summary:"), section.hasPrefix("summary") {
                operations[operation]?.summary = text
            }
            if let text = value(line, after: "description:"), section.hasPrefix("description") {
                operations[operation]?.description = text
            }
            if section.hasPrefix("security:") { operations[operation]?.isOpen = section.contains("{}") }
            if section == "requestBody:", let schema { operations[operation]?.requestSchema = schema }
            if section == "responses:", operations[operation]?.status == 0, line.hasPrefix("        '"),
                let status = Int(line.dropFirst(9).prefix(3))
            {
                operations[operation]?.status = status
            } else if section == "responses:", operations[operation]?.answerSchema == nil, let schema,
                operations[operation]?.status != 0, !line.contains("responses/")
            {
                operations[operation]?.answerSchema = schema
            }
        }
    }
    return operations
}
