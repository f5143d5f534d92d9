import HAP
import HAPAccessoryServer
import HAPTypes
import Synchronization

/// A lightbulb (On 1.9, Brightness 1.10), a timed-write characteristic (1.11) and a switch event (1.12): a test
/// double standing in for the simulator.
actor TestBackend: AccessoryBackend {
    static let on = CharacteristicID(accessoryID: 1, instanceID: 9)
    static let brightness = CharacteristicID(accessoryID: 1, instanceID: 10)
    static let timed = CharacteristicID(accessoryID: 1, instanceID: 11)
    static let switchEvent = CharacteristicID(accessoryID: 1, instanceID: 12)
    static let name = CharacteristicID(accessoryID: 1, instanceID: 3)

    private var values: [CharacteristicID: HAPValue] = [
        TestBackend.on: .bool(false),
        TestBackend.brightness: .int(50),
        TestBackend.timed: .uint(0),
        TestBackend.name: .string("Test Lamp"),
    ]
    private(set) var writes: [BackendWrite] = []
    private(set) var identifyCount = 0
    private var extraAccessories: [HAPAccessory] = []
    private let stream: AsyncStream<BackendEvent>
    private let continuation: AsyncStream<BackendEvent>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    func database() -> AccessoryDatabase {
        let information = HAPService(
            instanceID: 1,
            type: HAPUUID(apple: 0x3E),
            characteristics: [
                HAPCharacteristic(instanceID: 2, type: HAPUUID(apple: 0x14), permissions: [.write], format: .bool),
                HAPCharacteristic(
                    instanceID: 3,
                    type: HAPUUID(apple: 0x23),
                    permissions: [.read],
                    format: .string,
                    value: values[Self.name]
                ),
            ]
        )
        let lightbulb = HAPService(
            instanceID: 8,
            type: HAPUUID(apple: 0x43),
            isPrimary: true,
            characteristics: [
                HAPCharacteristic(
                    instanceID: 9,
                    type: HAPUUID(apple: 0x25),
                    permissions: [.read, .write, .notify, .writeResponse],
                    format: .bool,
                    value: values[Self.on]
                ),
                HAPCharacteristic(
                    instanceID: 10,
                    type: HAPUUID(apple: 0x08),
                    permissions: [.read, .write, .notify],
                    format: .int,
                    value: values[Self.brightness],
                    unit: .percentage,
                    minValue: 0,
                    maxValue: 100,
                    minStep: 1
                ),
                HAPCharacteristic(
                    instanceID: 11,
                    type: HAPUUID(apple: 0x1E),
                    permissions: [.read, .write, .notify, .timedWrite],
                    format: .uint8,
                    value: values[Self.timed],
                    validValues: [0, 1]
                ),
                HAPCharacteristic(
                    instanceID: 12,
                    type: HAPUUID(apple: 0x73),
                    permissions: [.read, .notify],
                    format: .uint8,
                    minValue: 0,
                    maxValue: 2
                ),
            ]
        )
        return AccessoryDatabase(
            accessories: [HAPAccessory(accessoryID: 1, services: [information, lightbulb])] + extraAccessories
        )
    }

    func read(_ ids: [CharacteristicID]) -> [CharacteristicID: Result<HAPValue?, HAPStatus>] {
        var result: [CharacteristicID: Result<HAPValue?, HAPStatus>] = [:]
        for id in ids { result[id] = .success(values[id]) }
        return result
    }

    func write(_ writes: [BackendWrite]) -> [BackendWriteOutcome] {
        self.writes += writes
        return writes.map { write in
            values[write.id] = write.value
            return BackendWriteOutcome(status: .success, value: write.wantsResponse ? write.value : nil)
        }
    }

    func identify() {
        identifyCount += 1
    }

    func events() -> AsyncStream<BackendEvent> {
        stream
    }

    /// Changes a value as the physical world would, and reports it.
    func change(_ id: CharacteristicID, to value: HAPValue?) {
        if let value { values[id] = value }
        continuation.yield(.valuesChanged([CharacteristicChange(id: id, value: value)]))
    }

    /// Adds an accessory and reports that the database changed.
    func addAccessory() {
        let id = UInt64(extraAccessories.count + 2)
        extraAccessories.append(
            HAPAccessory(
                accessoryID: id,
                services: [
                    HAPService(
                        instanceID: 1,
                        type: HAPUUID(apple: 0x3E),
                        characteristics: [
                            HAPCharacteristic(
                                instanceID: 2,
                                type: HAPUUID(apple: 0x14),
                                permissions: [.write],
                                format: .bool
                            )
                        ]
                    )
                ]
            )
        )
        continuation.yield(.databaseChanged)
    }
}

/// A monotonic clock the test moves by hand.
final class ManualUptime: Sendable {
    private let current = Mutex(Duration.seconds(1000))

    func now() -> Duration { current.withLock { $0 } }

    func advance(by duration: Duration) { current.withLock { $0 += duration } }
}
