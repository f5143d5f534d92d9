import ArgumentParser
import Automation
import ByteStreams
import DNSSD
import Foundation
import HAP
import HAPTypes
import HearthAPI
import HomeGraph
import Hub
import HubServer
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import Relay
import ServiceLifecycle

/// The hub daemon: keeps the home, serves the API, stops cleanly on SIGINT and SIGTERM.
@main
struct Hearthd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearthd",
        abstract: "The Hearth home hub: the common home database and its API.",
        discussion: """
            State lives in --state (default ~/.hearth, or ~/.hearth-demo with --demo). On first start hearthd \
            makes an owner account and writes its token to <state>/owner.token and the API address with the token \
            to <state>/client.json (both mode 0600). With the default state folder it also writes the same to \
            ~/.config/hearth/config.json ($XDG_CONFIG_HOME/hearth/config.json), where `hearth` looks.
            """
    )

    @Option(help: "The state folder (default ~/.hearth; ~/.hearth-demo with --demo).")
    var state: String?

    @Option(
        help: """
            The address to listen on; anything but loopback must be asked for, and serves only the secure listener \
            (paired clients, docs/remote-access.md) on --remote-port, while plain HTTP stays on 127.0.0.1.
            """
    )
    var address = "127.0.0.1"

    @Option(help: "The TCP port of plain HTTP (0 picks a free one).")
    var port = 7878

    @Option(help: "Serve the secure listener (paired clients only) on this address (on loopback with --demo).")
    var remoteAddress: String?

    @Option(help: "The secure listener's TCP port (0 picks a free one).")
    var remotePort = 7879

    @Option(
        help: """
            Serve the web app and the API over TLS on this address (default: --address when it is not loopback; \
            plain HTTP with tokens never leaves loopback).
            """
    )
    var tlsAddress: String?

    @Option(help: "The TLS listener's TCP port (0 picks a free one).")
    var tlsPort = 7443

    @Option(help: "A PEM certificate chain for the TLS listener (default: one the hub makes for itself).")
    var tlsCertificate: String?

    @Option(help: "The PEM private key of --tls-certificate.")
    var tlsKey: String?

    @Option(
        help: """
            A relay (ws:// or wss:// URL, docs/relay.md) to keep an outbound link to, so paired clients reach the \
            secure listener from anywhere by the hub's routing id; starts the secure listener on 127.0.0.1 if none.
            """
    )
    var relay: String?

    @Option(
        help: """
            With a wss:// --relay: a PEM file of the certificates to trust it with (a private CA, or the relay's own \
            certificate) instead of the system's authorities; told to paired clients with the relay.
            """
    )
    var relayCa: String?

    @Option(help: .hidden)
    var maximumFailedPairingAttempts = 100

    @Flag(
        help: "Start with a demo home (rooms, zones, two scenes) and hearth-sim's demo bridge in process on loopback."
    )
    var demo = false

    @Option(help: "The owner's name when the owner account is made.")
    var ownerName = "Owner"

    @Flag(
        inversion: .prefixedNo,
        help: "Write ~/.config/hearth/config.json for `hearth` (default: only with the default state folder)."
    )
    var userConfig: Bool?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @Option(
        name: .customLong("interface"),
        help: "An IPv4 address whose interface the hub browses over mDNS for accessories (repeatable; none by default)."
    )
    var interfaces: [String] = []

    func validate() throws {
        if let relay, let problem = RelayURL.problem(relay) { throw ValidationError("--relay \(relay): \(problem).") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together: give both or neither.")
        }
        if relayCa != nil, relay == nil { throw ValidationError("--relay-ca goes with --relay URL.") }
        for text in interfaces where IPv4Address(text) == nil {
            throw ValidationError("--interface \(text) is not an IPv4 address.")
        }
    }

    func run() async throws {
        do {
            try await serve()
        } catch let error as CleanExit {
            throw error
        } catch let error as ExitCode {
            throw error
        } catch {
            // Every failure is one sentence on stderr, never a Swift enum dump (issue 20).
            FileHandle.standardError.write(Data("hearthd: \(Self.sentence(for: error)).\n".utf8))
            throw ExitCode.failure
        }
    }

    /// A sentence for a failure that ends hearthd.
    static func sentence(for error: any Error) -> String {
        if let error = error as? HearthdError { return error.description }
        return APIError.sentence(for: error)
    }

    func serve() async throws {
        var logger = Logger(label: "hearthd")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        // Every connection is a file: a low soft limit would let idle connections lock clients out.
        let files = OpenFileLimit.raiseSoftLimitToHard()
        if files.after > files.before {
            logger.debug("raised the open-file limit", metadata: ["from": "\(files.before)", "to": "\(files.after)"])
        }
        let folder = HubStateFolder(path: state ?? Self.defaultState(demo: demo))
        try folder.create()
        // A test clock (start, real start, speed), so a test can run days of automations in seconds, also
        // across a restart of this process. Never set in normal use.
        var clock: any AutomationClock = SystemClock()
        if let text = ProcessInfo.processInfo.environment["HEARTH_CLOCK"] {
            guard let scaled = ScaledClock(specification: text) else {
                throw ValidationError("HEARTH_CLOCK must be start=<unix seconds>,real=<unix seconds>,speed=<factor>")
            }
            logger.warning("automation time comes from HEARTH_CLOCK", metadata: ["clock": "\(text)"])
            clock = scaled
        }
        let hub = try await Hub(
            configuration: .init(
                stateFolder: folder.path,
                logger: logger,
                interfaces: interfaces.compactMap { IPv4Address($0) },
                clock: clock
            )
        )
        let credentials = try CredentialStore(path: folder.credentials)
        let owner = try await folder.ensureOwner(in: credentials, name: ownerName)
        let demoHomeID = demo ? try await DemoHome.create(in: hub, owner: owner.userID, ownerName: ownerName).id : nil
        let bridge = demo ? try await DemoBridge.start(folder: folder.path + "/demo-bridge", logger: logger) : nil
        let identity = try HubIdentity.loadOrCreate(atPath: folder.hubKey)
        print("hearthd: hub key fingerprint \(identity.fingerprint); routing id \(identity.routingID)")
        let ownerSetupCode = try await folder.ensureOwnerSetupCode(in: credentials, owner: owner.userID)
        // Plain HTTP with tokens only on loopback; any other address serves the secure listener instead.
        let plainHost = Self.isLoopback(address) ? address : "127.0.0.1"
        let secureHost =
            remoteAddress ?? (Self.isLoopback(address) ? (demo || relay != nil ? "127.0.0.1" : nil) : address)
        var configuration = HubServer.Configuration(host: plainHost, port: port)
        configuration.secureHost = secureHost
        configuration.securePort = remotePort
        configuration.relayURL = relay
        var relayTLS: TLSConfiguration?
        if let relayCa {
            do {
                let pem = try String(contentsOfFile: relayCa, encoding: .utf8)
                relayTLS = try RelayTrust.configuration(trustingPEM: pem)
                configuration.relayCertificates = pem
            } catch let failure as RelayTrust.Failure {
                throw HearthdError.relayCertificates("\(relayCa): \(failure.description)")
            } catch {
                throw HearthdError.relayCertificates("\(relayCa) cannot be read")
            }
        }
        configuration.maximumFailedPairingAttempts = maximumFailedPairingAttempts
        let tlsHost = tlsAddress ?? (Self.isLoopback(address) ? nil : address)
        if let tlsHost {
            configuration.tlsHost = tlsHost
            configuration.tlsPort = tlsPort
            configuration.webCertificate = try Self.webCertificate(
                for: tlsHost,
                folder: folder,
                certificate: tlsCertificate,
                key: tlsKey
            )
        }
        let server = HubServer(
            hub: hub,
            credentials: credentials,
            configuration: configuration,
            identity: identity,
            logger: logger
        )
        let writeUserConfig = userConfig ?? (state == nil)
        let stateFolder = folder
        let isDemo = demo
        let ready = ReadyGate()
        let secureReady = ReadyGate()
        let tlsReady = ReadyGate()
        let hubService = HubService(hub: hub, ready: [ready, secureReady, tlsReady]) { [logger] hub in
            guard let bridge, let demoHomeID else { return }
            try await Self.connect(bridge, to: demoHomeID, in: hub, owner: owner.userID, logger: logger)
        }
        let api = APIService(server: server, ready: ready) { [bridgePort = bridge?.port] channel in
            let port = channel.localAddress?.port ?? 0
            let host = channel.localAddress?.ipAddress ?? "127.0.0.1"
            let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
            guard let token = owner.token else {
                print(
                    "hearthd: serving \(url); \(stateFolder.ownerToken) is gone, so no client configuration is written"
                )
                return
            }
            let client = ClientConfiguration(
                url: url,
                token: token,
                userID: owner.userID,
                stateFolder: stateFolder.path
            )
            do {
                try client.write(toPath: stateFolder.clientConfiguration)
                if writeUserConfig { try client.write(toPath: ClientConfiguration.userConfigurationPath) }
            } catch {
                print("hearthd: could not write the client configuration: \(APIError.sentence(for: error))")
            }
            Self.printWelcome(
                url: url,
                folder: stateFolder,
                demo: isDemo,
                bridgePort: bridgePort,
                demoIDs: await DemoIDs(home: demoHomeID, in: hub),
                userConfig: writeUserConfig
            )
        }
        // Stopped in the reverse order: the API, then the hub (its store closes with a snapshot), then the bridge.
        // The demo's own secure listener is a convenience: when its port is taken the demo serves without it.
        let secureIsOptional = demo && remoteAddress == nil && relay == nil && Self.isLoopback(address)
        let relayLink = relay.map {
            RelayLinkService(relayURL: $0, identity: identity, tls: relayTLS, logger: logger)
        }
        let secureAPI = APIService(server: server, ready: secureReady, listener: .secure, isOptional: secureIsOptional)
        {
            channel in
            let port = channel.localAddress?.port ?? 0
            let host = channel.localAddress?.ipAddress ?? "127.0.0.1"
            relayLink?.start(targetHost: host, targetPort: port)
            print(
                "hearthd: secure listener (paired clients only) on \(host.contains(":") ? "[\(host)]" : host):\(port)"
                    + (ownerSetupCode.map { "; the owner's setup code is in \($0) (mode 0600)" } ?? "")
            )
            fflush(nil)
        }
        let fingerprint = configuration.webCertificate?.fingerprint ?? ""
        let tlsAPI = APIService(server: server, ready: tlsReady, listener: .tls) { channel in
            let port = channel.localAddress?.port ?? 0
            let host = channel.localAddress?.ipAddress ?? "127.0.0.1"
            print(
                "hearthd: web app over TLS on https://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
                    + " (certificate SHA-256 \(fingerprint))"
            )
            fflush(nil)
        }
        let services: [any ServiceLifecycle.Service] =
            (bridge.map { [DemoBridgeService(bridge: $0)] } ?? []) + [hubService, api]
            + (secureHost == nil ? [] : [secureAPI]) + (tlsHost == nil ? [] : [tlsAPI])
            + (relayLink.map { [$0] } ?? [])
        let group = ServiceGroup(
            configuration: .init(
                services: services.map {
                    .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup)
                },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        print("hearthd: stopped")
        fflush(nil)
    }

    /// The TLS listener's certificate: the owner's (`--tls-certificate`), or the one the hub made for itself,
    /// naming `host` (every interface's address when it is a wildcard), this machine's name and loopback.
    static func webCertificate(
        for host: String,
        folder: HubStateFolder,
        certificate: String?,
        key: String?
    ) throws(HearthdError) -> WebCertificate {
        do throws(WebCertificate.Failure) {
            if let certificate, let key { return try WebCertificate.load(certificatePath: certificate, keyPath: key) }
            var hosts: [String] = []
            if host == "0.0.0.0" || host == "::" {
                hosts += HubServer.interfaceAddresses()
            } else {
                hosts.append(host)
            }
            let name = ProcessInfo.processInfo.hostName
            if !name.isEmpty, name != "localhost" { hosts += [name, name + ".local"] }
            hosts += ["localhost", "127.0.0.1"]
            var seen: Set<String> = []
            return try WebCertificate.loadOrCreate(
                certificatePath: folder.webCertificate,
                keyPath: folder.webKey,
                hosts: hosts.filter { seen.insert($0).inserted }
            )
        } catch {
            throw HearthdError.noCertificate(error.description)
        }
    }

    /// Whether `host` is a loopback address or name.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    static func defaultState(demo: Bool) -> String {
        NSHomeDirectory() + (demo ? "/.hearth-demo" : "/.hearth")
    }

    /// Pairs the demo bridge on its first start and furnishes the demo home with it; on later starts the hub
    /// reconnects by itself, and is told the new port when the bridge had to move.
    static func connect(
        _ bridge: DemoBridge,
        to homeID: UUID,
        in hub: Hub,
        owner: UUID,
        logger: Logger
    ) async throws {
        guard let advertisement = await bridge.advertisement else { return }
        let (deviceID, configurationNumber) = advertisement
        let home = hub.graph.home(withID: homeID)
        let isPaired =
            home?.accessories.contains { accessory in
                accessory.deviceID?.description.uppercased() == deviceID.uppercased()
            } ?? false
        if isPaired {
            if bridge.previousPort != nil {
                await hub.noteAdvertisement(
                    deviceID: deviceID,
                    host: "127.0.0.1",
                    port: bridge.port,
                    configurationNumber: configurationNumber
                )
            }
            return
        }
        let added: [Accessory]
        do {
            added = try await hub.pairAccessory(
                home: homeID,
                host: "127.0.0.1",
                port: bridge.port,
                setupCode: bridge.setupCode,
                as: .user(owner)
            )
        } catch {
            // The bridge keeps a pairing the hub lost (a state folder copied in part): serve the home without it.
            logger.error("could not pair the demo bridge", metadata: ["error": "\(APIError.sentence(for: error))"])
            print(
                "hearthd: could not pair the demo bridge (\(APIError.sentence(for: error))); "
                    + "remove <state>/demo-bridge to start it afresh"
            )
            return
        }
        try await DemoHome.furnish(added, home: homeID, in: hub, owner: owner)
        logger.info("paired the demo bridge", metadata: ["accessories": "\(added.count)"])
    }

    /// The ids the welcome text shows for the demo home.
    struct DemoIDs: Sendable {
        var home: UUID
        var lampOn: UUID?
        var goodMorning: UUID?

        /// The ids in the demo home `home` of `hub`; `nil` without a demo home.
        init?(home homeID: UUID?, in hub: Hub) async {
            guard let homeID, let home = hub.graph.home(withID: homeID) else { return nil }
            self.home = homeID
            lampOn =
                home.accessories.first { $0.name == "Living Room Lamp" }?.characteristics.first {
                    $0.type == HAPUUID(apple: 0x25)
                }?.id
            goodMorning = home.actionSets.first { $0.kind == .wakeUp }?.id
        }
    }

    static func printWelcome(
        url: String,
        folder: HubStateFolder,
        demo: Bool,
        bridgePort: Int?,
        demoIDs: DemoIDs?,
        userConfig: Bool
    ) {
        let configNote =
            userConfig
            ? "`hearth` finds it through \(ClientConfiguration.userConfigurationPath)"
            : "point `hearth` at \(folder.clientConfiguration)"
        let bridgeNote =
            bridgePort.map { "\n  demo bridge:   hearth-sim's demo bridge in process on 127.0.0.1:\($0) (no mDNS)" }
            ?? ""
        let token = "$(cat \(folder.ownerToken))"
        var demoNote = ""
        if let demo = demoIDs {
            let home = "\(url)/v1/homes/\(demo.home.uuidString)"
            let auth = "-H \"Authorization: Bearer \(token)\""
            let lamp = "\(home)/characteristics/\(demo.lampOn?.uuidString ?? "<characteristicID>")"
            let morning = "\(home)/actionSets/\(demo.goodMorning?.uuidString ?? "<actionSetID>")/run"
            demoNote = [
                "",
                "The demo home (\(demo.home.uuidString)): its accessories, the Living Room Lamp on and read back",
                "through the accessory, the scene Good Morning:",
                "  curl -s \(auth) \(home)/accessories",
                "  curl -s -X PUT \(auth) -d '{\"value\": true}' \(lamp)",
                "  curl -s \(auth) '\(lamp)?refresh=true'",
                "  curl -s -X POST \(auth) \(morning)",
            ].joined(separator: "\n")
        }
        print(
            """
            hearthd: serving the Hearth API on \(url)\(demo ? " with the demo home" : "")\(bridgeNote)
              open the home: \(url)/ in a browser; sign in with the owner token
              state folder:  \(folder.path)
              owner token:   \(folder.ownerToken) (mode 0600; never printed)
              client config: \(folder.clientConfiguration); \(configNote)
            Try, in a second terminal:
              curl -s -H "Authorization: Bearer $(cat \(folder.ownerToken))" \(url)/v1/homes
              curl -s -H "Authorization: Bearer $(cat \(folder.ownerToken))" \(url)/v1/me\(demoNote)
            Stop with Ctrl-C.
            """
        )
        fflush(nil)
    }
}

