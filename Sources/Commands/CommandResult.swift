import Foundation
import HAPTypes

/// What a sentence turned out to be; the `outcome` field of a ``CommandResult``.
public enum CommandOutcome: String, Sendable, Equatable, Codable, CaseIterable {
    /// Writes to characteristics: ``CommandResult/actions``.
    case control
    /// A question answered from the home's current values: ``CommandResult/query``.
    case query
    /// A scene to run: ``CommandResult/scene``.
    case scene
    /// A change to the home's configuration (rename, move): ``CommandResult/configuration``.
    case configure
    /// A name that matches several things: ``CommandResult/candidates``; nothing is done.
    case ambiguous
    /// A sentence the engine does not understand, or one outside the home's control; nothing is done.
    case notUnderstood
    /// Something the speaker may not do (a shared user asking for a configuration change); nothing is done.
    case notPermitted
    /// A value outside what the characteristic accepts; nothing is done, nothing is clamped.
    case invalidValue
}

/// One service a sentence is about, as the JSON names it.
public struct CommandTarget: Sendable, Equatable, Codable {
    /// The accessory's id.
    public var accessoryID: UUID
    /// The accessory's name.
    public var accessoryName: String
    /// The service's id.
    public var serviceID: UUID
    /// The service's name.
    public var serviceName: String
    /// The catalog's name of the service's type, such as `lightbulb` or `lockMechanism`.
    public var serviceType: String
    /// The name of the accessory's room.
    public var room: String
    /// The characteristic's current value, in a query's targets.
    public var value: HAPValue?

    /// Makes a target.
    public init(
        accessoryID: UUID,
        accessoryName: String,
        serviceID: UUID,
        serviceName: String,
        serviceType: String,
        room: String,
        value: HAPValue? = nil
    ) {
        self.accessoryID = accessoryID
        self.accessoryName = accessoryName
        self.serviceID = serviceID
        self.serviceName = serviceName
        self.serviceType = serviceType
        self.room = room
        self.value = value
    }
}

/// One write a control sentence asks for.
public struct CommandAction: Sendable, Equatable, Codable {
    /// The accessory's id.
    public var accessoryID: UUID
    /// The accessory's name.
    public var accessoryName: String
    /// The service's id.
    public var serviceID: UUID
    /// The service's name.
    public var serviceName: String
    /// The catalog's name of the service's type.
    public var serviceType: String
    /// The name of the accessory's room.
    public var room: String
    /// The catalog's name of the characteristic, as `hearth accessory get` prints it (`on`, `brightness`).
    public var characteristic: String
    /// The characteristic's id in the home.
    public var characteristicID: UUID
    /// The HAP value said: the value to write, or the change when ``relative`` (degrees Celsius for temperatures).
    public var value: HAPValue
    /// Whether ``value`` is a change from the current value rather than the value itself.
    public var relative: Bool
    /// The value that is written: ``value`` itself, or the current value changed by it and kept within the
    /// characteristic's limits; `nil` for a change when the current value is unknown.
    public var target: HAPValue?

    /// Makes an action on the service of `target` (its value is not used).
    public init(
        _ target: CommandTarget,
        characteristic: String,
        characteristicID: UUID,
        value: HAPValue,
        relative: Bool,
        target written: HAPValue?
    ) {
        self.init(
            accessoryID: target.accessoryID,
            accessoryName: target.accessoryName,
            serviceID: target.serviceID,
            serviceName: target.serviceName,
            serviceType: target.serviceType,
            room: target.room,
            characteristic: characteristic,
            characteristicID: characteristicID,
            value: value,
            relative: relative,
            target: written
        )
    }

    /// Makes an action.
    public init(
        accessoryID: UUID,
        accessoryName: String,
        serviceID: UUID,
        serviceName: String,
        serviceType: String,
        room: String,
        characteristic: String,
        characteristicID: UUID,
        value: HAPValue,
        relative: Bool,
        target: HAPValue?
    ) {
        self.accessoryID = accessoryID
        self.accessoryName = accessoryName
        self.serviceID = serviceID
        self.serviceName = serviceName
        self.serviceType = serviceType
        self.room = room
        self.characteristic = characteristic
        self.characteristicID = characteristicID
        self.value = value
        self.relative = relative
        self.target = target
    }
}

/// What kind of question a query is.
public enum QueryKind: String, Sendable, Equatable, Codable, CaseIterable {
    /// The value of one thing, or of each thing named ("is the front door locked?", "what's the temperature?").
    case state
    /// Which of the things have a state ("which lights are on?").
    case which
    /// Whether any of them has it ("are any windows open upstairs?").
    case any
    /// Whether all of them have it ("is everything locked?").
    case all
    /// How many have it ("how many lights are on in the kitchen?").
    case count
}

/// A question and its answer.
public struct CommandQuery: Sendable, Equatable, Codable {
    /// The kind of question.
    public var kind: QueryKind
    /// The catalog's name of the characteristic asked about.
    public var characteristic: String
    /// The services asked about, each with its current value.
    public var targets: [CommandTarget]
    /// The answer as a sentence.
    public var answer: String

