import Foundation
import HTTPTypes
import HearthAPI
import HomeGraph
import Hummingbird

extension HubServer {
    /// Registers every route of the API from its endpoint in `Endpoints`, behind one authenticator; a test checks
    /// that `docs/api/openapi.yaml` documents exactly these.
    func registerRoutes(on router: Router<HubRequestContext>) {
        let routes = Routes(server: self, group: router.group().add(middleware: Authenticator(server: self)))
        routes.addAccountRoutes()
        routes.addHomeRoutes()
        routes.addRoomRoutes()
        routes.addAccessoryRoutes()
        routes.addSceneRoutes()
        routes.addCommandRoutes()
        routes.addUserRoutes()
        routes.addSessionRoutes()
        routes.addPairingRoutes()
    }
}

/// The routes of the API as they are registered: each from its endpoint in `Endpoints`, with a typed handler.
struct Routes {
    let server: HubServer
    let group: RouterGroup<HubRequestContext>

    /// Registers an endpoint for signed-in callers, with a handler from the call and the decoded body to the answer.
    ///
    /// The path's ids are read first; with `checkingAccess` the caller's access to the home is checked before the
    /// body is read (for routes whose hub call does not check it).
    func add<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>,
        checkingAccess: Bool = false,
        _ handler: @escaping @Sendable (Call, Body) async throws -> Answer
    ) {
        let server = server
        // Worked out once here, not for every request.
        let parameters = endpoint.parameters
        let body = Self.bodyReader(of: endpoint)
        let level = endpoint.access.level
        register(endpoint) { request, context in
            guard let principal = context.principal else { throw APIError.unauthorized }
            let call = try Call(
                request: request,
                context: context,
                principal: principal,
                server: server,
                parameters: parameters
            )
            if checkingAccess { try await call.require(level, inHome: call.homeID) }
            return try await handler(call, try await body(request))
        }
    }

    /// Registers `endpoint` for callers with or without a token: the handler gets the caller when there is one.
    func addOpen<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>,
        _ handler: @escaping @Sendable (Principal?, Body) async throws -> Answer
    ) {
        let body = Self.bodyReader(of: endpoint)
        register(endpoint) { request, context in
            try await handler(context.principal, try await body(request))
        }
    }

    /// Registers `endpoint` with a handler that writes the whole response itself (for one that sets headers).
    func addResponding<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>,
        _ handler: @escaping @Sendable (Request, HubRequestContext, Body) async throws -> Response
    ) {
        let body = Self.bodyReader(of: endpoint)
        group.on(RouterPath(endpoint.path), method: endpoint.method.http) { request, context in
            try await handler(request, context, try await body(request))
        }
    }

    private func register<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>,
        _ answer: @escaping @Sendable (Request, HubRequestContext) async throws -> Answer
    ) {
        let status: HTTPResponse.Status =
            switch endpoint.status {
            case 201: .created
            case 204: .noContent
            default: .ok
            }
        group.on(RouterPath(endpoint.path), method: endpoint.method.http) { request, context in
            let value = try await answer(request, context)
            return status == .noContent ? Response(status: status) : JSONBody.response(value, status: status)
        }
    }

    /// What reads the request's body as the endpoint's type, decoded strictly; nothing is read for an endpoint
    /// without one, and a home file is read as `HomeFile.decode` reads one, up to its own size limit.
    private static func bodyReader<Body, Answer>(
        of endpoint: Endpoint<Body, Answer>
    ) -> @Sendable (Request) async throws -> Body {
        if let none = NoBody() as? Body { return { _ in none } }
        if Body.self == HomeFile.self {
            return { request in
                guard let file = try await JSONBody.homeFile(from: request) as? Body else {
                    throw APIError(.internalServerError, code: "internal", message: "the hub failed to answer")
                }
                return file
            }
        }
        return { request in try await JSONBody.decode(Body.self, from: request) }
    }
}
