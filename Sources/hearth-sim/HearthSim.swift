import ArgumentParser

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `hearth-sim`: serves simulated accessories as a real HAP accessory, and drives the physical world.
@main
struct HearthSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-sim",
        abstract: "A HomeKit accessory simulator: real HAP over IP, simulated devices.",
        discussion: """
            'hearth-sim serve' runs the accessory; the other commands find the running instance through its state \
            folder and change what a person or the environment would change. docs/simulator.md has the details.
            """,
        subcommands: [
            Serve.self, SetValue.self, GetValue.self, Press.self, Trigger.self, Status.self, AddAccessory.self,
            RemoveAccessory.self, FaultCommand.self,
        ],
        defaultSubcommand: Serve.self
    )

    /// Runs the command; a usage error exits with 2 (docs/style.md §3), not the parser's 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                writeStandardError(fullMessage(for: error) + "\n")
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// Options every `hearth-sim` command takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: "The simulator's state folder (identity, pairings, setup code, ids, control socket).")
    var state: String = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".hearth-sim").path

    @Flag(help: "Print one JSON object on stdout instead of text.")
    var json = false

    /// The state folder's files.
    var folder: StateFolder { StateFolder(path: state) }
}

/// Prints an error line on stderr and exits with the code for its kind.
func fail(_ message: String, code: Int32) -> Never {
    writeStandardError("error: \(message)\n")
    Glibc.exit(code)
}

/// Writes text to standard error unbuffered.
func writeStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
