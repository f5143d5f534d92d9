import Foundation
import HAP
import HAPController
import HAPTypes
import HTTPTypes
import HearthAPI
import HomeGraph
import HomeStore
import Hub
import Hummingbird

/// An error the API answers with: an HTTP status and the body `{"error": {"code": "…", "message": "…"}}`.
public struct APIError: Error, HTTPResponseError, Sendable, Equatable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The stable, machine-readable code (`notFound`, `nameTaken`, `notPermitted`, `invalidRequest`, …).
    public var code: String
    /// A sentence for people that names what was wrong.
    public var message: String

    /// Makes an error with `status`, `code` and `message`.
    public init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The request body or a parameter is malformed: bad JSON, an unknown field, a wrong type.
    public static func invalidRequest(_ message: String) -> APIError {
        APIError(.badRequest, code: "invalidRequest", message: message)
    }

    /// No object of this kind with this id, or one the caller may not see.
    public static func notFound(_ kind: String, _ id: String) -> APIError {
        APIError(.notFound, code: "notFound", message: "no \(words(kind)) with id \(shown(id))")
    }

    /// Text a client sent, as a message may quote it: control and bidirectional-override characters written as
    /// `\u{…}`, and at most `limit` characters (then "…"), so an echo can neither drive a terminal nor flood a log.
    static func shown(_ text: String, limit: Int = 64) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            // A message is one line: new lines and tabs are shown too.
            let piece =
                scalar.isTerminalControl || scalar == "\n" || scalar == "\t"
                ? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" : String(scalar)
            // Counted as written, so an escape takes its room.
            guard count + piece.unicodeScalars.count <= limit else { return result + "…" }
            result += piece
            count += piece.unicodeScalars.count
        }
        return result
    }

    /// A label for people (a token's, a pairing code's) as it is stored: `fallback` when none is given, else
    /// normalised and checked by the rules of names (something visible, no control or bidi characters, at most
    /// 64 characters), or `400 invalidName` naming `field`.
    static func validatedLabel(_ label: String?, field: String, default fallback: String) throws -> String {
        guard let label else { return fallback }
        let normalized = Names.normalized(label)
        if let problem = Names.problem(with: normalized) {
            throw APIError(.badRequest, code: "invalidName", message: "field '\(field)': \(problem.sentence)")
        }
        return normalized
    }

    /// A kind of object in words: "actionSet" becomes "action set".
    static func words(_ kind: String) -> String { HomeGraphError.words(kind) }

    /// No valid bearer token.
    public static let unauthorized = APIError(
        .unauthorized,
        code: "unauthorized",
        message: "send a valid token as 'Authorization: Bearer <token>'"
    )

    /// The API error for a refusal of the hub.
    ///
    /// Accessory failures get their own codes: a wrong setup code is `400 wrongSetupCode`, an accessory paired
    /// with another controller `409 alreadyPaired`, one that cannot be reached `502 accessoryUnreachable`, one that
    /// does not answer in time `504 accessoryTimedOut`; any other is `502 accessoryError`.
    public init(_ error: HubError) {
        if case .accessory(let controllerError) = error, let special = Self.accessoryError(controllerError) {
            self = special
            return
        }
        self.init(
            HTTPResponse.Status(code: error.httpStatus),
            code: error.code,
            message: Self.message(for: error)
        )
    }

    /// The error for an accessory failure that has a code of its own, or `nil`.
    static func accessoryError(_ error: HAPControllerError) -> APIError? {
        switch error {
        case .wrongSetupCode:
            APIError(.badRequest, code: "wrongSetupCode", message: "field 'setupCode': \(error.description)")
        case .alreadyPaired:
            APIError(.conflict, code: "alreadyPaired", message: error.description)
        case .unreachable, .connectionClosed:
            APIError(.badGateway, code: "accessoryUnreachable", message: error.description)
        case .timedOut:
            APIError(.gatewayTimeout, code: "accessoryTimedOut", message: error.description)
        default:
            nil
        }
    }

    /// A sentence for any error a program of Hearth prints: the API's sentence for the hub's, the store's and the
    /// graph's errors, the error's own for the others that have one; never a Swift type or enum case.
    public static func sentence(for error: any Error) -> String {
        switch error {
        case let error as APIError: error.message
        case let error as HubError: APIError(error).message
        case let error as HomeStoreError: message(for: error)
        case let error as HomeGraphError: message(for: error)
        case let error as CocoaError: error.localizedDescription
        case let error as POSIXError: String(cString: strerror(error.code.rawValue))
        case let error as any CustomStringConvertible: error.description
        default: "an unexpected error occurred"
        }
    }

    /// A sentence for a hub error that names the object or value concerned.
    static func message(for error: HubError) -> String { error.sentence }

    /// A sentence for a refusal of the home graph.
    static func message(for error: HomeGraphError) -> String { error.sentence }

    /// A sentence for a failure of the home store; it never holds a key or a sealed payload.
    static func message(for error: HomeStoreError) -> String { error.sentence }

    /// The JSON error body.
    var body: ErrorBody { ErrorBody(error: .init(code: code, message: message)) }

    /// Writes the error as JSON.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONBody.response(body, status: status)
    }
}

/// Turns every error a route throws into the JSON error body, unknown routes and methods included.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return JSONBody.response(error.body, status: error.status)
        } catch let error as HubError {
            let apiError = APIError(error)
            return JSONBody.response(apiError.body, status: apiError.status)
        } catch let error as HTTPError {
            let code =
                switch error.status {
                case .notFound: "notFound"
                case .methodNotAllowed: "methodNotAllowed"
                case .contentTooLarge: "bodyTooLarge"
                default: "httpError"
                }
            let message =
                error.status == .notFound
                ? "no route \(request.method) \(request.uri.path)" : (error.body ?? error.status.reasonPhrase)
            let apiError = APIError(error.status, code: code, message: message)
            return JSONBody.response(apiError.body, status: apiError.status)
        } catch {
            context.logger.error("a route failed", metadata: ["error": "\(type(of: error))"])
            let apiError = APIError(.internalServerError, code: "internal", message: "the hub failed to answer")
            return JSONBody.response(apiError.body, status: apiError.status)
        }
    }
}
