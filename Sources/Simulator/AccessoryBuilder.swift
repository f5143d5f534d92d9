import HAP
import HAPTypes

/// Builds one accessory of a description: Accessory Information, then each service with stable iids.
struct AccessoryBuilder {
    let catalog: TypeCatalog

    /// A service to build: its type, flags, catalog characteristics with overrides, and custom ones.
    private struct ServicePlan {
        var type: ServiceType?
        var uuid: HAPUUID
        var name: String?
        var isPrimary: Bool
        var isHidden: Bool
        var overrides: [(type: CharacteristicType, override: CharacteristicOverride, field: String)]
        var custom: [(characteristic: CustomCharacteristic, field: String)]
    }

    func makeBridge(
        _ bridge: BridgeDescription,
        ids: inout AccessoryIdentifiers
    ) throws(DescriptionError) -> HAPAccessory {
        let information = try makeInformation(
            accessory: bridge.name,
            values: [
                "manufacturer": bridge.manufacturer ?? "Hearth",
                "model": bridge.model ?? "Hearth Simulator Bridge",
                "name": bridge.name,
                "serialNumber": bridge.serialNumber ?? "HS-1",
                "firmwareRevision": bridge.firmwareRevision ?? "1.0.0",
            ],
            ids: &ids
        )
        let protocolPlan = ServicePlan(
            type: catalog.service(named: "protocolInformation"),
            uuid: HAPUUID(apple: 0xA2),
            name: nil,
            isPrimary: false,
            isHidden: false,
            overrides: [],
            custom: []
        )
        var protocolService = try makeService(protocolPlan, accessory: bridge.name, index: 0, ids: &ids)
        // hap-protocol.md §11.1: ProtocolInformation carries Version "1.1.0".
        if let index = protocolService.characteristics.firstIndex(where: { $0.type == HAPUUID(apple: 0x37) }) {
            protocolService.characteristics[index].value = .string("1.1.0")
        }
        return HAPAccessory(accessoryID: 1, services: [information, protocolService])
    }

    func makeAccessory(
        _ entry: ExpandedAccessory,
        ids: inout AccessoryIdentifiers
    ) throws(DescriptionError) -> HAPAccessory {
        let description = entry.description
        let information = try makeInformation(
            accessory: description.name,
            values: [
                "manufacturer": description.manufacturer ?? "Hearth",
                "model": description.model ?? entry.preset?.model ?? "Hearth Simulated Accessory",
                "name": description.name,
                "serialNumber": description.serialNumber ?? "HS-\(ids.accessoryID)",
                "firmwareRevision": description.firmwareRevision ?? "1.0.0",
            ],
            ids: &ids
        )
        var plans: [ServicePlan] = []
        for service in entry.preset?.services ?? [] {
            plans.append(try plan(service, accessory: description.name, field: "preset"))
        }
        let presetCount = plans.count
        var merged = Set<Int>()
        for (index, service) in (description.services ?? []).enumerated() {
            let field = "\(entry.field).services[\(index)]"
            let added = try plan(service, accessory: description.name, field: field)
            if let target = (0..<presetCount).first(where: { !merged.contains($0) && plans[$0].uuid == added.uuid }) {
                merged.insert(target)
                plans[target] = merge(plans[target], with: added, service: service)
            } else {
                plans.append(added)
            }
        }
        var services = [information]
        var slotCounts: [HAPUUID: Int] = [:]
        for plan in plans {
            let slot = slotCounts[plan.uuid, default: 0]
            slotCounts[plan.uuid] = slot + 1
            services.append(try makeService(plan, accessory: description.name, index: slot, ids: &ids))
        }
        return HAPAccessory(accessoryID: ids.accessoryID, services: services)
    }

    // MARK: Plans

    private func plan(
        _ service: ServiceDescription,
        accessory: String,
        field: String
    ) throws(DescriptionError)
        -> ServicePlan
    {
        let type = catalog.service(named: service.type) ?? catalog.service(matching: service.type)
        let uuid: HAPUUID
        if let type {
            uuid = type.uuid
        } else if let parsed = try? HAPUUID(service.type),
            service.type.contains("-") || catalog.service(for: parsed) != nil
        {
            uuid = parsed
        } else {
            throw .unknownServiceType(accessory: accessory, field: "\(field).type", type: service.type)
        }
        let resolvedType = type ?? catalog.service(for: uuid)
        var overrides: [(type: CharacteristicType, override: CharacteristicOverride, field: String)] = []
        for (key, override) in (service.characteristics ?? [:]).sorted(by: { $0.key < $1.key }) {
            let characteristicField = "\(field).characteristics.\(key)"
            guard let characteristicType = catalog.characteristic(named: key) ?? catalog.characteristic(matching: key)
            else {
                throw .unknownCharacteristic(accessory: accessory, field: characteristicField, name: key)
            }
            if let resolvedType,
                !(resolvedType.requiredCharacteristics + resolvedType.optionalCharacteristics).contains(
                    characteristicType.name
                )
            {
                throw .characteristicNotInService(
                    accessory: accessory,
                    field: characteristicField,
                    characteristic: characteristicType.name,
                    service: resolvedType.name
                )
            }
            guard !overrides.contains(where: { $0.type.uuid == characteristicType.uuid }) else {
                throw .duplicateCharacteristic(accessory: accessory, field: characteristicField)
            }
            overrides.append((characteristicType, override, characteristicField))
        }
        if let name = service.name, let nameType = catalog.characteristic(named: "name") {
            try AccessoryBuilder.check(name, accessory: accessory, field: "\(field).name")
            if let resolvedType, !resolvedType.optionalCharacteristics.contains("name") {
                throw .characteristicNotInService(
                    accessory: accessory,
                    field: "\(field).name",
                    characteristic: "name",
                    service: resolvedType.name
                )
            }
            overrides.removeAll { $0.type.uuid == nameType.uuid }
            overrides.append((nameType, CharacteristicOverride(value: .string(name)), "\(field).name"))
        }
        return ServicePlan(
            type: resolvedType,
            uuid: uuid,
            name: service.name,
            isPrimary: service.primary ?? false,
            isHidden: service.hidden ?? false,
            overrides: overrides,
            custom: (service.custom ?? []).enumerated().map { ($1, "\(field).custom[\($0)]") }
        )
    }

