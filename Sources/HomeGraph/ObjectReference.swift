import Foundation

/// The kinds of object a home graph holds.
public enum ObjectKind: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// A home.
    case home
    /// A room, the room for the entire home included.
    case room
    /// A zone.
    case zone
    /// An accessory.
    case accessory
    /// A service of an accessory.
    case service
    /// A characteristic of a service.
    case characteristic
    /// A service group.
    case serviceGroup
    /// An action set.
    case actionSet
    /// A trigger.
    case trigger
    /// A user.
    case user
}

/// Points at one object of the graph by kind and id, for errors that name another object.
public struct ObjectReference: Sendable, Equatable, Hashable, Codable {
    /// What kind of object it is.
    public var kind: ObjectKind
    /// The object's id.
    public var id: UUID

    /// Points at the object `id` of `kind`.
    public init(_ kind: ObjectKind, _ id: UUID) {
        self.kind = kind
        self.id = id
    }
}
