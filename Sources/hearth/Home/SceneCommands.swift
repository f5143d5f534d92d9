import ArgumentParser
import Foundation
import HearthKit

/// `hearth scene …`: action sets.
struct SceneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scene",
        abstract: "List, show, add, rename, remove and run scenes (action sets).",
        discussion: """
            Every home has four built-in scenes, one of each kind: Wake Up (wakeUp), Leave Home (homeDeparture), \
            Arrive Home (homeArrival) and Sleep (sleep). They can be renamed and given actions, never removed.
            """,
        subcommands: [
            List.self, Show.self, Add.self, RenameCommand<Scenes>.self, RemoveCommand<Scenes>.self, Run.self,
        ],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The scenes.")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let home = await options.loadHome(await options.client()).home
            options.show(ActionSetList(actionSets: home.actionSets)) {
                Output.table(
                    ["SCENE", "KIND", "ACTIONS", "ID"],
                    home.actionSets.map { [$0.name, $0.kind.rawValue, "\($0.actions.count)", $0.id.uuidString] }
                )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A scene and its actions, by name or id, or a built-in one by --kind."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "The scene, by name or id.") var scene: String?
        @Option(help: "A built-in kind: wakeUp, homeDeparture, homeArrival or sleep.") var kind: String?

        func run() async throws {
            let session = await options.session()
            let actionSet: ActionSet
            switch (scene, kind) {
            case (let scene?, nil):
                actionSet = session.find(.scene, scene)
            case (nil, let kind?):
                guard let known = ActionSetKind(rawValue: kind), known.isBuiltIn else {
                    let kinds = ActionSetKind.builtIn.map(\.rawValue).joined(separator: ", ")
                    options.fail("the kind must be one of \(kinds), not '\(kind)'", code: HomeExit.usage, kind: "usage")
                }
                actionSet = await session.call { client, homeID throws(HearthError) in
                    try await client.builtInActionSet(ofKind: known, inHome: homeID)
                }
            default:
                options.fail("give a scene or --kind KIND, not both", code: HomeExit.usage, kind: "usage")
            }
            let home = session.home
            options.show(ActionSetResponse(actionSet: actionSet)) {
                var lines = ["\(actionSet.name) (\(actionSet.kind.rawValue), \(actionSet.id.uuidString))"]
                lines += actionSet.actions.map { action in "  " + SceneCommand.describe(action, in: home) }
                if actionSet.actions.isEmpty { lines.append("  no actions") }
                return lines.joined(separator: "\n")
            }
        }
    }

    /// "Porch Lamp On = true": an action with its accessory, characteristic and value as people read them.
    static func describe(_ action: Action, in home: Home) -> String {
        for accessory in home.accessories {
            for characteristic in accessory.characteristics where characteristic.id == action.characteristicID {
                let value = Naming.text(action.targetValue, of: characteristic)
                return "\(accessory.name) \(Naming.name(of: characteristic)) = \(value)"
            }
        }
        return "\(action.characteristicID.uuidString) = \(action.targetValue)"
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a scene; actions are 'ACCESSORY/CHARACTERISTIC=VALUE'."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "The scene's name.") var name: String
        @Option(help: "wakeUp, sleep, homeDeparture, homeArrival or userDefined.") var kind: String?
        @Option(name: .customLong("action"), help: "ACCESSORY/CHARACTERISTIC=VALUE (repeat for more).")
        var actions: [String] = []

        func run() async throws {
            let session = await options.session()
            var parsedKind: ActionSetKind?
            if let kind {
                guard let known = ActionSetKind(rawValue: kind) else {
                    options.fail("unknown kind '\(kind)'", code: HomeExit.usage, kind: "usage")
                }
                parsedKind = known
            }
            let parsed = actions.map { text -> Action in
                guard let equals = text.lastIndex(of: "="), let slash = text[..<equals].lastIndex(of: "/") else {
                    options.fail("an action is ACCESSORY/CHARACTERISTIC=VALUE, not '\(text)'", code: 2, kind: "usage")
                }
                let accessory = session.find(.accessory, String(text[..<slash]))
                let target = options.characteristic(
                    String(text[text.index(after: slash)..<equals]),
                    of: accessory,
                    in: session.home
                )
                let value = options.value(String(text[text.index(after: equals)...]), for: target)
                return Action(characteristicID: target.id, targetValue: value)
            }
            let created = await session.call { client, homeID throws(HearthError) in
                try await client.addActionSet(named: name, kind: parsedKind, actions: parsed, toHome: homeID)
            }
            options.changed(created.events, "Added scene \(created.object.name).")
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run a scene: every write at once.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The scene.") var scene: String

        func run() async throws {
            let session = await options.session()
            let found = session.find(.scene, scene)
            let results = await session.call { client, homeID throws(HearthError) in
                try await client.runActionSet(found.id, inHome: homeID)
            }
            let failed = results.filter { $0.error != nil }
            options.show(WriteResults(results: results)) {
                let failures = failed.compactMap { $0.error.map { "  failed: \($0.message)" } }
                return
                    (["Ran \(found.name): \(results.count - failed.count) of \(results.count) writes done."] + failures)
                    .joined(separator: "\n")
            }
            if !failed.isEmpty { Foundation.exit(HomeExit.failure) }
        }
    }
}
