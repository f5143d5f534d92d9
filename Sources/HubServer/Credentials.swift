import AtomicFiles
import Crypto
import Foundation
import HAP
import HearthAPI
import HomeGraph

/// A person who can call the API: their user id in the hub (the same in every home), name and token hashes.
public struct Account: Sendable, Codable, Equatable {
    /// The person's user id in every home they belong to.
    public var id: UUID
    /// The name they gave.
    public var name: String
    /// Their tokens, each only as a SHA-256 hash.
    public var tokens: [StoredToken]
    /// Their password's scrypt hash, or `nil` when they have set none (`PUT /v1/account/password`).
    public var password: StoredPassword? = nil
}

/// One bearer token of an account, kept only as the hex SHA-256 of the token.
public struct StoredToken: Sendable, Codable, Equatable {
    /// The token's id, to list and revoke it without knowing it.
    public var id: UUID
    /// Lowercase hex SHA-256 of the token's UTF-8 bytes.
    public var hash: String
    /// A label for people ("owner", "invite", "laptop").
    public var label: String
    /// When it was made.
    public var createdAt: Date
}

/// A pending invitation to a home with a role; the code is kept only as a hash and works once.
public struct StoredInvite: Sendable, Codable, Equatable {
    /// The invite's id.
    public var id: UUID
    /// Lowercase hex SHA-256 of the code.
    public var codeHash: String
    /// The home the invitee joins.
    public var homeID: UUID
    /// The role they get.
    public var role: UserRole
    /// The user who made the invite; the hub checks their rights again when it is redeemed.
    public var invitedBy: UUID
    /// When it was made.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
    /// The code's public id (its first four characters) for pair-setup; absent in invites made before remote access.
    public var codeID: String? = nil
    /// The SRP salt and verifier of the code, so pair-setup can use it (docs/remote-access.md).
    public var srp: StoredSRPVerifier? = nil
}

/// A browser's signed-in session: an opaque random id, kept only as its hash, made with one of the account's tokens.
public struct StoredSession: Sendable, Codable, Equatable {
    /// The session's id (not the secret the cookie holds).
    public var id: UUID
    /// Lowercase hex SHA-256 of the cookie's secret.
    public var hash: String
    /// The account signed in.
    public var accountID: UUID
    /// The token the browser signed in with; revoking it ends the session too.
    public var tokenID: UUID
    /// When it was made.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
}

/// Who made a request: the account and the token they used.
public struct Principal: Sendable, Equatable {
    /// The person's user id.
    public var userID: UUID
    /// The id of the token presented, or the token a session was made with.
    public var tokenID: UUID
    /// The browser session the request came with (its cookie), or `nil` for a bearer token.
    public var sessionID: UUID? = nil
}

