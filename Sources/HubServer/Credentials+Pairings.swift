import Foundation
import HAP
import HearthAPI
import NIOConcurrencyHelpers

/// The SRP salt and verifier of a one-time code (as secret as the code: they allow guessing it offline).
public struct StoredSRPVerifier: Sendable, Codable, Equatable {
    /// The salt, 16 random bytes.
    public var salt: Data
    /// v, padded to the group's size.
    public var verifier: Data

    /// Computes the verifier of `code` (normalized first) with a fresh salt.
    init(code: String) {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let value = SRPVerifier.pairSetup(setupCode: HubPairingTLV.normalized(code), salt: salt, usage: .once)
        self.salt = Data(salt)
        self.verifier = Data(value.rawRepresentation)
    }

    /// The verifier as pair-setup takes it, or `nil` when the stored value is not one.
    var srpVerifier: SRPVerifier? {
        try? SRPVerifier(
            username: PairSetupAccessory.username,
            salt: Array(salt),
            rawRepresentation: Array(verifier),
            group: .hap3072,
            hash: .sha512,
            usage: .once
        )
    }
}

/// A pending one-time code that pairs a device with an existing account (the owner's setup code, or one made with
/// `POST /v1/account/pairing-codes`).
public struct StoredPairingCode: Sendable, Codable, Equatable {
    /// The code's id.
    public var id: UUID
    /// The code's public id: its first four characters.
    public var codeID: String
    /// The account the device pairs with.
    public var accountID: UUID
    /// The label the pairing gets.
    public var label: String
    /// The code's SRP salt and verifier.
    public var srp: StoredSRPVerifier
    /// When it was made.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
}

/// A client device paired with an account: it may open verified sessions as that account.
public struct StoredPairing: Sendable, Codable, Equatable {
    /// The pairing's id.
    public var id: UUID
    /// The client's pairing identifier (UTF-8 as it sent it).
    public var clientID: String
    /// The client's long-term Ed25519 public key.
    public var publicKey: Data
    /// The account it acts as.
    public var accountID: UUID
    /// A label for people.
    public var label: String
    /// When it was made.
    public var createdAt: Date

    /// The pairing as the API shows it.
    var info: PairingInfo {
        PairingInfo(id: id, clientID: clientID, accountID: accountID, label: label, createdAt: createdAt)
    }
}

/// A pending code that pair-setup can use: an invite or a pairing code.
enum PendingCode: Sendable {
    case invite(StoredInvite)
    case pairing(StoredPairingCode)

    /// The code's SRP salt and verifier.
    var srp: StoredSRPVerifier? {
        switch self {
        case .invite(let invite): invite.srp
        case .pairing(let code): code.srp
        }
    }
}

extension CredentialStore {
    /// A 12-character code whose public id no pending code has.
    func freshCode() -> String {
        let taken = Set(file.invites.compactMap(\.codeID) + (file.pairingCodes ?? []).map(\.codeID))
        var code = Self.inviteCode()
        var draws = 1
        while taken.contains(HubPairingTLV.codeID(of: code)), draws < 64 {
            code = Self.inviteCode()
            draws += 1
        }
        return code
    }

