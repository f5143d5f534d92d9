import Crypto
import HAPArithmetic
import Testing

@testable import HAP

/// The test vectors of hap-protocol.md §3.3 and RFC 5054 Appendix B, copied here so tests read nothing else.
struct SRPVectorTests {
    enum HAPVector {
        static let setupCode = "518-08-582"
        static let salt = hexBytes("0102030405060708090a0b0c0d0e0f10")
        static let clientPrivateKey = hexBytes("1576bcbad52f39caad7975bdbe75e028fe1010aafdfd9bba4c1c6ff8fae867bf")
        static let serverPrivateKey = hexBytes("38d236f84ebcc1a1f076e02ded511fe25c35050298d61152077a3b8c97db793b")
        static let multiplier = hexBytes(
            """
            a9c2e2559bf0ebb53f0cbbf62282906bede7f2182f00678211fbd5bde5b285033a4993503b87397f9be5ec02080fedbc\
            0835587ad039060879b8621e8c3659e0
            """
        )
        static let verifierPrefix = hexBytes("58aac5e1af6b94b0934a4ea23183e804")
        static let clientPublicKeyPrefix = hexBytes("41a7511016580722e94d35ac71474dbe")
        static let serverPublicKeyPrefix = hexBytes("5f859de34480838cf2deaf8d62997e62")
        static let scrambling = hexBytes(
            """
            3205620bdceb801fa8583f0dbe509fbf07ce81f38dd8066c750dd59ce0f3dd307d0cdad2ada67cfddca97811d04955dc\
            532967c405375831bd918a18e505990d
            """
        )
        static let sessionKey = hexBytes(
            """
            4a10fb5105232fd1de71083eaa7faaaec2c16870b0c11ca815398d70ebdaef25f187433dd495b9bf205d13064fc0d61f\
            a3cde0d7273e933fce42efd65be4a631
            """
        )
        static let clientProof = hexBytes(
            """
            45e40138f772674a57dbce7732dd6ee311e6f22ee7658751bad3a66f2bb95ee048c2190e9c1a95890421a012f157a223\
            ee4f786661098bd58e555fbcd926c15e
            """
        )
        static let serverProof = hexBytes(
            """
            89c8e5f6ef3447f91b22a8b6a811474c2ed8ac547d7437a91b92aec383cbefd5322da4b1911562e6cb529020c58a0d26\
            85387121d43c3719016110a0834c0cf6
            """
        )
        static let encryptKey = hexBytes("4334df142c5021d26d2803e338f4a28688193465b65cdf41eab9599f58df86b1")
    }

    static func hapVerifier(usage: SRPVerifier.Usage = .reused) -> SRPVerifier {
        SRPVerifier(
            username: "Pair-Setup",
            password: HAPVector.setupCode,
            salt: HAPVector.salt,
            group: .hap3072,
            hash: .sha512,
            usage: usage
        )
    }

    @Test func computesTheHAPMultiplier() {
        let multiplier = SRPGroup.hap3072.multiplier(hash: .sha512)
        #expect(multiplier == BigUInt(bigEndianBytes: HAPVector.multiplier))
    }

    /// Both ways of computing v^u (a reused verifier's table, a one-time verifier's direct power) give the vector.
    @Test(arguments: [SRPVerifier.Usage.reused, .once])
    func computesEveryValueOfTheHAPVector(usage: SRPVerifier.Usage) throws {
        let verifier = Self.hapVerifier(usage: usage)
        #expect(verifier.rawRepresentation.count == 384)
        #expect(Array(verifier.rawRepresentation.prefix(16)) == HAPVector.verifierPrefix)

        let client = SRPClient(
            username: "Pair-Setup",
            password: HAPVector.setupCode,
            group: .hap3072,
            hash: .sha512,
            privateKey: HAPVector.clientPrivateKey
        )
        let server = SRPServer(verifier: verifier, privateKey: HAPVector.serverPrivateKey)
        #expect(client.publicKey.count == 384)
        #expect(server.publicKey.count == 384)
        #expect(Array(client.publicKey.prefix(16)) == HAPVector.clientPublicKeyPrefix)
        #expect(Array(server.publicKey.prefix(16)) == HAPVector.serverPublicKeyPrefix)

        let scrambling = SRPFormulas.scramblingParameter(
            paddedClientPublicKey: client.publicKey,
            paddedServerPublicKey: server.publicKey,
            hash: .sha512
        )
        #expect(scrambling.bigEndianBytes(count: 64) == HAPVector.scrambling)

        let response = try client.respond(salt: HAPVector.salt, serverPublicKey: server.publicKey)
        #expect(response.proof == HAPVector.clientProof)
        #expect(response.sessionKey.withUnsafeBytes { Array($0) } == HAPVector.sessionKey)

        let (serverProof, sessionKey) = try server.verifyClient(publicKey: client.publicKey, proof: response.proof)
        #expect(serverProof == HAPVector.serverProof)
        #expect(sessionKey.withUnsafeBytes { Array($0) } == HAPVector.sessionKey)
        #expect(response.verifyServerProof(serverProof))
    }

