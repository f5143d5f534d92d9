import Foundation

/// How names are normalised, checked, cleaned and compared.
///
/// A name is normalised (NFC, trimmed, each run of white space one space) and then must have something visible,
/// no control characters (C0, DEL, C1), no bidirectional override or isolate characters, and at most
/// ``maximumLength`` characters. Two names clash when they are equal without case, accents and invisible
/// (default-ignorable) characters such as U+200B, so `Dup\u{200B} Room` clashes with `Dup Room`.
public enum Names {
    /// The most characters (grapheme clusters) a name may have: HAP's default maximum length for strings.
    public static let maximumLength = 64
    /// The most Unicode code points a name may have: sixteen a character (room for 64 emoji family sequences with
    /// skin tones), so that one character cannot carry a hundred thousand combining marks.
    public static let maximumCodePoints = 16 * maximumLength

    /// `name` in Unicode NFC, trimmed, with each run of white space (tabs and new lines too) one space.
    public static func normalized(_ name: String) -> String {
        if isPlainASCII(name) { return name }
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in name.precomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                result.append(" ")
                pendingSpace = false
            }
            result.append(scalar)
        }
        return String(result)
    }

    /// The first rule the normalised `name` breaks, or `nil` when it may be used.
    public static func problem(with name: String) -> NameProblem? {
        if isPlainASCII(name) {
            return name.isEmpty ? .nothingVisible : name.utf8.count > maximumLength ? .tooLong(name.utf8.count) : nil
        }
        var hasVisible = false
        for scalar in name.unicodeScalars {
            if isControl(scalar) { return .controlCharacter(scalar.value) }
            if isBidiControl(scalar) { return .bidiControl(scalar.value) }
            if !hasVisible, isVisible(scalar) { hasVisible = true }
        }
        guard hasVisible else { return .nothingVisible }
        let count = name.count
        if count > maximumLength { return .tooLong(count) }
        let codePoints = name.unicodeScalars.count
        return codePoints > maximumCodePoints ? .tooManyCodePoints(codePoints) : nil
    }

    /// The normalised `name`, or the error naming the first rule it breaks.
    public static func validated(_ name: String) throws(HomeGraphError) -> String {
        let normalized = normalized(name)
        if let problem = problem(with: normalized) { throw .invalidName(name, problem) }
        return normalized
    }

    /// A name made from text an accessory gave, or `nil` when nothing visible is left in it.
    ///
    /// Control and bidirectional control characters are dropped, the rest normalised and cut to
    /// ``maximumLength`` characters. The result always passes ``validated(_:)``: an accessory's name is outside our
    /// control, so it is cleaned, never refused.
    public static func cleaned(_ text: String) -> String? {
        var kept = String.UnicodeScalarView()
        for scalar in normalized(text).unicodeScalars where !isControl(scalar) && !isBidiControl(scalar) {
            kept.append(scalar)
        }
        var name = normalized(String(kept))
        if name.count > maximumLength { name = normalized(String(name.prefix(maximumLength))) }
        if name.unicodeScalars.count > maximumCodePoints {
            var cut = String.UnicodeScalarView()
            cut.append(contentsOf: name.unicodeScalars.prefix(maximumCodePoints))
            name = normalized(String(cut))
        }
        return problem(with: name) == nil ? name : nil
    }

    /// `base` with `number` after it ("Lamp 2"), `base` cut short when needed to stay within ``maximumLength``.
    public static func numbered(_ base: String, _ number: Int) -> String {
        let suffix = " \(number)"
        let room = max(maximumLength - suffix.count, 1)
        let cut = base.count > room ? String(base.prefix(room)) : base
        return normalized(cut + suffix)
    }

    /// The form two normalised names are compared in: "Küche", "kuche" and "Ku\u{200B}che" give the same key.
    ///
    /// Stored names are already normalised, so this does not normalise again: that is most of the cost of a rename.
    static func key(_ name: String) -> String {
        // ASCII has no accents, so folding is lower-casing; Swift does that far faster than Foundation folds.
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return name.lowercased() }
        var visible = String.UnicodeScalarView()
        for scalar in name.unicodeScalars where !scalar.properties.isDefaultIgnorableCodePoint {
            visible.append(scalar)
        }
        // Normalised again: an invisible character between two spaces, or at an end, leaves spaces to collapse.
        return normalized(String(visible)).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    // MARK: Characters

    /// Printable ASCII with single inner spaces and none at the ends: already normalised, and every rule but the
    /// length holds.
    private static func isPlainASCII(_ name: String) -> Bool {
        var previousWasSpace = true
        for byte in name.utf8 {
            if byte == 0x20 {
                if previousWasSpace { return false }
                previousWasSpace = true
            } else if byte > 0x20 && byte < 0x7F {
                previousWasSpace = false
            } else {
                return false
            }
        }
        return !previousWasSpace || name.isEmpty
    }

    /// C0 controls, DEL and C1 controls (general category Cc).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }

    /// The bidirectional embedding, override and isolate characters: U+202A–U+202E and U+2066–U+2069.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// Whether the character leaves a mark: not white space, a control, a format or a default-ignorable character.
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isWhitespace || properties.isDefaultIgnorableCodePoint { return false }
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator: return false
        default: return true
        }
    }
}