/// Why hearthd could not start or keep serving, for the one line it prints before exiting.
enum HearthdError: Error, CustomStringConvertible {
    /// The API's address and port could not be bound: `errno` says why (in use, not allowed, not this host's).
    case cannotListen(host: String, port: Int, errno: Int32)
    /// The TLS listener's certificate could not be read or made; carries the reason as a sentence.
    case noCertificate(String)
    /// `--relay-ca` could not be read; carries the reason as a sentence.
    case relayCertificates(String)

    /// One sentence: what failed and what to do.
    var description: String {
        switch self {
        case .noCertificate(let reason):
            return "the TLS listener has no certificate: \(reason)"
        case .relayCertificates(let reason):
            return "--relay-ca \(reason)"
        case .cannotListen(let host, let port, let code):
            let reason = String(cString: strerror(code)).lowercased()
            let advice =
                switch code {
                case EADDRINUSE: "; stop the program that uses it, or give another port with --port"
                case EACCES: "; ports below 1024 need privileges, so give another port with --port"
                case EADDRNOTAVAIL: "; give an address of this machine with --address"
                default: ""
                }
            return "could not listen on \(host):\(port) (\(reason))\(advice)"
        }
    }

    /// The first `IOError` in `value` or the values it holds, at most `depth` levels down.
    static func systemError(in value: Any, depth: Int) -> IOError? {
        if let ioError = value as? IOError { return ioError }
        guard depth > 0 else { return nil }
        for child in Mirror(reflecting: value).children {
            if let found = systemError(in: child.value, depth: depth - 1) { return found }
        }
        return nil
    }
}
