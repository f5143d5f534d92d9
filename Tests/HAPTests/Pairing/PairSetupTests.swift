import Crypto
import HAP
import Testing

@Suite struct PairSetupTests {
    @Test func pairsTheControllerAndAccessoryMachinesEndToEnd() throws {
        let accessoryIdentity = PairingFixtures.accessoryIdentity()
        let controllerIdentity = PairingFixtures.controllerIdentity()
        var accessory = PairSetupAccessory(
            identity: accessoryIdentity,
            verifier: PairingFixtures.verifier(),
            conditions: PairingFixtures.freshConditions
        )
        var controller = PairSetupController(setupCode: PairingFixtures.setupCode, identity: controllerIdentity)
        let run = PairingFixtures.runPairSetup(accessory: &accessory, controller: &controller)

        let record = try #require(try run.controllerResult?.get())
        #expect(record.deviceID == accessoryIdentity.deviceID)
        #expect(record.publicKey == accessoryIdentity.publicKey)
        #expect(
            run.accessoryEvents == [.started, .correctSetupCode, .paired(controllerIdentity.pairing(isAdmin: true))]
        )
        #expect(accessory.isFinished)
    }

    @Test func refusesAWrongSetupCodeWithAuthenticationAndCountsTheFailure() {
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(),
            conditions: PairingFixtures.freshConditions
        )
        var controller = PairSetupController(setupCode: "111-22-333", identity: PairingFixtures.controllerIdentity())
        let run = PairingFixtures.runPairSetup(accessory: &accessory, controller: &controller)
        #expect(run.controllerResult == .failure(.accessoryRefused(.authentication, state: 4)))
        #expect(run.accessoryEvents == [.started, .wrongSetupCode, .failed(.authentication)])
    }

    @Test("the failure count survives a restart and the 101st attempt gets MaxTries")
    func refusesWithMaxTriesOnceOneHundredAttemptsFailed() {
        // The server persists the count the machine reports; a new machine after a restart starts from it.
        var persistedFailures = 98
        for _ in 0..<2 {
            var accessory = PairSetupAccessory(
                identity: PairingFixtures.accessoryIdentity(),
                verifier: PairingFixtures.verifier(),
                conditions: .init(
                    isPaired: false,
                    failedAttempts: persistedFailures,
                    isAnotherPairSetupInProgress: false
                )
            )
            var controller = PairSetupController(
                setupCode: "111-22-333",
                identity: PairingFixtures.controllerIdentity()
            )
            let run = PairingFixtures.runPairSetup(accessory: &accessory, controller: &controller)
            persistedFailures += run.accessoryEvents.filter { $0 == .wrongSetupCode }.count
        }
        #expect(persistedFailures == 100)
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(),
            conditions: .init(isPaired: false, failedAttempts: persistedFailures, isAnotherPairSetupInProgress: false)
        )
        var controller = PairSetupController(
            setupCode: PairingFixtures.setupCode,
            identity: PairingFixtures.controllerIdentity()
        )
        let run = PairingFixtures.runPairSetup(accessory: &accessory, controller: &controller)
        #expect(run.controllerResult == .failure(.accessoryRefused(.maxTries, state: 2)))
        #expect(run.accessoryEvents.isEmpty)
    }

    @Test func answersBusyWhileAnotherPairSetupIsRunning() {
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(),
            conditions: .init(isPaired: false, failedAttempts: 0, isAnotherPairSetupInProgress: true)
        )
        var controller = PairSetupController(
            setupCode: PairingFixtures.setupCode,
            identity: PairingFixtures.controllerIdentity()
        )
        let run = PairingFixtures.runPairSetup(accessory: &accessory, controller: &controller)
        #expect(run.controllerResult == .failure(.accessoryRefused(.busy, state: 2)))
        #expect(run.accessoryEvents.isEmpty, "a refused attempt must not release the other connection's slot")
    }

    @Test func answersUnavailableWhenAlreadyPaired() {
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(),
            conditions: .init(isPaired: true, failedAttempts: 0, isAnotherPairSetupInProgress: false)
        )
        let step = accessory.receive(PairSetupController.startRequestForTests())
        #expect(step.reply == Self.error(.unavailable, state: 2))
    }

    @Test func acceptsMethodOneAsPlainPairSetup() {
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(),
            conditions: PairingFixtures.freshConditions
        )
        var m1 = TLV8()
        m1.append(.state, byte: 1)
        m1.append(.method, byte: 1)
        let step = accessory.receive(m1)
        #expect(step.reply[.state] == [2])
        #expect(step.reply[.publicKey]?.count == 384)
        #expect(step.reply[.salt] == PairingFixtures.salt)
        #expect(step.events == [.started])
    }

    @Test(arguments: [0, 1])
    func refusesAnSRPPublicKeyThatIsZeroModuloN(multiple: Int) {
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(),
            conditions: PairingFixtures.freshConditions
        )
        _ = accessory.receive(PairSetupController.startRequestForTests())
        var m3 = TLV8()
        m3.append(.state, byte: 3)
        m3.append(.publicKey, multiple == 0 ? [UInt8](repeating: 0, count: 384) : SRPGroup.hap3072.modulus)
        m3.append(.proof, [UInt8](repeating: 0, count: 64))
        let step = accessory.receive(m3)
        #expect(step.reply == Self.error(.authentication, state: 4))
        #expect(step.events == [.failed(.authentication)])
    }

    @Test func refusesAMessageOutOfOrder() {
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(),
            conditions: PairingFixtures.freshConditions
        )
        var m3 = TLV8()
        m3.append(.state, byte: 3)
        #expect(accessory.receive(m3).reply == Self.error(.unknown, state: 2))
    }

    @Test func refusesAnM5WhoseSignatureDoesNotVerify() throws {
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(),
            conditions: PairingFixtures.freshConditions
        )
        var controller = PairSetupController(
            setupCode: PairingFixtures.setupCode,
            identity: PairingFixtures.controllerIdentity()
        )
        let m2 = accessory.receive(controller.start()).reply
        guard case .send(let m3) = try controller.receive(m2) else { throw PairingFailure.procedureFinished }
        let m4 = accessory.receive(m3).reply
        guard case .send(var m5) = try controller.receive(m4) else { throw PairingFailure.procedureFinished }
        // Flip one ciphertext bit: the tag no longer verifies.
        var sealed = try #require(m5[.encryptedData])
        sealed[3] ^= 0x01
        m5 = TLV8([.init(.state, [5]), .init(.encryptedData, sealed)])
        let step = accessory.receive(m5)
        #expect(step.reply == Self.error(.authentication, state: 6))
        #expect(step.events == [.failed(.authentication)])
    }

    @Test func controllerRejectsAnAccessoryThatDoesNotKnowTheCode() throws {
        // The accessory holds the verifier of another code, so its M4 proof cannot match.
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(code: "222-33-444"),
            conditions: PairingFixtures.freshConditions
        )
        var controller = PairSetupController(
            setupCode: PairingFixtures.setupCode,
            identity: PairingFixtures.controllerIdentity()
        )
        let m2 = accessory.receive(controller.start()).reply
        guard case .send(let m3) = try controller.receive(m2) else { throw PairingFailure.procedureFinished }
        var m4 = TLV8()
        m4.append(.state, byte: 4)
        m4.append(.proof, [UInt8](repeating: 0xAB, count: 64))
        _ = m3
        #expect(throws: PairingFailure.invalidAccessoryProof) { try controller.receive(m4) }
    }

    @Test func controllerReportsTheAccessorysErrorItem() {
        var controller = PairSetupController(
            setupCode: PairingFixtures.setupCode,
            identity: PairingFixtures.controllerIdentity()
        )
        #expect(throws: PairingFailure.accessoryRefused(.unavailable, state: 2)) {
            try controller.receive(Self.error(.unavailable, state: 2))
        }
        #expect(throws: PairingFailure.procedureFinished) { try controller.receive(Self.error(.busy, state: 2)) }
    }

    static func error(_ error: PairingError, state: UInt8) -> TLV8 {
        TLV8([.init(.state, [state]), .init(.error, [error.tlvErrorCode])])
    }
}

