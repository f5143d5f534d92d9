import ArgumentParser
import Foundation
import HearthKit

/// `hearth watch`: every change of the user's homes as it happens.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stream changes as they happen (all homes, or --home); stop with Ctrl-C.",
        discussion: """
            Reconnects by itself and resumes where it stopped, so no change is missed or shown twice. With --json, \
            prints one object per line: {"watching": …} once connected, then {"event": HomeEvent}, \
            {"reloaded": …} or {"forgotten": …}.
            """
    )

    @OptionGroup var options: HubOptions

    @Option(help: "Stop after this many changes (for scripts).") var count: Int?

    func run() async throws {
        let client = await options.client()
        let manager = HomeManager(client: client)
        var homeFilter: UUID?
        if options.home != nil { homeFilter = await options.loadHome(client).home.id }
        await options.attempt { () throws(HearthError) in try await manager.start() }
        // Subscribed after the first load (no `reloaded` lines for it), before any event is applied.
        let updates: AsyncStream<HomeUpdate>
        if let homeFilter {
            updates = await manager.updates(inHome: homeFilter)
        } else {
            updates = await manager.updates()
        }
        guard await manager.waitUntilConnected(timeout: .seconds(60)) else {
            options.fail(
                "could not open the event connection to \(client.baseURL)",
                code: HomeExit.unreachable,
                kind: "unreachable"
            )
        }
        let homes = await manager.homes.filter { homeFilter == nil || $0.id == homeFilter }
        struct Watching: Encodable {
            struct Body: Encodable { var homes: [HomeSummaryLine] }
            struct HomeSummaryLine: Encodable {
                var id: UUID
                var name: String
                var sequence: UInt64
            }
            var watching: Body
        }
        var lines: [Watching.HomeSummaryLine] = []
        for home in homes {
            lines.append(.init(id: home.id, name: home.name, sequence: await manager.sequence(ofHome: home.id) ?? 0))
        }
        options.show(Watching(watching: .init(homes: lines))) {
            "Watching \(homes.map(\.name).joined(separator: ", ")) at \(client.baseURL); stop with Ctrl-C."
        }
        var seen = 0
        for await update in updates {
            if options.json {
                switch update {
                case .changed(let event): Printer.json(ServerMessage.event(event))
                case .reloaded(let homeID, let sequence):
                    Printer.json(["reloaded": ["homeID": homeID.uuidString, "sequence": "\(sequence)"]])
                case .forgotten(let homeID): Printer.json(["forgotten": ["homeID": homeID.uuidString]])
                }
            } else {
                let home = await manager.home(withID: update.homeID)
                Output.line(Describe.line(update, in: home))
            }
            if update.event != nil { seen += 1 }
            if let count, seen >= count { break }
        }
        await manager.stop()
    }
}

/// Sentences for changes, with names from the mirrored home.
enum Describe {
    /// `12:00:01.123  Demo Home #7  room added: Office`.
    static func line(_ update: HomeUpdate, in home: Home?) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        let time = formatter.string(from: Date())
        let homeName = home?.name ?? update.homeID.uuidString
        switch update {
        case .changed(let event):
            return "\(time)  \(homeName) #\(event.sequence)  \(text(event.change, in: home))"
        case .reloaded(_, let sequence):
            return "\(time)  \(homeName) #\(sequence)  reloaded"
        case .forgotten:
            return "\(time)  \(homeName)  no longer visible"
        }
    }

    /// One change in words.
    static func text(_ change: HomeChange, in home: Home?) -> String {
        func room(_ id: UUID) -> String { home?.room(withID: id)?.name ?? id.uuidString }
        func accessory(_ id: UUID) -> String { home?.accessory(withID: id)?.name ?? id.uuidString }
        switch change {
        case .homeAdded(let added): return "home added: \(added.name)"
        case .homeRenamed(let old, let new): return "home renamed: \(old) → \(new)"
        case .roomAdded(let added): return "room added: \(added.name)"
        case .roomRenamed(_, let old, let new): return "room renamed: \(old) → \(new)"
        case .roomRemoved(let id): return "room removed: \(id.uuidString)"
        case .zoneAdded(let added): return "zone added: \(added.name)"
        case .zoneRenamed(_, let old, let new): return "zone renamed: \(old) → \(new)"
        case .accessoryAdded(let added): return "accessory added: \(added.name)"
        case .accessoryRenamed(_, let old, let new): return "accessory renamed: \(old) → \(new)"
        case .accessoryMovedToRoom(let id, let from, let to):
            return "\(accessory(id)) moved: \(room(from)) → \(room(to))"
        case .accessoryReachabilityChanged(let id, let isReachable):
            return "\(accessory(id)) is \(isReachable ? "reachable" : "unreachable")"
        case .characteristicValueChanged(let id, let accessoryID, let value):
            let characteristic = home?.accessory(withID: accessoryID)?.characteristics.first { $0.id == id }
            let name = characteristic.map(Naming.name(of:)) ?? id.uuidString
            return
                "\(accessory(accessoryID)) \(name) = \(characteristic.map { Naming.text(value, of: $0) } ?? value.description)"
        case .actionSetAdded(let added): return "scene added: \(added.name)"
        case .actionSetRenamed(_, let old, let new): return "scene renamed: \(old) → \(new)"
        case .triggerAdded(let added): return "trigger added: \(added.name)"
        case .userAdded(let added): return "user added: \(added.name) (\(added.role.rawValue))"
        case .userRoleChanged(_, let old, let new): return "user role: \(old.rawValue) → \(new.rawValue)"
        default: return change.kind
        }
    }
}

/// Trees of homes and accessories for `show`.
enum Tree {
    /// A home: rooms with their accessories, zones, scenes, triggers, users.
    static func home(_ home: Home, role: UserRole) -> String {
        var lines = ["\(home.name)\(home.isPrimary ? " (primary)" : "")  — you are \(role.rawValue)"]
        lines.append("  time zone \(home.timeZoneIdentifier)")
        for room in home.allRooms {
            lines.append("  ├ \(room.name)")
            for accessory in home.accessories(inRoom: room.id) {
                lines.append("  │   └ \(accessory.name)\(accessory.isReachable ? "" : " (unreachable)")")
            }
        }
        for zone in home.zones {
            let rooms = zone.roomIDs.compactMap { home.room(withID: $0)?.name }.joined(separator: ", ")
            lines.append("  zone \(zone.name): \(rooms)")
        }
        for scene in home.actionSets { lines.append("  scene \(scene.name) (\(scene.actions.count) actions)") }
        for trigger in home.triggers { lines.append("  trigger \(trigger.name)\(trigger.isEnabled ? "" : " (off)")") }
        for user in home.users { lines.append("  user \(user.name) (\(user.role.rawValue))") }
        return lines.joined(separator: "\n")
    }

    /// An accessory: services and characteristic values.
    static func accessory(_ accessory: Accessory, in home: Home, indent: String) -> String {
        var lines = ["\(indent)\(accessory.name)  in \(home.room(withID: accessory.roomID)?.name ?? "?")"]
        for service in accessory.services {
            lines.append("\(indent)  ├ \(service.name) [\(Naming.typeName(of: service))]")
            for characteristic in service.characteristics {
                lines.append(
                    "\(indent)  │   └ \(Naming.name(of: characteristic)) = \(Naming.text(characteristic.value, of: characteristic))"
                )
            }
        }
        return lines.joined(separator: "\n")
    }
}
