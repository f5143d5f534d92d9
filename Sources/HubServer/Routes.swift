import Foundation
import HearthAPI
import HomeGraph
import Hub
import Hummingbird

extension HubServer {
    /// Registers every HTTP route of the API; `docs/api/openapi.yaml` documents exactly these (a test checks).
    func registerRoutes(on router: Router<BasicRequestContext>) {
        registerAccountRoutes(on: router)
        registerHomeRoutes(on: router)
        registerRoomAndZoneRoutes(on: router)
        registerAccessoryRoutes(on: router)
        registerGroupSceneAndTriggerRoutes(on: router)
        registerUserRoutes(on: router)
    }

    // MARK: Me, tokens, events

    func registerAccountRoutes(on router: Router<BasicRequestContext>) {
        add(.get, "/v1/me", on: router) { call in
            let account = await call.server.credentials.account(call.principal.userID)
            let graph = await call.server.hub.graph
            let homes = graph.homes(visibleTo: call.caller).map { home in
                HomeSummary(
                    id: home.id,
                    name: home.name,
                    isPrimary: home.isPrimary,
                    role: graph.role(of: call.caller, inHome: home.id) ?? .shared,
                    sequence: graph.lastSequence(ofHome: home.id)
                )
            }
            return call.reply(
                MeResponse(
                    user: .init(id: call.principal.userID, name: account?.name ?? ""),
                    tokenID: call.principal.tokenID,
                    homes: homes
                )
            )
        }
        add(.get, "/v1/me/tokens", on: router) { call in
            let tokens = await call.server.credentials.account(call.principal.userID)?.tokens ?? []
            return call.reply(["tokens": tokens.map { TokenInfo(id: $0.id, label: $0.label, createdAt: $0.createdAt) }])
        }
        add(.post, "/v1/me/tokens", on: router) { call in
            let body = try await call.body(CreateTokenBody.self)
            let (id, token) = try await call.server.credentials.addToken(
                to: call.principal.userID,
                label: body.label ?? "token"
            )
            return call.reply(NewToken(userID: call.principal.userID, tokenID: id, token: token), status: .created)
        }
        add(.delete, "/v1/me/tokens/{tokenID}", on: router) { call in
            let tokenID = try call.id("tokenID", kind: "token")
            guard try await call.server.credentials.revokeToken(tokenID, of: call.principal.userID) else {
                throw APIError.notFound("token", tokenID.uuidString)
            }
            await call.server.connections.revoke(token: tokenID, reason: "token revoked")
            return call.noContent
        }
        // Reached only when the request is not a WebSocket upgrade (or its token is not valid).
        add(.get, "/v1/events", on: router) { _ in
            throw APIError.invalidRequest("GET /v1/events is a WebSocket: send 'Upgrade: websocket'")
        }
        // Redeeming needs no token (the code is the credential); with one, the caller's own account joins.
        let server = self
        router.post("/v1/invites/redeem") { request, _ in
            try await server.redeem(request)
        }
    }

