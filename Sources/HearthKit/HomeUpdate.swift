import Foundation
import HAPTypes
import HomeGraph

/// One update of the homes a `HomeManager` mirrors, as its async sequences deliver them.
public enum HomeUpdate: Sendable, Equatable {
    /// A fine-grained change, applied to the mirror in sequence order.
    case changed(HomeEvent)
    /// The home was loaded whole (first seen, or reloaded after a gap or `reloadRequired`), as of `sequence`.
    case reloaded(homeID: UUID, sequence: UInt64)
    /// The home is no longer visible to the user (removed, or the user left it).
    case forgotten(homeID: UUID)

    /// The home the update is about.
    public var homeID: UUID {
        switch self {
        case .changed(let event): event.homeID
        case .reloaded(let homeID, _), .forgotten(let homeID): homeID
        }
    }

    /// The change event, for `changed`.
    public var event: HomeEvent? {
        if case .changed(let event) = self { return event }
        return nil
    }

    /// Whether the update may concern the accessory `accessoryID` (its change, or a reload of any home).
    public func concerns(accessory accessoryID: UUID) -> Bool {
        guard let event else { return true }
        return event.change.accessoryID == accessoryID
    }

    /// Whether the update may concern the characteristic `characteristicID` (its change, or a reload).
    public func concerns(characteristic characteristicID: UUID) -> Bool {
        guard let event else { return true }
        return event.change.characteristicID == characteristicID
    }
}

extension HomeChange {
    /// The accessory the change is about, for accessory, service and characteristic changes.
    public var accessoryID: UUID? {
        switch self {
        case .accessoryAdded(let accessory): accessory.id
        case .accessoryRenamed(let id, _, _), .accessoryMovedToRoom(let id, _, _), .accessoryRemoved(let id),
            .accessoryReachabilityChanged(let id, _):
            id
        case .serviceRenamed(_, let accessory, _, _), .characteristicValueChanged(_, let accessory, _),
            .characteristicNotificationsChanged(_, let accessory, _):
            accessory
        default: nil
        }
    }

    /// The characteristic the change is about, for value and notification changes.
    public var characteristicID: UUID? {
        switch self {
        case .characteristicValueChanged(let id, _, _), .characteristicNotificationsChanged(let id, _, _): id
        default: nil
        }
    }
}

/// The state of a `HomeManager`'s event connection.
public enum ConnectionState: Sendable, Equatable {
    /// Not started, or stopped by the app.
    case idle
    /// Connecting (or waiting to reconnect after `attempt` failures).
    case connecting(attempt: Int)
    /// Connected, caught up, receiving live changes.
    case connected
    /// The hub closed the connection because the user's access was revoked; it is not reopened.
    case revoked(reason: String)
}
