import Foundation
import HAPTypes
import HomeGraph

// Response bodies. Field names are the API's, camelCase and stable (docs/api/openapi.yaml).

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

    /// Makes a summary.
    public init(id: UUID, name: String, isPrimary: Bool, role: UserRole, sequence: UInt64) {
        self.id = id
        self.name = name
        self.isPrimary = isPrimary
        self.role = role
        self.sequence = sequence
    }
}

/// `GET /v1/homes`.
public struct HomeList: Codable, Sendable, Equatable {
    /// The homes the caller belongs to.
    public var homes: [HomeSummary]

    /// Makes the list.
    public init(homes: [HomeSummary]) { self.homes = homes }
}

/// `GET /v1/homes/{homeID}` and `POST /v1/homes`: the whole home, the caller's role, the last sequence.
public struct HomeResponse: Codable, Sendable, Equatable {
    /// The whole home.
    public var home: Home
    /// The caller's role in it.
    public var role: UserRole
    /// The sequence number of its last change: resume the event stream from here.
    public var sequence: UInt64

    /// Makes the response.
    public init(home: Home, role: UserRole, sequence: UInt64) {
        self.home = home
        self.role = role
        self.sequence = sequence
    }
}

/// `GET /v1/me`.
public struct MeResponse: Codable, Sendable, Equatable {
    /// The caller.
    public struct Person: Codable, Sendable, Equatable {
        /// The user id, the same in every home.
        public var id: UUID
        /// The account's name.
        public var name: String

        /// Makes a person.
        public init(id: UUID, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// Who is calling.
    public var user: Person
    /// The id of the token used for this request.
    public var tokenID: UUID
    /// Every home the caller belongs to, with their role.
    public var homes: [HomeSummary]

    /// Makes the response.
    public init(user: Person, tokenID: UUID, homes: [HomeSummary]) {
        self.user = user
        self.tokenID = tokenID
        self.homes = homes
    }
}

/// A token of the caller as listed (never the token itself).
public struct TokenInfo: Codable, Sendable, Equatable {
    /// The token's id.
    public var id: UUID
    /// Its label.
    public var label: String
    /// When it was made.
    public var createdAt: Date

    /// Makes a token description.
    public init(id: UUID, label: String, createdAt: Date) {
        self.id = id
        self.label = label
        self.createdAt = createdAt
    }
}

/// `GET /v1/me/tokens`.
public struct TokenList: Codable, Sendable, Equatable {
    /// The caller's tokens.
    public var tokens: [TokenInfo]

    /// Makes the list.
    public init(tokens: [TokenInfo]) { self.tokens = tokens }
}

/// `POST /v1/me/tokens` and `POST /v1/invites/redeem`: a new token, shown once.
public struct NewToken: Codable, Sendable, Equatable {
    /// The person's user id.
    public var userID: UUID
    /// The token's id.
    public var tokenID: UUID
    /// The bearer token; store it, it is not shown again.
    public var token: String

    /// Makes the response.
    public init(userID: UUID, tokenID: UUID, token: String) {
        self.userID = userID
        self.tokenID = tokenID
        self.token = token
    }
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

    /// Makes an invite description.
    public init(id: UUID, homeID: UUID, role: UserRole, invitedBy: UUID, expiresAt: Date) {
        self.id = id
        self.homeID = homeID
        self.role = role
        self.invitedBy = invitedBy
        self.expiresAt = expiresAt
    }
}

/// `GET …/invites`.
public struct InviteList: Codable, Sendable, Equatable {
    /// The pending invites.
    public var invites: [InviteInfo]

    /// Makes the list.
    public init(invites: [InviteInfo]) { self.invites = invites }
}

/// `POST …/invites`: the invite and its one-time code, shown once.
public struct NewInvite: Codable, Sendable, Equatable {
    /// The invite.
    public var invite: InviteInfo
    /// The one-time code to give the invitee.
    public var code: String

    /// Makes the response.
    public init(invite: InviteInfo, code: String) {
        self.invite = invite
        self.code = code
    }
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

    /// Makes the response.
    public init(homeID: UUID, role: UserRole, userID: UUID, token: NewToken?) {
        self.homeID = homeID
        self.role = role
        self.userID = userID
        self.token = token
    }
}

/// `GET …/changes?after=N`.
public struct ChangesResponse: Codable, Sendable, Equatable {
    /// The changes after N, oldest first; empty when reload is required.
    public var events: [HomeEvent]
    /// Whether the changes are no longer kept and the client must reload the home.
    public var reloadRequired: Bool
    /// The home's current sequence number.
    public var currentSequence: UInt64

