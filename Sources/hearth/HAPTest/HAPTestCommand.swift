import ArgumentParser
import DNSSD
import Foundation
import HAP
import HAPController

extension HAPCommand {
    /// `hearth hap test`: the conformance checks of docs/hap-test.md against one unpaired accessory.
    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check an unpaired HAP accessory against the protocol, as a tester would.",
            discussion: """
                The accessory must be unpaired. The tester pairs with an identity of its own (never stored), runs \
                its checks and removes every pairing it made before it exits. Exit status 1 when any check fails. \
                See docs/hap-test.md for the checks.
                """
        )
        @OptionGroup var options: HAPOptions

        @Option(help: "The accessory's IPv4 address.")
        var host: String?

        @Option(help: "The accessory's TCP port.")
        var port: Int?

        @Option(help: "The accessory's device ID, to find it over mDNS on --interface instead of --host/--port.")
        var deviceID: String?

        @Option(name: .customLong("interface"), help: "An IPv4 address whose interface to watch mDNS on (repeatable).")
        var interfaces: [String] = []

        @Option(help: "The setup code, XXX-XX-XXX.")
        var setupCode: String?

        @Option(help: "The setup URI (X-HM://…): gives the setup code and the setup ID.")
        var setupURI: String?

        @Option(help: "The setup ID (four characters), to check the setup hash sh.")
        var setupID: String?

        @Option(help: "How long to wait for each answer, in seconds (0.2 to 60).")
        var timeout: Double = 10

        @Flag(help: "Also spend 100 pair-setup tries on the MaxTries check; the accessory then needs a factory reset.")
        var destructive = false

        @Option(
            help: ArgumentHelp(
                "A shell command that restarts the accessory with its stored state, for the restart check.",
                valueName: "command"
            )
        )
        var restartCommand: String?

        func validate() throws {
            guard (host == nil) == (port == nil) else { throw ValidationError("give --host and --port together.") }
            guard host != nil || (deviceID != nil && !interfaces.isEmpty) else {
                throw ValidationError("name the accessory with --host and --port, or --device-id and --interface.")
            }
            if let port, !(1...65535).contains(port) { throw ValidationError("--port must be 1...65535.") }
            guard (0.2...60).contains(timeout) else { throw ValidationError("--timeout must be 0.2 to 60 seconds.") }
            guard (setupCode == nil) != (setupURI == nil) else {
                throw ValidationError("give the setup code with either --setup-code or --setup-uri.")
            }
            _ = try setup()
        }

        /// The setup code and setup ID from the options.
        func setup() throws -> (code: SetupCode, id: SetupID?) {
            var id: SetupID?
            if let setupID {
                do throws(SetupIDError) {
                    id = try SetupID(setupID)
                } catch {
                    throw ValidationError("--setup-id must be four characters from 0-9 and A-Z.")
                }
            }
            if let setupCode {
                do throws(SetupCodeError) {
                    return (try SetupCode(setupCode), id)
                } catch {
                    throw ValidationError("--setup-code must be XXX-XX-XXX digits, as on the accessory.")
                }
            }
            let payload: SetupPayload
            do throws(SetupPayloadError) {
                payload = try SetupPayload(setupURI ?? "")
            } catch {
                throw ValidationError("--setup-uri must be the X-HM:// text of the accessory's QR code (\(error)).")
            }
            guard let code = payload.setupCode else {
                throw ValidationError("the setup URI carries no setup code; give it with --setup-code.")
            }
            return (code, id ?? payload.setupID)
        }

        func run() async throws {
            let (code, id) = try setup()
            var address = host ?? ""
            var number = port ?? 0
            if let deviceID, host == nil {
                let found = await Discovery.locate(
                    deviceID: deviceID.uppercased(),
                    interfaces: interfaces,
                    timeout: 10,
                    options: options
                )
                (address, number) = (found.host ?? "", found.port)
            }
            var watch: TXTWatch?
            if !interfaces.isEmpty {
                let addresses = interfaces.compactMap(IPv4Address.init)
                guard addresses.count == interfaces.count else {
                    options.fail("--interface must be IPv4 addresses, for example 192.168.1.20", code: 2, kind: "usage")
                }
                let started = TXTWatch(interfaces: addresses)
                do throws(MDNSError) {
                    try await started.start()
                } catch {
                    options.fail(
                        "mDNS could not start (\(error)). Check the --interface addresses",
                        code: 1,
                        kind: "mdns"
                    )
                }
                watch = started
            }
            let json = options.json
            let started = Date()
            let tester = HAPTester(
                target: HAPTester.Target(
                    host: address,
                    port: number,
                    setupCode: code,
                    setupID: id,
                    destructive: destructive,
                    restartCommand: restartCommand,
                    timeout: timeout
                ),
                txt: watch,
                report: { result in json ? Output.json(result) : Self.print(result) }
            )
            let passed = await tester.run()
            await watch?.stop()
            if !json {
                let counts = Dictionary(grouping: tester.results, by: \.result).mapValues(\.count)
                Output.line(
                    "\(counts[.pass] ?? 0) passed, \(counts[.fail] ?? 0) failed, \(counts[.warning] ?? 0) warnings, "
                        + "\(counts[.skipped] ?? 0) skipped in \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
                )
            }
            if !passed { throw ExitCode(1) }
        }

        /// Writes one result as text: the outcome, id and title, then what was seen, indented.
        static func print(_ result: CheckResult) {
            let label =
                ["pass": "PASS", "fail": "FAIL", "warning": "WARN", "skipped": "SKIP"][result.result.rawValue] ?? ""
            Output.line("\(label)  \(result.id): \(result.title) (\(result.spec))")
            for detail in result.details { Output.line("      \(detail)") }
        }
    }
}
