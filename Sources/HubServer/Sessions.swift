import Foundation
import HAP
import HTTPTypes
import HearthAPI
import Hummingbird

/// The browser's session cookie: its name, how it is read from a request and written in an answer, and the checks
/// that keep other sites from using it.
///
/// The cookie holds an opaque random secret (the hub keeps only its hash, `CredentialStore.createSession`), never a
/// bearer token. It is `HttpOnly`, `SameSite=Strict`, `Path=/`, and `Secure` exactly when the server is reached over
/// TLS.
enum SessionCookie {
    /// The cookie's name.
    static let name = "hearth_session"
    /// The header the page sets on every request that changes something; another site's form cannot set it.
    static let requestHeader = HTTPField.Name.literal("X-Hearth-Request")

    /// The secret of the request's session cookie, or `nil` when it sent none.
    static func secret(in request: Request) -> String? {
        secret(inCookieHeaders: request.headers[values: .cookie])
    }

    /// The secret of the session cookie among `Cookie` header values, or `nil` when there is none.
    static func secret(inCookieHeaders headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingWhitespace() == name else { continue }
                let value = parts[1].trimmingWhitespace()
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// The `Set-Cookie` value that starts a session with `secret`.
    static func setting(_ secret: String, servesTLS: Bool) -> String {
        "\(name)=\(secret); Path=/; HttpOnly; SameSite=Strict" + (servesTLS ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that makes the browser forget the cookie.
    static func clearing(servesTLS: Bool) -> String {
        "\(name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (servesTLS ? "; Secure" : "")
    }

    /// Why an event WebSocket upgrade that signs in with the session cookie is refused, or `nil` when it may go on.
    ///
    /// A browser always sends `Origin` on a WebSocket upgrade and `SameSite` does not cover WebSockets, so an upgrade
    /// that carries the cookie and no bearer token must send the server's own `Origin` (the scheme, then `authority`,
    /// the request's `Host`): another site's page cannot open the socket with its visitor's cookie.
    static func upgradeRefusal(
        authorization: String?,
        cookieHeaders: [String],
        origins: [String],
        authority: String?,
        servesTLS: Bool
    ) -> String? {
        guard authorization == nil, secret(inCookieHeaders: cookieHeaders) != nil else { return nil }
        let own = authority.map { (servesTLS ? "https://" : "http://") + $0 }
        let expected = own.map { "'\($0)'" } ?? "this server's"
        guard !origins.isEmpty else {
            return "an event WebSocket opened with the session cookie must send the header 'Origin' of the hub's "
                + "own page (\(expected))"
        }
        let origin = origins.joined(separator: ", ")
        guard let own, origin.lowercased() == own.lowercased() else {
            let origin = APIError.shown(origin, limit: 160)
            return "an event WebSocket opened with the session cookie must come from the hub's own page: its "
                + "'Origin' '\(origin)' is not \(expected)"
        }
        return nil
    }

    /// Whether the request's method changes something (everything but GET, HEAD and OPTIONS).
    static func changesState(_ request: Request) -> Bool {
        ![.get, .head, .options].contains(request.method)
    }

    /// Throws 403 unless the request comes from the hub's own page: it carries `X-Hearth-Request: 1`, and its
    /// `Origin`, when it sends one, is the server's own (`http://` or `https://` and the request's `Host`).
    static func checkSameSite(_ request: Request, servesTLS: Bool) throws {
        guard request.headers[requestHeader] == "1" else {
            throw APIError(
                .forbidden,
                code: "crossSiteRequest",
                message:
                    "a change made with the session cookie must carry the header 'X-Hearth-Request: 1', which "
                    + "the hub's page sets and other sites cannot"
            )
        }
        guard let origin = request.headers[.origin] else { return }
        let own = request.head.authority.map { (servesTLS ? "https://" : "http://") + $0 }
        guard let own, origin.lowercased() == own.lowercased() else {
            throw APIError(
                .forbidden,
                code: "crossSiteRequest",
                message:
                    "a change made with the session cookie must come from the hub's own page: origin "
                    + "'\(APIError.shown(origin, limit: 160))' "
                    + "is not \(own.map { "'\($0)'" } ?? "this server's")"
            )
        }
    }
}

extension Routes {
    /// Signing a browser in with a token, a password or a sign-in link (the cookie is set) and out (the session is
    /// revoked, the cookie cleared).
    func addSessionRoutes() {
        let server = server
        addResponding(Endpoints.createSession) { request, context, body in
            // Checked even without a cookie, so another site cannot sign a browser in to its own account.
            try SessionCookie.checkSameSite(request, servesTLS: server.servesTLSNow)
            let signedIn = try await server.signIn(with: body)
            let (session, secret) = try await server.credentials.createSession(
                for: signedIn,
                lifetime: server.configuration.sessionLifetime
            )
            var principal = signedIn
            principal.sessionID = session.id
            let call = try Call(
                request: request,
                context: context,
                principal: principal,
                server: server,
                parameters: []
            )
            let account = await server.credentials.account(principal.userID)
            let me = MeResponse(
                user: .init(id: principal.userID, name: account?.name ?? ""),
                tokenID: principal.tokenID,
                homes: await call.homeSummaries()
            )
            var response = JSONBody.response(me, status: .created)
            response.headers[.setCookie] = SessionCookie.setting(secret, servesTLS: server.servesTLSNow)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        addResponding(Endpoints.deleteSession) { _, context, _ in
            guard let principal = context.principal else { throw APIError.unauthorized }
            guard let sessionID = principal.sessionID else {
                throw APIError.invalidRequest(
                    "this request came with a token, not a session cookie: revoke a token with "
                        + "DELETE /v1/me/tokens/{tokenID}"
                )
            }
            _ = try await server.credentials.revokeSession(sessionID)
            await server.connections.revoke(session: sessionID, reason: "signed out")
            var response = Response(status: .noContent)
            response.headers[.setCookie] = SessionCookie.clearing(servesTLS: server.servesTLSNow)
            return response
        }
    }
}

extension HubServer {
    /// The account a sign-in body names: by a token, a name and password, or a sign-in link (exactly one).
    ///
    /// A wrong password answers the same sentence whether the name exists or not, after the same scrypt work; an
    /// account name given `passwordTries` wrong passwords within `passwordWindow` is refused (429) until the window
    /// has passed. A session made with a password or a link belongs to no token: its `tokenID` is its own.
    func signIn(with body: SignInBody) async throws -> Principal {
        let ways = [body.token != nil, body.name != nil || body.password != nil, body.link != nil].filter { $0 }
        guard ways.count == 1 else {
            throw APIError.invalidRequest(
                "sign in with exactly one of: field 'token'; fields 'name' and 'password'; field 'link'"
            )
        }
        if let token = body.token {
            guard let principal = await credentials.authenticate(token: token) else {
                throw APIError(.unauthorized, code: "unauthorized", message: "field 'token': no account has this token")
            }
            return principal
        }
        if let link = body.link {
            guard let accountID = try await credentials.takeSignInLink(secret: link),
                await credentials.account(accountID) != nil
            else {
                throw APIError(
                    .unauthorized,
                    code: "unauthorized",
                    message: "field 'link': this sign-in link does not work: it was used already, has expired, or "
                        + "was never made; ask for a new one with 'hearth user sign-in-link'"
                )
            }
            return Principal(userID: accountID, tokenID: UUID())
        }
        guard let name = body.name, let password = body.password else {
            throw APIError.invalidRequest("fields 'name' and 'password' are both required to sign in with a password")
        }
        guard let accountID = try await checkPassword(password, name: name) else {
            throw APIError(
                .unauthorized,
                code: "unauthorized",
                message: "fields 'name' and 'password': no account has this name and password"
            )
        }
        return Principal(userID: accountID, tokenID: UUID())
    }

    /// The account named `name` whose password is `password`, or `nil` (counted as a wrong try); 429 while the
    /// name has had too many wrong tries.
    func checkPassword(_ password: String, name: String) async throws -> UUID? {
        if await credentials.passwordLimited(
            name: name,
            limit: configuration.passwordTries,
            window: configuration.passwordWindow
        ) {
            throw APIError(
                .tooManyRequests,
                code: "tooManyAttempts",
                message: "too many wrong passwords for this account: try again in a minute"
            )
        }
        let candidates = await credentials.passwords(named: name)
        let found = try await PasswordHash.offThePool { () -> UUID? in
            var found: UUID?
            for candidate in candidates where PasswordHash.verify(password, against: candidate.password) {
                found = candidate.accountID
            }
            if candidates.isEmpty { PasswordHash.verifyNothing(password) }
            return found
        }
        if found == nil { await credentials.recordPasswordFailure(name: name) }
        return found
    }
}
