import Foundation
import HAP
import HearthAPI
import HomeGraph

// The request and response bodies are in `HearthAPI`, shared with the clients; what stays here is server-only.

extension InviteInfo {
    /// The listed form of a stored invite (never its code).
    init(_ invite: StoredInvite) {
        self.init(
            id: invite.id,
            homeID: invite.homeID,
            role: invite.role,
            invitedBy: invite.invitedBy,
            expiresAt: invite.expiresAt
        )
    }
}
