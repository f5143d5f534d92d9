/// A HAP status code as sent in the JSON `"status"` field of `/characteristics` and `/prepare` answers.
///
/// hap-protocol.md §7.3: 0 is success, the rest are negative codes from -70401 to -70412.
public enum HAPStatus: Int, Codable, Sendable, Error, CaseIterable {
    /// The operation succeeded.
    case success = 0
    /// The controller lacks the privileges (for example a non-admin on an admin-only characteristic).
    case insufficientPrivileges = -70401
    /// The accessory could not perform the operation or could not reach the device behind it.
    case serviceCommunicationFailure = -70402
    /// The resource is busy; the controller may try again.
    case resourceBusy = -70403
    /// A write to a read-only characteristic.
    case readOnlyCharacteristic = -70404
    /// A read of a write-only characteristic.
    case writeOnlyCharacteristic = -70405
    /// The characteristic does not support notifications.
    case notificationNotSupported = -70406
    /// The accessory is out of resources.
    case outOfResources = -70407
    /// The operation timed out (PY, NODE; absent from ADK, hap-protocol.md §14 item 4).
    case operationTimedOut = -70408
    /// The aid/iid does not exist.
    case resourceDoesNotExist = -70409
    /// The value in a write is invalid: wrong type, out of range, off step, or a timed-write violation.
    case invalidValueInRequest = -70410
    /// Missing or invalid `authData` for a characteristic with additional authorization.
    case insufficientAuthorization = -70411
    /// The operation is not allowed in the current state (NODE only, hap-protocol.md §14 item 4).
    case notAllowedInCurrentState = -70412

    /// Reads a status code sent by a peer, also accepting the positive form some devices send (70402 for -70402).
    ///
    /// Positive codes are normalised as aiohomekit's `statuscodes.py` does; unknown codes give `nil`.
    public init?(code: Int) {
        if let status = HAPStatus(rawValue: code) {
            self = status
        } else if code > 0, let status = HAPStatus(rawValue: -code) {
            self = status
        } else {
            return nil
        }
    }

    /// Whether this status reports success.
    public var isSuccess: Bool { self == .success }
}

extension HAPStatus: CustomStringConvertible {
    /// A sentence for people, without the numeric code.
    public var description: String {
        switch self {
        case .success: "the operation succeeded"
        case .insufficientPrivileges: "the controller lacks the privileges for this"
        case .serviceCommunicationFailure: "the accessory could not reach the device behind it"
        case .resourceBusy: "the accessory is busy; try again"
        case .readOnlyCharacteristic: "the characteristic is read-only"
        case .writeOnlyCharacteristic: "the characteristic is write-only"
        case .notificationNotSupported: "the characteristic does not send notifications"
        case .outOfResources: "the accessory is out of resources"
        case .operationTimedOut: "the operation timed out"
        case .resourceDoesNotExist: "the characteristic does not exist"
        case .invalidValueInRequest: "the value is not valid for the characteristic"
        case .insufficientAuthorization: "the authorization data is missing or not valid"
        case .notAllowedInCurrentState: "the operation is not allowed in the accessory's current state"
        }
    }
}
