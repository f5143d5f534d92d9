import Foundation
import HAP
import HearthAPI
import HomeGraph
import Hub

// The accessory half of the API. The hub's accessory calls (pairing with a setup code, discovery, reads and
// writes through HAPController, identify, removal, connections) are being added to `Hub` in another branch;
// until they merge, the routes below call this protocol, and `UnwiredAccessories` answers 501.
//
// TODO when the Hub's accessory half merges:
// - [ ] `extension Hub: AccessoryControl` (or a small adapter struct) mapping each method to the Hub's call.
// - [ ] `HubServer(hub:…, accessories:)`: pass the adapter from `hearthd` instead of `UnwiredAccessories()`.
// - [ ] `readCharacteristic`: return a fresh value from the accessory when `refresh` is true (today: cached).
// - [ ] `setNotifications`: subscribe on the accessory, not only record the graph operation (today: graph only).
// - [ ] `runActionSet`: the hub writes every action at once and reports each write's outcome.
// - [ ] `hearthd --demo`: start the hearth-sim demo bridge in process and pair it (see `DemoHome.swift`).
// - [ ] Tests: the 501 expectations in `HubServerTests/AccessoryRouteTests.swift` become real round trips.

/// The hub's calls that talk to accessories; the hub checks the caller's rights in each.
public protocol AccessoryControl: Sendable {
    /// Unpaired accessories found nearby, for a home the caller configures.
    func nearbyAccessories(home: UUID, as caller: HubCaller) async throws -> [NearbyAccessory]
    /// Pairs the accessory `deviceID` with its setup code and adds it (and any bridged ones) to the home.
    func pair(
        deviceID: String,
        setupCode: String,
        name: String?,
        room: UUID?,
        home: UUID,
        as caller: HubCaller
    ) async throws -> [HomeAccessory]
    /// Removes the pairing and the accessory (and the accessories behind a bridge) from the home.
    func removeAccessory(_ accessory: UUID, home: UUID, as caller: HubCaller) async throws
    /// Asks the accessory to identify itself (blink, beep).
    func identify(_ accessory: UUID, home: UUID, as caller: HubCaller) async throws
    /// Writes characteristic values through the accessories, all in flight at once, each with its outcome.
    func write(
        _ writes: [CharacteristicWrite],
        home: UUID,
        as caller: HubCaller
    ) async throws
        -> [CharacteristicWriteResult]
    /// Runs an action set: writes each of its actions, each with its outcome.
    func runActionSet(_ actionSet: UUID, home: UUID, as caller: HubCaller) async throws -> [CharacteristicWriteResult]
}

/// The stand-in until the hub's accessory half merges: every call answers 501 Not Implemented.
public struct UnwiredAccessories: AccessoryControl {
    /// Makes the stand-in.
    public init() {}

    /// Answers 501.
    public func nearbyAccessories(home: UUID, as caller: HubCaller) async throws -> [NearbyAccessory] {
        throw APIError.notImplemented("discovering accessories")
    }

    /// Answers 501.
    public func pair(
        deviceID: String,
        setupCode: String,
        name: String?,
        room: UUID?,
        home: UUID,
        as caller: HubCaller
    ) async throws -> [HomeAccessory] {
        throw APIError.notImplemented("pairing accessories")
    }

    /// Answers 501.
    public func removeAccessory(_ accessory: UUID, home: UUID, as caller: HubCaller) async throws {
        throw APIError.notImplemented("removing accessories")
    }

    /// Answers 501.
    public func identify(_ accessory: UUID, home: UUID, as caller: HubCaller) async throws {
        throw APIError.notImplemented("identifying accessories")
    }

    /// Answers 501.
    public func write(
        _ writes: [CharacteristicWrite],
        home: UUID,
        as caller: HubCaller
    ) async throws
        -> [CharacteristicWriteResult]
    {
        throw APIError.notImplemented("writing characteristics")
    }

    /// Answers 501.
    public func runActionSet(
        _ actionSet: UUID,
        home: UUID,
        as caller: HubCaller
    ) async throws
        -> [CharacteristicWriteResult]
    {
        throw APIError.notImplemented("running action sets")
    }
}
