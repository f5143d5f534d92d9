import Crypto
import HAPArithmetic
import TestSupport
import Testing

@testable import HAP

struct SRPExchangeTests {
    typealias Vector = SRPVectorTests.HAPVector

    static let verifier = SRPVectorTests.hapVerifier()

    func client(password: String = Vector.setupCode, privateKey: [UInt8]) -> SRPClient {
        SRPClient(username: "Pair-Setup", password: password, group: .hap3072, hash: .sha512, privateKey: privateKey)
    }

    @Test func agreesOnTheSessionKeyWithRandomKeys() throws {
        let seed: UInt64 = 0x5EED_0201
        var random = SplitMix64(seed: seed)
        for _ in 0..<3 {
            let client = SRPClient(
                username: "Pair-Setup",
                password: Vector.setupCode,
                group: .hap3072,
                hash: .sha512,
                using: &random
            )
            let server = SRPServer(verifier: Self.verifier, using: &random)
            #expect(client.publicKey.first != 0 && server.publicKey.first != 0, "seed \(seed)")
            let response = try client.respond(salt: Self.verifier.salt, serverPublicKey: server.publicKey)
            let (serverProof, sessionKey) = try server.verifyClient(publicKey: client.publicKey, proof: response.proof)
            #expect(response.verifyServerProof(serverProof), "seed \(seed)")
            #expect(sessionKey == response.sessionKey, "seed \(seed)")
        }
    }

    @Test func agreesWithKeysFromTheSystemRandomSource() throws {
        let client = SRPClient(username: "Pair-Setup", password: Vector.setupCode, group: .hap3072, hash: .sha512)
        let server = SRPServer(verifier: Self.verifier)
        let response = try client.respond(salt: Self.verifier.salt, serverPublicKey: server.publicKey)
        let (serverProof, sessionKey) = try server.verifyClient(publicKey: client.publicKey, proof: response.proof)
        #expect(response.verifyServerProof(serverProof))
        #expect(sessionKey == response.sessionKey)
    }

    @Test func rejectsAWrongSetupCode() throws {
        let client = client(password: "518-08-583", privateKey: Vector.clientPrivateKey)
        let server = SRPServer(verifier: Self.verifier, privateKey: Vector.serverPrivateKey)
        let response = try client.respond(salt: Self.verifier.salt, serverPublicKey: server.publicKey)
        #expect(throws: SRPError.authenticationFailed) {
            try server.verifyClient(publicKey: client.publicKey, proof: response.proof)
        }
        #expect(SRPError.authenticationFailed.tlvErrorCode == 2)
    }

    @Test func rejectsAProofOfTheWrongLength() {
        let server = SRPServer(verifier: Self.verifier, privateKey: Vector.serverPrivateKey)
        let client = client(privateKey: Vector.clientPrivateKey)
        #expect(throws: SRPError.authenticationFailed) {
            try server.verifyClient(publicKey: client.publicKey, proof: Array(Vector.clientProof.prefix(63)))
        }
        #expect(throws: SRPError.authenticationFailed) {
            try server.verifyClient(publicKey: client.publicKey, proof: [])
        }
    }

    @Test("rejects a client public key of 0, N, 2N or longer than N")
    func rejectsDegenerateClientPublicKeys() {
        let server = SRPServer(verifier: Self.verifier, privateKey: Vector.serverPrivateKey)
        let modulus = SRPGroup.hap3072.modulus
        let twiceModulus = BigUInt(bigEndianBytes: modulus).adding(BigUInt(bigEndianBytes: modulus))
        let candidates: [[UInt8]] = [
            [],
            [0],
            [UInt8](repeating: 0, count: 384),
            modulus,
            twiceModulus.minimalBigEndianBytes,
            [1] + [UInt8](repeating: 0, count: 384),
            [0] + modulus,
        ]
        for publicKey in candidates {
            #expect(throws: SRPError.invalidPublicKey) {
                try server.verifyClient(publicKey: publicKey, proof: Vector.clientProof)
            }
        }
    }

    @Test("rejects a server public key of 0, N or 2N")
    func rejectsDegenerateServerPublicKeys() {
        let client = client(privateKey: Vector.clientPrivateKey)
        let modulus = SRPGroup.hap3072.modulus
        let twiceModulus = BigUInt(bigEndianBytes: modulus).adding(BigUInt(bigEndianBytes: modulus))
        for publicKey in [[UInt8](repeating: 0, count: 384), modulus, twiceModulus.minimalBigEndianBytes] {
            #expect(throws: SRPError.invalidPublicKey) {
                try client.respond(salt: Vector.salt, serverPublicKey: publicKey)
            }
        }
    }

    @Test func rejectsAForgedServerProof() throws {
        let client = client(privateKey: Vector.clientPrivateKey)
        let server = SRPServer(verifier: Self.verifier, privateKey: Vector.serverPrivateKey)
        let response = try client.respond(salt: Vector.salt, serverPublicKey: server.publicKey)
        var forged = Vector.serverProof
        forged[63] ^= 1
        #expect(!response.verifyServerProof(forged))
        #expect(!response.verifyServerProof(Array(Vector.serverProof.prefix(32))))
        #expect(response.verifyServerProof(Vector.serverProof))
    }

    @Test func restoresAVerifierFromItsRawRepresentation() throws {
        let restored = try SRPVerifier(
            username: "Pair-Setup",
            salt: Vector.salt,
            rawRepresentation: Self.verifier.rawRepresentation,
            group: .hap3072,
            hash: .sha512
        )
        let server = SRPServer(verifier: restored, privateKey: Vector.serverPrivateKey)
        let client = client(privateKey: Vector.clientPrivateKey)
        let response = try client.respond(salt: Vector.salt, serverPublicKey: server.publicKey)
        #expect(
            try server.verifyClient(publicKey: client.publicKey, proof: response.proof).serverProof
                == Vector.serverProof
        )
        #expect(throws: SRPError.invalidVerifier) {
            try SRPVerifier(
                username: "Pair-Setup",
                salt: Vector.salt,
                rawRepresentation: SRPGroup.hap3072.modulus,
                group: .hap3072,
                hash: .sha512
            )
        }
    }

    @Test func refusesAGroupWithAnEvenModulusOrAGeneratorOutOfRange() {
        #expect(SRPGroup(modulus: [0x10, 0x00], generator: 2) == nil)
        #expect(SRPGroup(modulus: [0x17], generator: 23) == nil)
        #expect(SRPGroup(modulus: [0x17], generator: 1) == nil)
        #expect(SRPGroup(modulus: [0x00, 0x17], generator: 5)?.byteCount == 1)
        #expect(SRPGroup.hap3072.byteCount == 384)
        #expect(SRPGroup.hap3072.generator == [5])
    }

    @Test func keepsSecretsOutOfDescriptions() throws {
        let client = client(privateKey: Vector.clientPrivateKey)
        let server = SRPServer(verifier: Self.verifier, privateKey: Vector.serverPrivateKey)
        let response = try client.respond(salt: Vector.salt, serverPublicKey: server.publicKey)
        var dumped = ""
        dump(client, to: &dumped)
        dump(server, to: &dumped)
        dump(response, to: &dumped)
        let texts = [String(describing: client), String(describing: server), String(describing: response), dumped]
        for text in texts {
            #expect(!text.contains(Vector.setupCode))
            #expect(!text.contains("privateKey: ["))
            #expect(!text.contains("limbs"))
        }
    }
}
