import Crypto
import Foundation
import HAP
import HAPAccessoryServer
import Logging
import TestSupport

/// A running server on 127.0.0.1, port 0, with the test backend, an in-memory store and a clock the test moves.
struct TestAccessory {
    static let setupCode = "031-45-154"

    let server: AccessoryServer
    let backend: TestBackend
    let store: InMemoryAccessoryStateStore
    let uptime: ManualUptime
    let port: Int

    static func start(
        store: InMemoryAccessoryStateStore = InMemoryAccessoryStateStore(),
        eventCoalescingWindow: Duration = .zero,
        setupCode: String = setupCode,
        maximumSessions: Int = 17,
        unverifiedTimeout: Duration = .seconds(180),
        logs: CapturedLogs? = nil
    ) async throws -> TestAccessory {
        let backend = TestBackend()
        let uptime = ManualUptime()
        var logger =
            if let logs {
                Logger(label: "test.accessory-server") { _ in logs.handler() }
            } else {
                Logger(label: "test.accessory-server")
            }
        logger.logLevel = logs == nil ? .critical : .debug
        let server = AccessoryServer(
            configuration: AccessoryServer.Configuration(
                name: "Test Lamp",
                model: "TL1",
                category: .lightbulb,
                host: "127.0.0.1",
                port: 0,
                maximumSessions: maximumSessions,
                eventCoalescingWindow: eventCoalescingWindow,
                unverifiedTimeout: unverifiedTimeout,
                setupCode: try SetupCode(setupCode)
            ),
            backend: backend,
            store: store,
            logger: logger,
            uptime: { uptime.now() }
        )
        let port = try await server.start()
        return TestAccessory(server: server, backend: backend, store: store, uptime: uptime, port: port)
    }

    func stop() async {
        await server.stop()
    }

    func connect() async throws -> TestClient {
        try await TestClient.connect(port: port)
    }

    /// Pairs `identity` as the admin and returns the accessory's record.
    func pair(_ identity: ControllerIdentity = TestAccessory.newController()) async throws -> AccessoryPairing {
        let client = try await connect()
        do {
            let pairing = try await client.pairSetup(setupCode: Self.setupCode, identity: identity)
            await client.close()
            return pairing
        } catch {
            await client.close()
            throw error
        }
    }

    /// A new connection verified as `identity`.
    func verifiedClient(_ identity: ControllerIdentity, accessory: AccessoryPairing) async throws -> TestClient {
        let client = try await connect()
        try await client.pairVerify(identity: identity, accessory: accessory)
        return client
    }

    static func newController() -> ControllerIdentity {
        ControllerIdentity(pairingID: UUID().uuidString, signingKey: Curve25519.Signing.PrivateKey())
    }

    /// Reads the server's advertisement stream until one satisfies `condition`.
    ///
    /// The stream has one consumer: only this helper reads it, and a timeout fails the test.
    func waitForAdvertisement(
        timeout: Duration = .seconds(30),
        _ condition: @escaping @Sendable (Advertisement) -> Bool
    ) async throws -> Advertisement {
        let advertisements = server.advertisements
        return try await withThrowingTaskGroup(of: Advertisement?.self) { group in
            group.addTask {
                for await advertisement in advertisements where condition(advertisement) { return advertisement }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else { throw TestClientError.timedOut }
            return first
        }
    }

    /// Waits until the server counts this many open connections.
    func waitForSessionCount(_ count: Int, timeout: Duration = .seconds(5)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await server.sessionCount == count { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestClientError.timedOut
    }

    /// Waits until `condition` holds for the saved state.
    func waitForStoredState(timeout: Duration = .seconds(5), _ condition: (AccessoryState) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let state = await store.state, condition(state) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestClientError.timedOut
    }
}
