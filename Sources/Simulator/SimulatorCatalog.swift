import Foundation
import HAP

/// The HAP type catalog plus the Apple types it lacks that simulator presets need (heater-cooler, air purifier).
///
/// The values follow HAP-NodeJS's definitions (BC, BB, B1, B2, A8, A9); they are added here, not in `HAP`'s
/// catalog, until that catalog grows them.
enum SimulatorCatalog {
    /// The extended catalog, read once per process.
    static func shared() throws(DescriptionError) -> TypeCatalog {
        switch cached {
        case .success(let catalog): return catalog
        case .failure(let error): throw .catalogUnavailable(error)
        }
    }

    // Immutable after initialisation, and both `TypeCatalog` and `CatalogError` are `Sendable`.
    private static let cached = Result<TypeCatalog, CatalogError> { () throws(CatalogError) in try extend() }

    private struct CatalogFile: Codable {
        var version: Int
        var notes: [String]
        var services: [ServiceType]
        var characteristics: [CharacteristicType]
    }

    private static func extend() throws(CatalogError) -> TypeCatalog {
        let base = try TypeCatalog.shared()
        do {
            let extra = try JSONDecoder().decode(CatalogFile.self, from: Data(extraTypes.utf8))
            let merged = CatalogFile(
                version: base.version,
                notes: base.notes + extra.notes,
                services: base.services + extra.services.filter { base.service(for: $0.uuid) == nil },
                characteristics: base.characteristics
                    + extra.characteristics.filter { base.characteristic(for: $0.uuid) == nil }
            )
            return try TypeCatalog(data: JSONEncoder().encode(merged))
        } catch let error as CatalogError {
            throw error
        } catch {
            throw .malformed(String(describing: error))
        }
    }

    private static let extraTypes = """
        {"version": 1, "notes": ["Simulator additions after HAP-NodeJS"],
         "services": [
          {"uuid": "BC", "name": "heaterCooler", "displayName": "Heater Cooler",
           "synonyms": ["heater cooler", "air conditioner", "heat pump"],
           "requiredCharacteristics": ["active", "currentHeaterCoolerState", "targetHeaterCoolerState",
                                       "currentTemperature"],
           "optionalCharacteristics": ["lockPhysicalControls", "name", "swingMode", "coolingThresholdTemperature",
                                       "heatingThresholdTemperature", "temperatureDisplayUnits", "rotationSpeed"]},
          {"uuid": "BB", "name": "airPurifier", "displayName": "Air Purifier",
           "synonyms": ["purifier", "air cleaner"],
           "requiredCharacteristics": ["active", "currentAirPurifierState", "targetAirPurifierState"],
           "optionalCharacteristics": ["lockPhysicalControls", "name", "swingMode", "rotationSpeed"]}
         ],
         "characteristics": [
          {"uuid": "B1", "name": "currentHeaterCoolerState", "displayName": "Current Heater Cooler State",
           "synonyms": ["heater cooler state"], "format": "uint8", "permissions": ["pr", "ev"],
           "minValue": 0, "maxValue": 3, "minStep": 1,
           "validValues": [{"value": 0, "names": ["inactive"]}, {"value": 1, "names": ["idle"]},
                           {"value": 2, "names": ["heating"]}, {"value": 3, "names": ["cooling"]}]},
          {"uuid": "B2", "name": "targetHeaterCoolerState", "displayName": "Target Heater Cooler State",
           "synonyms": ["heater cooler mode"], "format": "uint8", "permissions": ["pr", "pw", "ev"],
           "minValue": 0, "maxValue": 2, "minStep": 1,
           "validValues": [{"value": 0, "names": ["auto"]}, {"value": 1, "names": ["heat"]},
                           {"value": 2, "names": ["cool"]}]},
          {"uuid": "A9", "name": "currentAirPurifierState", "displayName": "Current Air Purifier State",
           "synonyms": ["purifier state"], "format": "uint8", "permissions": ["pr", "ev"],
           "minValue": 0, "maxValue": 2, "minStep": 1,
           "validValues": [{"value": 0, "names": ["inactive"]}, {"value": 1, "names": ["idle"]},
                           {"value": 2, "names": ["purifying", "purifyingAir"]}]},
          {"uuid": "A8", "name": "targetAirPurifierState", "displayName": "Target Air Purifier State",
           "synonyms": ["purifier mode"], "format": "uint8", "permissions": ["pr", "pw", "ev"],
           "minValue": 0, "maxValue": 1, "minStep": 1,
           "validValues": [{"value": 0, "names": ["manual"]}, {"value": 1, "names": ["auto"]}]}
         ]}
        """
}
