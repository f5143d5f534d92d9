import Crypto
import Foundation
import HAP
import Testing

/// aiohomekit 4.0.1's own controller code (its SRP client, pair-setup and pair-verify generators and its encrypted
/// HTTP protocol) run against Hearth's accessory-side state machines and session cipher, with no network.
@Suite(.enabled(if: PeerProcess.isAvailable, "run scripts/setup-peers.sh to install aiohomekit"), .serialized)
struct AiohomekitPairingTests {
    @Test("aiohomekit's SRP client and ours compute the same A, M1 and K from the same inputs")
    func srpValuesAgreeWithAiohomekit() throws {
        let salt = [UInt8](hexString: "0102030405060708090a0b0c0d0e0f10") ?? []
        let a = [UInt8](hexString: "1576bcbad52f39caad7975bdbe75e028fe1010aafdfd9bba4c1c6ff8fae867bf") ?? []
        let b = [UInt8](hexString: "38d236f84ebcc1a1f076e02ded511fe25c35050298d61152077a3b8c97db793b") ?? []
        let verifier = SRPVerifier.pairSetup(setupCode: "518-08-582", salt: salt)
        let server = SRPServer(verifier: verifier, privateKey: b)
        let client = SRPClient(
            username: "Pair-Setup",
            password: "518-08-582",
            group: .hap3072,
            hash: .sha512,
            privateKey: a
        )
        let ours = try client.respond(salt: salt, serverPublicKey: server.publicKey)

        let peer = try PeerProcess.start(
            script: "aiohomekit_peer.py",
            arguments: ["srp", "518-08-582", salt.hexString, a.hexString, server.publicKey.hexString]
        )
        let theirs = try peer.receive()
        #expect(theirs["A"] as? String == client.publicKey.hexString)
        #expect(theirs["M1"] as? String == ours.proof.hexString)
        #expect(theirs["K"] as? String == ours.sessionKey.withUnsafeBytes { Array($0) }.hexString)

        // Our accessory accepts aiohomekit's proof, and aiohomekit accepts our accessory's answer.
        let theirProof = try #require([UInt8](hexString: theirs["M1"] as? String ?? ""))
        let (serverProof, _) = try server.verifyClient(publicKey: client.publicKey, proof: theirProof)
        try peer.send(["M2": serverProof.hexString])
        #expect(try peer.receive()["M2_valid"] as? Bool == true)
        #expect(peer.waitForExit() == 0)
    }

