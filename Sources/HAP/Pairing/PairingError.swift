/// Why a pairing step failed on the accessory; the controller sees it as the TLV8 Error item (0x07).
///
/// hap-protocol.md §2.4 lists the codes.
public enum PairingError: Error, Equatable, Sendable {
    /// An unexpected failure, a malformed request, or Add Pairing with a known identifier and another key.
    case unknown
    /// A wrong setup code, proof or signature, an unknown controller, or a non-admin using `/pairings`.
    case authentication
    /// Obsolete since R3; only ever received from old accessories.
    case backoff
    /// No room for another pairing.
    case maxPeers
    /// Too many failed setup-code attempts; only a factory reset clears it.
    case maxTries
    /// The accessory is already paired; new controllers are added through Add Pairing.
    case unavailable
    /// Another controller's pair-setup is in progress.
    case busy

    /// The byte sent in the Error item.
    public var tlvErrorCode: UInt8 {
        switch self {
        case .unknown: 1
        case .authentication: 2
        case .backoff: 3
        case .maxPeers: 4
        case .maxTries: 5
        case .unavailable: 6
        case .busy: 7
        }
    }

    /// The error an Error item's byte stands for; codes outside the table read as ``unknown``.
    public init(tlvErrorCode: UInt8) {
        switch tlvErrorCode {
        case 2: self = .authentication
        case 3: self = .backoff
        case 4: self = .maxPeers
        case 5: self = .maxTries
        case 6: self = .unavailable
        case 7: self = .busy
        default: self = .unknown
        }
    }
}

/// Why a pairing procedure failed on the controller side: the accessory refused, or its answer cannot be trusted.
public enum PairingFailure: Error, Equatable, Sendable {
    /// The accessory answered with an Error item at the given state.
    case accessoryRefused(PairingError, state: UInt8)
    /// The accessory's answer was not a well-formed TLV8 message.
    case malformedResponse(TLV8Error)
    /// The answer carried a State other than the one expected next.
    case unexpectedState(expected: UInt8, received: UInt8)
    /// The accessory's SRP proof (M4) did not match: it does not know the setup code.
    case invalidAccessoryProof
    /// An encrypted sub-TLV could not be opened.
    case decryptionFailed
    /// The accessory's Ed25519 signature did not verify.
    case invalidSignature
    /// The accessory identified itself as another device than the one paired.
    case unexpectedAccessory
    /// The procedure was fed a message after it had finished or failed.
    case procedureFinished
}

extension PairingError: CustomStringConvertible {
    /// A sentence for people.
    public var description: String {
        switch self {
        case .unknown: "the pairing request failed"
        case .authentication: "authentication failed (wrong setup code, or an unknown controller)"
        case .backoff: "the accessory asks to wait before retrying"
        case .maxPeers: "the accessory has no room for another pairing"
        case .maxTries: "the accessory refuses pairing after too many wrong setup codes; reset it"
        case .unavailable: "the accessory is already paired with another controller"
        case .busy: "the accessory is pairing with another controller; try again shortly"
        }
    }
}

extension PairingFailure: CustomStringConvertible {
    /// A sentence for people, without any key, proof or setup code.
    public var description: String {
        switch self {
        case .accessoryRefused(let error, let state): "the accessory refused at step M\(state): \(error)"
        case .malformedResponse(let error): "the accessory's answer could not be read (\(error))"
        case .unexpectedState(let expected, let received):
            "the accessory answered with step M\(received) where M\(expected) was expected"
        case .invalidAccessoryProof: "the accessory's proof did not match, so it does not know the setup code"
        case .decryptionFailed: "the accessory's encrypted answer did not open"
        case .invalidSignature: "the accessory's signature did not verify"
        case .unexpectedAccessory: "the accessory identified itself as another device than the one paired"
        case .procedureFinished: "the pairing step came after the procedure had ended"
        }
    }
}