    private func merge(_ preset: ServicePlan, with added: ServicePlan, service: ServiceDescription) -> ServicePlan {
        var result = preset
        for entry in added.overrides {
            result.overrides.removeAll { $0.type.uuid == entry.type.uuid }
            result.overrides.append(entry)
        }
        result.custom += added.custom
        result.name = added.name ?? preset.name
        result.isPrimary = service.primary ?? preset.isPrimary
        result.isHidden = service.hidden ?? preset.isHidden
        return result
    }

    // MARK: Services

    private func makeInformation(
        accessory: String,
        values: KeyValuePairs<String, String>,
        ids: inout AccessoryIdentifiers
    ) throws(DescriptionError) -> HAPService {
        let plan = ServicePlan(
            type: catalog.service(named: "accessoryInformation"),
            uuid: HAPUUID(apple: 0x3E),
            name: nil,
            isPrimary: false,
            isHidden: false,
            overrides: [],
            custom: []
        )
        var service = try makeService(plan, accessory: accessory, index: 0, ids: &ids)
        for (name, value) in values {
            try AccessoryBuilder.check(value, accessory: accessory, field: name)
            guard let type = catalog.characteristic(named: name),
                let index = service.characteristics.firstIndex(where: { $0.type == type.uuid })
            else { continue }
            service.characteristics[index].value = .string(value)
        }
        return service
    }

    private func makeService(
        _ plan: ServicePlan,
        accessory: String,
        index: Int,
        ids: inout AccessoryIdentifiers
    )
        throws(DescriptionError) -> HAPService
    {
        let slot = "\(plan.uuid.wireForm)#\(index)"
        let serviceID = ids.instanceID(forSlot: slot)
        let defaults = plan.type.map { ServiceDefaults.values(forService: $0.name) } ?? [:]
        var types: [CharacteristicType] = []
        for name in plan.type?.requiredCharacteristics ?? [] {
            if let type = catalog.characteristic(named: name) { types.append(type) }
        }
        let order = plan.type?.optionalCharacteristics ?? []
        let optional = plan.overrides.map(\.type).filter { type in !types.contains { $0.uuid == type.uuid } }
        types += optional.sorted { (order.firstIndex(of: $0.name) ?? .max) < (order.firstIndex(of: $1.name) ?? .max) }
        var characteristics: [HAPCharacteristic] = []
        for type in types {
            let instanceID = ids.instanceID(forSlot: "\(slot)/\(type.uuid.wireForm)")
            var characteristic = catalog.makeCharacteristic(type, instanceID: instanceID)
            if let value = defaults[type.name], let normalized = try? characteristic.normalized(value) {
                characteristic.value = normalized
            }
            if let entry = plan.overrides.first(where: { $0.type.uuid == type.uuid }) {
                try CharacteristicOverrides.apply(
                    entry.override,
                    to: &characteristic,
                    type: type,
                    accessory: accessory,
                    field: entry.field
                )
            }
            characteristics.append(characteristic)
        }
        for (custom, field) in plan.custom {
            let characteristic = try CharacteristicOverrides.makeCustom(
                custom,
                accessory: accessory,
                field: field,
                existing: characteristics,
                instanceID: { uuid in ids.instanceID(forSlot: "\(slot)/\(uuid.wireForm)") }
            )
            characteristics.append(characteristic)
        }
        return HAPService(
            instanceID: serviceID,
            type: plan.uuid,
            isPrimary: plan.isPrimary,
            isHidden: plan.isHidden,
            characteristics: characteristics
        )
    }

    static func check(_ text: String, accessory: String, field: String) throws(DescriptionError) {
        let length = text.utf8.count
        guard length <= HAPCharacteristic.defaultMaxLength else {
            throw .invalidValue(
                accessory: accessory,
                field: field,
                .stringTooLong(length: length, maximum: HAPCharacteristic.defaultMaxLength)
            )
        }
    }
}
