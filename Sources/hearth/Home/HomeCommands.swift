import ArgumentParser
import Foundation
import HearthKit

/// `hearth login`: stores the hub's address and a token for the other commands (mode 0600).
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Store the hub's address and a token for the other commands (mode 0600).",
        discussion: """
            With --from, copies a client configuration hearthd wrote (<state>/client.json). Otherwise give --url \
            and the token on standard input (--token-stdin) or in a file (--token-file); the token is never an \
            argument, so it stays out of the process list and shell history. With --hub HOST:PORT and a one-time \
            CODE (the owner's setup code in <state>/owner.setup-code, or a code from \
            POST /v1/account/pairing-codes), pairs this client with the hub's secure listener instead: no token \
            crosses the network (docs/remote-access.md).
            """
    )

    @Option(help: "The hub's secure address, HOST:PORT, to pair with (with CODE).")
    var hub: String?

    @Argument(help: "With --hub or --relay: the one-time pairing code.")
    var code: String?

    @Option(help: "A relay (ws:// or wss:// URL) to pair through, with --route and CODE (docs/relay.md).")
    var relay: String?

    @Option(help: "With --relay: the hub's routing id (hearthd prints it at start).")
    var route: String?

    @Option(help: "With a wss:// --relay: a PEM file of certificates to trust it with instead of the system's.")
    var relayCa: String?

    @OptionGroup var options: HubOptions

    @Option(help: "A client configuration to copy (hearthd's <state>/client.json).")
    var from: String?

    @Option(help: "The hub's API address, such as http://127.0.0.1:7878.")
    var url: String?

    @Option(help: "A file holding the token.")
    var tokenFile: String?

    @Flag(help: "Read the token from standard input.")
    var tokenStdin = false

    func validate() throws {
        if relay != nil, route == nil { throw ValidationError("give the hub's routing id with --route ID") }
        if route != nil, relay == nil { throw ValidationError("--route goes with --relay URL") }
        if hub != nil || relay != nil {
            if code == nil { throw ValidationError("give the one-time pairing CODE with --hub or --relay") }
            return
        }
        if code != nil { throw ValidationError("a pairing CODE goes with --hub HOST:PORT or --relay URL --route ID") }
        if from == nil && url == nil {
            throw ValidationError("give --from FILE, --url URL with the token, or --hub HOST:PORT CODE")
        }
        if url != nil && tokenFile == nil && !tokenStdin {
            throw ValidationError("give the token with --token-stdin or --token-file")
        }
    }

    func run() async throws {
        if hub != nil || relay != nil, let code {
            let (me, path) = await SecurePairing.pair(
                options: options,
                address: hub,
                relay: relay,
                route: route,
                code: code,
                name: nil,
                relayCertificatesFile: relayCa
            )
            let hub = hub ?? "\(relay ?? "") (routing id \(route ?? ""))"
            struct Reply: Encodable {
                var hub: String
                var userID: UUID
                var name: String
                var config: String
            }
            options.show(Reply(hub: hub, userID: me.user.id, name: me.user.name, config: path)) {
                "Paired with the hub at \(hub) as \(me.user.name); wrote \(path) (mode 0600)."
            }
            return
        }
        var token = ""
        var address = url ?? ""
        var stateFolder = ""
        if let from {
            guard let copied = try? ClientConfiguration.read(fromPath: from) else {
                options.fail("cannot read \(from) as a client configuration", code: 1, kind: "config")
            }
            (token, address, stateFolder) = (copied.token, url ?? copied.url, copied.stateFolder)
        } else if let tokenFile {
            guard let data = FileManager.default.contents(atPath: tokenFile) else {
                options.fail("cannot read \(tokenFile)", code: 1, kind: "config")
            }
            token = String(decoding: data, as: UTF8.self)
        } else {
            token = readLine(strippingNewline: true) ?? ""
        }
        token = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { options.fail("the token is empty", code: HomeExit.usage, kind: "usage") }
        let client = HearthClient(url: address, token: token)
        let me = await options.attempt { () throws(HearthError) in try await client.me() }
        let configuration = ClientConfiguration(
            url: client.baseURL,
            token: token,
            userID: me.user.id,
            stateFolder: stateFolder
        )
        let path = options.configPath
        do {
            try configuration.write(toPath: path)
        } catch {
            options.fail("cannot write \(path). Check its folder and permissions", code: 1, kind: "config")
        }
        struct Reply: Encodable {
            var url: String
            var userID: UUID
            var name: String
            var config: String
        }
        options.show(Reply(url: client.baseURL, userID: me.user.id, name: me.user.name, config: path)) {
            "Logged in to \(client.baseURL) as \(me.user.name); wrote \(path) (mode 0600)."
        }
    }
}

