import Foundation
import HAP
import HAPController
import HAPTypes
import HearthAPI
import HomeGraph
import Hub

/// The routes' calls into the hub's accessory half: discovery, pairing, writes, reads, notifications, scenes.
extension Call {
    /// The unpaired accessories the hub sees nearby.
    func nearbyAccessories() async throws -> [NearbyAccessory] {
        let found: [DiscoveredAccessory]
        do throws(HubError) {
            found = try await server.hub.discoveredAccessories(as: caller)
        } catch {
            throw APIError(error)
        }
        return found.map(NearbyAccessory.init)
    }

    /// Pairs the accessory the body names (by `deviceID`, or by `host` and `port`) and adds it to the home; a
    /// `name` renames the accessory server's own accessory (the bridge, or the single accessory) afterwards.
    func pair(_ body: PairAccessoryBody, home homeID: UUID) async throws -> [Accessory] {
        let setupCode: SetupCode
        do {
            setupCode = try SetupCode(body.setupCode)
        } catch {
            throw APIError.invalidRequest(
                "field 'setupCode': '\(APIError.shown(body.setupCode))' is not a setup code like 031-45-154"
            )
        }
        let hub = server.hub
        var added: [Accessory]
        do throws(HubError) {
            switch (body.deviceID, body.host, body.port) {
            case (let deviceID?, nil, nil):
                added = try await hub.pairAccessory(
                    home: homeID,
                    deviceID: deviceID,
                    setupCode: setupCode,
                    room: body.roomID,
                    as: caller
                )
            case (nil, let host?, let port?):
                guard !host.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw HubError.invalidRequest("field 'host' must not be empty")
                }
                guard (1...65535).contains(port) else {
                    throw HubError.invalidRequest("field 'port' must be 1...65535")
                }
                added = try await hub.pairAccessory(
                    home: homeID,
                    host: host,
                    port: port,
                    setupCode: setupCode,
                    room: body.roomID,
                    as: caller
                )
            case (_?, _, _):
                throw HubError.invalidRequest(
                    "field '\(body.host != nil ? "host" : "port")': give either 'deviceID' or 'host' and 'port', not both"
                )
            case (nil, nil, _):
                throw HubError.invalidRequest(
                    body.port == nil
                        ? "field 'deviceID': give 'deviceID' (from …/accessories/nearby) or 'host' and 'port'"
                        : "field 'host': 'port' needs a 'host'"
                )
            case (nil, _?, nil):
                throw HubError.invalidRequest("field 'port': 'host' needs a 'port'")
            }
        } catch {
            throw APIError(error)
        }
        if let name = body.name, let own = added.first(where: { $0.bridgeID == nil }) {
            _ = try await perform(.renameAccessory(home: homeID, accessory: own.id, name: name))
            let ids = Set(added.map(\.id))
            if let home = server.hub.graph.home(withID: homeID) {
                added = home.accessories.filter { ids.contains($0.id) }
            }
        }
        return added
    }

    /// Each write with its outcome, in the order asked; one value the graph refuses refuses the whole request
    /// (400 or 404, naming `writes[i]`) and nothing is sent.
    func writeOutcomes(_ writes: [CharacteristicWrite], home homeID: UUID) async throws -> [WriteOutcome] {
        let results: [UUID: Result<HAPValue, HubError>]
        do throws(HubError) {
            results = try await server.hub.writeCharacteristics(
                home: homeID,
                writes.map { (characteristic: $0.characteristicID, value: $0.value) },
                as: caller,
                refusingInvalid: true
            )
        } catch {
            throw APIError(error)
        }
        return writes.map { write in
            WriteOutcome(
                characteristicID: write.characteristicID,
                result: results[write.characteristicID] ?? .failure(.accessory(.timedOut))
            )
        }
    }

    /// The results of writes, in the order asked, each with its value or error.
    func write(_ writes: [CharacteristicWrite], home homeID: UUID) async throws -> [CharacteristicWriteResult] {
        try await writeOutcomes(writes, home: homeID).map(\.response)
    }

    /// Runs an action set; each of its actions with its outcome, in the action set's order.
    ///
    /// A failure's message starts with the accessory and the characteristic it concerns ("Porch Lamp (On): …"),
    /// since a scene writes many accessories and the error alone may not say which.
    func runActionSet(_ actionSetID: UUID, home homeID: UUID) async throws -> [CharacteristicWriteResult] {
        let home = try await home(homeID).home
        guard let actionSet = home.actionSets.first(where: { $0.id == actionSetID }) else {
            throw APIError.notFound("actionSet", actionSetID.uuidString)
        }
        let results: [UUID: Result<HAPValue, HubError>]
        do throws(HubError) {
            results = try await server.hub.runActionSet(home: homeID, actionSet: actionSetID, as: caller)
        } catch {
            throw APIError(error)
        }
        return actionSet.actions.map { action in
            var response = WriteOutcome(
                characteristicID: action.characteristicID,
                result: results[action.characteristicID] ?? .failure(.accessory(.timedOut))
            ).response
            if let error = response.error, let label = Self.label(of: action.characteristicID, in: home) {
                response.error?.message = "\(label): \(error.message)"
            }
            return response
        }
    }

    /// "Porch Lamp (On)": the accessory and the type of a characteristic of `home`, or `nil` when it has none.
    static func label(of characteristicID: UUID, in home: Home) -> String? {
        for accessory in home.accessories {
            for service in accessory.services {
                guard let characteristic = service.characteristics.first(where: { $0.id == characteristicID }) else {
                    continue
                }
                let type = ValueError.displayName(of: characteristic.type) ?? characteristic.type.description
                return "\(accessory.name) (\(type))"
            }
        }
        return nil
    }

    /// Whether the query asks to read through the accessory (`?refresh=true`).
    var refresh: Bool {
        get throws {
            switch request.uri.queryParameters.get("refresh") {
            case nil, "false": false
            case "true": true
            case let other?:
                throw APIError.invalidRequest("query 'refresh' must be true or false, not '\(APIError.shown(other))'")
            }
        }
    }

    /// Reads a characteristic from its accessory, so the graph holds the value the accessory has now.
    func readThrough(_ id: UUID, home homeID: UUID) async throws {
        let results: [UUID: Result<HAPValue?, HubError>]
        do throws(HubError) {
            results = try await server.hub.readCharacteristics(home: homeID, [id], as: caller)
        } catch {
            throw APIError(error)
        }
        if case .failure(let error) = results[id] ?? .failure(.accessory(.timedOut)) { throw APIError(error) }
    }

    /// Turns events of a characteristic on or off at the accessory; returns the change recorded.
    func setNotifications(_ id: UUID, isEnabled: Bool, home homeID: UUID) async throws -> [HomeEvent] {
        let hub = server.hub
        let before = hub.graph.lastSequence(ofHome: homeID)
        do throws(HubError) {
            try await hub.setNotifications(home: homeID, characteristic: id, isEnabled: isEnabled, as: caller)
            guard case .events(let events) = try await hub.changes(after: before, inHome: homeID, as: caller) else {
                return []
            }
            return events.filter { event in
                guard case .characteristicNotificationsChanged(let changed, _, _) = event.change else { return false }
                return changed == id
            }
        } catch {
            throw APIError(error)
        }
    }
}

/// One write and what became of it.
struct WriteOutcome: Sendable {
    var characteristicID: UUID
    var result: Result<HAPValue, HubError>

    /// The write's result as the API answers it.
    var response: CharacteristicWriteResult {
        switch result {
        case .success(let value):
            CharacteristicWriteResult(characteristicID: characteristicID, value: value, error: nil)
        case .failure(let error):
            CharacteristicWriteResult(characteristicID: characteristicID, value: nil, error: APIError(error).body.error)
        }
    }
}

extension NearbyAccessory {
    /// The API's description of an accessory the browser found.
    init(_ accessory: DiscoveredAccessory) {
        self.init(
            deviceID: accessory.deviceID,
            name: accessory.name,
            category: Int(accessory.category?.rawValue ?? 0),
            isPairable: !accessory.isPaired
        )
    }
}
