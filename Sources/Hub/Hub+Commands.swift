import Commands
import Foundation
import HAPTypes
import HomeGraph

/// The plain-language engine of each home, kept while the home's structure (names, rooms, zones, accessories,
/// services, groups, scenes) stays as it was: values, reachability and trigger states do not rebuild it.
struct CommandEngines {
    /// Per home, a number that grows with every change of its structure.
    private var versions: [UUID: UInt64] = [:]
    /// Per home, the engine and the structure version it was built from.
    private var engines: [UUID: (version: UInt64, engine: CommandEngine)] = [:]
    /// How many engines (name indexes) were built since the hub started.
    private(set) var builds = 0

    /// Notes the structure changes among `events`: their homes' engines are rebuilt when next asked for.
    mutating func follow(_ events: [HomeEvent]) {
        for event in events {
            switch event.change {
            case .characteristicValueChanged, .accessoryReachabilityChanged, .triggerStateChanged,
                .characteristicNotificationsChanged, .userPresenceChanged:
                continue
            case .homeRemoved:
                versions[event.homeID] = nil
                engines[event.homeID] = nil
            default:
                versions[event.homeID, default: 0] += 1
            }
        }
    }

    /// Forgets every engine (the graph was read back from disk).
    mutating func forgetAll() {
        engines = [:]
    }

    /// The engine of `home`, built now when its structure changed since the last one was.
    mutating func engine(for home: Home) throws(HubError) -> CommandEngine {
        let version = versions[home.id, default: 0]
        if let cached = engines[home.id], cached.version == version { return cached.engine }
        let catalog: TypeCatalog
        do { catalog = try TypeCatalog.shared() } catch { throw .internalError("the type catalog could not be read") }
        let engine = CommandEngine(home: home, catalog: catalog)
        engines[home.id] = (version, engine)
        builds += 1
        return engine
    }
}

/// Plain language: a sentence read against a home with the caller's rights, and carried out.
extension Hub {
    /// The most characters (Unicode scalars) a sentence may have.
    public static let maximumCommandLength = 1000

    /// How many name indexes the hub has built since it started: one per home and version of its structure.
    public var commandIndexBuilds: Int { commandEngines.builds }

    /// Reads `text` against the home `homeID` as `caller` (their role; `room` is the speaker's room, a room of the
    /// home) and, unless `dryRun`, carries it out: writes for control, the scene, the configuration change.
    ///
    /// A refusal of the hub (a shared user asking for a configuration change) is the outcome `notPermitted`, not
    /// an error; writes that fail are reported in `results` and the message.
    public func perform(
        command text: String,
        home homeID: UUID,
        room: String?,
        dryRun: Bool,
        as caller: HubCaller
    ) async throws(HubError) -> CommandResult {
        guard !isStopped else { throw .stopped }
        try Self.validateCommand(text)
        guard let role = currentGraph.role(of: caller, inHome: homeID), let home = currentGraph.home(withID: homeID)
        else { throw .homeNotFound(homeID) }
        let roomName = try Self.commandRoom(room, in: home)
        let engine = try commandEngines.engine(for: home)
        var result = engine.interpret(text, context: CommandContext(room: roomName, role: role), home: home)
        result.dryRun = dryRun
        guard !dryRun else { return result }
        do throws(HubError) {
            switch result.outcome {
            case .control:
                try await carryOutControl(&result, home: homeID, as: caller)
            case .scene:
                try await carryOutScene(&result, home: homeID, as: caller)
            case .configure:
                try await carryOutConfiguration(&result, home: homeID, as: caller)
            case .query, .ambiguous, .notUnderstood, .notPermitted, .invalidValue:
                break
            }
        } catch {
            switch error {
            case .notPermitted(let reason):
                result.outcome = .notPermitted
                result.message = "Not permitted: \(reason)."
            case .rejected where result.outcome == .configure:
                // A new name the home refuses (taken, invalid): the sentence's value, not the request, is wrong.
                result.outcome = .invalidValue
                result.message = error.sentence.prefix(1).uppercased() + error.sentence.dropFirst() + "."
            default:
                throw error
            }
            result.results = nil
        }
        return result
    }

    /// Throws unless `text` is a sentence to read: not blank, not too long, no control characters.
    static func validateCommand(_ text: String) throws(HubError) {
        guard text.unicodeScalars.count <= maximumCommandLength else {
            throw .invalidRequest("field 'text' must be at most \(maximumCommandLength) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidRequest("field 'text' must not contain control characters (new lines, tabs and the like)")
        }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalidRequest("field 'text' must not be empty")
        }
    }

