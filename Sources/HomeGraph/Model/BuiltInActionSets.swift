import Foundation

/// The ids of a new home's four built-in action sets (scenes), chosen by the caller as every new object's id is.
///
/// `HomeOperation.addHome` carries them, so a store that replays its log makes the same scenes with the same ids.
public struct BuiltInActionSetIDs: Sendable, Equatable, Codable {
    /// The Wake Up scene's id.
    public var wakeUp: UUID
    /// The Leave Home scene's id.
    public var homeDeparture: UUID
    /// The Arrive Home scene's id.
    public var homeArrival: UUID
    /// The Sleep scene's id.
    public var sleep: UUID

    /// Makes the ids.
    public init(wakeUp: UUID, homeDeparture: UUID, homeArrival: UUID, sleep: UUID) {
        self.wakeUp = wakeUp
        self.homeDeparture = homeDeparture
        self.homeArrival = homeArrival
        self.sleep = sleep
    }

    /// Four ids from `ids`, in the order of ``ActionSetKind/builtIn``.
    public init(using ids: inout some IDGenerator) {
        self.init(wakeUp: ids.makeID(), homeDeparture: ids.makeID(), homeArrival: ids.makeID(), sleep: ids.makeID())
    }

    /// Four new random ids.
    public static func random() -> BuiltInActionSetIDs {
        var ids = SystemIDGenerator()
        return BuiltInActionSetIDs(using: &ids)
    }

    /// Each built-in kind with its id, in the order of ``ActionSetKind/builtIn``.
    public var byKind: [(kind: ActionSetKind, id: UUID)] {
        [(.wakeUp, wakeUp), (.homeDeparture, homeDeparture), (.homeArrival, homeArrival), (.sleep, sleep)]
    }
}

extension ActionSetKind {
    /// The four built-in kinds, in the order a new home lists their scenes.
    public static let builtIn: [ActionSetKind] = [.wakeUp, .homeDeparture, .homeArrival, .sleep]

    /// The name a built-in scene of this kind starts with ("Wake Up"); `nil` for a scene made by a person.
    public var builtInName: String? {
        switch self {
        case .wakeUp: "Wake Up"
        case .homeDeparture: "Leave Home"
        case .homeArrival: "Arrive Home"
        case .sleep: "Sleep"
        case .userDefined: nil
        }
    }
}

extension Home {
    /// The built-in scenes of a new home, with the ids the operation carries and empty actions.
    static func builtInActionSets(_ ids: BuiltInActionSetIDs) -> [ActionSet] {
        ids.byKind.map { kind, id in ActionSet(id: id, name: kind.builtInName ?? kind.rawValue, kind: kind) }
    }

    /// The operations that add the built-in scenes this home lacks (a home made before homes had them), with ids
    /// from `ids`; each takes its built-in name, or the first free "Wake Up 2", "Wake Up 3", … when a scene or
    /// another object of the home already has it.
    public func addingMissingBuiltInActionSets(ids: inout some IDGenerator) -> [HomeOperation] {
        var taken = Set(uniquelyNamedObjects.map { Names.key($0.name) })
        var operations: [HomeOperation] = []
        for kind in ActionSetKind.builtIn where !actionSets.contains(where: { $0.kind == kind }) {
            let base = kind.builtInName ?? kind.rawValue
            var name = base
            var number = 2
            while taken.contains(Names.key(name)) {
                name = Names.numbered(base, number)
                number += 1
            }
            taken.insert(Names.key(name))
            operations.append(.addActionSet(home: id, id: ids.makeID(), name: name, kind: kind))
        }
        return operations
    }
}

extension Home {
    /// The home's action set of `kind`; for `.userDefined`, the first one made by a person.
    public func actionSet(ofKind kind: ActionSetKind) -> ActionSet? {
        actionSets.first { $0.kind == kind }
    }
}
