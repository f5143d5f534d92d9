import HAP
import HAPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An accessory database built from a description, with the ids it used and whether its structure changed.
public struct DatabaseBuild: Sendable, Equatable {
    /// The database to serve, with start values.
    public var database: AccessoryDatabase
    /// The ids after this build; persist them for the next run.
    public var identifiers: IdentifierMap
    /// Whether anything but values differs from the last build recorded in the map: bump `c#` if so.
    ///
    /// True on a first build (a map without a digest).
    public var didChange: Bool
    /// The category to announce (`ci`): Bridge, or the lone accessory's preset category.
    public var category: AccessoryCategory
    /// Each served accessory's name, key, aid, preset and behaviour timing, the primary one first.
    public var accessories: [BuiltAccessory]
}

/// One accessory of a build, as the simulator addresses it.
public struct BuiltAccessory: Sendable, Equatable {
    /// The accessory id.
    public var accessoryID: UInt64
    /// The accessory's name.
    public var name: String
    /// The key its ids are kept under in the ``IdentifierMap``.
    public var key: String
    /// The preset it was made from.
    public var preset: Preset?
    /// The timing its behaviours use, as the description gave it.
    public var behaviour: BehaviourSettings
    /// The same timing with defaults filled in.
    var timing: BehaviourTiming
}

extension SimulatorDescription {
    /// Builds the database, keeping every id `identifiers` already gives and handing out fresh ones for new slots.
    public func makeDatabase(identifiers: IdentifierMap) throws(DescriptionError) -> DatabaseBuild {
        let catalog = try SimulatorCatalog.shared()
        let expanded = try expandedAccessories()
        let total = expanded.count + (bridge == nil ? 0 : 1)
        guard bridge != nil || expanded.count == 1 else { throw .bridgeRequired(accessoryCount: expanded.count) }
        guard total <= AccessoryDatabase.maximumAccessoryCount else {
            throw .tooManyAccessories(count: total, maximum: AccessoryDatabase.maximumAccessoryCount)
        }
        let builder = AccessoryBuilder(catalog: catalog)
        var map = identifiers
        var accessories: [HAPAccessory] = []
        var built: [BuiltAccessory] = []
        var primaryIDs = map.primary ?? AccessoryIdentifiers(accessoryID: 1)
        primaryIDs.accessoryID = 1
        if let bridge {
            accessories.append(try builder.makeBridge(bridge, ids: &primaryIDs))
            built.append(
                BuiltAccessory(
                    accessoryID: 1,
                    name: bridge.name,
                    key: "",
                    preset: nil,
                    behaviour: BehaviourSettings(),
                    timing: try BehaviourTiming(BehaviourSettings(), accessory: bridge.name)
                )
            )
            for entry in expanded {
                var ids =
                    map.accessories[entry.key] ?? AccessoryIdentifiers(accessoryID: map.accessoryID(forKey: entry.key))
                accessories.append(try builder.makeAccessory(entry, ids: &ids))
                map.accessories[entry.key] = ids
                built.append(entry.built(accessoryID: ids.accessoryID))
            }
            map.keepOnly(Set(expanded.map(\.key)))
        } else if let entry = expanded.first {
            accessories.append(try builder.makeAccessory(entry, ids: &primaryIDs))
            built.append(entry.built(accessoryID: 1))
            map.accessories = [:]
        }
        map.primary = primaryIDs
        let database = AccessoryDatabase(accessories: accessories)
        do {
            try database.validate()
        } catch {
            throw .invalidDatabase(error)
        }
        let digest = Self.structureDigest(of: database)
        let didChange = digest != identifiers.structureDigest
        map.structureDigest = digest
        let category: AccessoryCategory =
            bridge != nil ? .bridge : (expanded.first?.preset?.category ?? .other)
        return DatabaseBuild(
            database: database,
            identifiers: map,
            didChange: didChange,
            category: category,
            accessories: built
        )
    }

