import Foundation
import HomeGraph

/// Who asks the hub for something: a person, by the user id they have in every home they belong to, or the hub
/// itself (accessory events, automations it runs on its own).
public enum HubCaller: Sendable, Hashable {
    /// The hub's own work; allowed everything.
    case hub
    /// A person; their id is the user id of their membership in each home.
    case user(UUID)
}

extension ChangeAuthor {
    /// The author of what `caller` asks for: a person, or the hub.
    public init(_ caller: HubCaller) {
        switch caller {
        case .hub: self = .hub
        case .user(let userID): self = .person(userID)
        }
    }
}

/// What an operation needs from the caller's role in the home it changes.
public enum AccessLevel: Sendable, Equatable {
    /// Reading and controlling: writing characteristics, running scenes; every user of the home.
    case control
    /// Changing the home's configuration: the owner and administrators.
    case configure
    /// Only the owner: removing the home, handing over or taking away ownership.
    case owner
    /// Only the hub itself: facts that come from accessories (values, reachability, pairing results).
    case hub

    /// The level `operation` needs when a person asks for it.
    public init(for operation: HomeOperation) {
        switch operation {
        case .setNotifications: self = .control
        case .removeHome: self = .owner
        case .addUser(_, _, _, let role): self = role == .owner ? .owner : .configure
        case .setRole(_, _, let role): self = role == .owner ? .owner : .configure
        case .addAccessory, .removeAccessory, .setReachability, .updateCharacteristicValue, .writeCharacteristicValue,
            .setTriggerState:
            self = .hub
        // Only for oneself: the hub checks that the user is the caller.
        case .setPresence: self = .control
        case .addHome, .setPrimaryHome, .renameHome, .setLocation, .setTimeZone, .setTemperatureUnit, .addRoom,
            .renameRoom, .removeRoom,
            .addZone, .renameZone, .removeZone, .addRoomToZone, .removeRoomFromZone, .renameAccessory, .moveAccessory,
            .renameService, .addServiceGroup, .renameServiceGroup, .removeServiceGroup, .addServiceToGroup,
            .removeServiceFromGroup, .addActionSet, .renameActionSet, .removeActionSet, .setActions, .addTrigger,
            .renameTrigger, .removeTrigger, .enableTrigger, .setTriggerDefinition, .setTriggerActionSets,
            .setPresenceRadius, .removeUser:
            self = .configure
        }
    }

    /// Whether a user of `role` has this level.
    public func isGranted(to role: UserRole) -> Bool {
        switch self {
        case .control: true
        case .configure: role.mayConfigure
        case .owner: role == .owner
        case .hub: false
        }
    }
}

extension HomeGraph {
    /// The role of `caller` in the home `homeID`, `nil` when they are not one of its users.
    public func role(of caller: HubCaller, inHome homeID: UUID) -> UserRole? {
        guard case .user(let id) = caller else { return .owner }
        return home(withID: homeID)?.users.first { $0.id == id }?.role
    }

    /// The homes `caller` belongs to (every home for the hub).
    public func homes(visibleTo caller: HubCaller) -> [Home] {
        guard case .user(let id) = caller else { return homes }
        return homes.filter { home in home.users.contains { $0.id == id } }
    }
}
