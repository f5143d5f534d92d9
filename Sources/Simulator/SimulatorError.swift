import HAP
import HAPTypes

/// Why a physical-world change or an edit of the running simulator was refused.
public enum SimulatorError: Error, Equatable, Sendable {
    /// No accessory with this name (case-insensitive) or aid.
    case unknownAccessory(String)
    /// The accessory has no characteristic with this name, synonym, UUID or iid.
    case unknownCharacteristic(accessory: String, characteristic: String)
    /// The characteristic holds no value the world could change (it is write-only).
    case notSettable(accessory: String, characteristic: String)
    /// The value fails the characteristic's format or metadata.
    case invalidValue(accessory: String, characteristic: String, ValueError)
    /// The accessory does not understand this event; `known` lists the ones it does.
    case unknownEvent(accessory: String, event: String, known: [String])
    /// The accessory has no button (no ProgrammableSwitchEvent characteristic).
    case notAButton(accessory: String)
    /// Another accessory already has this name.
    case nameTaken(String)
    /// Accessories can be added or removed only behind a bridge.
    case notABridge
    /// The edited description cannot be served.
    case description(DescriptionError)

    /// The CLI exit code for this failure (style.md §3): 3 for something not found, 2 for a bad request.
    public var exitCode: Int32 {
        switch self {
        case .unknownAccessory, .unknownCharacteristic: 3
        case .notSettable, .invalidValue, .unknownEvent, .notAButton, .nameTaken, .notABridge, .description: 2
        }
    }
}