    @Test func derivesThePairSetupEncryptionKeyFromTheVectorSessionKey() {
        // hap-protocol.md §3.4: HKDF-SHA-512 of K with the Pair-Setup-Encrypt salt and info, 32 bytes.
        let key = HKDF<SHA512>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: HAPVector.sessionKey),
            salt: Array("Pair-Setup-Encrypt-Salt".utf8),
            info: Array("Pair-Setup-Encrypt-Info".utf8),
            outputByteCount: 32
        )
        #expect(key.withUnsafeBytes { Array($0) } == HAPVector.encryptKey)
    }

    /// RFC 5054 Appendix B (1024-bit group, SHA-1); values as printed there, spaces removed.
    enum RFCVector {
        static let username = "alice"
        static let password = "password123"
        static let salt = hexBytes("BEB25379D1A8581EB5A727673A2441EE")
        static let multiplier = hexBytes("7556AA045AEF2CDD07ABAF0F665C3E818913186F")
        static let passwordKey = hexBytes("94B7555AABE9127CC58CCF4993DB6CF84D16C124")
        static let verifier = hexBytes(
            """
            7E273DE8696FFC4F4E337D05B4B375BEB0DDE1569E8FA00A9886D8129BADA1F1822223CA1A605B530E379BA4729FDC59\
            F105B4787E5186F5C671085A1447B52A48CF1970B4FB6F8400BBF4CEBFBB168152E08AB5EA53D15C1AFF87B2B9DA6E04\
            E058AD51CC72BFC9033B564E26480D78E955A5E29E7AB245DB2BE315E2099AFB
            """
        )
        static let clientPrivateKey = hexBytes("60975527035CF2AD1989806F0407210BC81EDC04E2762A56AFD529DDDA2D4393")
        static let serverPrivateKey = hexBytes("E487CB59D31AC550471E81F00F6928E01DDA08E974A004F49E61F5D105284D20")
        static let clientPublicKey = hexBytes(
            """
            61D5E490F6F1B79547B0704C436F523DD0E560F0C64115BB72557EC44352E8903211C04692272D8B2D1A5358A2CF1B6E\
            0BFCF99F921530EC8E39356179EAE45E42BA92AEACED825171E1E8B9AF6D9C03E1327F44BE087EF06530E69F66615261\
            EEF54073CA11CF5858F0EDFDFE15EFEAB349EF5D76988A3672FAC47B0769447B
            """
        )
        static let serverPublicKey = hexBytes(
            """
            BD0C61512C692C0CB6D041FA01BB152D4916A1E77AF46AE105393011BAF38964DC46A0670DD125B95A981652236F99D9\
            B681CBF87837EC996C6DA04453728610D0C6DDB58B318885D7D82C7F8DEB75CE7BD4FBAA37089E6F9C6059F388838E7A\
            00030B331EB76840910440B1B27AAEAEEB4012B7D7665238A8E3FB004B117B58
            """
        )
        static let scrambling = hexBytes("CE38B9593487DA98554ED47D70A7AE5F462EF019")
        static let premasterSecret = hexBytes(
            """
            B0DC82BABCF30674AE450C0287745E7990A3381F63B387AAF271A10D233861E359B48220F7C4693C9AE12B0A6F67809F\
            0876E2D013800D6C41BB59B6D5979B5C00A172B4A2A5903A0BDCAF8A709585EB2AFAFA8F3499B200210DCC1F10EB3394\
            3CD67FC88A2F39A4BE5BEC4EC0A3212DC346D7E474B29EDE8A469FFECA686E5A
            """
        )
    }

    @Test("computes every intermediate value of the RFC 5054 Appendix B vector")
    func computesEveryValueOfTheRFCVector() throws {
        let group = SRPGroup.rfc5054_1024
        #expect(group.byteCount == 128)
        #expect(group.multiplier(hash: .sha1).bigEndianBytes(count: 20) == RFCVector.multiplier)
        let passwordKey = SRPFormulas.passwordKey(
            username: RFCVector.username,
            password: RFCVector.password,
            salt: RFCVector.salt,
            hash: .sha1
        )
        #expect(passwordKey.bigEndianBytes(count: 20) == RFCVector.passwordKey)

        let verifier = SRPVerifier(
            username: RFCVector.username,
            password: RFCVector.password,
            salt: RFCVector.salt,
            group: group,
            hash: .sha1
        )
        #expect(verifier.rawRepresentation == RFCVector.verifier)

        let client = SRPClient(
            username: RFCVector.username,
            password: RFCVector.password,
            group: group,
            hash: .sha1,
            privateKey: RFCVector.clientPrivateKey
        )
        let server = SRPServer(verifier: verifier, privateKey: RFCVector.serverPrivateKey)
        #expect(client.publicKey == RFCVector.clientPublicKey)
        #expect(server.publicKey == RFCVector.serverPublicKey)

        let scrambling = SRPFormulas.scramblingParameter(
            paddedClientPublicKey: client.publicKey,
            paddedServerPublicKey: server.publicKey,
            hash: .sha1
        )
        #expect(scrambling.bigEndianBytes(count: 20) == RFCVector.scrambling)

        let clientSecret = try client.premasterSecret(
            salt: RFCVector.salt,
            serverPublicKey: BigUInt(bigEndianBytes: server.publicKey)
        )
        let serverSecret = try server.premasterSecret(clientPublicKey: BigUInt(bigEndianBytes: client.publicKey))
        #expect(group.padded(clientSecret) == RFCVector.premasterSecret)
        #expect(group.padded(serverSecret) == RFCVector.premasterSecret)

        // The RFC stops at the premaster secret; the proofs follow our (ADK's) convention and must agree.
        let response = try client.respond(salt: RFCVector.salt, serverPublicKey: server.publicKey)
        let (serverProof, sessionKey) = try server.verifyClient(publicKey: client.publicKey, proof: response.proof)
        #expect(response.verifyServerProof(serverProof))
        #expect(sessionKey == response.sessionKey)
        #expect(sessionKey.withUnsafeBytes { Array($0) } == Array(Insecure.SHA1.hash(data: RFCVector.premasterSecret)))
    }
}
