import Foundation
import HAPTypes
import HomeGraph

/// A thing of the home a name can stand for.
enum Entity: Sendable, Hashable {
    /// An accessory, by its index in the home.
    case accessory(Int)
    /// A service, by the index of its entry (``NameIndex/services``).
    case service(Int)
    /// A service group, by its index in the home.
    case group(Int)
    /// A scene (action set), by its index in the home.
    case scene(Int)
    /// An accessory by the rest of its name once its room's name is taken out ("light" for "Kitchen Light" in the
    /// Kitchen): only in that room.
    case alias(accessory: Int, room: UUID)
}

/// What a phrase can mean against one home.
enum Meaning: Sendable, Hashable {
    /// A word of the lexicon.
    case word(Word)
    /// A named thing; `plural` when said in the plural.
    case entity(Entity, plural: Bool)
    /// A room of the home.
    case room(UUID)
    /// A zone, by its index in the home.
    case zone(Int)
    /// Service types of the catalog, by name; `plural` when said in the plural.
    case type([String], plural: Bool)
}

/// One service that can be a target: where it is, what it is, its characteristics by catalog name.
struct ServiceEntry: Sendable {
    /// The accessory's index in the home.
    let accessory: Int
    /// The service's index in the accessory.
    let service: Int
    /// The catalog's name of the service type (`lightbulb`); the UUID's text when the catalog lacks it.
    let typeName: String
    /// The accessory's room.
    let roomID: UUID
    /// The characteristics' indices in the service, by catalog name.
    let characteristics: [String: Int]
}

/// The names of one home and the lexicon's phrases in one table, built once per version of the home's structure.
struct NameIndex: Sendable {
    /// Every phrase, as words, with what it can mean.
    private(set) var phrases: [[String]: [Meaning]] = [:]
    /// The longest phrase, in words.
    private(set) var longestPhrase = 1
    /// Every service that can be a target (hidden and operational ones left out).
    private(set) var services: [ServiceEntry] = []
    /// The entries of each accessory.
    private(set) var servicesOfAccessory: [[Int]] = []
    /// How many services that can be targets each accessory has, by accessory id.
    private(set) var serviceCount: [UUID: Int] = [:]
    /// Entry indices by service id.
    private(set) var serviceByID: [UUID: Int] = [:]
    /// The room names by id.
    private(set) var roomNames: [UUID: String] = [:]
    /// Room ids by the key of their name, for `--room`.
    private(set) var roomByKey: [[String]: UUID] = [:]
    /// The catalog's display names of characteristics, lower case, by name ("target temperature").
    private(set) var characteristicNames: [String: String] = [:]
    /// The built-in scenes by kind.
    private(set) var sceneByKind: [String: Int] = [:]
    /// Scene indices by the words of their name.
    private(set) var sceneByWords: [[String]: Int] = [:]

    /// Indexes `home` with `lexicon`'s words and `catalog`'s types.
    init(home: Home, catalog: TypeCatalog, lexicon: Lexicon, words: Words) {
        for (phrase, meanings) in lexicon.words {
            for word in meanings { add(phrase, .word(word)) }
        }
        indexTypes(catalog: catalog, lexicon: lexicon)
        for characteristic in catalog.characteristics {
            characteristicNames[characteristic.name] = characteristic.displayName.lowercased()
        }
        for room in home.allRooms {
            roomNames[room.id] = room.name
            let key = words.of(room.name)
            guard !key.isEmpty else { continue }
            roomByKey[key] = room.id
            add(key, .room(room.id))
        }
        for (index, zone) in home.zones.enumerated() { add(words.of(zone.name), .zone(index)) }
        for (index, scene) in home.actionSets.enumerated() {
            let key = words.of(scene.name)
            add(key, .entity(.scene(index), plural: false))
            sceneByWords[key] = index
            if scene.kind != .userDefined { sceneByKind[scene.kind.rawValue] = index }
        }
        for (index, group) in home.serviceGroups.enumerated() {
            addName(words.of(group.name), .group(index), lexicon: lexicon)
        }
        indexAccessories(home: home, catalog: catalog, lexicon: lexicon, words: words)
    }

