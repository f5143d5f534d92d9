#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The catalog of Apple-defined service and characteristic types, embedded from our own `CatalogData.json`.
///
/// Looks types up by UUID, identifier and the words people use, and builds `HAPService` and `HAPCharacteristic`
/// templates with given instance ids. The data follows hap-protocol.md §11; choices where sources disagree are in
/// each entry's `notes`.
public struct TypeCatalog: Sendable, Equatable {
    /// The catalog file's format version.
    public let version: Int
    /// Remarks on the catalog as a whole: sources, and choices that apply to many entries.
    public let notes: [String]
    /// Every service type, in file order.
    public let services: [ServiceType]
    /// Every characteristic type, in file order.
    public let characteristics: [CharacteristicType]

    private let serviceIndex: Index
    private let characteristicIndex: Index

    /// Reads and checks a catalog from JSON `data` (the shape of `CatalogData.json`).
    ///
    /// Fails on duplicate UUIDs or identifiers, on a synonym shared by two entries of one kind, and on a service
    /// that lists a characteristic the catalog does not define.
    public init(data: Data) throws(CatalogError) {
        let file: CatalogFile
        do {
            file = try JSONDecoder().decode(CatalogFile.self, from: data)
        } catch {
            throw .malformed(String(describing: error))
        }
        version = file.version
        notes = file.notes
        services = file.services
        characteristics = file.characteristics
        serviceIndex = try Index(entries: file.services.map { ($0.uuid, $0.name, [$0.displayName] + $0.synonyms) })
        characteristicIndex = try Index(
            entries: file.characteristics.map { ($0.uuid, $0.name, [$0.displayName] + $0.synonyms) }
        )
        for service in services {
            for name in service.requiredCharacteristics + service.optionalCharacteristics
            where characteristicIndex.byName[name] == nil {
                throw .undefinedCharacteristic(service: service.name, characteristic: name)
            }
        }
    }

    /// Reads the catalog bundled with this module; each call parses it again (use `shared()` to reuse it).
    public static func load() throws(CatalogError) -> TypeCatalog {
        try TypeCatalog(data: Data(CatalogData.json.utf8))
    }

    /// The bundled catalog, read once per process; the first failure is remembered and thrown on every call.
    public static func shared() throws(CatalogError) -> TypeCatalog {
        try cached.get()
    }

    // Immutable after initialisation, and both `TypeCatalog` and `CatalogError` are `Sendable`.
    private static let cached = Result<TypeCatalog, CatalogError> { () throws(CatalogError) in try load() }

    // MARK: Lookups

    /// The service type with `uuid`, if the catalog has it.
    public func service(for uuid: HAPUUID) -> ServiceType? {
        serviceIndex.byUUID[uuid].map { services[$0] }
    }

    /// The service type with the identifier `name` (`lightbulb`), matched exactly.
    public func service(named name: String) -> ServiceType? {
        serviceIndex.byName[name].map { services[$0] }
    }

    /// The service type a person means by `words`: its identifier, display name or a synonym, any case, trimmed.
    public func service(matching words: String) -> ServiceType? {
        serviceIndex.match(words).map { services[$0] }
    }

    /// The characteristic type with `uuid`, if the catalog has it.
    public func characteristic(for uuid: HAPUUID) -> CharacteristicType? {
        characteristicIndex.byUUID[uuid].map { characteristics[$0] }
    }

    /// The characteristic type with the identifier `name` (`currentTemperature`), matched exactly.
    public func characteristic(named name: String) -> CharacteristicType? {
        characteristicIndex.byName[name].map { characteristics[$0] }
    }

    /// The characteristic type a person means by `words`: identifier, display name or synonym, any case, trimmed.
    public func characteristic(matching words: String) -> CharacteristicType? {
        characteristicIndex.match(words).map { characteristics[$0] }
    }

    /// The key words are compared by: trimmed, lower-cased, inner runs of white space made one space.
    static func normalizedKey(_ words: String) -> String {
        words.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

extension TypeCatalog {
    /// The lookup tables for one kind of entry, as positions in the entry array.
    private struct Index: Sendable, Equatable {
        var byUUID: [HAPUUID: Int] = [:]
        var byName: [String: Int] = [:]
        var byWords: [String: Int] = [:]

        init(entries: [(uuid: HAPUUID, name: String, words: [String])]) throws(CatalogError) {
            for (position, entry) in entries.enumerated() {
                guard byUUID.updateValue(position, forKey: entry.uuid) == nil else {
                    throw .duplicateType(entry.uuid)
                }
                guard byName.updateValue(position, forKey: entry.name) == nil else {
                    throw .duplicateName(entry.name)
                }
            }
            for (position, entry) in entries.enumerated() {
                for word in [entry.name] + entry.words {
                    let key = TypeCatalog.normalizedKey(word)
                    if let other = byWords[key], other != position { throw .duplicateName(word) }
                    byWords[key] = position
                }
            }
        }

        func match(_ words: String) -> Int? {
            byWords[TypeCatalog.normalizedKey(words)]
        }
    }

    /// The top level of the catalog JSON.
    private struct CatalogFile: Decodable {
        var version: Int
        var notes: [String]
        var services: [ServiceType]
        var characteristics: [CharacteristicType]
    }
}
