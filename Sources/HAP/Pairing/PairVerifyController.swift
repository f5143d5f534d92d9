import Crypto

/// The controller side of pair-verify: start with M1, feed M2, send M3, feed M4 and get the session keys.
///
/// hap-protocol.md §4. The accessory must prove it holds the long-term key stored at pair-setup.
public struct PairVerifyController: Sendable {
    /// What to do after a reply.
    public enum Step: Sendable {
        /// Send this body to `/pair-verify` and feed the answer back.
        case send(TLV8)
        /// The session is verified: encrypt every later byte with these keys.
        case established(SessionKeys)
    }

    private enum State: Sendable {
        case awaitingM2
        case awaitingM4(sharedSecret: [UInt8])
        case finished
    }

    private var state = State.awaitingM2
    private let identity: ControllerIdentity
    private let accessory: AccessoryPairing
    private let ephemeralKey: Curve25519.KeyAgreement.PrivateKey

    /// Makes the machine for one pair-verify with an accessory paired earlier.
    public init(
        identity: ControllerIdentity,
        accessory: AccessoryPairing,
        ephemeralKey: Curve25519.KeyAgreement.PrivateKey = .init()
    ) {
        self.identity = identity
        self.accessory = accessory
        self.ephemeralKey = ephemeralKey
    }

    /// The first request: State 1 and this session's X25519 public key.
    public func start() -> TLV8 {
        var request = TLV8()
        request.append(.state, byte: 1)
        request.append(.publicKey, Array(ephemeralKey.publicKey.rawRepresentation))
        return request
    }

    /// Takes the accessory's reply to the last request and says what to do next.
    public mutating func receive(_ reply: TLV8) throws(PairingFailure) -> Step {
        do throws(PairingFailure) {
            switch state {
            case .awaitingM2:
                try PairSetupController.check(reply, expectedState: 2)
                return try handleM2(reply)
            case .awaitingM4(let sharedSecret):
                try PairSetupController.check(reply, expectedState: 4)
                state = .finished
                return .established(SessionKeys(sharedSecret: sharedSecret))
            case .finished:
                throw PairingFailure.procedureFinished
            }
        } catch {
            state = .finished
            throw error
        }
    }

    private mutating func handleM2(_ reply: TLV8) throws(PairingFailure) -> Step {
        let accessoryKey: [UInt8]
        let encrypted: [UInt8]
        do {
            accessoryKey = try reply.require(.publicKey, count: 32)
            encrypted = try reply.require(.encryptedData)
        } catch {
            throw .malformedResponse(error)
        }
        guard let sharedSecret = PairingCrypto.sharedSecret(ephemeralKey, with: accessoryKey) else {
            throw .invalidSignature
        }
        let verifyKey = PairVerifyAccessory.verifyKey(sharedSecret)
        guard let plaintext = try? PairingAEAD.open(encrypted, using: verifyKey, nonce: .pairVerifyM2) else {
            throw .decryptionFailed
        }
        let deviceID: [UInt8]
        let signature: [UInt8]
        do {
            let inner = try TLV8(decoding: plaintext)
            deviceID = try inner.require(.identifier)
            signature = try inner.require(.signature, count: 64)
        } catch {
            throw .malformedResponse(error)
        }
        guard deviceID == Array(accessory.deviceID.utf8) else { throw .unexpectedAccessory }
        let controllerKey = Array(ephemeralKey.publicKey.rawRepresentation)
        guard
            PairingCrypto.isValidSignature(
                signature,
                of: accessoryKey + deviceID + controllerKey,
                by: accessory.publicKey
            )
        else {
            throw .invalidSignature
        }
        let pairingID = Array(identity.pairingID.utf8)
        guard let ownSignature = try? identity.signingKey.signature(for: controllerKey + pairingID + accessoryKey)
        else {
            throw .invalidSignature
        }
        var inner = TLV8()
        inner.append(.identifier, pairingID)
        inner.append(.signature, Array(ownSignature))
        guard let sealed = try? PairingAEAD.seal(inner.encoded(), using: verifyKey, nonce: .pairVerifyM3) else {
            throw .decryptionFailed
        }
        state = .awaitingM4(sharedSecret: sharedSecret)
        var request = TLV8()
        request.append(.state, byte: 3)
        request.append(.encryptedData, sealed)
        return .send(request)
    }
}