    func redeem(_ request: Request) async throws -> Response {
        let principal = await principal(of: request)
        if request.headers[.authorization] != nil, principal == nil { throw APIError.unauthorized }
        let body = try await JSONBody.decode(RedeemInviteBody.self, from: request)
        // The name is checked before the invite is taken, so a name the graph refuses does not use the code up.
        let name = body.name.map(Names.normalized) ?? ""
        if !name.isEmpty, let problem = Names.problem(with: name) {
            throw APIError(HubError.rejected(.invalidName(body.name ?? "", problem)))
        }
        if principal == nil, name.isEmpty {
            throw APIError.invalidRequest("field 'name' is required to make a new account")
        }
        guard let invite = try await credentials.takeInvite(code: body.code) else {
            throw APIError(.notFound, code: "notFound", message: "field 'code': no pending invite has this code")
        }
        let userID = principal?.userID ?? UUID()
        let userName: String
        if let principal, let account = await credentials.account(principal.userID) {
            userName = name.isEmpty ? account.name : name
        } else {
            userName = name
        }
        do {
            // Authorized as the person who invited, so an invite dies with their rights.
            try await hub.perform(
                .addUser(home: invite.homeID, id: userID, name: userName, role: invite.role),
                as: .user(invite.invitedBy)
            )
        } catch {
            if case .rejected(let graphError) = error, case .idTaken = graphError {
                try await credentials.restoreInvite(invite)
                throw APIError(.conflict, code: "alreadyMember", message: "you already belong to this home")
            }
            throw APIError(error)
        }
        var token: NewToken?
        if principal == nil {
            let (account, secret) = try await credentials.createAccount(id: userID, name: userName, label: "invite")
            token = NewToken(userID: account.id, tokenID: account.tokens.last?.id ?? UUID(), token: secret)
        }
        return JSONBody.response(
            RedeemedInvite(homeID: invite.homeID, role: invite.role, userID: userID, token: token),
            status: .created
        )
    }

    // MARK: Homes

    func registerHomeRoutes(on router: Router<BasicRequestContext>) {
        add(.get, "/v1/homes", on: router) { call in
            let graph = await call.server.hub.graph
            let homes = graph.homes(visibleTo: call.caller).map { home in
                HomeSummary(
                    id: home.id,
                    name: home.name,
                    isPrimary: home.isPrimary,
                    role: graph.role(of: call.caller, inHome: home.id) ?? .shared,
                    sequence: graph.lastSequence(ofHome: home.id)
                )
            }
            return call.reply(["homes": homes])
        }
        add(.post, "/v1/homes", on: router) { call in
            let body = try await call.body(CreateHomeBody.self)
            let name = await call.server.credentials.account(call.principal.userID)?.name ?? "Owner"
            let home: Home
            do throws(HubError) {
                home = try await call.server.hub.addHome(
                    name: body.name,
                    timeZoneIdentifier: body.timeZone ?? "UTC",
                    ownerName: name,
                    as: call.caller
                )
            } catch {
                throw APIError(error)
            }
            let current = try await call.home(home.id)
            return call.reply(
                HomeResponse(home: current.home, role: current.role, sequence: current.sequence),
                status: .created
            )
        }
        add(.get, "/v1/homes/{homeID}", on: router) { call in
            let current = try await call.home(try call.homeID)
            return call.reply(HomeResponse(home: current.home, role: current.role, sequence: current.sequence))
        }
        add(.patch, "/v1/homes/{homeID}", on: router) { call in
            let homeID = try call.homeID
            let body = try await call.body(UpdateHomeBody.self)
            var operations: [HomeOperation] = []
            if let name = body.name { operations.append(.renameHome(homeID, name: name)) }
            if let zone = body.timeZone { operations.append(.setTimeZone(home: homeID, identifier: zone)) }
            var events: [HomeEvent] = []
            for operation in operations { events += try await call.perform(operation) }
            return call.changed(events)
        }
        add(.delete, "/v1/homes/{homeID}", on: router) { call in
            call.changed(try await call.perform(.removeHome(try call.homeID)))
        }
        add(.post, "/v1/homes/{homeID}/primary", on: router) { call in
            call.changed(try await call.perform(.setPrimaryHome(try call.homeID)))
        }
        add(.put, "/v1/homes/{homeID}/location", on: router) { call in
            let homeID = try call.homeID
            let location = try await call.body(Location.self)
            return call.changed(try await call.perform(.setLocation(home: homeID, location: location)))
        }
        add(.delete, "/v1/homes/{homeID}/location", on: router) { call in
            call.changed(try await call.perform(.setLocation(home: try call.homeID, location: nil)))
        }
        add(.get, "/v1/homes/{homeID}/changes", on: router) { call in
            let homeID = try call.homeID
            guard let text = call.request.uri.queryParameters.get("after"), let after = UInt64(text) else {
                throw APIError.invalidRequest("query 'after' must be a whole number of 0 or more")
            }
            let history: ChangeHistory
            do throws(HubError) {
                history = try await call.server.hub.changes(after: after, inHome: homeID, as: call.caller)
            } catch {
                throw APIError(error)
            }
            switch history {
            case .events(let events):
                let current = try await call.home(homeID).sequence
                return call.reply(ChangesResponse(events: events, reloadRequired: false, currentSequence: current))
            case .reloadRequired(let current):
                return call.reply(ChangesResponse(events: [], reloadRequired: true, currentSequence: current))
            }
        }
    }

