import ArgumentParser
import Foundation
import HearthAPI
import HomeGraph
import Hub
import HubServer
import Hummingbird
import Logging
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

    @Option(help: "The address to listen on; anything but loopback must be asked for.")
    var address = "127.0.0.1"

    @Option(help: "The TCP port (0 picks a free one).")
    var port = 7878

    @Flag(help: "Start with a demo home (rooms, zones, two scenes) on embedded defaults.")
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

    func run() async throws {
        var logger = Logger(label: "hearthd")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let folder = HubStateFolder(path: state ?? Self.defaultState(demo: demo))
        try folder.create()
        let hub = try await Hub(configuration: .init(stateFolder: folder.path, logger: logger))
        let credentials = try CredentialStore(path: folder.credentials)
        let owner = try await folder.ensureOwner(in: credentials, name: ownerName)
        if demo {
            try await DemoHome.create(in: hub, owner: owner.userID, ownerName: ownerName)
        }
        let server = HubServer(
            hub: hub,
            credentials: credentials,
            configuration: .init(host: address, port: port),
            logger: logger
        )
        let writeUserConfig = userConfig ?? (state == nil)
        let stateFolder = folder
        let isDemo = demo
        let app = server.makeApplication { channel in
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
                print("hearthd: could not write the client configuration: \(error)")
            }
            Self.printWelcome(url: url, folder: stateFolder, demo: isDemo, userConfig: writeUserConfig)
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [app],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch {
            await hub.stop()
            throw error
        }
        await hub.stop()
        print("hearthd: stopped")
        fflush(nil)
    }

    static func defaultState(demo: Bool) -> String {
        NSHomeDirectory() + (demo ? "/.hearth-demo" : "/.hearth")
    }

    static func printWelcome(url: String, folder: HubStateFolder, demo: Bool, userConfig: Bool) {
        let configNote =
            userConfig
            ? "`hearth` finds it through \(ClientConfiguration.userConfigurationPath)"
            : "point `hearth` at \(folder.clientConfiguration)"
        print(
            """
            hearthd: serving the Hearth API on \(url)\(demo ? " with the demo home" : "")
              state folder:  \(folder.path)
              owner token:   \(folder.ownerToken) (mode 0600; never printed)
              client config: \(folder.clientConfiguration); \(configNote)
            Try, in a second terminal:
              curl -s -H "Authorization: Bearer $(cat \(folder.ownerToken))" \(url)/v1/homes
              curl -s -H "Authorization: Bearer $(cat \(folder.ownerToken))" \(url)/v1/me
            Stop with Ctrl-C.
            """
        )
        fflush(nil)
    }
}
