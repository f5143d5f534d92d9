import Foundation
import HAP
import HAPTypes

/// Checks of the accessory database (`GET /accessories`, hap-protocol.md §7.4, §9, §11).
extension HAPTester {
    /// Every database check; reads the database first.
    func runDatabaseChecks() {
        let checks = [
            Checks.accessoryInformation, Checks.uniqueIDs, Checks.noDuplicates, Checks.required, Checks.optional,
            Checks.duplicateServices, Checks.catalog, Checks.values, Checks.accessoryCount,
        ]
        guard let session = session(for: Checks.accessoryInformation) else {
            for check in checks.dropFirst() { record(check, .skipped, ["no session to read the database on"]) }
            return
        }
        defer { session.close() }
        let read: AccessoryDatabase
        do {
            let response = try session.send(HTTPRequest(method: .get, target: "/accessories"))
            guard response.status.code == 200 else {
                throw WireError(
                    description: "GET /accessories answered HTTP \(response.status.code) \(bodyText(response))"
                )
            }
            read = try HAPJSON.decode(AccessoryDatabase.self, from: Data(response.body))
        } catch {
            for check in checks { record(check, .fail, ["the database could not be read: \(error)"]) }
            return
        }
        database = read
        checkAccessoryInformation(read)
        checkUniqueIDs(read)
        checkNoDuplicateTypes(read)
        guard let catalog = try? TypeCatalog.shared() else {
            record(Checks.required, .skipped, ["the type catalog could not be loaded"])
            record(Checks.optional, .skipped, ["the type catalog could not be loaded"])
            checkDuplicateServices(read)
            record(Checks.catalog, .skipped, ["the type catalog could not be loaded"])
            checkValues(read)
            checkCount(read)
            return
        }
        checkRequired(read, catalog: catalog)
        checkOptional(read, catalog: catalog)
        checkDuplicateServices(read)
        checkCatalog(read, catalog: catalog)
        checkValues(read)
        checkCount(read)
    }

    private static let accessoryInformation = HAPUUID(apple: 0x3E)

    private func checkAccessoryInformation(_ database: AccessoryDatabase) {
        var problems: [String] = []
        if let first = database.accessory(withID: 1) {
            if first.services.first?.type != Self.accessoryInformation {
                problems.append(
                    "the first service of aid 1 is \(first.services.first?.type.wireForm ?? "none"), not 3E"
                )
            }
        } else {
            problems.append(
                "there is no accessory with aid 1; aids are \(database.accessories.prefix(5).map(\.accessoryID))"
            )
        }
        for accessory in database.accessories {
            let count = accessory.services.filter { $0.type == Self.accessoryInformation }.count
            if count != 1 {
                problems.append("aid \(accessory.accessoryID) has \(count) Accessory Information services")
            }
        }
        record(Checks.accessoryInformation, problems: problems)
    }

    private func checkUniqueIDs(_ database: AccessoryDatabase) {
        var problems: [String] = []
        var aids = Set<UInt64>()
        for accessory in database.accessories {
            if accessory.accessoryID == 0 || !aids.insert(accessory.accessoryID).inserted {
                problems.append("aid \(accessory.accessoryID) is 0 or used twice")
            }
            var iids = Set<UInt64>()
            for service in accessory.services {
                let all = [service.instanceID] + service.characteristics.map(\.instanceID)
                for iid in all where iid == 0 || !iids.insert(iid).inserted {
                    problems.append("iid \(iid) of aid \(accessory.accessoryID) is 0 or used twice")
                }
            }
        }
        record(Checks.uniqueIDs, problems: problems)
    }

    func checkNoDuplicateTypes(_ database: AccessoryDatabase) {
        var problems: [String] = []
        for accessory in database.accessories {
            for service in accessory.services {
                var types = Set<HAPUUID>()
                for characteristic in service.characteristics where !types.insert(characteristic.type).inserted {
                    problems.append(
                        "service \(accessory.accessoryID).\(service.instanceID) has type \(characteristic.type.wireForm) twice"
                    )
                }
            }
        }
        record(Checks.noDuplicates, problems: problems)
    }

    private func checkRequired(_ database: AccessoryDatabase, catalog: TypeCatalog) {
        var problems: [String] = []
        for accessory in database.accessories {
            for service in accessory.services where service.type.isAppleDefined {
                guard let known = catalog.service(for: service.type) else { continue }
                let present = Set(service.characteristics.map(\.type))
                for name in known.requiredCharacteristics {
                    guard let type = catalog.characteristic(named: name), !present.contains(type.uuid) else { continue }
                    problems.append(
                        "\(known.displayName) \(accessory.accessoryID).\(service.instanceID) lacks \(type.displayName) (\(type.uuid.wireForm))"
                    )
                }
            }
        }
        record(Checks.required, problems: problems)
    }

