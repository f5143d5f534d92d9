import Foundation
import HAP
import HearthAPI
import HomeGraph
import Hub

/// The pair-setup of one connection to the secure listener (docs/remote-access.md), one request at a time, off the
/// event loop (SRP and the credential store); the channel handler sends each answer. Made only when a client pairs.
actor SecureHandshake {
    /// The answer to one request and what the connection does next.
    struct Outcome: Sendable {
        /// The HTTP answer, sent in clear.
        var response: HAP.HTTPResponse
        /// The session keys after a successful pair-verify: every later byte is sealed with them.
        var keys: SessionKeys? = nil
        /// Whether the connection ends after the answer.
        var close = false
    }

    private let server: HubServer
    private var setup: PairSetupAccessory?
    private var code: PendingCode?
    private var name = ""

    init(server: HubServer) {
        self.server = server
    }

    /// Answers a `POST /pair-setup`.
    func answer(_ request: HAP.HTTPRequest) async -> Outcome {
        guard let identity = server.identity, let body = try? TLV8(decoding: request.body) else {
            return Self.failure(.unknown, state: 2)
        }
        return await pairSetup(body, identity: identity)
    }

    private func pairSetup(_ request: TLV8, identity: HubIdentity) async -> Outcome {
        let credentials = server.credentials
        if request[.state] == [1] {
            guard setup == nil else { return Self.failure(.unknown, state: 2) }
            if await credentials.failedPairingAttempts >= server.configuration.maximumFailedPairingAttempts {
                return Self.failure(.maxTries, state: 2)
            }
            let codeID = request[TLV8.Tag(rawValue: HubPairingTLV.codeID)].flatMap {
                String(validating: $0, as: UTF8.self)
            }
            guard let codeID, let pending = await credentials.pendingCode(id: codeID),
                let verifier = pending.srp?.srpVerifier
            else {
                // An unknown code is a wrong code.
                try? await credentials.recordFailedPairingAttempt()
                return Self.failure(.authentication, state: 2)
            }
            code = pending
            setup = PairSetupAccessory(
                identity: identity.accessoryIdentity,
                verifier: verifier,
                conditions: .init(isPaired: false, failedAttempts: 0, isAnotherPairSetupInProgress: false)
            )
        }
        guard var machine = setup else { return Self.failure(.unknown, state: 2) }
        // M3 carries the guess. Its try is counted before the proof is checked (and given back for the right code),
        // so connections that all passed M1 together cannot guess past the limit between them.
        var tryTaken = false
        if request[.state] == [3] {
            let limit = server.configuration.maximumFailedPairingAttempts
            guard (try? await credentials.takePairingAttempt(limit: limit)) == true else {
                setup = nil
                return Self.failure(.maxTries, state: 4)
            }
            tryTaken = true
        }
        let step = machine.receive(request)
        setup = machine
        // An error answer (a wrong state, a missing item) ends the connection, as HAP's does.
        var close = step.reply[.error] != nil
        for event in step.events {
            switch event {
            case .wrongSetupCode:
                close = true
            case .correctSetupCode where tryTaken:
                try? await credentials.returnPairingAttempt()
            case .failed:
                close = true
            case .paired(let pairing):
                // An invite's new account name travels inside the encrypted M5 sub-TLV, never in clear.
                let bytes = machine.controllerItems[TLV8.Tag(rawValue: HubPairingTLV.name)]
                name = bytes.flatMap { String(validating: $0, as: UTF8.self) }.map(Names.normalized) ?? ""
                if case .invite? = code, name.isEmpty || Names.problem(with: name) != nil {
                    return Self.failure(.unknown, state: 6)
                }
                guard await complete(pairing) else { return Self.failure(.authentication, state: 6) }
                close = true
            case .started, .correctSetupCode, .transientSessionEstablished:
                break
            }
        }
        return Outcome(response: Self.reply(step.reply), close: close)
    }

    /// Uses the code up and stores the pairing (with the invite's new account); `false` when that failed.
    private func complete(_ pairing: Pairing) async -> Bool {
        let credentials = server.credentials
        let clientID = String(decoding: pairing.identifier, as: UTF8.self)
        switch code {
        case nil:
            return false
        case .pairing(let stored):
            // One write of the file: the code is gone exactly when the pairing is stored.
            let added = try? await credentials.addPairing(
                taking: stored,
                clientID: clientID,
                publicKey: pairing.publicKey
            )
            return added != nil
        case .invite(let invite):
            guard (try? await credentials.take(invite)) == true else { return false }
            // As redeeming the invite does: authorized as the person who invited, a new account.
            let accountID = UUID()
            do {
                try await server.hub.perform(
                    .addUser(home: invite.homeID, id: accountID, name: name, role: invite.role),
                    as: .user(invite.invitedBy)
                )
            } catch {
                try? await credentials.restoreInvite(invite)
                return false
            }
            // Pair-setup's answer says the client joined: as the API does, only once that is on disk. A failed
            // sync keeps the invite used: the user is in the home already.
            do {
                try await server.hub.durable()
                try await credentials.createAccountWithoutToken(id: accountID, name: name)
            } catch {
                return false
            }
            let added = try? await credentials.addPairing(
                clientID: clientID,
                publicKey: pairing.publicKey,
                accountID: accountID,
                label: "invite"
            )
            return added != nil
        }
    }

    /// A `200` with a TLV8 body.
    static func reply(_ body: TLV8) -> HAP.HTTPResponse {
        HAP.HTTPResponse(status: .ok, contentType: .pairingTLV8, body: body.encoded())
    }

    /// A TLV8 error answer (State and Error), after which the connection ends.
    static func failure(_ error: PairingError, state: UInt8) -> Outcome {
        var body = TLV8()
        body.append(.state, byte: state)
        body.append(.error, byte: error.tlvErrorCode)
        return Outcome(response: reply(body), close: true)
    }
}

