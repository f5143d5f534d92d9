import Crypto

/// The controller side of pair-setup: start with M1, feed each accessory reply, send what it returns next.
///
/// hap-protocol.md §3. On success the result is the accessory's device ID and long-term public key, which the
/// caller stores with its own identity. The machine does no I/O; SRP's private key can be fixed by tests.
public struct PairSetupController: Sendable {
    /// What to do after a reply.
    public enum Step: Sendable {
        /// Send this body to `/pair-setup` and feed the answer back.
        case send(TLV8)
        /// Pair-setup succeeded: store this accessory.
        case paired(AccessoryPairing)
        /// A transient pair-setup succeeded at M4: encrypt the connection with these keys; nothing is stored.
        case transient(SessionKeys)
    }

    private enum State: Sendable {
        case awaitingM2
        case awaitingM4(SRPClient.Response)
        case awaitingM6(sessionKey: SymmetricKey)
        case finished
    }

    private var state = State.awaitingM2
    private let setupCode: String
    private let identity: ControllerIdentity
    private var client: SRPClient
    private let isTransient: Bool
    private let hasFixedPrivateKey: Bool
    /// Extra items sent inside the encrypted M5 sub-TLV (after the identifier, key and signature).
    private let additionalM5Items: [TLV8.Item]
    /// Fresh private keys tried at M2 before one whose S and K have no leading zero byte is given up on.
    static let maximumKeyDraws = 16

    /// Whether the two SRP padding conventions (hap-protocol.md §3.2) give different proofs in this exchange.
    ///
    /// Known once M2 has been answered. With a random private key, a is drawn again at M2 until A, S and K have no
    /// leading zero byte, so only the accessory's B can make it true (about 1 in 256 against a peer that does not
    /// avoid such a B, never against this project's accessory).
    public private(set) var paddingMatters = false

    /// Makes the machine for one attempt.
    ///
    /// - Parameters:
    ///   - setupCode: the accessory's setup code with dashes (`XXX-XX-XXX`), the SRP password.
    ///   - identity: this controller's long-term identity, sent in M5.
    ///   - srpPrivateKey: SRP's `a`, fixed by tests; `nil` draws a fresh random one.
    ///   - additionalM5Items: extra items for the encrypted M5 sub-TLV (a hub's invite name), unseen on the way.
    public init(
        setupCode: String,
        identity: ControllerIdentity,
        isTransient: Bool = false,
        srpPrivateKey: [UInt8]? = nil,
        additionalM5Items: [TLV8.Item] = []
    ) {
        self.additionalM5Items = additionalM5Items
        self.setupCode = setupCode
        self.identity = identity
        self.isTransient = isTransient
        hasFixedPrivateKey = srpPrivateKey != nil
        if let srpPrivateKey {
            client = SRPClient(
                username: PairSetupAccessory.username,
                password: setupCode,
                group: .hap3072,
                hash: .sha512,
                privateKey: srpPrivateKey
            )
        } else {
            client = SRPClient(
                username: PairSetupAccessory.username,
                password: setupCode,
                group: .hap3072,
                hash: .sha512
            )
        }
    }

    /// Whether `failure` from ``receive(_:)`` is worth one more pair-setup with fresh keys before the setup code is
    /// called wrong.
    ///
    /// Only an Authentication error at M4 in an exchange where padding mattered: every other Authentication at M4
    /// means a wrong code, and a retry would cost the accessory a second of its 100 tries.
    public func shouldRetry(after failure: PairingFailure) -> Bool {
        failure == .accessoryRefused(.authentication, state: 4) && paddingMatters
    }

    /// The first request: State 1, Method 0 (pair-setup without MFi authentication).
    public func start() -> TLV8 {
        var request = TLV8()
        request.append(.state, byte: 1)
        request.append(.method, byte: 0)
        if isTransient { request.append(.flags, integer: PairSetupAccessory.transientFlag) }
        return request
    }

    /// Takes the accessory's reply to the last request and says what to send next.
    public mutating func receive(_ reply: TLV8) throws(PairingFailure) -> Step {
        do throws(PairingFailure) {
            switch state {
            case .awaitingM2:
                try Self.check(reply, expectedState: 2)
                return try handleM2(reply)
            case .awaitingM4(let response):
                try Self.check(reply, expectedState: 4)
                return try handleM4(reply, response: response)
            case .awaitingM6(let sessionKey):
                try Self.check(reply, expectedState: 6)
                return try handleM6(reply, sessionKey: sessionKey)
            case .finished:
                throw PairingFailure.procedureFinished
            }
        } catch {
            state = .finished
            throw error
        }
    }