    /// The accessories with `count` expanded, names and keys checked.
    func expandedAccessories() throws(DescriptionError) -> [ExpandedAccessory] {
        var result: [ExpandedAccessory] = []
        var seenKeys = Set<String>()
        var seenNames = Set<String>()
        for (index, accessory) in accessories.enumerated() {
            let field = "accessories[\(index)]"
            let count = accessory.count ?? 1
            guard (1..<AccessoryDatabase.maximumAccessoryCount).contains(count) else {
                throw .outOfRange(
                    accessory: accessory.name,
                    field: "\(field).count",
                    value: Double(count),
                    allowed: 1...Double(AccessoryDatabase.maximumAccessoryCount - 1)
                )
            }
            var preset: Preset?
            if let presetName = accessory.preset {
                guard let known = Preset(rawValue: presetName.lowercased()) else {
                    throw .unknownPreset(accessory: accessory.name, preset: presetName)
                }
                preset = known
            }
            let timing = try BehaviourTiming(accessory.behaviour ?? BehaviourSettings(), accessory: accessory.name)
            for number in 1...count {
                var copy = accessory
                let suffix = count == 1 ? "" : " \(number)"
                copy.name = accessory.name + suffix
                let key = ((accessory.id ?? accessory.name) + suffix).lowercased()
                try Self.checkName(copy.name, field: "\(field).name")
                guard seenKeys.insert(key).inserted, seenNames.insert(copy.name.lowercased()).inserted else {
                    throw .duplicateAccessory(copy.name)
                }
                result.append(
                    ExpandedAccessory(description: copy, key: key, preset: preset, timing: timing, field: field)
                )
            }
        }
        if let bridge { try Self.checkName(bridge.name, field: "bridge.name") }
        return result
    }

    static func checkName(_ name: String, field: String) throws(DescriptionError) {
        let trimmed = name.trimmingWhitespace()
        guard !trimmed.isEmpty, name.utf8.count <= HAPCharacteristic.defaultMaxLength else {
            throw .invalidName(field: field)
        }
    }

    /// FNV-1a over the database's JSON without values: equal structures give equal digests on every run.
    static func structureDigest(of database: AccessoryDatabase) -> String {
        var stripped = database
        for accessoryIndex in stripped.accessories.indices {
            for serviceIndex in stripped.accessories[accessoryIndex].services.indices {
                for index in stripped.accessories[accessoryIndex].services[serviceIndex].characteristics.indices {
                    stripped.accessories[accessoryIndex].services[serviceIndex].characteristics[index].value = nil
                }
            }
        }
        let bytes = (try? HAPJSON.encode(stripped)) ?? Data()
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// One accessory after `count` was expanded: its own name and key.
struct ExpandedAccessory: Sendable {
    var description: AccessoryDescription
    var key: String
    var preset: Preset?
    var timing: BehaviourTiming
    /// Where the accessory is in the description, for error messages.
    var field: String

    func built(accessoryID: UInt64) -> BuiltAccessory {
        BuiltAccessory(
            accessoryID: accessoryID,
            name: description.name,
            key: key,
            preset: preset,
            behaviour: description.behaviour ?? BehaviourSettings(),
            timing: timing
        )
    }
}

/// Behaviour settings with defaults filled in and checked, as durations.
struct BehaviourTiming: Sendable, Equatable {
    var lockDelay: Duration
    var doorTravel: Duration
    var positionStep: Int
    var positionInterval: Duration
    var temperatureStep: Double
    var temperatureInterval: Duration
    /// `nil` when the battery does not drain.
    var batteryDrainInterval: Duration?
    var lowBatteryThreshold: Int

    init(_ settings: BehaviourSettings, accessory: String) throws(DescriptionError) {
        func seconds(
            _ value: Double?,
            _ fallback: Double,
            _ field: String,
            allowZero: Bool
        ) throws(DescriptionError)
            -> Duration
        {
            let value = value ?? fallback
            guard value.isFinite, allowZero ? value >= 0 : value > 0, value < 1_000_000 else {
                throw .invalidBehaviour(accessory: accessory, field: "behaviour.\(field)")
            }
            return .milliseconds(Int64((value * 1000).rounded()))
        }
        lockDelay = try seconds(settings.lockDelaySeconds, 2, "lockDelaySeconds", allowZero: true)
        doorTravel = try seconds(settings.doorTravelSeconds, 10, "doorTravelSeconds", allowZero: true)
        positionInterval = try seconds(settings.positionStepSeconds, 1, "positionStepSeconds", allowZero: false)
        temperatureInterval = try seconds(
            settings.temperatureStepSeconds,
            5,
            "temperatureStepSeconds",
            allowZero: false
        )
        let drain = try seconds(settings.batteryDrainSeconds, 60, "batteryDrainSeconds", allowZero: true)
        batteryDrainInterval = drain == .zero ? nil : drain
        positionStep = settings.positionStepPercent ?? 10
        guard (1...100).contains(positionStep) else {
            throw .invalidBehaviour(accessory: accessory, field: "behaviour.positionStepPercent")
        }
        temperatureStep = settings.temperatureStepCelsius ?? 0.5
        guard temperatureStep.isFinite, temperatureStep > 0, temperatureStep <= 50 else {
            throw .invalidBehaviour(accessory: accessory, field: "behaviour.temperatureStepCelsius")
        }
        lowBatteryThreshold = settings.lowBatteryThreshold ?? 20
        guard (0...100).contains(lowBatteryThreshold) else {
            throw .invalidBehaviour(accessory: accessory, field: "behaviour.lowBatteryThreshold")
        }
    }
}
