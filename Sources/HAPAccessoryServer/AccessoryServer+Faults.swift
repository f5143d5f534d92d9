import HAP
import HAPTypes
import NIOCore

/// What a simulator does to the whole server on purpose: go away and come back, reboot, send stray events.
///
/// These are for testing controllers (`hearth-sim`'s faults); a real accessory never calls them.
extension AccessoryServer {
    /// Whether the server is listening (false after ``goOffline()`` until ``comeOnline()``).
    public var isOnline: Bool { serverChannel != nil }

    /// Closes every connection now, as a network that drops them would.
    public func closeAllConnections() {
        for id in Array(connections.keys) { close(id) }
    }

    /// Stops listening and closes every connection, as an accessory that lost its network would; the port, the
    /// pairings and the identity stay.
    public func goOffline() async {
        guard let channel = serverChannel else { return }
        serverChannel = nil
        closeAllConnections()
        try? await channel.close()
        logger.notice("Accessory server went offline on purpose")
    }

    /// Listens again on the same port after ``goOffline()``.
    public func comeOnline() async throws {
        guard serverChannel == nil, let port else { return }
        try await listen(port: port)
        logger.notice("Accessory server is back online", metadata: ["port": "\(port)"])
    }

    /// Restarts as a rebooting accessory does: offline, the configuration number (`c#`) one higher, online again
    /// on the same port with the same ids and pairings, and announced.
    public func reboot() async throws {
        await goOffline()
        // hap-protocol.md §12.3: c# runs 1–65535 and wraps to 1.
        state.configurationNumber = state.configurationNumber >= 65535 ? 1 : state.configurationNumber + 1
        await persist()
        database = await backend.database()
        try await comeOnline()
        publishAdvertisement()
    }

    /// Sends every verified session an event for each event-capable characteristic it did not subscribe to, with
    /// its current value, and one for a characteristic that does not exist (aid and iid 0xFFFF_FFFF).
    public func sendStrayEvents() async {
        var notifying: [CharacteristicID] = []
        for accessory in database.accessories {
            for service in accessory.services {
                for characteristic in service.characteristics where characteristic.has(.notify) {
                    notifying.append(
                        CharacteristicID(accessoryID: accessory.accessoryID, instanceID: characteristic.instanceID)
                    )
                }
            }
        }
        let values = await backend.read(notifying)
        let unknown = CharacteristicChange(
            id: CharacteristicID(accessoryID: 0xFFFF_FFFF, instanceID: 0xFFFF_FFFF),
            value: .bool(true)
        )
        for record in connections.values where record.controllerID != nil {
            var changes = notifying.filter { !record.subscriptions.contains($0) }.compactMap { id in
                guard case .success(let value)? = values[id] else { return nil as CharacteristicChange? }
                return CharacteristicChange(id: id, value: value)
            }
            changes.append(unknown)
            record.handle.deliver(changes, immediately: true)
        }
    }
}