/// `hearth whoami`: the caller and their homes with their role.
struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show who you are and your role in each home."
    )

    @OptionGroup var options: HubOptions

    func run() async throws {
        let client = await options.client()
        let me = await options.attempt { () throws(HearthError) in try await client.me() }
        options.show(me) {
            "\(me.user.name) (\(me.user.id.uuidString)) at \(client.baseURL)\n"
                + Output.table(
                    ["HOME", "ROLE", "ID"],
                    me.homes.map { [$0.name + ($0.isPrimary ? " *" : ""), $0.role.rawValue, $0.id.uuidString] }
                )
        }
    }
}

/// `hearth home …`.
struct HomeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "home",
        abstract: "List, show, add, rename, remove, export and import homes; set their temperature unit.",
        subcommands: [
            List.self, Show.self, Add.self, Rename.self, Remove.self, Primary.self, SetLocation.self, Unit.self,
            Export.self, Import.self,
        ],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The homes you belong to (* marks the primary).")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let client = await options.client()
            let homes = await options.attempt { () throws(HearthError) in try await client.homes() }
            options.show(HomeList(homes: homes)) {
                homes.isEmpty
                    ? "No homes. Add one with 'hearth home add NAME'."
                    : Output.table(
                        ["HOME", "ROLE", "CHANGES", "ID"],
                        homes.map {
                            [
                                $0.name + ($0.isPrimary ? " *" : ""), $0.role.rawValue, "\($0.sequence)",
                                $0.id.uuidString,
                            ]
                        }
                    )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A home as a tree: rooms, accessories, scenes.")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let response = await options.loadHome(await options.client())
            options.show(response) { Tree.home(response.home, role: response.role) }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a home; you become its owner.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The home's name.") var name: String
        @Option(help: "Its IANA time zone (default UTC).") var timeZone: String?

        func run() async throws {
            let client = await options.client()
            let response = await options.attempt { () throws(HearthError) in
                try await client.createHome(name: name, timeZone: timeZone)
            }
            options.show(response) { "Added home \(response.home.name) (\(response.home.id.uuidString))." }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename the home given by --home (or the primary).")
        @OptionGroup var options: HubOptions
        @Argument(help: "The new name.") var name: String

        func run() async throws {
            let session = await options.session()
            await session.change("Renamed \(session.home.name) to \(name).") { client, homeID throws(HearthError) in
                try await client.updateHome(homeID, name: name)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a home and everything in it (owner only).")
        @OptionGroup var options: HubOptions
        @Argument(help: "The home to remove, by name or id (must be given).") var target: String

        func run() async throws {
            let session = await options.session(home: target)
            await session.change("Removed home \(session.home.name).") { client, homeID throws(HearthError) in
                try await client.removeHome(homeID)
            }
        }
    }

    struct Primary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a home the primary one.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The home, by name or id.") var target: String

        func run() async throws {
            let session = await options.session(home: target)
            await session.change("\(session.home.name) is now the primary home.") {
                client,
                homeID throws(HearthError) in
                try await client.setPrimaryHome(homeID)
            }
        }
    }

    struct SetLocation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "location",
            abstract: "Set the home's location (for sunrise and sunset), or clear it with --clear."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "Latitude in degrees.") var latitude: Double?
        @Argument(help: "Longitude in degrees.") var longitude: Double?
        @Flag(help: "Clear the location.") var clear = false

        func validate() throws {
            if !clear && (latitude == nil || longitude == nil) {
                throw ValidationError("give LATITUDE LONGITUDE, or --clear")
            }
        }

        func run() async throws {
            let session = await options.session()
            let location = clear ? nil : Location(latitude: latitude ?? 0, longitude: longitude ?? 0)
            let name = session.home.name
            await session.change(clear ? "Cleared the location of \(name)." : "Set the location of \(name).") {
                client,
                homeID throws(HearthError) in try await client.setLocation(location, ofHome: homeID)
            }
        }
    }

    struct Unit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the unit the home's temperatures are said and shown in (values stay in Celsius)."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "celsius or fahrenheit.") var unit: String

        func run() async throws {
            guard let temperatureUnit = TemperatureUnit(rawValue: unit.lowercased()) else {
                options.fail("the unit must be celsius or fahrenheit", code: HomeExit.usage, kind: "usage")
            }
            let session = await options.session()
            await session.change("\(session.home.name) now uses \(temperatureUnit.rawValue).") {
                client,
                homeID throws(HearthError) in try await client.setTemperatureUnit(temperatureUnit, ofHome: homeID)
            }
        }
    }
}

/// `hearth room …`.
struct RoomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "room",
        abstract: "List, add, rename and remove rooms.",
        subcommands: [List.self, Add.self, RenameCommand<Rooms>.self, RemoveCommand<Rooms>.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The rooms and their accessories.")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let home = await options.loadHome(await options.client()).home
            options.show(RoomList(rooms: home.allRooms, roomForEntireHomeID: home.roomForEntireHome.id)) {
                Output.table(
                    ["ROOM", "ACCESSORIES", "ID"],
                    home.allRooms.map { room in
                        [room.name, "\(home.accessories(inRoom: room.id).count)", room.id.uuidString]
                    }
                )
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a room.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The room's name.") var name: String

        func run() async throws {
            let session = await options.session()
            let created = await session.call { client, homeID throws(HearthError) in
                try await client.addRoom(named: name, toHome: homeID)
            }
            options.show(CreatedReply(events: created.events, room: created.object)) {
                "Added room \(created.object.name) to \(session.home.name)."
            }
        }

        struct CreatedReply: Encodable {
            var events: [HomeEvent]
            var room: Room
        }
    }
}

