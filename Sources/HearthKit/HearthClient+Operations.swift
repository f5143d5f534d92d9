import Foundation
import HAPTypes
import HearthAPI
import HomeGraph

// One call per endpoint of `Endpoints` (docs/api/openapi.yaml), in the document's order.

extension HearthClient {
    // MARK: The caller, tokens, invites

    /// `GET /v1/me`: the caller's user id, name, token id and homes with their role.
    public func me() async throws(HearthError) -> MeResponse {
        try await request(Endpoints.getMe)
    }

    /// `GET /v1/hub/identity`: the hub's public key, fingerprint, routing id, secure address and relay.
    public func hubIdentity() async throws(HearthError) -> HubIdentityInfo {
        try await request(Endpoints.hubIdentity)
    }

    /// `GET /v1/me/tokens`: the caller's tokens (never the tokens themselves).
    public func tokens() async throws(HearthError) -> [TokenInfo] {
        try await request(Endpoints.listTokens).tokens
    }

    /// `POST /v1/me/tokens`: another token for the caller, shown once.
    public func createToken(label: String? = nil) async throws(HearthError) -> NewToken {
        try await request(Endpoints.createToken, body: CreateTokenBody(label: label))
    }

    /// `POST /v1/account/sign-in-links`: a one-time link that signs a browser in to the caller's account.
    public func createSignInLink() async throws(HearthError) -> NewSignInLink {
        try await request(Endpoints.createSignInLink)
    }

    /// `PUT /v1/account/password`: sets the caller's password (`current` is required when one is set).
    public func setPassword(_ password: String, current: String? = nil) async throws(HearthError) {
        _ = try await request(
            Endpoints.setPassword,
            body: SetPasswordBody(password: password, currentPassword: current)
        )
    }

    /// `DELETE /v1/me/tokens/{tokenID}`: revokes one of the caller's tokens.
    public func revokeToken(_ tokenID: UUID) async throws(HearthError) {
        _ = try await request(Endpoints.revokeToken, tokenID)
    }

    /// `POST /v1/invites/redeem`: joins a home with an invite code; without a token a new account named `name`
    /// is made and its token returned.
    public func redeemInvite(code: String, name: String? = nil) async throws(HearthError) -> RedeemedInvite {
        try await request(Endpoints.redeemInvite, body: RedeemInviteBody(code: code, name: name))
    }

    // MARK: Homes

    /// `GET /v1/homes`: the homes the caller belongs to.
    public func homes() async throws(HearthError) -> [HomeSummary] {
        try await request(Endpoints.listHomes).homes
    }

    /// `POST /v1/homes`: adds a home owned by the caller (the first one becomes primary).
    public func createHome(name: String, timeZone: String? = nil) async throws(HearthError) -> HomeResponse {
        try await request(Endpoints.createHome, body: CreateHomeBody(name: name, timeZone: timeZone))
    }

    /// `POST /v1/homes/import`: adds the home of a home file with its ids (docs/home-file.md); the caller becomes
    /// its owner and its accessories are unreachable until they are paired with this hub.
    public func importHome(_ file: HomeFile) async throws(HearthError) -> HomeResponse {
        try await request(Endpoints.importHome, body: file)
    }

    /// A home file of the home `homeID` as the hub has it now, for `importHome(_:)` on this or another hub.
    public func exportHome(_ homeID: UUID) async throws(HearthError) -> HomeFile {
        HomeFile(home: try await home(homeID).home)
    }

    /// `GET /v1/homes/{homeID}`: the whole home, the caller's role and the home's last sequence number.
    public func home(_ homeID: UUID) async throws(HearthError) -> HomeResponse {
        try await request(Endpoints.getHome, homeID)
    }

