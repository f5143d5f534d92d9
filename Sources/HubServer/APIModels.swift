import Foundation
import HAP
import HomeGraph

// Request and response bodies. Field names are the API's, camelCase and stable (docs/api/openapi.yaml).

/// `POST /v1/homes`.
struct CreateHomeBody: Codable {
    var name: String
    var timeZone: String?
}

/// `PATCH /v1/homes/{homeID}`: each field given is applied as its own change, in this order.
struct UpdateHomeBody: Codable {
    var name: String?
    var timeZone: String?
}

/// A new object or a new name: `{"name": "…"}`.
struct NameBody: Codable {
    var name: String
}

/// `POST …/zones`.
struct CreateZoneBody: Codable {
    var name: String
    var roomIDs: [UUID]?
}

/// `PATCH …/accessories/{accessoryID}`.
struct UpdateAccessoryBody: Codable {
    var name: String?
    var roomID: UUID?
}

/// `POST …/accessories`: pair with a setup code, by `deviceID` (found nearby) or by `host` and `port`.
struct PairAccessoryBody: Codable {
    var deviceID: String?
    var host: String?
    var port: Int?
    var setupCode: String
    var name: String?
    var roomID: UUID?
}

/// `PUT …/characteristics/{characteristicID}`.
struct WriteValueBody: Codable {
    var value: HAPValue
}

/// `PUT …/characteristics`.
struct BatchWriteBody: Codable {
    var writes: [CharacteristicWrite]
}

/// `PUT …/characteristics/{characteristicID}/notifications`.
struct NotificationsBody: Codable {
    var isEnabled: Bool
}

/// `POST …/serviceGroups`.
struct CreateServiceGroupBody: Codable {
    var name: String
    var serviceIDs: [UUID]?
}

/// `POST …/actionSets`.
struct CreateActionSetBody: Codable {
    var name: String
    var kind: ActionSetKind?
    var actions: [Action]?
}

/// `PATCH …/actionSets/{actionSetID}`.
struct UpdateActionSetBody: Codable {
    var name: String?
    var actions: [Action]?
}

/// `POST …/triggers`.
struct CreateTriggerBody: Codable {
    var name: String
    var isEnabled: Bool?
    var actionSetIDs: [UUID]?
    var definition: Data?
}

/// `PATCH …/triggers/{triggerID}`.
struct UpdateTriggerBody: Codable {
    var name: String?
    var isEnabled: Bool?
}

/// `PATCH …/users/{userID}`.
struct UpdateUserBody: Codable {
    var role: UserRole
}

/// `POST …/invites`.
struct CreateInviteBody: Codable {
    var role: UserRole
}

/// `POST /v1/invites/redeem`.
struct RedeemInviteBody: Codable {
    var code: String
    var name: String?
}

/// `POST /v1/me/tokens`.
struct CreateTokenBody: Codable {
    var label: String?
}

/// One home in `GET /v1/homes` and `GET /v1/me`.
public struct HomeSummary: Codable, Sendable, Equatable {
    /// The home's id.
    public var id: UUID
    /// Its name.
    public var name: String
    /// Whether it is the primary home.
    public var isPrimary: Bool
    /// The caller's role in it.
    public var role: UserRole
    /// The sequence number of its last change.
    public var sequence: UInt64
}

/// `GET /v1/homes/{homeID}` and `POST /v1/homes`: the whole home, the caller's role, the last sequence.
public struct HomeResponse: Codable, Sendable, Equatable {
    /// The whole home.
    public var home: Home
    /// The caller's role in it.
    public var role: UserRole
    /// The sequence number of its last change: resume the event stream from here.
    public var sequence: UInt64
}

/// `GET /v1/me`.
public struct MeResponse: Codable, Sendable, Equatable {
    /// The caller.
    public struct Person: Codable, Sendable, Equatable {
        /// The user id, the same in every home.
        public var id: UUID
        /// The account's name.
        public var name: String
    }

    /// Who is calling.
    public var user: Person
    /// The id of the token used for this request.
    public var tokenID: UUID
    /// Every home the caller belongs to, with their role.
    public var homes: [HomeSummary]
}

/// A token of the caller as listed (never the token itself).
public struct TokenInfo: Codable, Sendable, Equatable {
    /// The token's id.
    public var id: UUID
    /// Its label.
    public var label: String
    /// When it was made.
    public var createdAt: Date
}

/// `POST /v1/me/tokens` and `POST /v1/invites/redeem`: a new token, shown once.
public struct NewToken: Codable, Sendable, Equatable {
    /// The person's user id.
    public var userID: UUID
    /// The token's id.
    public var tokenID: UUID
    /// The bearer token; store it, it is not shown again.
    public var token: String
}

/// An invite as listed (never the code).
public struct InviteInfo: Codable, Sendable, Equatable {
    /// The invite's id.
    public var id: UUID
    /// The home.
    public var homeID: UUID
    /// The role the invitee gets.
    public var role: UserRole
    /// Who invited.
    public var invitedBy: UUID
    /// When it stops working.
    public var expiresAt: Date

    init(_ invite: StoredInvite) {
        id = invite.id
        homeID = invite.homeID
        role = invite.role
        invitedBy = invite.invitedBy
        expiresAt = invite.expiresAt
    }
}

/// `POST …/invites`: the invite and its one-time code, shown once.
public struct NewInvite: Codable, Sendable, Equatable {
    /// The invite.
    public var invite: InviteInfo
    /// The one-time code to give the invitee.
    public var code: String
}

/// `POST /v1/invites/redeem`.
public struct RedeemedInvite: Codable, Sendable, Equatable {
    /// The home joined.
    public var homeID: UUID
    /// The role there.
    public var role: UserRole
    /// The person's user id.
    public var userID: UUID
    /// A new token when the invitee had no account (`nil` when they redeemed with their own token).
    public var token: NewToken?
}

/// `GET …/changes?after=N`.
public struct ChangesResponse: Codable, Sendable, Equatable {
    /// The changes after N, oldest first; empty when reload is required.
    public var events: [HomeEvent]
    /// Whether the changes are no longer kept and the client must reload the home.
    public var reloadRequired: Bool
    /// The home's current sequence number.
    public var currentSequence: UInt64
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
