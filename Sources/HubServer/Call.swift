import Foundation
import HAPTypes
import HTTPTypes
import HearthAPI
import HomeGraph
import Hub
import Hummingbird

/// The request context of the API's routes: Hummingbird's, and the caller the authenticator found.
public struct HubRequestContext: RequestContext {
    /// Hummingbird's part of the context.
    public var coreContext: CoreRequestContextStorage
    /// The account and token of the request's bearer token; `nil` when the request sent none.
    public var principal: Principal?

    /// A context for a new request, with no caller yet.
    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.principal = nil
    }
}

/// Finds the caller of every route's request: a request that sends a token must send a valid one (401 otherwise),
/// and the connection that showed one counts as authenticated.
///
/// Without a token, a browser's session cookie names the caller; a request it signs that changes something must
/// come from the page itself (`SessionCookie.checkSameSite`, 403 otherwise). A cookie that names no live session
/// counts as none: routes that need a caller answer 401, open ones still work (signing in again).
struct Authenticator: RouterMiddleware {
    let server: HubServer

    func handle(
        _ request: Request,
        context: HubRequestContext,
        next: (Request, HubRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if CurrentSecureConnection.connection != nil {
            // A verified session is its pairing's account; tokens and cookies are ignored there.
            guard let principal = await server.principal(of: request) else { throw APIError.unauthorized }
            context.principal = principal
        } else if request.headers[.authorization] != nil {
            guard let principal = await server.principal(of: request) else { throw APIError.unauthorized }
            context.principal = principal
        } else if let secret = SessionCookie.secret(in: request),
            let principal = await server.credentials.authenticate(session: secret)
        {
            if SessionCookie.changesState(request) {
                try SessionCookie.checkSameSite(request, servesTLS: server.servesTLSNow)
            }
            CurrentConnection.record?.markAuthenticated()
            context.principal = principal
        }
        return try await next(request, context)
    }
}

/// One authenticated request as a route sees it: the caller, the path's ids, the request.
struct Call: Sendable {
    let request: Request
    let principal: Principal
    let server: HubServer
    /// The path's ids, with their parameter names, in the path's order.
    let ids: [(name: String, id: UUID)]
    /// The path's other parameters (those whose names do not end in `ID`, such as `kind`), as sent.
    let texts: [String: String]

    /// The call of `request`, its path's ids read in the path's order (`parameters`, the endpoint's, worked out
    /// once when the route is registered); a malformed id is an unknown one (404).
    init(
        request: Request,
        context: HubRequestContext,
        principal: Principal,
        server: HubServer,
        parameters: [String]
    )
        throws
    {
        var ids: [(name: String, id: UUID)] = []
        var texts: [String: String] = [:]
        ids.reserveCapacity(parameters.count)
        for name in parameters {
            let text = context.parameters.get(name) ?? ""
            guard name.hasSuffix("ID") else {
                texts[name] = text.removingPercentEncoding ?? text
                continue
            }
            guard let id = UUID(pathText: text) else { throw APIError.notFound(Self.kind(of: name), text) }
            ids.append((name, id))
        }
        self.request = request
        self.principal = principal
        self.server = server
        self.ids = ids
        self.texts = texts
    }

    /// The kind of object a path parameter names: `roomID` is a room, `groupID` a service group.
    static func kind(of parameter: String) -> String {
        parameter == "groupID" ? "serviceGroup" : String(parameter.dropLast(2))
    }

    /// The caller as the hub knows them.
    var caller: HubCaller { .user(principal.userID) }

    /// The id in path parameter `name`.
    func id(_ name: String) throws -> UUID {
        guard let found = ids.first(where: { $0.name == name }) else {
            throw APIError.notFound(Self.kind(of: name), "")
        }
        return found.id
    }

    /// The text of path parameter `name` (one whose name does not end in `ID`); empty when absent.
    func text(_ name: String) -> String { texts[name] ?? "" }

    /// The home in the path.
    var homeID: UUID {
        get throws { try id("homeID") }
    }

    /// The home and the caller's role in it; 404 when the caller is not one of its users.
    func home(_ homeID: UUID) async throws -> (home: Home, role: UserRole, sequence: UInt64) {
        let graph = server.hub.graph
        guard let home = graph.home(withID: homeID), let role = graph.role(of: caller, inHome: homeID) else {
            throw APIError(HubError.homeNotFound(homeID))
        }
        return (home, role, graph.lastSequence(ofHome: homeID))
    }

    /// The hub's graph, after checking that the caller is one of the home's users (404 otherwise).
    func graph(ofHome homeID: UUID) async throws -> HomeGraph {
        let graph = server.hub.graph
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

    /// The answer to a change: its events.
    func changed(_ events: [HomeEvent]) -> Events { Events(events: events) }

    /// The answer to an addition: its events and the new object as its event carries it (no second read).
    func created<Object: CreatedObject>(_ events: [HomeEvent]) throws -> Created<Object> {
        guard let object = events.lazy.compactMap({ $0.change.addedObject as? Object }).first else {
            throw APIError(HubError.internalError("the addition reported no new \(Object.createdKey)"))
        }
        return Created(object: object, events: events)
    }
}

extension UUID {
    /// The UUID a path's text spells (`8-4-4-4-12` hex digits, either case); `nil` for anything else.
    ///
    /// Parsed here: Foundation's parser on Linux runs `sscanf`, several microseconds a call, and lets a space or a
    /// sign stand for a digit.
    init?(pathText text: String) {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &bytes) { out in
            var index = utf8.startIndex
            var position = 0
            var written = 0
            while index != utf8.endIndex {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard utf8[index] == UInt8(ascii: "-") else { return false }
                    index = utf8.index(after: index)
                    position += 1
                    continue
                }
                guard let high = utf8[index].asciiHexDigitValue else { return false }
                index = utf8.index(after: index)
                guard let low = utf8[index].asciiHexDigitValue else { return false }
                index = utf8.index(after: index)
                out[written] = high << 4 | low
                written += 1
                position += 2
            }
            return written == 16
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }
}

extension APIMethod {
    /// The method as Hummingbird names it.
    var http: HTTPRequest.Method {
        switch self {
        case .GET: .get
        case .POST: .post
        case .PUT: .put
        case .PATCH: .patch
        case .DELETE: .delete
        }
    }
}

extension EndpointAccess {
    /// The hub's access level for a home-level access (`control` for the others).
    var level: AccessLevel {
        switch self {
        case .noToken, .signedIn, .control: .control
        case .configure: .configure
        case .owner: .owner
        }
    }
}
