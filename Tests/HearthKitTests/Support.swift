import Foundation
import HAP
import HearthAPI
import HearthKit
import HomeGraph
import Hub
import HubServer
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import TestFixtures
import TestSupport
import Testing

/// A hub on a fresh state folder with one home (owner Ada, administrator Bo, shared user Cy) and a lamp, served
/// over real HTTP on an ephemeral loopback port.
struct KitFixture {
    let hub: Hub
    let credentials: CredentialStore
    let folder: String
    let homeID: UUID
    let lamp: Accessory
    let owner: Person
    let admin: Person
    let guest: Person

    typealias Person = TestPerson

    init(historyLimit: Int = 1000, configure: (inout Hub.Configuration) -> Void = { _ in }) async throws {
        let base = try await TestHome(folderPrefix: "hearthkit", historyLimit: historyLimit, configure: configure)
        (hub, credentials, folder, homeID, lamp) = (base.hub, base.credentials, base.folder, base.home.id, base.lamp)
        (owner, admin, guest) = (base.owner, base.admin, base.guest)
    }

    var onCharacteristic: Characteristic { lamp.services[0].characteristics[0] }
    var brightness: Characteristic { lamp.services[0].characteristics[1] }

    /// Runs `body` with the API served on loopback at `url`; stops the hub afterwards.
    func withServer(_ body: @escaping @Sendable (_ url: String, _ server: HubServer) async throws -> Void) async throws
    {
        var logger = Logger(label: "test.hearthkit")
        logger.logLevel = .warning
        // Generous timeouts: a full test run stalls the client's cooperative pool for tens of seconds while the
        // server's loop keeps time.
        let server = HubServer(
            hub: hub,
            credentials: credentials,
            configuration: .init(host: "127.0.0.1", port: 0, headTimeout: .seconds(180), idleTimeout: .seconds(300)),
            logger: logger
        )
        do {
            try await server.makeApplication().test(.live) { client in
                try await body("http://127.0.0.1:\(client.port ?? 0)", server)
            }
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    func stop() async {
        await hub.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A client of the API at `url` as `person`.
    func client(_ url: String, _ person: Person) -> HearthClient {
        HearthClient(url: url, token: person.token, userID: person.id)
    }
}

/// Collects a manager's updates in a task, with the time each arrived.
final class UpdateRecorder: Sendable {
    struct Entry: Sendable {
        let update: HomeUpdate
        let at: ContinuousClock.Instant
    }

    private final class Box: Sendable {
        let entries = Mutex<[Entry]>([])
    }

    private let box = Box()
    private let task: Task<Void, Never>

    init(_ updates: AsyncStream<HomeUpdate>) {
        let box = self.box
        task = Task {
            for await update in updates {
                let now = ContinuousClock.now
                box.entries.withLock { $0.append(Entry(update: update, at: now)) }
            }
        }
    }

    deinit { task.cancel() }

    var entries: [Entry] { box.entries.withLock { $0 } }

    /// Waits until an entry satisfies `predicate` (polling every millisecond), up to `timeout`.
    func first(
        timeout: Duration = .seconds(30),
        where predicate: (HomeUpdate) -> Bool
    ) async -> Entry? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = entries.first(where: { predicate($0.update) }) { return found }
            try? await Task.sleep(for: .microseconds(500))
        }
        return nil
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