/// The pair-verify of one connection to the secure listener, answered on the connection's event loop.
///
/// The hub's identity is read once per server and the pairings from the store's ``PairingDirectory``, so a new
/// session waits for no task and no actor. A new X25519 key per session; the pairing is looked up again after M3,
/// and a pairing removed before the session is marked verified is refused.
struct SecureVerify {
    private let identity: AccessoryIdentity?
    private let directory: PairingDirectory
    private let connection: SecureConnection
    private var machine: PairVerifyAccessory?

    /// Pair-verify for `connection` as `identity` (`nil` when the hub has none: every request is refused).
    init(identity: AccessoryIdentity?, directory: PairingDirectory, connection: SecureConnection) {
        self.identity = identity
        self.directory = directory
        self.connection = connection
    }

    /// Answers a `POST /pair-verify`.
    mutating func answer(_ request: HAP.HTTPRequest) -> SecureHandshake.Outcome {
        guard let identity, let body = try? TLV8(decoding: request.body) else {
            return SecureHandshake.failure(.unknown, state: 2)
        }
        if body[.state] == [1] {
            guard machine == nil else { return SecureHandshake.failure(.unknown, state: 2) }
            machine = PairVerifyAccessory(identity: identity, pairings: directory.snapshot.table)
        }
        guard var verify = machine else { return SecureHandshake.failure(.unknown, state: 2) }
        let action = verify.receive(body)
        machine = verify
        switch action {
        case .reply(let reply):
            return SecureHandshake.Outcome(response: SecureHandshake.reply(reply))
        case .replyAndClose(let reply, _):
            return SecureHandshake.Outcome(response: SecureHandshake.reply(reply), close: true)
        case .replyAndEncrypt(let reply, let keys, let controller):
            // The pairing must still be there (removed between M1 and M3: refused) and its account too.
            guard
                let stored = directory.pairing(clientID: String(decoding: controller.identifier, as: UTF8.self)),
                Array(stored.publicKey) == controller.publicKey
            else {
                return SecureHandshake.failure(.authentication, state: 4)
            }
            connection.verify(as: stored)
            // Removed after the look-up but before the mark: refused here; after the mark, its removal closes us.
            if directory.pairing(clientID: stored.clientID)?.id != stored.id {
                return SecureHandshake.failure(.authentication, state: 4)
            }
            return SecureHandshake.Outcome(response: SecureHandshake.reply(reply), keys: keys)
        }
    }
}

extension CredentialStore {
    /// Makes an account with no token (one that signs in by a paired device).
    func createAccountWithoutToken(id: UUID, name: String) throws {
        file.accounts.append(Account(id: id, name: name, tokens: []))
        try save()
    }
}
