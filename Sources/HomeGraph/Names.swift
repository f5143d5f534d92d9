import Foundation

/// How names are checked and compared: trimmed, then without case or accents.
enum Names {
    /// The name with white space trimmed from both ends, or an error when nothing is left.
    static func trimmed(_ name: String) throws(HomeGraphError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidName(name) }
        return trimmed
    }

    /// The form two trimmed names are compared in: "Küche" and "kuche" give the same key.
    ///
    /// Stored names are already trimmed, so this does not trim again: trimming is most of the cost of a rename.
    static func key(_ trimmed: String) -> String {
        // ASCII has no accents, so folding is lower-casing; Swift does that far faster than Foundation folds.
        if trimmed.utf8.allSatisfy({ $0 < 0x80 }) { return trimmed.lowercased() }
        return trimmed.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}

extension Home {
    /// Every object whose name must be unique in the home, with its name.
    var uniquelyNamedObjects: [(reference: ObjectReference, name: String)] {
        var objects = allRooms.map { (reference: ObjectReference(.room, $0.id), name: $0.name) }
        objects += zones.map { (ObjectReference(.zone, $0.id), $0.name) }
        objects += accessories.map { (ObjectReference(.accessory, $0.id), $0.name) }
        objects += serviceGroups.map { (ObjectReference(.serviceGroup, $0.id), $0.name) }
        objects += actionSets.map { (ObjectReference(.actionSet, $0.id), $0.name) }
        objects += triggers.map { (ObjectReference(.trigger, $0.id), $0.name) }
        return objects
    }

    /// The trimmed `name` when no object but `owner` has it already, or the error naming the one that does.
    func uniqueName(_ name: String, for owner: UUID) throws(HomeGraphError) -> String {
        let trimmed = try Names.trimmed(name)
        let key = Names.key(trimmed)
        for (reference, existing) in uniquelyNamedObjects where reference.id != owner && Names.key(existing) == key {
            throw .nameTaken(name: trimmed, existing: reference)
        }
        return trimmed
    }

    /// The kind of the object with `id` anywhere in the home, the home itself included.
    func kindOfObject(withID id: UUID) -> ObjectKind? {
        if id == self.id { return .home }
        if allRooms.contains(where: { $0.id == id }) { return .room }
        if zones.contains(where: { $0.id == id }) { return .zone }
        for accessoryIndex in accessories.indices {
            if accessories[accessoryIndex].id == id { return .accessory }
            for service in accessories[accessoryIndex].services {
                if service.id == id { return .service }
                if service.characteristics.contains(where: { $0.id == id }) { return .characteristic }
            }
        }
        if serviceGroups.contains(where: { $0.id == id }) { return .serviceGroup }
        if actionSets.contains(where: { $0.id == id }) { return .actionSet }
        if triggers.contains(where: { $0.id == id }) { return .trigger }
        if users.contains(where: { $0.id == id }) { return .user }
        return nil
    }

    /// Throws when `id` is already the id of an object of the home.
    func checkNewID(_ id: UUID) throws(HomeGraphError) {
        if let kind = kindOfObject(withID: id) { throw .idTaken(ObjectReference(kind, id)) }
    }
}
