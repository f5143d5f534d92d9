import Commands
import Foundation
import HomeGraph

// Every endpoint of the API, described once: the hub registers its routes from these, HearthKit makes its calls
// from them, and a test checks docs/api/openapi.yaml against them.

/// The API's endpoints, in the order of docs/api/openapi.yaml.
public enum Endpoints {
    // MARK: The caller, tokens, invites

    /// `GET /v1/me`.
    public static let getMe = Endpoint<NoBody, MeResponse>(
        .get("/v1/me"),
        .signedIn,
        "The caller: user id, name, token id, and every home with their role."
    )
    /// `GET /v1/me/tokens`.
    public static let listTokens = Endpoint<NoBody, TokenList>(
        .get("/v1/me/tokens"),
        .signedIn,
        "The caller's tokens (ids and labels, never the tokens)."
    )
    /// `POST /v1/me/tokens`.
    public static let createToken = Endpoint<CreateTokenBody, NewToken>(
        .post("/v1/me/tokens"),
        .signedIn,
        status: 201,
        "Make another token for the caller (shown once)."
    )
    /// `DELETE /v1/me/tokens/{tokenID}`.
    public static let revokeToken = Endpoint<NoBody, NoContent>(
        .delete("/v1/me/tokens/{tokenID}"),
        .signedIn,
        status: 204,
        "Revoke one of the caller's tokens; event WebSockets opened with it close at once."
    )
    /// `GET /v1/hub/identity`.
    public static let hubIdentity = Endpoint<NoBody, HubIdentityInfo>(
        .get("/v1/hub/identity"),
        .signedIn,
        "The hub's long-term public key, its fingerprint and routing id (for pairing and relays)."
    )
    /// `POST /v1/hub/pairing-attempts/reset`.
    public static let resetPairingAttempts = Endpoint<NoBody, NoContent>(
        .post("/v1/hub/pairing-attempts/reset"),
        .signedIn,
        status: 204,
        "Reset the count of wrong pairing codes; only a home's owner, only over loopback HTTP."
    )
    /// `POST /v1/account/pairing-codes`.
    public static let createPairingCode = Endpoint<CreatePairingCodeBody, NewPairingCode>(
        .post("/v1/account/pairing-codes"),
        .signedIn,
        status: 201,
        "Make a one-time code that pairs another device with the caller's account (shown once)."
    )
    /// `GET /v1/account/pairings`.
    public static let listPairings = Endpoint<NoBody, PairingList>(
        .get("/v1/account/pairings"),
        .signedIn,
        "The devices paired with the caller's account."
    )
    /// `DELETE /v1/account/pairings/{pairingID}`.
    public static let deletePairing = Endpoint<NoBody, NoContent>(
        .delete("/v1/account/pairings/{pairingID}"),
        .signedIn,
        status: 204,
        "Remove a pairing (the caller's own; an owner or administrator any of a user of their home); its sessions close at once."
    )
    /// `GET /v1/events`.
    public static let events = Endpoint<NoBody, NoContent>(
        .get("/v1/events"),
        .signedIn,
        status: 101,
        "The change-event WebSocket (see the description of the API)."
    )
    /// `POST /v1/invites/redeem`.
    public static let redeemInvite = Endpoint<RedeemInviteBody, RedeemedInvite>(
        .post("/v1/invites/redeem"),
        .noToken,
        status: 201,
        "Redeem an invite code: joins the home with the invite's role."
    )
    /// `POST /v1/session`.
    public static let createSession = Endpoint<SignInBody, MeResponse>(
        .post("/v1/session"),
        .noToken,
        status: 201,
        "Sign a browser in with a token, a name and password, or a sign-in link: answers the caller and sets the session cookie."
    )
    /// `DELETE /v1/session`.
    public static let deleteSession = Endpoint<NoBody, NoContent>(
        .delete("/v1/session"),
        .signedIn,
        status: 204,
        "Sign the browser out: the session is revoked on the hub and its cookie cleared."
    )
    /// `PUT /v1/account/password`.
    public static let setPassword = Endpoint<SetPasswordBody, NoContent>(
        .put("/v1/account/password"),
        .signedIn,
        status: 204,
        "Set the caller's password (the current one is required when one is set); the hub keeps only a scrypt hash."
    )
    /// `POST /v1/account/sign-in-links`.
    public static let createSignInLink = Endpoint<NoBody, NewSignInLink>(
        .post("/v1/account/sign-in-links"),
        .signedIn,
        status: 201,
        "Make a one-time link that signs a browser in to the caller's account for 10 minutes (shown once)."
    )

    // MARK: Homes