    /// Makes the response.
    public init(events: [HomeEvent], reloadRequired: Bool, currentSequence: UInt64) {
        self.events = events
        self.reloadRequired = reloadRequired
        self.currentSequence = currentSequence
    }
}

/// `GET …/rooms`.
public struct RoomList: Codable, Sendable, Equatable {
    /// The rooms, the room for the entire home first.
    public var rooms: [Room]
    /// The id of the room for the entire home.
    public var roomForEntireHomeID: UUID

    /// Makes the list.
    public init(rooms: [Room], roomForEntireHomeID: UUID) {
        self.rooms = rooms
        self.roomForEntireHomeID = roomForEntireHomeID
    }
}

/// `GET …/zones`.
public struct ZoneList: Codable, Sendable, Equatable {
    /// The zones.
    public var zones: [Zone]

    /// Makes the list.
    public init(zones: [Zone]) { self.zones = zones }
}

/// `GET …/accessories` and `POST …/accessories`.
public struct AccessoryList: Codable, Sendable, Equatable {
    /// The accessories.
    public var accessories: [Accessory]

    /// Makes the list.
    public init(accessories: [Accessory]) { self.accessories = accessories }
}

/// `GET …/accessories/{accessoryID}`.
public struct AccessoryResponse: Codable, Sendable, Equatable {
    /// The accessory.
    public var accessory: Accessory

    /// Makes the response.
    public init(accessory: Accessory) { self.accessory = accessory }
}

/// An accessory found on the network that is not paired yet.
public struct NearbyAccessory: Sendable, Codable, Equatable {
    /// The HAP device id (`AA:BB:CC:DD:EE:FF`).
    public var deviceID: String
    /// The name it advertises.
    public var name: String
    /// Its category number (HAP `ci`).
    public var category: Int
    /// Whether it is still unpaired (HAP status flag).
    public var isPairable: Bool

    /// Makes a description of a nearby accessory.
    public init(deviceID: String, name: String, category: Int, isPairable: Bool) {
        self.deviceID = deviceID
        self.name = name
        self.category = category
        self.isPairable = isPairable
    }
}

/// `GET …/accessories/nearby`.
public struct NearbyList: Codable, Sendable, Equatable {
    /// The unpaired accessories found.
    public var accessories: [NearbyAccessory]

    /// Makes the list.
    public init(accessories: [NearbyAccessory]) { self.accessories = accessories }
}

/// `GET …/characteristics/{characteristicID}`: the characteristic with its last known value.
public struct CharacteristicResponse: Codable, Sendable, Equatable {
    /// The characteristic.
    public var characteristic: Characteristic
    /// The accessory it belongs to.
    public var accessoryID: UUID

    /// Makes the response.
    public init(characteristic: Characteristic, accessoryID: UUID) {
        self.characteristic = characteristic
        self.accessoryID = accessoryID
    }
}

/// The outcome of one write of a batch: the value accepted, or why it was refused.
public struct CharacteristicWriteResult: Sendable, Codable, Equatable {
    /// The characteristic written.
    public var characteristicID: UUID
    /// The value the accessory accepted, or `nil` when refused.
    public var value: HAPValue?
    /// Why it was refused, or `nil`.
    public var error: ErrorBody.Detail?

    /// Makes a result.
    public init(characteristicID: UUID, value: HAPValue?, error: ErrorBody.Detail?) {
        self.characteristicID = characteristicID
        self.value = value
        self.error = error
    }
}

/// Characteristic writes and action set runs: each write's outcome.
public struct WriteResults: Codable, Sendable, Equatable {
    /// One result per write.
    public var results: [CharacteristicWriteResult]

    /// Makes the response.
    public init(results: [CharacteristicWriteResult]) { self.results = results }
}

/// `GET …/serviceGroups`.
public struct ServiceGroupList: Codable, Sendable, Equatable {
    /// The service groups.
    public var serviceGroups: [ServiceGroup]

    /// Makes the list.
    public init(serviceGroups: [ServiceGroup]) { self.serviceGroups = serviceGroups }
}

/// `GET …/actionSets`.
public struct ActionSetList: Codable, Sendable, Equatable {
    /// The action sets (scenes).
    public var actionSets: [ActionSet]

