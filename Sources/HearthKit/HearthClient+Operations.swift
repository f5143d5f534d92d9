import Foundation
import HAPTypes
import HearthAPI
import HomeGraph

// One call per operation of docs/api/openapi.yaml, in the document's order.

extension HearthClient {
    // MARK: The caller, tokens, invites

    /// `GET /v1/me`: the caller's user id, name, token id and homes with their role.
    public func me() async throws(HearthError) -> MeResponse {
        try await call(.GET, "/v1/me", as: MeResponse.self)
    }

    /// `GET /v1/me/tokens`: the caller's tokens (never the tokens themselves).
    public func tokens() async throws(HearthError) -> [TokenInfo] {
        try await call(.GET, "/v1/me/tokens", as: TokenList.self).tokens
    }

    /// `POST /v1/me/tokens`: another token for the caller, shown once.
    public func createToken(label: String? = nil) async throws(HearthError) -> NewToken {
        try await call(.POST, "/v1/me/tokens", body: CreateTokenBody(label: label), as: NewToken.self)
    }

    /// `DELETE /v1/me/tokens/{tokenID}`: revokes one of the caller's tokens.
    public func revokeToken(_ tokenID: UUID) async throws(HearthError) {
        _ = try await send(.DELETE, "/v1/me/tokens/\(tokenID.uuidString)")
    }

    /// `POST /v1/invites/redeem`: joins a home with an invite code; without a token a new account named `name`
    /// is made and its token returned.
    public func redeemInvite(code: String, name: String? = nil) async throws(HearthError) -> RedeemedInvite {
        try await call(
            .POST,
            "/v1/invites/redeem",
            body: RedeemInviteBody(code: code, name: name),
            authenticated: token != nil,
            as: RedeemedInvite.self
        )
    }

    // MARK: Homes

    /// `GET /v1/homes`: the homes the caller belongs to.
    public func homes() async throws(HearthError) -> [HomeSummary] {
        try await call(.GET, "/v1/homes", as: HomeList.self).homes
    }

    /// `POST /v1/homes`: adds a home owned by the caller (the first one becomes primary).
    public func createHome(name: String, timeZone: String? = nil) async throws(HearthError) -> HomeResponse {
        try await call(.POST, "/v1/homes", body: CreateHomeBody(name: name, timeZone: timeZone), as: HomeResponse.self)
    }

    /// `GET /v1/homes/{homeID}`: the whole home, the caller's role and the home's last sequence number.
    public func home(_ homeID: UUID) async throws(HearthError) -> HomeResponse {
        try await call(.GET, Self.homePath(homeID), as: HomeResponse.self)
    }

    /// `PATCH /v1/homes/{homeID}`: renames the home and/or sets its time zone.
    @discardableResult
    public func updateHome(
        _ homeID: UUID,
        name: String? = nil,
        timeZone: String? = nil
    ) async throws(HearthError) -> [HomeEvent] {
        try await change(.PATCH, Self.homePath(homeID), body: UpdateHomeBody(name: name, timeZone: timeZone))
    }

    /// `DELETE /v1/homes/{homeID}`: removes the home and everything in it (owner only).
    @discardableResult
    public func removeHome(_ homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await change(.DELETE, Self.homePath(homeID))
    }

    /// `POST /v1/homes/{homeID}/primary`: makes the home the primary one.
    @discardableResult
    public func setPrimaryHome(_ homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await change(.POST, Self.homePath(homeID) + "/primary")
    }

    /// `PUT` or `DELETE /v1/homes/{homeID}/location`: sets the home's location, or clears it with `nil`.
    @discardableResult
    public func setLocation(_ location: Location?, ofHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        if let location {
            return try await change(.PUT, Self.homePath(homeID) + "/location", body: location)
        }
        return try await change(.DELETE, Self.homePath(homeID) + "/location")
    }

