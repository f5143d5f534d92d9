import Crypto
import Foundation
import HAP

/// Identities and a drive loop shared by the pairing tests.
enum PairingFixtures {
    static let setupCode = "518-08-582"
    static let salt: [UInt8] = Array(1...16)

    static func accessoryIdentity() -> AccessoryIdentity {
        AccessoryIdentity(deviceID: "E1:91:1A:70:85:AA", signingKey: Curve25519.Signing.PrivateKey())
    }

    static func controllerIdentity() -> ControllerIdentity {
        ControllerIdentity(pairingID: UUID().uuidString, signingKey: Curve25519.Signing.PrivateKey())
    }

    static func verifier(code: String = setupCode) -> SRPVerifier {
        SRPVerifier.pairSetup(setupCode: code, salt: salt)
    }

    static let freshConditions = PairSetupAccessory.Conditions(
        isPaired: false,
        failedAttempts: 0,
        isAnotherPairSetupInProgress: false
    )

    /// The outcome of joining the two pair-setup machines.
    struct SetupRun {
        var accessoryEvents: [PairSetupAccessory.Event] = []
        var controllerResult: Result<AccessoryPairing, PairingFailure>?
    }

    /// Runs pair-setup between the two machines with no socket, as the server and controller would.
    static func runPairSetup(
        accessory: inout PairSetupAccessory,
        controller: inout PairSetupController
    ) -> SetupRun {
        var run = SetupRun()
        var request = controller.start()
        for _ in 0..<3 {
            let step = accessory.receive(request)
            run.accessoryEvents += step.events
            do {
                switch try controller.receive(step.reply) {
                case .send(let next):
                    request = next
                case .paired(let pairing):
                    run.controllerResult = .success(pairing)
                    return run
                case .transient:
                    run.controllerResult = .failure(.procedureFinished)
                    return run
                }
            } catch {
                run.controllerResult = .failure(error)
                return run
            }
        }
        return run
    }

    /// Pairs a fresh accessory and controller and returns both sides' records.
    static func pairedPair() throws -> (
        accessory: AccessoryIdentity, controller: ControllerIdentity, table: PairingTable, record: AccessoryPairing
    ) {
        let accessoryIdentity = accessoryIdentity()
        let controllerIdentity = controllerIdentity()
        var accessory = PairSetupAccessory(
            identity: accessoryIdentity,
            verifier: verifier(),
            conditions: freshConditions
        )
        var controller = PairSetupController(setupCode: setupCode, identity: controllerIdentity)
        let run = runPairSetup(accessory: &accessory, controller: &controller)
        var table = PairingTable()
        for case .paired(let pairing) in run.accessoryEvents { table.save(pairing) }
        guard case .success(let record) = run.controllerResult else { throw PairingFailure.procedureFinished }
        return (accessoryIdentity, controllerIdentity, table, record)
    }
}
