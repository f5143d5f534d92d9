import Crypto
import HAP
import HAPTypes

extension AccessoryServer {
    /// hap-protocol.md §3.1: the SRP salt is 16 random bytes.
    static let saltByteCount = 16

    /// Loads the saved state, or creates it on first start; a changed setup code while unpaired gets a new verifier.
    func loadState() async throws {
        var loaded: AccessoryState
        if let saved = try await store.load() {
            loaded = saved
            if let setupCode = configuration.setupCode, !loaded.pairings.isPaired {
                let candidate = SRPVerifier.pairSetup(setupCode: setupCode.formatted, salt: loaded.salt)
                if candidate.rawRepresentation != loaded.verifier {
                    logger.info("The setup code changed; making a new SRP verifier")
                    let salt = Self.randomSalt()
                    let fresh = SRPVerifier.pairSetup(setupCode: setupCode.formatted, salt: salt)
                    loaded.salt = salt
                    loaded.verifier = fresh.rawRepresentation
                    verifier = fresh
                    state = loaded
                    try await store.save(loaded)
                }
            }
        } else {
            guard let setupCode = configuration.setupCode else { throw AccessoryServerError.setupCodeRequired }
            let salt = Self.randomSalt()
            let fresh = SRPVerifier.pairSetup(setupCode: setupCode.formatted, salt: salt)
            loaded = AccessoryState(
                deviceID: DeviceID.random().description,
                signingKey: Array(Curve25519.Signing.PrivateKey().rawRepresentation),
                pairings: PairingTable(),
                failedAttempts: 0,
                configurationNumber: 1,
                setupID: SetupID.random().rawValue,
                salt: salt,
                verifier: fresh.rawRepresentation
            )
            verifier = fresh
            try await store.save(loaded)
            logger.info("Created a new accessory identity", metadata: ["deviceID": "\(loaded.deviceID)"])
        }
        guard let signingKey = try? Curve25519.Signing.PrivateKey(rawRepresentation: loaded.signingKey),
            (try? DeviceID(loaded.deviceID)) != nil
        else {
            throw AccessoryServerError.invalidStoredState
        }
        if verifier == nil {
            do {
                verifier = try SRPVerifier(
                    username: PairSetupAccessory.username,
                    salt: loaded.salt,
                    rawRepresentation: loaded.verifier,
                    group: .hap3072,
                    hash: .sha512
                )
            } catch {
                throw AccessoryServerError.invalidStoredState
            }
        }
        state = loaded
        identity = AccessoryIdentity(deviceID: loaded.deviceID, signingKey: signingKey)
        // A paired accessory refuses pair-setup: the verifier was only checked; pairSetupVerifier() remakes it.
        if loaded.pairings.isPaired { verifier = nil }
    }

    /// The SRP verifier for pair-setup, made again from the saved salt and v when it was dropped.
    ///
    /// It holds a 768 KiB table of powers of v, so it is kept only while unpaired (pair-setup then runs); paired,
    /// it is dropped, and a pair-setup attempt after the last pairing is removed remakes it. While paired, an
    /// attempt is refused at M1 without any SRP: its verifier has no table, so an unpaired stranger's requests
    /// cost the accessory no table of powers each (about 8 ms of CPU and 768 KiB).
    func pairSetupVerifier() -> SRPVerifier? {
        if let verifier { return verifier }
        let remade = try? SRPVerifier(
            username: PairSetupAccessory.username,
            salt: state.salt,
            rawRepresentation: state.verifier,
            group: .hap3072,
            hash: .sha512,
            usage: state.pairings.isPaired ? .once : .reused
        )
        if !state.pairings.isPaired { verifier = remade }
        return remade
    }

    private static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<saltByteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