    /// `GET /v1/homes/{homeID}/changes?after=N`: the changes after N, or word that the home must be reloaded.
    public func changes(inHome homeID: UUID, after sequence: UInt64) async throws(HearthError) -> ChangesResponse {
        try await call(.GET, Self.homePath(homeID) + "/changes?after=\(sequence)", as: ChangesResponse.self)
    }

    // MARK: Rooms and zones

    /// `GET …/rooms`: the rooms, the room for the entire home first.
    public func rooms(inHome homeID: UUID) async throws(HearthError) -> RoomList {
        try await call(.GET, Self.homePath(homeID) + "/rooms", as: RoomList.self)
    }

    /// `POST …/rooms`: adds a room.
    public func addRoom(named name: String, toHome homeID: UUID) async throws(HearthError) -> Created<Room> {
        try await call(.POST, Self.homePath(homeID) + "/rooms", body: NameBody(name: name), as: Created<Room>.self)
    }

    /// `PATCH …/rooms/{roomID}`: renames a room.
    @discardableResult
    public func renameRoom(
        _ roomID: UUID,
        to name: String,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [HomeEvent]
    {
        try await change(.PATCH, Self.homePath(homeID) + "/rooms/\(roomID.uuidString)", body: NameBody(name: name))
    }

    /// `DELETE …/rooms/{roomID}`: removes a room; its accessories move to the room for the entire home.
    @discardableResult
    public func removeRoom(_ roomID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await change(.DELETE, Self.homePath(homeID) + "/rooms/\(roomID.uuidString)")
    }

    /// `GET …/zones`: the zones.
    public func zones(inHome homeID: UUID) async throws(HearthError) -> [Zone] {
        try await call(.GET, Self.homePath(homeID) + "/zones", as: ZoneList.self).zones
    }

    /// `POST …/zones`: adds a zone holding `roomIDs`.
    public func addZone(
        named name: String,
        roomIDs: [UUID] = [],
        toHome homeID: UUID
    ) async throws(HearthError) -> Created<Zone> {
        try await call(
            .POST,
            Self.homePath(homeID) + "/zones",
            body: CreateZoneBody(name: name, roomIDs: roomIDs),
            as: Created<Zone>.self
        )
    }

    /// `PATCH …/zones/{zoneID}`: renames a zone.
    @discardableResult
    public func renameZone(
        _ zoneID: UUID,
        to name: String,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [HomeEvent]
    {
        try await change(.PATCH, Self.homePath(homeID) + "/zones/\(zoneID.uuidString)", body: NameBody(name: name))
    }

    /// `DELETE …/zones/{zoneID}`: removes a zone.
    @discardableResult
    public func removeZone(_ zoneID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await change(.DELETE, Self.homePath(homeID) + "/zones/\(zoneID.uuidString)")
    }

    /// `PUT …/zones/{zoneID}/rooms/{roomID}`: puts a room in a zone.
    @discardableResult
    public func addRoom(
        _ roomID: UUID,
        toZone zoneID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [HomeEvent]
    {
        try await change(.PUT, Self.homePath(homeID) + "/zones/\(zoneID.uuidString)/rooms/\(roomID.uuidString)")
    }

    /// `DELETE …/zones/{zoneID}/rooms/{roomID}`: takes a room out of a zone.
    @discardableResult
    public func removeRoom(
        _ roomID: UUID,
        fromZone zoneID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [HomeEvent]
    {
        try await change(.DELETE, Self.homePath(homeID) + "/zones/\(zoneID.uuidString)/rooms/\(roomID.uuidString)")
    }

    // MARK: Accessories, services, characteristics

    /// `GET …/accessories`: the accessories with their services and characteristics.
    public func accessories(inHome homeID: UUID) async throws(HearthError) -> [Accessory] {
        try await call(.GET, Self.homePath(homeID) + "/accessories", as: AccessoryList.self).accessories
    }

    /// `GET …/accessories/nearby`: unpaired accessories found on the network.
    public func nearbyAccessories(forHome homeID: UUID) async throws(HearthError) -> [NearbyAccessory] {
        try await call(.GET, Self.homePath(homeID) + "/accessories/nearby", as: NearbyList.self).accessories
    }

    /// `POST …/accessories`: pairs an accessory found nearby with its setup code and adds it (and bridged ones).
    public func pairAccessory(
        deviceID: String,
        setupCode: String,
        name: String? = nil,
        roomID: UUID? = nil,
        toHome homeID: UUID
    ) async throws(HearthError) -> [Accessory] {
        try await call(
            .POST,
            Self.homePath(homeID) + "/accessories",
            body: PairAccessoryBody(deviceID: deviceID, setupCode: setupCode, name: name, roomID: roomID),
            as: AccessoryList.self
        ).accessories
    }

    /// `GET …/accessories/{accessoryID}`: one accessory.
    public func accessory(_ accessoryID: UUID, inHome homeID: UUID) async throws(HearthError) -> Accessory {
        try await call(
            .GET,
            Self.homePath(homeID) + "/accessories/\(accessoryID.uuidString)",
            as: AccessoryResponse.self
        ).accessory
    }

    /// `PATCH …/accessories/{accessoryID}`: renames an accessory and/or moves it to another room.
    @discardableResult
    public func updateAccessory(
        _ accessoryID: UUID,
        name: String? = nil,
        roomID: UUID? = nil,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        try await change(
            .PATCH,
            Self.homePath(homeID) + "/accessories/\(accessoryID.uuidString)",
            body: UpdateAccessoryBody(name: name, roomID: roomID)
        )
    }

    /// `DELETE …/accessories/{accessoryID}`: unpairs and removes an accessory.
    public func removeAccessory(_ accessoryID: UUID, fromHome homeID: UUID) async throws(HearthError) {
        _ = try await send(.DELETE, Self.homePath(homeID) + "/accessories/\(accessoryID.uuidString)")
    }

    /// `POST …/accessories/{accessoryID}/identify`: asks the accessory to identify itself.
    public func identifyAccessory(_ accessoryID: UUID, inHome homeID: UUID) async throws(HearthError) {
        _ = try await send(.POST, Self.homePath(homeID) + "/accessories/\(accessoryID.uuidString)/identify")
    }

    /// `PATCH …/services/{serviceID}`: renames a service.
    @discardableResult
    public func renameService(
        _ serviceID: UUID,
        to name: String,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [HomeEvent]
    {
        try await change(
            .PATCH,
            Self.homePath(homeID) + "/services/\(serviceID.uuidString)",
            body: NameBody(name: name)
        )
    }

    /// `GET …/characteristics/{characteristicID}`: a characteristic with its metadata and last known value.
    public func characteristic(
        _ characteristicID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> CharacteristicResponse
    {
        try await call(
            .GET,
            Self.homePath(homeID) + "/characteristics/\(characteristicID.uuidString)",
            as: CharacteristicResponse.self
        )
    }

    /// `PUT …/characteristics/{characteristicID}`: writes a value through the accessory.
    public func write(
        _ value: HAPValue,
        toCharacteristic characteristicID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError) -> [CharacteristicWriteResult] {
        try await call(
            .PUT,
            Self.homePath(homeID) + "/characteristics/\(characteristicID.uuidString)",
            body: WriteValueBody(value: value),
            as: WriteResults.self
        ).results
    }

    /// `PUT …/characteristics`: writes many characteristics at once, each with its outcome.
    public func write(
        _ writes: [CharacteristicWrite],
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [CharacteristicWriteResult]
    {
        try await call(
            .PUT,
            Self.homePath(homeID) + "/characteristics",
            body: BatchWriteBody(writes: writes),
            as: WriteResults.self
        ).results
    }

    /// `PUT …/characteristics/{characteristicID}/notifications`: turns events of a characteristic on or off.
    @discardableResult
    public func setNotifications(
        _ isEnabled: Bool,
        forCharacteristic characteristicID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        try await change(
            .PUT,
            Self.homePath(homeID) + "/characteristics/\(characteristicID.uuidString)/notifications",
            body: NotificationsBody(isEnabled: isEnabled)
        )
    }

    // MARK: Service groups

    /// `GET …/serviceGroups`: the service groups.
    public func serviceGroups(inHome homeID: UUID) async throws(HearthError) -> [ServiceGroup] {
        try await call(.GET, Self.homePath(homeID) + "/serviceGroups", as: ServiceGroupList.self).serviceGroups
    }

    /// `POST …/serviceGroups`: adds a service group.
    public func addServiceGroup(
        named name: String,
        serviceIDs: [UUID] = [],
        toHome homeID: UUID
    ) async throws(HearthError) -> Created<ServiceGroup> {
        try await call(
            .POST,
            Self.homePath(homeID) + "/serviceGroups",
            body: CreateServiceGroupBody(name: name, serviceIDs: serviceIDs),
            as: Created<ServiceGroup>.self
        )
    }

    /// `PATCH …/serviceGroups/{groupID}`: renames a service group.
    @discardableResult
    public func renameServiceGroup(
        _ groupID: UUID,
        to name: String,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [HomeEvent]
    {
        try await change(
            .PATCH,
            Self.homePath(homeID) + "/serviceGroups/\(groupID.uuidString)",
            body: NameBody(name: name)
        )
    }

    /// `DELETE …/serviceGroups/{groupID}`: removes a service group.
    @discardableResult
    public func removeServiceGroup(_ groupID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await change(.DELETE, Self.homePath(homeID) + "/serviceGroups/\(groupID.uuidString)")
    }

    /// `PUT …/serviceGroups/{groupID}/services/{serviceID}`: adds a service to a group.
    @discardableResult
    public func addService(
        _ serviceID: UUID,
        toGroup groupID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [HomeEvent]
    {
        try await change(
            .PUT,
            Self.homePath(homeID) + "/serviceGroups/\(groupID.uuidString)/services/\(serviceID.uuidString)"
        )
    }

    /// `DELETE …/serviceGroups/{groupID}/services/{serviceID}`: takes a service out of a group.
    @discardableResult
    public func removeService(
        _ serviceID: UUID,
        fromGroup groupID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        try await change(
            .DELETE,
            Self.homePath(homeID) + "/serviceGroups/\(groupID.uuidString)/services/\(serviceID.uuidString)"
        )
    }

    // MARK: Action sets (scenes)

    /// `GET …/actionSets`: the action sets (scenes).
    public func actionSets(inHome homeID: UUID) async throws(HearthError) -> [ActionSet] {
        try await call(.GET, Self.homePath(homeID) + "/actionSets", as: ActionSetList.self).actionSets
    }

    /// `POST …/actionSets`: adds an action set.
    public func addActionSet(
        named name: String,
        kind: ActionSetKind? = nil,
        actions: [Action] = [],
        toHome homeID: UUID
    ) async throws(HearthError) -> Created<ActionSet> {
        try await call(
            .POST,
            Self.homePath(homeID) + "/actionSets",
            body: CreateActionSetBody(name: name, kind: kind, actions: actions),
            as: Created<ActionSet>.self
        )
    }

    /// `PATCH …/actionSets/{actionSetID}`: renames an action set and/or replaces its actions.
    @discardableResult
    public func updateActionSet(
        _ actionSetID: UUID,
        name: String? = nil,
        actions: [Action]? = nil,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        try await change(
            .PATCH,
            Self.homePath(homeID) + "/actionSets/\(actionSetID.uuidString)",
            body: UpdateActionSetBody(name: name, actions: actions)
        )
    }

    /// `DELETE …/actionSets/{actionSetID}`: removes an action set.
    @discardableResult
    public func removeActionSet(_ actionSetID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await change(.DELETE, Self.homePath(homeID) + "/actionSets/\(actionSetID.uuidString)")
    }

    /// `POST …/actionSets/{actionSetID}/run`: runs an action set, every write at once, each with its outcome.
    public func runActionSet(
        _ actionSetID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [CharacteristicWriteResult]
    {
        try await call(
            .POST,
            Self.homePath(homeID) + "/actionSets/\(actionSetID.uuidString)/run",
            as: WriteResults.self
        ).results
    }

    // MARK: Triggers

    /// `GET …/triggers`: the triggers.
    public func triggers(inHome homeID: UUID) async throws(HearthError) -> [Trigger] {
        try await call(.GET, Self.homePath(homeID) + "/triggers", as: TriggerList.self).triggers
    }

    /// `POST …/triggers`: adds a trigger running `actionSetIDs`.
    public func addTrigger(
        named name: String,
        isEnabled: Bool = true,
        actionSetIDs: [UUID] = [],
        definition: Data? = nil,
        toHome homeID: UUID
    ) async throws(HearthError) -> Created<Trigger> {
        try await call(
            .POST,
            Self.homePath(homeID) + "/triggers",
            body: CreateTriggerBody(
                name: name,
                isEnabled: isEnabled,
                actionSetIDs: actionSetIDs,
                definition: definition
            ),
            as: Created<Trigger>.self
        )
    }

    /// `PATCH …/triggers/{triggerID}`: renames a trigger and/or turns it on or off.
    @discardableResult
    public func updateTrigger(
        _ triggerID: UUID,
        name: String? = nil,
        isEnabled: Bool? = nil,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        try await change(
            .PATCH,
            Self.homePath(homeID) + "/triggers/\(triggerID.uuidString)",
            body: UpdateTriggerBody(name: name, isEnabled: isEnabled)
        )
    }

    /// `DELETE …/triggers/{triggerID}`: removes a trigger.
    @discardableResult
    public func removeTrigger(_ triggerID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await change(.DELETE, Self.homePath(homeID) + "/triggers/\(triggerID.uuidString)")
    }

    // MARK: Users and invites

    /// `GET …/users`: the home's users and their roles.
    public func users(inHome homeID: UUID) async throws(HearthError) -> [User] {
        try await call(.GET, Self.homePath(homeID) + "/users", as: UserList.self).users
    }

    /// `PATCH …/users/{userID}`: changes a user's role.
    @discardableResult
    public func setRole(
        _ role: UserRole,
        ofUser userID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [HomeEvent]
    {
        try await change(
            .PATCH,
            Self.homePath(homeID) + "/users/\(userID.uuidString)",
            body: UpdateUserBody(role: role)
        )
    }

    /// `DELETE …/users/{userID}`: removes a user from the home.
    @discardableResult
    public func removeUser(_ userID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await change(.DELETE, Self.homePath(homeID) + "/users/\(userID.uuidString)")
    }

    /// `GET …/invites`: the home's pending invites (never their codes).
    public func invites(forHome homeID: UUID) async throws(HearthError) -> [InviteInfo] {
        try await call(.GET, Self.homePath(homeID) + "/invites", as: InviteList.self).invites
    }

    /// `POST …/invites`: invites someone with a role; the one-time code is shown once.
    public func createInvite(role: UserRole, forHome homeID: UUID) async throws(HearthError) -> NewInvite {
        try await call(
            .POST,
            Self.homePath(homeID) + "/invites",
            body: CreateInviteBody(role: role),
            as: NewInvite.self
        )
    }

    /// `DELETE …/invites/{inviteID}`: withdraws a pending invite.
    public func removeInvite(_ inviteID: UUID, fromHome homeID: UUID) async throws(HearthError) {
        _ = try await send(.DELETE, Self.homePath(homeID) + "/invites/\(inviteID.uuidString)")
    }
}