/// The hub's accounts, tokens and invites in `<state>/credentials.json` (mode 0600, replaced atomically).
public actor CredentialStore {
    struct File: Codable {
        var version = 1
        var accounts: [Account] = []
        var invites: [StoredInvite] = []
        /// Absent in files written before browser sessions.
        var sessions: [StoredSession]? = nil
        /// Paired client devices; absent in files written before remote access.
        var pairings: [StoredPairing]? = nil
        /// Pending one-time pairing codes (the owner's setup code among them).
        var pairingCodes: [StoredPairingCode]? = nil
        /// Wrong pairing codes proved so far (HAP's counter); pair-setup is refused from the limit on.
        var failedPairingAttempts: Int? = nil
        /// Pending one-time sign-in links; absent in files written before them.
        var signInLinks: [StoredSignInLink]? = nil
    }

    /// Where the file lives.
    public nonisolated let path: String
    var file: File {
        // Every change reaches pair-verify, which reads the pairings on the event loop (a removed one is refused at once).
        didSet { pairingDirectory.publish(pairings: file.pairings ?? [], accounts: file.accounts) }
    }
    /// The pairings and accounts as pair-verify reads them without waiting for the store.
    nonisolated let pairingDirectory = PairingDirectory()
    /// When each account name (lowercased) was last given a wrong password; kept in memory only.
    var passwordFailures: [String: [Date]] = [:]

    /// Opens the file at `path`, or starts empty when there is none.
    public init(path: String) throws {
        self.path = path
        if FileManager.default.fileExists(atPath: path) {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            file = try JSONDecoder.api.decode(File.self, from: data)
        } else {
            file = File()
        }
        pairingDirectory.publish(pairings: file.pairings ?? [], accounts: file.accounts)
    }

    /// Every account.
    public var accounts: [Account] { file.accounts }

    /// The account with `id`.
    public func account(_ id: UUID) -> Account? { file.accounts.first { $0.id == id } }

    /// The account and token a presented token belongs to; every stored hash is compared in constant time.
    public func authenticate(token: String) -> Principal? {
        let presented = Self.hash(token)
        var found: Principal?
        for account in file.accounts {
            for stored in account.tokens where ConstantTime.equal(stored.hash, presented) {
                found = Principal(userID: account.id, tokenID: stored.id)
            }
        }
        return found
    }

    /// Makes an account with user id `id` and its first token, which is returned and never stored.
    public func createAccount(
        id: UUID = UUID(),
        name: String,
        label: String
    ) throws -> (account: Account, token: String) {
        let account = Account(id: id, name: name, tokens: [])
        file.accounts.append(account)
        let (_, token) = try addToken(to: account.id, label: label)
        return (self.account(account.id) ?? account, token)
    }

    /// Adds a token to an account; returns its id and the token, which is never stored.
    public func addToken(to accountID: UUID, label: String) throws -> (id: UUID, token: String) {
        guard let index = file.accounts.firstIndex(where: { $0.id == accountID }) else {
            throw APIError.notFound("account", accountID.uuidString)
        }
        let token = "hearth_" + Self.randomString(bytes: 32)
        let stored = StoredToken(id: UUID(), hash: Self.hash(token), label: label, createdAt: Date())
        file.accounts[index].tokens.append(stored)
        try save()
        return (stored.id, token)
    }

    /// Removes a token of an account; `false` when it has no such token.
    public func revokeToken(_ tokenID: UUID, of accountID: UUID) throws -> Bool {
        guard let index = file.accounts.firstIndex(where: { $0.id == accountID }),
            let tokenIndex = file.accounts[index].tokens.firstIndex(where: { $0.id == tokenID })
        else { return false }
        file.accounts[index].tokens.remove(at: tokenIndex)
        file.sessions?.removeAll { $0.tokenID == tokenID }
        try save()
        return true
    }

    /// Starts a browser session for `principal` (signed in with a token).
    ///
    /// Returns the session and the secret for the cookie, which is never stored. Expired sessions are dropped.
    public func createSession(
        for principal: Principal,
        lifetime: TimeInterval
    ) throws -> (session: StoredSession, secret: String) {
        let secret = Self.randomString(bytes: 32)
        let now = Date()
        let session = StoredSession(
            id: UUID(),
            hash: Self.hash(secret),
            accountID: principal.userID,
            tokenID: principal.tokenID,
            createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime)
        )
        var sessions = (file.sessions ?? []).filter { $0.expiresAt > now }
        sessions.append(session)
        file.sessions = sessions
        try save()
        return (session, secret)
    }

    /// The account and session a cookie's secret belongs to, while the session has not expired; every stored
    /// hash is compared in constant time.
    public func authenticate(session secret: String) -> Principal? {
        let presented = Self.hash(secret)
        let now = Date()
        var found: Principal?
        for session in file.sessions ?? [] where ConstantTime.equal(session.hash, presented) {
            if session.expiresAt > now {
                found = Principal(userID: session.accountID, tokenID: session.tokenID, sessionID: session.id)
            }
        }
        return found
    }

    /// Ends a browser session; `false` when there is no such session.
    public func revokeSession(_ sessionID: UUID) throws -> Bool {
        guard let index = file.sessions?.firstIndex(where: { $0.id == sessionID }) else { return false }
        file.sessions?.remove(at: index)
        try save()
        return true
    }

    /// Records an invite and returns it with its one-time code, which is never stored.
    public func createInvite(
        home homeID: UUID,
        role: UserRole,
        invitedBy userID: UUID,
        lifetime: TimeInterval
    ) throws -> (invite: StoredInvite, code: String) {
        let code = freshCode()
        let now = Date()
        let invite = StoredInvite(
            id: UUID(),
            codeHash: Self.hash(code),
            homeID: homeID,
            role: role,
            invitedBy: userID,
            createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime),
            codeID: HubPairingTLV.codeID(of: code),
            srp: StoredSRPVerifier(code: code)
        )
        file.invites.removeAll { $0.expiresAt < now }
        file.invites.append(invite)
        try save()
        return (invite, code)
    }

    /// The pending invites of a home.
    public func invites(home homeID: UUID) -> [StoredInvite] {
        let now = Date()
        return file.invites.filter { $0.homeID == homeID && $0.expiresAt >= now }
    }

    /// Removes an invite of a home; `false` when there is none.
    public func removeInvite(_ inviteID: UUID, home homeID: UUID) throws -> Bool {
        guard let index = file.invites.firstIndex(where: { $0.id == inviteID && $0.homeID == homeID }) else {
            return false
        }
        file.invites.remove(at: index)
        try save()
        return true
    }

    /// Removes the invites `userID` made for a home; returns how many went.
    ///
    /// A user who leaves the home, or may no longer invite, takes them along: their redemption runs as that user, so
    /// it could never succeed.
    @discardableResult
    public func removeInvites(madeBy userID: UUID, home homeID: UUID) throws -> Int {
        let before = file.invites.count
        file.invites.removeAll { $0.invitedBy == userID && $0.homeID == homeID }
        let removed = before - file.invites.count
        if removed > 0 { try save() }
        return removed
    }

    /// Takes the invite a code belongs to out of the store (it works once); `nil` when none is valid.
    public func takeInvite(code: String) throws -> StoredInvite? {
        let presented = Self.hash(code.uppercased().filter { $0 != "-" && $0 != " " })
        let now = Date()
        var match: Int?
        for (index, invite) in file.invites.enumerated()
        where ConstantTime.equal(invite.codeHash, presented) && invite.expiresAt >= now {
            match = index
        }
        guard let index = match else { return nil }
        let invite = file.invites.remove(at: index)
        try save()
        return invite
    }

    /// Puts back an invite whose redemption failed, so the code still works.
    public func restoreInvite(_ invite: StoredInvite) throws {
        file.invites.append(invite)
        try save()
    }

    func save() throws {
        let data = try JSONEncoder.api.encode(file)
        try AtomicFile.write(data, toPath: path)
    }

    /// Lowercase hex SHA-256 of `text`'s UTF-8 bytes.
    static func hash(_ text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Array(text.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// `bytes` random bytes as unpadded base64url.
    static func randomString(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A 12-character code from an alphabet without look-alikes (60 bits), shown as `XXXX-XXXX-XXXX`.
    static func inviteCode() -> String {
        let alphabet = Array("ABCDEFGHJKMNPQRSTVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<12).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return String(characters)
    }
}