/// `hearth zone …`.
struct ZoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zone",
        abstract: "List, add, rename and remove zones, and put rooms in them.",
        subcommands: [
            List.self, Add.self, RenameCommand<Zones>.self, RemoveCommand<Zones>.self, AddRoom.self, RemoveRoom.self,
        ],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The zones and their rooms.")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let home = await options.loadHome(await options.client()).home
            options.show(ZoneList(zones: home.zones)) {
                Output.table(
                    ["ZONE", "ROOMS", "ID"],
                    home.zones.map { zone in
                        let rooms = zone.roomIDs.compactMap { home.room(withID: $0)?.name }
                        return [zone.name, rooms.joined(separator: ", "), zone.id.uuidString]
                    }
                )
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a zone.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The zone's name.") var name: String
        @Option(name: .customLong("room"), help: "A room to put in it (repeat for more).") var rooms: [String] = []

        func run() async throws {
            let session = await options.session()
            let roomIDs = rooms.map { session.find(.room, $0).id }
            let created = await session.call { client, homeID throws(HearthError) in
                try await client.addZone(named: name, roomIDs: roomIDs, toHome: homeID)
            }
            options.changed(created.events, "Added zone \(created.object.name).")
        }
    }

    struct AddRoom: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-room", abstract: "Put a room in a zone.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The zone.") var zone: String
        @Argument(help: "The room.") var room: String

        func run() async throws {
            let session = await options.session()
            let (foundZone, foundRoom) = (session.find(.zone, zone), session.find(.room, room))
            await session.change("Put \(foundRoom.name) in \(foundZone.name).") { client, homeID throws(HearthError) in
                try await client.addRoom(foundRoom.id, toZone: foundZone.id, inHome: homeID)
            }
        }
    }

    struct RemoveRoom: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-room",
            abstract: "Take a room out of a zone."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "The zone.") var zone: String
        @Argument(help: "The room.") var room: String

        func run() async throws {
            let session = await options.session()
            let (foundZone, foundRoom) = (session.find(.zone, zone), session.find(.room, room))
            await session.change("Took \(foundRoom.name) out of \(foundZone.name).") {
                client,
                homeID throws(HearthError) in
                try await client.removeRoom(foundRoom.id, fromZone: foundZone.id, inHome: homeID)
            }
        }
    }
}

/// Pairing this client with a hub's secure listener and storing the pairing (`hearth login --hub`,
/// `hearth user join --hub`).
enum SecurePairing {
    /// Pairs with `code` (and `name` for an invite), checks the session and writes the configuration.
    ///
    /// The session is checked with `GET /v1/me`. Returns the caller and the configuration's path. Exits with a
    /// sentence on failure.
    static func pair(
        options: HubOptions,
        address: String?,
        relay: String? = nil,
        route: String? = nil,
        code: String,
        name: String?,
        relayCertificatesFile: String? = nil
    ) async -> (MeResponse, String) {
        var certificates: String?
        if let relayCertificatesFile {
            do {
                certificates = try String(contentsOfFile: relayCertificatesFile, encoding: .utf8)
            } catch {
                options.fail("cannot read --relay-ca \(relayCertificatesFile)", code: HomeExit.usage, kind: "usage")
            }
        }
        var secure = await options.attempt { () throws(HearthError) in
            try await SecureHub.pair(
                address: address ?? "",
                relay: relay,
                route: route,
                code: code,
                name: name,
                relayCertificates: certificates
            )
        }
        let tunnel: SecureTunnel
        do {
            tunnel = try await SecureTunnel.start(secure)
        } catch {
            options.fail("cannot open a local tunnel: \(error)", code: HomeExit.failure, kind: "tunnel")
        }
        let client = HearthClient(tunnel: tunnel)
        let me = await options.attempt { () throws(HearthError) in try await client.me() }
        // The hub's relay (and the certificates it trusts the relay with), learned now, so the client reaches it
        // from anywhere later.
        if secure.relay == nil, let identity = try? await client.hubIdentity(), let relay = identity.relay {
            secure.relay = relay
            secure.relayCertificates = identity.relayCertificates
        }
        await tunnel.stop()
        let configuration = ClientConfiguration(
            url: "hap://" + (address ?? "relay/" + (secure.route ?? "")),
            token: "",
            userID: me.user.id,
            stateFolder: "",
            secure: secure
        )
        let path = options.configPath
        do {
            try configuration.write(toPath: path)
        } catch {
            options.fail("cannot write \(path). Check its folder and permissions", code: 1, kind: "config")
        }
        return (me, path)
    }
}
