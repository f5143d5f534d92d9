import AtomicFiles
import Foundation

/// What apps read to reach the hub: the API's address and a token, in a file of mode 0600.
///
/// `hearthd` writes it to `<state>/client.json` (and, with its default state folder, to the per-user file);
/// `hearth login` writes it too. The format is `{"url", "token", "userID", "stateFolder"}`.
public struct ClientConfiguration: Codable, Sendable, Equatable {
    /// The API's base URL, `http://127.0.0.1:7878`.
    public var url: String
    /// The bearer token.
    public var token: String
    /// The user id the token belongs to.
    public var userID: UUID
    /// The hub's state folder, to tell a demo hub from a real one (empty when unknown).
    public var stateFolder: String
    /// The paired secure connection (docs/remote-access.md); when set, calls go through a `SecureTunnel` and
    /// `token` is empty.
    public var secure: SecureClientConfiguration?

    /// Makes a client configuration.
    public init(
        url: String,
        token: String,
        userID: UUID,
        stateFolder: String,
        secure: SecureClientConfiguration? = nil
    ) {
        self.url = url
        self.token = token
        self.userID = userID
        self.stateFolder = stateFolder
        self.secure = secure
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

    /// Reads the configuration at `path`.
    public static func read(fromPath path: String) throws -> ClientConfiguration {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder.api.decode(ClientConfiguration.self, from: data)
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

extension ClientConfiguration: CustomStringConvertible {
    /// The URL and user, never the token.
    public var description: String { "ClientConfiguration(url: \(url), userID: \(userID), token: <hidden>)" }
}
