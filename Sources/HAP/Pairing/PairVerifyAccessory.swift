import Crypto

/// The accessory side of pair-verify: one controller request in, one action out.
///
/// hap-protocol.md §4. A connection owns one machine per pair-verify; after ``Action/replyAndEncrypt(_:_:controller:)``
/// the server sends the reply in clear and seals every later byte with the session keys.
public struct PairVerifyAccessory: Sendable {
    /// What the server does with the answer.
    public enum Action: Sendable {
        /// Send this body and wait for the next request.
        case reply(TLV8)
        /// Send this body in clear, then encrypt the connection; the session belongs to `controller`.
        case replyAndEncrypt(TLV8, SessionKeys, controller: Pairing)
        /// Send this body (State and Error), then end the procedure; the connection stays unencrypted.
        case replyAndClose(TLV8, PairingError)
    }

    private enum State: Sendable {
        case awaitingM1
        case awaitingM3(sharedSecret: [UInt8], controllerKey: [UInt8], accessoryKey: [UInt8])
        case finished
    }

    private var state = State.awaitingM1
    private let identity: AccessoryIdentity
    private let pairings: PairingTable
    private let ephemeralKey: Curve25519.KeyAgreement.PrivateKey

    /// Makes the machine for one pair-verify.
    ///
    /// - Parameters:
    ///   - identity: the accessory's long-term identity, which signs M2.
    ///   - pairings: the controllers the accessory knows.
    ///   - ephemeralKey: this session's X25519 key; tests fix it, servers let it default to a fresh one.
    public init(
        identity: AccessoryIdentity,
        pairings: PairingTable,
        ephemeralKey: Curve25519.KeyAgreement.PrivateKey = .init()
    ) {
        self.identity = identity
        self.pairings = pairings
        self.ephemeralKey = ephemeralKey
    }

    /// Takes one `/pair-verify` request body and answers it.
    public mutating func receive(_ request: TLV8) -> Action {
        switch state {
        case .awaitingM1:
            guard request[.state] == [1] else { return fail(.unknown, atState: 2) }
            return handleM1(request)
        case .awaitingM3(let sharedSecret, let controllerKey, let accessoryKey):
            guard request[.state] == [3] else { return fail(.unknown, atState: 4) }
            return handleM3(
                request,
                sharedSecret: sharedSecret,
                controllerKey: controllerKey,
                accessoryKey: accessoryKey
            )
        case .finished:
            return fail(.unknown, atState: 2)
        }
    }

    private mutating func handleM1(_ request: TLV8) -> Action {
        // hap-protocol.md §4: pair-verify on an unpaired accessory fails with Authentication (PY, ADK).
        guard pairings.isPaired else { return fail(.authentication, atState: 2) }
        guard let controllerKey = request[.publicKey],
            let sharedSecret = PairingCrypto.sharedSecret(ephemeralKey, with: controllerKey)
        else {
            return fail(.authentication, atState: 2)
        }
        let accessoryKey = Array(ephemeralKey.publicKey.rawRepresentation)
        let deviceID = Array(identity.deviceID.utf8)
        guard let signature = try? identity.signingKey.signature(for: accessoryKey + deviceID + controllerKey) else {
            return fail(.unknown, atState: 2)
        }
        var inner = TLV8()
        inner.append(.identifier, deviceID)
        inner.append(.signature, Array(signature))
        let verifyKey = Self.verifyKey(sharedSecret)
        guard let sealed = try? PairingAEAD.seal(inner.encoded(), using: verifyKey, nonce: .pairVerifyM2) else {
            return fail(.unknown, atState: 2)
        }
        state = .awaitingM3(sharedSecret: sharedSecret, controllerKey: controllerKey, accessoryKey: accessoryKey)
        var reply = TLV8()
        reply.append(.state, byte: 2)
        reply.append(.publicKey, accessoryKey)
        reply.append(.encryptedData, sealed)
        return .reply(reply)
    }

    private mutating func handleM3(
        _ request: TLV8,
        sharedSecret: [UInt8],
        controllerKey: [UInt8],
        accessoryKey: [UInt8]
    ) -> Action {
        guard let encrypted = request[.encryptedData],
            let plaintext = try? PairingAEAD.open(encrypted, using: Self.verifyKey(sharedSecret), nonce: .pairVerifyM3),
            let inner = try? TLV8(decoding: plaintext),
            let controllerID = inner[.identifier],
            let signature = inner[.signature], signature.count == 64
        else {
            return fail(.authentication, atState: 4)
        }
        // hap-protocol.md §4: an unknown controller gets Authentication.
        guard let pairing = pairings.pairing(identifier: controllerID),
            PairingCrypto.isValidSignature(
                signature,
                of: controllerKey + controllerID + accessoryKey,
                by: pairing.publicKey
            )
        else {
            return fail(.authentication, atState: 4)
        }
        state = .finished
        var reply = TLV8()
        reply.append(.state, byte: 4)
        return .replyAndEncrypt(reply, SessionKeys(sharedSecret: sharedSecret), controller: pairing)
    }

    private mutating func fail(_ error: PairingError, atState replyState: UInt8) -> Action {
        state = .finished
        return .replyAndClose(PairSetupAccessory.errorReply(error, state: replyState), error)
    }

    /// hap-protocol.md §4: the key that seals M2 and M3.
    static func verifyKey(_ sharedSecret: [UInt8]) -> SymmetricKey {
        HAPKeyDerivation.pairVerifyEncryptionKey(sharedSecret: sharedSecret)
    }
}
