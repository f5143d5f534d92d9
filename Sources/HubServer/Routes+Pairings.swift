import Foundation
import HearthAPI
import HomeGraph
import Hub

extension Routes {
    /// The hub's identity, pairing codes, client pairings and the count of wrong pairing codes.
    func addPairingRoutes() {
        add(Endpoints.hubIdentity) { call, _ in
            guard let identity = call.server.identity else {
                throw APIError(.notFound, code: "notFound", message: "this hub serves no secure listener")
            }
            let configuration = call.server.configuration
            return identity.info(
                secureAddress: configuration.secureHost.map { "\($0):\(configuration.securePort)" },
                relay: configuration.relayURL,
                webURL: call.server.webURL,
                webCertificateFingerprint: configuration.webCertificate?.fingerprint,
                relayCertificates: configuration.relayCertificates
            )
        }
        add(Endpoints.resetPairingAttempts) { call, _ in
            guard CurrentSecureConnection.connection == nil else {
                throw APIError(
                    .forbidden,
                    code: "notPermitted",
                    message: "not permitted: the count of wrong pairing codes is reset only over loopback HTTP"
                )
            }
            let graph = call.server.hub.graph
            guard
                graph.homes(visibleTo: call.caller).contains(where: {
                    graph.role(of: call.caller, inHome: $0.id) == .owner
                })
            else {
                throw APIError(
                    .forbidden,
                    code: "notPermitted",
                    message: "not permitted: only a home's owner may reset the count of wrong pairing codes"
                )
            }
            try await call.server.credentials.resetFailedPairingAttempts()
            return NoContent()
        }
        add(Endpoints.createPairingCode) { call, body in
            let (stored, code) = try await call.server.credentials.createPairingCode(
                for: call.principal.userID,
                label: try APIError.validatedLabel(body.label, field: "label", default: "device"),
                lifetime: call.server.configuration.pairingCodeLifetime
            )
            return NewPairingCode(code: code, expiresAt: stored.expiresAt)
        }
        add(Endpoints.listPairings) { call, _ in
            PairingList(pairings: await call.server.credentials.pairings(of: call.principal.userID).map(\.info))
        }
        add(Endpoints.deletePairing) { call, _ in
            let pairingID = try call.id("pairingID")
            let credentials = call.server.credentials
            guard let pairing = await credentials.pairings.first(where: { $0.id == pairingID }),
                pairing.accountID == call.principal.userID || call.manages(pairing.accountID)
            else {
                throw APIError.notFound("pairing", pairingID.uuidString)
            }
            _ = try await credentials.removePairing(pairingID)
            call.server.secureSessions.close(pairing: pairingID)
            await call.server.connections.revoke(token: pairingID, reason: "pairing removed")
            return NoContent()
        }
    }
}

extension Call {
    /// Whether the caller is an owner or administrator of a home `accountID` belongs to.
    func manages(_ accountID: UUID) -> Bool {
        let graph = server.hub.graph
        return graph.homes(visibleTo: caller).contains { home in
            guard let role = graph.role(of: caller, inHome: home.id), role.mayConfigure else { return false }
            return home.users.contains { $0.id == accountID }
        }
    }
}

extension HubServer {
    /// Removes every pairing of `accountID` and closes its secure sessions at once (a user removed or demoted).
    func endPairings(of accountID: UUID, reason: String) async {
        let removed = (try? await credentials.removePairings(of: accountID)) ?? []
        secureSessions.close(account: accountID)
        for pairing in removed { await connections.revoke(token: pairing.id, reason: reason) }
    }
}

extension UserRole {
    /// The role's rank: an owner above an administrator above a shared user.
    var rank: Int {
        switch self {
        case .owner: 2
        case .administrator: 1
        case .shared: 0
        }
    }
}
