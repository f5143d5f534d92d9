import CryptoExtras
import Foundation
import HAP
import HearthAPI

/// A password kept only as its scrypt hash, with the salt and the parameters it was made with.
///
/// scrypt with N = 2^15, r = 8, p = 1 (32 MiB and about 0.1 s a try on this kind of machine), a random 16-byte
/// salt per password, a 32-byte key; stored in base64. The parameters are kept with each hash, so stronger ones
/// can be chosen later without breaking the passwords already set.
public struct StoredPassword: Sendable, Codable, Equatable {
    /// The key derivation function: always `scrypt`.
    public var algorithm: String
    /// scrypt's cost N (a power of two).
    public var rounds: Int
    /// scrypt's block size r.
    public var blockSize: Int
    /// scrypt's parallelism p.
    public var parallelism: Int
    /// The salt, base64.
    public var salt: String
    /// The derived key, base64.
    public var hash: String
}

/// A pending sign-in link: its secret only as a SHA-256 hash, the account it signs in, and when it stops working.
public struct StoredSignInLink: Sendable, Codable, Equatable {
    /// The link's id.
    public var id: UUID
    /// Lowercase hex SHA-256 of the secret.
    public var hash: String
    /// The account it signs in.
    public var accountID: UUID
    /// When it stops working.
    public var expiresAt: Date
}

/// Making and checking password hashes (scrypt; parameters in `StoredPassword`'s documentation).
enum PasswordHash {
    /// scrypt's N.
    static let rounds = 1 << 15
    /// scrypt's r.
    static let blockSize = 8
    /// scrypt's p.
    static let parallelism = 1
    /// The shortest password accepted.
    static let minimumLength = 8
    /// The longest password accepted.
    static let maximumLength = 256

    /// The hash of `password` with a fresh salt.
    static func make(_ password: String) throws -> StoredPassword {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let key = try derive(password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return StoredPassword(
            algorithm: "scrypt",
            rounds: rounds,
            blockSize: blockSize,
            parallelism: parallelism,
            salt: Data(salt).base64EncodedString(),
            hash: Data(key).base64EncodedString()
        )
    }

    /// Whether `password` is the one `stored` was made from; the keys are compared in constant time.
    static func verify(_ password: String, against stored: StoredPassword) -> Bool {
        guard stored.algorithm == "scrypt", let salt = Data(base64Encoded: stored.salt),
            let expected = Data(base64Encoded: stored.hash),
            let key = try? derive(
                password,
                salt: Array(salt),
                rounds: stored.rounds,
                blockSize: stored.blockSize,
                parallelism: stored.parallelism
            )
        else { return false }
        // scrypt's HMAC pads a short key with zeros, so "x" and "x\u{0}" would derive the same key: a password with
        // a control character is never the one stored (none can be set).
        return ConstantTime.equal(key, expected) && controlCharacter(in: password) == nil
    }

    /// Runs scrypt's work on a thread of its own, so a sign-in never holds a thread of Swift's cooperative pool
    /// (two on a two-core hub) for the tenth of a second scrypt takes; sign-ins are rare and rate limited.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Does the work of a verification for a name without a password, so its answer takes as long.
    static func verifyNothing(_ password: String) {
        _ = try? derive(
            password,
            salt: Array(repeating: 0, count: 16),
            rounds: rounds,
            blockSize: blockSize,
            parallelism: parallelism
        )
    }

    /// Why `password` cannot be set, as a sentence, or `nil` when it can.
    static func problem(with password: String) -> String? {
        if password.count < minimumLength {
            return "field 'password': a password must have at least \(minimumLength) characters"
        }
        if password.count > maximumLength {
            return "field 'password': a password may have at most \(maximumLength) characters"
        }
        if let scalar = controlCharacter(in: password) {
            return "field 'password': a password cannot contain control characters (found "
                + "U+\(String(format: "%04X", scalar.value)))"
        }
        return nil
    }

    /// The first control character (C0 such as NUL, DEL, C1) in `password`, or `nil`.
    static func controlCharacter(in password: String) -> Unicode.Scalar? {
        password.unicodeScalars.first { $0.properties.generalCategory == .control }
    }

    private static func derive(
        _ password: String,
        salt: [UInt8],
        rounds: Int,
        blockSize: Int,
        parallelism: Int
    ) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8),
            salt: salt,
            outputByteCount: 32,
            rounds: rounds,
            blockSize: blockSize,
            parallelism: parallelism
        )
        return key.withUnsafeBytes { Array($0) }
    }
}

extension CredentialStore {
    /// The password hashes of the accounts named `name` (compared without case) that have one, to check a
    /// sign-in against (off this actor: scrypt is slow).
    public func passwords(named name: String) -> [(accountID: UUID, password: StoredPassword)] {
        let wanted = name.lowercased()
        return file.accounts.compactMap { account in
            guard account.name.lowercased() == wanted, let password = account.password else { return nil }
            return (account.id, password)
        }
    }

    /// Stores a password hash for an account; refused when another account of the same name has a password, so a
    /// name and password always name one account.
    public func setPassword(_ password: StoredPassword, of accountID: UUID) throws {
        guard let index = file.accounts.firstIndex(where: { $0.id == accountID }) else {
            throw APIError.notFound("account", accountID.uuidString)
        }
        let name = file.accounts[index].name.lowercased()
        if file.accounts.contains(where: { $0.id != accountID && $0.name.lowercased() == name && $0.password != nil }) {
            throw APIError(
                .conflict,
                code: "nameTaken",
                message: "another account named '\(file.accounts[index].name)' already signs in with a password"
            )
        }
        file.accounts[index].password = password
        try save()
    }

    /// Whether sign-in with a password is refused for `name` for now: `limit` wrong passwords in the last `window`.
    public func passwordLimited(name: String, limit: Int, window: TimeInterval) -> Bool {
        let now = Date()
        let recent = (passwordFailures[name.lowercased()] ?? []).filter { now.timeIntervalSince($0) < window }
        passwordFailures[name.lowercased()] = recent.isEmpty ? nil : recent
        return recent.count >= limit
    }

    /// Counts a wrong password given for `name`.
    public func recordPasswordFailure(name: String) {
        passwordFailures[name.lowercased(), default: []].append(Date())
    }

    /// Makes a one-time sign-in link's secret for an account; the secret is returned and never stored.
    ///
    /// Expired links are dropped.
    public func createSignInLink(
        for accountID: UUID,
        lifetime: TimeInterval
    ) throws -> (link: StoredSignInLink, secret: String) {
        let secret = Self.randomString(bytes: 32)
        let now = Date()
        let link = StoredSignInLink(
            id: UUID(),
            hash: Self.hash(secret),
            accountID: accountID,
            expiresAt: now.addingTimeInterval(lifetime)
        )
        var links = (file.signInLinks ?? []).filter { $0.expiresAt > now }
        links.append(link)
        file.signInLinks = links
        try save()
        return (link, secret)
    }

    /// Takes the link a secret belongs to out of the store (it works once) and returns its account.
    ///
    /// `nil` when no link has it or it has expired. Every stored hash is compared in constant time.
    public func takeSignInLink(secret: String) throws -> UUID? {
        let presented = Self.hash(secret)
        let now = Date()
        var match: Int?
        for (index, link) in (file.signInLinks ?? []).enumerated() where ConstantTime.equal(link.hash, presented) {
            match = index
        }
        guard let index = match, let link = file.signInLinks?.remove(at: index) else { return nil }
        file.signInLinks?.removeAll { $0.expiresAt <= now }
        try save()
        return link.expiresAt > now ? link.accountID : nil
    }
}
