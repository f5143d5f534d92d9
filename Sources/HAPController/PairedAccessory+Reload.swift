import HAP
import HAPTypes

extension PairedAccessory {
    /// Reads the accessory database again whatever the cache holds, for a caller that cannot see `c#` over mDNS
    /// (after a reconnect, when the accessory may have changed unseen); the cache keeps the new database.
    public func reloadDatabase() async throws(HAPControllerError) -> AccessoryDatabase {
        let previous = database
        database = nil
        do {
            return try await accessories()
        } catch {
            if database == nil { database = previous }
            throw error
        }
    }
}
