import Foundation
import HearthAPI

/// An error of the hub's API as HearthKit reports it: the API's code and message and the HTTP status.
///
/// Calls the hub refused carry its status (`403`, `404`, `409`, …) and code (`notPermitted`, `notFound`,
/// `nameTaken`, …). A hub that could not be reached has status 0 and code `unreachable`; an answer that could not
/// be read has code `malformedResponse`. Messages never contain the token.
public struct HearthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status of the answer, or 0 when there was none.
    public var status: Int
    /// The stable, machine-readable code (`notFound`, `nameTaken`, `notPermitted`, `unreachable`, …).
    public var code: String
    /// A sentence for people that names what was wrong.
    public var message: String

    /// Makes an error.
    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// `401 unauthorized`: the token is missing, unknown or revoked.
    public var isUnauthorized: Bool { status == 401 }
    /// `403 notPermitted`: the caller's role does not allow this (shared users never configure).
    public var isNotPermitted: Bool { status == 403 }
    /// `404 notFound`: no such object, or a home the caller does not belong to.
    public var isNotFound: Bool { status == 404 }
    /// `409`: a name clash or another conflict.
    public var isConflict: Bool { status == 409 }
    /// The hub could not be reached (no answer at all).
    public var isUnreachable: Bool { code == "unreachable" }

    /// The hub could not be reached at `url`.
    static func unreachable(_ url: String, _ reason: String) -> HearthError {
        HearthError(status: 0, code: "unreachable", message: "cannot reach the hub at \(url): \(reason)")
    }

    /// The hub answered something HearthKit could not read.
    static func malformedResponse(status: Int, _ what: String) -> HearthError {
        HearthError(status: status, code: "malformedResponse", message: "the hub's answer could not be read: \(what)")
    }

    /// An argument was not usable before anything was sent.
    static func invalidRequest(_ message: String) -> HearthError {
        HearthError(status: 0, code: "invalidRequest", message: message)
    }

    /// The message, the code and the status.
    public var description: String {
        status == 0 ? "\(message) (\(code))" : "\(message) (\(code), HTTP \(status))"
    }
}

extension ErrorBody.Detail {
    /// The error with this code and message and the answer's status.
    func hearthError(status: Int) -> HearthError {
        HearthError(status: status, code: code, message: message)
    }
}
