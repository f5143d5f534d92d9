import Foundation
import HAPTypes

/// Services from one or more accessories acted on together ("Reading Lamps").
public struct ServiceGroup: Sendable, Equatable, Codable, Identifiable {
    /// The group's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique within the home.
    public var name: String
    /// The services in the group, from any accessories of the home.
    public var serviceIDs: [UUID]

    /// Makes a service group.
    public init(id: UUID, name: String, serviceIDs: [UUID] = []) {
        self.id = id
        self.name = name
        self.serviceIDs = serviceIDs
    }
}

/// A scene: characteristic writes carried out together.
public struct ActionSet: Sendable, Equatable, Codable, Identifiable {
    /// The action set's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique within the home.
    public var name: String
    /// A built-in purpose, or made by a person.
    public var kind: ActionSetKind
    /// The writes, at most one per characteristic.
    public var actions: [Action]

    /// Makes an action set.
    public init(id: UUID, name: String, kind: ActionSetKind = .userDefined, actions: [Action] = []) {
        self.id = id
        self.name = name
        self.kind = kind
        self.actions = actions
    }
}

/// What an action set is for; a home has at most one of each built-in kind.
public enum ActionSetKind: String, Sendable, Equatable, Codable, CaseIterable {
    /// Run when people wake up.
    case wakeUp
    /// Run when people go to sleep.
    case sleep
    /// Run when the last person leaves.
    case homeDeparture
    /// Run when the first person comes home.
    case homeArrival
    /// Made by a person.
    case userDefined

    /// Whether the kind is one of the four built-in ones.
    public var isBuiltIn: Bool { self != .userDefined }
}

/// One write of an action set: set a characteristic to a value.
public struct Action: Sendable, Equatable, Codable {
    /// The characteristic written.
    public var characteristicID: UUID
    /// The value written, valid for the characteristic's metadata.
    public var targetValue: HAPValue

    /// Makes an action.
    public init(characteristicID: UUID, targetValue: HAPValue) {
        self.characteristicID = characteristicID
        self.targetValue = targetValue
    }
}

/// Something that runs action sets automatically; its conditions belong to the automation layer.
public struct Trigger: Sendable, Equatable, Codable, Identifiable {
    /// The trigger's identity, fixed for its life.
    public var id: UUID
    /// The name people see; unique within the home.
    public var name: String
    /// Whether the trigger fires.
    public var isEnabled: Bool
    /// The action sets it runs.
    public var actionSetIDs: [UUID]
    /// What makes it fire, as the automation layer encodes it; opaque to the graph.
    public var definition: Data

    /// Makes a trigger.
    public init(id: UUID, name: String, isEnabled: Bool = true, actionSetIDs: [UUID] = [], definition: Data = Data()) {
        self.id = id
        self.name = name
        self.isEnabled = isEnabled
        self.actionSetIDs = actionSetIDs
        self.definition = definition
    }
}
