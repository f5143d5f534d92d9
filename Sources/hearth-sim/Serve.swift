import ArgumentParser
import DNSSD
import Dispatch
import HAP
import HAPAccessoryServer
import Logging
import NIOPosix
import SetupQR
import Simulator

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `hearth-sim serve`: serves the described accessories until SIGTERM or SIGINT.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve simulated accessories as a HAP accessory (the default command).",
        discussion: """
            Accessories come from DESCRIPTION-FILE, else from --preset, else from the state folder's last \
            description, else a demo bridge. mDNS advertises only on the --interface addresses given; without \
            one, pass --no-mdns and pair by address and port.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "TCP port for HAP (0 picks a free one).")
    var port = 51826

    @Option(help: "The setup code, XXX-XX-XXX; default: the stored one, or a new random one.")
    var setupCode: String?

    @Option(name: .customLong("interface"), help: "An IPv4 address whose interface carries mDNS (repeatable).")
    var interfaces: [String] = []

    @Option(help: "The address HAP listens on; default: the first --interface, else 127.0.0.1.")
    var bind: String?

    @Flag(help: "Serve a bridge even for a single accessory.")
    var bridge = false

    @Option(name: .customLong("preset"), help: "NAME[:COUNT], for example lightbulb:20 or door-lock (repeatable).")
    var presets: [String] = []

    @Option(help: "The accessory's (or bridge's) name.")
    var name = "Hearth Bridge"

    @Flag(name: .customLong("no-mdns"), help: "Do not advertise over mDNS.")
    var noMDNS = false

    @Option(help: "Also serve the control interface on this TCP HOST:PORT (loopback or a namespace address).")
    var control: String?

    @Option(help: "Event coalescing window in milliseconds (0 sends every change at once).")
    var coalesceMilliseconds = Int(
        AccessoryServer.Configuration.defaultEventCoalescingWindow.components.attoseconds / 1_000_000_000_000_000
    )

    @Option(help: "Seconds a connection that has not completed pair-verify may go without a whole request.")
    var unverifiedTimeout = Int(AccessoryServer.Configuration.defaultUnverifiedTimeout.components.seconds)

    @Option(
        name: .customLong("fault"),
        help: "Misbehave on purpose from the start: NAME[:ARGS], for example drop-after:3 or slow:200 (repeatable)."
    )
    var faults: [String] = []

    @Flag(help: "Log every request.")
    var verbose = false

    @Argument(help: "A JSON or YAML (.yaml, .yml) accessory description (docs/simulator.md).")
    var descriptionFile: String?

    func validate() throws {
        if let setupCode {
            do { _ = try SetupCode(setupCode) } catch {
                throw ValidationError("--setup-code must be XXX-XX-XXX digits and not a trivial code: \(error)")
            }
        }
        for address in interfaces + (bind.map { [$0] } ?? []) where IPv4Address(address) == nil {
            throw ValidationError("\(address) is not an IPv4 address.")
        }
        if !noMDNS && interfaces.isEmpty {
            throw ValidationError("mDNS needs at least one --interface ADDRESS; or pass --no-mdns.")
        }
        if let control, Self.hostAndPort(control) == nil {
            throw ValidationError("--control must be HOST:PORT.")
        }
        for fault in faults {
            do { _ = try SimulatorFault(parsing: fault) } catch { throw ValidationError("--fault \(fault): \(error).") }
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535.") }
        guard coalesceMilliseconds >= 0 else { throw ValidationError("--coalesce-milliseconds must be >= 0.") }
        guard unverifiedTimeout >= 1 else { throw ValidationError("--unverified-timeout must be at least 1 second.") }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .notice
            return handler
        }
        let logger = Logger(label: "hearth-sim")
        let folder = global.folder
        try folder.create()

        let code = try resolveSetupCode(folder)
        let storedIdentifiers = try folder.storedIdentifiers()
        let description = try resolveDescription(folder)
        let simulator: SimulatedAccessories
        // The simulation and the server share one event loop, so a request never waits for another thread.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        do {
            simulator = try SimulatedAccessories(
                description: description,
                identifiers: storedIdentifiers ?? .init(),
                eventLoop: loop
            )
        } catch {
            fail("\(error)", code: 2)
        }
        try folder.store(description)
        try folder.store(await simulator.identifiers)

        let bindHost = bind ?? interfaces.first ?? "127.0.0.1"
        var configuration = AccessoryServer.Configuration(
            name: name,
            model: "hearth-sim",
            category: simulator.category,
            host: bindHost,
            port: port,
            eventCoalescingWindow: .milliseconds(coalesceMilliseconds),
            unverifiedTimeout: .seconds(unverifiedTimeout),
            setupCode: code
        )
        // hearth-sim is little besides this server: let it give freed heap pages back after rare large work.
        configuration.releasesFreeMemory = true
        let server = AccessoryServer(
            configuration: configuration,
            backend: simulator,
            store: FileAccessoryStateStore(path: folder.accessoryState),
            logger: logger,
            eventLoopGroup: loop,
            faults: TransportFaults()
        )
        let boundPort = try await server.start()
        let faultSwitch = SimulatorFaults(server: server, simulator: simulator)
        do {
            for fault in try description.parsedFaults() + faults.map({ try SimulatorFault(parsing: $0) }) {
                try await faultSwitch.set(fault)
            }
        } catch {
            fail("\(error)", code: 2)
        }
        if simulator.didChangeAtStart && storedIdentifiers != nil {
            await simulator.announceDatabaseChanged()
        }

        let handler = SimulatorControlHandler(simulator: simulator, faults: faultSwitch) { map in
            do { try folder.store(map) } catch { logger.error("could not store the id map: \(error)") }
        }
        let controlServer = ControlServer(handler: handler)
        var listeners = [try await controlServer.bind(.unixSocket(path: folder.controlSocket))]
        if let control, let (host, controlPort) = Self.hostAndPort(control) {
            listeners.append(try await controlServer.bind(.tcp(host: host, port: controlPort)))
        }

        let advertisement = await server.advertisement
        let setupID = await server.setupID
        printBanner(code: code, setupID: setupID, advertisement: advertisement, port: boundPort, host: bindHost)
        // Start-up (the description, the database, the QR code) freed much more than it keeps.
        AccessoryServer.releaseFreeMemory()

        let responder: MDNSResponder? =
            noMDNS
            ? nil
            : MDNSResponder(
                interfaces: interfaces.compactMap(IPv4Address.init),
                group: MultiThreadedEventLoopGroup.singleton,
                logger: logger
            )
        let addresses = interfaces.compactMap(IPv4Address.init)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await simulator.run() }
            for listener in listeners {
                group.addTask { await listener.run() }
            }
            if let responder {
                group.addTask {
                    var registered = false
                    for await update in server.advertisements {
                        let txt = update.txtRecord.map { (key: $0.0, value: $0.1) }
                        do {
                            if registered {
                                try await responder.updateTXT(txt)
                            } else {
                                let suffix = update.deviceID.replacing(":", with: "").suffix(6)
                                let instance = ServiceInstance(
                                    name: "\(update.name) \(suffix)",
                                    hostName: "hearth-sim-\(suffix)",
                                    port: UInt16(update.port),
                                    txt: txt,
                                    addresses: addresses
                                )
                                _ = try await responder.register(instance)
                                registered = true
                            }
                        } catch {
                            logger.error("mDNS: \(error)")
                        }
                    }
                }
            }
            await Self.waitForTerminationSignal()
            group.cancelAll()
        }
        await faultSwitch.stop()
        await responder?.stop()
        await server.stop()
        await simulator.finish()
        try? FileManager.default.removeItem(atPath: folder.controlSocket)
    }

    private func resolveSetupCode(_ folder: StateFolder) throws -> SetupCode {
        if let setupCode {
            let code = try SetupCode(setupCode)
            try folder.store(code)
            return code
        }
        if let stored = try folder.storedSetupCode() { return stored }
        let code = SetupCode.random()
        try folder.store(code)
        return code
    }

    private func resolveDescription(_ folder: StateFolder) throws -> SimulatorDescription {
        do {
            if let descriptionFile {
                guard let data = FileManager.default.contents(atPath: descriptionFile) else {
                    fail("cannot read \(descriptionFile). Check the path.", code: 3)
                }
                return try SimulatorDescription(fileData: data, path: descriptionFile)
            }
            if !presets.isEmpty {
                let requests = try presets.map { try PresetRequest(parsing: $0) }
                if !bridge && requests.count == 1 && requests[0].count == 1 {
                    return SimulatorDescription(
                        bridge: nil,
                        accessories: [AccessoryDescription(name: name, preset: requests[0].preset.rawValue)]
                    )
                }
                return SimulatorDescription(bridgeName: name, presets: requests)
            }
            if let stored = try folder.storedDescription() { return stored }
            return SimulatorDescription(bridgeName: name, presets: Self.demoPresets)
        } catch let error as DescriptionError {
            fail("\(error)", code: 2)
        }
    }

    /// The demo home served when nothing else is asked for.
    static let demoPresets: [PresetRequest] = [
        .init(preset: .lightbulbColor, count: 2), .init(preset: .doorLock, count: 1),
        .init(preset: .motionSensor, count: 1), .init(preset: .thermostat, count: 1),
        .init(preset: .garageDoor, count: 1), .init(preset: .windowCovering, count: 1),
        .init(preset: .contactSensor, count: 1), .init(preset: .doorbell, count: 1), .init(preset: .outlet, count: 1),
    ]

    private func printBanner(code: SetupCode, setupID: SetupID?, advertisement: Advertisement?, port: Int, host: String)
    {
        let payload = SetupPayload(
            setupCode: code,
            setupID: setupID,
            category: advertisement?.category ?? .bridge,
            supportsIP: true
        )
        let deviceID = advertisement?.deviceID ?? "?"
        if global.json {
            let banner = ServeBanner(
                port: port,
                host: host,
                deviceID: deviceID,
                setupCode: code.formatted,
                setupURI: payload.uri,
                controlSocket: global.folder.controlSocket,
                isPaired: !(advertisement?.isUnpaired ?? true)
            )
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(banner) { print(String(decoding: data, as: UTF8.self)) }
        } else {
            print("hearth-sim serving on \(host):\(port)")
            print("device ID   \(deviceID)")
            print("setup code  \(code.formatted)")
            print("setup URI   \(payload.uri)")
            if let qr = try? QRCode(encoding: payload.uri) {
                print(qr.terminalString())
            }
            print("control     hearth-sim set --state \(global.state) ACCESSORY CHARACTERISTIC VALUE")
        }
        fflush(nil)
    }

    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        return (String(text[..<colon]), port)
    }

    /// Returns when SIGTERM or SIGINT arrives.
    static func waitForTerminationSignal() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { continuation.yield(signalNumber) }
            source.resume()
            sources.append(source)
        }
        for await _ in stream { break }
        sources.forEach { $0.cancel() }
    }
}

/// The line `serve --json` prints once it listens.
struct ServeBanner: Encodable {
    var port: Int
    var host: String
    var deviceID: String
    var setupCode: String
    var setupURI: String
    var controlSocket: String
    var isPaired: Bool
}
