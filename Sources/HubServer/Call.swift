import Foundation
import HTTPTypes
import HomeGraph
import Hub
import Hummingbird

/// One authenticated request as a route sees it: the caller, the path's ids, the strict body.
struct Call: Sendable {
    let request: Request
    let context: BasicRequestContext
    let principal: Principal
    let server: HubServer

    /// The caller as the hub knows them.
    var caller: HubCaller { .user(principal.userID) }

    /// The id in path parameter `name`; a malformed id is an unknown one (404).
    func id(_ name: String, kind: String) throws -> UUID {
        let text = context.parameters.get(name) ?? ""
        guard let id = UUID(uuidString: text) else { throw APIError.notFound(kind, text) }
        return id
    }

    /// The home in the path, as the caller may see it.
    var homeID: UUID {
        get throws { try id("homeID", kind: "home") }
    }

    /// The body, decoded strictly.
    func body<T: Codable>(_ type: T.Type) async throws -> T {
        try await JSONBody.decode(type, from: request)
    }

    /// The home and the caller's role in it; 404 when the caller is not one of its users.
    func home(_ homeID: UUID) async throws -> (home: Home, role: UserRole, sequence: UInt64) {
        let graph = await server.hub.graph
        guard let home = graph.home(withID: homeID), let role = graph.role(of: caller, inHome: homeID) else {
            throw APIError(HubError.homeNotFound(homeID))
        }
        return (home, role, graph.lastSequence(ofHome: homeID))
    }

    /// The hub's graph, after checking that the caller is one of the home's users (404 otherwise).
    func graph(ofHome homeID: UUID) async throws -> HomeGraph {
        let graph = await server.hub.graph
        guard graph.role(of: caller, inHome: homeID) != nil else { throw APIError(HubError.homeNotFound(homeID)) }
        return graph
    }

    /// Throws 403 unless the caller has `level` in the home (for routes whose hub call is not wired yet).
    func require(_ level: AccessLevel, inHome homeID: UUID) async throws {
        let role = try await home(homeID).role
        guard level.isGranted(to: role) else {
            throw APIError(
                .forbidden,
                code: "notPermitted",
                message: level == .owner
                    ? "not permitted: only the home's owner may do this"
                    : "not permitted: shared users control the home but do not change its configuration"
            )
        }
    }

    /// Asks the hub to carry out `operations` for the caller as one batch, whole or not at all; returns their
    /// events.
    func perform(_ operations: HomeOperation...) async throws -> [HomeEvent] {
        try await perform(operations)
    }

    /// Asks the hub to carry out `operations` for the caller as one batch, whole or not at all; returns their
    /// events.
    func perform(_ operations: [HomeOperation]) async throws -> [HomeEvent] {
        do {
            return try await server.hub.perform(operations, as: caller)
        } catch {
            throw APIError(error)
        }
    }

    /// A JSON answer.
    func reply(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        JSONBody.response(value, status: status)
    }

    /// The answer to a change: its events, and the new object under `key` for additions (201).
    func changed(_ events: [HomeEvent], key: String? = nil, object: (any Encodable)? = nil) -> Response {
        JSONBody.response(
            MutationResponse(key: key, object: object, events: events),
            status: object == nil ? .ok : .created
        )
    }

    /// 204 No Content.
    var noContent: Response { Response(status: .noContent) }
}

/// A route's handler.
typealias RouteHandler = @Sendable (Call) async throws -> Response

extension HubServer {
    /// Registers an authenticated route: the handler runs only with a valid bearer token.
    func add(
        _ method: HTTPRequest.Method,
        _ path: String,
        on router: Router<BasicRequestContext>,
        _ handler: @escaping RouteHandler
    ) {
        let server = self
        router.on(RouterPath(path), method: method) { request, context in
            guard let principal = await server.principal(of: request) else { throw APIError.unauthorized }
            return try await handler(Call(request: request, context: context, principal: principal, server: server))
        }
    }
}
