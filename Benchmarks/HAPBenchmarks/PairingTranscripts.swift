import Crypto
import Foundation
import HAP

/// One successful pair-setup, recorded with fixed SRP private keys so that either side can be replayed alone.
///
/// With `a` and `b` fixed, every message is the same on each run (Ed25519 signatures are deterministic), so a fresh
/// accessory machine fed the recorded M1, M3 and M5 does exactly the work it does against a live controller, and the
/// same holds for a fresh controller fed M2, M4 and M6.
struct PairSetupTranscript: Sendable {
    let accessoryIdentity: AccessoryIdentity
    let controllerIdentity: ControllerIdentity
    let setupCode: String
    /// The setup code's salt and verifier, made once when the setup code is set, not per pair-setup.
    let verifier: SRPVerifier
    /// SRP's `a`.
    let controllerPrivateKey: [UInt8]
    /// SRP's `b`.
    let accessoryPrivateKey: [UInt8]
    /// M1, M3 and M5.
    let requests: [TLV8]
    /// M2, M4 and M6.
    let replies: [TLV8]

    static let conditions = PairSetupAccessory.Conditions(
        isPaired: false,
        failedAttempts: 0,
        isAnotherPairSetupInProgress: false
    )

    /// Runs pair-setup between the two machines once and records both directions.
    static func record() -> PairSetupTranscript {
        let setupCode = "518-08-582"
        let accessoryIdentity = AccessoryIdentity(
            deviceID: "E1:91:1A:70:85:AA",
            signingKey: Curve25519.Signing.PrivateKey()
        )
        let controllerIdentity = ControllerIdentity(
            pairingID: UUID().uuidString,
            signingKey: Curve25519.Signing.PrivateKey()
        )
        let salt = randomBytes(16)
        let verifier = SRPVerifier.pairSetup(setupCode: setupCode, salt: salt)
        // A key whose public value has a leading zero byte is one the random initialisers would redraw; try again.
        for _ in 0..<16 {
            let controllerPrivateKey = randomBytes(32)
            let accessoryPrivateKey = randomBytes(32)
            var accessory = PairSetupAccessory(
                identity: accessoryIdentity,
                verifier: verifier,
                conditions: conditions,
                srpPrivateKey: accessoryPrivateKey
            )
            var controller = PairSetupController(
                setupCode: setupCode,
                identity: controllerIdentity,
                srpPrivateKey: controllerPrivateKey
            )
            var requests = [controller.start()]
            var replies: [TLV8] = []
            var isPaired = false
            exchange: for _ in 0..<3 {
                guard let request = requests.last else { break }
                let reply = accessory.receive(request).reply
                replies.append(reply)
                switch try? controller.receive(reply) {
                case .send(let next):
                    requests.append(next)
                case .paired:
                    isPaired = true
                    break exchange
                case .transient, nil:
                    break exchange
                }
            }
            guard isPaired, requests.count == 3, replies.count == 3 else { continue }
            return PairSetupTranscript(
                accessoryIdentity: accessoryIdentity,
                controllerIdentity: controllerIdentity,
                setupCode: setupCode,
                verifier: verifier,
                controllerPrivateKey: controllerPrivateKey,
                accessoryPrivateKey: accessoryPrivateKey,
                requests: requests,
                replies: replies
            )
        }
        preconditionFailure("pair-setup between Hearth's own machines failed 16 times")
    }
}

/// One successful pair-verify between a paired accessory and controller, recorded with fixed ephemeral keys.
struct PairVerifyTranscript: Sendable {
    let accessoryIdentity: AccessoryIdentity
    let controllerIdentity: ControllerIdentity
    let pairings: PairingTable
    let accessoryPairing: AccessoryPairing
    let accessoryEphemeralKey: Curve25519.KeyAgreement.PrivateKey
    let controllerEphemeralKey: Curve25519.KeyAgreement.PrivateKey
    /// M1 and M3.
    let requests: [TLV8]
    /// M2 and M4.
    let replies: [TLV8]

    /// Pairs the two sides from a pair-setup transcript's identities, then runs pair-verify once and records it.
    static func record(after setup: PairSetupTranscript) -> PairVerifyTranscript {
        var pairings = PairingTable()
        pairings.save(setup.controllerIdentity.pairing(isAdmin: true))
        let accessoryPairing = AccessoryPairing(
            deviceID: setup.accessoryIdentity.deviceID,
            publicKey: setup.accessoryIdentity.publicKey
        )
        let accessoryEphemeralKey = Curve25519.KeyAgreement.PrivateKey()
        let controllerEphemeralKey = Curve25519.KeyAgreement.PrivateKey()
        var accessory = PairVerifyAccessory(
            identity: setup.accessoryIdentity,
            pairings: pairings,
            ephemeralKey: accessoryEphemeralKey
        )
        var controller = PairVerifyController(
            identity: setup.controllerIdentity,
            accessory: accessoryPairing,
            ephemeralKey: controllerEphemeralKey
        )
        let m1 = controller.start()
        guard case .reply(let m2) = accessory.receive(m1),
            case .send(let m3) = try? controller.receive(m2),
            case .replyAndEncrypt(let m4, _, _) = accessory.receive(m3),
            case .established = try? controller.receive(m4)
        else {
            preconditionFailure("pair-verify between Hearth's own machines failed")
        }
        return PairVerifyTranscript(
            accessoryIdentity: setup.accessoryIdentity,
            controllerIdentity: setup.controllerIdentity,
            pairings: pairings,
            accessoryPairing: accessoryPairing,
            accessoryEphemeralKey: accessoryEphemeralKey,
            controllerEphemeralKey: controllerEphemeralKey,
            requests: [m1, m3],
            replies: [m2, m4]
        )
    }
}

/// `count` bytes from the system's random source.
func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}
