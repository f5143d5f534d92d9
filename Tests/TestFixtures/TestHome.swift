import Foundation
import HomeGraph
import Hub
import HubServer

/// A person of ``TestHome``: an account and its token.
public struct TestPerson: Sendable {
    /// The account's user id.
    public let id: UUID
    /// A token of the account.
    public let token: String
}

/// A hub on a fresh state folder with one home, Maple Street, its people and a lamp.
///
/// Ada owns the home, Bo is an administrator, Cy a shared user; each has an account with a token. The lamp is
/// `Accessory.testLamp`. The API tests of HubServer and HearthKit start from it.
public struct TestHome {
    /// The hub, not started.
    public let hub: Hub
    /// The accounts.
    public let credentials: CredentialStore
    /// The state folder.
    public let folder: String
    /// The home, with the lamp.
    public let home: Home
    /// The lamp.
    public let lamp: Accessory
    /// Ada, the owner.
    public let owner: TestPerson
    /// Bo, an administrator.
    public let admin: TestPerson
    /// Cy, a shared user.
    public let guest: TestPerson
    /// Accounts in no home, by the names asked for.
    public let strangers: [TestPerson]

    /// Makes the folder `<tmp>/<prefix>-<uuid>`, the hub, the accounts (Ada, Bo, Cy, then `strangers`), the home and
    /// the lamp; `configure` may change the hub's configuration (the interfaces it browses, say).
    public init(
        folderPrefix: String,
        historyLimit: Int = 1000,
        strangers names: [String] = [],
        configure: (inout Hub.Configuration) -> Void = { _ in }
    ) async throws {
        folder = NSTemporaryDirectory() + "\(folderPrefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var configuration = Hub.Configuration(stateFolder: folder, historyLimit: historyLimit)
        configure(&configuration)
        let hub = try await Hub(configuration: configuration)
        self.hub = hub
        let credentials = try CredentialStore(path: folder + "/credentials.json")
        self.credentials = credentials
        func person(_ name: String) async throws -> TestPerson {
            let (account, token) = try await credentials.createAccount(name: name, label: "test")
            return TestPerson(id: account.id, token: token)
        }
        let owner = try await person("Ada")
        let admin = try await person("Bo")
        let guest = try await person("Cy")
        (self.owner, self.admin, self.guest) = (owner, admin, guest)
        var strangers: [TestPerson] = []
        for name in names { strangers.append(try await person(name)) }
        self.strangers = strangers
        let added = try await hub.addHome(name: "Maple Street", ownerName: "Ada", as: .user(owner.id))
        try await hub.perform(
            .addUser(home: added.id, id: admin.id, name: "Bo", role: .administrator),
            as: .user(owner.id)
        )
        try await hub.perform(.addUser(home: added.id, id: guest.id, name: "Cy", role: .shared), as: .user(owner.id))
        let lamp = Accessory.testLamp(roomID: added.roomForEntireHome.id)
        self.lamp = lamp
        try await hub.perform(.addAccessory(home: added.id, accessory: lamp), as: .hub)
        home = hub.graph.home(withID: added.id) ?? added
    }
}