    /// A warning for each Apple characteristic in an Apple service whose catalog entry lists it as neither
    /// required nor optional; custom (non-Apple) characteristics are vendor additions and not judged.
    private func checkOptional(_ database: AccessoryDatabase, catalog: TypeCatalog) {
        var notes: [String] = []
        for accessory in database.accessories {
            for service in accessory.services where service.type.isAppleDefined {
                guard let known = catalog.service(for: service.type) else { continue }
                let allowed = Set(
                    (known.requiredCharacteristics + known.optionalCharacteristics).compactMap {
                        catalog.characteristic(named: $0)?.uuid
                    }
                )
                for characteristic in service.characteristics
                where characteristic.type.isAppleDefined && !allowed.contains(characteristic.type) {
                    let name = catalog.characteristic(for: characteristic.type)?.displayName ?? "a characteristic"
                    notes.append(
                        "\(known.displayName) \(accessory.accessoryID).\(service.instanceID) has \(name) (\(characteristic.type.wireForm)), neither required nor optional there"
                    )
                }
            }
        }
        if notes.isEmpty {
            record(Checks.optional, .pass)
        } else {
            record(
                Checks.optional,
                .warning,
                Array(notes.prefix(20)) + (notes.count > 20 ? ["… and \(notes.count - 20) more"] : [])
            )
        }
    }

    /// The services an accessory may have only once: Accessory Information and Protocol Information.
    private static let singleServices: [(type: HAPUUID, name: String)] = [
        (HAPUUID(apple: 0x3E), "Accessory Information"), (HAPUUID(apple: 0xA2), "Protocol Information"),
    ]

    func checkDuplicateServices(_ database: AccessoryDatabase) {
        var problems: [String] = []
        for accessory in database.accessories {
            for (type, name) in Self.singleServices {
                let iids = accessory.services.filter { $0.type == type }.map(\.instanceID)
                if iids.count > 1 {
                    problems.append(
                        "aid \(accessory.accessoryID) has \(iids.count) \(name) services (\(type.wireForm)), iids \(iids.map(String.init).joined(separator: ", "))"
                    )
                }
            }
        }
        record(Checks.duplicateServices, problems: problems)
    }

    private func checkCatalog(_ database: AccessoryDatabase, catalog: TypeCatalog) {
        var problems: [String] = []
        var notes: [String] = []
        let checked: [Permission] = [.read, .write, .notify]
        for accessory in database.accessories {
            for service in accessory.services {
                for characteristic in service.characteristics where characteristic.type.isAppleDefined {
                    guard let known = catalog.characteristic(for: characteristic.type) else { continue }
                    let where_ = "\(known.displayName) \(accessory.accessoryID).\(characteristic.instanceID)"
                    if characteristic.format != known.format {
                        problems.append(
                            "\(where_) has format \(characteristic.format.rawValue), not \(known.format.rawValue)"
                        )
                    }
                    for permission in checked {
                        let expected = known.permissions.contains(permission)
                        let has = characteristic.has(permission)
                        if expected, !has { problems.append("\(where_) lacks permission \(permission.rawValue)") }
                        if !expected, has { notes.append("\(where_) has permission \(permission.rawValue) too") }
                    }
                    if let unit = known.unit, characteristic.unit != unit {
                        notes.append(
                            "\(where_) has unit \(characteristic.unit?.rawValue ?? "none"), not \(unit.rawValue)"
                        )
                    }
                    if let minimum = known.minValue, let actual = characteristic.minValue, actual != minimum {
                        notes.append("\(where_) has minValue \(actual), the catalog \(minimum)")
                    }
                    if let maximum = known.maxValue, let actual = characteristic.maxValue, actual != maximum {
                        notes.append("\(where_) has maxValue \(actual), the catalog \(maximum)")
                    }
                }
            }
        }
        if !problems.isEmpty {
            record(Checks.catalog, problems: problems)
        } else if !notes.isEmpty {
            let unique = Array(NSOrderedSet(array: notes).array.compactMap { $0 as? String })
            record(
                Checks.catalog,
                .warning,
                Array(unique.prefix(20)) + (unique.count > 20 ? ["… and \(unique.count - 20) more"] : [])
            )
        } else {
            record(Checks.catalog, .pass)
        }
    }

    private func checkValues(_ database: AccessoryDatabase) {
        var problems: [String] = []
        for accessory in database.accessories {
            for service in accessory.services {
                for characteristic in service.characteristics {
                    guard let value = characteristic.value else { continue }
                    do {
                        _ = try characteristic.normalized(value)
                    } catch {
                        let name =
                            (try? TypeCatalog.shared())?.characteristic(for: characteristic.type)?.displayName
                            ?? "characteristic \(characteristic.type.wireForm)"
                        problems.append(
                            "\(accessory.accessoryID).\(characteristic.instanceID) = \(value): \(error.message(naming: name))"
                        )
                    }
                }
            }
        }
        record(Checks.values, problems: problems)
    }

    private func checkCount(_ database: AccessoryDatabase) {
        let count = database.accessories.count
        if count <= AccessoryDatabase.maximumAccessoryCount {
            record(Checks.accessoryCount, .pass, ["\(count) accessories"])
        } else {
            record(Checks.accessoryCount, .fail, ["\(count) accessories; at most 150"])
        }
    }
}
