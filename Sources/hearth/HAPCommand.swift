import ArgumentParser
import Foundation
import HAP
import HAPController

/// `hearth hap`: find, pair and drive any HAP-over-IP accessory as a HomeKit controller does.
struct HAPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hap",
        abstract: "Find, pair and control HomeKit accessories directly (the low-level controller).",
        discussion: """
            An accessory is named by its device ID (found over mDNS, or in the pairings of --state) or by \
            ADDRESS:PORT. Pairings live in the state folder.
            """,
        subcommands: [
            Discover.self, Pair.self, Unpair.self, Pairings.self, Accessories.self, Get.self, Put.self,
            Watch.self, Identify.self, Test.self,
        ]
    )
}

extension HAPCommand {
    /// `hearth hap discover --interface ADDR`.
    struct Discover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the HAP accessories advertised over mDNS.")
        @OptionGroup var options: HAPOptions

        @Option(name: .customLong("interface"), help: "An IPv4 address whose interface to browse (repeatable).")
        var interfaces: [String] = []

        @Option(help: "How long to listen, in seconds.")
        var timeout: Double = 3

        func validate() throws {
            guard !interfaces.isEmpty else { throw ValidationError("discover needs at least one --interface ADDRESS.") }
            guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be 0...3600 seconds.") }
        }

        func run() async throws {
            let found = await Discovery.browse(interfaces: interfaces, timeout: timeout, options: options)
            if options.json {
                Output.json(["accessories": found.map(DiscoveredEntry.init)])
                return
            }
            let rows = found.map { accessory in
                [
                    accessory.name, accessory.deviceID, accessory.model, accessory.category?.name ?? "-",
                    accessory.isPaired ? "yes" : "no", "\(accessory.host ?? "-"):\(accessory.port)",
                ]
            }
            Output.text(Output.table(["NAME", "DEVICE-ID", "MODEL", "CATEGORY", "PAIRED", "ADDRESS:PORT"], rows))
        }
    }

    /// One accessory in `discover --json`.
    struct DiscoveredEntry: Encodable {
        var name: String
        var deviceID: String
        var model: String
        var category: String?
        var paired: Bool
        var address: String?
        var port: Int
        var configurationNumber: Int

        init(_ accessory: DiscoveredAccessory) {
            name = accessory.name
            deviceID = accessory.deviceID
            model = accessory.model
            category = accessory.category?.name
            paired = accessory.isPaired
            address = accessory.host
            port = accessory.port
            configurationNumber = accessory.configurationNumber
        }
    }

    /// `hearth hap pair --code CODE ACCESSORY`.
    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pair with an accessory and store the pairing in the state folder."
        )
        @OptionGroup var options: HAPOptions

        @Option(help: "The setup code, XXX-XX-XXX.")
        var code: String?

        @Option(help: "The setup URI (X-HM://…) from the accessory's QR code, instead of --code.")
        var setupURI: String?

        @Option(name: .customLong("interface"), help: "An IPv4 address to find a device ID on over mDNS.")
        var interfaces: [String] = []

        @Option(help: "How long to look for the accessory over mDNS, in seconds.")
        var timeout: Double = 10

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        func validate() throws {
            guard (code == nil) != (setupURI == nil) else {
                throw ValidationError("give the setup code with either --code or --setup-uri.")
            }
            _ = try setupCode()
        }

        /// The setup code from --code or --setup-uri; a usage error when neither gives a valid one.
        func setupCode() throws -> SetupCode {
            if let code {
                do throws(SetupCodeError) {
                    return try SetupCode(code)
                } catch {
                    throw ValidationError("--code must be XXX-XX-XXX digits, as on the accessory (\(error)).")
                }
            }
            let payload: SetupPayload
            do throws(SetupPayloadError) {
                payload = try SetupPayload(setupURI ?? "")
            } catch {
                throw ValidationError("--setup-uri must be the X-HM:// text of the accessory's QR code (\(error)).")
            }
            guard let code = payload.setupCode else {
                throw ValidationError("the setup URI carries no setup code; give it with --code.")
            }
            return code
        }

        func run() async throws {
            let code = try setupCode()
            let target = options.target(accessory)
            var host: String
            var port: Int
            var configurationNumber: Int?
            switch target {
            case .address(let address, let number):
                (host, port) = (address, number)
            case .deviceID(let id):
                let found = await Discovery.locate(
                    deviceID: id,
                    interfaces: interfaces,
                    timeout: timeout,
                    options: options
                )
                (host, port, configurationNumber) = (found.host ?? "", found.port, found.configurationNumber)
            }
            let identity = await options.identity()
            var record: PairedAccessoryRecord
            do throws(HAPControllerError) {
                let pairing = try await AccessoryPairingClient().pairSetup(
                    host: host,
                    port: port,
                    setupCode: code,
                    identity: identity
                )
                record = PairedAccessoryRecord(pairing: pairing, host: host, port: port)
            } catch {
                options.fail(error)
            }
            record.configurationNumber = configurationNumber
            await options.update(saving: record)
            if options.json {
                Output.json(PairedEntry(record))
            } else {
                Output.line("paired with \(record.deviceID) at \(record.host):\(record.port)")
            }
        }
    }

    /// A stored pairing in `pair --json`.
    struct PairedEntry: Encodable {
        var deviceID: String
        var address: String
        var port: Int

        init(_ record: PairedAccessoryRecord) {
            deviceID = record.deviceID
            address = record.host
            port = record.port
        }
    }

    /// `hearth hap unpair ACCESSORY`.
    struct Unpair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove this controller's pairing from the accessory and forget it."
        )
        @OptionGroup var options: HAPOptions
        @OptionGroup var resolve: ResolveOptions

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        func run() async throws {
            let target = options.target(accessory)
            let record = await options.record(for: target)
            await options.withAccessory(target, interfaces: resolve.interfaces) {
                accessory throws(HAPControllerError) in
                try await accessory.unpair()
            }
            await options.update(removing: record.deviceID)
            if options.json {
                Output.json(["unpaired": record.deviceID])
            } else {
                Output.line("unpaired \(record.deviceID)")
            }
        }
    }

    /// `hearth hap identify ACCESSORY`.
    struct Identify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask an accessory to identify itself (blink, beep): paired or not."
        )
        @OptionGroup var options: HAPOptions

        @Option(
            name: .customLong("interface"),
            help: "An IPv4 address to find the accessory on over mDNS (unpaired, or paired but moved)."
        )
        var interfaces: [String] = []

        @Option(help: "How long to look for the accessory over mDNS, in seconds.")
        var timeout: Double = 10

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        func run() async throws {
            let target = options.target(accessory)
            if await options.records().contains(where: { target.matches($0) }) {
                await options.withAccessory(target, interfaces: interfaces) { accessory throws(HAPControllerError) in
                    try await accessory.identify()
                }
            } else {
                var host: String
                var port: Int
                switch target {
                case .address(let address, let number):
                    (host, port) = (address, number)
                case .deviceID(let id):
                    let found = await Discovery.locate(
                        deviceID: id,
                        interfaces: interfaces,
                        timeout: timeout,
                        options: options
                    )
                    (host, port) = (found.host ?? "", found.port)
                }
                do throws(HAPControllerError) {
                    try await AccessoryPairingClient().identifyUnpaired(host: host, port: port)
                } catch {
                    options.fail(error)
                }
            }
            if options.json {
                Output.json(["identified": target.description])
            } else {
                Output.line("identified \(target)")
            }
        }
    }
}
