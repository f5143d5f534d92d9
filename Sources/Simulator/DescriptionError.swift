import HAP
import HAPTypes

/// Why an accessory description cannot be served; each case names the accessory and the field at fault.
///
/// `field` is a path into the description, such as `services[0].characteristics.brightness.minValue`.
public enum DescriptionError: Error, Equatable, Sendable {
    /// The text is not JSON of the description's shape; the text says where.
    case invalidJSON(String)
    /// The text is not in the YAML subset descriptions may use (docs/simulator.md); the line and why.
    case invalidYAML(line: Int, reason: String)
    /// The bundled type catalog could not be read.
    case catalogUnavailable(CatalogError)
    /// No preset with this name.
    case unknownPreset(accessory: String, preset: String)
    /// A `--preset` argument that is not `NAME` or `NAME:COUNT` with a count from 1 to 150.
    case invalidPresetRequest(String)
    /// No service type with this identifier, synonym or UUID.
    case unknownServiceType(accessory: String, field: String, type: String)
    /// No characteristic type with this identifier or synonym.
    case unknownCharacteristic(accessory: String, field: String, name: String)
    /// The characteristic is neither required nor optional in the service.
    case characteristicNotInService(accessory: String, field: String, characteristic: String, service: String)
    /// A value that fails the characteristic's format or metadata.
    case invalidValue(accessory: String, field: String, ValueError)
    /// A metadata override outside what the characteristic type allows (it may only narrow the range).
    case outOfRange(accessory: String, field: String, value: Double, allowed: ClosedRange<Double>)
    /// A custom characteristic that cannot be built; the text says why.
    case invalidCustomCharacteristic(accessory: String, field: String, reason: String)
    /// A behaviour setting that makes no sense (a negative duration, a step of zero).
    case invalidBehaviour(accessory: String, field: String)
    /// An empty name, or one longer than a Name characteristic holds (64 bytes).
    case invalidName(field: String)
    /// Two accessories share a name or an `id` (compared case-insensitively).
    case duplicateAccessory(String)
    /// The same characteristic is given twice in one service.
    case duplicateCharacteristic(accessory: String, field: String)
    /// More accessories than one bridge may expose, the bridge included; hap-protocol.md §12.3.
    case tooManyAccessories(count: Int, maximum: Int)
    /// More or fewer than one accessory without a bridge.
    case bridgeRequired(accessoryCount: Int)
    /// An entry of `faults` that is not a fault the simulator knows, with its reason.
    case invalidFault(field: String, SimulatorFaultError)
    /// The built database fails the server's checks (a bug in the simulator, or ids exhausted).
    case invalidDatabase(DatabaseError)
}
