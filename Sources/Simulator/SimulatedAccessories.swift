import HAP
import HAPAccessoryServer
import HAPTypes
import NIOCore
import NIOPosix

/// Simulated accessories served through ``AccessoryBackend``: values, behaviours, and the physical world.
///
/// Controller writes run the service's behaviour; its side effects (not the written value itself) go out as
/// ``BackendEvent/valuesChanged(_:)``. Time moves through ``tick()``, which ``run()`` calls every tick interval.
/// The actor runs on an event loop: give it the accessory server's loop and reads and writes take no thread hop.
public actor SimulatedAccessories: AccessoryBackend {
    /// The event loop the simulation runs on.
    public nonisolated let eventLoop: any EventLoop
    /// Runs the actor on ``eventLoop``.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }

    /// Where a characteristic sits in the database.
    struct Location: Hashable {
        var accessoryIndex: Int
        var serviceIndex: Int
        var characteristicIndex: Int
    }

    /// A service, addressed by aid and iid.
    struct ServiceKey: Hashable {
        var accessoryID: UInt64
        var serviceID: UInt64
    }

    let clock: any SimulationClock
    let tickInterval: Duration
    let catalog: TypeCatalog
    /// The description being served, including accessories added or removed while running.
    public internal(set) var currentDescription: SimulatorDescription
    /// The ids in use; persist them after every change.
    public internal(set) var identifiers: IdentifierMap
    /// The category to announce (`ci`).
    public nonisolated let category: AccessoryCategory
    /// Whether the first build's structure differed from the one recorded in the identifier map: bump `c#`.
    public nonisolated let didChangeAtStart: Bool
    /// How many times an identify routine ran.
    public private(set) var identifyCount = 0
    var current: AccessoryDatabase
    var accessories: [BuiltAccessory]
    var behaviours: [ServiceKey: any ServiceBehaviour]
    var locations: [CharacteristicID: Location]
    private let stream: AsyncStream<BackendEvent>
    private let continuation: AsyncStream<BackendEvent>.Continuation

    /// Builds the accessories of `description` with the ids of `identifiers`; time comes from `clock`.
    public init(
        description: SimulatorDescription,
        identifiers: IdentifierMap = IdentifierMap(),
        clock: any SimulationClock = ContinuousSimulationClock(),
        tickInterval: Duration = .seconds(1),
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()
    ) throws(DescriptionError) {
        self.eventLoop = eventLoop
        let build = try description.makeDatabase(identifiers: identifiers)
        self.clock = clock
        self.tickInterval = tickInterval
        catalog = try SimulatorCatalog.shared()
        currentDescription = description
        self.identifiers = build.identifiers
        category = build.category
        didChangeAtStart = build.didChange
        current = build.database
        accessories = build.accessories
        behaviours = Self.makeBehaviours(for: build, keeping: [:], now: clock.now)
        locations = Self.makeLocations(for: build.database)
        (stream, continuation) = AsyncStream.makeStream(of: BackendEvent.self)
    }

    // MARK: AccessoryBackend

    /// The whole database with current values.
    public func database() -> AccessoryDatabase { current }

    /// Current values; ProgrammableSwitchEvent reads as null, write-only ones fail with -70405.
    public func read(_ ids: [CharacteristicID]) -> [CharacteristicID: Result<HAPValue?, HAPStatus>] {
        var results: [CharacteristicID: Result<HAPValue?, HAPStatus>] = [:]
        for id in ids {
            guard let location = locations[id] else {
                results[id] = .failure(.resourceDoesNotExist)
                continue
            }
            do {
                results[id] = .success(try characteristic(at: location).readValue())
            } catch {
                results[id] = .failure(error.hapStatus)
            }
        }
        return results
    }

    /// Stores each value, runs the service's behaviour, and sends events for the side effects only.
    public func write(_ writes: [BackendWrite]) -> [BackendWriteOutcome] {
        var outcomes: [BackendWriteOutcome] = []
        var changes: [CharacteristicChange] = []
        var written: [CharacteristicID: HAPValue] = [:]
        for write in writes {
            guard let location = locations[write.id] else {
                outcomes.append(BackendWriteOutcome(status: .resourceDoesNotExist))
                continue
            }
            let target = characteristic(at: location)
            guard target.has(.write) else {
                outcomes.append(BackendWriteOutcome(status: .readOnlyCharacteristic))
                continue
            }
            let value: HAPValue
            do {
                value = try target.normalized(write.value)
            } catch {
                outcomes.append(BackendWriteOutcome(status: error.hapStatus))
                continue
            }
            if target.type == Self.identifyType {
                if value == .bool(true) { identifyCount += 1 }
                outcomes.append(BackendWriteOutcome(status: .success))
                continue
            }
            if target.has(.read) {
                store(value, at: location)
                written[write.id] = value
            }
            changes += react(at: location, type: target.type, value: value)
            let response = write.wantsResponse ? characteristic(at: location).value : nil
            outcomes.append(BackendWriteOutcome(status: .success, value: response))
        }
        emit(Self.latest(changes).filter { written[$0.id] == nil || written[$0.id] != $0.value })
        return outcomes
    }

    /// ``read(_:)`` done at once when called on ``eventLoop`` (the server shares it); `nil` elsewhere.
    public nonisolated func readImmediately(
        _ ids: [CharacteristicID]
    ) -> [CharacteristicID: Result<HAPValue?, HAPStatus>]? {
        guard eventLoop.inEventLoop else { return nil }
        return assumeIsolated { $0.read(ids) }
    }

    /// Whether the caller runs on ``eventLoop``, where ``writeImmediately(_:)`` can apply writes at once.
    public nonisolated var canWriteImmediately: Bool { eventLoop.inEventLoop }

    /// ``write(_:)`` done at once when called on ``eventLoop``; `nil` elsewhere.
    public nonisolated func writeImmediately(_ writes: [BackendWrite]) -> [BackendWriteOutcome]? {
        guard eventLoop.inEventLoop else { return nil }
        return assumeIsolated { $0.write(writes) }
    }

    /// Counts an identify; a simulated accessory has nothing to blink.
    public func identify() { identifyCount += 1 }

    /// The one stream of changes, for the server; it ends after ``finish()``.
    public func events() -> AsyncStream<BackendEvent> { stream }

    // MARK: Time

    /// Moves every behaviour on to the clock's current time and sends what changed.
    public func tick() {
        var changes: [CharacteristicChange] = []
        for accessoryIndex in current.accessories.indices {
            for serviceIndex in current.accessories[accessoryIndex].services.indices {
                changes +=
                    withBehaviour(accessoryIndex: accessoryIndex, serviceIndex: serviceIndex) { behaviour, values in
                        behaviour.tick(&values)
                        return true
                    }.changes
            }
        }
        emit(Self.latest(changes))
    }

    /// Calls ``tick()`` every tick interval until the task is cancelled.
    public func run() async {
        var next = clock.now + tickInterval
        while !Task.isCancelled {
            do {
                try await clock.sleep(until: next)
            } catch {
                return
            }
            tick()
            next += tickInterval
            if next <= clock.now { next = clock.now + tickInterval }
        }
    }

    /// Ends the event stream.
    public func finish() { continuation.finish() }

    /// Tells the server the database changed since the last run (the description was edited): bump `c#`.
    public func announceDatabaseChanged() { continuation.yield(.databaseChanged) }

    // MARK: Shared with the physical world

    static let identifyType = HAPUUID(apple: 0x14)

    func characteristic(at location: Location) -> HAPCharacteristic {
        current.accessories[location.accessoryIndex].services[location.serviceIndex]
            .characteristics[location.characteristicIndex]
    }

    func store(_ value: HAPValue, at location: Location) {
        current.accessories[location.accessoryIndex].services[location.serviceIndex]
            .characteristics[location.characteristicIndex].value = value
    }

    /// Runs the behaviour of the service holding `location` after its characteristic `type` became `value`.
    func react(at location: Location, type: HAPUUID, value: HAPValue) -> [CharacteristicChange] {
        withBehaviour(accessoryIndex: location.accessoryIndex, serviceIndex: location.serviceIndex) {
            behaviour,
            values in
            behaviour.react(to: type, value: value, in: &values)
            return true
        }.changes
    }

    /// Runs `body` on a service's behaviour and values, stores the result, and returns what changed.
    func withBehaviour(
        accessoryIndex: Int,
        serviceIndex: Int,
        _ body: (inout any ServiceBehaviour, inout ServiceValues) -> Bool
    ) -> (handled: Bool, changes: [CharacteristicChange]) {
        let accessoryID = current.accessories[accessoryIndex].accessoryID
        let service = current.accessories[accessoryIndex].services[serviceIndex]
        let key = ServiceKey(accessoryID: accessoryID, serviceID: service.instanceID)
        guard var behaviour = behaviours[key] else { return (false, []) }
        var values = ServiceValues(service: service, now: clock.now)
        let handled = body(&behaviour, &values)
        behaviours[key] = behaviour
        current.accessories[accessoryIndex].services[serviceIndex] = values.service
        var changes = values.changedIDs.map { instanceID in
            CharacteristicChange(
                id: CharacteristicID(accessoryID: accessoryID, instanceID: instanceID),
                value: values.service.characteristics.first { $0.instanceID == instanceID }?.value
            )
        }
        changes += values.announcements.map {
            CharacteristicChange(
                id: CharacteristicID(accessoryID: accessoryID, instanceID: $0.instanceID),
                value: $0.value
            )
        }
        return (handled, changes)
    }

    func emit(_ changes: [CharacteristicChange]) {
        guard !changes.isEmpty else { return }
        continuation.yield(.valuesChanged(changes))
    }

    func emitDatabaseChanged() { continuation.yield(.databaseChanged) }

    /// Each characteristic once, with its last value, in the order it first changed.
    static func latest(_ changes: [CharacteristicChange]) -> [CharacteristicChange] {
        var order: [CharacteristicID] = []
        var values: [CharacteristicID: HAPValue?] = [:]
        for change in changes {
            if values.updateValue(change.value, forKey: change.id) == nil { order.append(change.id) }
        }
        return order.map { CharacteristicChange(id: $0, value: values[$0] ?? nil) }
    }

    static func makeBehaviours(
        for build: DatabaseBuild,
        keeping old: [ServiceKey: any ServiceBehaviour],
        now: Duration
    ) -> [ServiceKey: any ServiceBehaviour] {
        var result: [ServiceKey: any ServiceBehaviour] = [:]
        for (accessory, built) in zip(build.database.accessories, build.accessories) {
            for service in accessory.services {
                let key = ServiceKey(accessoryID: accessory.accessoryID, serviceID: service.instanceID)
                result[key] = old[key] ?? makeBehaviour(for: service.type, timing: built.timing, now: now)
            }
        }
        return result
    }

    static func makeLocations(for database: AccessoryDatabase) -> [CharacteristicID: Location] {
        var result: [CharacteristicID: Location] = [:]
        for (accessoryIndex, accessory) in database.accessories.enumerated() {
            for (serviceIndex, service) in accessory.services.enumerated() {
                for (index, characteristic) in service.characteristics.enumerated() {
                    let id = CharacteristicID(accessoryID: accessory.accessoryID, instanceID: characteristic.instanceID)
                    result[id] = Location(
                        accessoryIndex: accessoryIndex,
                        serviceIndex: serviceIndex,
                        characteristicIndex: index
                    )
                }
            }
        }
        return result
    }
}