/// The naming rule a name breaks; see ``Names``.
public enum NameProblem: Error, Equatable, Sendable {
    /// Nothing visible: empty, white space, or only invisible characters such as U+200B.
    case nothingVisible
    /// More than ``Names/maximumLength`` characters; carries how many.
    case tooLong(Int)
    /// More than ``Names/maximumCodePoints`` code points (characters heavy with combining marks); carries how many.
    case tooManyCodePoints(Int)
    /// A control character (C0, DEL or C1); carries its code point.
    case controlCharacter(UInt32)
    /// A bidirectional embedding, override or isolate character; carries its code point.
    case bidiControl(UInt32)

    /// The rule as a sentence for people, without a full stop.
    public var sentence: String {
        switch self {
        case .nothingVisible:
            "A name must have at least one visible character"
        case .tooLong(let count):
            "A name can be at most \(Names.maximumLength) characters (got \(count))"
        case .tooManyCodePoints(let count):
            "A name can hold at most \(Names.maximumCodePoints) Unicode code points, accents and marks included (got \(count))"
        case .controlCharacter(let value):
            "A name cannot contain control characters (found \(Self.codePoint(value)))"
        case .bidiControl(let value):
            "A name cannot contain bidirectional override or isolate characters (found \(Self.codePoint(value)))"
        }
    }

    /// `U+001B` for 0x1B.
    private static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

/// How strictly an operation's names are checked.
enum NameCheck {
    /// A new write: every rule holds, and names that must be unique are.
    case strict
    /// An operation replayed from a store's log: it was accepted when written, and the rules may have tightened
    /// since, so names are normalised as a new write's are but never refused.
    case replay

    /// The name as it is stored: normalised, and checked when strict.
    func accepted(_ name: String) throws(HomeGraphError) -> String {
        switch self {
        case .strict:
            return try Names.validated(name)
        case .replay:
            let normalized = Names.normalized(name)
            return normalized.isEmpty ? name : normalized
        }
    }
}

extension Home {
    /// Every object whose name must be unique in the home, with its name: rooms, zones, accessories, the services
    /// people see (not hidden ones, ``Service/isHiddenFromPeople``), service groups, action sets and triggers.
    var uniquelyNamedObjects: [(reference: ObjectReference, name: String)] {
        var objects = allRooms.map { (reference: ObjectReference(.room, $0.id), name: $0.name) }
        objects += zones.map { (ObjectReference(.zone, $0.id), $0.name) }
        for accessory in accessories {
            objects.append((ObjectReference(.accessory, accessory.id), accessory.name))
            for service in accessory.services where !service.isHiddenFromPeople {
                objects.append((ObjectReference(.service, service.id), service.name))
            }
        }
        objects += serviceGroups.map { (ObjectReference(.serviceGroup, $0.id), $0.name) }
        objects += actionSets.map { (ObjectReference(.actionSet, $0.id), $0.name) }
        objects += triggers.map { (ObjectReference(.trigger, $0.id), $0.name) }
        return objects
    }