    private mutating func handleM2(_ reply: TLV8) throws(PairingFailure) -> Step {
        let salt: [UInt8]
        let serverPublicKey: [UInt8]
        do {
            salt = try reply.require(.salt)
            serverPublicKey = try reply.require(.publicKey)
        } catch {
            throw .malformedResponse(error)
        }
        var response: SRPClient.Response
        do {
            response = try client.respond(salt: salt, serverPublicKey: serverPublicKey)
            // A is sent only now, so a key whose S or K would start with a zero byte can still be replaced.
            var draws = 1
            while !hasFixedPrivateKey, response.secretHasLeadingZero, draws < Self.maximumKeyDraws {
                client = SRPClient(
                    username: client.username,
                    password: setupCode,
                    group: client.group,
                    hash: client.hash
                )
                response = try client.respond(salt: salt, serverPublicKey: serverPublicKey)
                draws += 1
            }
        } catch {
            throw .invalidAccessoryProof
        }
        paddingMatters = response.paddingMatters
        state = .awaitingM4(response)
        var request = TLV8()
        request.append(.state, byte: 3)
        request.append(.publicKey, client.publicKey)
        request.append(.proof, response.proof)
        return .send(request)
    }

    private mutating func handleM4(_ reply: TLV8, response: SRPClient.Response) throws(PairingFailure) -> Step {
        let proof: [UInt8]
        do {
            proof = try reply.require(.proof)
        } catch {
            throw .malformedResponse(error)
        }
        guard response.verifyServerProof(proof) else { throw .invalidAccessoryProof }
        let sessionKey = response.sessionKey
        if isTransient {
            state = .finished
            return .transient(SessionKeys(transientFromSRPSessionKey: sessionKey))
        }
        let encryptionKey = HAPKeyDerivation.pairSetupEncryptionKey(srpSessionKey: sessionKey)
        let controllerX = HAPKeyDerivation.pairSetupControllerSigningKey(srpSessionKey: sessionKey).withUnsafeBytes {
            Array($0)
        }
        let pairingID = Array(identity.pairingID.utf8)
        let publicKey = identity.publicKey
        guard let signature = try? identity.signingKey.signature(for: controllerX + pairingID + publicKey) else {
            throw .invalidSignature
        }
        var inner = TLV8()
        inner.append(.identifier, pairingID)
        inner.append(.publicKey, publicKey)
        inner.append(.signature, Array(signature))
        for item in additionalM5Items { inner.append(item.tag, item.value) }
        guard let sealed = try? PairingAEAD.seal(inner.encoded(), using: encryptionKey, nonce: .pairSetupM5) else {
            throw .decryptionFailed
        }
        state = .awaitingM6(sessionKey: sessionKey)
        var request = TLV8()
        request.append(.state, byte: 5)
        request.append(.encryptedData, sealed)
        return .send(request)
    }

    private mutating func handleM6(_ reply: TLV8, sessionKey: SymmetricKey) throws(PairingFailure) -> Step {
        let encrypted: [UInt8]
        do {
            encrypted = try reply.require(.encryptedData)
        } catch {
            throw .malformedResponse(error)
        }
        let encryptionKey = HAPKeyDerivation.pairSetupEncryptionKey(srpSessionKey: sessionKey)
        guard let plaintext = try? PairingAEAD.open(encrypted, using: encryptionKey, nonce: .pairSetupM6) else {
            throw .decryptionFailed
        }
        let inner: TLV8
        let deviceID: [UInt8]
        let accessoryKey: [UInt8]
        let signature: [UInt8]
        do {
            inner = try TLV8(decoding: plaintext)
            deviceID = try inner.require(.identifier)
            accessoryKey = try inner.require(.publicKey, count: 32)
            signature = try inner.require(.signature, count: 64)
        } catch {
            throw .malformedResponse(error)
        }
        let accessoryX = HAPKeyDerivation.pairSetupAccessorySigningKey(srpSessionKey: sessionKey).withUnsafeBytes {
            Array($0)
        }
        guard PairingCrypto.isValidSignature(signature, of: accessoryX + deviceID + accessoryKey, by: accessoryKey)
        else {
            throw .invalidSignature
        }
        guard let deviceIDText = String(validating: deviceID, as: UTF8.self) else { throw .unexpectedAccessory }
        state = .finished
        return .paired(AccessoryPairing(deviceID: deviceIDText, publicKey: accessoryKey))
    }

    /// Checks a reply's State and turns an Error item into ``PairingFailure/accessoryRefused(_:state:)``.
    static func check(_ reply: TLV8, expectedState: UInt8) throws(PairingFailure) {
        let state: UInt8
        do {
            state = try reply.requireByte(.state)
        } catch {
            throw .malformedResponse(error)
        }
        if let error = reply[.error], let code = error.first {
            throw .accessoryRefused(PairingError(tlvErrorCode: code), state: state)
        }
        guard state == expectedState else { throw .unexpectedState(expected: expectedState, received: state) }
    }
}

extension SessionKeys {
    /// The keys of a transient pair-setup, from SRP's K (hap-protocol.md §2.5: salt "SplitSetupSalt").
    public init(transientFromSRPSessionKey sessionKey: SymmetricKey) {
        self.init(
            accessoryToController: HAPKeyDerivation.deriveKey(
                inputKeyMaterial: sessionKey,
                salt: "SplitSetupSalt",
                info: "AccessoryEncrypt-Control"
            ),
            controllerToAccessory: HAPKeyDerivation.deriveKey(
                inputKeyMaterial: sessionKey,
                salt: "SplitSetupSalt",
                info: "ControllerEncrypt-Control"
            )
        )
    }
}
