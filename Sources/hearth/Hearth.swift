import ArgumentParser
import Foundation
import Logging

/// The `hearth` command-line app.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "Hearth, an open home automation system: the command-line app.",
        subcommands: [
            Login.self, WhoAmI.self, HomeCommand.self, RoomCommand.self, ZoneCommand.self, AccessoryCommand.self,
            ServiceCommand.self, GroupCommand.self, SceneCommand.self, TriggerCommand.self, PresenceCommand.self,
            UserCommand.self, Say.self, WebCommand.self,
            Watch.self, Demo.self, HAPCommand.self,
        ]
    )

    /// Runs the command, exiting 2 (not the parser's 64) on a usage error, as docs/style.md §3 asks.
    static func main() async {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let text = message(for: error)
                let sentence = text.hasSuffix(".") ? text : text + "."
                Output.standardError("error: \(sentence) Run the command with --help to see its usage.")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