    @Test(arguments: 0..<3)
    func aiohomekitPairsVerifiesAndExchangesEncryptedHTTP(round: Int) throws {
        let identity = AccessoryIdentity(deviceID: "AA:BB:CC:DD:EE:0\(round)", signingKey: .init())
        let pairingID = UUID().uuidString
        var table = PairingTable()
        let peer = try PeerProcess.start(script: "aiohomekit_peer.py", arguments: ["session", "031-45-154", pairingID])

        // Pair-setup: aiohomekit's generator against our accessory machine.
        var setup = PairSetupAccessory(
            identity: identity,
            verifier: .pairSetup(setupCode: "031-45-154", salt: Array(repeating: UInt8(round), count: 16)),
            conditions: .init(isPaired: false, failedAttempts: 0, isAnotherPairSetupInProgress: false)
        )
        for _ in 0..<3 {
            let request = try TLV8(decoding: try #require([UInt8](hexString: try peer.receive("send"))))
            let step = setup.receive(request)
            for case .paired(let pairing) in step.events { table.save(pairing) }
            try peer.send(["reply": step.reply.encoded().hexString])
        }
        #expect(table.pairings.count == 1)
        #expect(table.pairings.first?.identifier == Array(pairingID.utf8))
        #expect(table.pairings.first?.isAdmin == true)

        // Pair-verify: aiohomekit's get_session_keys against our accessory machine.
        var verify = PairVerifyAccessory(identity: identity, pairings: table)
        var keys: SessionKeys?
        for _ in 0..<2 {
            let request = try TLV8(decoding: try #require([UInt8](hexString: try peer.receive("send"))))
            switch verify.receive(request) {
            case .reply(let reply):
                try peer.send(["reply": reply.encoded().hexString])
            case .replyAndEncrypt(let reply, let sessionKeys, _):
                keys = sessionKeys
                try peer.send(["reply": reply.encoded().hexString])
            case .replyAndClose(let reply, let error):
                Issue.record("pair-verify failed: \(error)")
                try peer.send(["reply": reply.encoded().hexString])
            }
        }
        var cipher = SessionCipher(keys: try #require(keys), role: .accessory)

        // aiohomekit's SecureHomeKitProtocol seals a request of more than one frame; we open it.
        let sealedRequest = try #require([UInt8](hexString: try peer.receive("frames")))
        let request = String(decoding: try cipher.open(sealedRequest), as: UTF8.self)
        #expect(request.hasPrefix("GET /accessories HTTP/1.1\r\n"))
        #expect(request.hasSuffix("\r\n\r\n") && request.utf8.count > 1500)

        // We seal a response of more than one frame; aiohomekit decrypts and parses it.
        let body = "{\"accessories\":[" + String(repeating: "{\"aid\":1,\"services\":[]},", count: 60) + "{}]}"
        let response =
            "HTTP/1.1 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        try peer.send(["frames": cipher.seal(Array(response.utf8)).hexString])
        let parsed = try peer.receive()
        #expect(parsed["status"] as? Int == 200)
        #expect(parsed["body"] as? String == body)
        #expect(peer.waitForExit() == 0)
    }

    @Test func aiohomekitReportsAWrongSetupCode() throws {
        let peer = try PeerProcess.start(
            script: "aiohomekit_peer.py",
            arguments: ["session", "111-22-333", UUID().uuidString]
        )
        var setup = PairSetupAccessory(
            identity: AccessoryIdentity(deviceID: "AA:BB:CC:DD:EE:10", signingKey: .init()),
            verifier: .pairSetup(setupCode: "031-45-154", salt: Array(1...16)),
            conditions: .init(isPaired: false, failedAttempts: 0, isAnotherPairSetupInProgress: false)
        )
        var events: [PairSetupAccessory.Event] = []
        var answer: [String: Any] = [:]
        while true {
            answer = try peer.receive()
            guard let hex = answer["send"] as? String else { break }
            let step = setup.receive(try TLV8(decoding: try #require([UInt8](hexString: hex))))
            events += step.events
            try peer.send(["reply": step.reply.encoded().hexString])
        }
        #expect(answer["error"] as? String == "AuthenticationError")
        #expect(events.contains(.wrongSetupCode))
        #expect(peer.waitForExit() == 0)
    }

    @Test(arguments: [
        (
            PairSetupAccessory.Conditions(isPaired: false, failedAttempts: 100, isAnotherPairSetupInProgress: false),
            "MaxTriesError"
        ),
        (
            PairSetupAccessory.Conditions(isPaired: true, failedAttempts: 0, isAnotherPairSetupInProgress: false),
            "UnavailableError"
        ),
        (
            PairSetupAccessory.Conditions(isPaired: false, failedAttempts: 0, isAnotherPairSetupInProgress: true),
            "BusyError"
        ),
    ])
    func aiohomekitReadsOurRefusalsAsTheRightError(conditions: PairSetupAccessory.Conditions, expected: String) throws {
        let peer = try PeerProcess.start(
            script: "aiohomekit_peer.py",
            arguments: ["session", "031-45-154", UUID().uuidString]
        )
        var setup = PairSetupAccessory(
            identity: AccessoryIdentity(deviceID: "AA:BB:CC:DD:EE:11", signingKey: .init()),
            verifier: .pairSetup(setupCode: "031-45-154", salt: Array(1...16)),
            conditions: conditions
        )
        let m1 = try TLV8(decoding: try #require([UInt8](hexString: try peer.receive("send"))))
        try peer.send(["reply": setup.receive(m1).reply.encoded().hexString])
        #expect(try peer.receive("error") == expected)
        #expect(peer.waitForExit() == 0)
    }
}
