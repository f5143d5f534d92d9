import Foundation
import HomeGraph

/// One target phrase of a sentence: a tag that names things, with every reading it has.
struct TargetItem: Sendable {
    /// The tag.
    var tag: Tag
    /// Whether it was said in the plural or with "all"/"every".
    var plural: Bool
}

/// The places and things a sentence is about, before they are resolved against the home.
struct TargetSpec: Sendable {
    /// The things named, in order; "and" separates them.
    var items: [TargetItem] = []
    /// Rooms named as places.
    var rooms: [UUID] = []
    /// Zones named as places (indices in the home).
    var zones: [Int] = []
    /// "everywhere", "all", "everything": the whole home.
    var wholeHome = false
    /// "in here": the speaker's room.
    var here = false
    /// "all", "any", "everything", "anything".
    var quantifier: String?

    /// Whether nothing was said about places or things.
    var isEmpty: Bool { items.isEmpty && rooms.isEmpty && zones.isEmpty && !wholeHome && !here }
}

/// What a target phrase came to.
enum Resolution: Sendable {
    /// These services (entries of the index).
    case services([Int])
    /// Several things fit a name said in the singular.
    case ambiguous([CommandCandidate])
    /// Nothing fits; the sentence says what was looked for.
    case nothing(String)
}

/// Resolves target phrases to services of the home.
struct TargetResolver {
    /// The home's index.
    let index: NameIndex
    /// The home as indexed.
    let home: Home
    /// The speaker's room, when known.
    let contextRoom: UUID?
    /// The lexicon, for messages.
    let lexicon: Lexicon

    /// The services `spec` means among those `fits` accepts; `explicit` accepts more when a service was named or
    /// typed rather than found by place (a thermostat for "turn off the heating", not for "turn off the bedroom").
    func resolve(
        _ spec: TargetSpec,
        fits: (_ entry: Int, _ explicit: Bool) -> Bool
    ) -> Resolution {
        let placeRooms = rooms(of: spec)
        var found: [Int] = []
        var seen = Set<Int>()
        func take(_ entries: [Int]) {
            for entry in entries where seen.insert(entry).inserted { found.append(entry) }
        }
        if spec.items.isEmpty {
            let quantified = spec.quantifier != nil || spec.wholeHome
            let scope = placeRooms ?? (quantified ? nil : contextRoom.map { Set([$0]) })
            let entries = index.services.indices.filter { entry in
                let service = index.services[entry]
                return (scope?.contains(service.roomID) ?? true) && fits(entry, false)
            }
            if scope == nil, !quantified, entries.count > 1 { return .ambiguous(candidates(entries)) }
            take(entries)
        }
        for item in spec.items {
            switch resolve(item, placeRooms: placeRooms, quantified: spec.quantifier != nil, fits: fits) {
            case .services(let entries): take(entries)
            case .ambiguous(let candidates): return .ambiguous(candidates)
            case .nothing(let message): return .nothing(message)
            }
        }
        if found.isEmpty { return .nothing(nothingMessage(spec, placeRooms)) }
        return .services(found)
    }

