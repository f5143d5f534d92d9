import AsyncHTTPClient
import Foundation
import HAPTypes
import HearthAPI
import HomeGraph
import NIOCore
import NIOHTTP1

/// An HTTP client of the hub's API: one async call per operation of `docs/api/openapi.yaml`, as one user.
///
/// Every call sends the bearer token and throws `HearthError` with the API's code, message and HTTP status. The
/// client is a value; copies share the underlying connection pool.
public struct HearthClient: Sendable {
    /// The API's base URL, such as `http://127.0.0.1:7878` (no trailing slash).
    public let baseURL: String
    /// The user id the token belongs to, when known from the configuration.
    public let userID: UUID?
    /// How long one call may take before it fails.
    public var timeout: Duration
    let token: String?
    let httpClient: HTTPClient
    /// The secure tunnel calls go through (docs/remote-access.md), kept alive with the client; `nil` for plain HTTP.
    public let tunnel: SecureTunnel?

    /// A client of the hub at `url` calling with `token` (`nil` only to redeem an invite without an account).
    public init(
        url: String,
        token: String?,
        userID: UUID? = nil,
        timeout: Duration = .seconds(30),
        httpClient: HTTPClient = .shared
    ) {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.token = token
        self.userID = userID
        self.timeout = timeout
        self.httpClient = httpClient
        self.tunnel = nil
    }

    /// A client that calls through `tunnel` (a verified session to the hub's secure listener): no token is sent,
    /// the session's pairing is the caller.
    public init(tunnel: SecureTunnel, userID: UUID? = nil, timeout: Duration = .seconds(30)) {
        self.baseURL = tunnel.url
        self.token = nil
        self.userID = userID
        self.timeout = timeout
        self.httpClient = .shared
        self.tunnel = tunnel
    }

    /// A client for a configuration: through a new `SecureTunnel` when it holds a paired secure connection, else
    /// plain HTTP with its token.
    public static func connect(
        configuration: ClientConfiguration,
        timeout: Duration = .seconds(30)
    ) async throws -> HearthClient {
        guard let secure = configuration.secure else {
            return HearthClient(configuration: configuration, timeout: timeout)
        }
        let tunnel = try await SecureTunnel.start(secure)
        return HearthClient(tunnel: tunnel, userID: configuration.userID, timeout: timeout)
    }

    /// A client for the hub and token in a client configuration (`<state>/client.json`, `hearth login`).
    public init(configuration: ClientConfiguration, timeout: Duration = .seconds(30)) {
        self.init(url: configuration.url, token: configuration.token, userID: configuration.userID, timeout: timeout)
    }

    /// The address of the event WebSocket (`ws://…/v1/events`).
    public var eventsURL: String {
        if baseURL.hasPrefix("https://") { return "wss://" + baseURL.dropFirst("https://".count) + "/v1/events" }
        if baseURL.hasPrefix("http://") { return "ws://" + baseURL.dropFirst("http://".count) + "/v1/events" }
        return baseURL + "/v1/events"
    }

    // MARK: Transport

    /// Calls `endpoint`, which takes no body, with the path's `ids` in order; returns its decoded answer.
    func request<Answer>(
        _ endpoint: Endpoint<NoBody, Answer>,
        _ ids: UUID...,
        query: String = ""
    ) async throws(HearthError) -> Answer {
        try await request(endpoint, path: ids.map(\.uuidString), body: nil, query: query)
    }

    /// Calls `endpoint` with the path's `ids` in order and `body`; returns its decoded answer.
    func request<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>,
        _ ids: UUID...,
        body: Body
    ) async throws(HearthError) -> Answer {
        try await request(endpoint, path: ids.map(\.uuidString), body: body, query: "")
    }

    /// Sends one request of `endpoint` with the path's parameters filled from `values` in order and the token,
    /// when there is one, and returns the decoded answer of a successful one; throws the API's error otherwise.
    func request<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>,
        path values: [String],
        body: Body?,
        query: String
    ) async throws(HearthError) -> Answer {
        guard let path = endpoint.path(filling: values) else {
            throw .invalidRequest("\(endpoint.route) takes \(endpoint.parameters.count) ids, not \(values.count)")
        }
        var request = HTTPClientRequest(url: baseURL + path + (query.isEmpty ? "" : "?" + query))
        request.method = endpoint.method.nio
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let tunnel { request.headers.add(name: SecureTunnel.header, value: tunnel.secret) }
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            let data: Data
            do {
                data = try JSONEncoder.api.encode(body)
            } catch {
                throw .invalidRequest("the request body could not be written as JSON")
            }
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: data))
        }
        let status: Int
        let data: Data
        do {
            let response = try await httpClient.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
            status = Int(response.status.code)
            data = Data(try await response.body.collect(upTo: 64 << 20).readableBytesView)
        } catch {
            throw .unreachable(baseURL, Self.describe(error))
        }
        guard (200..<300).contains(status) else {
            if let body = try? JSONDecoder.api.decode(ErrorBody.self, from: data) {
                throw body.error.hearthError(status: status)
            }
            throw .malformedResponse(status: status, "HTTP \(status) without an error body")
        }
        if let none = NoContent() as? Answer { return none }
        do {
            return try JSONDecoder.api.decode(Answer.self, from: data)
        } catch {
            throw .malformedResponse(status: status, Self.describe(error))
        }
    }

    /// A short description of a transport or decoding error (never a header).
    static func describe(_ error: any Error) -> String {
        if let decoding = error as? DecodingError {
            switch decoding {
            case .keyNotFound(let key, _): return "missing field '\(key.stringValue)'"
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return "field '\(context.codingPath.map(\.stringValue).joined(separator: "."))' is not valid"
            @unknown default: return "not valid JSON"
            }
        }
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .connectTimeout: return "the connection timed out"
            case .readTimeout, .deadlineExceeded: return "no answer in time"
            case .remoteConnectionClosed: return "the hub closed the connection"
            case .alreadyShutdown: return "the client was shut down"
            default: return "the request failed"
            }
        }
        if error is CancellationError { return "the request was cancelled" }
        // NIO's connection error (in NIOPosix, which HearthKit does not import) holds the system call's IOError.
        if let ioError = systemError(in: error, depth: 3) { return String(cString: strerror(ioError.errnoCode)) }
        return "the connection failed"
    }

    /// The first `IOError` in `value` or the values it holds, at most `depth` levels down.
    private static func systemError(in value: Any, depth: Int) -> IOError? {
        if let ioError = value as? IOError { return ioError }
        guard depth > 0 else { return nil }
        for child in Mirror(reflecting: value).children {
            if let found = systemError(in: child.value, depth: depth - 1) { return found }
        }
        return nil
    }
}

extension APIMethod {
    /// The method as NIO names it.
    var nio: NIOHTTP1.HTTPMethod {
        switch self {
        case .GET: .GET
        case .POST: .POST
        case .PUT: .PUT
        case .PATCH: .PATCH
        case .DELETE: .DELETE
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64`.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product + attoseconds / 1_000_000_000
    }
}
