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
        APIError(.notFound, code: "notFound", message: "no \(words(kind)) with id \(id)")
    }

    /// A kind of object in words: "actionSet" becomes "action set".
    static func words(_ kind: String) -> String {
        var text = ""
        for character in kind {
            if character.isUppercase, !text.isEmpty { text += " " }
            text += character.lowercased()
        }
        return text
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
    static func message(for error: HubError) -> String {
        switch error {
        case .rejected(let graphError): message(for: graphError)
        case .invalidWrite(let index, let count, let graphError):
            count > 1 ? "writes[\(index)]: " + message(for: graphError) : message(for: graphError)
        case .notPermitted(let reason): "not permitted: \(reason)"
        case .homeNotFound(let id): "no home with id \(id.uuidString)"
        case .storage(let storeError): message(for: storeError)
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
        case .notFound(let kind, let id): "no \(words(kind.rawValue)) with id \(id.uuidString)"
        case .nameTaken(let name, let existing):
            "the name '\(name)' is taken by the \(words(existing.kind.rawValue)) \(existing.id.uuidString)"
        case .invalidName(_, let problem): problem.sentence
        case .idTaken(let reference):
            "the id \(reference.id.uuidString) is taken by a \(words(reference.kind.rawValue))"
        case .invalidValue(let valueError, let type):
            valueError.message(naming: ValueError.displayName(of: type))
        case .roomForEntireHome(let id): "the room for the entire home (\(id.uuidString)) cannot be removed or zoned"
        case .invalidLocation(let location):
            "field 'latitude'/'longitude': \(location.latitude), \(location.longitude) is not on Earth"
        case .invalidTimeZone(let identifier): "field 'timeZone': no time zone is called '\(identifier)'"
        case .ownerExists(let id): "the home already has an owner (\(id.uuidString))"
        case .builtInActionSetExists(let kind, let existing):
            "field 'kind': the home already has a '\(kind.rawValue)' action set (\(existing.uuidString))"
        case .builtInActionSetNotRemovable(_, let name, _):
            "the scene '\(name)' is built in, and built-in scenes cannot be removed; rename it or change its actions"
        case .duplicateAction(let id): "field 'actions': two actions write characteristic \(id.uuidString)"
        case .invalidBridge(let id): "the accessory cannot sit behind bridge \(id.uuidString)"
        }
    }

    /// A sentence for a failure of the home store; it never holds a key or a sealed payload.
    static func message(for error: HomeStoreError) -> String {
        switch error {
        case .stateFolder(let path, let code):
            "the state folder \(path) could not be used (\(String(cString: strerror(code))))"
        case .invalidDeviceKey(let path): "the device key \(path) is not 32 bytes"
        case .deviceKeyNotWritten: "a new device key could not be written"
        case .database(_, let message): "the home database failed: \(message)"
        case .newerSchema: "the home database was written by a newer Hearth"
        case .sealFailed(let table, let sequence):
            "row \(sequence) of the home database's \(table) table does not open under the device key"
        case .unencodable: "the change could not be written (a value that JSON cannot hold)"
        case .undecodable(let table, let sequence):
            "row \(sequence) of the home database's \(table) table is unreadable"
        case .missingOperation(let expected, let found):
            "the home database's log misses change \(expected) (the next is \(found))"
        case .replayFailed(let sequence, let graphError):
            "change \(sequence) of the home database could not be replayed: \(message(for: graphError))"
        case .notPrivate(let reason): "the state folder cannot be kept private: \(reason)"
        case .closed: "the home store is closed"
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
