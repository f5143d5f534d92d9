import HAP
import HAPTypes

/// Managing the accessory's pairings (admin only).
extension PairedAccessory {
    /// Every controller paired with the accessory (admin only).
    public func listPairings() async throws(HAPControllerError) -> [Pairing] {
        let reply = try await connection.postTLV8("/pairings", PairingsRequest.list())
        do {
            return try PairingsRequest.pairings(inListReply: reply)
        } catch {
            throw Self.pairingsError(error)
        }
    }

    /// Adds another controller, or changes its permissions (admin only).
    public func addPairing(identifier: String, publicKey: [UInt8], isAdmin: Bool) async throws(HAPControllerError) {
        let request = PairingsRequest.add(identifier: Array(identifier.utf8), publicKey: publicKey, isAdmin: isAdmin)
        try await pairingsRequest(request)
    }

    /// Removes a controller's pairing; removing an unknown one succeeds (hap-protocol.md §6).
    public func removePairing(identifier: String) async throws(HAPControllerError) {
        try await pairingsRequest(PairingsRequest.remove(identifier: Array(identifier.utf8)))
    }

    /// Removes this controller's own pairing and closes the client; forget the record afterwards.
    public func unpair() async throws(HAPControllerError) {
        try await removePairing(identifier: identity.pairingID)
        await close()
    }

    private func pairingsRequest(_ request: TLV8) async throws(HAPControllerError) {
        let reply = try await connection.postTLV8("/pairings", request)
        do {
            try PairingsRequest.checkReply(reply)
        } catch {
            throw Self.pairingsError(error)
        }
    }

    static func pairingsError(_ failure: PairingFailure) -> HAPControllerError {
        if case .accessoryRefused(let error, _) = failure { return .pairingRefused(error) }
        return .pairingFailed(failure)
    }
}