    /// Records a one-time pairing code for `accountID`; returns it with the code, which is never stored.
    public func createPairingCode(
        for accountID: UUID,
        label: String,
        lifetime: TimeInterval
    ) throws -> (stored: StoredPairingCode, code: String) {
        guard account(accountID) != nil else { throw APIError.notFound("account", accountID.uuidString) }
        let code = freshCode()
        let now = Date()
        let stored = StoredPairingCode(
            id: UUID(),
            codeID: HubPairingTLV.codeID(of: code),
            accountID: accountID,
            label: label,
            srp: StoredSRPVerifier(code: code),
            createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime)
        )
        var codes = (file.pairingCodes ?? []).filter { $0.expiresAt > now }
        codes.append(stored)
        file.pairingCodes = codes
        try save()
        return (stored, code)
    }

    /// The pending, unexpired code with public id `codeID`, or `nil`.
    func pendingCode(id codeID: String) -> PendingCode? {
        let now = Date()
        if let invite = file.invites.first(where: { $0.codeID == codeID && $0.expiresAt >= now && $0.srp != nil }) {
            return .invite(invite)
        }
        if let code = file.pairingCodes?.first(where: { $0.codeID == codeID && $0.expiresAt > now }) {
            return .pairing(code)
        }
        return nil
    }

    /// Takes an invite out of the store (it works once); `false` when it is gone already.
    func take(_ invite: StoredInvite) throws -> Bool {
        guard let index = file.invites.firstIndex(where: { $0.id == invite.id }) else { return false }
        file.invites.remove(at: index)
        try save()
        return true
    }

    /// Wrong pairing codes proved so far.
    public var failedPairingAttempts: Int { file.failedPairingAttempts ?? 0 }

    /// Counts one more wrong pairing code.
    func recordFailedPairingAttempt() throws {
        file.failedPairingAttempts = failedPairingAttempts + 1
        try save()
    }

    /// Counts a guess before its proof is checked: `false` (nothing counted) once `limit` is reached.
    ///
    /// The count is on disk before the proof is looked at, so a guess costs a try even if the hub stops right
    /// after; ``returnPairingAttempt()`` gives it back when the code was right.
    func takePairingAttempt(limit: Int) throws -> Bool {
        guard failedPairingAttempts < limit else { return false }
        try recordFailedPairingAttempt()
        return true
    }

    /// Gives back a try that ``takePairingAttempt()`` counted for a code that proved right.
    func returnPairingAttempt() throws {
        file.failedPairingAttempts = max(0, failedPairingAttempts - 1)
        try save()
    }

    /// Sets the count of wrong pairing codes back to 0.
    public func resetFailedPairingAttempts() throws {
        file.failedPairingAttempts = 0
        try save()
    }

    /// Every pairing.
    public var pairings: [StoredPairing] { file.pairings ?? [] }

    /// The pairings of an account.
    public func pairings(of accountID: UUID) -> [StoredPairing] { pairings.filter { $0.accountID == accountID } }

    /// The pairing with client identifier `clientID`.
    func pairing(clientID: String) -> StoredPairing? { pairings.first { $0.clientID == clientID } }

    /// Stores a pairing of `accountID` (replacing one with the same client identifier).
    func addPairing(clientID: String, publicKey: [UInt8], accountID: UUID, label: String) throws -> StoredPairing {
        try storePairing(clientID: clientID, publicKey: publicKey, accountID: accountID, label: label, usingUp: nil)
    }

    /// Takes `code` out of the store and stores the pairing it made, in one write of the file.
    ///
    /// The pairing is the code's account's, with the code's label; `nil` when the code is gone already.
    func addPairing(taking code: StoredPairingCode, clientID: String, publicKey: [UInt8]) throws -> StoredPairing? {
        guard let index = file.pairingCodes?.firstIndex(where: { $0.id == code.id }) else { return nil }
        return try storePairing(
            clientID: clientID,
            publicKey: publicKey,
            accountID: code.accountID,
            label: code.label,
            usingUp: index
        )
    }

    /// Stores a new pairing in place of one with the same client identifier and, when given, removes the pairing
    /// code at `codeIndex`, in one write of the file; nothing changes when the write fails.
    private func storePairing(
        clientID: String,
        publicKey: [UInt8],
        accountID: UUID,
        label: String,
        usingUp codeIndex: Int?
    ) throws -> StoredPairing {
        let pairing = StoredPairing(
            id: UUID(),
            clientID: clientID,
            publicKey: Data(publicKey),
            accountID: accountID,
            label: label,
            createdAt: Date()
        )
        // A client identifier is its account's: another account's pairing is never replaced.
        if let existing = self.pairing(clientID: clientID), existing.accountID != accountID {
            throw APIError(.conflict, code: "clientIDTaken", message: "this client identifier is another account's")
        }
        let before = file
        var next = file
        if let codeIndex { next.pairingCodes?.remove(at: codeIndex) }
        next.pairings = (next.pairings ?? []).filter { $0.clientID != clientID } + [pairing]
        file = next
        do {
            try save()
        } catch {
            file = before
            throw error
        }
        return pairing
    }

    /// Removes a pairing; returns it, or `nil` when there is none.
    public func removePairing(_ pairingID: UUID) throws -> StoredPairing? {
        guard let index = file.pairings?.firstIndex(where: { $0.id == pairingID }) else { return nil }
        let removed = file.pairings?.remove(at: index)
        try save()
        return removed
    }

    /// Removes every pairing of an account, and the pairing codes it has not used yet; returns the pairings.
    @discardableResult
    public func removePairings(of accountID: UUID) throws -> [StoredPairing] {
        let removed = pairings(of: accountID)
        let hasCodes = file.pairingCodes?.contains { $0.accountID == accountID } ?? false
        guard !removed.isEmpty || hasCodes else { return [] }
        file.pairings?.removeAll { $0.accountID == accountID }
        file.pairingCodes?.removeAll { $0.accountID == accountID }
        try save()
        return removed
    }
}

/// The pairings and accounts of the credential store as pair-verify reads them on a connection's event loop,
/// without a hop to the store: the store publishes a new snapshot whenever its file changes, before it returns.
final class PairingDirectory: Sendable {
    /// One published state.
    struct Snapshot: Sendable {
        /// Every pairing as HAP's pair-verify takes them.
        var table = PairingTable()
        /// The pairings by client identifier.
        var pairings: [String: StoredPairing] = [:]
        /// The accounts that exist.
        var accountIDs: Set<UUID> = []
    }

    private let current = NIOLockedValueBox(Snapshot())

    /// The state published last.
    var snapshot: Snapshot { current.withLockedValue { $0 } }

    /// Replaces the state with `pairings` and `accounts`.
    func publish(pairings: [StoredPairing], accounts: [Account]) {
        var next = Snapshot()
        next.table = PairingTable(
            pairings.map {
                Pairing(identifier: Array($0.clientID.utf8), publicKey: Array($0.publicKey), isAdmin: false)
            },
            capacity: max(16, pairings.count)
        )
        for pairing in pairings where next.pairings[pairing.clientID] == nil {
            next.pairings[pairing.clientID] = pairing
        }
        next.accountIDs = Set(accounts.map(\.id))
        current.withLockedValue { $0 = next }
    }

    /// The pairing with client identifier `clientID`, while its account exists.
    func pairing(clientID: String) -> StoredPairing? {
        current.withLockedValue { snapshot in
            snapshot.pairings[clientID].flatMap { snapshot.accountIDs.contains($0.accountID) ? $0 : nil }
        }
    }
}
