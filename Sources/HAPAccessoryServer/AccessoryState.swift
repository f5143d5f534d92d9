import HAP

/// What an accessory must remember across restarts: identity, pairings, failed attempts, configuration number.
public struct AccessoryState: Sendable, Equatable, Codable {
    /// The device ID (`XX:XX:XX:XX:XX:XX`), stable while paired.
    public var deviceID: String
    /// The Ed25519 long-term private key, raw 32 bytes; a secret: files holding it are mode 0600.
    public var signingKey: [UInt8]
    /// The controllers paired with this accessory.
    public var pairings: PairingTable
    /// Failed setup-code attempts (hap-protocol.md §12.2); pair-setup answers MaxTries from 100 on.
    public var failedAttempts: Int
    /// `c#`, 1–65535, bumped when the accessory database changes.
    public var configurationNumber: Int
    /// The setup ID used for the setup hash and payload, stable so `sh` does not change across restarts.
    public var setupID: String
    /// The SRP salt of the current setup code.
    public var salt: [UInt8]
    /// The SRP verifier (PAD(v)) of the current setup code; the code itself need not be kept by the server.
    public var verifier: [UInt8]

    /// Makes a state record.
    public init(
        deviceID: String,
        signingKey: [UInt8],
        pairings: PairingTable,
        failedAttempts: Int,
        configurationNumber: Int,
        setupID: String,
        salt: [UInt8],
        verifier: [UInt8]
    ) {
        self.deviceID = deviceID
        self.signingKey = signingKey
        self.pairings = pairings
        self.failedAttempts = failedAttempts
        self.configurationNumber = configurationNumber
        self.setupID = setupID
        self.salt = salt
        self.verifier = verifier
    }
}

/// Where an accessory server keeps its ``AccessoryState``; every save is durable before it returns.
public protocol AccessoryStateStore: Sendable {
    /// The saved state, or `nil` when none was saved yet.
    func load() async throws -> AccessoryState?
    /// Saves the state atomically and durably (write, fsync, rename), readable only by its owner.
    func save(_ state: AccessoryState) async throws
}