    // MARK: Rooms and zones

    func registerRoomAndZoneRoutes(on router: Router<BasicRequestContext>) {
        add(.get, "/v1/homes/{homeID}/rooms", on: router) { call in
            let home = try await call.home(try call.homeID).home
            return call.reply(RoomList(rooms: home.allRooms, roomForEntireHomeID: home.roomForEntireHome.id))
        }
        add(.post, "/v1/homes/{homeID}/rooms", on: router) { call in
            let homeID = try call.homeID
            let body = try await call.body(NameBody.self)
            let id = UUID()
            let events = try await call.perform(.addRoom(home: homeID, id: id, name: body.name))
            let room = try await call.home(homeID).home.room(withID: id)
            return call.changed(events, key: "room", object: room)
        }
        add(.patch, "/v1/homes/{homeID}/rooms/{roomID}", on: router) { call in
            let (homeID, roomID) = (try call.homeID, try call.id("roomID", kind: "room"))
            let body = try await call.body(NameBody.self)
            return call.changed(try await call.perform(.renameRoom(home: homeID, room: roomID, name: body.name)))
        }
        add(.delete, "/v1/homes/{homeID}/rooms/{roomID}", on: router) { call in
            let (homeID, roomID) = (try call.homeID, try call.id("roomID", kind: "room"))
            return call.changed(try await call.perform(.removeRoom(home: homeID, room: roomID)))
        }
        add(.get, "/v1/homes/{homeID}/zones", on: router) { call in
            call.reply(["zones": try await call.home(try call.homeID).home.zones])
        }
        add(.post, "/v1/homes/{homeID}/zones", on: router) { call in
            let homeID = try call.homeID
            let body = try await call.body(CreateZoneBody.self)
            let id = UUID()
            let events = try await call.perform(
                .addZone(home: homeID, id: id, name: body.name, roomIDs: body.roomIDs ?? [])
            )
            let zone = try await call.home(homeID).home.zones.first { $0.id == id }
            return call.changed(events, key: "zone", object: zone)
        }
        add(.patch, "/v1/homes/{homeID}/zones/{zoneID}", on: router) { call in
            let (homeID, zoneID) = (try call.homeID, try call.id("zoneID", kind: "zone"))
            let body = try await call.body(NameBody.self)
            return call.changed(try await call.perform(.renameZone(home: homeID, zone: zoneID, name: body.name)))
        }
        add(.delete, "/v1/homes/{homeID}/zones/{zoneID}", on: router) { call in
            let (homeID, zoneID) = (try call.homeID, try call.id("zoneID", kind: "zone"))
            return call.changed(try await call.perform(.removeZone(home: homeID, zone: zoneID)))
        }
        add(.put, "/v1/homes/{homeID}/zones/{zoneID}/rooms/{roomID}", on: router) { call in
            let (homeID, zoneID) = (try call.homeID, try call.id("zoneID", kind: "zone"))
            let roomID = try call.id("roomID", kind: "room")
            return call.changed(try await call.perform(.addRoomToZone(home: homeID, room: roomID, zone: zoneID)))
        }
        add(.delete, "/v1/homes/{homeID}/zones/{zoneID}/rooms/{roomID}", on: router) { call in
            let (homeID, zoneID) = (try call.homeID, try call.id("zoneID", kind: "zone"))
            let roomID = try call.id("roomID", kind: "room")
            return call.changed(try await call.perform(.removeRoomFromZone(home: homeID, room: roomID, zone: zoneID)))
        }
    }

