import Crypto
import Foundation
import HAP
import HAPTypes

/// Runs the conformance checks of `hearth hap test` against one accessory and collects their results.
///
/// The tester pairs with an identity of its own that lives only in memory, and removes every pairing it made before
/// it returns, whatever the checks found (``run()``).
final class HAPTester {
    /// Where the accessory is and what the tester may do.
    struct Target {
        var host: String
        var port: Int
        var setupCode: SetupCode
        var setupID: SetupID?
        /// Spend 100 pair-setup tries on the MaxTries check (the accessory then needs a factory reset).
        var destructive = false
        /// A shell command that restarts the accessory with its stored state; `nil` skips the restart check.
        var restartCommand: String?
        /// How long to wait for each answer, in seconds.
        var timeout = 10.0
    }

    let target: Target
    let txt: TXTWatch?
    /// Called with each result as it is made.
    let report: (CheckResult) -> Void
    /// Every result so far.
    private(set) var results: [CheckResult] = []

    /// The tester's own controller identity, admin once paired.
    let identity = ControllerIdentity(pairingID: UUID().uuidString.uppercased(), signingKey: .init())
    /// The accessory as paired, `nil` while unpaired.
    var pairing: AccessoryPairing?
    /// Other controllers' identifiers the tester added, removed again at the end.
    var addedPairings: Set<String> = []
    /// The accessory database as read after pairing.
    var database: AccessoryDatabase?
    /// The device ID paired with, upper case, kept after unpairing.
    var lastDeviceID: String?
    /// The `sf` seen when it did not clear after pairing; `nil` when it cleared (or was not watched).
    var statusFlagAfterPairing: String?
    /// `c#` as advertised before the tester paired; `nil` when it was not seen.
    var configurationNumberAtStart: Int?
    /// The accessory database as read just before unpairing, to tell whether it changed during the run.
    var finalDatabase: AccessoryDatabase?
    /// Whether the tester's own pair-setup sent M5 and lost the connection before M6 came: the accessory may have
    /// stored a pairing the tester never learned about.
    var pairSetupLostAfterM5 = false
    /// Events any tester connection got for characteristics it never subscribed to.
    let unsolicited = UnsolicitedEvents()

    init(target: Target, txt: TXTWatch?, report: @escaping (CheckResult) -> Void) {
        self.target = target
        self.txt = txt
        self.report = report
    }

    /// Records one result.
    func record(_ check: CheckDefinition, _ outcome: CheckOutcome, _ details: [String] = []) {
        let result = CheckResult(check, outcome, details)
        results.append(result)
        report(result)
    }

    /// Records a pass when `problems` is empty, else a failure listing them (the first 20).
    func record(_ check: CheckDefinition, problems: [String], passDetails: [String] = []) {
        if problems.isEmpty {
            record(check, .pass, passDetails)
        } else {
            let shown = Array(problems.prefix(20)) + (problems.count > 20 ? ["… and \(problems.count - 20) more"] : [])
            record(check, .fail, shown)
        }
    }

    /// Runs every check, then removes the tester's pairings; true when no check failed.
    func run() async -> Bool {
        await checkTXTBeforePairing()
        checkPlaintextRequests()
        checkIdentifyUnpaired()
        checkWrongCode()
        checkBusy()
        await pairAndRunPairedChecks()
        await unpairAndCheck()
        await checkConfigurationNumber()
        if target.destructive {
            checkMaxTries()
        } else {
            record(
                Checks.maxTries,
                .skipped,
                ["spends 100 pair-setup tries and needs a factory reset; pass --destructive"]
            )
        }
        return !results.contains { $0.result == .fail }
    }

    private func pairAndRunPairedChecks() async {
        checkPairSetup()
        guard pairing != nil else {
            let needing = Checks.all.drop { $0 != Checks.unavailable }.prefix { $0 != Checks.lastAdmin }
            for check in needing { record(check, .skipped, ["needs a pairing, and pair-setup failed"]) }
            return
        }
        checkUnavailable()
        await checkStatusFlagPaired()
        checkVerifyGood()
        checkVerifyUnknown()
        checkBadFrame()
        runDatabaseChecks()
        runReadWriteChecks()
        checkEvents()
        checkCoalescing()
        checkUnsolicitedEvents()
        checkRestart()
        runPairingsChecks()
    }

    // MARK: Wire helpers

    /// A new plain connection, or `nil` after recording `check` as failed.
    func connect(for check: CheckDefinition? = nil) -> WireConnection? {
        do {
            return try WireConnection(
                host: target.host,
                port: target.port,
                timeout: target.timeout,
                unsolicited: unsolicited
            )
        } catch {
            if let check { record(check, .fail, [error.description]) }
            return nil
        }
    }