    /// The name of the room `room` names in `home` (any case, with or without accents), `nil` for none.
    static func commandRoom(_ room: String?, in home: Home) throws(HubError) -> String? {
        guard let room else { return nil }
        let rooms = home.allRooms.map(\.name)
        let said = Names.normalized(room)
        let fits = { (name: String) in
            name.compare(said, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
        }
        if said.unicodeScalars.count <= Names.maximumCodePoints, let name = rooms.first(where: fits) { return name }
        throw .invalidRequest(
            "field 'room' must be the name of a room of the home: \(rooms.map { "'\($0)'" }.joined(separator: ", "))"
        )
    }

    /// Writes the actions of a control result and records each write's outcome.
    private func carryOutControl(
        _ result: inout CommandResult,
        home homeID: UUID,
        as caller: HubCaller
    )
        async throws(HubError)
    {
        let actions = result.actions ?? []
        var writes: [(characteristic: UUID, value: HAPValue)] = []
        var written = Set<UUID>()
        for action in actions where written.insert(action.characteristicID).inserted {
            if let target = action.target { writes.append((action.characteristicID, target)) }
        }
        let outcomes =
            writes.isEmpty ? [:] : try await writeCharacteristics(home: homeID, writes, as: caller)
        var results: [CommandActionResult] = []
        var failures: [String] = []
        for action in actions {
            guard action.target != nil else {
                results.append(
                    CommandActionResult(
                        characteristicID: action.characteristicID,
                        ok: false,
                        error: "the current \(action.characteristic) of \(action.accessoryName) is not known, "
                            + "so it cannot be changed by an amount"
                    )
                )
                failures.append("\(action.accessoryName) has no known \(action.characteristic)")
                continue
            }
            let outcome = outcomes[action.characteristicID] ?? .failure(.internalError("the write was not sent"))
            let (entry, failure) = Self.actionResult(action.characteristicID, outcome, name: action.accessoryName)
            results.append(entry)
            if let failure { failures.append(failure) }
        }
        result.results = results
        Self.report(failures, of: results.count, in: &result)
    }

    /// Runs the scene of a scene result and records each write's outcome, in the order of the scene's actions.
    private func carryOutScene(
        _ result: inout CommandResult,
        home homeID: UUID,
        as caller: HubCaller
    )
        async throws(HubError)
    {
        guard let scene = result.scene else { return }
        let outcomes = try await runActionSet(home: homeID, actionSet: scene.id, as: caller)
        let actions = currentGraph.home(withID: homeID)?.actionSets.first { $0.id == scene.id }?.actions ?? []
        var results: [CommandActionResult] = []
        var failures: [String] = []
        for action in actions {
            guard let outcome = outcomes[action.characteristicID] else { continue }
            let name = (try? currentGraph.characteristic(withID: action.characteristicID, inHome: homeID))?
                .accessory.name
            let (entry, failure) = Self.actionResult(action.characteristicID, outcome, name: name ?? "an accessory")
            results.append(entry)
            if let failure { failures.append(failure) }
        }
        result.results = results
        Self.report(failures, of: results.count, in: &result)
    }

    /// Makes the configuration change of a configure result, with the caller's rights.
    private func carryOutConfiguration(
        _ result: inout CommandResult,
        home homeID: UUID,
        as caller: HubCaller
    )
        async throws(HubError)
    {
        guard let change = result.configuration else { return }
        let operation: HomeOperation
        switch (change.change, change.kind, change.newName, change.roomID) {
        case ("rename", "accessory", let name?, _):
            operation = .renameAccessory(home: homeID, accessory: change.id, name: name)
        case ("rename", "room", let name?, _): operation = .renameRoom(home: homeID, room: change.id, name: name)
        case ("rename", "zone", let name?, _): operation = .renameZone(home: homeID, zone: change.id, name: name)
        case ("rename", "service", let name?, _):
            operation = .renameService(home: homeID, service: change.id, name: name)
        case ("rename", "serviceGroup", let name?, _):
            operation = .renameServiceGroup(home: homeID, group: change.id, name: name)
        case ("rename", "actionSet", let name?, _):
            operation = .renameActionSet(home: homeID, actionSet: change.id, name: name)
        case ("move", "accessory", _, let room?):
            operation = .moveAccessory(home: homeID, accessory: change.id, room: room)
        default:
            throw .internalError("the hub cannot carry out a '\(change.change)' of a \(change.kind)")
        }
        try await perform(operation, as: caller)
    }

    /// The result of one write, and the sentence of its failure if it failed.
    private static func actionResult(
        _ characteristic: UUID,
        _ outcome: Result<HAPValue, HubError>,
        name: String
    ) -> (CommandActionResult, String?) {
        switch outcome {
        case .success(let value):
            return (CommandActionResult(characteristicID: characteristic, ok: true, value: value), nil)
        case .failure(let error):
            let failure: String
            switch error {
            case .accessory, .accessoryNotFound, .stopped: failure = "\(name) did not answer"
            default: failure = "\(name) refused: \(error.sentence)"
            }
            return (CommandActionResult(characteristicID: characteristic, ok: false, error: error.sentence), failure)
        }
    }

    /// Says in the result's message which of `count` writes failed, when some did.
    private static func report(_ failures: [String], of count: Int, in result: inout CommandResult) {
        guard !failures.isEmpty else { return }
        var unique: [String] = []
        var seen = Set<String>()
        for failure in failures where seen.insert(failure).inserted { unique.append(failure) }
        let done = count - failures.count
        let reasons = unique.joined(separator: "; ")
        result.message =
            done == 0
            ? "Nothing was changed: \(reasons)." : "Only \(done) of \(count) changes were made: \(reasons)."
    }
}
