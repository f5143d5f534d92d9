/// `POST /pairings` on the accessory: add, remove and list pairings, as pure logic over a ``PairingStore``.
///
/// hap-protocol.md §6: only admins may manage pairings; removing the last admin removes every pairing.
public enum PairingsManagement {
    /// The answer to one request and what the server must do after sending it.
    public struct Outcome: Sendable, Equatable {
        /// The TLV8 body of the HTTP 200 response.
        public var reply: TLV8
        /// Controllers whose pairing is gone: close their sessions after the reply is sent.
        public var removedIdentifiers: [[UInt8]]
        /// Whether the store changed and must be persisted.
        public var didChangeStore: Bool
        /// Whether no pairing is left: the accessory is pairable again (`sf` = 1, announce it).
        public var isUnpaired: Bool
    }

    /// hap-protocol.md §2.3: the methods of `/pairings`.
    enum Method: UInt8 {
        case add = 3
        case remove = 4
        case list = 5
    }

    /// Handles one request from the controller `requester` verified on this session.
    ///
    /// The requester's rights are read from the store as it is now, so a demoted or removed controller on an old
    /// session is refused.
    public static func handle<Store: PairingStore>(
        _ request: TLV8,
        from requester: [UInt8],
        store: inout Store
    ) -> Outcome {
        guard request[.state] == [1], let methodBytes = request[.method], methodBytes.count == 1,
            let method = Method(rawValue: methodBytes[0])
        else {
            return refuse(.unknown, store: store)
        }
        guard store.pairing(identifier: requester)?.isAdmin == true else {
            return refuse(.authentication, store: store)
        }
        switch method {
        case .add:
            return add(request, store: &store)
        case .remove:
            return remove(request, store: &store)
        case .list:
            var reply = TLV8()
            reply.append(.state, byte: 2)
            for (index, pairing) in store.pairings.enumerated() {
                if index > 0 { reply.appendSeparator() }
                reply.append(.identifier, pairing.identifier)
                reply.append(.publicKey, pairing.publicKey)
                reply.append(.permissions, byte: pairing.permissionsByte)
            }
            return Outcome(reply: reply, removedIdentifiers: [], didChangeStore: false, isUnpaired: !store.isPaired)
        }
    }

    private static func add<Store: PairingStore>(_ request: TLV8, store: inout Store) -> Outcome {
        guard let identifier = request[.identifier], !identifier.isEmpty,
            let publicKey = request[.publicKey], publicKey.count == 32,
            let permissions = request[.permissions], permissions.count == 1, permissions[0] & ~1 == 0
        else {
            return refuse(.unknown, store: store)
        }
        let isAdmin = permissions[0] == 1
        if let existing = store.pairing(identifier: identifier) {
            // hap-protocol.md §6: the same identifier with another key is an error; same key updates permissions.
            guard existing.publicKey == publicKey else { return refuse(.unknown, store: store) }
        } else if store.pairings.count >= store.capacity {
            return refuse(.maxPeers, store: store)
        }
        store.save(Pairing(identifier: identifier, publicKey: publicKey, isAdmin: isAdmin))
        return finish(store: &store, removed: [])
    }

    private static func remove<Store: PairingStore>(_ request: TLV8, store: inout Store) -> Outcome {
        guard let identifier = request[.identifier], !identifier.isEmpty else {
            return refuse(.unknown, store: store)
        }
        // hap-protocol.md §6: removing an unknown identifier still succeeds.
        let existed = store.pairing(identifier: identifier) != nil
        store.remove(identifier: identifier)
        return finish(store: &store, removed: existed ? [identifier] : [])
    }

    /// Applies the last-admin rule and builds the success reply.
    private static func finish<Store: PairingStore>(store: inout Store, removed: [[UInt8]]) -> Outcome {
        var removed = removed
        if store.isPaired && !store.hasAdmin {
            removed += store.pairings.map(\.identifier)
            store.removeAll()
        }
        var reply = TLV8()
        reply.append(.state, byte: 2)
        return Outcome(reply: reply, removedIdentifiers: removed, didChangeStore: true, isUnpaired: !store.isPaired)
    }

    private static func refuse<Store: PairingStore>(_ error: PairingError, store: Store) -> Outcome {
        Outcome(
            reply: PairSetupAccessory.errorReply(error, state: 2),
            removedIdentifiers: [],
            didChangeStore: false,
            isUnpaired: !store.isPaired
        )
    }
}

/// The controller side of `/pairings`: request bodies and the parsing of replies.
public enum PairingsRequest {
    /// A request to add (or update the permissions of) another controller.
    public static func add(identifier: [UInt8], publicKey: [UInt8], isAdmin: Bool) -> TLV8 {
        var request = TLV8()
        request.append(.state, byte: 1)
        request.append(.method, byte: PairingsManagement.Method.add.rawValue)
        request.append(.identifier, identifier)
        request.append(.publicKey, publicKey)
        request.append(.permissions, byte: isAdmin ? 1 : 0)
        return request
    }

    /// A request to remove a controller's pairing (our own, to unpair).
    public static func remove(identifier: [UInt8]) -> TLV8 {
        var request = TLV8()
        request.append(.state, byte: 1)
        request.append(.method, byte: PairingsManagement.Method.remove.rawValue)
        request.append(.identifier, identifier)
        return request
    }

    /// A request to list every pairing.
    public static func list() -> TLV8 {
        var request = TLV8()
        request.append(.state, byte: 1)
        request.append(.method, byte: PairingsManagement.Method.list.rawValue)
        return request
    }

    /// Checks an add or remove reply: State 2 and no Error.
    public static func checkReply(_ reply: TLV8) throws(PairingFailure) {
        try PairSetupController.check(reply, expectedState: 2)
    }

    /// The pairings in a list reply.
    public static func pairings(inListReply reply: TLV8) throws(PairingFailure) -> [Pairing] {
        try PairSetupController.check(reply, expectedState: 2)
        var result: [Pairing] = []
        for record in reply.records {
            let content = TLV8(record.items.filter { $0.tag != .state })
            if content.items.isEmpty { continue }
            do {
                let identifier = try content.require(.identifier)
                let publicKey = try content.require(.publicKey, count: 32)
                let permissions = try content.requireByte(.permissions)
                result.append(Pairing(identifier: identifier, publicKey: publicKey, isAdmin: permissions & 1 == 1))
            } catch {
                throw .malformedResponse(error)
            }
        }
        return result
    }
}
