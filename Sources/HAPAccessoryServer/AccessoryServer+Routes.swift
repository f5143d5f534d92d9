import HAP

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension AccessoryServer {
    /// A route: the methods it answers and whether it needs a verified session; hap-protocol.md §7.1.
    struct Route: Sendable {
        var methods: [HTTPMethod]
        var needsVerifiedSession: Bool
    }

    /// Every path the server answers.
    static let routes: [String: Route] = [
        "/pair-setup": Route(methods: [.post], needsVerifiedSession: false),
        "/pair-verify": Route(methods: [.post], needsVerifiedSession: false),
        "/identify": Route(methods: [.post], needsVerifiedSession: false),
        "/accessories": Route(methods: [.get], needsVerifiedSession: true),
        "/characteristics": Route(methods: [.get, .put], needsVerifiedSession: true),
        "/prepare": Route(methods: [.put], needsVerifiedSession: true),
        "/pairings": Route(methods: [.post], needsVerifiedSession: true),
    ]

    /// Answers one request of one connection.
    func handle(_ request: HTTPRequest, session: ConnectionSession, connection: ObjectIdentifier) async -> RouteOutcome
    {
        connections[connection]?.lastRequest = uptime()
        let path = request.path
        guard let route = Self.routes[path] else {
            return RouteOutcome(response: Self.status(.notFound), session: session)
        }
        guard route.methods.contains(request.method) else {
            return RouteOutcome(response: Self.status(.methodNotAllowed), session: session)
        }
        if route.needsVerifiedSession, !session.isVerified {
            // hap-protocol.md §7.2, §14 item 3: 470 with -70411 as ADK answers; HAP-python's 401 is not what the
            // spec's own implementation sends, and aiohomekit treats both as "not verified".
            return RouteOutcome(
                response: Self.json(.connectionAuthorizationRequired, status: .insufficientAuthorization),
                session: session
            )
        }
        switch (path, request.method) {
        case ("/pair-setup", _):
            return await pairSetup(request.body, session: session, connection: connection)
        case ("/pair-verify", _):
            return pairVerify(request.body, session: session, connection: connection)
        case ("/pairings", _):
            return await pairings(request.body, session: session)
        case ("/identify", _):
            return await identify(session: session)
        case ("/accessories", _):
            return await accessories(session: session, connection: connection)
        case ("/characteristics", .get):
            return await readCharacteristics(query: request.query, session: session, connection: connection)
        case ("/characteristics", _):
            return await writeCharacteristics(request.body, session: session, connection: connection)
        default:
            return prepare(request.body, session: session)
        }
    }

    // MARK: - Helpers

    static func status(_ status: HTTPResponseStatus) -> HTTPResponse {
        HTTPResponse(status: status)
    }

    static func json(_ status: HTTPResponseStatus, status hapStatus: HAPStatus) -> HTTPResponse {
        HTTPResponse(status: status, contentType: .hapJSON, body: Array("{\"status\":\(hapStatus.rawValue)}".utf8))
    }

    static func json(_ status: HTTPResponseStatus, _ value: some Encodable) -> HTTPResponse {
        guard let body = try? HAPJSON.encode(value) else { return json(.internalServerError, status: .outOfResources) }
        return HTTPResponse(status: status, contentType: .hapJSON, body: Array(body))
    }

    // MARK: - Identify, accessories, prepare

    private func identify(session: ConnectionSession) async -> RouteOutcome {
        // hap-protocol.md §7.1: unpaired only; paired → 400 with -70401.
        guard !state.pairings.isPaired else {
            return RouteOutcome(response: Self.json(.badRequest, status: .insufficientPrivileges), session: session)
        }
        await backend.identify()
        return RouteOutcome(response: Self.status(.noContent), session: session)
    }

    private func accessories(session: ConnectionSession, connection: ObjectIdentifier) async -> RouteOutcome {
        var current = await backend.database()
        database = current
        let subscriptions = connections[connection]?.subscriptions ?? []
        for accessoryIndex in current.accessories.indices {
            for serviceIndex in current.accessories[accessoryIndex].services.indices {
                let accessoryID = current.accessories[accessoryIndex].accessoryID
                for index in current.accessories[accessoryIndex].services[serviceIndex].characteristics.indices {
                    var characteristic = current.accessories[accessoryIndex].services[serviceIndex]
                        .characteristics[index]
                    if characteristic.has(.notify) {
                        let id = CharacteristicID(accessoryID: accessoryID, instanceID: characteristic.instanceID)
                        characteristic.isNotifying = subscriptions.contains(id)
                    }
                    if !characteristic.has(.read) { characteristic.value = nil }
                    current.accessories[accessoryIndex].services[serviceIndex].characteristics[index] = characteristic
                }
            }
        }
        return RouteOutcome(response: Self.json(.ok, current), session: session)
    }

    private func prepare(_ body: [UInt8], session: ConnectionSession) -> RouteOutcome {
        var session = session
        guard let request = try? HAPJSON.decode(PrepareWriteRequest.self, from: Data(body)) else {
            return RouteOutcome(response: Self.json(.badRequest, status: .invalidValueInRequest), session: session)
        }
        // hap-protocol.md §7.7: a new prepare replaces the old one (ADK).
        let ttl = Duration.milliseconds(Int64(clamping: request.timeToLiveMilliseconds))
        session.preparedWrite = (request.preparedWriteID, uptime() + ttl)
        return RouteOutcome(response: Self.json(.ok, status: .success), session: session)
    }
}
