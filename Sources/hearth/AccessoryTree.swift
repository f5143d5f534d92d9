import HAP
import HAPTypes

/// Draws an accessory database as a tree for people: accessories, services and characteristics with the type
/// catalog's names, instance ids, values and permissions (docs/style.md §3).
public struct AccessoryTree: Sendable {
    private let catalog: TypeCatalog?

    /// Makes a tree drawer; without a catalog, types are shown by their UUIDs.
    public init(catalog: TypeCatalog?) {
        self.catalog = catalog
    }

    /// The whole tree, one line per node, ending with a newline.
    ///
    /// An accessory is titled by its Name characteristic (from its Accessory Information service) when it has one.
    public func render(_ database: AccessoryDatabase) -> String {
        var lines: [String] = []
        for accessory in database.accessories {
            lines.append("\(accessoryName(accessory)) (aid \(accessory.accessoryID))")
            for (serviceIndex, service) in accessory.services.enumerated() {
                let lastService = serviceIndex == accessory.services.count - 1
                var title = "\(serviceName(service.type)) (iid \(service.instanceID))"
                if service.isPrimary { title += " primary" }
                if service.isHidden { title += " hidden" }
                lines.append((lastService ? "└── " : "├── ") + title)
                let indent = lastService ? "    " : "│   "
                let rows = service.characteristics.map { characteristicRow(accessory.accessoryID, $0) }
                let nameWidth = rows.map(\.name.count).max() ?? 0
                let valueWidth = rows.map(\.value.count).max() ?? 0
                for (index, row) in rows.enumerated() {
                    let branch = index == rows.count - 1 ? "└── " : "├── "
                    let name = row.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                    let value = row.value.padding(toLength: valueWidth, withPad: " ", startingAt: 0)
                    lines.append(indent + branch + "\(name)  \(value)  \(row.permissions)")
                }
            }
        }
        return lines.map { $0.replacingTrailingSpaces() }.joined(separator: "\n") + "\n"
    }

    /// The catalog's display name of a service type, or its UUID.
    public func serviceName(_ type: HAPUUID) -> String {
        catalog?.service(for: type)?.displayName ?? type.wireForm
    }

    /// The catalog's display name of a characteristic type, or its UUID.
    public func characteristicName(_ type: HAPUUID) -> String {
        catalog?.characteristic(for: type)?.displayName ?? type.wireForm
    }

    /// A value for people: the catalog's name for an enumerated value (`1 (secured)`), the unit, or `-` for none.
    public func valueText(_ value: HAPValue?, of characteristic: HAPCharacteristic) -> String {
        guard let value else { return "-" }
        var text = value.description
        if let number = value.numericValue, number.rounded() == number, abs(number) < 1e15,
            let name = catalog?.characteristic(for: characteristic.type)?.name(of: Int(number))
        {
            text += " (\(name))"
        } else if let unit = characteristic.unit {
            text += " " + Self.unitSymbol(unit)
        }
        return text
    }

    private struct Row {
        var name: String
        var value: String
        var permissions: String
    }

    private func characteristicRow(_ accessoryID: UInt64, _ characteristic: HAPCharacteristic) -> Row {
        let id = CharacteristicID(accessoryID: accessoryID, instanceID: characteristic.instanceID)
        return Row(
            name: "\(characteristicName(characteristic.type)) [\(id)]",
            value: valueText(characteristic.value, of: characteristic),
            permissions: characteristic.permissions.map(\.rawValue).joined(separator: ",")
        )
    }

    private func accessoryName(_ accessory: HAPAccessory) -> String {
        let nameType = HAPUUID(apple: 0x23)
        for service in accessory.services {
            if let name = service.characteristics.first(where: { $0.type == nameType }),
                case .string(let text)? = name.value
            {
                return text
            }
        }
        return "Accessory"
    }

    private static func unitSymbol(_ unit: Unit) -> String {
        switch unit {
        case .celsius: "°C"
        case .percentage: "%"
        case .arcdegrees: "°"
        case .lux: "lx"
        case .seconds: "s"
        }
    }
}

extension String {
    fileprivate func replacingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
