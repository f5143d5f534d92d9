import HAPArithmetic

/// What the accessory keeps for one setup code: the salt and v = g^x, with x from the username and password.
///
/// Computing it costs a few milliseconds, so an accessory computes it once per setup code and reuses it for
/// every pair-setup. A reused verifier also holds a fixed-base table of powers of v (768 KiB for 3072 bits) that
/// makes each pair-setup faster; a one-time code's verifier (``Usage/once``) does not, since building the table
/// costs more than the one power it would save. The description never shows v.
public final class SRPVerifier: Sendable {
    /// The username I; "Pair-Setup" in HAP.
    public let username: String
    /// The salt s sent to the controller in pair-setup M2.
    public let salt: [UInt8]
    /// The group v was computed in.
    public let group: SRPGroup
    /// The hash x was computed with.
    public let hash: SRPHash
    /// v, below N.
    let value: BigUInt
    /// Powers of v for exponents up to the hash length (the u of each exchange), for a reused verifier.
    let powers: FixedBasePowers?

    /// How often a verifier serves a pair-setup.
    public enum Usage: Sendable {
        /// Many times (an accessory's setup code): worth a table of powers of v.
        case reused
        /// Once (a one-time pairing code): v^u is computed directly.
        case once
    }

    /// Computes the verifier for `password` (the setup code with dashes in HAP).
    public convenience init(
        username: String,
        password: String,
        salt: [UInt8],
        group: SRPGroup,
        hash: SRPHash,
        usage: Usage = .reused
    ) {
        let passwordKey = SRPFormulas.passwordKey(username: username, password: password, salt: salt, hash: hash)
        let value = group.generatorPowers.power(exponent: passwordKey)
        self.init(username: username, salt: salt, value: value, group: group, hash: hash, usage: usage)
    }

    /// Restores a verifier from `rawRepresentation`, or throws `invalidVerifier` when v is not in the group.
    public convenience init(
        username: String,
        salt: [UInt8],
        rawRepresentation: [UInt8],
        group: SRPGroup,
        hash: SRPHash,
        usage: Usage = .reused
    ) throws(SRPError) {
        guard let value = try? group.publicKeyValue(rawRepresentation) else { throw .invalidVerifier }
        self.init(username: username, salt: salt, value: value, group: group, hash: hash, usage: usage)
    }

    private init(username: String, salt: [UInt8], value: BigUInt, group: SRPGroup, hash: SRPHash, usage: Usage) {
        self.username = username
        self.salt = salt
        self.group = group
        self.hash = hash
        self.value = value
        self.powers =
            switch usage {
            case .reused:
                FixedBasePowers(base: value, context: group.context, maximumExponentBitCount: hash.byteCount * 8)
            case .once: nil
            }
    }

    /// v^`exponent` mod N: from the table when there is one, else directly.
    func power(exponent: BigUInt) -> BigUInt {
        powers?.power(exponent: exponent) ?? group.secretPower(value, exponent: exponent)
    }

    /// Whether the verifier holds the table of powers of v (``Usage/reused``).
    public var hasPowerTable: Bool { powers != nil }

    /// v as PAD(v), for storage; as secret as the setup code, since it allows guessing it offline.
    public var rawRepresentation: [UInt8] { group.padded(value) }
}

extension SRPVerifier: CustomStringConvertible {
    /// Names the username and salt length, never v.
    public var description: String {
        "SRPVerifier(username: \(username), salt: \(salt.count) bytes, verifier: redacted)"
    }
}

extension SRPVerifier: CustomReflectable {
    /// Shows the username and salt to `dump` and debuggers, never v.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "salt": salt], displayStyle: .class)
    }
}