    // MARK: Accessories, services, characteristics

    func registerAccessoryRoutes(on router: Router<BasicRequestContext>) {
        add(.get, "/v1/homes/{homeID}/accessories", on: router) { call in
            call.reply(["accessories": try await call.home(try call.homeID).home.accessories])
        }
        add(.get, "/v1/homes/{homeID}/accessories/nearby", on: router) { call in
            let homeID = try call.homeID
            try await call.require(.configure, inHome: homeID)
            return call.reply(["accessories": try await call.nearbyAccessories()])
        }
        add(.post, "/v1/homes/{homeID}/accessories", on: router) { call in
            let homeID = try call.homeID
            try await call.require(.configure, inHome: homeID)
            let body = try await call.body(PairAccessoryBody.self)
            let added = try await call.pair(body, home: homeID)
            return call.reply(["accessories": added], status: .created)
        }
        add(.get, "/v1/homes/{homeID}/accessories/{accessoryID}", on: router) { call in
            let (homeID, accessoryID) = (try call.homeID, try call.id("accessoryID", kind: "accessory"))
            guard let accessory = try await call.home(homeID).home.accessory(withID: accessoryID) else {
                throw APIError.notFound("accessory", accessoryID.uuidString)
            }
            return call.reply(["accessory": accessory])
        }
        add(.patch, "/v1/homes/{homeID}/accessories/{accessoryID}", on: router) { call in
            let (homeID, accessoryID) = (try call.homeID, try call.id("accessoryID", kind: "accessory"))
            let body = try await call.body(UpdateAccessoryBody.self)
            var events: [HomeEvent] = []
            if let name = body.name {
                events += try await call.perform(.renameAccessory(home: homeID, accessory: accessoryID, name: name))
            }
            if let roomID = body.roomID {
                events += try await call.perform(.moveAccessory(home: homeID, accessory: accessoryID, room: roomID))
            }
            return call.changed(events)
        }
        add(.delete, "/v1/homes/{homeID}/accessories/{accessoryID}", on: router) { call in
            let (homeID, accessoryID) = (try call.homeID, try call.id("accessoryID", kind: "accessory"))
            try await call.require(.configure, inHome: homeID)
            try await call.existingAccessory(accessoryID, inHome: homeID)
            do throws(HubError) {
                try await call.server.hub.removeAccessory(home: homeID, accessory: accessoryID, as: call.caller)
            } catch {
                throw APIError(error)
            }
            return call.noContent
        }
        add(.post, "/v1/homes/{homeID}/accessories/{accessoryID}/identify", on: router) { call in
            let (homeID, accessoryID) = (try call.homeID, try call.id("accessoryID", kind: "accessory"))
            try await call.existingAccessory(accessoryID, inHome: homeID)
            do throws(HubError) {
                try await call.server.hub.identify(home: homeID, accessory: accessoryID, as: call.caller)
            } catch {
                throw APIError(error)
            }
            return call.noContent
        }
        add(.patch, "/v1/homes/{homeID}/services/{serviceID}", on: router) { call in
            let (homeID, serviceID) = (try call.homeID, try call.id("serviceID", kind: "service"))
            let body = try await call.body(NameBody.self)
            return call.changed(
                try await call.perform(.renameService(home: homeID, service: serviceID, name: body.name))
            )
        }
        add(.get, "/v1/homes/{homeID}/characteristics/{characteristicID}", on: router) { call in
            let (homeID, id) = (try call.homeID, try call.id("characteristicID", kind: "characteristic"))
            var graph = try await call.graph(ofHome: homeID)
            if try call.refresh {
                try await call.readThrough(id, home: homeID)
                graph = await call.server.hub.graph
            }
            let found: (characteristic: Characteristic, accessory: Accessory)
            do throws(HomeGraphError) {
                found = try graph.characteristic(withID: id, inHome: homeID)
            } catch {
                throw APIError(HubError.rejected(error))
            }
            return call.reply(
                CharacteristicResponse(characteristic: found.characteristic, accessoryID: found.accessory.id)
            )
        }
        add(.put, "/v1/homes/{homeID}/characteristics/{characteristicID}", on: router) { call in
            let (homeID, id) = (try call.homeID, try call.id("characteristicID", kind: "characteristic"))
            let body = try await call.body(WriteValueBody.self)
            let writes = try await call.validated(
                [CharacteristicWrite(characteristicID: id, value: body.value)],
                homeID
            )
            // One write that failed answers with its error (404, 502 unreachable, 504 timeout, …).
            let outcomes = try await call.writeOutcomes(writes, home: homeID)
            for outcome in outcomes {
                if case .failure(let error) = outcome.result { throw APIError(error) }
            }
            return call.reply(["results": outcomes.map(\.response)])
        }
        add(.put, "/v1/homes/{homeID}/characteristics", on: router) { call in
            let homeID = try call.homeID
            let body = try await call.body(BatchWriteBody.self)
            let writes = try await call.validated(body.writes, homeID)
            return call.reply(["results": try await call.write(writes, home: homeID)])
        }
        add(.put, "/v1/homes/{homeID}/characteristics/{characteristicID}/notifications", on: router) { call in
            let (homeID, id) = (try call.homeID, try call.id("characteristicID", kind: "characteristic"))
            let body = try await call.body(NotificationsBody.self)
            return call.changed(try await call.setNotifications(id, isEnabled: body.isEnabled, home: homeID))
        }
    }

