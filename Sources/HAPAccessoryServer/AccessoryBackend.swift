import HAP
import HAPTypes

/// One characteristic write as a controller asked for it, already checked against the characteristic's metadata.
public struct BackendWrite: Sendable, Equatable {
    /// Which characteristic.
    public var id: CharacteristicID
    /// The value, normalised to the characteristic's format (a JSON `1` for a bool arrives as `true`).
    public var value: HAPValue
    /// Whether the controller asked for the value back (`"r": true`, write-response).
    public var wantsResponse: Bool

    /// Makes a write.
    public init(id: CharacteristicID, value: HAPValue, wantsResponse: Bool = false) {
        self.id = id
        self.value = value
        self.wantsResponse = wantsResponse
    }
}

/// The outcome of one write: a HAP status and, for write-response, the value after the write.
public struct BackendWriteOutcome: Sendable, Equatable {
    /// `success`, or why the accessory refused.
    public var status: HAPStatus
    /// The value to return when the controller asked for it.
    public var value: HAPValue?

    /// Makes an outcome.
    public init(status: HAPStatus, value: HAPValue? = nil) {
        self.status = status
        self.value = value
    }
}

/// A characteristic value the accessory changed by itself: the physical world, a behaviour's timer, a side effect.
public struct CharacteristicChange: Sendable, Equatable {
    /// Which characteristic.
    public var id: CharacteristicID
    /// Its new value.
    public var value: HAPValue?

    /// Makes a change.
    public init(id: CharacteristicID, value: HAPValue?) {
        self.id = id
        self.value = value
    }
}

/// Something the backend reports to the server as it happens.
public enum BackendEvent: Sendable, Equatable {
    /// Values changed without a controller writing them (or as side effects of a write): send events.
    case valuesChanged([CharacteristicChange])
    /// Accessories, services or characteristics were added or removed: bump `c#` and re-announce.
    case databaseChanged
}

/// What an accessory server serves: the accessory database and how reads, writes and identify behave.
///
/// The server owns sessions, pairing, validation against metadata and events; the backend owns the values.
/// A write's own characteristic is announced to other controllers by the server; the backend reports only
/// other changes through ``events()``.
public protocol AccessoryBackend: Sendable {
    /// The whole accessory database with current values, as served at `GET /accessories`.
    func database() async -> AccessoryDatabase
    /// Current values of the given characteristics; a missing or failing one maps to a HAP status.
    func read(_ ids: [CharacteristicID]) async -> [CharacteristicID: Result<HAPValue?, HAPStatus>]
    /// Applies writes (all in one request) and returns one outcome per write, in order.
    func write(_ writes: [BackendWrite]) async -> [BackendWriteOutcome]
    /// Identify routine: the whole accessory when unpaired (`POST /identify`), else via the Identify characteristic.
    func identify() async
    /// A stream of changes for the server to turn into events; one consumer, the server, for its lifetime.
    func events() async -> AsyncStream<BackendEvent>
    /// The values ``read(_:)`` would return, read now without suspending when the caller already runs where the
    /// backend's state lives (its actor's executor); `nil` otherwise. The default is `nil`.
    func readImmediately(_ ids: [CharacteristicID]) -> [CharacteristicID: Result<HAPValue?, HAPStatus>]?
    /// Whether ``writeImmediately(_:)`` can apply writes now, without suspending. The default is `false`.
    var canWriteImmediately: Bool { get }
    /// What ``write(_:)`` does, done now when ``canWriteImmediately`` is true; `nil` otherwise.
    func writeImmediately(_ writes: [BackendWrite]) -> [BackendWriteOutcome]?
}

extension AccessoryBackend {
    /// Always `nil`: the server awaits ``read(_:)``.
    public func readImmediately(_ ids: [CharacteristicID]) -> [CharacteristicID: Result<HAPValue?, HAPStatus>]? {
        nil
    }

    /// Always `false`: the server awaits ``write(_:)``.
    public var canWriteImmediately: Bool { false }

    /// Always `nil`: the server awaits ``write(_:)``.
    public func writeImmediately(_ writes: [BackendWrite]) -> [BackendWriteOutcome]? { nil }
}
