import HAP
import HAPTypes

/// The HAP type catalog as the simulator reads it: its failure becomes a ``DescriptionError``.
enum SimulatorCatalog {
    /// The catalog, read once per process.
    static func shared() throws(DescriptionError) -> TypeCatalog {
        do {
            return try TypeCatalog.shared()
        } catch {
            throw .catalogUnavailable(error)
        }
    }
}
