import Foundation
import HomeGraph

// How an endpoint of the API is described; the endpoints themselves are in Endpoints.swift.

/// An HTTP method the API uses.
public enum APIMethod: String, Sendable, CaseIterable {
    /// Reads.
    case GET
    /// Additions and actions.
    case POST
    /// Replacements.
    case PUT
    /// Partial changes.
    case PATCH
    /// Removals.
    case DELETE
}

/// An endpoint's method and path template: `GET /v1/homes/{homeID}`.
public struct APIRoute: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP method.
    public var method: APIMethod
    /// The path template, each parameter in braces.
    public var path: String

    /// `GET path`.
    public static func get(_ path: String) -> APIRoute { APIRoute(method: .GET, path: path) }
    /// `POST path`.
    public static func post(_ path: String) -> APIRoute { APIRoute(method: .POST, path: path) }
    /// `PUT path`.
    public static func put(_ path: String) -> APIRoute { APIRoute(method: .PUT, path: path) }
    /// `PATCH path`.
    public static func patch(_ path: String) -> APIRoute { APIRoute(method: .PATCH, path: path) }
    /// `DELETE path`.
    public static func delete(_ path: String) -> APIRoute { APIRoute(method: .DELETE, path: path) }

    /// `METHOD path`, as logs and docs write a route.
    public var description: String { "\(method.rawValue) \(path)" }
}

/// Who may call an endpoint; the hub checks the home-level rights when the call reaches it.
public enum EndpointAccess: Sendable, CaseIterable {
    /// Anyone, with or without a token (a token, when sent, must be valid); the body carries the credential.
    case noToken
    /// Any signed-in user: the account's own things, and reading the homes they belong to.
    case signedIn
    /// Every user of the home, shared users included: reading and controlling accessories.
    case control
    /// The owner and administrators of the home.
    case configure
    /// Only the home's owner.
    case owner

    /// The sentence docs/api/openapi.yaml gives as the operation's description ("Who may: …").
    public var whoMay: String {
        switch self {
        case .noToken:
            "No token needed: the body carries the credential (an invite code, or the token to sign in with)."
        case .signedIn: "Any user of the home (or any account)."
        case .control: "Every user of the home, shared users included."
        case .configure: "Owner or administrator; a shared user gets 403 notPermitted."
        case .owner: "Only the home's owner; others get 403 notPermitted."
        }
    }
}

/// What every endpoint says about itself, whatever its body and answer types.
public protocol APIEndpoint: Sendable {
    /// The method and path template.
    var route: APIRoute { get }
    /// Who may call it.
    var access: EndpointAccess { get }
    /// The HTTP status of a successful answer (201 for additions, 204 with no body, 101 for the WebSocket).
    var status: Int { get }
    /// One line that says what it does.
    var summary: String { get }
    /// The request body's type (`NoBody` when it takes none).
    var bodyType: any Codable.Type { get }
    /// The successful answer's type (`NoContent` when it has no body).
    var answerType: any Codable.Type { get }
}

extension APIEndpoint {
    /// The HTTP method.
    public var method: APIMethod { route.method }
    /// The path template, each parameter in braces: `/v1/homes/{homeID}/rooms/{roomID}`.
    public var path: String { route.path }

    /// The names of the path's parameters, in order: `["homeID", "roomID"]`.
    public var parameters: [String] {
        path.split(separator: "/").compactMap { component in
            component.hasPrefix("{") && component.hasSuffix("}") ? String(component.dropFirst().dropLast()) : nil
        }
    }

    /// The path with `values` in place of its parameters, in order, each percent-encoded; `nil` when the number
    /// of values differs from the number of parameters.
    public func path(filling values: [String]) -> String? {
        var remaining = values[...]
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;")
        let components = path.split(separator: "/", omittingEmptySubsequences: false).map { component in
            guard component.hasPrefix("{"), let value = remaining.popFirst() else { return String(component) }
            return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        }
        guard remaining.isEmpty, components.count(where: { $0.hasPrefix("{") }) == 0 else { return nil }
        return components.joined(separator: "/")
    }
}

/// One endpoint: its method, path, who may call it, and the types of its body and answer.
public struct Endpoint<Body: Codable & Sendable, Answer: Codable & Sendable>: APIEndpoint {
    /// The method and path template.
    public let route: APIRoute
    /// Who may call it.
    public let access: EndpointAccess
    /// The HTTP status of a successful answer.
    public let status: Int
    /// One line that says what it does.
    public let summary: String

    /// Describes an endpoint.
    public init(
        _ route: APIRoute,
        _ access: EndpointAccess,
        status: Int = 200,
        _ summary: String
    ) {
        self.route = route
        self.access = access
        self.status = status
        self.summary = summary
    }

    /// The request body's type.
    public var bodyType: any Codable.Type { Body.self }
    /// The successful answer's type.
    public var answerType: any Codable.Type { Answer.self }
}

/// The body of an endpoint that takes none.
public struct NoBody: Codable, Sendable, Equatable {
    /// The empty body.
    public init() {}
}

/// The answer of an endpoint that answers with a status alone (204), or not over HTTP (the WebSocket).
public struct NoContent: Codable, Sendable, Equatable {
    /// The empty answer.
    public init() {}
}
