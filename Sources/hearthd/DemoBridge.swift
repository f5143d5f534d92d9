import AtomicFiles
import Foundation
import HAP
import HAPAccessoryServer
import Logging
import NIOPosix
import Simulator

/// The demo home's accessories: hearth-sim's demo bridge, served in process on 127.0.0.1 with no mDNS.
///
/// Its state lives in `<state>/demo-bridge`: the accessory's keys and pairings (`accessory.json`), the ids of its
/// accessories (`identifiers.json`), its setup code and the port it listens on, so after a restart it comes back
/// on the same port with the same ids and the hub reconnects by itself.
struct DemoBridge {
    /// The bridge's name.
    static let name = "Demo Bridge"

    /// The accessories behind the bridge, as hearth-sim's demo: lights, a lock, sensors, a thermostat, a garage
    /// door, a window covering, a doorbell and an outlet.
    static let presets: [PresetRequest] = [
        .init(preset: .lightbulbColor, count: 2), .init(preset: .doorLock, count: 1),
        .init(preset: .motionSensor, count: 1), .init(preset: .thermostat, count: 1),
        .init(preset: .garageDoor, count: 1), .init(preset: .windowCovering, count: 1),
        .init(preset: .contactSensor, count: 1), .init(preset: .doorbell, count: 1), .init(preset: .outlet, count: 1),
    ]

    /// The server on loopback.
    let server: AccessoryServer
    /// The simulated accessories it serves.
    let simulator: SimulatedAccessories
    /// The port it listens on.
    let port: Int
    /// The port it listened on last time, when that one was taken and it moved; `nil` otherwise.
    let previousPort: Int?
    /// Its setup code.
    let setupCode: SetupCode
    /// The task that moves simulated time (a thermostat heating up, a garage door closing).
    let clockTask: Task<Void, Never>

    /// Starts the bridge with the state in `folder`, on the port it had before when that is free.
    static func start(folder: String, logger: Logger) async throws -> DemoBridge {
        try FileManager.default.createDirectory(
            atPath: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let files = Files(folder: folder)
        let setupCode = try files.setupCode() ?? SetupCode.random()
        try files.store(setupCode)
        let identifiers = try files.identifiers() ?? IdentifierMap()
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let simulator = try SimulatedAccessories(
            description: SimulatorDescription(bridgeName: name, presets: presets),
            identifiers: identifiers,
            eventLoop: loop
        )
        try files.store(await simulator.identifiers)
        let stored = files.port()
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .notice)
        func makeServer(port: Int) -> AccessoryServer {
            AccessoryServer(
                configuration: AccessoryServer.Configuration(
                    name: name,
                    model: "hearth-sim",
                    category: simulator.category,
                    host: "127.0.0.1",
                    port: port,
                    setupCode: setupCode
                ),
                backend: simulator,
                store: FileAccessoryStateStore(path: files.accessoryState),
                logger: serverLogger,
                eventLoopGroup: loop
            )
        }
        var server = makeServer(port: stored ?? 0)
        var previousPort: Int?
        let port: Int
        do {
            port = try await server.start()
        } catch {
            guard let stored, stored != 0 else { throw error }
            // The port is taken: take any free one; the hub is told the new address.
            logger.notice("the demo bridge's port is taken; moving", metadata: ["port": "\(stored)"])
            server = makeServer(port: 0)
            port = try await server.start()
            previousPort = stored
        }
        try files.store(port: port)
        let clockTask = Task { await simulator.run() }
        return DemoBridge(
            server: server,
            simulator: simulator,
            port: port,
            previousPort: previousPort,
            setupCode: setupCode,
            clockTask: clockTask
        )
    }

    /// The bridge's HAP device ID and configuration number, as it would advertise them.
    var advertisement: (deviceID: String, configurationNumber: Int)? {
        get async {
            guard let advertisement = await server.advertisement else { return nil }
            return (advertisement.deviceID, advertisement.configurationNumber)
        }
    }

    /// Stops serving and stops the simulated clock.
    func stop() async {
        await server.stop()
        clockTask.cancel()
        await simulator.finish()
    }

    /// The files of `<state>/demo-bridge`.
    struct Files {
        let folder: String

        var accessoryState: String { folder + "/accessory.json" }
        var setupCodePath: String { folder + "/setup-code" }
        var identifiersPath: String { folder + "/identifiers.json" }
        var portPath: String { folder + "/port" }

        func setupCode() throws -> SetupCode? {
            guard let data = FileManager.default.contents(atPath: setupCodePath) else { return nil }
            return try SetupCode(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }

        func store(_ code: SetupCode) throws {
            try AtomicFile.write(Data((code.formatted + "\n").utf8), toPath: setupCodePath)
        }

        func identifiers() throws -> IdentifierMap? {
            guard let data = FileManager.default.contents(atPath: identifiersPath) else { return nil }
            return try JSONDecoder().decode(IdentifierMap.self, from: data)
        }

        func store(_ map: IdentifierMap) throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try AtomicFile.write(try encoder.encode(map), toPath: identifiersPath)
        }

        func port() -> Int? {
            guard let data = FileManager.default.contents(atPath: portPath) else { return nil }
            return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }

        func store(port: Int) throws {
            try AtomicFile.write(Data("\(port)\n".utf8), toPath: portPath)
        }
    }
}
