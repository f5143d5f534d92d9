import Crypto
import Foundation
import HAP
import HAPAccessoryServer
import Logging
import NIOPosix
import Simulator
import Testing

@testable import HAPController

/// Why a test helper gave up.
enum TestWaitError: Error {
    case timedOut
}

/// Records everything a stream yields, so a test can wait for the next element that matches, with a timeout.
actor Recorder<Element: Sendable> {
    private struct Waiter {
        var id: Int
        var predicate: @Sendable (Element) -> Bool
        var continuation: CheckedContinuation<Element?, Never>
    }

    private var items: [Element] = []
    private var cursor = 0
    private var waiters: [Waiter] = []
    private var nextID = 0
    private var task: Task<Void, Never>?

    /// Starts recording `stream`.
    static func start(_ stream: AsyncStream<Element>) async -> Recorder {
        let recorder = Recorder()
        await recorder.follow(stream)
        return recorder
    }

    private func follow(_ stream: AsyncStream<Element>) {
        task = Task { [weak self] in
            for await element in stream { await self?.record(element) }
        }
    }

    private func record(_ element: Element) {
        items.append(element)
        if let index = waiters.firstIndex(where: { $0.predicate(element) }) {
            let waiter = waiters.remove(at: index)
            cursor = items.count
            waiter.continuation.resume(returning: element)
        }
    }

    /// The next element after the last one returned that satisfies `predicate`.
    func next(
        timeout: Duration = .seconds(60),
        where predicate: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) async throws -> Element {
        if let index = items[cursor...].firstIndex(where: predicate) {
            cursor = index + 1
            return items[index]
        }
        cursor = items.count
        nextID += 1
        let id = nextID
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
            waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.expire(id)
            }
        }
        guard let result else { throw TestWaitError.timedOut }
        return result
    }

    /// Everything recorded so far.
    var all: [Element] { items }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }
}

/// A real accessory server on 127.0.0.1 serving simulated accessories, with an in-memory state store.
struct SimulatedBridge {
    static let setupCode = "031-45-154"

    let server: AccessoryServer
    let simulator: SimulatedAccessories
    let store: InMemoryAccessoryStateStore
    let port: Int

    static let description = SimulatorDescription(
        bridgeName: "Test Bridge",
        presets: [PresetRequest(preset: .lightbulb, count: 3), PresetRequest(preset: .temperatureSensor)]
    )

    /// Starts a bridge; give `port` and `store` of a stopped bridge to bring it back.
    static func start(
        port: Int = 0,
        store: InMemoryAccessoryStateStore = InMemoryAccessoryStateStore(),
        identifiers: IdentifierMap = IdentifierMap(),
        description: SimulatorDescription = SimulatedBridge.description
    ) async throws -> SimulatedBridge {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let simulator = try SimulatedAccessories(description: description, identifiers: identifiers, eventLoop: loop)
        var logger = Logger(label: "test.bridge")
        logger.logLevel = .critical
        let server = AccessoryServer(
            configuration: AccessoryServer.Configuration(
                name: "Test Bridge",
                model: "TB1",
                category: .bridge,
                host: "127.0.0.1",
                port: port,
                eventCoalescingWindow: .zero,
                setupCode: try SetupCode(setupCode)
            ),
            backend: simulator,
            store: store,
            logger: logger,
            eventLoopGroup: loop
        )
        let bound = try await server.start()
        return SimulatedBridge(server: server, simulator: simulator, store: store, port: bound)
    }

    func stop() async {
        await server.stop()
    }

    /// Pairs a new controller and returns a client for the bridge with a fast backoff.
    func pairedClient(
        identity: ControllerIdentity = newIdentity(),
        timeouts: ConnectionTimeouts = ConnectionTimeouts(connect: .seconds(10), request: .seconds(20))
    ) async throws -> PairedAccessory {
        let pairing = try await AccessoryPairingClient().pairSetup(
            host: "127.0.0.1",
            port: port,
            setupCode: try SetupCode(Self.setupCode),
            identity: identity
        )
        return client(for: PairedAccessoryRecord(pairing: pairing, host: "127.0.0.1", port: port), identity: identity)
    }

    func client(
        for record: PairedAccessoryRecord,
        identity: ControllerIdentity,
        timeouts: ConnectionTimeouts = ConnectionTimeouts(connect: .seconds(10), request: .seconds(20))
    ) -> PairedAccessory {
        PairedAccessory(
            record: record,
            identity: identity,
            configuration: PairedAccessory.Configuration(timeouts: timeouts, backoff: fastBackoff()),
            logger: quietLogger()
        )
    }

    /// The id of the first characteristic of `shortType` on accessory `accessoryID`.
    func id(_ shortType: UInt32, accessoryID: UInt64) async throws -> CharacteristicID {
        let database = await simulator.database()
        let accessory = try #require(database.accessory(withID: accessoryID))
        let characteristic = try #require(
            accessory.services.flatMap(\.characteristics).first { $0.type == HAPUUID(apple: shortType) }
        )
        return CharacteristicID(accessoryID: accessoryID, instanceID: characteristic.instanceID)
    }
}

/// A backoff of a few milliseconds with fixed jitter, so reconnect tests take little time.
func fastBackoff() -> ReconnectBackoff {
    ReconnectBackoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), random: { 0.5 })
}

func quietLogger() -> Logger {
    var logger = Logger(label: "test.controller")
    logger.logLevel = .critical
    return logger
}

func newIdentity() -> ControllerIdentity {
    ControllerIdentity(pairingID: UUID().uuidString, signingKey: Curve25519.Signing.PrivateKey())
}

/// The short Apple type ids the tests use.
enum ShortType {
    static let on: UInt32 = 0x25
    static let currentTemperature: UInt32 = 0x11
    static let name: UInt32 = 0x23
}