    // MARK: Service groups, action sets, triggers

    func registerGroupSceneAndTriggerRoutes(on router: Router<BasicRequestContext>) {
        add(.get, "/v1/homes/{homeID}/serviceGroups", on: router) { call in
            call.reply(["serviceGroups": try await call.home(try call.homeID).home.serviceGroups])
        }
        add(.post, "/v1/homes/{homeID}/serviceGroups", on: router) { call in
            let homeID = try call.homeID
            let body = try await call.body(CreateServiceGroupBody.self)
            let id = UUID()
            let events = try await call.perform(
                .addServiceGroup(home: homeID, id: id, name: body.name, serviceIDs: body.serviceIDs ?? [])
            )
            let group = try await call.home(homeID).home.serviceGroups.first { $0.id == id }
            return call.changed(events, key: "serviceGroup", object: group)
        }
        add(.patch, "/v1/homes/{homeID}/serviceGroups/{groupID}", on: router) { call in
            let (homeID, groupID) = (try call.homeID, try call.id("groupID", kind: "serviceGroup"))
            let body = try await call.body(NameBody.self)
            return call.changed(
                try await call.perform(.renameServiceGroup(home: homeID, group: groupID, name: body.name))
            )
        }
        add(.delete, "/v1/homes/{homeID}/serviceGroups/{groupID}", on: router) { call in
            let (homeID, groupID) = (try call.homeID, try call.id("groupID", kind: "serviceGroup"))
            return call.changed(try await call.perform(.removeServiceGroup(home: homeID, group: groupID)))
        }
        add(.put, "/v1/homes/{homeID}/serviceGroups/{groupID}/services/{serviceID}", on: router) { call in
            let (homeID, groupID) = (try call.homeID, try call.id("groupID", kind: "serviceGroup"))
            let serviceID = try call.id("serviceID", kind: "service")
            return call.changed(
                try await call.perform(.addServiceToGroup(home: homeID, service: serviceID, group: groupID))
            )
        }
        add(.delete, "/v1/homes/{homeID}/serviceGroups/{groupID}/services/{serviceID}", on: router) { call in
            let (homeID, groupID) = (try call.homeID, try call.id("groupID", kind: "serviceGroup"))
            let serviceID = try call.id("serviceID", kind: "service")
            return call.changed(
                try await call.perform(.removeServiceFromGroup(home: homeID, service: serviceID, group: groupID))
            )
        }
        add(.get, "/v1/homes/{homeID}/actionSets", on: router) { call in
            call.reply(["actionSets": try await call.home(try call.homeID).home.actionSets])
        }
        add(.post, "/v1/homes/{homeID}/actionSets", on: router) { call in
            let homeID = try call.homeID
            let body = try await call.body(CreateActionSetBody.self)
            let id = UUID()
            let events = try await call.perform(
                .addActionSet(
                    home: homeID,
                    id: id,
                    name: body.name,
                    kind: body.kind ?? .userDefined,
                    actions: body.actions ?? []
                )
            )
            let actionSet = try await call.home(homeID).home.actionSets.first { $0.id == id }
            return call.changed(events, key: "actionSet", object: actionSet)
        }
        add(.patch, "/v1/homes/{homeID}/actionSets/{actionSetID}", on: router) { call in
            let (homeID, actionSetID) = (try call.homeID, try call.id("actionSetID", kind: "actionSet"))
            let body = try await call.body(UpdateActionSetBody.self)
            var events: [HomeEvent] = []
            if let name = body.name {
                events += try await call.perform(.renameActionSet(home: homeID, actionSet: actionSetID, name: name))
            }
            if let actions = body.actions {
                events += try await call.perform(.setActions(home: homeID, actionSet: actionSetID, actions: actions))
            }
            return call.changed(events)
        }
        add(.delete, "/v1/homes/{homeID}/actionSets/{actionSetID}", on: router) { call in
            let (homeID, actionSetID) = (try call.homeID, try call.id("actionSetID", kind: "actionSet"))
            return call.changed(try await call.perform(.removeActionSet(home: homeID, actionSet: actionSetID)))
        }
        add(.post, "/v1/homes/{homeID}/actionSets/{actionSetID}/run", on: router) { call in
            let (homeID, actionSetID) = (try call.homeID, try call.id("actionSetID", kind: "actionSet"))
            guard try await call.home(homeID).home.actionSets.contains(where: { $0.id == actionSetID }) else {
                throw APIError.notFound("actionSet", actionSetID.uuidString)
            }
            return call.reply(["results": try await call.runActionSet(actionSetID, home: homeID)])
        }
        add(.get, "/v1/homes/{homeID}/triggers", on: router) { call in
            call.reply(["triggers": try await call.home(try call.homeID).home.triggers])
        }
        add(.post, "/v1/homes/{homeID}/triggers", on: router) { call in
            let homeID = try call.homeID
            let body = try await call.body(CreateTriggerBody.self)
            let trigger = Trigger(
                id: UUID(),
                name: body.name,
                isEnabled: body.isEnabled ?? true,
                actionSetIDs: body.actionSetIDs ?? [],
                definition: body.definition ?? Data()
            )
            let events = try await call.perform(.addTrigger(home: homeID, trigger: trigger))
            let added = try await call.home(homeID).home.triggers.first { $0.id == trigger.id }
            return call.changed(events, key: "trigger", object: added)
        }
        add(.patch, "/v1/homes/{homeID}/triggers/{triggerID}", on: router) { call in
            let (homeID, triggerID) = (try call.homeID, try call.id("triggerID", kind: "trigger"))
            let body = try await call.body(UpdateTriggerBody.self)
            var events: [HomeEvent] = []
            if let name = body.name {
                events += try await call.perform(.renameTrigger(home: homeID, trigger: triggerID, name: name))
            }
            if let isEnabled = body.isEnabled {
                events += try await call.perform(.enableTrigger(home: homeID, trigger: triggerID, isEnabled: isEnabled))
            }
            return call.changed(events)
        }
        add(.delete, "/v1/homes/{homeID}/triggers/{triggerID}", on: router) { call in
            let (homeID, triggerID) = (try call.homeID, try call.id("triggerID", kind: "trigger"))
            return call.changed(try await call.perform(.removeTrigger(home: homeID, trigger: triggerID)))
        }
    }

