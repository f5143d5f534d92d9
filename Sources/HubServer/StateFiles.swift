import AtomicFiles
import Foundation
import HomeGraph
import Hub

/// What `hearth` reads to reach the hub: the API's address and a token (mode 0600).
public struct ClientConfiguration: Codable, Sendable, Equatable {
    /// The API's base URL, `http://127.0.0.1:7878`.
    public var url: String
    /// The bearer token.
    public var token: String
    /// The user id the token belongs to.
    public var userID: UUID
    /// The hub's state folder, to tell a demo hub from a real one.
    public var stateFolder: String

    /// Makes a client configuration.
    public init(url: String, token: String, userID: UUID, stateFolder: String) {
        self.url = url
        self.token = token
        self.userID = userID
        self.stateFolder = stateFolder
    }

    /// The per-user file `hearth` reads by default: `$XDG_CONFIG_HOME/hearth/config.json`, else
    /// `~/.config/hearth/config.json`.
    public static var userConfigurationPath: String {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() + "/.config")
        return base + "/hearth/config.json"
    }

    /// Writes the configuration to `path` atomically, mode 0600, making its folder (0700) if needed.
    public func write(toPath path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        var data = try JSONEncoder.api.encode(self)
        data.append(0x0A)
        try AtomicFile.write(data, toPath: path)
    }
}

/// The hub daemon's files in its state folder, next to the home store.
public struct HubStateFolder: Sendable {
    /// The folder.
    public var path: String

    /// Points at `path`.
    public init(path: String) { self.path = path }

    /// Accounts, token hashes and invites.
    public var credentials: String { path + "/credentials.json" }
    /// The owner's token, written once on first start (mode 0600).
    public var ownerToken: String { path + "/owner.token" }
    /// The client configuration for this hub (address and owner token).
    public var clientConfiguration: String { path + "/client.json" }

    /// Creates the folder, readable only by its owner.
    public func create() throws {
        try FileManager.default.createDirectory(
            atPath: path,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
    }

    /// The owner's account: made on first start with its token in `owner.token`; afterwards read back.
    ///
    /// Returns the owner's user id and token (`nil` when `owner.token` was deleted: the token is not stored
    /// elsewhere, only its hash).
    public func ensureOwner(
        in credentials: CredentialStore,
        name: String
    ) async throws -> (userID: UUID, token: String?) {
        if let owner = await credentials.accounts.first {
            let token = FileManager.default.contents(atPath: ownerToken).map {
                String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return (owner.id, token)
        }
        let (account, token) = try await credentials.createAccount(name: name, label: "owner")
        try AtomicFile.write(Data((token + "\n").utf8), toPath: ownerToken)
        return (account.id, token)
    }
}
