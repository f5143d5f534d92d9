import ByteStreams
import Foundation
import HubServer
import TestSupport
import Testing

/// `hearthd --demo` under the common soft limit of 1,024 open files (issue 20): 1,100 idle connections used to lock
/// every client out; now the hub raises its soft limit when it may, and sheds unauthenticated connections when not.
@Suite(.serialized) struct HearthdFileLimitTests {
    struct Client: Decodable {
        var url: String
        var token: String
    }

    /// Starts hearthd under `prlimit --nofile=SOFT:HARD`; returns it with its client configuration.
    func start(limits: String, state: String) throws -> (ChildProcess, Client) {
        let child = try ChildProcess(
            "/usr/bin/prlimit",
            [
                "--nofile=\(limits)", "--", BuiltProducts.path("hearthd"), "--demo", "--state", state, "--port", "0",
                "--no-user-config",
            ],
            timeout: 180
        )
        while !(try child.readLine()).hasPrefix("Stop with") {}
        let client = try JSONDecoder().decode(
            Client.self,
            from: Data(contentsOf: URL(fileURLWithPath: state + "/client.json"))
        )
        return (child, client)
    }

    /// The soft and hard open-file limits of process `pid`, from `/proc/PID/limits`.
    func fileLimits(of pid: Int32) throws -> (soft: String, hard: String) {
        let text = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        return (String(fields[3]), String(fields[4]))
    }

    /// A GET of the home list with the owner's token over a fresh connection; the status, or `nil` when no answer
    /// came within 10 s.
    func homesStatus(_ client: Client) async -> Int? {
        let port = Int(client.url.split(separator: ":").last ?? "") ?? 0
        guard let socket = try? RawSocket(port: port) else { return nil }
        try? socket.send(
            "GET /v1/homes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(client.token)\r\nConnection: close\r\n\r\n"
        )
        guard let answer = await socket.answerThenClose(timeout: .seconds(10)) else { return nil }
        return Int(answer.dropFirst("HTTP/1.1 ".count).prefix(3))
    }

    @Test func hearthdRaisesItsSoftOpenFileLimitToTheHardOne() async throws {
        let state = NSTemporaryDirectory() + "hearthd-nofile-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (child, client) = try start(limits: "1024:4096", state: state)
        defer { child.terminate() }
        let limits = try fileLimits(of: child.processIdentifier)
        #expect(limits.soft == "4096" && limits.hard == "4096", "\(limits)")
        #expect(await homesStatus(client) == 200)
    }

    @Test func elevenHundredIdleConnectionsDoNotLockOutAClientWithAToken() async throws {
        OpenFileLimit.raiseSoftLimitToHard()  // this test process holds 1,100 sockets
        let state = NSTemporaryDirectory() + "hearthd-flood-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (child, client) = try start(limits: "1024:1024", state: state)
        let port = Int(client.url.split(separator: ":").last ?? "") ?? 0
        var flood: [RawSocket] = []
        for _ in 0..<1100 { flood.append(try RawSocket(port: port)) }
        var answered = 0
        for _ in 0..<3 where await homesStatus(client) == 200 { answered += 1 }
        #expect(answered == 3, "3 of 3 requests with a token answered during the flood")
        for socket in flood { socket.close() }
        #expect(child.terminate() == 0)
        let log = child.standardErrorText()
        let warnings = log.components(separatedBy: "API connections reached their limit").count - 1
        #expect(warnings == 1, "the shortage is logged once: \(log.suffix(2000))")
    }
}