    // MARK: Users and invites

    func registerUserRoutes(on router: Router<BasicRequestContext>) {
        add(.get, "/v1/homes/{homeID}/users", on: router) { call in
            call.reply(["users": try await call.home(try call.homeID).home.users])
        }
        add(.patch, "/v1/homes/{homeID}/users/{userID}", on: router) { call in
            let (homeID, userID) = (try call.homeID, try call.id("userID", kind: "user"))
            let body = try await call.body(UpdateUserBody.self)
            return call.changed(try await call.perform(.setRole(home: homeID, user: userID, role: body.role)))
        }
        add(.delete, "/v1/homes/{homeID}/users/{userID}", on: router) { call in
            let (homeID, userID) = (try call.homeID, try call.id("userID", kind: "user"))
            return call.changed(try await call.perform(.removeUser(home: homeID, user: userID)))
        }
        add(.get, "/v1/homes/{homeID}/invites", on: router) { call in
            let homeID = try call.homeID
            try await call.require(.configure, inHome: homeID)
            let invites = await call.server.credentials.invites(home: homeID).map(InviteInfo.init)
            return call.reply(["invites": invites])
        }
        add(.post, "/v1/homes/{homeID}/invites", on: router) { call in
            let homeID = try call.homeID
            let body = try await call.body(CreateInviteBody.self)
            try await call.require(
                AccessLevel(for: .addUser(home: homeID, id: UUID(), name: "", role: body.role)),
                inHome: homeID
            )
            let (invite, code) = try await call.server.credentials.createInvite(
                home: homeID,
                role: body.role,
                invitedBy: call.principal.userID,
                lifetime: call.server.configuration.inviteLifetime
            )
            return call.reply(NewInvite(invite: InviteInfo(invite), code: code), status: .created)
        }
        add(.delete, "/v1/homes/{homeID}/invites/{inviteID}", on: router) { call in
            let (homeID, inviteID) = (try call.homeID, try call.id("inviteID", kind: "invite"))
            try await call.require(.configure, inHome: homeID)
            guard try await call.server.credentials.removeInvite(inviteID, home: homeID) else {
                throw APIError.notFound("invite", inviteID.uuidString)
            }
            return call.noContent
        }
    }
}

