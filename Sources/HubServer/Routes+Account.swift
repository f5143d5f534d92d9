import Foundation
import HearthAPI
import HomeGraph
import Hub

extension Routes {
    /// The caller and their tokens, the event WebSocket's answer without an upgrade, and redeeming invites.
    func addAccountRoutes() {
        add(Endpoints.getMe) { call, _ in
            let account = await call.server.credentials.account(call.principal.userID)
            return MeResponse(
                user: .init(id: call.principal.userID, name: account?.name ?? ""),
                tokenID: call.principal.tokenID,
                homes: await call.homeSummaries()
            )
        }
        add(Endpoints.listTokens) { call, _ in
            let tokens = await call.server.credentials.account(call.principal.userID)?.tokens ?? []
            return TokenList(tokens: tokens.map { TokenInfo(id: $0.id, label: $0.label, createdAt: $0.createdAt) })
        }
        add(Endpoints.createToken) { call, body in
            let (id, token) = try await call.server.credentials.addToken(
                to: call.principal.userID,
                label: try APIError.validatedLabel(body.label, field: "label", default: "token")
            )
            return NewToken(userID: call.principal.userID, tokenID: id, token: token)
        }
        add(Endpoints.revokeToken) { call, _ in
            let tokenID = try call.id("tokenID")
            guard try await call.server.credentials.revokeToken(tokenID, of: call.principal.userID) else {
                throw APIError.notFound("token", tokenID.uuidString)
            }
            await call.server.connections.revoke(token: tokenID, reason: "token revoked")
            return NoContent()
        }
        // Reached only when the request is not a WebSocket upgrade (or its token is not valid).
        add(Endpoints.events) { _, _ in
            throw APIError.invalidRequest("GET /v1/events is a WebSocket: send 'Upgrade: websocket'")
        }
        add(Endpoints.setPassword) { call, body in
            let server = call.server
            if let problem = PasswordHash.problem(with: body.password) { throw APIError.invalidRequest(problem) }
            guard let account = await server.credentials.account(call.principal.userID) else {
                throw APIError.unauthorized
            }
            if account.password != nil {
                guard let current = body.currentPassword else {
                    throw APIError.invalidRequest(
                        "field 'currentPassword' is required: the account has a password already"
                    )
                }
                guard try await server.checkPassword(current, name: account.name) == account.id else {
                    throw APIError(
                        .forbidden,
                        code: "notPermitted",
                        message: "field 'currentPassword': this is not the account's current password"
                    )
                }
            }
            try await server.credentials.setPassword(
                try await PasswordHash.offThePool { [password = body.password] in try PasswordHash.make(password) },
                of: account.id
            )
            return NoContent()
        }
        add(Endpoints.createSignInLink) { call, _ in
            let server = call.server
            let (link, secret) = try await server.credentials.createSignInLink(
                for: call.principal.userID,
                lifetime: server.configuration.signInLinkLifetime
            )
            let authority =
                call.request.head.authority ?? "\(server.configuration.host):\(server.configuration.port)"
            let scheme = server.servesTLSNow ? "https" : "http"
            return NewSignInLink(url: "\(scheme)://\(authority)/#signin=\(secret)", expiresAt: link.expiresAt)
        }
        // Redeeming needs no token (the code is the credential); with one, the caller's own account joins.
        addOpen(Endpoints.redeemInvite) { [server] principal, body in
            try await server.redeem(body, by: principal)
        }
    }
}

extension HubServer {
    /// Redeems an invite for `principal`, or for a new account when there is none.
    func redeem(_ body: RedeemInviteBody, by principal: Principal?) async throws -> RedeemedInvite {
        // The name is checked before the invite is taken, so a name the graph refuses does not use the code up.
        let name = body.name.map(Names.normalized) ?? ""
        if !name.isEmpty, let problem = Names.problem(with: name) {
            throw APIError(HubError.rejected(.invalidName(body.name ?? "", problem)))
        }
        if principal == nil, name.isEmpty {
            throw APIError.invalidRequest("field 'name' is required to make a new account")
        }
        guard let invite = try await credentials.takeInvite(code: body.code) else {
            throw APIError(.notFound, code: "notFound", message: "field 'code': no pending invite has this code")
        }
        let userID = principal?.userID ?? UUID()
        let userName: String
        if let principal, let account = await credentials.account(principal.userID) {
            userName = name.isEmpty ? account.name : name
        } else {
            userName = name
        }
        do {
            // Authorized as the person who invited, so an invite dies with their rights.
            try await hub.perform(
                .addUser(home: invite.homeID, id: userID, name: userName, role: invite.role),
                as: .user(invite.invitedBy)
            )
        } catch {
            // A redemption that fails changes nothing: the invite stays for another try.
            try await credentials.restoreInvite(invite)
            if case .rejected(let graphError) = error, case .idTaken = graphError {
                throw APIError(.conflict, code: "alreadyMember", message: "you already belong to this home")
            }
            throw APIError(error)
        }
        // The membership is on disk before the account that relies on it is made.
        do { try await hub.durable() } catch { throw APIError(error) }
        var token: NewToken?
        if principal == nil {
            let (account, secret) = try await credentials.createAccount(id: userID, name: userName, label: "invite")
            token = NewToken(userID: account.id, tokenID: account.tokens.last?.id ?? UUID(), token: secret)
        }
        return RedeemedInvite(homeID: invite.homeID, role: invite.role, userID: userID, token: token)
    }
}

extension Call {
    /// The homes the caller belongs to, each with their role and its last sequence number.
    func homeSummaries() async -> [HomeSummary] {
        let graph = server.hub.graph
        return graph.homes(visibleTo: caller).map { home in
            HomeSummary(
                id: home.id,
                name: home.name,
                isPrimary: home.isPrimary,
                role: graph.role(of: caller, inHome: home.id) ?? .shared,
                sequence: graph.lastSequence(ofHome: home.id)
            )
        }
    }
}
