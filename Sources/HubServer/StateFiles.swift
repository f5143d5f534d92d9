import AtomicFiles
import Foundation
import HearthAPI
import HomeGraph
import Hub

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
    /// The hub's long-term Ed25519 key for remote access (mode 0600).
    public var hubKey: String { path + "/hub.key" }
    /// The web app's TLS certificate the hub made for itself (PEM).
    public var webCertificate: String { path + "/web-tls.pem" }
    /// Its private key (PEM, mode 0600).
    public var webKey: String { path + "/web-tls.key" }
    /// The owner's one-time setup code for pairing a client (`hearth login --hub`), mode 0600.
    public var ownerSetupCode: String { path + "/owner.setup-code" }
    /// The client configuration for this hub (address and owner token).
    public var clientConfiguration: String { path + "/client.json" }

    /// Creates the folder, readable only by its owner, or tightens one that others can read.
    public func create() throws {
        try PrivateFolder.prepare(atPath: path)
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

    /// Writes a one-time setup code for the owner's first paired client to `owner.setup-code` when there is no such
    /// file and the owner has no pairing yet; returns the file's path when it holds a code, else `nil`.
    public func ensureOwnerSetupCode(
        in credentials: CredentialStore,
        owner: UUID,
        lifetime: TimeInterval = 7 * 24 * 3600
    ) async throws -> String? {
        if FileManager.default.fileExists(atPath: ownerSetupCode) { return ownerSetupCode }
        guard await credentials.pairings(of: owner).isEmpty else { return nil }
        let (_, code) = try await credentials.createPairingCode(for: owner, label: "owner", lifetime: lifetime)
        try AtomicFile.write(Data((code + "\n").utf8), toPath: ownerSetupCode)
        return ownerSetupCode
    }
}
