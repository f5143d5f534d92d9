import HAP

extension AccessoryServer {
    /// hap-protocol.md §12.3: a pair-setup that has not finished in 30 s no longer blocks others (ADK).
    static let pairSetupTimeout = Duration.seconds(30)

    /// `POST /pair-setup`: one connection at a time runs pair-setup (hap-protocol.md §3, §12.2).
    func pairSetup(_ body: [UInt8], session: ConnectionSession, connection: ObjectIdentifier) async -> RouteOutcome {
        var session = session
        let peerAddress = peer(of: connection)
        // hap-protocol.md §7.1: refused on a session that is already secured (ADK: 400).
        guard !session.isVerified else {
            logger.debug("Refused pair-setup on an encrypted session with 400", metadata: ["peer": "\(peerAddress)"])
            return RouteOutcome(response: Self.status(.badRequest), session: session)
        }
        guard let request = try? TLV8(decoding: body) else {
            logger.debug(
                "Refused a pair-setup body that is not valid TLV8 with 400",
                metadata: ["peer": "\(peerAddress)"]
            )
            abandonPairSetup(&session, connection: connection)
            return RouteOutcome(response: Self.status(.badRequest), session: session)
        }
        guard let verifier = pairSetupVerifier() else {
            abandonPairSetup(&session, connection: connection)
            return RouteOutcome(response: Self.status(.badRequest), session: session)
        }
        var machine: PairSetupAccessory
        if let ongoing = session.pairSetup, request[.state] != [1] {
            machine = ongoing
        } else {
            abandonPairSetup(&session, connection: connection)
            let now = uptime()
            if let owner = pairSetupOwner, now - owner.since > Self.pairSetupTimeout { pairSetupOwner = nil }
            let isAnotherInProgress = pairSetupOwner.map { $0.connection != connection } ?? false
            machine = PairSetupAccessory(
                identity: identity,
                verifier: verifier,
                conditions: PairSetupAccessory.Conditions(
                    isPaired: state.pairings.isPaired,
                    failedAttempts: state.failedAttempts,
                    isAnotherPairSetupInProgress: isAnotherInProgress
                )
            )
            // Claim the slot before the SRP work below suspends this actor, so a second M1 sees it taken.
            if !isAnotherInProgress, !state.pairings.isPaired,
                state.failedAttempts < PairSetupAccessory.maximumFailedAttempts
            {
                pairSetupOwner = (connection, now)
            }
        }
        let (step, advanced) = await Self.run(machine, on: request)
        machine = advanced
        if let code = step.reply[.error]?.first {
            logger.debug(
                "Refused a pair-setup step",
                metadata: [
                    "peer": "\(peerAddress)", "state": "\(step.reply[.state]?.first ?? 0)",
                    "error": "\(PairingError(tlvErrorCode: code))",
                ]
            )
        }
        var outcome = RouteOutcome(
            response: HTTPResponse(status: .ok, contentType: .pairingTLV8, body: step.reply.encoded()),
            session: session
        )
        for event in step.events {
            switch event {
            case .started:
                pairSetupOwner = (connection, uptime())
            case .wrongSetupCode:
                state.failedAttempts += 1
                logger.notice(
                    "Pair-setup with a wrong setup code",
                    metadata: ["peer": "\(peerAddress)", "failedAttempts": "\(state.failedAttempts)"]
                )
                await persist()
            case .correctSetupCode:
                if state.failedAttempts != 0 {
                    state.failedAttempts = 0
                    await persist()
                }
            case .paired(let pairing):
                state.pairings.save(pairing)
                if await persist() {
                    logger.info("Paired with a controller")
                    outcome.followups.append(.publishAdvertisement)
                    // Pair-setup is refused from now on; the verifier (and its table) comes back if unpaired.
                    self.verifier = nil
                } else {
                    state.pairings.remove(identifier: pairing.identifier)
                    var reply = TLV8()
                    reply.append(.state, byte: 6)
                    reply.append(.error, byte: PairingError.unknown.tlvErrorCode)
                    outcome.response.body = reply.encoded()
                }
                if pairSetupOwner?.connection == connection { pairSetupOwner = nil }
            case .failed:
                if pairSetupOwner?.connection == connection { pairSetupOwner = nil }
            case .transientSessionEstablished:
                // Not offered: the conditions above leave `supportsTransientPairing` off, so the flag is ignored.
                break
            }
        }
        session.pairSetup = machine.isFinished ? nil : machine
        if machine.isFinished, pairSetupOwner?.connection == connection { pairSetupOwner = nil }
        outcome.session = session
        return outcome
    }

    /// SRP is tens of milliseconds of arithmetic: run it off the actor so other connections keep being served.
    @concurrent
    private static func run(
        _ machine: PairSetupAccessory,
        on request: TLV8
    ) async -> (PairSetupAccessory.Step, PairSetupAccessory) {
        var machine = machine
        let step = machine.receive(request)
        return (step, machine)
    }