extension PairSetupController {
    static func startRequestForTests() -> TLV8 {
        TLV8([.init(.state, [1]), .init(.method, [0])])
    }
}

@Suite struct TransientPairSetupTests {
    static func run(supportsTransient: Bool) throws -> (PairSetupAccessory.Step, PairSetupController.Step) {
        var accessory = PairSetupAccessory(
            identity: PairingFixtures.accessoryIdentity(),
            verifier: PairingFixtures.verifier(),
            conditions: .init(
                isPaired: false,
                failedAttempts: 0,
                isAnotherPairSetupInProgress: false,
                supportsTransientPairing: supportsTransient
            )
        )
        var controller = PairSetupController(
            setupCode: PairingFixtures.setupCode,
            identity: PairingFixtures.controllerIdentity(),
            isTransient: true
        )
        let m1 = controller.start()
        #expect(try m1.integer(.flags) == PairSetupAccessory.transientFlag)
        guard case .send(let m3) = try controller.receive(accessory.receive(m1).reply) else {
            throw PairingFailure.procedureFinished
        }
        let m4 = accessory.receive(m3)
        return (m4, try controller.receive(m4.reply))
    }

    @Test func endsAtM4WithMatchingSessionKeysAndNoPairing() throws {
        let (accessoryStep, controllerStep) = try Self.run(supportsTransient: true)
        #expect(accessoryStep.events == [.correctSetupCode, .transientSessionEstablished])
        guard case .transient(let controllerKeys) = controllerStep,
            let accessoryKeys = accessoryStep.transientSessionKeys
        else {
            Issue.record("expected a transient session on both sides")
            return
        }
        var accessoryCipher = SessionCipher(keys: accessoryKeys, role: .accessory)
        var controllerCipher = SessionCipher(keys: controllerKeys, role: .controller)
        let request = Array("GET /accessories HTTP/1.1\r\n\r\n".utf8)
        #expect(try accessoryCipher.open(controllerCipher.seal(request)) == request)
    }

    @Test func anAccessoryWithoutTransientSupportRunsAFullPairSetup() throws {
        let (accessoryStep, controllerStep) = try Self.run(supportsTransient: false)
        #expect(accessoryStep.events == [.correctSetupCode])
        #expect(accessoryStep.transientSessionKeys == nil)
        // The controller asked for transient and got a normal M4: it ends its side at M4 anyway.
        if case .transient = controllerStep {} else { Issue.record("controller should finish at M4") }
    }
}
