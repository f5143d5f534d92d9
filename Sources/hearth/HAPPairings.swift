import ArgumentParser
import Foundation
import HAP
import HAPController

extension HAPCommand {
    /// `hearth hap pairings [list|add|remove] ACCESSORY`.
    struct Pairings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, add and remove the controllers paired with an accessory (admin only).",
            subcommands: [List.self, Add.self, Remove.self],
            defaultSubcommand: List.self
        )
    }
}

extension HAPCommand.Pairings {
    /// One pairing in `pairings --json`.
    struct Entry: Encodable {
        var identifier: String
        var publicKey: String
        var admin: Bool
    }

    /// `hearth hap pairings ACCESSORY`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the controllers paired with an accessory.")
        @OptionGroup var options: HAPOptions
        @OptionGroup var resolve: ResolveOptions

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        func run() async throws {
            let pairings = await options.withAccessory(options.target(accessory), interfaces: resolve.interfaces) {
                accessory throws(HAPControllerError) in
                try await accessory.listPairings()
            }
            let entries = pairings.map {
                Entry(
                    identifier: String(decoding: $0.identifier, as: UTF8.self),
                    publicKey: hex($0.publicKey),
                    admin: $0.isAdmin
                )
            }
            if options.json {
                Output.json(["pairings": entries])
            } else {
                let rows = entries.map { [$0.identifier, $0.admin ? "yes" : "no", $0.publicKey] }
                Output.text(Output.table(["IDENTIFIER", "ADMIN", "PUBLIC-KEY"], rows))
            }
        }
    }

    /// `hearth hap pairings add ACCESSORY --identifier ID --public-key HEX [--admin]`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pair another controller with an accessory.")
        @OptionGroup var options: HAPOptions
        @OptionGroup var resolve: ResolveOptions

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        @Option(help: "The other controller's pairing identifier.")
        var identifier: String

        @Option(help: "The other controller's Ed25519 public key, 64 hex digits.")
        var publicKey: String

        @Flag(help: "Make the other controller an admin.")
        var admin = false

        func validate() throws {
            guard !identifier.isEmpty, identifier.utf8.count <= 255 else {
                throw ValidationError("--identifier must be 1 to 255 bytes.")
            }
            guard bytes(hex: publicKey)?.count == 32 else {
                throw ValidationError("--public-key must be 32 bytes as 64 hex digits.")
            }
        }

        func run() async throws {
            let key = bytes(hex: publicKey) ?? []
            await options.withAccessory(options.target(accessory), interfaces: resolve.interfaces) {
                accessory throws(HAPControllerError) in
                try await accessory.addPairing(identifier: identifier, publicKey: key, isAdmin: admin)
            }
            if options.json {
                Output.json(["added": Entry(identifier: identifier, publicKey: hex(key), admin: admin)])
            } else {
                Output.line("added \(identifier)\(admin ? " (admin)" : "")")
            }
        }
    }

    /// `hearth hap pairings remove ACCESSORY --identifier ID`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove another controller's pairing.")
        @OptionGroup var options: HAPOptions
        @OptionGroup var resolve: ResolveOptions

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        @Option(help: "The controller's pairing identifier.")
        var identifier: String

        func run() async throws {
            await options.withAccessory(options.target(accessory), interfaces: resolve.interfaces) {
                accessory throws(HAPControllerError) in
                try await accessory.removePairing(identifier: identifier)
            }
            if options.json {
                Output.json(["removed": identifier])
            } else {
                Output.line("removed \(identifier)")
            }
        }
    }
}