extension Call {
    /// Throws 404 unless the home has the accessory.
    func existingAccessory(_ accessoryID: UUID, inHome homeID: UUID) async throws {
        guard try await home(homeID).home.accessory(withID: accessoryID) != nil else {
            throw APIError.notFound("accessory", accessoryID.uuidString)
        }
    }

    /// The writes with values in each characteristic's format, or the first refusal (404 unknown, 400 invalid).
    func validated(_ writes: [CharacteristicWrite], _ homeID: UUID) async throws -> [CharacteristicWrite] {
        // One snapshot of the graph for the membership check and the values.
        let graph = try await graph(ofHome: homeID)
        guard !writes.isEmpty else { throw APIError.invalidRequest("field 'writes' must not be empty") }
        var checked: [CharacteristicWrite] = []
        for (index, write) in writes.enumerated() {
            do {
                let value = try graph.validatedWrite(
                    write.value,
                    toCharacteristic: write.characteristicID,
                    inHome: homeID
                )
                checked.append(CharacteristicWrite(characteristicID: write.characteristicID, value: value))
            } catch {
                var apiError = APIError(HubError.rejected(error))
                if writes.count > 1 { apiError.message = "writes[\(index)]: " + apiError.message }
                throw apiError
            }
        }
        return checked
    }
}
