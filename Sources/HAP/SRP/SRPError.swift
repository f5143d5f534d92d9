/// Why an SRP-6a step failed.
public enum SRPError: Error, Equatable, Sendable {
    /// The peer's public key is longer than the group's modulus, at least the modulus, or zero modulo it.
    case invalidPublicKey
    /// The peer's proof does not match: a wrong password (setup code) or a peer that does not know the verifier.
    case authenticationFailed
    /// A stored verifier is longer than the modulus, at least the modulus, or zero modulo it.
    case invalidVerifier

    /// The byte sent in the pair-setup Error item: Authentication (0x02) for all of them.
    ///
    /// hap-protocol.md §2.4: a wrong setup code is reported as Authentication at M4.
    public var tlvErrorCode: UInt8 {
        switch self {
        case .invalidPublicKey, .authenticationFailed, .invalidVerifier: 2
        }
    }
}
