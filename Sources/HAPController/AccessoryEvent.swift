import HAP
import HAPTypes

/// A characteristic's new value, as an accessory's event reported it.
public struct CharacteristicValueChange: Sendable, Equatable, Hashable {
    /// Which characteristic.
    public var id: CharacteristicID
    /// Its new value; `nil` for a JSON null (ProgrammableSwitchEvent reads as null, hap-protocol.md §7.5).
    public var value: HAPValue?

    /// Makes a change.
    public init(id: CharacteristicID, value: HAPValue?) {
        self.id = id
        self.value = value
    }
}

/// What a paired accessory reports on its own.
public enum AccessoryEvent: Sendable, Equatable {
    /// Subscribed characteristics changed (one EVENT message).
    case valuesChanged([CharacteristicValueChange])
    /// An event could not be used: unknown characteristic, unreadable body; the connection keeps working.
    case invalidEvent(HAPControllerError)
    /// The configuration number changed and the accessory database was read again.
    case databaseChanged(AccessoryDatabase)
}
