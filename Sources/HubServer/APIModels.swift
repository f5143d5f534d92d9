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

/// The answer to a change: the change events it made (and, for additions, the new object under its kind).
struct MutationResponse: Encodable {
    var key: String?
    var object: (any Encodable)?
    var events: [HomeEvent]

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(events, forKey: Key(stringValue: "events"))
        if let key, let object {
            try container.encode(object, forKey: Key(stringValue: key))
        }
    }
}
