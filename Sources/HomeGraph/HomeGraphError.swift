import Foundation
import HAPTypes

/// Why an operation on the home graph was refused; the graph is then unchanged.
public enum HomeGraphError: Error, Equatable, Sendable {
    /// No object of this kind with this id (in the home the operation names).
    case notFound(ObjectKind, UUID)
    /// Another object of the home (or another home) already has this name, compared without case or accents.
    case nameTaken(name: String, existing: ObjectReference)
    /// The name (as given) breaks a naming rule: nothing visible, too long, a control or bidi control character.
    case invalidName(String, NameProblem)
    /// A new object was given an id another object already has.
    case idTaken(ObjectReference)
    /// A characteristic value or access that HAP's checks refuse (out of range, read-only, no events), with the
    /// characteristic's type so that a message can name it ("Brightness").
    case invalidValue(ValueError, characteristicType: HAPUUID)
    /// The room for the entire home cannot be removed or put in a zone.
    case roomForEntireHome(UUID)
    /// The latitude or longitude is not finite or out of range.
    case invalidLocation(Location)
    /// No time zone has this identifier.
    case invalidTimeZone(String)
    /// The home already has an owner; it has one at most.
    case ownerExists(UUID)
    /// The home already has an action set of this built-in kind.
    case builtInActionSetExists(ActionSetKind, existing: UUID)
    /// A built-in action set (scene) cannot be removed; it can be renamed and its actions changed.
    case builtInActionSetNotRemovable(ActionSetKind, name: String, id: UUID)
    /// An action set has two actions for one characteristic.
    case duplicateAction(characteristicID: UUID)
    /// The accessory cannot sit behind this bridge (itself, or a bridge that is itself bridged).
    case invalidBridge(UUID)
    /// A part of a trigger's definition is invalid: `field` is its path (`events[0].value`), `problem` a sentence.
    case invalidTrigger(field: String, problem: String)
    /// A user reported presence for someone else, or a user who is not in the home.
    case invalidPresence(String)
    /// A home's setting is outside its allowed range: `field` is its name (`presenceRadius`), `problem` a sentence.
    case outOfRange(field: String, problem: String)

    /// The stable API error code (docs/style.md §4).
    public var code: String {
        switch self {
        case .notFound: "notFound"
        case .nameTaken: "nameTaken"
        case .invalidName: "invalidName"
        case .idTaken: "idTaken"
        case .invalidValue: "invalidValue"
        case .roomForEntireHome: "roomForEntireHome"
        case .invalidLocation: "invalidLocation"
        case .invalidTimeZone: "invalidTimeZone"
        case .ownerExists: "ownerExists"
        case .builtInActionSetExists: "builtInActionSetExists"
        case .builtInActionSetNotRemovable: "builtInActionSetNotRemovable"
        case .duplicateAction: "duplicateAction"
        case .invalidBridge: "invalidBridge"
        case .invalidTrigger: "invalidTrigger"
        case .invalidPresence: "invalidPresence"
        case .outOfRange: "invalidValue"
        }
    }

    /// The HTTP status the API answers with (docs/style.md §4: 404 not found, 409 conflict, 400 invalid).
    public var httpStatus: Int {
        switch self {
        case .notFound: 404
        case .nameTaken, .idTaken, .roomForEntireHome, .ownerExists, .builtInActionSetExists,
            .builtInActionSetNotRemovable:
            409
        case .invalidName, .invalidValue, .invalidLocation, .invalidTimeZone, .duplicateAction, .invalidBridge,
            .invalidTrigger, .invalidPresence, .outOfRange:
            400
        }
    }
}
