import Foundation
import HearthAPI
import HomeGraph
import Hub

extension Routes {
    /// A home's users and invites.
    func addUserRoutes() {
        add(Endpoints.listUsers) { call, _ in
            UserList(users: try await call.home(try call.homeID).home.users)
        }
        add(Endpoints.setUserRole) { call, body in
            let (homeID, userID) = (try call.homeID, try call.id("userID"))
            let before = call.server.hub.graph.home(withID: homeID)?.users.first { $0.id == userID }?.role
            let events = try await call.perform(.setRole(home: homeID, user: userID, role: body.role))
            // A demoted user's paired devices pair again with the new role (docs/remote-access.md).
            if let before, body.role.rank < before.rank {
                await call.server.endPairings(of: userID, reason: "role lowered")
                // A shared user may not invite: the invites they made as an administrator go.
                if !body.role.mayConfigure {
                    _ = try? await call.server.credentials.removeInvites(madeBy: userID, home: homeID)
                }
            }
            return call.changed(events)
        }
        add(Endpoints.removeUser) { call, _ in
            let (homeID, userID) = (try call.homeID, try call.id("userID"))
            let events = try await call.perform(.removeUser(home: homeID, user: userID))
            await call.server.endPairings(of: userID, reason: "removed from the home")
            _ = try? await call.server.credentials.removeInvites(madeBy: userID, home: homeID)
            return call.changed(events)
        }
        add(Endpoints.listInvites, checkingAccess: true) { call, _ in
            let homeID = try call.homeID
            return InviteList(invites: await call.server.credentials.invites(home: homeID).map(InviteInfo.init))
        }
        add(Endpoints.createInvite) { call, body in
            let homeID = try call.homeID
            try await call.require(
                AccessLevel(for: .addUser(home: homeID, id: UUID(), name: "", role: body.role)),
                inHome: homeID
            )
            // A home has one owner: an owner invite could never be redeemed while it has one.
            if body.role == .owner,
                let owner = try await call.home(homeID).home.users.first(where: { $0.role == .owner })
            {
                throw APIError(
                    .conflict,
                    code: "ownerExists",
                    message: "field 'role': the home already has an owner (\(owner.id.uuidString)) and has only one; "
                        + "invite as 'administrator' or 'shared'"
                )
            }
            let (invite, code) = try await call.server.credentials.createInvite(
                home: homeID,
                role: body.role,
                invitedBy: call.principal.userID,
                lifetime: call.server.configuration.inviteLifetime
            )
            return NewInvite(invite: InviteInfo(invite), code: code)
        }
        add(Endpoints.deleteInvite, checkingAccess: true) { call, _ in
            let (homeID, inviteID) = (try call.homeID, try call.id("inviteID"))
            guard try await call.server.credentials.removeInvite(inviteID, home: homeID) else {
                throw APIError.notFound("invite", inviteID.uuidString)
            }
            return NoContent()
        }
    }
}