    private func abandonPairSetup(_ session: inout ConnectionSession, connection: ObjectIdentifier) {
        session.pairSetup = nil
        if pairSetupOwner?.connection == connection { pairSetupOwner = nil }
    }

    /// `POST /pair-verify`: success encrypts the connection after the M4 response (hap-protocol.md §4).
    func pairVerify(_ body: [UInt8], session: ConnectionSession, connection: ObjectIdentifier) -> RouteOutcome {
        var session = session
        // hap-protocol.md §4: pair-verify on an encrypted connection is rejected (ADK: 400).
        guard !session.isVerified, let request = try? TLV8(decoding: body) else {
            logger.debug(
                session.isVerified
                    ? "Refused pair-verify on an encrypted session with 400"
                    : "Refused a pair-verify body that is not valid TLV8 with 400",
                metadata: ["peer": "\(peer(of: connection))"]
            )
            session.pairVerify = nil
            return RouteOutcome(response: Self.status(.badRequest), session: session)
        }
        if request[.state] == [1], let faults {
            faults.notePairVerifyAttempt()
            if faults.settings.refusesPairVerify {
                // The refuse-pair-verify fault: M2 carries an Authentication error, as for an unknown controller.
                var refusal = TLV8()
                refusal.append(.state, byte: 2)
                refusal.append(.error, byte: PairingError.authentication.tlvErrorCode)
                session.pairVerify = nil
                logger.debug("Refused pair-verify on purpose", metadata: ["peer": "\(peer(of: connection))"])
                return RouteOutcome(
                    response: HTTPResponse(status: .ok, contentType: .pairingTLV8, body: refusal.encoded()),
                    session: session
                )
            }
        }
        var machine: PairVerifyAccessory
        if let ongoing = session.pairVerify, request[.state] != [1] {
            machine = ongoing
        } else {
            machine = PairVerifyAccessory(identity: identity, pairings: state.pairings)
        }
        var outcome = RouteOutcome(response: Self.status(.ok), session: session)
        let reply: TLV8
        switch machine.receive(request) {
        case .reply(let body):
            reply = body
            outcome.session.pairVerify = machine
            if let code = body[.error]?.first {
                logger.debug(
                    "Refused a pair-verify step",
                    metadata: [
                        "peer": "\(peer(of: connection))", "state": "\(body[.state]?.first ?? 0)",
                        "error": "\(PairingError(tlvErrorCode: code))",
                    ]
                )
            }
        case .replyAndEncrypt(let body, let keys, let controller):
            reply = body
            outcome.session.pairVerify = nil
            outcome.session.controllerID = controller.identifier
            outcome.sessionKeys = keys
            connections[connection]?.controllerID = controller.identifier
        case .replyAndClose(let body, let error):
            reply = body
            outcome.session.pairVerify = nil
            logger.debug(
                "Refused a pair-verify step",
                metadata: [
                    "peer": "\(peer(of: connection))", "state": "\(body[.state]?.first ?? 0)", "error": "\(error)",
                ]
            )
        }
        outcome.response = HTTPResponse(status: .ok, contentType: .pairingTLV8, body: reply.encoded())
        return outcome
    }

    /// `POST /pairings`: add, remove, list; removed controllers' sessions close after the reply (§6).
    func pairings(_ body: [UInt8], session: ConnectionSession, connection: ObjectIdentifier) async -> RouteOutcome {
        guard let controllerID = session.controllerID, let request = try? TLV8(decoding: body) else {
            logger.debug(
                "Refused a pairings body that is not valid TLV8 with 400",
                metadata: ["peer": "\(peer(of: connection))"]
            )
            return RouteOutcome(response: Self.status(.badRequest), session: session)
        }
        let wasPaired = state.pairings.isPaired
        let result = PairingsManagement.handle(request, from: controllerID, store: &state.pairings)
        if let code = result.reply[.error]?.first {
            logger.debug(
                "Refused a pairings request",
                metadata: ["peer": "\(peer(of: connection))", "error": "\(PairingError(tlvErrorCode: code))"]
            )
        }
        var outcome = RouteOutcome(
            response: HTTPResponse(status: .ok, contentType: .pairingTLV8, body: result.reply.encoded()),
            session: session
        )
        if result.didChangeStore {
            await persist()
        }
        if !result.removedIdentifiers.isEmpty {
            outcome.followups.append(.closeSessions(of: result.removedIdentifiers))
        }
        if wasPaired != state.pairings.isPaired {
            logger.info("No admin pairing is left: the accessory is pairable again")
            outcome.followups.append(.publishAdvertisement)
        }
        return outcome
    }
}
