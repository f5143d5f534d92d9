import ArgumentParser
import Foundation

/// The `hearth` command-line app.
@main
struct Hearth: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "Hearth, an open home automation system: the command-line app.",
        subcommands: [Demo.self]
    )

    /// Runs the command, exiting 2 (not the parser's 64) on a usage error, as docs/style.md §3 asks.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandleOutput.standardError(fullMessage(for: error))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// Writes a line to standard error.
enum FileHandleOutput {
    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