    /// Makes a query.
    public init(kind: QueryKind, characteristic: String, targets: [CommandTarget], answer: String) {
        self.kind = kind
        self.characteristic = characteristic
        self.targets = targets
        self.answer = answer
    }
}

/// A scene a sentence runs.
public struct CommandScene: Sendable, Equatable, Codable {
    /// The action set's id.
    public var id: UUID
    /// Its name.
    public var name: String

    /// Makes a scene reference.
    public init(id: UUID, name: String) {
        self.id = id
        self.name = name
    }
}

/// A configuration change a sentence asks for.
public struct CommandConfiguration: Sendable, Equatable, Codable {
    /// What changes: `rename` or `move`.
    public var change: String
    /// The kind of object changed (`accessory`, `room`, `zone`, `service`, `serviceGroup`, `actionSet`).
    public var kind: String
    /// The object's id.
    public var id: UUID
    /// The object's name now.
    public var name: String
    /// The new name, for a rename.
    public var newName: String?
    /// The room it moves to, for a move.
    public var roomID: UUID?
    /// That room's name.
    public var roomName: String?

    /// Makes a configuration change.
    public init(
        change: String,
        kind: String,
        id: UUID,
        name: String,
        newName: String? = nil,
        roomID: UUID? = nil,
        roomName: String? = nil
    ) {
        self.change = change
        self.kind = kind
        self.id = id
        self.name = name
        self.newName = newName
        self.roomID = roomID
        self.roomName = roomName
    }
}

/// One thing an ambiguous name could mean.
public struct CommandCandidate: Sendable, Equatable, Codable {
    /// The kind of object (`accessory`, `service`, `room`, `zone`, `serviceGroup`, `actionSet`).
    public var kind: String
    /// Its id.
    public var id: UUID
    /// Its name.
    public var name: String
    /// Its room, for accessories and services.
    public var room: String?

    /// Makes a candidate.
    public init(kind: String, id: UUID, name: String, room: String? = nil) {
        self.kind = kind
        self.id = id
        self.name = name
        self.room = room
    }
}

/// Which words of the sentence matched what.
public struct CommandMatch: Sendable, Equatable, Codable {
    /// The words, as said (normalised).
    public var words: String
    /// What they matched: `verb`, `value`, `room`, `zone`, `accessory`, `service`, `serviceGroup`, `actionSet`,
    /// `home`, `type`, `characteristic`, `here`, `quantifier`, `question`, `state`.
    public var role: String
    /// The name or value they stand for.
    public var meaning: String

    /// Makes a match.
    public init(words: String, role: String, meaning: String) {
        self.words = words
        self.role = role
        self.meaning = meaning
    }
}

/// How one action went when the hub carried it out.
public struct CommandActionResult: Sendable, Equatable, Codable {
    /// The characteristic written.
    public var characteristicID: UUID
    /// Whether the accessory took the value.
    public var ok: Bool
    /// The value as recorded, when it did.
    public var value: HAPValue?
    /// Why not, as a sentence, when it did not.
    public var error: String?

    /// Makes an action result.
    public init(characteristicID: UUID, ok: Bool, value: HAPValue? = nil, error: String? = nil) {
        self.characteristicID = characteristicID
        self.ok = ok
        self.value = value
        self.error = error
    }
}

/// What one sentence means against a home, and (once carried out) how it went: the JSON `hearth say --json`
/// prints and `POST /v1/homes/{homeID}/commands` answers.
public struct CommandResult: Sendable, Equatable, Codable {
    /// The sentence as given.
    public var text: String
    /// What it turned out to be.
    public var outcome: CommandOutcome
    /// A sentence for the speaker: what was (or would be) done, the answer, the question back, or why not.
    public var message: String
    /// For control: the writes.
    public var actions: [CommandAction]?
    /// For a query: the question and its answer.
    public var query: CommandQuery?
    /// For a scene: the scene.
    public var scene: CommandScene?
    /// For a configuration change: the change.
    public var configuration: CommandConfiguration?
    /// For an ambiguous name: what it could mean.
    public var candidates: [CommandCandidate]?
    /// Which words matched what.
    public var explanation: [CommandMatch]
    /// Whether the command was only resolved (`--dry-run`), not carried out.
    public var dryRun: Bool
    /// When carried out: each write's outcome (control and scenes).
    public var results: [CommandActionResult]?

    /// Makes a result.
    public init(
        text: String,
        outcome: CommandOutcome,
        message: String,
        actions: [CommandAction]? = nil,
        query: CommandQuery? = nil,
        scene: CommandScene? = nil,
        configuration: CommandConfiguration? = nil,
        candidates: [CommandCandidate]? = nil,
        explanation: [CommandMatch] = [],
        dryRun: Bool = true,
        results: [CommandActionResult]? = nil
    ) {
        self.text = text
        self.outcome = outcome
        self.message = message
        self.actions = actions
        self.query = query
        self.scene = scene
        self.configuration = configuration
        self.candidates = candidates
        self.explanation = explanation
        self.dryRun = dryRun
        self.results = results
    }
}