    /// How a pair-setup ended.
    enum PairSetupEnd {
        case paired(AccessoryPairing)
        case refused(PairingFailure)
        case broken(String)
    }

    /// Runs pair-setup with `code` as `identity` on a new connection; retried once with fresh keys only when SRP
    /// padding could explain an Authentication at M4 (hap-protocol.md §3.2).
    func pairSetup(code: String, as identity: ControllerIdentity, retry: Bool = true) -> PairSetupEnd {
        guard let connection = connect() else { return .broken("no TCP connection to \(target.host):\(target.port)") }
        defer { connection.close() }
        var machine = PairSetupController(setupCode: code, identity: identity)
        var body = machine.start()
        do {
            while true {
                let reply = try connection.postTLV8("/pair-setup", body)
                switch try machine.receive(reply) {
                case .send(let next): body = next
                case .paired(let pairing): return .paired(pairing)
                case .transient:
                    return .broken("pair-setup ended at M4 as a transient pairing, which was not asked for")
                }
            }
        } catch let failure as PairingFailure {
            if retry, machine.shouldRetry(after: failure) { return pairSetup(code: code, as: identity, retry: false) }
            return .refused(failure)
        } catch {
            if body[.state] == [5], identity.pairingID == self.identity.pairingID { pairSetupLostAfterM5 = true }
            return .broken("\(error)")
        }
    }

    /// Pair-verify as `identity` on a new connection: the encrypted connection, or what went wrong.
    func verify(as identity: ControllerIdentity) -> Result<WireConnection, WireError> {
        guard let pairing else { return .failure(WireError(description: "the tester is not paired")) }
        let connection: WireConnection
        do {
            connection = try WireConnection(
                host: target.host,
                port: target.port,
                timeout: target.timeout,
                unsolicited: unsolicited
            )
        } catch {
            return .failure(error)
        }
        var machine = PairVerifyController(identity: identity, accessory: pairing)
        var body = machine.start()
        do {
            while true {
                let reply = try connection.postTLV8("/pair-verify", body)
                switch try machine.receive(reply) {
                case .send(let next): body = next
                case .established(let keys):
                    connection.encrypt(with: keys)
                    return .success(connection)
                }
            }
        } catch let failure as PairingFailure {
            connection.close()
            if case .accessoryRefused = failure {
                return .failure(WireError(description: "the accessory refused pair-verify: \(describe(failure))"))
            }
            return .failure(WireError(description: "pair-verify failed: \(describe(failure))"))
        } catch {
            connection.close()
            return .failure(error as? WireError ?? WireError(description: "\(error)"))
        }
    }

    /// A verified session as the tester, or `nil` after recording `check` as failed.
    func session(for check: CheckDefinition) -> WireConnection? {
        switch verify(as: identity) {
        case .success(let connection): return connection
        case .failure(let error):
            record(check, .fail, [error.description])
            return nil
        }
    }

    /// A pairing failure as it was seen: the TLV error code and state.
    func describe(_ failure: PairingFailure) -> String {
        switch failure {
        case .accessoryRefused(let error, let state):
            "the accessory answered M\(state) with Error \(error.tlvErrorCode) (\(name(of: error)))"
        case .unexpectedState(let expected, let received):
            "the accessory answered State \(received) where M\(expected) was expected"
        default:
            "\(failure)"
        }
    }

    /// The spec's name of a TLV error (hap-protocol.md §2.4).
    func name(of error: PairingError) -> String {
        switch error {
        case .unknown: "Unknown"
        case .authentication: "Authentication"
        case .backoff: "Backoff"
        case .maxPeers: "MaxPeers"
        case .maxTries: "MaxTries"
        case .unavailable: "Unavailable"
        case .busy: "Busy"
        }
    }

    /// Sends pair-setup M1 on `connection`: the Error in the answer (nil when M2 carried a salt), or a description.
    func pairSetupM1(on connection: WireConnection) -> Result<PairingError?, WireError> {
        var m1 = TLV8()
        m1.append(.state, byte: 1)
        m1.append(.method, byte: 0)
        do {
            let reply = try connection.postTLV8("/pair-setup", m1)
            if let code = reply[.error]?.first { return .success(PairingError(tlvErrorCode: code)) }
            guard reply[.state] == [2], reply[.salt]?.count == 16 else {
                return .failure(WireError(description: "M2 had neither an Error nor a 16-byte salt: \(reply)"))
            }
            return .success(nil)
        } catch {
            return .failure(error)
        }
    }

    /// A wrong setup code: the right one with its last digit changed.
    var wrongCode: String {
        var digits = Array(target.setupCode.formatted)
        if let last = digits.last?.wholeNumberValue { digits[digits.count - 1] = Character("\((last + 1) % 10)") }
        return String(digits)
    }
}
