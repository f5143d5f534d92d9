import ArgumentParser
import Foundation
import HearthKit

/// A kind of home object whose `rename` and `remove` subcommands have one shape (rooms, zones, service groups,
/// scenes, triggers): find it by name or id, one call to the hub, "Renamed zone Upstairs to Attic.".
protocol RenamableKind {
    /// The objects.
    associatedtype Object
    /// Where the home keeps them and their word in sentences.
    static var kind: ObjectKind<Object> { get }
    /// The help of the argument that names one, with its name in the usage.
    static var argument: ArgumentHelp { get }
    /// The `remove` subcommand's abstract.
    static var removeAbstract: String { get }
    /// Renames the object with an id (the second argument) to a name (the third) in a home (the fourth).
    static var rename: (HearthClient, UUID, String, UUID) async throws(HearthError) -> [HomeEvent] { get }
    /// Removes the object with an id (the second argument) from a home (the third).
    static var remove: (HearthClient, UUID, UUID) async throws(HearthError) -> [HomeEvent] { get }
}

extension RenamableKind {
    /// The `remove` subcommand's abstract: "Remove a zone.".
    static var removeAbstract: String { "Remove a \(kind.noun)." }
}

/// `hearth KIND rename OBJECT NAME`.
struct RenameCommand<Kind: RenamableKind>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "rename", abstract: "Rename a \(Kind.kind.noun).")
    }
    @OptionGroup var options: HubOptions
    @Argument(help: Kind.argument) var object: String
    @Argument(help: "The new name.") var name: String

    func run() async throws {
        await options.change(Kind.kind, object) { client, object, homeID throws(HearthError) in
            try await Kind.rename(client, object[keyPath: Kind.kind.id], name, homeID)
        } report: {
            "Renamed \(Kind.kind.noun) \($0[keyPath: Kind.kind.name]) to \(name)."
        }
    }
}

/// `hearth KIND remove OBJECT`.
struct RemoveCommand<Kind: RenamableKind>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "remove", abstract: Kind.removeAbstract)
    }
    @OptionGroup var options: HubOptions
    @Argument(help: Kind.argument) var object: String

    func run() async throws {
        await options.change(Kind.kind, object) { client, object, homeID throws(HearthError) in
            try await Kind.remove(client, object[keyPath: Kind.kind.id], homeID)
        } report: {
            "Removed \(Kind.kind.noun) \($0[keyPath: Kind.kind.name])."
        }
    }
}

/// Rooms for `hearth room rename|remove`.
enum Rooms: RenamableKind {
    static var kind: ObjectKind<Room> { .room }
    static var argument: ArgumentHelp { ArgumentHelp("The room, by name or id.", valueName: "room") }
    static var removeAbstract: String { "Remove a room; its accessories move to the room for the entire home." }
    static var rename: (HearthClient, UUID, String, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, name, home throws(HearthError) in try await client.renameRoom(id, to: name, inHome: home) }
    }
    static var remove: (HearthClient, UUID, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, home throws(HearthError) in try await client.removeRoom(id, fromHome: home) }
    }
}

/// Zones for `hearth zone rename|remove`.
enum Zones: RenamableKind {
    static var kind: ObjectKind<Zone> { .zone }
    static var argument: ArgumentHelp { ArgumentHelp("The zone, by name or id.", valueName: "zone") }
    static var rename: (HearthClient, UUID, String, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, name, home throws(HearthError) in try await client.renameZone(id, to: name, inHome: home) }
    }
    static var remove: (HearthClient, UUID, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, home throws(HearthError) in try await client.removeZone(id, fromHome: home) }
    }
}

/// Service groups for `hearth group rename|remove`.
enum ServiceGroups: RenamableKind {
    static var kind: ObjectKind<ServiceGroup> { .serviceGroup }
    static var argument: ArgumentHelp { ArgumentHelp("The group.", valueName: "group") }
    static var rename: (HearthClient, UUID, String, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, name, home throws(HearthError) in try await client.renameServiceGroup(id, to: name, inHome: home)
        }
    }
    static var remove: (HearthClient, UUID, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, home throws(HearthError) in try await client.removeServiceGroup(id, fromHome: home) }
    }
}

/// Scenes for `hearth scene rename|remove`.
enum Scenes: RenamableKind {
    static var kind: ObjectKind<ActionSet> { .scene }
    static var argument: ArgumentHelp { ArgumentHelp("The scene.", valueName: "scene") }
    static var rename: (HearthClient, UUID, String, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, name, home throws(HearthError) in try await client.updateActionSet(id, name: name, inHome: home) }
    }
    static var remove: (HearthClient, UUID, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, home throws(HearthError) in try await client.removeActionSet(id, fromHome: home) }
    }
}

/// Triggers for `hearth trigger rename|remove`.
enum Triggers: RenamableKind {
    static var kind: ObjectKind<Trigger> { .trigger }
    static var argument: ArgumentHelp { ArgumentHelp("The trigger.", valueName: "trigger") }
    static var rename: (HearthClient, UUID, String, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, name, home throws(HearthError) in try await client.updateTrigger(id, name: name, inHome: home) }
    }
    static var remove: (HearthClient, UUID, UUID) async throws(HearthError) -> [HomeEvent] {
        { client, id, home throws(HearthError) in try await client.removeTrigger(id, fromHome: home) }
    }
}
