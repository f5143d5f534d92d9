import Crypto
import HAP
import Testing

@Suite struct PairingsManagementTests {
    static let admin = Pairing(
        identifier: Array("ADMIN-1".utf8),
        publicKey: .init(repeating: 1, count: 32),
        isAdmin: true
    )
    static let user = Pairing(
        identifier: Array("user-2".utf8),
        publicKey: .init(repeating: 2, count: 32),
        isAdmin: false
    )

    @Test func anAdminAddsAUserAndListsBoth() throws {
        var store = PairingTable([Self.admin])
        let added = PairingsManagement.handle(
            PairingsRequest.add(identifier: Self.user.identifier, publicKey: Self.user.publicKey, isAdmin: false),
            from: Self.admin.identifier,
            store: &store
        )
        try PairingsRequest.checkReply(added.reply)
        #expect(added.didChangeStore)
        let listed = PairingsManagement.handle(PairingsRequest.list(), from: Self.admin.identifier, store: &store)
        let decoded = try TLV8(decoding: listed.reply.encoded())
        #expect(try PairingsRequest.pairings(inListReply: decoded) == [Self.admin, Self.user])
    }

    @Test func aRegularUserMayNotManagePairings() {
        var store = PairingTable([Self.admin, Self.user])
        for request in [PairingsRequest.list(), PairingsRequest.remove(identifier: Self.admin.identifier)] {
            let outcome = PairingsManagement.handle(request, from: Self.user.identifier, store: &store)
            #expect(throws: PairingFailure.accessoryRefused(.authentication, state: 2)) {
                try PairingsRequest.checkReply(outcome.reply)
            }
        }
        #expect(store.pairings == [Self.admin, Self.user])
    }

    @Test func aRemovedControllerOnAnOldSessionIsRefused() {
        var store = PairingTable([Self.admin])
        let outcome = PairingsManagement.handle(PairingsRequest.list(), from: Array("gone".utf8), store: &store)
        #expect(outcome.reply[.error] == [PairingError.authentication.tlvErrorCode])
    }

    @Test func addingAKnownIdentifierWithAnotherKeyFails() {
        var store = PairingTable([Self.admin, Self.user])
        let outcome = PairingsManagement.handle(
            PairingsRequest.add(
                identifier: Self.user.identifier,
                publicKey: .init(repeating: 9, count: 32),
                isAdmin: true
            ),
            from: Self.admin.identifier,
            store: &store
        )
        #expect(outcome.reply[.error] == [PairingError.unknown.tlvErrorCode])
        #expect(store.pairings == [Self.admin, Self.user])
    }

    @Test func addingAKnownIdentifierWithTheSameKeyUpdatesPermissions() throws {
        var store = PairingTable([Self.admin, Self.user])
        let outcome = PairingsManagement.handle(
            PairingsRequest.add(identifier: Self.user.identifier, publicKey: Self.user.publicKey, isAdmin: true),
            from: Self.admin.identifier,
            store: &store
        )
        try PairingsRequest.checkReply(outcome.reply)
        #expect(store.pairing(identifier: Self.user.identifier)?.isAdmin == true)
    }

    @Test func refusesAnAddWhenTheStoreIsFull() {
        var store = PairingTable([Self.admin], capacity: 1)
        let outcome = PairingsManagement.handle(
            PairingsRequest.add(identifier: Self.user.identifier, publicKey: Self.user.publicKey, isAdmin: false),
            from: Self.admin.identifier,
            store: &store
        )
        #expect(outcome.reply[.error] == [PairingError.maxPeers.tlvErrorCode])
    }

    @Test func refusesPermissionsWithReservedBits() {
        var store = PairingTable([Self.admin])
        var request = PairingsRequest.add(
            identifier: Self.user.identifier,
            publicKey: Self.user.publicKey,
            isAdmin: false
        )
        request.items[request.items.count - 1] = .init(.permissions, [0x03])
        let outcome = PairingsManagement.handle(request, from: Self.admin.identifier, store: &store)
        #expect(outcome.reply[.error] == [PairingError.unknown.tlvErrorCode])
        #expect(store.pairings == [Self.admin])
    }

    @Test func removingAnUnknownIdentifierSucceeds() throws {
        var store = PairingTable([Self.admin])
        let outcome = PairingsManagement.handle(
            PairingsRequest.remove(identifier: Array("nobody".utf8)),
            from: Self.admin.identifier,
            store: &store
        )
        try PairingsRequest.checkReply(outcome.reply)
        #expect(outcome.removedIdentifiers.isEmpty)
        #expect(store.pairings == [Self.admin])
    }

    @Test func removingTheLastAdminRemovesEveryPairing() throws {
        var store = PairingTable([Self.admin, Self.user])
        let outcome = PairingsManagement.handle(
            PairingsRequest.remove(identifier: Self.admin.identifier),
            from: Self.admin.identifier,
            store: &store
        )
        try PairingsRequest.checkReply(outcome.reply)
        #expect(store.pairings.isEmpty)
        #expect(outcome.isUnpaired)
        #expect(Set(outcome.removedIdentifiers) == [Self.admin.identifier, Self.user.identifier])
    }

    @Test func demotingTheLastAdminAlsoUnpairs() throws {
        var store = PairingTable([Self.admin, Self.user])
        let outcome = PairingsManagement.handle(
            PairingsRequest.add(identifier: Self.admin.identifier, publicKey: Self.admin.publicKey, isAdmin: false),
            from: Self.admin.identifier,
            store: &store
        )
        try PairingsRequest.checkReply(outcome.reply)
        #expect(store.pairings.isEmpty)
        #expect(outcome.isUnpaired)
    }

    @Test func removingOneOfTwoAdminsKeepsTheOther() throws {
        let second = Pairing(
            identifier: Array("ADMIN-3".utf8),
            publicKey: .init(repeating: 3, count: 32),
            isAdmin: true
        )
        var store = PairingTable([Self.admin, second, Self.user])
        let outcome = PairingsManagement.handle(
            PairingsRequest.remove(identifier: Self.admin.identifier),
            from: Self.admin.identifier,
            store: &store
        )
        #expect(outcome.removedIdentifiers == [Self.admin.identifier])
        #expect(store.pairings == [second, Self.user])
        #expect(!outcome.isUnpaired)
    }
}
