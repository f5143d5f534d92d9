import HAP
import Testing

/// When an Authentication error at M4 is worth a second pair-setup (issue 20): only when the SRP padding
/// conventions of hap-protocol.md §3.2 give different proofs for the exchange, since each try counts toward the
/// accessory's limit of 100.
@Suite struct PairSetupRetryTests {
    static let privateKey: [UInt8] = Array(0x21...0x40)

    /// An accessory's M2 with this B (bytes as sent) and the fixture salt.
    static func m2(serverPublicKey: [UInt8]) -> TLV8 {
        var reply = TLV8()
        reply.append(.state, byte: 2)
        reply.append(.salt, PairingFixtures.salt)
        reply.append(.publicKey, serverPublicKey)
        return reply
    }

    /// An accessory's M4 refusing the proof.
    static let refusedM4: TLV8 = {
        var reply = TLV8()
        reply.append(.state, byte: 4)
        reply.append(.error, byte: PairingError.authentication.tlvErrorCode)
        return reply
    }()

    /// Feeds `controller` M2 with `serverPublicKey`, then the refusing M4; returns the failure.
    static func refuse(_ controller: inout PairSetupController, serverPublicKey: [UInt8]) throws -> PairingFailure {
        _ = controller.start()
        guard case .send = try controller.receive(m2(serverPublicKey: serverPublicKey)) else {
            throw PairingFailure.procedureFinished
        }
        do {
            _ = try controller.receive(refusedM4)
        } catch {
            return error
        }
        throw PairingFailure.procedureFinished
    }

    @Test("a wrong code in an exchange with no leading zero byte is not worth a retry")
    func wrongCodeWithoutLeadingZeroAdvisesNoRetry() {
        // The accessory draws b until PAD(B) has no leading zero, the controller a until A, S and K have none: with
        // random keys, no value of the exchange has a leading zero byte, whatever the draws.
        for _ in 0..<3 {
            var accessory = PairSetupAccessory(
                identity: PairingFixtures.accessoryIdentity(),
                verifier: PairingFixtures.verifier(),
                conditions: PairingFixtures.freshConditions
            )
            var controller = PairSetupController(
                setupCode: "111-22-333",
                identity: PairingFixtures.controllerIdentity()
            )
            let run = PairingFixtures.runPairSetup(accessory: &accessory, controller: &controller)
            let failure = PairingFailure.accessoryRefused(.authentication, state: 4)
            #expect(run.controllerResult == .failure(failure))
            #expect(!controller.paddingMatters)
            #expect(!controller.shouldRetry(after: failure))
        }
    }

    @Test("a B with a leading zero byte makes Authentication at M4 worth one retry")
    func shortServerPublicKeyAdvisesRetry() throws {
        // B = 0x00 0x01 0x02 …: below N, not zero, and PAD(B) ≠ MIN(B), sent padded and sent trimmed.
        let padded = [0] + (1..<384).map { UInt8(truncatingIfNeeded: $0) }
        for serverPublicKey in [padded, Array(padded.dropFirst())] {
            var controller = PairSetupController(
                setupCode: PairingFixtures.setupCode,
                identity: PairingFixtures.controllerIdentity(),
                srpPrivateKey: Self.privateKey
            )
            let failure = try Self.refuse(&controller, serverPublicKey: serverPublicKey)
            #expect(failure == .accessoryRefused(.authentication, state: 4))
            #expect(controller.paddingMatters)
            #expect(controller.shouldRetry(after: failure))
        }
    }

    @Test("the same crafted exchange with a full-length B is not worth a retry")
    func fullLengthServerPublicKeyAdvisesNoRetry() throws {
        // Fixed a, salt and B: S and K are fixed too, and (checked here) have no leading zero byte.
        let serverPublicKey = (1...384).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var controller = PairSetupController(
            setupCode: PairingFixtures.setupCode,
            identity: PairingFixtures.controllerIdentity(),
            srpPrivateKey: Self.privateKey
        )
        let failure = try Self.refuse(&controller, serverPublicKey: serverPublicKey)
        #expect(failure == .accessoryRefused(.authentication, state: 4))
        #expect(!controller.paddingMatters)
        #expect(!controller.shouldRetry(after: failure))
        // Other refusals are never retried.
        #expect(!controller.shouldRetry(after: .accessoryRefused(.maxTries, state: 2)))
    }

    @Test func otherFailuresAreNotWorthARetryEvenWhenPaddingMatters() throws {
        let padded = [0] + (1..<384).map { UInt8(truncatingIfNeeded: $0) }
        var controller = PairSetupController(
            setupCode: PairingFixtures.setupCode,
            identity: PairingFixtures.controllerIdentity(),
            srpPrivateKey: Self.privateKey
        )
        _ = try Self.refuse(&controller, serverPublicKey: padded)
        #expect(controller.paddingMatters)
        #expect(!controller.shouldRetry(after: .accessoryRefused(.busy, state: 2)))
        #expect(!controller.shouldRetry(after: .invalidAccessoryProof))
        #expect(!controller.shouldRetry(after: .accessoryRefused(.authentication, state: 6)))
    }

    @Test func srpResponseSaysWhetherPaddingMatters() throws {
        let client = SRPClient(
            username: "Pair-Setup",
            password: PairingFixtures.setupCode,
            group: .hap3072,
            hash: .sha512,
            privateKey: Self.privateKey
        )
        let full = (1...384).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(!(try client.respond(salt: PairingFixtures.salt, serverPublicKey: full)).paddingMatters)
        let short = (1..<384).map { UInt8(truncatingIfNeeded: $0) }
        #expect(try client.respond(salt: PairingFixtures.salt, serverPublicKey: short).paddingMatters)
    }
}