    /// `GET /v1/homes`.
    public static let listHomes = Endpoint<NoBody, HomeList>(
        .get("/v1/homes"),
        .signedIn,
        "The homes the caller belongs to."
    )
    /// `POST /v1/homes`.
    public static let createHome = Endpoint<CreateHomeBody, HomeResponse>(
        .post("/v1/homes"),
        .signedIn,
        status: 201,
        "Add a home; the caller becomes its owner."
    )
    /// `POST /v1/homes/import`.
    public static let importHome = Endpoint<HomeFile, HomeResponse>(
        .post("/v1/homes/import"),
        .signedIn,
        status: 201,
        "Add the home of a home file (docs/home-file.md) with its ids; the caller becomes its owner."
    )
    /// `GET /v1/homes/{homeID}`.
    public static let getHome = Endpoint<NoBody, HomeResponse>(
        .get("/v1/homes/{homeID}"),
        .signedIn,
        "The whole home, the caller's role and the home's last sequence number."
    )
    /// `PATCH /v1/homes/{homeID}`.
    public static let updateHome = Endpoint<UpdateHomeBody, Events>(
        .patch("/v1/homes/{homeID}"),
        .configure,
        "Rename the home, set its time zone, presence radius and/or temperature unit (each field given is its own change, in order)."
    )
    /// `DELETE /v1/homes/{homeID}`.
    public static let deleteHome = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}"),
        .owner,
        "Remove the home and everything in it."
    )
    /// `POST /v1/homes/{homeID}/primary`.
    public static let setPrimaryHome = Endpoint<NoBody, Events>(
        .post("/v1/homes/{homeID}/primary"),
        .configure,
        "Make the home the primary one."
    )
    /// `PUT /v1/homes/{homeID}/location`.
    public static let setLocation = Endpoint<Location, Events>(
        .put("/v1/homes/{homeID}/location"),
        .configure,
        "Set where the home is (for sunrise and sunset)."
    )
    /// `DELETE /v1/homes/{homeID}/location`.
    public static let clearLocation = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}/location"),
        .configure,
        "Clear the home's location."
    )
    /// `POST /v1/homes/{homeID}/presence`.
    public static let reportPresence = Endpoint<PresenceBody, Events>(
        .post("/v1/homes/{homeID}/presence"),
        .control,
        "Report the caller's own presence: home or away, or a position the hub tests against the home's region."
    )
    /// `GET /v1/homes/{homeID}/changes`.
    public static let listChanges = Endpoint<NoBody, ChangesResponse>(
        .get("/v1/homes/{homeID}/changes"),
        .signedIn,
        "The changes after sequence `after`, oldest first, or reloadRequired when they are no longer kept; or the newest `last`."
    )

    // MARK: Rooms and zones

    /// `GET /v1/homes/{homeID}/rooms`.
    public static let listRooms = Endpoint<NoBody, RoomList>(
        .get("/v1/homes/{homeID}/rooms"),
        .signedIn,
        "The rooms, the room for the entire home first."
    )
    /// `POST /v1/homes/{homeID}/rooms`.
    public static let createRoom = Endpoint<NameBody, Created<Room>>(
        .post("/v1/homes/{homeID}/rooms"),
        .configure,
        status: 201,
        "Add a room."
    )
    /// `PATCH /v1/homes/{homeID}/rooms/{roomID}`.
    public static let renameRoom = Endpoint<NameBody, Events>(
        .patch("/v1/homes/{homeID}/rooms/{roomID}"),
        .configure,
        "Rename a room."
    )
    /// `DELETE /v1/homes/{homeID}/rooms/{roomID}`.
    public static let deleteRoom = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}/rooms/{roomID}"),
        .configure,
        "Remove a room; its accessories move to the room for the entire home."
    )
    /// `GET /v1/homes/{homeID}/zones`.
    public static let listZones = Endpoint<NoBody, ZoneList>(
        .get("/v1/homes/{homeID}/zones"),
        .signedIn,
        "The zones."
    )
    /// `POST /v1/homes/{homeID}/zones`.
    public static let createZone = Endpoint<CreateZoneBody, Created<Zone>>(
        .post("/v1/homes/{homeID}/zones"),
        .configure,
        status: 201,
        "Add a zone of existing rooms."
    )
    /// `PATCH /v1/homes/{homeID}/zones/{zoneID}`.
    public static let renameZone = Endpoint<NameBody, Events>(
        .patch("/v1/homes/{homeID}/zones/{zoneID}"),
        .configure,
        "Rename a zone."
    )
    /// `DELETE /v1/homes/{homeID}/zones/{zoneID}`.
    public static let deleteZone = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}/zones/{zoneID}"),
        .configure,
        "Remove a zone; its rooms stay."
    )
    /// `PUT /v1/homes/{homeID}/zones/{zoneID}/rooms/{roomID}`.
    public static let addRoomToZone = Endpoint<NoBody, Events>(
        .put("/v1/homes/{homeID}/zones/{zoneID}/rooms/{roomID}"),
        .configure,
        "Put a room in a zone."
    )
    /// `DELETE /v1/homes/{homeID}/zones/{zoneID}/rooms/{roomID}`.
    public static let removeRoomFromZone = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}/zones/{zoneID}/rooms/{roomID}"),
        .configure,
        "Take a room out of a zone."
    )

    // MARK: Accessories, services, characteristics

    /// `GET /v1/homes/{homeID}/accessories`.
    public static let listAccessories = Endpoint<NoBody, AccessoryList>(
        .get("/v1/homes/{homeID}/accessories"),
        .signedIn,
        "The home's accessories with their services and characteristics."
    )
    /// `POST /v1/homes/{homeID}/accessories`.
    public static let pairAccessory = Endpoint<PairAccessoryBody, AccessoryList>(
        .post("/v1/homes/{homeID}/accessories"),
        .configure,
        status: 201,
        "Pair an accessory with its setup code and add it."
    )
    /// `GET /v1/homes/{homeID}/accessories/nearby`.
    public static let listNearbyAccessories = Endpoint<NoBody, NearbyList>(
        .get("/v1/homes/{homeID}/accessories/nearby"),
        .configure,
        "Unpaired accessories the hub finds over mDNS on the interfaces it browses (none when it browses none)."
    )
    /// `GET /v1/homes/{homeID}/accessories/{accessoryID}`.
    public static let getAccessory = Endpoint<NoBody, AccessoryResponse>(
        .get("/v1/homes/{homeID}/accessories/{accessoryID}"),
        .signedIn,
        "One accessory."
    )
    /// `PATCH /v1/homes/{homeID}/accessories/{accessoryID}`.
    public static let updateAccessory = Endpoint<UpdateAccessoryBody, Events>(
        .patch("/v1/homes/{homeID}/accessories/{accessoryID}"),
        .configure,
        "Rename an accessory and/or move it to another room (each field its own change, in this order)."
    )
    /// `DELETE /v1/homes/{homeID}/accessories/{accessoryID}`.
    public static let deleteAccessory = Endpoint<NoBody, NoContent>(
        .delete("/v1/homes/{homeID}/accessories/{accessoryID}"),
        .configure,
        status: 204,
        "Unpair and remove an accessory (a bridge: with the accessories behind it)."
    )
    /// `POST /v1/homes/{homeID}/accessories/{accessoryID}/identify`.
    public static let identifyAccessory = Endpoint<NoBody, NoContent>(
        .post("/v1/homes/{homeID}/accessories/{accessoryID}/identify"),
        .control,
        status: 204,
        "Ask the accessory to identify itself (blink, beep)."
    )
    /// `PATCH /v1/homes/{homeID}/services/{serviceID}`.
    public static let renameService = Endpoint<NameBody, Events>(
        .patch("/v1/homes/{homeID}/services/{serviceID}"),
        .configure,
        "Rename a service; its own accessory's name is allowed, another object's is 409 nameTaken."
    )
    /// `GET /v1/homes/{homeID}/characteristics/{characteristicID}`.
    public static let readCharacteristic = Endpoint<NoBody, CharacteristicResponse>(
        .get("/v1/homes/{homeID}/characteristics/{characteristicID}"),
        .control,
        "Read a characteristic: its metadata and last known value."
    )
    /// `PUT /v1/homes/{homeID}/characteristics/{characteristicID}`.
    public static let writeCharacteristic = Endpoint<WriteValueBody, WriteResults>(
        .put("/v1/homes/{homeID}/characteristics/{characteristicID}"),
        .control,
        "Write a value through the accessory."
    )
    /// `PUT /v1/homes/{homeID}/characteristics`.
    public static let writeCharacteristics = Endpoint<BatchWriteBody, WriteResults>(
        .put("/v1/homes/{homeID}/characteristics"),
        .control,
        "Write many characteristics at once, one request per accessory server, all in flight together."
    )
    /// `PUT /v1/homes/{homeID}/characteristics/{characteristicID}/notifications`.
    public static let setNotifications = Endpoint<NotificationsBody, Events>(
        .put("/v1/homes/{homeID}/characteristics/{characteristicID}/notifications"),
        .control,
        "Turn events of a characteristic on or off at the accessory, then record it; answers the change."
    )

    // MARK: Service groups

    /// `GET /v1/homes/{homeID}/serviceGroups`.
    public static let listServiceGroups = Endpoint<NoBody, ServiceGroupList>(
        .get("/v1/homes/{homeID}/serviceGroups"),
        .signedIn,
        "The service groups."
    )
    /// `POST /v1/homes/{homeID}/serviceGroups`.
    public static let createServiceGroup = Endpoint<CreateServiceGroupBody, Created<ServiceGroup>>(
        .post("/v1/homes/{homeID}/serviceGroups"),
        .configure,
        status: 201,
        "Add a service group."
    )
    /// `PATCH /v1/homes/{homeID}/serviceGroups/{groupID}`.
    public static let renameServiceGroup = Endpoint<NameBody, Events>(
        .patch("/v1/homes/{homeID}/serviceGroups/{groupID}"),
        .configure,
        "Rename a service group."
    )
    /// `DELETE /v1/homes/{homeID}/serviceGroups/{groupID}`.
    public static let deleteServiceGroup = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}/serviceGroups/{groupID}"),
        .configure,
        "Remove a service group; its services stay."
    )
    /// `PUT /v1/homes/{homeID}/serviceGroups/{groupID}/services/{serviceID}`.
    public static let addServiceToGroup = Endpoint<NoBody, Events>(
        .put("/v1/homes/{homeID}/serviceGroups/{groupID}/services/{serviceID}"),
        .configure,
        "Add a service to a group."
    )
    /// `DELETE /v1/homes/{homeID}/serviceGroups/{groupID}/services/{serviceID}`.
    public static let removeServiceFromGroup = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}/serviceGroups/{groupID}/services/{serviceID}"),
        .configure,
        "Take a service out of a group."
    )

    // MARK: Action sets (scenes)

    /// `GET /v1/homes/{homeID}/actionSets`.
    public static let listActionSets = Endpoint<NoBody, ActionSetList>(
        .get("/v1/homes/{homeID}/actionSets"),
        .signedIn,
        "The action sets (scenes)."
    )
    /// `POST /v1/homes/{homeID}/actionSets`.
    public static let createActionSet = Endpoint<CreateActionSetBody, Created<ActionSet>>(
        .post("/v1/homes/{homeID}/actionSets"),
        .configure,
        status: 201,
        "Add an action set."
    )
    /// `GET /v1/homes/{homeID}/actionSets/kinds/{kind}`.
    public static let getActionSetOfKind = Endpoint<NoBody, ActionSetResponse>(
        .get("/v1/homes/{homeID}/actionSets/kinds/{kind}"),
        .signedIn,
        "The built-in action set of a kind: wakeUp, homeDeparture, homeArrival or sleep."
    )
    /// `PATCH /v1/homes/{homeID}/actionSets/{actionSetID}`.
    public static let updateActionSet = Endpoint<UpdateActionSetBody, Events>(
        .patch("/v1/homes/{homeID}/actionSets/{actionSetID}"),
        .configure,
        "Rename an action set and/or replace its actions (each field its own change, in this order)."
    )
    /// `DELETE /v1/homes/{homeID}/actionSets/{actionSetID}`.
    public static let deleteActionSet = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}/actionSets/{actionSetID}"),
        .configure,
        "Remove an action set (and take it out of every trigger); a built-in one cannot be removed (409)."
    )
    /// `POST /v1/homes/{homeID}/actionSets/{actionSetID}/run`.
    public static let runActionSet = Endpoint<NoBody, WriteResults>(
        .post("/v1/homes/{homeID}/actionSets/{actionSetID}/run"),
        .control,
        "Run an action set: every write at once, one request per accessory server."
    )

    // MARK: Plain language

    /// `POST /v1/homes/{homeID}/commands`.
    public static let performCommand = Endpoint<CommandBody, CommandResult>(
        .post("/v1/homes/{homeID}/commands"),
        .control,
        "Read a sentence against the home and, unless dryRun, carry it out with the caller's rights (docs/commands.md)."
    )

    // MARK: Triggers

    /// `GET /v1/homes/{homeID}/triggers`.
    public static let listTriggers = Endpoint<NoBody, TriggerList>(
        .get("/v1/homes/{homeID}/triggers"),
        .signedIn,
        "The triggers."
    )
    /// `POST /v1/homes/{homeID}/triggers`.
    public static let createTrigger = Endpoint<CreateTriggerBody, Created<Trigger>>(
        .post("/v1/homes/{homeID}/triggers"),
        .configure,
        status: 201,
        "Add a trigger."
    )
    /// `GET /v1/homes/{homeID}/triggers/{triggerID}`.
    public static let getTrigger = Endpoint<NoBody, TriggerResponse>(
        .get("/v1/homes/{homeID}/triggers/{triggerID}"),
        .signedIn,
        "One trigger: its definition and what the hub remembers of it."
    )
    /// `PATCH /v1/homes/{homeID}/triggers/{triggerID}`.
    public static let updateTrigger = Endpoint<UpdateTriggerBody, Events>(
        .patch("/v1/homes/{homeID}/triggers/{triggerID}"),
        .configure,
        "Change a trigger: its name, definition, action sets and on/off state, in this order, whole or not at all."
    )
    /// `DELETE /v1/homes/{homeID}/triggers/{triggerID}`.
    public static let deleteTrigger = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}/triggers/{triggerID}"),
        .configure,
        "Remove a trigger."
    )

    /// `GET /v1/homes/{homeID}/triggers/{triggerID}/decisions`.
    public static let listTriggerDecisions = Endpoint<NoBody, TriggerDecisionList>(
        .get("/v1/homes/{homeID}/triggers/{triggerID}/decisions"),
        .control,
        "The trigger's recent decisions, newest first: what happened, each condition and write, why it did not fire."
    )

    // MARK: Users and invites

    /// `GET /v1/homes/{homeID}/users`.
    public static let listUsers = Endpoint<NoBody, UserList>(
        .get("/v1/homes/{homeID}/users"),
        .signedIn,
        "The home's users and their roles."
    )
    /// `PATCH /v1/homes/{homeID}/users/{userID}`.
    public static let setUserRole = Endpoint<UpdateUserBody, Events>(
        .patch("/v1/homes/{homeID}/users/{userID}"),
        .configure,
        "Change a user's role (making an owner, or changing the owner, needs the owner)."
    )
    /// `DELETE /v1/homes/{homeID}/users/{userID}`.
    public static let removeUser = Endpoint<NoBody, Events>(
        .delete("/v1/homes/{homeID}/users/{userID}"),
        .configure,
        "Remove a user from the home."
    )
    /// `GET /v1/homes/{homeID}/invites`.
    public static let listInvites = Endpoint<NoBody, InviteList>(
        .get("/v1/homes/{homeID}/invites"),
        .configure,
        "The home's pending invites (never their codes)."
    )
    /// `POST /v1/homes/{homeID}/invites`.
    public static let createInvite = Endpoint<CreateInviteBody, NewInvite>(
        .post("/v1/homes/{homeID}/invites"),
        .configure,
        status: 201,
        "Invite someone with a role: returns a one-time code (shown once)."
    )
    /// `DELETE /v1/homes/{homeID}/invites/{inviteID}`.
    public static let deleteInvite = Endpoint<NoBody, NoContent>(
        .delete("/v1/homes/{homeID}/invites/{inviteID}"),
        .configure,
        status: 204,
        "Withdraw a pending invite."
    )

    /// Every endpoint, in the order of docs/api/openapi.yaml.
    public static let all: [any APIEndpoint] = [
        getMe,
        listTokens,
        createToken,
        revokeToken,
        hubIdentity,
        resetPairingAttempts,
        createPairingCode,
        listPairings,
        deletePairing,
        events,
        redeemInvite,
        createSession,
        deleteSession,
        setPassword,
        createSignInLink,
        listHomes,
        createHome,
        importHome,
        getHome,
        updateHome,
        deleteHome,
        setPrimaryHome,
        setLocation,
        clearLocation,
        reportPresence,
        listChanges,
        listRooms,
        createRoom,
        renameRoom,
        deleteRoom,
        listZones,
        createZone,
        renameZone,
        deleteZone,
        addRoomToZone,
        removeRoomFromZone,
        listAccessories,
        pairAccessory,
        listNearbyAccessories,
        getAccessory,
        updateAccessory,
        deleteAccessory,
        identifyAccessory,
        renameService,
        readCharacteristic,
        writeCharacteristic,
        writeCharacteristics,
        setNotifications,
        listServiceGroups,
        createServiceGroup,
        renameServiceGroup,
        deleteServiceGroup,
        addServiceToGroup,
        removeServiceFromGroup,
        listActionSets,
        createActionSet,
        getActionSetOfKind,
        updateActionSet,
        deleteActionSet,
        runActionSet,
        performCommand,
        listTriggers,
        createTrigger,
        getTrigger,
        updateTrigger,
        deleteTrigger,
        listTriggerDecisions,
        listUsers,
        setUserRole,
        removeUser,
        listInvites,
        createInvite,
        deleteInvite,
    ]
}