    /// The accessories, their services and their names, with the room-less aliases.
    private mutating func indexAccessories(home: Home, catalog: TypeCatalog, lexicon: Lexicon, words: Words) {
        for (accessoryIndex, accessory) in home.accessories.enumerated() {
            let key = words.of(accessory.name)
            addName(key, .accessory(accessoryIndex), lexicon: lexicon)
            // "Anna's Lamp" is also said "annas lamp".
            if accessory.name.contains("'s ") || accessory.name.contains("\u{2019}s ") {
                let bare = accessory.name.replacingOccurrences(of: "'", with: "").replacingOccurrences(
                    of: "\u{2019}",
                    with: ""
                )
                addName(words.of(bare), .accessory(accessoryIndex), lexicon: lexicon)
            }
            let roomKey = words.of(roomNames[accessory.roomID] ?? "")
            if let rest = Self.removing(roomKey, from: key) {
                addName(rest, .alias(accessory: accessoryIndex, room: accessory.roomID), lexicon: lexicon)
            }
            var entries: [Int] = []
            for (serviceIndex, service) in accessory.services.enumerated() {
                let typeName = catalog.service(for: service.type)?.name ?? service.type.description
                guard !service.isHidden(in: catalog) else { continue }
                var characteristics: [String: Int] = [:]
                for (characteristicIndex, characteristic) in service.characteristics.enumerated() {
                    let name = catalog.characteristic(for: characteristic.type)?.name ?? characteristic.type.description
                    characteristics[name] = characteristicIndex
                }
                let entry = services.count
                services.append(
                    ServiceEntry(
                        accessory: accessoryIndex,
                        service: serviceIndex,
                        typeName: typeName,
                        roomID: accessory.roomID,
                        characteristics: characteristics
                    )
                )
                serviceByID[service.id] = entry
                entries.append(entry)
                let serviceKey = words.of(service.name)
                if serviceKey != key { addName(serviceKey, .service(entry), lexicon: lexicon) }
            }
            servicesOfAccessory.append(entries)
            serviceCount[accessory.id] = entries.count
        }
    }

    /// The catalog's service types by display name and synonyms, and the lexicon's type words, with plurals.
    private mutating func indexTypes(catalog: TypeCatalog, lexicon: Lexicon) {
        var singular: [[String]: Set<String>] = [:]
        for service in catalog.services where !service.isHidden {
            for phrase in [service.displayName] + service.synonyms {
                let words = phrase.lowercased().split(separator: " ").map(String.init)
                singular[words, default: []].insert(service.name)
            }
        }
        var explicit: [[String]: [String]] = lexicon.typeWords
        let explicitPhrases = Set(explicit.keys)
        for (words, names) in singular where explicit[words] == nil { explicit[words] = names.sorted() }
        for (words, names) in explicit {
            let isPlural = explicitPhrases.contains { other in
                other != words && other.count == words.count && Self.pluralized(other, lexicon) == words
            }
            add(words, .type(names, plural: isPlural))
            let plural = Self.pluralized(words, lexicon)
            if explicit[plural] == nil { add(plural, .type(names, plural: true)) }
        }
    }

    /// Adds a name and its plural.
    private mutating func addName(_ key: [String], _ entity: Entity, lexicon: Lexicon) {
        guard !key.isEmpty else { return }
        add(key, .entity(entity, plural: false))
        add(Self.pluralized(key, lexicon), .entity(entity, plural: true))
    }

    /// Adds one meaning of a phrase.
    private mutating func add(_ phrase: [String], _ meaning: Meaning) {
        guard !phrase.isEmpty else { return }
        if phrases[phrase, default: []].contains(meaning) { return }
        phrases[phrase, default: []].append(meaning)
        longestPhrase = max(longestPhrase, phrase.count)
    }

    /// `words` with the last word in the plural.
    static func pluralized(_ words: [String], _ lexicon: Lexicon) -> [String] {
        guard let last = words.last, last.first?.isLetter == true else { return words }
        return words.dropLast() + [lexicon.plural(of: last)]
    }

    /// `name` without the words of `room` at its start or end, or `nil` when they are not there or nothing is left.
    static func removing(_ room: [String], from name: [String]) -> [String]? {
        guard !room.isEmpty, name.count > room.count else { return nil }
        if Array(name.prefix(room.count)) == room { return Array(name.dropFirst(room.count)) }
        if Array(name.suffix(room.count)) == room { return Array(name.dropLast(room.count)) }
        return nil
    }

    /// The meanings of the longest phrase starting at `start`, and its length; `nil` when no phrase starts there.
    func longestMatch(in words: [String], at start: Int) -> (length: Int, meanings: [Meaning])? {
        var length = min(longestPhrase, words.count - start)
        while length > 0 {
            if let meanings = phrases[Array(words[start..<start + length])] { return (length, meanings) }
            length -= 1
        }
        return nil
    }
}