    /// One target phrase: a name beats the rest of a name in its room, which beats a type, which beats a plural
    /// name.
    private func resolve(
        _ item: TargetItem,
        placeRooms: Set<UUID>?,
        quantified: Bool,
        fits: (Int, Bool) -> Bool
    ) -> Resolution {
        var names: [Entity] = []
        var aliases: [(accessory: Int, room: UUID)] = []
        var pluralNames: [Entity] = []
        var types: [String] = []
        for meaning in item.tag.meanings {
            switch meaning {
            case .entity(.alias(let accessory, let room), let plural):
                if !plural || item.plural { aliases.append((accessory, room)) }
            case .entity(let entity, plural: false): names.append(entity)
            case .entity(let entity, plural: true): pluralNames.append(entity)
            case .type(let names, _): types += names
            default: break
            }
        }
        var unfit: String?
        if !names.isEmpty, !item.plural || types.isEmpty {
            let named = names.flatMap(entries(of:))
            if !named.isEmpty, let first = names.first { unfit = name(of: first) }
            let entries = named.filter { entry in
                (placeRooms?.contains(index.services[entry].roomID) ?? true) && fits(entry, true)
            }
            if !entries.isEmpty { return .services(entries) }
        }
        if !aliases.isEmpty, !(item.plural && !types.isEmpty) {
            let scope = placeRooms ?? contextRoom.map { Set([$0]) }
            let scoped = aliases.filter { scope?.contains($0.room) ?? true }
            let accessories = Array(Set(scoped.map(\.accessory))).sorted()
            let entries = accessories.map { index.servicesOfAccessory[$0].filter { fits($0, true) } }
                .filter { !$0.isEmpty }
            if entries.count == 1 || (item.plural && !entries.isEmpty) { return .services(entries.flatMap { $0 }) }
            if entries.count > 1 { return .ambiguous(candidates(entries.flatMap { $0 })) }
        }
        if !types.isEmpty {
            let typeSet = Set(types)
            let plural = item.plural || quantified
            let all = index.services.indices.filter { entry in
                typeSet.contains(index.services[entry].typeName) && fits(entry, true)
            }
            var scope = placeRooms
            // A singular type with no place: the speaker's room when it has one ("turn off the light" in the
            // kitchen); a plural one means the whole home.
            if scope == nil, !plural, let contextRoom,
                all.contains(where: { index.services[$0].roomID == contextRoom })
            {
                scope = [contextRoom]
            }
            let entries = all.filter { scope?.contains(index.services[$0].roomID) ?? true }
            if !plural, Set(entries.map { index.services[$0].accessory }).count > 1 {
                return .ambiguous(candidates(entries))
            }
            if !entries.isEmpty { return .services(entries) }
        }
        let entries = pluralNames.flatMap(entries(of:)).filter { fits($0, true) }
        if !entries.isEmpty { return .services(entries) }
        if let unfit { return .nothing(lexicon.message("cannot", ["name": unfit])) }
        return .nothing(
            lexicon.message("nothingThere", ["what": "called '\(item.tag.text)'", "where": whereText(placeRooms)])
        )
    }

    /// The name of a named thing.
    private func name(of entity: Entity) -> String {
        switch entity {
        case .accessory(let accessory), .alias(let accessory, _): home.accessories[accessory].name
        case .service(let entry):
            home.accessories[index.services[entry].accessory].services[index.services[entry].service].name
        case .group(let group): home.serviceGroups[group].name
        case .scene(let scene): home.actionSets[scene].name
        }
    }

    /// The entries a named thing stands for.
    private func entries(of entity: Entity) -> [Int] {
        switch entity {
        case .accessory(let accessory), .alias(let accessory, _): index.servicesOfAccessory[accessory]
        case .service(let entry): [entry]
        case .group(let group): home.serviceGroups[group].serviceIDs.compactMap { index.serviceByID[$0] }
        case .scene: []
        }
    }

    /// The rooms the places of `spec` cover, or `nil` for no place (the whole home).
    private func rooms(of spec: TargetSpec) -> Set<UUID>? {
        if spec.rooms.isEmpty, spec.zones.isEmpty, !spec.here { return nil }
        var rooms = Set(spec.rooms)
        for zone in spec.zones { rooms.formUnion(home.zones[zone].roomIDs) }
        if spec.here, let contextRoom { rooms.insert(contextRoom) }
        return rooms
    }

    /// "in the Kitchen", "upstairs", or "in the home".
    private func whereText(_ rooms: Set<UUID>?) -> String {
        guard let rooms, !rooms.isEmpty else { return "in the home" }
        let names = rooms.compactMap { index.roomNames[$0] }.sorted()
        return "in " + Phrases.list(names)
    }

    /// The sentence for a phrase that found nothing.
    private func nothingMessage(_ spec: TargetSpec, _ rooms: Set<UUID>?) -> String {
        let what = spec.items.map(\.tag.text).joined(separator: " and ")
        return lexicon.message(
            "nothingThere",
            ["what": what.isEmpty ? "to do that with" : "like '\(what)'", "where": whereText(rooms)]
        )
    }

    /// Candidates for a question back: one per accessory.
    func candidates(_ entries: [Int]) -> [CommandCandidate] {
        var seen = Set<Int>()
        var candidates: [CommandCandidate] = []
        for entry in entries {
            let service = index.services[entry]
            guard seen.insert(service.accessory).inserted else { continue }
            let accessory = home.accessories[service.accessory]
            candidates.append(
                CommandCandidate(
                    kind: "accessory",
                    id: accessory.id,
                    name: accessory.name,
                    room: index.roomNames[accessory.roomID]
                )
            )
        }
        return candidates
    }
}

/// Small helpers for sentences.
enum Phrases {
    /// "A", "A and B", "A, B and C".
    static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: ""
        case 1: items[0]
        default: items.dropLast().joined(separator: ", ") + " and " + (items.last ?? "")
        }
    }
}
