import Foundation
import HAPTypes
import HomeGraph

// Request bodies. Field names are the API's, camelCase and stable (docs/api/openapi.yaml).

/// `POST /v1/homes`.
public struct CreateHomeBody: Codable, Sendable, Equatable {
    /// The home's name.
    public var name: String
    /// Its IANA time zone (UTC when absent).
    public var timeZone: String?

    /// Makes the body.
    public init(name: String, timeZone: String? = nil) {
        self.name = name
        self.timeZone = timeZone
    }
}

/// `PATCH /v1/homes/{homeID}`: each field given is applied as its own change, in this order.
public struct UpdateHomeBody: Codable, Sendable, Equatable {
    /// A new name.
    public var name: String?
    /// A new IANA time zone.
    public var timeZone: String?
    /// The radius in metres, 10 to 100000, of the circle around the home's location that counts as home.
    public var presenceRadius: Double?
    /// The unit the home's people say and read temperatures in: `celsius` or `fahrenheit`.
    public var temperatureUnit: TemperatureUnit?

    /// Makes the body.
    public init(
        name: String? = nil,
        timeZone: String? = nil,
        presenceRadius: Double? = nil,
        temperatureUnit: TemperatureUnit? = nil
    ) {
        self.name = name
        self.timeZone = timeZone
        self.presenceRadius = presenceRadius
        self.temperatureUnit = temperatureUnit
    }
}

/// `POST /v1/homes/{homeID}/presence`: the caller's own presence.
public struct PresenceBody: Codable, Sendable, Equatable {
    /// Whether the caller is home; when absent, the hub decides from `position`.
    public var isHome: Bool?
    /// Where the caller is; tested against the home's location and presence radius when `isHome` is absent.
    public var position: Location?

    /// Makes the body.
    public init(isHome: Bool? = nil, position: Location? = nil) {
        self.isHome = isHome
        self.position = position
    }
}

/// A new object or a new name: `{"name": "…"}`.
public struct NameBody: Codable, Sendable, Equatable {
    /// The name.
    public var name: String

    /// Makes the body.
    public init(name: String) { self.name = name }
}

/// `POST …/zones`.
public struct CreateZoneBody: Codable, Sendable, Equatable {
    /// The zone's name.
    public var name: String
    /// The rooms in it.
    public var roomIDs: [UUID]?

    /// Makes the body.
    public init(name: String, roomIDs: [UUID]? = nil) {
        self.name = name
        self.roomIDs = roomIDs
    }
}

/// `PATCH …/accessories/{accessoryID}`.
public struct UpdateAccessoryBody: Codable, Sendable, Equatable {
    /// A new name.
    public var name: String?
    /// The room to move it to.
    public var roomID: UUID?

    /// Makes the body.
    public init(name: String? = nil, roomID: UUID? = nil) {
        self.name = name
        self.roomID = roomID
    }
}

/// `POST …/accessories`: pair with a setup code, by `deviceID` (found nearby) or by `host` and `port`.
public struct PairAccessoryBody: Codable, Sendable, Equatable {
    /// The HAP device id of the accessory found nearby; give this or `host` and `port`.
    public var deviceID: String?
    /// The address of an accessory that is not advertised over mDNS (with `port`).
    public var host: String?
    /// The TCP port of that accessory (with `host`).
    public var port: Int?
    /// Its setup code, `XXX-XX-XXX`.
    public var setupCode: String
    /// A name to give it (when it is a single accessory).
    public var name: String?
    /// The room to put it in.
    public var roomID: UUID?

    /// Makes the body.
    public init(
        deviceID: String? = nil,
        host: String? = nil,
        port: Int? = nil,
        setupCode: String,
        name: String? = nil,
        roomID: UUID? = nil
    ) {
        self.deviceID = deviceID
        self.host = host
        self.port = port
        self.setupCode = setupCode
        self.name = name
        self.roomID = roomID
    }
}

/// `PUT …/characteristics/{characteristicID}`.
public struct WriteValueBody: Codable, Sendable, Equatable {
    /// The value to write.
    public var value: HAPValue

    /// Makes the body.
    public init(value: HAPValue) { self.value = value }
}

/// `PUT …/characteristics`.
public struct BatchWriteBody: Codable, Sendable, Equatable {
    /// The writes, all in flight at once.
    public var writes: [CharacteristicWrite]

    /// Makes the body.
    public init(writes: [CharacteristicWrite]) { self.writes = writes }
}

/// `PUT …/characteristics/{characteristicID}/notifications`.
public struct NotificationsBody: Codable, Sendable, Equatable {
    /// Whether events are on.
    public var isEnabled: Bool

    /// Makes the body.
    public init(isEnabled: Bool) { self.isEnabled = isEnabled }
}

/// `POST …/serviceGroups`.
public struct CreateServiceGroupBody: Codable, Sendable, Equatable {
    /// The group's name.
    public var name: String
    /// The services in it.
    public var serviceIDs: [UUID]?

    /// Makes the body.
    public init(name: String, serviceIDs: [UUID]? = nil) {
        self.name = name
        self.serviceIDs = serviceIDs
    }
}

/// `POST …/actionSets`.
public struct CreateActionSetBody: Codable, Sendable, Equatable {
    /// The action set's name.
    public var name: String
    /// Its kind (user-defined when absent).
    public var kind: ActionSetKind?
    /// Its actions.
    public var actions: [Action]?

