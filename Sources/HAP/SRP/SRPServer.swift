import Crypto
import HAPArithmetic

/// The accessory's side of SRP-6a: sends B, checks the controller's proof M1, answers with M2.
///
/// A value with no I/O: make one per pair-setup, send `publicKey` in M2, then call `verifyClient` with M3's
/// public key and proof. Its description never shows the private key.
public struct SRPServer: Sendable {
    /// The verifier for the current setup code, with its group and hash.
    public let verifier: SRPVerifier
    /// PAD(B), the accessory's public key for pair-setup M2.
    public let publicKey: [UInt8]
    /// b.
    private let privateKey: BigUInt

    /// Starts an exchange with a given private key b (big-endian); for tests, which need fixed keys.
    ///
    /// B is not checked for a leading zero byte here; the random initialisers draw again when it has one.
    public init(verifier: SRPVerifier, privateKey: [UInt8]) {
        let privateKeyValue = BigUInt(bigEndianBytes: privateKey)
        precondition(!privateKeyValue.isZero, "an SRP private key is not zero")
        let group = verifier.group
        let context = group.context
        let multiplier = group.multiplier(hash: verifier.hash)
        // B = (k·v + g^b) mod N.
        let publicKeyValue = context.add(
            context.multiply(multiplier, verifier.value),
            group.generatorPowers.power(exponent: privateKeyValue)
        )
        self.verifier = verifier
        self.privateKey = privateKeyValue
        self.publicKey = group.padded(publicKeyValue)
    }

    /// Starts an exchange with a 32-byte private key from `generator`, drawn again until PAD(B)[0] ≠ 0.
    ///
    /// hap-protocol.md §3.2: a B with a leading zero byte breaks peers that send or hash MIN(B).
    public init(verifier: SRPVerifier, using generator: inout some RandomNumberGenerator) {
        while true {
            let privateKey = SRPFormulas.randomPrivateKey(
                byteCount: SRPFormulas.privateKeyByteCount,
                using: &generator
            )
            let server = SRPServer(verifier: verifier, privateKey: privateKey)
            if server.publicKey.first != 0 {
                self = server
                return
            }
        }
    }

    /// Starts an exchange with a private key from the system's secure random source.
    public init(verifier: SRPVerifier) {
        var generator = SystemRandomNumberGenerator()
        self.init(verifier: verifier, using: &generator)
    }

    /// Checks the controller's public key A and proof M1; returns M2 and the session key K.
    ///
    /// Throws `invalidPublicKey` for an A longer than N, not below N, or zero, and `authenticationFailed` for a
    /// wrong proof (usually a wrong setup code). Besides ADK's M1 over MIN(A) and K = H(MIN(S)), it accepts M1
    /// over PAD(A) and K = H(PAD(S)) (aiohomekit), and goes on with the K that matched (hap-protocol.md §3.2).
    public func verifyClient(
        publicKey clientPublicKey: [UInt8],
        proof: [UInt8]
    ) throws(SRPError) -> (serverProof: [UInt8], sessionKey: SymmetricKey) {
        let group = verifier.group
        let hash = verifier.hash
        let clientValue = try group.publicKeyValue(clientPublicKey)
        let paddedClientKey = group.padded(clientValue)
        let secret = try premasterSecret(clientPublicKey: clientValue)

        let minimalKey = hash.digest(secret.minimalBigEndianBytes)
        let paddedKey = hash.digest(group.padded(secret))
        let minimalServerKey = Array(publicKey.drop(while: { $0 == 0 }))
        // Every candidate is computed and compared, so the time does not say which one matched.
        var found: UInt8 = 0
        var sessionKey = [UInt8](repeating: 0, count: hash.byteCount)
        for clientKeyForm in [clientValue.minimalBigEndianBytes, paddedClientKey] {
            for candidateKey in [minimalKey, paddedKey] {
                let expected = SRPFormulas.clientProof(
                    group: group,
                    hash: hash,
                    username: verifier.username,
                    salt: verifier.salt,
                    clientPublicKey: clientKeyForm,
                    serverPublicKey: minimalServerKey,
                    sessionKey: candidateKey
                )
                let matches = SRPFormulas.equalityMask(expected, proof)
                let take = matches & ~found
                for index in sessionKey.indices { sessionKey[index] |= candidateKey[index] & take }
                found |= matches
            }
        }
        guard found == 0xFF else { throw .authenticationFailed }
        let serverProof = SRPFormulas.serverProof(
            paddedClientPublicKey: paddedClientKey,
            clientProof: proof,
            sessionKey: sessionKey,
            hash: hash
        )
        return (serverProof, SymmetricKey(data: sessionKey))
    }

    /// S = (A · v^u)^b mod N, with u = H(PAD(A) | PAD(B)); throws `invalidPublicKey` when u is zero.
    func premasterSecret(clientPublicKey clientValue: BigUInt) throws(SRPError) -> BigUInt {
        let group = verifier.group
        let context = group.context
        let scrambling = SRPFormulas.scramblingParameter(
            paddedClientPublicKey: group.padded(clientValue),
            paddedServerPublicKey: publicKey,
            hash: verifier.hash
        )
        guard !scrambling.isZero else { throw .invalidPublicKey }
        let base = context.multiply(clientValue, verifier.power(exponent: scrambling))
        return group.secretPower(base, exponent: privateKey)
    }
}

extension SRPServer: CustomStringConvertible {
    /// Names the verifier and the public key's length, never the private key.
    public var description: String {
        "SRPServer(verifier: \(verifier), publicKey: \(publicKey.count) bytes, privateKey: redacted)"
    }
}

extension SRPServer: CustomReflectable {
    /// Shows the verifier and public key to `dump` and debuggers, never the private key.
    public var customMirror: Mirror {
        Mirror(self, children: ["verifier": verifier, "publicKey": publicKey], displayStyle: .struct)
    }
}
