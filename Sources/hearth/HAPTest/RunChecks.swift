import Foundation
import HAP
import HAPTypes

/// Checks that look at the whole run: events nobody asked for (hap-protocol.md §7.8), `c#` (§8), and the clean-up
/// that leaves the accessory unpaired whatever it did (§6).
extension HAPTester {
    /// How long an idle session listens for events it did not ask for.
    static let unsolicitedListening = 1.2
    /// How long the clean-up keeps trying while connections fail (an accessory that flaps or reboots).
    static let cleanupPatience = 10.0

    /// Listens on a session that subscribed to nothing, then fails if it, or any connection before it, got an
    /// event for a characteristic it never subscribed to.
    func checkUnsolicitedEvents() {
        guard let idle = session(for: Checks.unsolicitedEvents) else { return }
        defer { idle.close() }
        var problems: [String] = []
        do {
            let deadline = Date().addingTimeInterval(Self.unsolicitedListening)
            while Date() < deadline, try idle.nextEvent(within: deadline.timeIntervalSinceNow) != nil {}
        } catch {
            problems.append("the idle session: \(error)")
        }
        let seen = unsolicited.seen
        if !seen.isEmpty {
            let shown = seen.prefix(8).joined(separator: ", ")
            problems.insert(
                "\(seen.count) event item\(seen.count == 1 ? "" : "s") for characteristics the session never "
                    + "subscribed to: \(shown)\(seen.count > 8 ? ", …" : ""); events go only to a connection that "
                    + "subscribed (hap-protocol.md §7.8)",
                at: 0
            )
        }
        record(
            Checks.unsolicitedEvents,
            problems: problems,
            passDetails: ["no event for an unsubscribed characteristic; an idle session got none in 1.2 s"]
        )
    }

    /// Reads `GET /accessories` once more before unpairing, to tell whether the database changed during the run.
    func readFinalDatabase() {
        guard case .success(let session) = verify(as: identity) else { return }
        defer { session.close() }
        guard let response = try? session.send(HTTPRequest(method: .get, target: "/accessories")),
            response.status.code == 200
        else { return }
        finalDatabase = try? HAPJSON.decode(AccessoryDatabase.self, from: Data(response.body))
    }

    /// The verdict on `c#`: a pass when it went up (or wrapped from 65535 to 1), a failure when it went down or the
    /// database changed (`changed` says how) while it stayed; skipped when neither changed.
    static func judgeConfigurationNumber(before: Int, after: Int, changed: String?) -> (CheckOutcome, [String]) {
        if after > before || (before == 65535 && after == 1) {
            return (.pass, ["c# went from \(before) to \(after) during the run" + (changed.map { " (\($0))" } ?? "")])
        }
        if after < before { return (.fail, ["c# went down from \(before) to \(after) during the run"]) }
        if let changed {
            return (.fail, ["the accessory database changed during the run (\(changed)), but c# stayed \(before)"])
        }
        return (
            .skipped,
            [
                "c# stayed \(before) and the database did not change during the run; the tester cannot change a "
                    + "database on its own: change it and watch c# with 'hearth hap discover'"
            ]
        )
    }

    /// The database without values: what `c#` must follow (accessories, services, characteristics, metadata).
    static func withoutValues(_ database: AccessoryDatabase) -> AccessoryDatabase {
        var stripped = database
        for a in stripped.accessories.indices {
            for s in stripped.accessories[a].services.indices {
                for c in stripped.accessories[a].services[s].characteristics.indices {
                    stripped.accessories[a].services[s].characteristics[c].value = nil
                }
            }
        }
        return stripped
    }

    /// `c#` after the run against `c#` before: a pass when it went up, a failure when the database changed and it
    /// did not; skipped when neither changed (the tester cannot change a database by itself).
    func checkConfigurationNumber() async {
        guard let txt else {
            record(Checks.configurationNumber, .skipped, ["no --interface given to look at mDNS on"])
            return
        }
        guard let before = configurationNumberAtStart else {
            record(Checks.configurationNumber, .skipped, ["no c# was seen before pairing"])
            return
        }
        let deviceID = lastDeviceID
        let latest = await txt.service(within: 0) { service in
            deviceID.map { service.txt["id"]?.uppercased() == $0 } ?? isTarget(service)
        }
        guard let after = latest?.txt["c#"].flatMap({ Int($0) }) else {
            record(Checks.configurationNumber, .skipped, ["no c# was seen at the end of the run"])
            return
        }
        var changed: String?
        if let first = database, let last = finalDatabase, Self.withoutValues(first) != Self.withoutValues(last) {
            let old = Self.identifiers(first)
            let new = Self.identifiers(last)
            changed =
                old.symmetricDifference(new).sorted().first.map { "\($0) came or went" }
                ?? "the metadata of a characteristic changed"
        }
        let (outcome, details) = Self.judgeConfigurationNumber(before: before, after: after, changed: changed)
        record(Checks.configurationNumber, outcome, details)
    }

    /// Removes the pairing `identifier` on a session of its own, trying again while connections fail, for up to
    /// ``cleanupPatience`` s; `nil` when it was removed, else what went wrong.
    func removePairing(_ identifier: String) -> String? {
        let whose = identifier == identity.pairingID ? "the tester's pairing" : "pairing \(identifier)"
        let giveUp = Date().addingTimeInterval(Self.cleanupPatience)
        var last = ""
        repeat {
            switch verify(as: identity) {
            case .failure(let error):
                last = "the tester's own session for removing \(whose): \(error)"
                guard error.isConnectionLost else { return last }
            case .success(let session):
                defer { session.close() }
                switch pairings(PairingsRequest.remove(identifier: Array(identifier.utf8)), on: session) {
                case .success(let reply):
                    return reply[.error]?.first.map { "removing \(whose) answered Error \($0)" }
                case .failure(let error):
                    last = "removing \(whose): \(error)"
                    guard error.isConnectionLost else { return last }
                }
            }
            Thread.sleep(forTimeInterval: 0.25)
        } while Date() < giveUp
        return last
    }

    /// Pair-setup M1 on a new connection, trying again while connections fail: `nil` (M2 with a salt) when the
    /// accessory is unpaired, else its Error or what went wrong.
    func probePairSetup() -> Result<PairingError?, WireError> {
        let giveUp = Date().addingTimeInterval(Self.cleanupPatience)
        var outcome = Result<PairingError?, WireError>.failure(WireError(description: "no connection was tried"))
        repeat {
            do {
                let connection = try WireConnection(host: target.host, port: target.port, timeout: target.timeout)
                defer { connection.close() }
                outcome = pairSetupM1(on: connection)
            } catch {
                outcome = .failure(error)
            }
            guard case .failure(let error) = outcome, error.isConnectionLost else { return outcome }
            Thread.sleep(forTimeInterval: 0.25)
        } while Date() < giveUp
        return outcome
    }
}
