import HAP
import HAPTypes

/// Why a controller operation failed; lower-layer errors are kept as typed cases, never flattened to text.
public enum HAPControllerError: Error, Equatable, Sendable {
    /// Pair-setup was refused with Authentication at M4: the setup code is wrong (tried a second time with fresh
    /// keys only when SRP padding could explain the refusal, hap-protocol.md §3.2).
    case wrongSetupCode
    /// Pair-setup answered Unavailable: another controller owns the accessory.
    case alreadyPaired
    /// The accessory refused a pairing step or a `/pairings` request with this TLV8 error.
    case pairingRefused(PairingError)
    /// A pairing procedure failed on our side: a bad proof, signature or message.
    case pairingFailed(PairingFailure)
    /// Pair-verify failed: the accessory no longer knows us, or is not the device we paired with.
    case verificationFailed(PairingFailure)
    /// No TCP connection could be made within the connect timeout.
    case unreachable(host: String, port: Int)
    /// The accessory did not answer a request within the request timeout; the connection was reset.
    case timedOut
    /// The accessory closed the connection before the answer was complete.
    case connectionClosed
    /// The accessory sent bytes that are not HTTP.
    case malformedResponse(HTTPParseError)
    /// A session frame failed to decrypt; the connection was closed.
    case sessionFailed(SessionCipherError)
    /// A body that is not the JSON or TLV8 the request expects.
    case malformedBody
    /// An HTTP status other than the ones the request expects, with the HAP status of its body if any.
    case unexpectedHTTPStatus(code: Int, status: HAPStatus?)
    /// The accessory answered with this HAP status for the whole request (`/prepare`, for example).
    case accessoryRefused(HAPStatus)
    /// An event named a characteristic that is not in the accessory database.
    case unknownCharacteristic(CharacteristicID)
    /// The accessory database has no such characteristic (for example no Identify characteristic).
    case characteristicNotFound(CharacteristicID?)
    /// The client was closed; make a new one.
    case closed
    /// The pairing store could not be read or written.
    case store(ControllerStoreError)
}

extension HAPControllerError: CustomStringConvertible {
    /// One sentence for people: what happened and what to do.
    public var description: String {
        switch self {
        case .wrongSetupCode:
            "wrong setup code. Check the code on the accessory and try again"
        case .alreadyPaired:
            "the accessory is paired with another controller. Remove that pairing or reset the accessory"
        case .pairingRefused(let error):
            "the accessory refused: \(error)"
        case .pairingFailed(let failure):
            "pairing failed: \(failure). Try again; reset the accessory if it keeps failing"
        case .verificationFailed(let failure):
            "the accessory did not accept this controller: \(failure). Pair it again"
        case .unreachable(let host, let port):
            "accessory unreachable at \(host):\(port). Check that it is powered and on the network"
        case .timedOut:
            "timed out waiting for the accessory. Try again later"
        case .connectionClosed:
            "the accessory closed the connection. Try again"
        case .malformedResponse(let error):
            "the accessory sent an invalid HTTP message: \(error). Try again"
        case .sessionFailed(let error):
            "the encrypted session failed: \(error). Try again"
        case .malformedBody:
            "the accessory sent a body that could not be read"
        case .unexpectedHTTPStatus(let code, let status):
            "the accessory answered HTTP \(code)" + (status.map { ": \($0)" } ?? "")
        case .accessoryRefused(let status):
            "the accessory refused: \(status)"
        case .unknownCharacteristic(let id):
            "the accessory sent an event for characteristic \(id), which is not in its database"
        case .characteristicNotFound(let id):
            "no such characteristic" + (id.map { " \($0)" } ?? "") + ". List the accessories to see the ids"
        case .closed:
            "the accessory client was closed"
        case .store(let error):
            "the pairing store failed: \(error)"
        }
    }
}

extension HAPControllerError {
    /// The exit code of a command that failed with this error (style.md §3): 5 unreachable or timed out, 3 not
    /// found, 1 otherwise.
    public var exitCode: Int32 {
        switch self {
        case .unreachable, .timedOut: 5
        case .characteristicNotFound: 3
        case .wrongSetupCode, .alreadyPaired, .pairingRefused, .pairingFailed, .verificationFailed,
            .connectionClosed, .malformedResponse, .sessionFailed, .malformedBody, .unexpectedHTTPStatus,
            .accessoryRefused, .unknownCharacteristic, .closed, .store:
            1
        }
    }

    /// Maps a pair-setup failure: Authentication at M4 is a wrong code, Unavailable at M2 another controller.
    static func pairSetup(_ failure: PairingFailure) -> HAPControllerError {
        switch failure {
        case .accessoryRefused(.authentication, state: 4): .wrongSetupCode
        case .accessoryRefused(.unavailable, _): .alreadyPaired
        case .accessoryRefused(let error, _): .pairingRefused(error)
        default: .pairingFailed(failure)
        }
    }
}
