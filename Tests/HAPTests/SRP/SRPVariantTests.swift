import Crypto
import HAPArithmetic
import Testing

@testable import HAP

/// The peers' variants that the accessory accepts (hap-protocol.md §3.2), each exercised where it matters.
struct SRPVariantTests {
    typealias Vector = SRPVectorTests.HAPVector

    /// With the vector's salt, code and b, this a gives an S whose first padded byte is zero (found by search).
    static let privateKeyGivingShortSecret = hexBytes(
        "3ee45ef8ee25c38af0bd889d589a95de13cfa7e81ec85c7f9aefd4062c46b336"
    )
    /// This a gives an A whose first padded byte is zero (found by search).
    static let privateKeyGivingShortPublicKey = hexBytes(
        "772d775ee78f25c4f918430e2bdb0eb3cce44a997cf33822beed425b99193020"
    )

    func client(privateKey: [UInt8]) -> SRPClient {
        SRPClient(
            username: "Pair-Setup",
            password: Vector.setupCode,
            group: .hap3072,
            hash: .sha512,
            privateKey: privateKey
        )
    }

    /// M1 as a peer computes it, with A and K in the forms given.
    func proof(clientPublicKey: [UInt8], server: SRPServer, sessionKey: [UInt8]) -> [UInt8] {
        SRPFormulas.clientProof(
            group: .hap3072,
            hash: .sha512,
            username: "Pair-Setup",
            salt: Vector.salt,
            clientPublicKey: clientPublicKey,
            serverPublicKey: server.publicKey,
            sessionKey: sessionKey
        )
    }

    @Test func acceptsAnAiohomekitClientThatHashesThePaddedSecret() throws {
        let verifier = SRPVectorTests.hapVerifier()
        let server = SRPServer(verifier: verifier, privateKey: Vector.serverPrivateKey)
        let client = client(privateKey: Self.privateKeyGivingShortSecret)
        let secret = try client.premasterSecret(
            salt: Vector.salt,
            serverPublicKey: BigUInt(bigEndianBytes: server.publicKey)
        )
        let paddedSecret = SRPGroup.hap3072.padded(secret)
        try #require(paddedSecret[0] == 0 && client.publicKey[0] != 0)

        // aiohomekit: K = H(PAD(S)) and M1 over PAD(A).
        let aiohomekitKey = Array(SHA512.hash(data: paddedSecret))
        let aiohomekitProof = proof(clientPublicKey: client.publicKey, server: server, sessionKey: aiohomekitKey)
        let (serverProof, sessionKey) = try server.verifyClient(publicKey: client.publicKey, proof: aiohomekitProof)
        #expect(sessionKey.withUnsafeBytes { Array($0) } == aiohomekitKey)
        #expect(serverProof == Array(SHA512.hash(data: client.publicKey + aiohomekitProof + aiohomekitKey)))

        // Our own client (ADK's K = H(MIN(S))) still works with the same keys, and gets the other K.
        let response = try client.respond(salt: Vector.salt, serverPublicKey: server.publicKey)
        let adk = try server.verifyClient(publicKey: client.publicKey, proof: response.proof)
        #expect(adk.sessionKey == response.sessionKey)
        #expect(adk.sessionKey != sessionKey)
        #expect(response.verifyServerProof(adk.serverProof))
    }

    @Test func acceptsAClientThatSendsAndHashesTheMinimalPublicKey() throws {
        let verifier = SRPVectorTests.hapVerifier()
        let server = SRPServer(verifier: verifier, privateKey: Vector.serverPrivateKey)
        let client = client(privateKey: Self.privateKeyGivingShortPublicKey)
        try #require(client.publicKey[0] == 0)
        let minimalPublicKey = Array(client.publicKey.drop(while: { $0 == 0 }))
        let response = try client.respond(salt: Vector.salt, serverPublicKey: server.publicKey)

        // Sent as MIN(A): ADK's M1 already uses MIN(A), so our client's proof works with either form on the wire.
        for sentForm in [minimalPublicKey, client.publicKey] {
            let (serverProof, sessionKey) = try server.verifyClient(publicKey: sentForm, proof: response.proof)
            #expect(sessionKey == response.sessionKey)
            #expect(response.verifyServerProof(serverProof))
        }

        // A client that hashes PAD(A) into M1 (aiohomekit) is accepted too.
        let sessionKey = response.sessionKey.withUnsafeBytes { Array($0) }
        let paddedProof = proof(clientPublicKey: client.publicKey, server: server, sessionKey: sessionKey)
        #expect(paddedProof != response.proof)
        let accepted = try server.verifyClient(publicKey: client.publicKey, proof: paddedProof)
        #expect(accepted.sessionKey == response.sessionKey)
    }

    @Test func rejectsAProofOverAPublicKeyWithExtraZeros() throws {
        let verifier = SRPVectorTests.hapVerifier()
        let server = SRPServer(verifier: verifier, privateKey: Vector.serverPrivateKey)
        let client = client(privateKey: Vector.clientPrivateKey)
        let response = try client.respond(salt: Vector.salt, serverPublicKey: server.publicKey)
        let sessionKey = response.sessionKey.withUnsafeBytes { Array($0) }
        let oddProof = proof(clientPublicKey: [0] + client.publicKey, server: server, sessionKey: sessionKey)
        #expect(throws: SRPError.authenticationFailed) {
            try server.verifyClient(publicKey: client.publicKey, proof: oddProof)
        }
    }
}
