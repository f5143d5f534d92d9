import Foundation
import HAPTypes

/// Building graph accessories from the accessory database an accessory server describes.
extension Accessory {
    /// Makes a graph accessory from one accessory of a HAP database, with fresh ids from `ids`.
    ///
    /// Manufacturer data and the name come from the Accessory Information service; each service is named by its
    /// Configured Name or Name characteristic, else by the catalog's display name for its type. Names are cleaned
    /// (``Names/cleaned(_:)``), never refused: a name with nothing visible left falls back to the next source, and
    /// the accessory's last to its primary service's name or "Accessory". Ids are drawn in order: the accessory,
    /// then each service followed by its characteristics.
    public init(
        importing accessory: HAPAccessory,
        name: String? = nil,
        roomID: UUID,
        category: AccessoryCategory = .other,
        deviceID: DeviceID? = nil,
        bridgeID: UUID? = nil,
        catalog: TypeCatalog,
        ids: inout some IDGenerator
    ) {
        let information = accessory.services.first { $0.type == HAPTypes.accessoryInformation }
        func text(_ type: HAPUUID) -> String? { information.flatMap { Self.text(of: type, in: $0) } }
        let id = ids.makeID()
        var services: [Service] = []
        for service in accessory.services {
            let serviceID = ids.makeID()
            let characteristics = service.characteristics.map { characteristic in
                Characteristic(
                    id: ids.makeID(),
                    type: characteristic.type,
                    instanceID: characteristic.instanceID,
                    format: characteristic.format,
                    permissions: characteristic.permissions,
                    metadata: CharacteristicMetadata(characteristic),
                    value: characteristic.value
                )
            }
            let serviceName =
                Self.name(of: HAPTypes.configuredName, in: service) ?? Self.name(of: HAPTypes.name, in: service)
                ?? catalog.service(for: service.type).flatMap { Names.cleaned($0.displayName) } ?? "Service"
            services.append(
                Service(
                    id: serviceID,
                    name: serviceName,
                    type: service.type,
                    instanceID: service.instanceID,
                    isPrimary: service.isPrimary,
                    isHidden: service.isHidden,
                    characteristics: characteristics
                )
            )
        }
        let primaryName = services.first(where: \.isPrimary)?.name
        self.init(
            id: id,
            name: name.flatMap(Names.cleaned) ?? information.flatMap { Self.name(of: HAPTypes.name, in: $0) }
                ?? primaryName ?? "Accessory",
            roomID: roomID,
            category: category,
            manufacturer: text(HAPTypes.manufacturer) ?? "",
            model: text(HAPTypes.model) ?? "",
            serialNumber: text(HAPTypes.serialNumber) ?? "",
            firmwareRevision: text(HAPTypes.firmwareRevision) ?? "",
            bridgeID: bridgeID,
            deviceID: deviceID,
            accessoryInstanceID: accessory.accessoryID,
            services: services
        )
    }

    /// The non-blank string value of the characteristic of `type` in `service`.
    private static func text(of type: HAPUUID, in service: HAPService) -> String? {
        guard case .string(let value)? = service.characteristics.first(where: { $0.type == type })?.value else {
            return nil
        }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The string value of the characteristic of `type` in `service` cleaned into a name, if anything is left.
    private static func name(of type: HAPUUID, in service: HAPService) -> String? {
        guard case .string(let value)? = service.characteristics.first(where: { $0.type == type })?.value else {
            return nil
        }
        return Names.cleaned(value)
    }
}

/// The Apple-defined types the importer reads; hap-protocol.md §11.
enum HAPTypes {
    static let accessoryInformation = HAPUUID(apple: 0x3E)
    static let name = HAPUUID(apple: 0x23)
    static let configuredName = HAPUUID(apple: 0xE3)
    static let manufacturer = HAPUUID(apple: 0x20)
    static let model = HAPUUID(apple: 0x21)
    static let serialNumber = HAPUUID(apple: 0x30)
    static let firmwareRevision = HAPUUID(apple: 0x52)
}
