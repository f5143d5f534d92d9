import Foundation
import Testing

@testable import HubServer

/// Pair-verify reads the pairings from `CredentialStore.pairingDirectory` on the event loop; it must follow the
/// store the moment a call returns, so a removed pairing is refused at once.
struct PairingDirectoryTests {
    /// A store in a new temporary folder.
    static func store() throws -> (CredentialStore, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pairing-directory-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (try CredentialStore(path: folder + "/credentials.json"), folder)
    }

    @Test func theDirectoryFollowsAddedAndRemovedPairingsAsSoonAsTheStoreReturns() async throws {
        let (credentials, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let directory = credentials.pairingDirectory
        let (account, _) = try await credentials.createAccount(name: "Ann", label: "test")
        let key = [UInt8](repeating: 7, count: 32)

        let phone = try await credentials.addPairing(
            clientID: "phone",
            publicKey: key,
            accountID: account.id,
            label: ""
        )
        let laptop = try await credentials.addPairing(
            clientID: "laptop",
            publicKey: key,
            accountID: account.id,
            label: ""
        )
        #expect(directory.pairing(clientID: "phone")?.id == phone.id)
        #expect(directory.pairing(clientID: "laptop")?.id == laptop.id)
        #expect(directory.snapshot.table.pairing(identifier: Array("phone".utf8))?.publicKey == key)
        #expect(directory.pairing(clientID: "tablet") == nil)

        // Pairing the same client again replaces its pairing.
        let again = try await credentials.addPairing(
            clientID: "phone",
            publicKey: key,
            accountID: account.id,
            label: ""
        )
        #expect(directory.pairing(clientID: "phone")?.id == again.id)

        _ = try await credentials.removePairing(again.id)
        #expect(directory.pairing(clientID: "phone") == nil)
        #expect(directory.snapshot.table.pairing(identifier: Array("phone".utf8)) == nil)
        #expect(directory.pairing(clientID: "laptop")?.id == laptop.id)

        try await credentials.removePairings(of: account.id)
        #expect(directory.pairing(clientID: "laptop") == nil)
        #expect(!directory.snapshot.table.isPaired)
    }

    @Test func aStoreOpenedFromItsFilePublishesItsPairingsAndOnlyThoseOfExistingAccounts() async throws {
        let (credentials, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (account, _) = try await credentials.createAccount(name: "Ann", label: "test")
        let key = [UInt8](repeating: 7, count: 32)
        let kept = try await credentials.addPairing(clientID: "phone", publicKey: key, accountID: account.id, label: "")
        // A pairing whose account is gone is not one pair-verify accepts.
        _ = try await credentials.addPairing(clientID: "orphan", publicKey: key, accountID: UUID(), label: "")
        #expect(credentials.pairingDirectory.pairing(clientID: "orphan") == nil)

        let reopened = try CredentialStore(path: folder + "/credentials.json")
        #expect(reopened.pairingDirectory.pairing(clientID: "phone")?.id == kept.id)
        #expect(reopened.pairingDirectory.pairing(clientID: "orphan") == nil)
        #expect(reopened.pairingDirectory.snapshot.table.pairings.count == 2)
    }
}
