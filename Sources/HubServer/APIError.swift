import Foundation
import HAPController
import HTTPTypes
import HearthAPI
import HomeGraph
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
        APIError(.notFound, code: "notFound", message: "no \(kind) with id \(id)")
    }

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
            APIError(.badRequest, code: "wrongSetupCode", message: "field 'setupCode': \(error)")
        case .alreadyPaired:
            APIError(.conflict, code: "alreadyPaired", message: "\(error)")
        case .unreachable, .connectionClosed:
            APIError(.badGateway, code: "accessoryUnreachable", message: "\(error)")
        case .timedOut:
            APIError(.gatewayTimeout, code: "accessoryTimedOut", message: "\(error)")
        default:
            nil
        }
    }

    /// A sentence for a hub error that names the object or value concerned.
    static func message(for error: HubError) -> String {
        switch error {
        case .rejected(let graphError): message(for: graphError)
        case .notPermitted(let reason): "not permitted: \(reason)"
        case .homeNotFound(let id): "no home with id \(id.uuidString)"
        case .storage(let storeError): "the home store failed (\(storeError.code))"
        case .accessory(let controllerError): "the accessory failed: \(controllerError)"
        case .accessoryNotFound(let deviceID): "no accessory with device id \(deviceID) is known"
        case .stopped: "the hub is shutting down"
        case .invalidRequest(let reason): reason
        case .internalError(let reason): "the hub failed: \(reason)"
        }
    }

    /// A sentence for a refusal of the home graph.
    static func message(for error: HomeGraphError) -> String {
        switch error {
        case .notFound(let kind, let id): "no \(kind.rawValue) with id \(id.uuidString)"
        case .nameTaken(let name, let existing):
            "the name '\(name)' is taken by the \(existing.kind.rawValue) \(existing.id.uuidString)"
        case .invalidName(_, let problem): problem.sentence
        case .idTaken(let reference): "the id \(reference.id.uuidString) is taken by a \(reference.kind.rawValue)"
        case .invalidValue(let valueError): "field 'value': \(valueError)"
        case .roomForEntireHome(let id): "the room for the entire home (\(id.uuidString)) cannot be removed or zoned"
        case .invalidLocation(let location):
            "field 'latitude'/'longitude': \(location.latitude), \(location.longitude) is not on Earth"
        case .invalidTimeZone(let identifier): "field 'timeZone': no time zone is called '\(identifier)'"
        case .ownerExists(let id): "the home already has an owner (\(id.uuidString))"
        case .builtInActionSetExists(let kind, let existing):
            "field 'kind': the home already has a '\(kind.rawValue)' action set (\(existing.uuidString))"
        case .duplicateAction(let id): "field 'actions': two actions write characteristic \(id.uuidString)"
        case .invalidBridge(let id): "the accessory cannot sit behind bridge \(id.uuidString)"
        }
    }

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