    /// The names and ids of the home's objects, from the cache or built now and cached.
    mutating func currentNameIndex() -> NameIndex {
        if let index = nameIndex.index { return index }
        var index = NameIndex()
        for object in uniquelyNamedObjects { index.keys[Names.key(object.name), default: 0] += 1 }
        index.ids.insert(roomForEntireHome.id)
        for room in rooms { index.ids.insert(room.id) }
        for zone in zones { index.ids.insert(zone.id) }
        for accessory in accessories {
            index.ids.insert(accessory.id)
            for service in accessory.services {
                index.ids.insert(service.id)
                for characteristic in service.characteristics { index.ids.insert(characteristic.id) }
            }
        }
        for group in serviceGroups { index.ids.insert(group.id) }
        for actionSet in actionSets { index.ids.insert(actionSet.id) }
        for trigger in triggers { index.ids.insert(trigger.id) }
        for user in users { index.ids.insert(user.id) }
        nameIndex.index = index
        return index
    }

    /// Whether `id` may be the id of the home or one of its objects: `false` means it is not, in constant time.
    mutating func mayHaveObject(withID id: UUID) -> Bool {
        id == self.id || currentNameIndex().ids.contains(id)
    }

    /// ``uniqueName(_:for:partners:_:)`` and ``checkNewID(_:)`` for a new object, in constant time when neither its
    /// name nor its id is taken (the index answers); the full scan only finds the one to name in the error.
    mutating func uniqueNameOfNewObject(_ name: String, id: UUID, _ check: NameCheck) throws(HomeGraphError) -> String {
        if mayHaveObject(withID: id) { try checkNewID(id) }
        let index = currentNameIndex()
        let accepted = try check.accepted(name)
        guard check == .strict, index.keys[Names.key(accepted)] != nil else { return accepted }
        return try uniqueName(name, for: id, check)
    }

    /// The normalised `name` when no object but `owner` and its `partners` has it already, or the error naming the
    /// one that does.
    ///
    /// Partners may share a name: an accessory and its own services ("Desk Lamp" and its Lightbulb "Desk Lamp").
    /// A replayed operation is not checked: the log may hold names that clash only under today's rules.
    func uniqueName(
        _ name: String,
        for owner: UUID,
        partners: Set<UUID> = [],
        _ check: NameCheck
    ) throws(HomeGraphError) -> String {
        let accepted = try check.accepted(name)
        guard check == .strict else { return accepted }
        let key = Names.key(accepted)
        for (reference, existing) in uniquelyNamedObjects
        where reference.id != owner && !partners.contains(reference.id) && Names.key(existing) == key {
            throw .nameTaken(name: accepted, existing: reference)
        }
        return accepted
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

/// The keys of the names that must be unique in a home (with how many objects have each) and every object id.
struct NameIndex: Sendable {
    /// ``Names/key(_:)`` of each uniquely named object's name, and how many objects have it.
    var keys: [String: Int] = [:]
    /// The ids of every room, zone, accessory, service, characteristic, group, scene, trigger and user.
    var ids: Set<UUID> = []

    /// Adds a new object's name and id.
    mutating func insert(name: String, id: UUID) {
        keys[Names.key(name), default: 0] += 1
        ids.insert(id)
    }
}

/// A ``NameIndex`` kept with a home: equal to any other and never encoded, as it only repeats the home's contents.
struct NameIndexCache: Sendable, Equatable {
    /// The index, `nil` when it must be built again.
    var index: NameIndex?

    /// Forgets the index after a change it does not follow.
    mutating func clear() { index = nil }

    static func == (lhs: Self, rhs: Self) -> Bool { true }
}

/// Trigger positions by id: a cache that never counts in a home's equality.
struct TriggerPositionCache: Sendable, Equatable {
    /// Trigger id → position in `Home.triggers`; may be stale, so every answer is checked against the array.
    var positions: [UUID: Int] = [:]

    static func == (lhs: Self, rhs: Self) -> Bool { true }
}
