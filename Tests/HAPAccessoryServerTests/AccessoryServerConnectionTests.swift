import Foundation
import HAP
import HAPAccessoryServer
import Testing

@Suite struct AccessoryServerConnectionTests {
    @Test("17 verified sessions at once; an 18th closes the session idle longest")
    func servesSeventeenSessions() async throws {
        let accessory = try await TestAccessory.start()
        defer { Task { await accessory.stop() } }
        let admin = TestAccessory.newController()
        let pairing = try await accessory.pair(admin)
        try await accessory.waitForSessionCount(0)
        var clients: [TestClient] = []
        for _ in 0..<17 {
            accessory.uptime.advance(by: .seconds(1))
            clients.append(try await accessory.verifiedClient(admin, accessory: pairing))
        }
        // Every session but the first makes a request, so the first is the one idle longest.
        for client in clients.dropFirst() {
            accessory.uptime.advance(by: .seconds(1))
            #expect(try await client.request(.get, "/characteristics?id=1.9").status == .ok)
        }
        #expect(await accessory.server.sessionCount == 17)
        let extra = try await accessory.verifiedClient(admin, accessory: pairing)
        #expect(await clients[0].waitForClose())
        #expect(try await extra.request(.get, "/characteristics?id=1.10").status == .ok)
        for client in clients.dropFirst() {
            #expect(try await client.request(.get, "/characteristics?id=1.9").status == .ok)
        }
        #expect(await accessory.server.sessionCount == 17)
    }

    /// A verified connection that must keep working while another one misbehaves.
    static func pairedWithBystander() async throws -> (TestAccessory, ControllerIdentity, AccessoryPairing, TestClient)
    {
        let accessory = try await TestAccessory.start()
        let admin = TestAccessory.newController()
        let pairing = try await accessory.pair(admin)
        let bystander = try await accessory.verifiedClient(admin, accessory: pairing)
        return (accessory, admin, pairing, bystander)
    }

    @Test func closesAConnectionSendingRandomBytesBeforeVerify() async throws {
        let (accessory, _, _, bystander) = try await Self.pairedWithBystander()
        defer { Task { await accessory.stop() } }
        var random = SystemRandomNumberGenerator()
        let noisy = try await accessory.connect()
        try await noisy.sendRaw((0..<512).map { _ in UInt8.random(in: 0...255, using: &random) } + [13, 10, 13, 10])
        #expect(await noisy.waitForClose())
        #expect(try await bystander.request(.get, "/characteristics?id=1.9").status == .ok)
    }

    @Test func closesAConnectionSendingRandomBytesAfterVerify() async throws {
        let (accessory, admin, pairing, bystander) = try await Self.pairedWithBystander()
        defer { Task { await accessory.stop() } }
        let noisy = try await accessory.verifiedClient(admin, accessory: pairing)
        var random = SystemRandomNumberGenerator()
        // A frame claims up to 1,024 bytes; 2,048 random bytes always complete the first claimed frame (or claim more
        // than the limit), so the server must reject it rather than wait for the rest.
        try? await noisy.sendRaw((0..<2048).map { _ in UInt8.random(in: 0...255, using: &random) }, sealed: false)
        #expect(await noisy.waitForClose())
        #expect(try await bystander.request(.get, "/characteristics?id=1.9").status == .ok)
    }

    @Test func answersAOneByteTLVBodyWith400() async throws {
        let (accessory, _, _, bystander) = try await Self.pairedWithBystander()
        defer { Task { await accessory.stop() } }
        let client = try await accessory.connect()
        let verify = try await client.request(.post, "/pair-verify", body: [6], contentType: .pairingTLV8)
        #expect(verify.status.code == 400)
        let setup = try await client.request(.post, "/pair-setup", body: [6], contentType: .pairingTLV8)
        #expect(setup.status.code == 400)
        #expect(try await bystander.request(.get, "/characteristics?id=1.9").status == .ok)
    }

    @Test func readsBytesBeyondContentLengthAsTheNextRequest() async throws {
        let (accessory, _, _, bystander) = try await Self.pairedWithBystander()
        defer { Task { await accessory.stop() } }
        let client = try await accessory.connect()
        let body = #"{}garbage that is not a request"#
        try await client.sendRaw(Array("POST /identify HTTP/1.1\r\nContent-Length: 2\r\n\r\n\(body)\r\n\r\n".utf8))
        let first = try await client.response()
        #expect(first.status.code == 400)  // paired: identify refused
        let second = try await client.response()
        #expect(second.status.code == 400)  // the rest is a malformed request line
        #expect(await client.waitForClose())
        #expect(try await bystander.request(.get, "/characteristics?id=1.9").status == .ok)
    }

