import HAP
import HAPTypes

/// Every simulated accessory with its current values, as `hearth-sim status --json` prints it.
public struct SimulatorSnapshot: Sendable, Equatable, Codable {
    /// The accessories, the bridge first.
    public var accessories: [AccessorySnapshot]
    /// How many times an identify routine ran.
    public var identifyCount: Int
}

/// One accessory in a ``SimulatorSnapshot``.
public struct AccessorySnapshot: Sendable, Equatable, Codable {
    /// The accessory id.
    public var accessoryID: UInt64
    /// The accessory's name.
    public var name: String
    /// The preset it was made from.
    public var preset: String?
    /// Its services.
    public var services: [ServiceSnapshot]
}

/// One service in a ``SimulatorSnapshot``.
public struct ServiceSnapshot: Sendable, Equatable, Codable {
    /// The catalog identifier (`lightbulb`), or the UUID of a custom type.
    public var type: String
    /// The instance id.
    public var instanceID: UInt64
    /// Its characteristics.
    public var characteristics: [CharacteristicSnapshot]
}

/// One characteristic in a ``SimulatorSnapshot``.
public struct CharacteristicSnapshot: Sendable, Equatable, Codable {
    /// The catalog identifier (`brightness`), or a custom characteristic's description or UUID.
    public var type: String
    /// The instance id.
    public var instanceID: UInt64
    /// The current value; `nil` for write-only characteristics and buttons.
    public var value: HAPValue?
    /// The value's name for enumerations (`secured`).
    public var valueName: String?
}
