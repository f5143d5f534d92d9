import Crypto

/// The accessory side of pair-setup: one controller request in, one reply and what the server must record out.
///
/// The machine does no I/O. The server creates one per pair-setup attempt with the conditions it knows (paired
/// already, failed attempts so far, another pair-setup running), feeds it each `/pair-setup` body, sends the reply,
/// and carries out the events: persist the failure counter, store the new admin pairing, release the pair-setup
/// slot. hap-protocol.md §3 describes the messages.
public struct PairSetupAccessory: Sendable {
    /// What the server knows when a pair-setup starts.
    public struct Conditions: Sendable, Equatable {
        /// Whether any controller is already paired.
        public var isPaired: Bool
        /// Failed setup-code attempts recorded so far (persisted across restarts).
        public var failedAttempts: Int
        /// Whether another connection owns a pair-setup that has not finished.
        public var isAnotherPairSetupInProgress: Bool
        /// Whether this server can run a transient pair-setup (hap-protocol.md §2.5); when not, the flag is ignored.
        public var supportsTransientPairing: Bool

        /// Makes the conditions for a new attempt.
        public init(
            isPaired: Bool,
            failedAttempts: Int,
            isAnotherPairSetupInProgress: Bool,
            supportsTransientPairing: Bool = false
        ) {
            self.isPaired = isPaired
            self.failedAttempts = failedAttempts
            self.isAnotherPairSetupInProgress = isAnotherPairSetupInProgress
            self.supportsTransientPairing = supportsTransientPairing
        }
    }

    /// Something the server must record or do besides sending the reply.
    public enum Event: Sendable, Equatable {
        /// This connection now owns pair-setup; others get ``PairingError/busy`` until it ends.
        case started
        /// The controller proved a wrong setup code: add one to the persisted failure count.
        case wrongSetupCode
        /// The controller proved the right setup code: reset the persisted failure count to 0.
        case correctSetupCode
        /// Pair-setup succeeded: store this admin pairing, then, after the reply is sent, update `sf` to paired.
        case paired(Pairing)
        /// The procedure ended without a pairing; the pair-setup slot is free again.
        case failed(PairingError)
        /// A transient pair-setup ended at M4: encrypt the connection with ``Step/transientSessionKeys``; no
        /// pairing is stored.
        case transientSessionEstablished
    }

    /// The answer to one request: the reply body to send and the events to carry out.
    public struct Step: Sendable, Equatable {
        /// The TLV8 body of the HTTP 200 response.
        public var reply: TLV8
        /// What the server must record, in order.
        public var events: [Event]
        /// The session keys of a transient pair-setup, set with ``Event/transientSessionEstablished``.
        public var transientSessionKeys: SessionKeys?

        /// Makes a step.
        public init(reply: TLV8, events: [Event], transientSessionKeys: SessionKeys? = nil) {
            self.reply = reply
            self.events = events
            self.transientSessionKeys = transientSessionKeys
        }

        /// Compares replies and events; keys are secrets and not compared.
        public static func == (lhs: Step, rhs: Step) -> Bool {
            lhs.reply == rhs.reply && lhs.events == rhs.events
                && (lhs.transientSessionKeys == nil) == (rhs.transientSessionKeys == nil)
        }
    }

    /// hap-protocol.md §2.5: the Flags bit asking for a transient pair-setup (M1–M4 only, no key exchange).
    public static let transientFlag: UInt64 = 0x10

    /// hap-protocol.md §3.1: the SRP user name.
    public static let username = "Pair-Setup"
    /// hap-protocol.md §3.5: a controller identifier longer than this is refused at M5.
    static let maximumIdentifierLength = 36
    /// hap-protocol.md §12.2: from this many failed attempts on, pair-setup answers MaxTries.
    public static let maximumFailedAttempts = 100

    private enum State: Sendable {
        case awaitingM1
        case awaitingM3(SRPServer, isTransient: Bool)
        case awaitingM5(sessionKey: SymmetricKey)
        case finished
    }

    private var state = State.awaitingM1
    private let identity: AccessoryIdentity
    private let verifier: SRPVerifier
    private let conditions: Conditions
    private let srpPrivateKey: [UInt8]?