    /// Makes the body.
    public init(name: String, kind: ActionSetKind? = nil, actions: [Action]? = nil) {
        self.name = name
        self.kind = kind
        self.actions = actions
    }
}

/// `PATCH …/actionSets/{actionSetID}`.
public struct UpdateActionSetBody: Codable, Sendable, Equatable {
    /// A new name.
    public var name: String?
    /// New actions, replacing the old ones.
    public var actions: [Action]?

    /// Makes the body.
    public init(name: String? = nil, actions: [Action]? = nil) {
        self.name = name
        self.actions = actions
    }
}

/// `POST …/triggers`.
public struct CreateTriggerBody: Codable, Sendable, Equatable {
    /// The trigger's name.
    public var name: String
    /// Whether it is on (on when absent).
    public var isEnabled: Bool?
    /// The action sets it runs.
    public var actionSetIDs: [UUID]?
    /// What makes it fire (a timer or events), what must hold, and what follows.
    public var definition: TriggerDefinition?

    /// Makes the body.
    public init(
        name: String,
        isEnabled: Bool? = nil,
        actionSetIDs: [UUID]? = nil,
        definition: TriggerDefinition? = nil
    ) {
        self.name = name
        self.isEnabled = isEnabled
        self.actionSetIDs = actionSetIDs
        self.definition = definition
    }
}

/// `PATCH …/triggers/{triggerID}`.
public struct UpdateTriggerBody: Codable, Sendable, Equatable {
    /// A new name.
    public var name: String?
    /// On or off.
    public var isEnabled: Bool?
    /// A new definition (checked like a new trigger's; what the trigger remembered starts over).
    public var definition: TriggerDefinition?
    /// The action sets it runs, replacing the old list.
    public var actionSetIDs: [UUID]?

    /// Makes the body.
    public init(
        name: String? = nil,
        isEnabled: Bool? = nil,
        definition: TriggerDefinition? = nil,
        actionSetIDs: [UUID]? = nil
    ) {
        self.name = name
        self.isEnabled = isEnabled
        self.definition = definition
        self.actionSetIDs = actionSetIDs
    }
}

/// `PATCH …/users/{userID}`.
public struct UpdateUserBody: Codable, Sendable, Equatable {
    /// The new role.
    public var role: UserRole

    /// Makes the body.
    public init(role: UserRole) { self.role = role }
}

/// `POST …/invites`.
public struct CreateInviteBody: Codable, Sendable, Equatable {
    /// The role the invitee gets.
    public var role: UserRole

    /// Makes the body.
    public init(role: UserRole) { self.role = role }
}

/// `POST /v1/invites/redeem`.
public struct RedeemInviteBody: Codable, Sendable, Equatable {
    /// The one-time code; dashes and spaces are ignored.
    public var code: String
    /// The new account's name (required without a token).
    public var name: String?

    /// Makes the body.
    public init(code: String, name: String? = nil) {
        self.code = code
        self.name = name
    }
}

/// `POST /v1/me/tokens`.
public struct CreateTokenBody: Codable, Sendable, Equatable {
    /// A label for the token.
    public var label: String?

    /// Makes the body.
    public init(label: String? = nil) { self.label = label }
}

/// The body of `POST /v1/session`: what a browser signs in with (none of it is kept in the cookie): a token, a
/// name and password, or the secret of a sign-in link; exactly one of the three.
public struct SignInBody: Codable, Sendable, Equatable {
    /// A bearer token of the account.
    public var token: String?
    /// The account's name (with `password`).
    public var name: String?
    /// The account's password (with `name`).
    public var password: String?
    /// The secret of a sign-in link (`#signin=` in its URL).
    public var link: String?

    /// Makes the body that signs in with a token.
    public init(token: String) { self.token = token }

    /// Makes the body that signs in with a name and password.
    public init(name: String, password: String) {
        self.name = name
        self.password = password
    }

    /// Makes the body that signs in with a sign-in link's secret.
    public init(link: String) { self.link = link }
}

/// The body of `PUT /v1/account/password`: the new password, and the current one when the account has one.
public struct SetPasswordBody: Codable, Sendable, Equatable {
    /// The new password (8 to 256 characters, no control characters).
    public var password: String
    /// The current password; required when the account already has one.
    public var currentPassword: String?

    /// Makes the body.
    public init(password: String, currentPassword: String? = nil) {
        self.password = password
        self.currentPassword = currentPassword
    }
}

/// One characteristic write of a batch.
public struct CharacteristicWrite: Sendable, Codable, Equatable {
    /// The characteristic written.
    public var characteristicID: UUID
    /// The value.
    public var value: HAPValue

    /// Makes a write.
    public init(characteristicID: UUID, value: HAPValue) {
        self.characteristicID = characteristicID
        self.value = value
    }
}

/// `POST /v1/homes/{homeID}/commands`: a sentence to read against the home and, unless `dryRun`, carry out.
public struct CommandBody: Codable, Sendable, Equatable {
    /// The sentence: at most 1000 characters, no control characters.
    public var text: String
    /// The name of the room the speaker is in ("turn off the light", "in here").
    public var room: String?
    /// Only resolve the sentence; change nothing (false when absent).
    public var dryRun: Bool?

    /// Makes the body.
    public init(text: String, room: String? = nil, dryRun: Bool? = nil) {
        self.text = text
        self.room = room
        self.dryRun = dryRun
    }
}
