import Crypto
import Foundation
import HAP
import HAPTypes

/// Checks of pairing: before pairing, pair-setup, pair-verify, the session, `/pairings` and unpairing.
extension HAPTester {
    func checkPlaintextRequests() {
        guard let connection = connect(for: Checks.plaintext470) else { return }
        defer { connection.close() }
        let requests: [HTTPRequest] = [
            HTTPRequest(method: .get, target: "/accessories"),
            HTTPRequest(method: .get, target: "/characteristics?id=1.2"),
            HTTPRequest(
                method: .put,
                target: "/characteristics",
                headers: ["Content-Type": HTTPContentType.hapJSON.rawValue],
                body: Array(#"{"characteristics":[{"aid":1,"iid":2,"value":1}]}"#.utf8)
            ),
            HTTPRequest(
                method: .post,
                target: "/pairings",
                headers: ["Content-Type": HTTPContentType.pairingTLV8.rawValue],
                body: PairingsRequest.list().encoded()
            ),
        ]
        var problems: [String] = []
        var current = connection
        for request in requests {
            do {
                let response = try current.send(request)
                if response.status.code != 470 {
                    problems.append(
                        "\(request.method) \(request.target) answered HTTP \(response.status.code) \(bodyText(response))"
                    )
                }
            } catch {
                problems.append("\(request.method) \(request.target): \(error)")
                // The accessory may close a plain connection after refusing: go on with a new one.
                guard let next = connect() else { break }
                current = next
            }
        }
        record(Checks.plaintext470, problems: problems)
    }

    func checkIdentifyUnpaired() {
        guard let connection = connect(for: Checks.identifyUnpaired) else { return }
        defer { connection.close() }
        do {
            let response = try connection.send(HTTPRequest(method: .post, target: "/identify"))
            if response.status.code == 204 {
                record(Checks.identifyUnpaired, .pass)
            } else if response.status.code == 200 {
                record(Checks.identifyUnpaired, .warning, ["answered HTTP 200 where 204 is expected"])
            } else {
                record(Checks.identifyUnpaired, .fail, ["answered HTTP \(response.status.code) \(bodyText(response))"])
            }
        } catch {
            record(Checks.identifyUnpaired, .fail, [error.description])
        }
    }

    func checkWrongCode() {
        let stranger = ControllerIdentity(pairingID: UUID().uuidString.uppercased(), signingKey: .init())
        switch pairSetup(code: wrongCode, as: stranger, retry: false) {
        case .refused(.accessoryRefused(.authentication, state: 4)):
            record(Checks.wrongCode, .pass)
        case .refused(let failure):
            record(Checks.wrongCode, .fail, [describe(failure)])
        case .paired:
            record(Checks.wrongCode, .fail, ["pair-setup with the wrong code \(wrongCode) succeeded"])
            // Take the pairing made by mistake away again.
            pairing = nil
        case .broken(let text):
            record(Checks.wrongCode, .fail, [text])
        }
    }

    func checkBusy() {
        guard let first = connect(for: Checks.busy), let second = connect(for: Checks.busy) else { return }
        defer {
            first.close()
            second.close()
        }
        switch pairSetupM1(on: first) {
        case .failure(let error):
            record(Checks.busy, .fail, ["the first pair-setup M1: \(error)"])
        case .success(.some(let error)):
            record(
                Checks.busy,
                .fail,
                ["the first pair-setup M1 was refused with Error \(error.tlvErrorCode) (\(name(of: error)))"]
            )
        case .success(nil):
            switch pairSetupM1(on: second) {
            case .success(.busy): record(Checks.busy, .pass)
            case .success(.some(let error)):
                record(
                    Checks.busy,
                    .fail,
                    ["the second M1 was refused with Error \(error.tlvErrorCode) (\(name(of: error)))"]
                )
            case .success(nil):
                record(
                    Checks.busy,
                    .fail,
                    ["the second M1 was answered with M2 (salt and key) instead of Error 7 (Busy)"]
                )
            case .failure(let error):
                record(Checks.busy, .fail, ["the second M1: \(error)"])
            }
        }
        // The abandoned pair-setup ends with its connection; give the accessory a moment to notice.
        first.close()
        second.close()
        Thread.sleep(forTimeInterval: 0.2)
    }

    func checkPairSetup() {
        switch pairSetup(code: target.setupCode.formatted, as: identity) {
        case .paired(let accessory):
            pairing = accessory
            lastDeviceID = accessory.deviceID.uppercased()
            record(Checks.pairSetup, .pass, ["paired as \(identity.pairingID) with \(accessory.deviceID)"])
        case .refused(let failure):
            record(Checks.pairSetup, .fail, [describe(failure)])
        case .broken(let text):
            record(Checks.pairSetup, .fail, [text])
        }
    }

    func checkUnavailable() {
        guard let connection = connect(for: Checks.unavailable) else { return }
        defer { connection.close() }
        switch pairSetupM1(on: connection) {
        case .success(.unavailable): record(Checks.unavailable, .pass)
        case .success(.some(let error)):
            record(
                Checks.unavailable,
                .fail,
                ["M2 carried Error \(error.tlvErrorCode) (\(name(of: error))), not 6 (Unavailable)"]
            )
        case .success(nil):
            record(Checks.unavailable, .fail, ["M1 was answered with M2 (salt and key) although paired"])
        case .failure(let error): record(Checks.unavailable, .fail, [error.description])
        }
    }

    func checkVerifyGood() {
        guard let session = session(for: Checks.verifyGood) else { return }
        defer { session.close() }
        do {
            let response = try session.send(HTTPRequest(method: .get, target: "/accessories"))
            if response.status.code == 200 {
                record(Checks.verifyGood, .pass)
            } else {
                record(
                    Checks.verifyGood,
                    .fail,
                    ["GET /accessories on the session answered HTTP \(response.status.code)"]
                )
            }
        } catch {
            record(Checks.verifyGood, .fail, ["GET /accessories on the session: \(error)"])
        }
    }

    func checkVerifyUnknown() {
        let stranger = ControllerIdentity(pairingID: UUID().uuidString.uppercased(), signingKey: .init())
        switch verify(as: stranger) {
        case .success(let connection):
            connection.close()
            record(Checks.verifyUnknown, .fail, ["pair-verify as an unknown controller succeeded"])
        case .failure(let error):
            let seen = error.description
            if seen.contains("answered M4 with Error 2") {
                record(Checks.verifyUnknown, .pass)
            } else {
                record(Checks.verifyUnknown, .fail, [seen + "; expected M4 with Error 2 (Authentication)"])
            }
        }
    }

    func checkBadFrame() {
        guard let session = session(for: Checks.badFrame) else { return }
        defer { session.close() }
        var frame = session.sealed(HTTPRequest(method: .get, target: "/accessories", headers: ["Host": "x"]).encoded())
        frame[frame.count - 1] ^= 0xFF
        do {
            try session.write(frame)
        } catch {
            record(Checks.badFrame, .pass, ["closed while the bad frame was written"])
            return
        }
        if session.closesWithin(3) {
            record(Checks.badFrame, .pass)
        } else {
            record(Checks.badFrame, .fail, ["the connection stayed open 3 s after a frame with a bad tag"])
        }
    }

    // MARK: /pairings

    /// Posts a `/pairings` request on `session`: the reply, or what went wrong.
    func pairings(_ request: TLV8, on session: WireConnection) -> Result<TLV8, WireError> {
        do {
            return .success(try session.postTLV8("/pairings", request))
        } catch {
            return .failure(error)
        }
    }

    func runPairingsChecks() {
        guard let admin = session(for: Checks.pairingsManage) else {
            record(Checks.pairingsAdminOnly, .skipped, ["needs an admin session"])
            record(Checks.pairingsCloseSessions, .skipped, ["needs an admin session"])
            return
        }
        defer { admin.close() }
        let guest = ControllerIdentity(pairingID: UUID().uuidString.uppercased(), signingKey: .init())
        var problems: [String] = []
        let add = PairingsRequest.add(
            identifier: Array(guest.pairingID.utf8),
            publicKey: guest.publicKey,
            isAdmin: false
        )
        // Noted before it is sent: an answer that is lost may still have added it, and the clean-up removes it.
        addedPairings.insert(guest.pairingID)
        switch pairings(add, on: admin) {
        case .success(let reply):
            if let code = reply[.error]?.first { problems.append("Add Pairing answered Error \(code)") }
        case .failure(let error): problems.append("Add Pairing: \(error)")
        }
        switch pairings(PairingsRequest.list(), on: admin) {
        case .success(let reply):
            do {
                let listed = try PairingsRequest.pairings(inListReply: reply)
                let mine = listed.first { $0.identifier == Array(identity.pairingID.utf8) }
                let theirs = listed.first { $0.identifier == Array(guest.pairingID.utf8) }
                if mine?.isAdmin != true { problems.append("List Pairings does not show the tester as admin") }
                if theirs == nil { problems.append("List Pairings does not show the added controller byte for byte") }
                if theirs?.isAdmin == true {
                    problems.append("the controller added as regular user is listed as admin")
                }
                if let theirs, theirs.publicKey != guest.publicKey {
                    problems.append("the added key is listed differently")
                }
            } catch {
                problems.append("List Pairings answer: \(describe(error))")
            }
        case .failure(let error): problems.append("List Pairings: \(error)")
        }
        guard problems.isEmpty else {
            record(Checks.pairingsManage, .fail, problems)
            record(Checks.pairingsAdminOnly, .skipped, ["needs the added controller"])
            record(Checks.pairingsCloseSessions, .skipped, ["needs the added controller"])
            return
        }
        let guestSession: WireConnection?
        switch verify(as: guest) {
        case .success(let connection): guestSession = connection
        case .failure(let error):
            guestSession = nil
            problems.append("the added controller could not pair-verify: \(error)")
        }
        if let guestSession {
            switch pairings(PairingsRequest.list(), on: guestSession) {
            case .success(let reply) where reply[.error] == [PairingError.authentication.tlvErrorCode]:
                record(Checks.pairingsAdminOnly, .pass)
            case .success(let reply):
                let seen = reply[.error].map { "Error \($0.first ?? 0)" } ?? "a list without an Error"
                record(Checks.pairingsAdminOnly, .fail, ["a regular user's List Pairings was answered with \(seen)"])
            case .failure(let error): record(Checks.pairingsAdminOnly, .fail, [error.description])
            }
        } else {
            record(Checks.pairingsAdminOnly, .skipped, ["the added controller has no session"])
        }
        switch pairings(PairingsRequest.remove(identifier: Array(guest.pairingID.utf8)), on: admin) {
        case .success(let reply):
            if let code = reply[.error]?.first {
                problems.append("Remove Pairing answered Error \(code)")
            } else {
                addedPairings.remove(guest.pairingID)
            }
        case .failure(let error): problems.append("Remove Pairing: \(error)")
        }
        if let guestSession {
            if guestSession.closesWithin(2) {
                record(Checks.pairingsCloseSessions, .pass)
            } else {
                record(
                    Checks.pairingsCloseSessions,
                    .fail,
                    ["the removed controller's session stayed open 2 s after Remove Pairing"]
                )
            }
            guestSession.close()
        } else {
            record(Checks.pairingsCloseSessions, .skipped, ["the added controller has no session"])
        }
        if case .success(let reply) = pairings(PairingsRequest.list(), on: admin),
            let listed = try? PairingsRequest.pairings(inListReply: reply),
            listed.contains(where: { $0.identifier == Array(guest.pairingID.utf8) })
        {
            problems.append("the removed controller is still listed")
        }
        record(Checks.pairingsManage, problems: problems)
    }

    /// Removes the tester's pairings, the last admin last, and checks the accessory is pairable again.
    ///
    /// Each removal is on a session of its own, so an accessory that drops sessions still gets every removal. When
    /// the accessory is not pairable again, the report says it is left paired.
    func unpairAndCheck() async {
        guard pairing != nil else {
            checkLeftPairedUnknowingly()
            record(Checks.statusFlag, .skipped, ["the tester never paired"])
            return
        }
        readFinalDatabase()
        for other in addedPairings.sorted() where removePairing(other) == nil { addedPairings.remove(other) }
        var problems: [String] = []
        let removal = removePairing(identity.pairingID)
        if let removal { problems.append(removal) }
        switch probePairSetup() {
        case .success(nil):
            pairing = nil
            if removal != nil {
                problems.append("pair-setup M1 answers M2 again all the same: the accessory is unpaired")
            }
        case .success(.some(let error)):
            problems.append(
                "after the last admin was removed, pair-setup M1 answered Error \(error.tlvErrorCode) (\(name(of: error)))"
            )
        case .failure(let error): problems.append("pair-setup M1 after the last admin was removed: \(error)")
        }
        if pairing != nil {
            problems.append(
                "the accessory may be left paired with the tester (controller \(identity.pairingID)), which could not "
                    + "remove its pairing: reset the accessory to pair it again"
            )
        }
        record(Checks.lastAdmin, problems: problems)
        await checkStatusFlagUnpaired()
    }

    /// The tester never learned of a pairing: when its pair-setup lost the connection after M5, the accessory may
    /// have stored the pairing all the same (hap-protocol.md §3.5), so pair-setup M1 tells whether it is paired now.
    private func checkLeftPairedUnknowingly() {
        guard pairSetupLostAfterM5 else {
            record(Checks.lastAdmin, .skipped, ["the tester never paired"])
            return
        }
        switch probePairSetup() {
        case .success(.unavailable):
            record(
                Checks.lastAdmin,
                .fail,
                [
                    "the connection closed after the tester sent pair-setup M5, before M6 came, and pair-setup M1 now "
                        + "answers Error 6 (Unavailable): the accessory stored a pairing the tester never learned about",
                    "the accessory may be left paired with the tester (controller \(identity.pairingID)), which has "
                        + "no keys of the accessory to remove that pairing: reset the accessory to pair it again "
                        + "(hearth-sim: remove its --state folder)",
                ]
            )
        case .success(nil):
            record(
                Checks.lastAdmin,
                .skipped,
                ["the tester never paired; pair-setup M1 answers M2: the accessory is unpaired"]
            )
        case .success(.some(let error)):
            record(
                Checks.lastAdmin,
                .skipped,
                ["the tester never paired; pair-setup M1 answers Error \(error.tlvErrorCode) (\(name(of: error)))"]
            )
        case .failure(let error):
            record(
                Checks.lastAdmin,
                .fail,
                [
                    "the connection closed after pair-setup M5 and pair-setup M1 could not be sent since (\(error)): "
                        + "the accessory may be left paired with the tester (controller \(identity.pairingID))"
                ]
            )
        }
    }

    func checkMaxTries() {
        let stranger = ControllerIdentity(pairingID: UUID().uuidString.uppercased(), signingKey: .init())
        var tries = 0
        var answer: PairingError?
        while tries < 101 {
            if tries >= 100, let connection = connect() {
                defer { connection.close() }
                if case .success(let error) = pairSetupM1(on: connection), let error {
                    answer = error
                    break
                }
            }
            tries += 1
            switch pairSetup(code: wrongCode, as: stranger, retry: false) {
            case .refused(.accessoryRefused(.maxTries, _)):
                answer = .maxTries
            case .refused(.accessoryRefused(.authentication, state: 4)):
                continue
            case .refused(let failure):
                record(Checks.maxTries, .fail, ["try \(tries): \(describe(failure))"])
                return
            case .paired:
                record(Checks.maxTries, .fail, ["try \(tries) with a wrong code paired"])
                return
            case .broken(let text):
                record(Checks.maxTries, .fail, ["try \(tries): \(text)"])
                return
            }
            if answer != nil { break }
        }
        if answer == .maxTries, tries >= 100 {
            record(Checks.maxTries, .pass, ["MaxTries after \(tries) wrong codes"])
        } else if let answer {
            record(
                Checks.maxTries,
                .fail,
                ["after \(tries) wrong codes M1 answered Error \(answer.tlvErrorCode) (\(name(of: answer)))"]
            )
        } else {
            record(Checks.maxTries, .fail, ["after \(tries) wrong codes pair-setup still answers M2 without MaxTries"])
        }
    }
}