    /// Makes the machine for one attempt.
    ///
    /// - Parameters:
    ///   - identity: the accessory's long-term identity, sent in M6.
    ///   - verifier: the SRP salt and verifier of the current setup code.
    ///   - conditions: what the server knows as the attempt starts.
    ///   - srpPrivateKey: SRP's `b`, fixed by tests; `nil` draws a fresh random one.
    public init(
        identity: AccessoryIdentity,
        verifier: SRPVerifier,
        conditions: Conditions,
        srpPrivateKey: [UInt8]? = nil
    ) {
        self.identity = identity
        self.verifier = verifier
        self.conditions = conditions
        self.srpPrivateKey = srpPrivateKey
    }

    /// Whether the procedure has ended, in success or failure.
    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Takes one `/pair-setup` request body and answers it.
    public mutating func receive(_ request: TLV8) -> Step {
        let requestState = request[.state]
        switch state {
        case .awaitingM1:
            guard requestState == [1] else { return fail(.unknown, atState: 2) }
            return handleM1(request)
        case .awaitingM3(let server, let isTransient):
            guard requestState == [3] else { return fail(.unknown, atState: 4) }
            return handleM3(request, server: server, isTransient: isTransient)
        case .awaitingM5(let sessionKey):
            guard requestState == [5] else { return fail(.unknown, atState: 6) }
            return handleM5(request, sessionKey: sessionKey)
        case .finished:
            let next = requestState.flatMap { $0.count == 1 ? $0[0] &+ 1 : nil } ?? 2
            return Step(reply: Self.errorReply(.unknown, state: next), events: [])
        }
    }

    private mutating func handleM1(_ request: TLV8) -> Step {
        // hap-protocol.md §2.3: accept Method 0 and 1; without an MFi chip, 1 is treated as 0.
        guard let method = request[.method], method == [0] || method == [1] else {
            return fail(.unknown, atState: 2)
        }
        // hap-protocol.md §3.5: the order of checks is ADK's.
        if conditions.isPaired { return fail(.unavailable, atState: 2) }
        if conditions.failedAttempts >= Self.maximumFailedAttempts { return fail(.maxTries, atState: 2) }
        if conditions.isAnotherPairSetupInProgress { return fail(.busy, atState: 2) }
        let server: SRPServer
        if let srpPrivateKey {
            server = SRPServer(verifier: verifier, privateKey: srpPrivateKey)
        } else {
            server = SRPServer(verifier: verifier)
        }
        let flags = (try? request.integer(.flags)) ?? nil
        let isTransient = conditions.supportsTransientPairing && (flags ?? 0) & Self.transientFlag != 0
        state = .awaitingM3(server, isTransient: isTransient)
        var reply = TLV8()
        reply.append(.state, byte: 2)
        reply.append(.salt, verifier.salt)
        reply.append(.publicKey, server.publicKey)
        return Step(reply: reply, events: [.started])
    }

    private mutating func handleM3(_ request: TLV8, server: SRPServer, isTransient: Bool) -> Step {
        guard let clientPublicKey = request[.publicKey], let proof = request[.proof],
            !clientPublicKey.isEmpty, clientPublicKey.count <= verifier.group.byteCount, proof.count == 64
        else {
            return fail(.unknown, atState: 4)
        }
        let result: (serverProof: [UInt8], sessionKey: SymmetricKey)
        do {
            result = try server.verifyClient(publicKey: clientPublicKey, proof: proof)
        } catch .invalidPublicKey {
            return fail(.authentication, atState: 4)
        } catch {
            var step = fail(.authentication, atState: 4)
            step.events.insert(.wrongSetupCode, at: 0)
            return step
        }
        var reply = TLV8()
        reply.append(.state, byte: 4)
        reply.append(.proof, result.serverProof)
        if isTransient {
            state = .finished
            return Step(
                reply: reply,
                events: [.correctSetupCode, .transientSessionEstablished],
                transientSessionKeys: SessionKeys(transientFromSRPSessionKey: result.sessionKey)
            )
        }
        state = .awaitingM5(sessionKey: result.sessionKey)
        return Step(reply: reply, events: [.correctSetupCode])
    }