    /// `PATCH /v1/homes/{homeID}`: renames the home and/or sets its time zone.
    @discardableResult
    public func updateHome(
        _ homeID: UUID,
        name: String? = nil,
        timeZone: String? = nil
    ) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.updateHome, homeID, body: UpdateHomeBody(name: name, timeZone: timeZone)).events
    }

    /// `PATCH /v1/homes/{homeID}`: sets the radius in metres (10 to 100000) of the circle around the home's
    /// location that counts as home.
    @discardableResult
    public func setPresenceRadius(_ radius: Double, ofHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.updateHome, homeID, body: UpdateHomeBody(presenceRadius: radius)).events
    }

    /// `PATCH /v1/homes/{homeID}`: sets the unit the home's people say and read temperatures in; values stay in
    /// degrees Celsius.
    @discardableResult
    public func setTemperatureUnit(
        _ unit: TemperatureUnit,
        ofHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.updateHome, homeID, body: UpdateHomeBody(temperatureUnit: unit)).events
    }

    /// `POST /v1/homes/{homeID}/presence`: reports the caller's own presence: home or away (`isHome`), or a
    /// position the hub tests against the home's location and presence radius.
    @discardableResult
    public func reportPresence(
        isHome: Bool? = nil,
        position: Location? = nil,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.reportPresence, homeID, body: PresenceBody(isHome: isHome, position: position))
            .events
    }

    /// `DELETE /v1/homes/{homeID}`: removes the home and everything in it (owner only).
    @discardableResult
    public func removeHome(_ homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.deleteHome, homeID).events
    }

    /// `POST /v1/homes/{homeID}/primary`: makes the home the primary one.
    @discardableResult
    public func setPrimaryHome(_ homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.setPrimaryHome, homeID).events
    }

    /// `PUT` or `DELETE /v1/homes/{homeID}/location`: sets the home's location, or clears it with `nil`.
    @discardableResult
    public func setLocation(_ location: Location?, ofHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        guard let location else { return try await request(Endpoints.clearLocation, homeID).events }
        return try await request(Endpoints.setLocation, homeID, body: location).events
    }

    /// `GET /v1/homes/{homeID}/changes?after=N`: the changes after N, or word that the home must be reloaded.
    public func changes(inHome homeID: UUID, after sequence: UInt64) async throws(HearthError) -> ChangesResponse {
        try await request(Endpoints.listChanges, homeID, query: "after=\(sequence)")
    }

    /// `GET /v1/homes/{homeID}/changes?last=N`: the home's newest N kept changes (1 to 1,000), oldest first.
    public func recentChanges(inHome homeID: UUID, last count: Int) async throws(HearthError) -> ChangesResponse {
        try await request(Endpoints.listChanges, homeID, query: "last=\(count)")
    }

    // MARK: Rooms and zones

    /// `GET …/rooms`: the rooms, the room for the entire home first.
    public func rooms(inHome homeID: UUID) async throws(HearthError) -> RoomList {
        try await request(Endpoints.listRooms, homeID)
    }

    /// `POST …/rooms`: adds a room.
    public func addRoom(named name: String, toHome homeID: UUID) async throws(HearthError) -> Created<Room> {
        try await request(Endpoints.createRoom, homeID, body: NameBody(name: name))
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
        try await request(Endpoints.renameRoom, homeID, roomID, body: NameBody(name: name)).events
    }

    /// `DELETE …/rooms/{roomID}`: removes a room; its accessories move to the room for the entire home.
    @discardableResult
    public func removeRoom(_ roomID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.deleteRoom, homeID, roomID).events
    }

    /// `GET …/zones`: the zones.
    public func zones(inHome homeID: UUID) async throws(HearthError) -> [Zone] {
        try await request(Endpoints.listZones, homeID).zones
    }

    /// `POST …/zones`: adds a zone holding `roomIDs`.
    public func addZone(
        named name: String,
        roomIDs: [UUID] = [],
        toHome homeID: UUID
    ) async throws(HearthError) -> Created<Zone> {
        try await request(Endpoints.createZone, homeID, body: CreateZoneBody(name: name, roomIDs: roomIDs))
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
        try await request(Endpoints.renameZone, homeID, zoneID, body: NameBody(name: name)).events
    }

    /// `DELETE …/zones/{zoneID}`: removes a zone.
    @discardableResult
    public func removeZone(_ zoneID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.deleteZone, homeID, zoneID).events
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
        try await request(Endpoints.addRoomToZone, homeID, zoneID, roomID).events
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
        try await request(Endpoints.removeRoomFromZone, homeID, zoneID, roomID).events
    }

    // MARK: Accessories, services, characteristics

    /// `GET …/accessories`: the accessories with their services and characteristics.
    public func accessories(inHome homeID: UUID) async throws(HearthError) -> [Accessory] {
        try await request(Endpoints.listAccessories, homeID).accessories
    }

    /// `GET …/accessories/nearby`: unpaired accessories found on the network.
    public func nearbyAccessories(forHome homeID: UUID) async throws(HearthError) -> [NearbyAccessory] {
        try await request(Endpoints.listNearbyAccessories, homeID).accessories
    }

    /// `POST …/accessories`: pairs an accessory found nearby with its setup code and adds it (and bridged ones).
    public func pairAccessory(
        deviceID: String,
        setupCode: String,
        name: String? = nil,
        roomID: UUID? = nil,
        toHome homeID: UUID
    ) async throws(HearthError) -> [Accessory] {
        let body = PairAccessoryBody(deviceID: deviceID, setupCode: setupCode, name: name, roomID: roomID)
        return try await request(Endpoints.pairAccessory, homeID, body: body).accessories
    }

    /// `GET …/accessories/{accessoryID}`: one accessory.
    public func accessory(_ accessoryID: UUID, inHome homeID: UUID) async throws(HearthError) -> Accessory {
        try await request(Endpoints.getAccessory, homeID, accessoryID).accessory
    }

    /// `PATCH …/accessories/{accessoryID}`: renames an accessory and/or moves it to another room.
    @discardableResult
    public func updateAccessory(
        _ accessoryID: UUID,
        name: String? = nil,
        roomID: UUID? = nil,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        let body = UpdateAccessoryBody(name: name, roomID: roomID)
        return try await request(Endpoints.updateAccessory, homeID, accessoryID, body: body).events
    }

    /// `DELETE …/accessories/{accessoryID}`: unpairs and removes an accessory.
    public func removeAccessory(_ accessoryID: UUID, fromHome homeID: UUID) async throws(HearthError) {
        _ = try await request(Endpoints.deleteAccessory, homeID, accessoryID)
    }

    /// `POST …/accessories/{accessoryID}/identify`: asks the accessory to identify itself.
    public func identifyAccessory(_ accessoryID: UUID, inHome homeID: UUID) async throws(HearthError) {
        _ = try await request(Endpoints.identifyAccessory, homeID, accessoryID)
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
        try await request(Endpoints.renameService, homeID, serviceID, body: NameBody(name: name)).events
    }

    /// `GET …/characteristics/{characteristicID}`: a characteristic with its metadata and last known value.
    public func characteristic(
        _ characteristicID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> CharacteristicResponse
    {
        try await request(Endpoints.readCharacteristic, homeID, characteristicID)
    }

    /// `PUT …/characteristics/{characteristicID}`: writes a value through the accessory.
    public func write(
        _ value: HAPValue,
        toCharacteristic characteristicID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError) -> [CharacteristicWriteResult] {
        let body = WriteValueBody(value: value)
        return try await request(Endpoints.writeCharacteristic, homeID, characteristicID, body: body).results
    }

    /// `PUT …/characteristics`: writes many characteristics at once, each with its outcome.
    public func write(
        _ writes: [CharacteristicWrite],
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [CharacteristicWriteResult]
    {
        try await request(Endpoints.writeCharacteristics, homeID, body: BatchWriteBody(writes: writes)).results
    }

    /// `PUT …/characteristics/{characteristicID}/notifications`: turns events of a characteristic on or off.
    @discardableResult
    public func setNotifications(
        _ isEnabled: Bool,
        forCharacteristic characteristicID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        let body = NotificationsBody(isEnabled: isEnabled)
        return try await request(Endpoints.setNotifications, homeID, characteristicID, body: body).events
    }

    // MARK: Service groups

    /// `GET …/serviceGroups`: the service groups.
    public func serviceGroups(inHome homeID: UUID) async throws(HearthError) -> [ServiceGroup] {
        try await request(Endpoints.listServiceGroups, homeID).serviceGroups
    }

    /// `POST …/serviceGroups`: adds a service group.
    public func addServiceGroup(
        named name: String,
        serviceIDs: [UUID] = [],
        toHome homeID: UUID
    ) async throws(HearthError) -> Created<ServiceGroup> {
        let body = CreateServiceGroupBody(name: name, serviceIDs: serviceIDs)
        return try await request(Endpoints.createServiceGroup, homeID, body: body)
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
        try await request(Endpoints.renameServiceGroup, homeID, groupID, body: NameBody(name: name)).events
    }

    /// `DELETE …/serviceGroups/{groupID}`: removes a service group.
    @discardableResult
    public func removeServiceGroup(_ groupID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.deleteServiceGroup, homeID, groupID).events
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
        try await request(Endpoints.addServiceToGroup, homeID, groupID, serviceID).events
    }

    /// `DELETE …/serviceGroups/{groupID}/services/{serviceID}`: takes a service out of a group.
    @discardableResult
    public func removeService(
        _ serviceID: UUID,
        fromGroup groupID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.removeServiceFromGroup, homeID, groupID, serviceID).events
    }

    // MARK: Action sets (scenes)

    /// `GET …/actionSets`: the action sets (scenes).
    public func actionSets(inHome homeID: UUID) async throws(HearthError) -> [ActionSet] {
        try await request(Endpoints.listActionSets, homeID).actionSets
    }

    /// `GET …/actionSets/kinds/{kind}`: the home's built-in action set of `kind` (Wake Up, Leave Home, Arrive
    /// Home, Sleep), as HomeKit's `builtinActionSet(ofType:)` finds it.
    public func builtInActionSet(
        ofKind kind: ActionSetKind,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> ActionSet
    {
        try await request(
            Endpoints.getActionSetOfKind,
            path: [homeID.uuidString, kind.rawValue],
            body: nil,
            query: ""
        ).actionSet
    }

    /// `POST …/actionSets`: adds an action set.
    public func addActionSet(
        named name: String,
        kind: ActionSetKind? = nil,
        actions: [Action] = [],
        toHome homeID: UUID
    ) async throws(HearthError) -> Created<ActionSet> {
        let body = CreateActionSetBody(name: name, kind: kind, actions: actions)
        return try await request(Endpoints.createActionSet, homeID, body: body)
    }

    /// `PATCH …/actionSets/{actionSetID}`: renames an action set and/or replaces its actions.
    @discardableResult
    public func updateActionSet(
        _ actionSetID: UUID,
        name: String? = nil,
        actions: [Action]? = nil,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        let body = UpdateActionSetBody(name: name, actions: actions)
        return try await request(Endpoints.updateActionSet, homeID, actionSetID, body: body).events
    }

    /// `DELETE …/actionSets/{actionSetID}`: removes an action set.
    @discardableResult
    public func removeActionSet(_ actionSetID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.deleteActionSet, homeID, actionSetID).events
    }

    /// `POST …/actionSets/{actionSetID}/run`: runs an action set, every write at once, each with its outcome.
    public func runActionSet(
        _ actionSetID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError)
        -> [CharacteristicWriteResult]
    {
        try await request(Endpoints.runActionSet, homeID, actionSetID).results
    }

    // MARK: Triggers

    /// `GET …/triggers`: the triggers.
    public func triggers(inHome homeID: UUID) async throws(HearthError) -> [Trigger] {
        try await request(Endpoints.listTriggers, homeID).triggers
    }

    /// `POST …/triggers`: adds a trigger running `actionSetIDs`.
    public func addTrigger(
        named name: String,
        isEnabled: Bool = true,
        actionSetIDs: [UUID] = [],
        definition: TriggerDefinition? = nil,
        toHome homeID: UUID
    ) async throws(HearthError) -> Created<Trigger> {
        let body = CreateTriggerBody(
            name: name,
            isEnabled: isEnabled,
            actionSetIDs: actionSetIDs,
            definition: definition
        )
        return try await request(Endpoints.createTrigger, homeID, body: body)
    }

    /// `GET …/triggers/{triggerID}`: one trigger, with what the hub remembers of it.
    public func trigger(_ triggerID: UUID, inHome homeID: UUID) async throws(HearthError) -> Trigger {
        try await request(Endpoints.getTrigger, homeID, triggerID).trigger
    }

    /// `GET …/triggers/{triggerID}/decisions`: the trigger's recent decisions, newest first (why it did or did not
    /// fire).
    public func decisions(
        ofTrigger triggerID: UUID,
        inHome homeID: UUID
    ) async throws(HearthError) -> [TriggerDecision] {
        try await request(Endpoints.listTriggerDecisions, homeID, triggerID).decisions
    }

    /// `PATCH …/triggers/{triggerID}`: changes a trigger's name, definition, action sets and on/off state.
    @discardableResult
    public func updateTrigger(
        _ triggerID: UUID,
        name: String? = nil,
        isEnabled: Bool? = nil,
        definition: TriggerDefinition? = nil,
        actionSetIDs: [UUID]? = nil,
        inHome homeID: UUID
    ) async throws(HearthError) -> [HomeEvent] {
        let body = UpdateTriggerBody(
            name: name,
            isEnabled: isEnabled,
            definition: definition,
            actionSetIDs: actionSetIDs
        )
        return try await request(Endpoints.updateTrigger, homeID, triggerID, body: body).events
    }

    /// `DELETE …/triggers/{triggerID}`: removes a trigger.
    @discardableResult
    public func removeTrigger(_ triggerID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.deleteTrigger, homeID, triggerID).events
    }

    // MARK: Users and invites

    /// `GET …/users`: the home's users and their roles.
    public func users(inHome homeID: UUID) async throws(HearthError) -> [User] {
        try await request(Endpoints.listUsers, homeID).users
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
        try await request(Endpoints.setUserRole, homeID, userID, body: UpdateUserBody(role: role)).events
    }

    /// `DELETE …/users/{userID}`: removes a user from the home.
    @discardableResult
    public func removeUser(_ userID: UUID, fromHome homeID: UUID) async throws(HearthError) -> [HomeEvent] {
        try await request(Endpoints.removeUser, homeID, userID).events
    }

    /// `GET …/invites`: the home's pending invites (never their codes).
    public func invites(forHome homeID: UUID) async throws(HearthError) -> [InviteInfo] {
        try await request(Endpoints.listInvites, homeID).invites
    }

    /// `POST …/invites`: invites someone with a role; the one-time code is shown once.
    public func createInvite(role: UserRole, forHome homeID: UUID) async throws(HearthError) -> NewInvite {
        try await request(Endpoints.createInvite, homeID, body: CreateInviteBody(role: role))
    }

    /// `DELETE …/invites/{inviteID}`: withdraws a pending invite.
    public func removeInvite(_ inviteID: UUID, fromHome homeID: UUID) async throws(HearthError) {
        _ = try await request(Endpoints.deleteInvite, homeID, inviteID)
    }
}
