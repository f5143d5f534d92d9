import Crypto
import Foundation
import HAP
import HAPAccessoryServer
import HAPController
import HomeGraph
import Hub
import Logging
import Simulator
import Testing

/// Why a test helper gave up.
enum TestWaitError: Error {
    case timedOut(String)
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
        _ what: String = "an element",
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
        guard let result else { throw TestWaitError.timedOut(what) }
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
        presets: [PresetRequest(preset: .lightbulbDimmable, count: 3), PresetRequest(preset: .temperatureSensor)]
    )

    /// Starts a bridge; give `port`, `store` and `identifiers` of a stopped bridge to bring it back.
    static func start(
        port: Int = 0,
        store: InMemoryAccessoryStateStore = InMemoryAccessoryStateStore(),
        identifiers: IdentifierMap = IdentifierMap()
    ) async throws -> SimulatedBridge {
        let simulator = try SimulatedAccessories(description: description, identifiers: identifiers)
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
            logger: quietLogger()
        )
        let bound = try await server.start()
        return SimulatedBridge(server: server, simulator: simulator, store: store, port: bound)
    }

    func stop() async {
        await server.stop()
    }

    /// Starts the same bridge again on the same port, with its pairings and identifiers.
    func restarted() async throws -> SimulatedBridge {
        try await SimulatedBridge.start(port: port, store: store, identifiers: await simulator.identifiers)
    }
}

/// A logger that stays quiet in tests.
func quietLogger() -> Logger {
    var logger = Logger(label: "test.hub")
    logger.logLevel = .critical
    return logger
}

/// A backoff of a few milliseconds with fixed jitter, so reconnect tests take little time.
func fastBackoff() -> ReconnectBackoff {
    ReconnectBackoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(300), random: { 0.5 })
}

/// A hub configuration for tests: quiet, fast reconnects, generous request timeouts, no browsing.
func testConfiguration(folder: String) -> Hub.Configuration {
    Hub.Configuration(
        stateFolder: folder,
        logger: quietLogger(),
        accessoryLinks: PairedAccessory.Configuration(
            timeouts: ConnectionTimeouts(connect: .seconds(5), request: .seconds(30)),
            backoff: fastBackoff()
        ),
        pairingTimeouts: ConnectionTimeouts(connect: .seconds(10), request: .seconds(30))
    )
}

/// A fresh state folder.
func temporaryFolder() -> String {
    NSTemporaryDirectory() + "hub-accessories-\(UUID().uuidString)"
}

/// The short Apple type ids the tests use.
enum ShortType {
    static let on = HAPUUID(apple: 0x25)
    static let brightness = HAPUUID(apple: 0x08)
    static let currentTemperature = HAPUUID(apple: 0x11)
}

extension Home {
    /// The first characteristic of `type` on the accessory named `name`.
    func characteristic(_ type: HAPUUID, ofAccessoryNamed name: String) throws -> HomeCharacteristic {
        let accessory = try #require(accessories.first { $0.name == name }, "no accessory \(name)")
        return try #require(accessory.characteristics.first { $0.type == type }, "no \(type) on \(name)")
    }

    /// The accessory with this id.
    func accessory(_ id: UUID) -> HomeAccessory? { accessories.first { $0.id == id } }
}

extension HomeEvent {
    /// Whether this event says `characteristic` now has `value`.
    func isValue(_ value: HAPValue, of characteristic: UUID) -> Bool {
        guard case .characteristicValueChanged(let id, _, let new) = change else { return false }
        return id == characteristic && new == value
    }
}