    /// The controller's encrypted M5 sub-TLV once pair-setup succeeded (empty before): the identifier, key and
    /// signature, and any extra items a controller sent there out of a relay's sight.
    public private(set) var controllerItems = TLV8()

    private mutating func handleM5(_ request: TLV8, sessionKey: SymmetricKey) -> Step {
        guard let encrypted = request[.encryptedData] else { return fail(.authentication, atState: 6) }
        let encryptionKey = HAPKeyDerivation.pairSetupEncryptionKey(srpSessionKey: sessionKey)
        guard let plaintext = try? PairingAEAD.open(encrypted, using: encryptionKey, nonce: .pairSetupM5),
            let subTLV = try? TLV8(decoding: plaintext),
            let controllerID = subTLV[.identifier], !controllerID.isEmpty,
            controllerID.count <= Self.maximumIdentifierLength,
            let controllerKey = subTLV[.publicKey], controllerKey.count == 32,
            let signature = subTLV[.signature], signature.count == 64
        else {
            return fail(.authentication, atState: 6)
        }
        let controllerX = HAPKeyDerivation.pairSetupControllerSigningKey(srpSessionKey: sessionKey).withUnsafeBytes {
            Array($0)
        }
        guard
            PairingCrypto.isValidSignature(signature, of: controllerX + controllerID + controllerKey, by: controllerKey)
        else {
            return fail(.authentication, atState: 6)
        }
        let accessoryX = HAPKeyDerivation.pairSetupAccessorySigningKey(srpSessionKey: sessionKey).withUnsafeBytes {
            Array($0)
        }
        let deviceID = Array(identity.deviceID.utf8)
        let accessoryKey = identity.publicKey
        guard let accessorySignature = try? identity.signingKey.signature(for: accessoryX + deviceID + accessoryKey)
        else {
            return fail(.unknown, atState: 6)
        }
        var inner = TLV8()
        inner.append(.identifier, deviceID)
        inner.append(.publicKey, accessoryKey)
        inner.append(.signature, Array(accessorySignature))
        guard let sealed = try? PairingAEAD.seal(inner.encoded(), using: encryptionKey, nonce: .pairSetupM6) else {
            return fail(.unknown, atState: 6)
        }
        state = .finished
        controllerItems = subTLV
        var reply = TLV8()
        reply.append(.state, byte: 6)
        reply.append(.encryptedData, sealed)
        let pairing = Pairing(identifier: controllerID, publicKey: controllerKey, isAdmin: true)
        return Step(reply: reply, events: [.paired(pairing)])
    }

    /// Ends the procedure with an error reply; `.failed` is reported only when this attempt had taken the slot.
    private mutating func fail(_ error: PairingError, atState replyState: UInt8) -> Step {
        let ownsSlot: Bool
        switch state {
        case .awaitingM3, .awaitingM5: ownsSlot = true
        case .awaitingM1, .finished: ownsSlot = false
        }
        state = .finished
        return Step(reply: Self.errorReply(error, state: replyState), events: ownsSlot ? [.failed(error)] : [])
    }

    /// An error answer: State and Error only, as aiohomekit expects (peers/README quirk 6).
    static func errorReply(_ error: PairingError, state: UInt8) -> TLV8 {
        var reply = TLV8()
        reply.append(.state, byte: state)
        reply.append(.error, byte: error.tlvErrorCode)
        return reply
    }
}

extension SRPVerifier {
    /// The verifier of a HAP setup code: user "Pair-Setup", the code with dashes as password, 3072-bit group, SHA-512.
    ///
    /// An accessory computes it once per setup code and salt and keeps it, so pair-setup never needs the code;
    /// `usage` is `.once` for a one-time code.
    public static func pairSetup(setupCode: String, salt: [UInt8], usage: Usage = .reused) -> SRPVerifier {
        SRPVerifier(
            username: PairSetupAccessory.username,
            password: setupCode,
            salt: salt,
            group: .hap3072,
            hash: .sha512,
            usage: usage
        )
    }
}
