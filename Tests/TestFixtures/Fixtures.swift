import Foundation
import HAP
import HAPAccessoryServer
import HAPTypes
import HomeGraph
import Logging
import NIOPosix
import Simulator

/// Why a test helper gave up.
public enum TestWaitError: Error {
    case timedOut(String)
}

/// Records everything a stream yields, so a test can wait for the next element that matches, with a timeout.
public actor Recorder<Element: Sendable> {
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
    public static func start(_ stream: AsyncStream<Element>) async -> Recorder {
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
    public func next(
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
    public var all: [Element] { items }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }
}

/// A real accessory server on 127.0.0.1 serving simulated accessories, with an in-memory state store.
public struct SimulatedBridge: Sendable {
    /// The setup code every test bridge uses.
    public static let setupCode = "031-45-154"

    /// The accessory server.
    public let server: AccessoryServer
    /// The simulated accessories it serves.
    public let simulator: SimulatedAccessories
    /// Its pairings and ids, kept for a restart.
    public let store: InMemoryAccessoryStateStore
    /// The port it listens on.
    public let port: Int
    /// Its faults, all off at start: `try await bridge.faults.set(.stopAnswering)` (docs/simulator.md).
    public let faults: SimulatorFaults

    /// The default bridge: three lightbulbs and a temperature sensor.
    public static let description = SimulatorDescription(
        bridgeName: "Test Bridge",
        presets: [PresetRequest(preset: .lightbulbDimmable, count: 3), PresetRequest(preset: .temperatureSensor)]
    )

    /// Starts a bridge; give `port`, `store` and `identifiers` of a stopped bridge to bring it back.
    public static func start(
        port: Int = 0,
        store: InMemoryAccessoryStateStore = InMemoryAccessoryStateStore(),
        identifiers: IdentifierMap = IdentifierMap(),
        description: SimulatorDescription = SimulatedBridge.description
    ) async throws -> SimulatedBridge {
        // The simulation and the server share one event loop, as in hearth-sim.
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
                // A full test run stalls the cooperative pool (where the controller's pairing runs) for tens of
                // seconds while this server's loop keeps time: 10 s would close pair-setups mid-way.
                unverifiedTimeout: .seconds(180),
                setupCode: try SetupCode(setupCode)
            ),
            backend: simulator,
            store: store,
            logger: logger,
            eventLoopGroup: loop,
            faults: TransportFaults()
        )
        let bound = try await server.start()
        let faults = SimulatorFaults(server: server, simulator: simulator)
        for fault in try description.parsedFaults() { try await faults.set(fault) }
        return SimulatedBridge(server: server, simulator: simulator, store: store, port: bound, faults: faults)
    }

    /// Stops the server (and the faults' tasks).
    public func stop() async {
        await faults.stop()
        await server.stop()
    }

    /// Starts the same bridge again on the same port, with its pairings and identifiers.
    public func restarted() async throws -> SimulatedBridge {
        try await SimulatedBridge.start(
            port: port,
            store: store,
            identifiers: await simulator.identifiers,
            description: await simulator.currentDescription
        )
    }
}

/// A logger that stays quiet in tests.