    /// Makes the list.
    public init(actionSets: [ActionSet]) { self.actionSets = actionSets }
}

/// `GET …/actionSets/kinds/{kind}`: one action set.
public struct ActionSetResponse: Codable, Sendable, Equatable {
    /// The action set.
    public var actionSet: ActionSet

    /// Makes the response.
    public init(actionSet: ActionSet) { self.actionSet = actionSet }
}

/// `GET …/triggers`.
public struct TriggerList: Codable, Sendable, Equatable {
    /// The triggers.
    public var triggers: [Trigger]

    /// Makes the list.
    public init(triggers: [Trigger]) { self.triggers = triggers }

    /// Makes the list from a home's triggers.
    public init(triggers: ChunkedArray<Trigger>) { self.triggers = Array(triggers) }
}

/// `GET …/triggers/{triggerID}`.
public struct TriggerResponse: Codable, Sendable, Equatable {
    /// The trigger.
    public var trigger: Trigger

    /// Makes the response.
    public init(trigger: Trigger) { self.trigger = trigger }
}

/// `GET …/triggers/{triggerID}/decisions`.
public struct TriggerDecisionList: Codable, Sendable, Equatable {
    /// The recent decisions, newest first.
    public var decisions: [TriggerDecision]

    /// Makes the list.
    public init(decisions: [TriggerDecision]) { self.decisions = decisions }
}

/// `GET …/users`.
public struct UserList: Codable, Sendable, Equatable {
    /// The home's users and their roles.
    public var users: [User]

    /// Makes the list.
    public init(users: [User]) { self.users = users }
}

/// The answer to a change: `{"events": [HomeEvent]}`.
public struct Events: Codable, Sendable, Equatable {
    /// The change events the call made, in order.
    public var events: [HomeEvent]

    /// Makes the response.
    public init(events: [HomeEvent]) { self.events = events }
}

/// The answer to an addition: its events and the new object under `key` (`room`, `zone`, …).
public struct Created<Object: Codable & Sendable & Equatable>: Decodable, Sendable, Equatable {
    /// The change events the call made, in order.
    public var events: [HomeEvent]
    /// The new object.
    public var object: Object

    /// Makes the answer to an addition.
    public init(object: Object, events: [HomeEvent]) {
        self.object = object
        self.events = events
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads `{"events": […], "<kind>": {…}}`: the object is the one field other than `events`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        events = try container.decode([HomeEvent].self, forKey: Key(stringValue: "events"))
        guard let key = container.allKeys.first(where: { $0.stringValue != "events" }) else {
            throw DecodingError.keyNotFound(
                Key(stringValue: "object"),
                .init(codingPath: container.codingPath, debugDescription: "the new object is missing")
            )
        }
        object = try container.decode(Object.self, forKey: key)
    }
}

extension Created: Encodable where Object: CreatedObject {
    /// Writes `{"events": […], "<kind>": {…}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(events, forKey: Key(stringValue: "events"))
        try container.encode(object, forKey: Key(stringValue: Object.createdKey))
    }
}

/// The JSON body of every error response.
public struct ErrorBody: Codable, Sendable, Equatable {
    /// The code and message.
    public struct Detail: Codable, Sendable, Equatable {
        /// The stable, machine-readable code.
        public var code: String
        /// A sentence for people.
        public var message: String

        /// Makes a detail.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// What went wrong.
    public var error: Detail

    /// Makes an error body.
    public init(error: Detail) { self.error = error }
}

/// An object an addition answers with, under a key named for its kind.
public protocol CreatedObject: Codable, Sendable, Equatable {
    /// The key of the new object in the answer: `room`, `zone`, `serviceGroup`, `actionSet`, `trigger`.
    static var createdKey: String { get }
}

extension Room: CreatedObject {
    /// `room`.
    public static var createdKey: String { "room" }
}

extension Zone: CreatedObject {
    /// `zone`.
    public static var createdKey: String { "zone" }
}

extension ServiceGroup: CreatedObject {
    /// `serviceGroup`.
    public static var createdKey: String { "serviceGroup" }
}

extension ActionSet: CreatedObject {
    /// `actionSet`.
    public static var createdKey: String { "actionSet" }
}

extension Trigger: CreatedObject {
    /// `trigger`.
    public static var createdKey: String { "trigger" }
}
