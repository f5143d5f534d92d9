import Crypto
import HAPArithmetic

/// The controller's side of SRP-6a: sends A, answers the accessory's salt and B with the proof M1, checks M2.
///
/// A value with no I/O: send `publicKey` in pair-setup M3 with the proof from `respond`, then check M4's proof
/// with the response's `verifyServerProof`. Its description never shows the password or the private key.
public struct SRPClient: Sendable {
    /// The username I; "Pair-Setup" in HAP.
    public let username: String
    /// The group of the exchange.
    public let group: SRPGroup
    /// The hash of the exchange.
    public let hash: SRPHash
    /// PAD(A), the controller's public key for pair-setup M3.
    public let publicKey: [UInt8]
    /// P: the setup code with dashes in HAP.
    private let password: String
    /// a.
    private let privateKey: BigUInt

    /// Starts an exchange with a given private key a (big-endian); for tests, which need fixed keys.
    ///
    /// A is not checked for a leading zero byte here; the random initialisers draw again when it has one.
    public init(username: String, password: String, group: SRPGroup, hash: SRPHash, privateKey: [UInt8]) {
        let privateKeyValue = BigUInt(bigEndianBytes: privateKey)
        precondition(!privateKeyValue.isZero, "an SRP private key is not zero")
        self.username = username
        self.password = password
        self.group = group
        self.hash = hash
        self.privateKey = privateKeyValue
        self.publicKey = group.padded(group.generatorPowers.power(exponent: privateKeyValue))
    }

    /// Starts an exchange with a 32-byte private key from `generator`, drawn again until PAD(A)[0] ≠ 0.
    ///
    /// hap-protocol.md §3.2: an A with a leading zero byte breaks accessories that hash A as sent.
    public init(
        username: String,
        password: String,
        group: SRPGroup,
        hash: SRPHash,
        using generator: inout some RandomNumberGenerator
    ) {
        while true {
            let privateKey = SRPFormulas.randomPrivateKey(
                byteCount: SRPFormulas.privateKeyByteCount,
                using: &generator
            )
            let client = SRPClient(
                username: username,
                password: password,
                group: group,
                hash: hash,
                privateKey: privateKey
            )
            if client.publicKey.first != 0 {
                self = client
                return
            }
        }
    }

    /// Starts an exchange with a private key from the system's secure random source.
    public init(username: String, password: String, group: SRPGroup, hash: SRPHash) {
        var generator = SystemRandomNumberGenerator()
        self.init(username: username, password: password, group: group, hash: hash, using: &generator)
    }

    /// Computes the proof M1 and the session key K from the accessory's salt and public key B.
    ///
    /// Throws `invalidPublicKey` for a B longer than N, not below N, or zero, or when u is zero. Follows ADK:
    /// K = H(MIN(S)), M1 over MIN(A) and MIN(B) (hap-protocol.md §3.2).
    public func respond(salt: [UInt8], serverPublicKey: [UInt8]) throws(SRPError) -> Response {
        let serverValue = try group.publicKeyValue(serverPublicKey)
        let secret = try premasterSecret(salt: salt, serverPublicKey: serverValue)
        let minimalSecret = secret.minimalBigEndianBytes
        let sessionKey = hash.digest(minimalSecret)
        let proof = SRPFormulas.clientProof(
            group: group,
            hash: hash,
            username: username,
            salt: salt,
            clientPublicKey: Array(publicKey.drop(while: { $0 == 0 })),
            serverPublicKey: serverValue.minimalBigEndianBytes,
            sessionKey: sessionKey
        )
        let serverProof = SRPFormulas.serverProof(
            paddedClientPublicKey: publicKey,
            clientProof: proof,
            sessionKey: sessionKey,
            hash: hash
        )
        // hap-protocol.md §3.2: PAD and MIN differ only for a value whose top byte is zero.
        let secretHasLeadingZero = minimalSecret.count < group.byteCount || sessionKey.first == 0
        let publicKeysHaveLeadingZero =
            publicKey.first == 0 || serverPublicKey.count < group.byteCount || serverPublicKey.first == 0
        return Response(
            proof: proof,
            sessionKey: SymmetricKey(data: sessionKey),
            expectedServerProof: serverProof,
            paddingMatters: secretHasLeadingZero || publicKeysHaveLeadingZero,
            secretHasLeadingZero: secretHasLeadingZero
        )
    }

    /// S = (B − k·v)^(a + u·x) mod N, with the exponent as a plain integer (not reduced).
    func premasterSecret(salt: [UInt8], serverPublicKey serverValue: BigUInt) throws(SRPError) -> BigUInt {
        let context = group.context
        let scrambling = SRPFormulas.scramblingParameter(
            paddedClientPublicKey: publicKey,
            paddedServerPublicKey: group.padded(serverValue),
            hash: hash
        )
        guard !scrambling.isZero else { throw .invalidPublicKey }
        let passwordKey = SRPFormulas.passwordKey(username: username, password: password, salt: salt, hash: hash)
        let verifierValue = group.generatorPowers.power(exponent: passwordKey)
        let base = context.subtract(serverValue, context.multiply(group.multiplier(hash: hash), verifierValue))
        let exponent = scrambling.multipliedFullWidth(by: passwordKey).adding(privateKey)
        return group.secretPower(base, exponent: exponent)
    }
}

extension SRPClient {
    /// The controller's answer to the accessory's salt and B: what to send, and how to check the reply.
    public struct Response: Sendable {
        /// M1, for pair-setup M3.
        public let proof: [UInt8]
        /// K, the shared secret that pair-setup's later keys are derived from.
        public let sessionKey: SymmetricKey
        /// M2 as the accessory should send it.
        let expectedServerProof: [UInt8]
        /// Whether the padding conventions of hap-protocol.md §3.2 give different proofs in this exchange.
        ///
        /// They do when A, B (as received or padded), S or K has a leading zero byte. When not, an Authentication
        /// error at M4 means a wrong setup code; when so, it may be a peer that pads otherwise.
        public let paddingMatters: Bool
        /// Whether S or K has a leading zero byte: the part of ``paddingMatters`` a fresh private key changes.
        let secretHasLeadingZero: Bool

        /// Whether the accessory's proof M2 (from pair-setup M4) is right; the time depends only on the lengths.
        public func verifyServerProof(_ serverProof: [UInt8]) -> Bool {
            SRPFormulas.equalityMask(expectedServerProof, serverProof) == 0xFF
        }
    }
}

extension SRPClient: CustomStringConvertible {
    /// Names the username and the public key's length, never the password or the private key.
    public var description: String {
        "SRPClient(username: \(username), publicKey: \(publicKey.count) bytes, password: redacted)"
    }
}

extension SRPClient.Response: CustomStringConvertible {
    /// Names nothing secret: the proof is public, the session key is not shown.
    public var description: String {
        "SRPClient.Response(proof: \(proof.count) bytes, sessionKey: redacted)"
    }
}

extension SRPClient: CustomReflectable {
    /// Shows the username and public key to `dump` and debuggers, never the password or the private key.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "publicKey": publicKey], displayStyle: .struct)
    }
}

extension SRPClient.Response: CustomReflectable {
    /// Shows the proof to `dump` and debuggers, never the session key.
    public var customMirror: Mirror {
        Mirror(self, children: ["proof": proof], displayStyle: .struct)
    }
}
