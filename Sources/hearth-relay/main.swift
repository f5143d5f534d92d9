import ArgumentParser
import ByteStreams
import Foundation
import Logging
import NIOCore
import NIOSSL
import Relay

/// `hearth-relay`: forwards sealed byte streams between hubs and their remote clients.
@main
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-relay",
        abstract: "Forward sealed byte streams between Hearth hubs and their remote clients.",
        discussion: """
            Hubs connect to /v1/hub?route=ID and prove their key; clients connect to /v1/client?route=ID and each \
            gets one stream to that hub. The relay holds no key: it sees routing ids, lengths and timing only. \
            See docs/relay.md.
            """
    )

    @Option(help: "The address to listen on.")
    var address = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed at start).")
    var port = 8787

    @Option(help: "Open client streams one home may have.")
    var maxStreams = 64

    @Option(help: "Frames a second one client connection may send on average.")
    var clientRate: Double = 200

    @Option(help: "Frames a second one hub link may send on average.")
    var hubRate: Double = 5000

    @Option(help: "The largest payload of one message, in bytes.")
    var maxPayload = 16384

    @Option(help: "Seconds after which a client stream with no traffic is closed.")
    var idleTimeout = 300

    @Option(help: "Seconds between pings on every WebSocket.")
    var pingInterval = 30

    @Option(help: "The most connections open at once (default: the open-file limit less a reserve).")
    var maxConnections: Int?

    @Option(help: "A PEM certificate chain: serve WebSocket over TLS (needs --tls-key).")
    var tlsCertificate: String?

    @Option(help: "The PEM private key of --tls-certificate.")
    var tlsKey: String?

    @Option(help: "Event-loop threads (default: one per core).")
    var threads: Int?

    @Option(help: "The log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    mutating func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError(
                "--log-level must be one of trace, debug, info, notice, warning, error, critical; got \(logLevel)."
            )
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together: give both or neither.")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535; got \(port).") }
        if let maxConnections, maxConnections < 1 {
            throw ValidationError("--max-connections must be at least 1; got \(maxConnections).")
        }
        if let threads, !(1...256).contains(threads) {
            throw ValidationError("--threads must be 1 to 256; got \(threads).")
        }
        guard maxStreams > 0, clientRate > 0, hubRate > 0, maxPayload >= 512, idleTimeout > 0, pingInterval > 0
        else {
            throw ValidationError(
                "--max-streams, --client-rate, --hub-rate, --idle-timeout and --ping-interval must be positive, "
                    + "and --max-payload at least 512."
            )
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        // Before anything touches NIO's shared event-loop group, which the relay's server runs on.
        if let threads { NIOSingletons.groupLoopCountSuggestion = threads }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // Every hub and client holds a descriptor: use all the system allows, and stay below it (the cap).
        OpenFileLimit.raiseSoftLimitToHard()
        var configuration = RelayServer.Configuration(host: address, port: port)
        configuration.maximumConnections = maxConnections
        configuration.maximumStreamsPerHome = maxStreams
        configuration.clientFramesPerSecond = clientRate
        configuration.clientFrameBurst = clientRate * 2
        configuration.hubFramesPerSecond = hubRate
        configuration.hubFrameBurst = hubRate * 2
        configuration.maximumPayload = maxPayload
        configuration.idleTimeout = .seconds(idleTimeout)
        configuration.pingInterval = .seconds(pingInterval)
        if let tlsCertificate, let tlsKey {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(tlsCertificate).map {
                    NIOSSLCertificateSource.certificate($0)
                }
                let key = try NIOSSLPrivateKey(file: tlsKey, format: .pem)
                configuration.tls = .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            } catch {
                throw ValidationError(
                    "Could not read --tls-certificate \(tlsCertificate) or --tls-key \(tlsKey): both must be PEM files "
                        + "this user can read (a certificate chain, and its unencrypted private key)."
                )
            }
        }
        let relay = RelayServer(configuration: configuration)
        let app = try relay.makeApplication { channel in
            // Tests and scripts read the port from this line.
            let line =
                "listening on \(channel.localAddress?.ipAddress ?? address) port \(channel.localAddress?.port ?? 0)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
        try await app.runService()
    }
}