    @Test func refusesA64KiBHeader() async throws {
        let (accessory, _, _, bystander) = try await Self.pairedWithBystander()
        defer { Task { await accessory.stop() } }
        let client = try await accessory.connect()
        let header = "GET /accessories HTTP/1.1\r\nX-Filler: " + String(repeating: "a", count: 64 * 1024) + "\r\n\r\n"
        try? await client.sendRaw(Array(header.utf8))
        let response = try? await client.response()
        #expect(response == nil || response?.status.code == 431)
        #expect(await client.waitForClose())
        #expect(try await bystander.request(.get, "/characteristics?id=1.9").status == .ok)
    }

    @Test func refusesABodyOverTheLimitAndAnswersAnEmptyIDListWith204() async throws {
        let (accessory, _, _, bystander) = try await Self.pairedWithBystander()
        defer { Task { await accessory.stop() } }
        #expect(try await bystander.request(.get, "/characteristics?id=").status == .noContent)
        #expect(try await bystander.request(.get, "/characteristics").status.code == 400)
        let client = try await accessory.connect()
        try await client.sendRaw(Array("PUT /characteristics HTTP/1.1\r\nContent-Length: 70000\r\n\r\n".utf8))
        #expect(try await client.response().status.code == 413)
        #expect(await client.waitForClose())
        #expect(try await bystander.request(.get, "/characteristics?id=1.9").status == .ok)
    }

    @Test func answersPipelinedRequestsInOrder() async throws {
        let (accessory, _, _, client) = try await Self.pairedWithBystander()
        defer { Task { await accessory.stop() } }
        let reads = (0..<5).map { _ in HTTPRequest(method: .get, target: "/characteristics?id=1.10").encoded() }
        let write = HTTPRequest(
            method: .put,
            target: "/characteristics",
            headers: ["Content-Type": "application/hap+json"],
            body: Array(#"{"characteristics":[{"aid":1,"iid":10,"value":33}]}"#.utf8)
        )
        try await client.sendRaw(reads[0] + reads[1] + write.encoded() + reads[2])
        #expect(try await client.response().text.contains("50"))
        #expect(try await client.response().text.contains("50"))
        #expect(try await client.response().status == .noContent)
        #expect(try await client.response().text.contains("33"))
    }
}

@Suite struct AccessoryStateStoreTests {
    @Test func savesAtomicallyWithOwnerOnlyPermissions() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("accessory.json").path
        let store = FileAccessoryStateStore(path: path)
        #expect(try await store.load() == nil)
        let state = AccessoryState(
            deviceID: "AA:BB:CC:DD:EE:01",
            signingKey: Array(repeating: 7, count: 32),
            pairings: PairingTable([
                Pairing(identifier: Array("c".utf8), publicKey: Array(repeating: 1, count: 32), isAdmin: true)
            ]),
            failedAttempts: 3,
            configurationNumber: 9,
            setupID: "ABCD",
            salt: Array(repeating: 2, count: 16),
            verifier: Array(repeating: 3, count: 384)
        )
        try await store.save(state)
        var changed = state
        changed.failedAttempts = 4
        try await store.save(changed)
        #expect(try await store.load() == changed)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["accessory.json"])
    }

    @Test func startsAServerFromAStateFileAndKeepsItsIdentity() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("accessory.json").path
        let configuration = AccessoryServer.Configuration(
            name: "Lamp",
            model: "L",
            category: .lightbulb,
            host: "127.0.0.1",
            setupCode: try SetupCode(TestAccessory.setupCode)
        )
        let first = AccessoryServer(
            configuration: configuration,
            backend: TestBackend(),
            store: FileAccessoryStateStore(path: path)
        )
        try await first.start()
        let firstAdvertisement = try #require(await first.advertisement)
        await first.stop()
        let second = AccessoryServer(
            configuration: configuration,
            backend: TestBackend(),
            store: FileAccessoryStateStore(path: path)
        )
        try await second.start()
        let secondAdvertisement = try #require(await second.advertisement)
        await second.stop()
        #expect(firstAdvertisement.deviceID == secondAdvertisement.deviceID)
        #expect(firstAdvertisement.setupHash == secondAdvertisement.setupHash)
        #expect(firstAdvertisement.statusFlags == 1)
        let noCode = AccessoryServer(
            configuration: AccessoryServer.Configuration(name: "x", model: "y", category: .other, host: "127.0.0.1"),
            backend: TestBackend(),
            store: InMemoryAccessoryStateStore()
        )
        await #expect(throws: AccessoryServerError.setupCodeRequired) { try await noCode.start() }
    }
}
