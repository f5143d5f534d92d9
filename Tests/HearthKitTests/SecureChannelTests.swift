import ByteStreams
import Crypto
import Foundation
import HAP
import HearthAPI
import HomeGraph
import Hub
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import TestFixtures
import TestSupport
import Testing

@testable import HearthKit
@testable import HubServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Remote access (docs/remote-access.md): clients pair with the hub's secure listener and call the API inside a
/// verified HAP session, through `SecureTunnel`, over real sockets.
@Suite(.serialized) struct SecureChannelTests {
    /// Runs `body` with the plain API on loopback (`url`) and the secure listener (`address`, `host:port`).
    func withServers(
        _ fixture: KitFixture,
        maximumFailedPairingAttempts: Int = 100,
        configure: (inout HubServer.Configuration) -> Void = { _ in },
        _ body: @escaping @Sendable (_ url: String, _ address: String, _ server: HubServer) async throws -> Void
    ) async throws {
        var logger = Logger(label: "test.secure")
        logger.logLevel = .warning
        var configuration = HubServer.Configuration(
            host: "127.0.0.1",
            port: 0,
            headTimeout: .seconds(180),
            idleTimeout: .seconds(300)
        )
        configuration.secureHost = "127.0.0.1"
        configuration.securePort = 0
        configuration.maximumFailedPairingAttempts = maximumFailedPairingAttempts
        configure(&configuration)
        let server = HubServer(
            hub: fixture.hub,
            credentials: fixture.credentials,
            configuration: configuration,
            identity: HubIdentity(signingKey: Curve25519.Signing.PrivateKey()),
            logger: logger
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let secure = server.makeSecureApplication { channel in continuation.yield(channel.localAddress?.port ?? 0) }
        let running = Task { try await secure.run() }
        var iterator = ports.makeAsyncIterator()
        let port = await iterator.next() ?? 0
        do {
            try await server.makeApplication().test(.live) { client in
                try await body("http://127.0.0.1:\(client.port ?? 0)", "127.0.0.1:\(port)", server)
            }
        } catch {
            running.cancel()
            _ = await running.result
            await fixture.stop()
            throw error
        }
        running.cancel()
        _ = await running.result
        await fixture.stop()
    }

    @Test func anInviteCodePairsANewAccountThatCallsTheAPIAndFollowsEventsThroughTheTunnel() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture) { url, address, server in
            let (_, code) = try await fixture.credentials.createInvite(
                home: fixture.homeID,
                role: .shared,
                invitedBy: fixture.owner.id,
                lifetime: 3600
            )
            let secure = try await SecureHub.pair(address: address, code: code, name: "Eve")
            #expect(secure.hubPublicKey == HubIdentity.hex(try #require(server.identity).publicKey))
            // The invite is used up: the same code pairs no second device.
            await #expect(throws: HearthError.self) {
                try await SecureHub.pair(address: address, code: code, name: "Eve")
            }

            let tunnel = try await SecureTunnel.start(secure)
            let eve = HearthClient(tunnel: tunnel)
            let me = try await eve.me()
            #expect(me.user.name == "Eve")
            #expect(me.homes.map(\.id) == [fixture.homeID] && me.homes.first?.role == .shared)
            #expect(await fixture.hub.graph.home(withID: fixture.homeID)?.users.contains { $0.name == "Eve" } == true)

