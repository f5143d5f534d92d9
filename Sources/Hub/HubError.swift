import Foundation
import HAPController
import HomeGraph
import HomeStore

/// Why the hub refused or could not carry out a request; the home is then unchanged.
public enum HubError: Error, Equatable, Sendable {
    /// The graph refused the operation (unknown id, name clash, value out of range, …).
    case rejected(HomeGraphError)
    /// Write `index` of `count` asked for a value the graph refuses; nothing of the request was sent.
    case invalidWrite(index: Int, count: Int, HomeGraphError)
    /// The caller's role in the home does not allow this; the message says what it needs.
    case notPermitted(String)
    /// The caller is not a user of the home; reported as not found so homes of others stay invisible.
    case homeNotFound(UUID)
    /// The home could not be written or read from disk.
    case storage(HomeStoreError)
    /// The accessory refused or failed the request (HAP status, timeout, unreachable).
    case accessory(HAPControllerError)
    /// No accessory with this device id is known nearby or paired.
    case accessoryNotFound(String)
    /// The hub is shutting down or has stopped.
    case stopped
    /// The request cannot be carried out as asked; the message says why.
    case invalidRequest(String)
    /// Something the hub needs is broken (an unreadable resource); the message says what.
    case internalError(String)
    /// The request clashes with what the hub already has (a home imported twice); the message says what.
    case conflict(String)

    /// The stable API error code (docs/style.md §4).
    public var code: String {
        switch self {
        case .rejected(let error), .invalidWrite(_, _, let error): error.code
        case .notPermitted: "notPermitted"
        case .homeNotFound: "notFound"
        case .storage(let error): error.code
        case .accessory: "accessoryError"
        case .accessoryNotFound: "notFound"
        case .stopped: "stopped"
        case .invalidRequest: "invalidRequest"
        case .internalError: "internalError"
        case .conflict: "conflict"
        }
    }

    /// The HTTP status the API answers with.
    public var httpStatus: Int {
        switch self {
        case .rejected(let error), .invalidWrite(_, _, let error): error.httpStatus
        case .notPermitted: 403
        case .homeNotFound, .accessoryNotFound: 404
        case .storage: 500
        case .accessory: 502
        case .stopped: 503
        case .invalidRequest: 400
        case .internalError: 500
        case .conflict: 409
        }
    }

    /// Wraps a store error.
    init(_ error: HomeStoreError) {
        self = .storage(error)
    }
}
