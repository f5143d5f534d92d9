import HAP
import HAPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension AccessoryServer {
    /// The paths the server answers, with the methods and session each needs; hap-protocol.md §7.1.
    enum Endpoint: Sendable {
        case pairSetup, pairVerify, identify, accessories, characteristics, prepare, pairings

        /// The endpoint at `path`, compared without making a `String` of it.
        init?(path: Substring) {
            switch path {
            case "/characteristics": self = .characteristics
            case "/accessories": self = .accessories
            case "/pair-verify": self = .pairVerify
            case "/pair-setup": self = .pairSetup
            case "/identify": self = .identify
            case "/prepare": self = .prepare
            case "/pairings": self = .pairings
            default: return nil
            }
        }

        /// Whether the endpoint answers `method`.
        func allows(_ method: HTTPMethod) -> Bool {
            switch self {
            case .pairSetup, .pairVerify, .identify, .pairings: method == .post
            case .accessories: method == .get
            case .characteristics: method == .get || method == .put
            case .prepare: method == .put
            }
        }

        /// Whether the endpoint needs a verified session.
        var needsVerifiedSession: Bool {
            switch self {
            case .pairSetup, .pairVerify, .identify: false
            case .accessories, .characteristics, .prepare, .pairings: true
            }
        }
    }

    /// Answers a verified `GET` or `PUT /characteristics` without suspending when the backend can answer now.
    ///
    /// `nil` when the request needs ``handle(_:session:connection:)``: then nothing has been done but note the
    /// request's time, which that does again.
    func handleImmediately(
        _ request: HTTPRequest,
        session: ConnectionSession,
        connection: ObjectIdentifier
    ) -> RouteOutcome? {
        let (path, query) = request.pathAndQuery
        guard session.isVerified, Endpoint(path: path) == .characteristics else { return nil }
        connections[connection]?.lastRequest = uptime()
        if request.method == .get {
            return readCharacteristicsImmediately(
                query: query.map(String.init),
                session: session,
                connection: connection
            )
        }
        if request.method == .put {
            return writeCharacteristicsImmediately(request.body, session: session, connection: connection)
        }
        return nil
    }

    /// Answers one request of one connection.
    func handle(_ request: HTTPRequest, session: ConnectionSession, connection: ObjectIdentifier) async -> RouteOutcome
    {
        connections[connection]?.lastRequest = uptime()
        let (path, query) = request.pathAndQuery
        guard let endpoint = Endpoint(path: path) else {
            return RouteOutcome(response: Self.status(.notFound), session: session)
        }
        guard endpoint.allows(request.method) else {
            return RouteOutcome(response: Self.status(.methodNotAllowed), session: session)
        }
        if endpoint.needsVerifiedSession, !session.isVerified {
            // hap-protocol.md §7.2, §14 item 3: 470 with -70411 as ADK answers; HAP-python's 401 is not what the
            // spec's own implementation sends, and aiohomekit treats both as "not verified".
            logger.debug(
                "Refused a request before pair-verify with 470",
                metadata: ["peer": "\(peer(of: connection))", "request": "\(request.method.rawValue) \(path)"]
            )
            return RouteOutcome(
                response: Self.json(.connectionAuthorizationRequired, status: .insufficientAuthorization),
                session: session
            )
        }
        switch endpoint {
        case .pairSetup:
            return await pairSetup(request.body, session: session, connection: connection)
        case .pairVerify:
            return pairVerify(request.body, session: session, connection: connection)
        case .pairings:
            return await pairings(request.body, session: session, connection: connection)
        case .identify:
            return await identify(session: session)
        case .accessories:
            return await accessories(session: session, connection: connection)
        case .characteristics where request.method == .get:
            return await readCharacteristics(query: query.map(String.init), session: session, connection: connection)
        case .characteristics:
            return await writeCharacteristics(request.body, session: session, connection: connection)
        case .prepare:
            return prepare(request.body, session: session)
        }
    }

    // MARK: - Helpers

    /// The connection's peer as logs show it.
    func peer(of connection: ObjectIdentifier) -> String {
        connections[connection]?.handle.peer ?? "unknown peer"
    }

    static func status(_ status: HTTPResponseStatus) -> HTTPResponse {
        HTTPResponse(status: status)
    }

    static func json(_ status: HTTPResponseStatus, status hapStatus: HAPStatus) -> HTTPResponse {
        HTTPResponse(status: status, contentType: .hapJSON, body: Array("{\"status\":\(hapStatus.rawValue)}".utf8))
    }

    static func json(_ status: HTTPResponseStatus, _ response: CharacteristicReadResponse) -> HTTPResponse {
        guard let body = try? response.encodedJSON() else { return json(.internalServerError, status: .outOfResources) }
        return HTTPResponse(status: status, contentType: .hapJSON, body: body)
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
        // The answer is large (about 1 KB per accessory) and built from copies: trim once it has been written.
        var outcome = RouteOutcome(response: Self.json(.ok, current), session: session)
        outcome.followups.append(.releaseFreeMemory)
        return outcome
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