            // Events over the tunnel: the owner's change (over loopback HTTP, as today) reaches Eve's mirror.
            let manager = HomeManager(client: eve)
            try await manager.start()
            #expect(await manager.waitUntilConnected())
            let updates = UpdateRecorder(await manager.updates(inHome: fixture.homeID))
            let owner = fixture.client(url, fixture.owner)
            let created = try await owner.addRoom(named: "Attic", toHome: fixture.homeID)
            let seen = await updates.first { update in
                if case .changed(let event) = update, case .roomAdded(let room) = event.change {
                    return room.id == created.object.id
                }
                return false
            }
            #expect(seen != nil, "the room added by the owner reached the client over the tunnel")
            await manager.stop()
            await tunnel.stop()
        }
    }

    @Test func anInvalidInviteNameIsRefusedAtM6AndTheCodeStaysUnused() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture) { _, address, _ in
            let (_, code) = try await fixture.credentials.createInvite(
                home: fixture.homeID,
                role: .shared,
                invitedBy: fixture.owner.id,
                lifetime: 3600
            )
            for name in ["", "Eve\u{7}", String(repeating: "e", count: 65)] {
                await #expect(throws: HearthError.self, "the name \(name.debugDescription)") {
                    try await SecureHub.pair(address: address, code: code, name: name)
                }
            }
            let users = await fixture.hub.graph.home(withID: fixture.homeID)?.users.map(\.name) ?? []
            #expect(!users.contains { $0.hasPrefix("Eve") || $0.isEmpty }, "\(users)")
            // The code was not used up by the refusals.
            _ = try await SecureHub.pair(address: address, code: code, name: "Eve")
            #expect(await fixture.hub.graph.home(withID: fixture.homeID)?.users.contains { $0.name == "Eve" } == true)
        }
    }

    @Test func aPairingCodePairsAnotherDeviceOfTheSameAccount() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture) { url, address, _ in
            // Made over loopback HTTP with the admin's token.
            let made = try await HTTPTestClient.post(url + "/v1/account/pairing-codes", token: fixture.admin.token)
            let code = try #require(made["code"] as? String)
            let secure = try await SecureHub.pair(address: address, code: code)
            let tunnel = try await SecureTunnel.start(secure)
            let me = try await HearthClient(tunnel: tunnel).me()
            #expect(me.user.id == fixture.admin.id)
            #expect(await fixture.credentials.pairings(of: fixture.admin.id).count == 1)
            await tunnel.stop()
            // The code is used up, and the file on disk says so with the pairing it made.
            await #expect(throws: (any Error).self) { _ = try await SecureHub.pair(address: address, code: code) }
            let reopened = try CredentialStore(path: fixture.credentials.path)
            #expect(await reopened.pairings(of: fixture.admin.id).map(\.clientID) == [secure.clientID])
            let onDisk = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reopened.path)))
            #expect(((onDisk as? [String: Any])?["pairingCodes"] as? [Any])?.isEmpty ?? true)
        }
    }

    @Test func aWrongCodeIsRefusedWithASentenceAndCountedUntilMaxTriesWhichTheOwnerResetsOverLoopback() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture, maximumFailedPairingAttempts: 2) { url, address, _ in
            let (_, code) = try await fixture.credentials.createPairingCode(
                for: fixture.guest.id,
                label: "phone",
                lifetime: 3600
            )
            // The right public id (first four characters) with a wrong rest.
            let wrong = String(code.prefix(4)) + (code.hasSuffix("ABCDEFGH") ? "HGFEDCBA" : "ABCDEFGH")
            for attempt in 1...2 {
                do {
                    _ = try await SecureHub.pair(address: address, code: wrong)
                    Issue.record("a wrong code paired")
                } catch {
                    #expect(
                        (error as? HearthError)?.message == "the hub refused the code: it is wrong, expired or used"
                    )
                }
                #expect(await fixture.credentials.failedPairingAttempts == attempt)
            }
            // From the limit on, even the right code is refused (MaxTries).
            do {
                _ = try await SecureHub.pair(address: address, code: code)
                Issue.record("paired after the limit")
            } catch {
                #expect((error as? HearthError)?.message.contains("too many wrong codes") == true)
            }
            let reset = try await HTTPTestClient.post(
                url + "/v1/hub/pairing-attempts/reset",
                token: fixture.owner.token,
                expecting: 204
            )
            #expect(reset.isEmpty)
            #expect(await fixture.credentials.failedPairingAttempts == 0)
            _ = try await SecureHub.pair(address: address, code: code)
        }
    }

    @Test func wrongCodesTriedOnManyConnectionsAtOnceStopAtTheLimit() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture, maximumFailedPairingAttempts: 3) { _, address, _ in
            let (_, code) = try await fixture.credentials.createPairingCode(
                for: fixture.guest.id,
                label: "phone",
                lifetime: 3600
            )
            let wrong = String(code.prefix(4)) + (code.hasSuffix("ABCDEFGH") ? "HGFEDCBA" : "ABCDEFGH")
            // Ten clients that all pass M1 before any guess is counted: each guess takes its try before its proof.
            let refusals = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        do {
                            _ = try await SecureHub.pair(address: address, code: wrong)
                            return nil
                        } catch {
                            return (error as? HearthError)?.message ?? "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(refusals.allSatisfy { $0 != nil }, "a wrong code paired")
            #expect(await fixture.credentials.failedPairingAttempts == 3)
            #expect(refusals.filter { $0?.contains("too many wrong codes") == true }.count == 7, "\(refusals)")
            await #expect(throws: (any Error).self) { _ = try await SecureHub.pair(address: address, code: code) }
        }
    }

    @Test func aPairSetupErrorAnswerEndsTheConnection() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture) { _, address, _ in
            let (_, code) = try await fixture.credentials.createPairingCode(
                for: fixture.guest.id,
                label: "phone",
                lifetime: 3600
            )
            // M1 with the right public id and a pairing method HAP does not have (7).
            var m1 = TLV8()
            m1.append(.state, byte: 1)
            m1.append(.method, byte: 7)
            m1.append(TLV8.Tag(rawValue: HubPairingTLV.codeID), Array(HubPairingTLV.codeID(of: code).utf8))
            let body = m1.encoded()
            let port = try #require(Int(address.split(separator: ":").last ?? ""))
            let socket = try RawSocket(port: port)
            try socket.send(
                Array(
                    ("POST /pair-setup HTTP/1.1\r\nHost: hub\r\nContent-Type: application/pairing+tlv8\r\n"
                        + "Content-Length: \(body.count)\r\n\r\n").utf8
                ) + body
            )
            let (bytes, closed) = await socket.readUntilClosed(timeout: .seconds(5))
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            #expect(closed, "the connection stayed open after an error answer")
        }
    }

    @Test func bytesThatAreNotARequestGetA400WithItsJSONBody() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture) { _, address, _ in
            let port = try #require(Int(address.split(separator: ":").last ?? ""))
            let socket = try RawSocket(port: port)
            try socket.send("NOT HTTP AT ALL\r\n\r\n")
            let answer = try #require(await socket.answerThenClose(timeout: .seconds(5)), "no answer and close")
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(60))")
            #expect(answer.contains(#"{"error":{"code":"badRequest","message":"the request could not be read"}}"#))
        }
    }

    @Test func aUserRemovedFromTheHomeCannotPairWithACodeMadeBefore() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture) { url, address, _ in
            let (_, code) = try await fixture.credentials.createPairingCode(
                for: fixture.guest.id,
                label: "phone",
                lifetime: 3600
            )
            try await fixture.client(url, fixture.owner).removeUser(fixture.guest.id, fromHome: fixture.homeID)
            await #expect(throws: (any Error).self) { _ = try await SecureHub.pair(address: address, code: code) }
            #expect(await fixture.credentials.pairings(of: fixture.guest.id).isEmpty)
        }
    }

    @Test func aClientIdentifierNeverReplacesAnotherAccountsPairing() async throws {
        let fixture = try await KitFixture()
        let owners = try await fixture.credentials.addPairing(
            clientID: "phone-1",
            publicKey: [UInt8](repeating: 1, count: 32),
            accountID: fixture.owner.id,
            label: "phone"
        )
        await #expect(throws: (any Error).self) {
            _ = try await fixture.credentials.addPairing(
                clientID: "phone-1",
                publicKey: [UInt8](repeating: 2, count: 32),
                accountID: fixture.guest.id,
                label: "invite"
            )
        }
        #expect(await fixture.credentials.pairing(clientID: "phone-1")?.id == owners.id)
        // The same account pairing the same client again replaces its own pairing.
        let again = try await fixture.credentials.addPairing(
            clientID: "phone-1",
            publicKey: [UInt8](repeating: 3, count: 32),
            accountID: fixture.owner.id,
            label: "phone"
        )
        #expect(await fixture.credentials.pairings(of: fixture.owner.id).map(\.id) == [again.id])
        await fixture.stop()
    }

    @Test func removingOrDemotingAUserClosesTheirSessionsWithinASecondAndTheOldKeysNoLongerVerify() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture) { url, address, server in
            let owner = fixture.client(url, fixture.owner)
            for (person, demote) in [(fixture.admin, true), (fixture.guest, false)] {
                let (_, code) = try await fixture.credentials.createPairingCode(
                    for: person.id,
                    label: "phone",
                    lifetime: 3600
                )
                let secure = try await SecureHub.pair(address: address, code: code)
                let tunnel = try await SecureTunnel.start(secure)
                // An event WebSocket over the tunnel, open.
                let socket = try await Self.openEventSocket(tunnel)
                let start = ContinuousClock.now
                if demote {
                    try await owner.setRole(.shared, ofUser: person.id, inHome: fixture.homeID)
                } else {
                    try await owner.removeUser(person.id, fromHome: fixture.homeID)
                }
                #expect(await socket.closes(within: .seconds(5)))
                let elapsed = ContinuousClock.now - start
                #expect(elapsed < .seconds(3), "the session closed after \(elapsed)")
                #expect(await fixture.credentials.pairings(of: person.id).isEmpty)
                // The old keys cannot verify any more.
                do {
                    _ = try await SecureHub.openSession(secure)
                    Issue.record("a removed pairing verified")
                } catch {
                    #expect((error as? HearthError)?.message.contains("does not know this client") == true)
                }
                #expect(server.secureSessions.verifiedCount == 0)
                await tunnel.stop()
            }
        }
    }

    @Test func aClientWithoutAPairingGetsNoAPIBytesAndATamperedFrameEndsTheSession() async throws {
        let fixture = try await KitFixture()
        try await withServers(fixture) { _, address, _ in
            let parts = address.split(separator: ":")
            let (host, port) = (String(parts[0]), Int(parts[1]) ?? 0)
            // A request with a valid token but no session: 470, closed, nothing of the home.
            let plain = try await ByteConnection.connect(host: host, port: port)
            try await plain.write(
                Array(
                    "GET /v1/homes HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer \(fixture.owner.token)\r\n\r\n".utf8
                )
            )
            var answer: [UInt8] = []
            for await bytes in plain.received { answer += Array(bytes.readableBytesView) }
            let text = String(decoding: answer, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 470"))
            #expect(!text.contains("Maple Street") && !text.contains(fixture.homeID.uuidString))

            // A client identity the hub never paired: pair-verify fails.
            let stranger = SecureClientConfiguration(
                address: address,
                hubPublicKey: SecureHub.hex(Array(repeating: 7, count: 32)),
                clientID: UUID().uuidString,
                clientKey: Curve25519.Signing.PrivateKey().rawRepresentation.base64EncodedString()
            )
            await #expect(throws: HearthError.self) { try await SecureHub.openSession(stranger) }

            // A paired client whose first frame is altered on the way: the hub closes without an answer.
            let (_, code) = try await fixture.credentials.createPairingCode(
                for: fixture.owner.id,
                label: "laptop",
                lifetime: 3600
            )
            let secure = try await SecureHub.pair(address: address, code: code)
            let (connection, keys) = try await SecureHub.openSession(secure)
            var cipher = SessionCipher(keys: keys, role: .controller)
            var frame = cipher.seal(Array("GET /v1/homes HTTP/1.1\r\nHost: hub\r\n\r\n".utf8))
            frame[5] ^= 0x01
            try await connection.write(frame)
            var received = 0
            for await bytes in connection.received { received += bytes.readableBytes }
            #expect(received == 0, "no answer to a tampered frame, and the connection closed")

            // The same request unaltered is answered.
            let (again, keys2) = try await SecureHub.openSession(secure)
            var cipher2 = SessionCipher(keys: keys2, role: .controller)
            try await again.write(cipher2.seal(Array("GET /v1/homes HTTP/1.1\r\nHost: hub\r\n\r\n".utf8)))
            var opened: [UInt8] = []
            var iterator = again.received.makeAsyncIterator()
            while !String(decoding: opened, as: UTF8.self).contains("Maple Street"), let bytes = await iterator.next() {
                opened += try cipher2.open(Array(bytes.readableBytesView))
            }
            #expect(String(decoding: opened, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            again.close()
        }
    }

    /// Opens `GET /v1/events` as a WebSocket through `tunnel` and returns the connection once upgraded.
    static func openEventSocket(_ tunnel: SecureTunnel) async throws -> ByteConnection {
        let port = Int(tunnel.url.split(separator: ":").last ?? "") ?? 0
        let socket = try await ByteConnection.connect(host: "127.0.0.1", port: port)
        try await socket.write(
            Array(
                ("GET /v1/events HTTP/1.1\r\nHost: hub\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "\(SecureTunnel.header): \(tunnel.secret)\r\n\r\n").utf8
            )
        )
        var head: [UInt8] = []
        var iterator = socket.received.makeAsyncIterator()
        while !String(decoding: head, as: UTF8.self).contains("\r\n\r\n"), let bytes = await iterator.next() {
            head += Array(bytes.readableBytesView)
        }
        #expect(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101"))
        return socket
    }
}

/// Plain loopback HTTP calls for routes HearthClient has no method for.
enum HTTPTestClient {
    /// POSTs with `token` and returns the JSON answer (empty for 204); fails on another status.
    static func post(_ url: String, token: String, expecting status: Int = 201) async throws -> [String: Any] {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("{}".utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == status)
        if data.isEmpty { return [:] }
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }
}
