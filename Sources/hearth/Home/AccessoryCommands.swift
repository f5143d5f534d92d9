import ArgumentParser
import Foundation
import HAP
import HearthKit

/// `hearth accessory …`.
struct AccessoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accessory",
        abstract: "List, add, rename, move and remove accessories; read and write their characteristics.",
        subcommands: [
            List.self, Show.self, Nearby.self, Add.self, Rename.self, Move.self, Remove.self, Identify.self, Get.self,
            SetValue.self,
            Notify.self,
        ],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The accessories by room.")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let home = await options.loadHome(await options.client()).home
            options.show(AccessoryList(accessories: home.accessories.array)) {
                home.accessories.isEmpty
                    ? "No accessories in \(home.name). Add one with 'hearth accessory add'."
                    : Output.table(
                        ["ACCESSORY", "ROOM", "REACHABLE", "ID"],
                        home.accessories.map {
                            [
                                $0.name, home.room(withID: $0.roomID)?.name ?? "?", $0.isReachable ? "yes" : "no",
                                $0.id.uuidString,
                            ]
                        }
                    )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An accessory as a tree of services and values.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The accessory, by name or id.") var accessory: String

        func run() async throws {
            let session = await options.session()
            let found = session.find(.accessory, accessory)
            options.show(AccessoryResponse(accessory: found)) { Tree.accessory(found, in: session.home, indent: "") }
        }
    }

    struct Nearby: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The accessories the hub finds nearby over mDNS (hearthd --interface), paired or not."
        )
        @OptionGroup var options: HubOptions

        func run() async throws {
            let nearby = await options.session().call { client, homeID throws(HearthError) in
                try await client.nearbyAccessories(forHome: homeID)
            }
            options.show(NearbyList(accessories: nearby)) {
                nearby.isEmpty
                    ? "Nothing found nearby. Does hearthd browse (--interface ADDRESS)?"
                    : Output.table(
                        ["ACCESSORY", "DEVICE ID", "CATEGORY", "PAIRABLE"],
                        nearby.map { [$0.name, $0.deviceID, "\($0.category)", $0.isPairable ? "yes" : "no"] }
                    )
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pair an accessory found nearby: lists them, asks which and for its setup code."
        )
        @OptionGroup var options: HubOptions
        @Option(help: "The accessory's device id (AA:BB:CC:DD:EE:FF) or advertised name.") var device: String?
        @Option(help: "Its setup code, XXX-XX-XXX (asked for when missing).") var code: String?
        @Option(help: "A name to give it.") var name: String?
        @Option(help: "The room to put it in.") var room: String?

        func run() async throws {
            let session = await options.session()
            let nearby = await session.call { client, homeID throws(HearthError) in
                try await client.nearbyAccessories(forHome: homeID)
            }
            let pairable = nearby.filter(\.isPairable)
            let chosen: NearbyAccessory
            if let device {
                guard
                    let found = pairable.first(where: {
                        $0.deviceID == device || Resolve.normalized($0.name) == Resolve.normalized(device)
                    })
                else {
                    options.fail(
                        "no unpaired accessory '\(device)' is nearby",
                        code: HomeExit.notFound,
                        kind: "notFound"
                    )
                }
                chosen = found
            } else {
                guard !pairable.isEmpty else {
                    options.fail("no unpaired accessory is nearby", code: HomeExit.notFound, kind: "notFound")
                }
                if pairable.count == 1 || options.json {
                    chosen = pairable[0]
                } else {
                    for (index, item) in pairable.enumerated() {
                        Output.line("\(index + 1). \(item.name)  \(item.deviceID)  category \(item.category)")
                    }
                    Output.text("Which one (1–\(pairable.count))? ")
                    guard let line = readLine(), let number = Int(line), pairable.indices.contains(number - 1) else {
                        options.fail("no accessory chosen", code: HomeExit.usage, kind: "usage")
                    }
                    chosen = pairable[number - 1]
                }
            }
            var setupCode = code
            if setupCode == nil {
                Output.text("Setup code of \(chosen.name) (XXX-XX-XXX): ")
                setupCode = readLine()?.trimmingCharacters(in: .whitespaces)
            }
            guard let setupCode, !setupCode.isEmpty else {
                options.fail("a setup code is needed: give --code XXX-XX-XXX", code: HomeExit.usage, kind: "usage")
            }
            let roomID = room.map { session.find(.room, $0).id }
            let added = await session.call { client, homeID throws(HearthError) in
                try await client.pairAccessory(
                    deviceID: chosen.deviceID,
                    setupCode: setupCode,
                    name: name,
                    roomID: roomID,
                    toHome: homeID
                )
            }
            options.show(AccessoryList(accessories: added)) {
                "Added " + added.map(\.name).joined(separator: ", ") + " to \(session.home.name)."
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename an accessory.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The accessory, by name or id.") var accessory: String
        @Argument(help: "The new name.") var name: String

        func run() async throws {
            await options.change(.accessory, accessory) { client, accessory, homeID throws(HearthError) in
                try await client.updateAccessory(accessory.id, name: name, inHome: homeID)
            } report: {
                "Renamed \($0.name) to \(name)."
            }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move an accessory to another room.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The accessory, by name or id.") var accessory: String
        @Argument(help: "The room, by name or id.") var room: String

        func run() async throws {
            let session = await options.session()
            let (found, target) = (session.find(.accessory, accessory), session.find(.room, room))
            await session.change("Moved \(found.name) to \(target.name).") { client, homeID throws(HearthError) in
                try await client.updateAccessory(found.id, roomID: target.id, inHome: homeID)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unpair and remove an accessory.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The accessory, by name or id.") var accessory: String

        func run() async throws {
            let session = await options.session()
            let found = session.find(.accessory, accessory)
            await session.change("Removed \(found.name).") { client, homeID throws(HearthError) in
                try await client.removeAccessory(found.id, fromHome: homeID)
            }
        }
    }

    struct Identify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ask an accessory to identify itself.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The accessory, by name or id.") var accessory: String

        func run() async throws {
            let session = await options.session()
            let found = session.find(.accessory, accessory)
            await session.change("Asked \(found.name) to identify itself.") { client, homeID throws(HearthError) in
                try await client.identifyAccessory(found.id, inHome: homeID)
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read characteristic values: all of an accessory, or one by name (on, brightness) or id."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "The accessory, by name or id (or a characteristic id alone).") var accessory: String
        @Argument(help: "The characteristic, by name or id.") var characteristic: String?

        func run() async throws {
            let session = await options.session()
            let home = session.home
            if characteristic == nil, let id = UUID(uuidString: accessory),
                home.accessory(withID: id) == nil
            {
                let response = await session.call { client, homeID throws(HearthError) in
                    try await client.characteristic(id, inHome: homeID)
                }
                options.show(response) {
                    "\(Naming.name(of: response.characteristic)) = "
                        + Naming.text(response.characteristic.value, of: response.characteristic)
                }
                return
            }
            let found = session.find(.accessory, accessory)
            if let characteristic {
                let target = options.characteristic(characteristic, of: found, in: home)
                let response = await session.call { client, homeID throws(HearthError) in
                    try await client.characteristic(target.id, inHome: homeID)
                }
                options.show(response) {
                    "\(found.name) \(Naming.name(of: response.characteristic)) = "
                        + Naming.text(response.characteristic.value, of: response.characteristic)
                }
                return
            }
            options.show(AccessoryResponse(accessory: found)) {
                Output.table(
                    ["SERVICE", "CHARACTERISTIC", "VALUE", "ID"],
                    found.services.flatMap { service in
                        service.characteristics.map {
                            [service.name, Naming.name(of: $0), Naming.text($0.value, of: $0), $0.id.uuidString]
                        }
                    }
                )
            }
        }
    }

    struct SetValue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Write a characteristic: 'set \"Desk Lamp\" on true', or 'set CHARACTERISTIC-ID VALUE'."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "ACCESSORY CHARACTERISTIC VALUE, or CHARACTERISTIC-ID VALUE.") var words: [String]

        func validate() throws {
            guard words.count == 2 || words.count == 3 else {
                throw ValidationError("give ACCESSORY CHARACTERISTIC VALUE, or CHARACTERISTIC-ID VALUE")
            }
        }

        func run() async throws {
            let session = await options.session()
            let home = session.home
            let target: Characteristic
            let label: String
            if words.count == 2 {
                guard let id = UUID(uuidString: words[0]),
                    let owner = home.accessories.first(where: { $0.characteristics.contains { $0.id == id } }),
                    let found = owner.characteristics.first(where: { $0.id == id })
                else {
                    options.fail("no characteristic with id '\(words[0])' in \(home.name)", code: 3, kind: "notFound")
                }
                (target, label) = (found, "\(owner.name) \(Naming.name(of: found))")
            } else {
                let accessory = session.find(.accessory, words[0])
                target = options.characteristic(words[1], of: accessory, in: home)
                label = "\(accessory.name) \(Naming.name(of: target))"
            }
            let value = options.value(words[words.count - 1], for: target)
            let results = await session.call { client, homeID throws(HearthError) in
                try await client.write(value, toCharacteristic: target.id, inHome: homeID)
            }
            if let refused = results.first(where: { $0.error != nil }), let error = refused.error {
                options.fail("\(label): \(error.message)", code: HomeExit.failure, kind: error.code)
            }
            options.show(WriteResults(results: results)) { "\(label) = \(Naming.text(value, of: target))" }
        }
    }

    struct Notify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn events of a characteristic on or off.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The accessory, by name or id.") var accessory: String
        @Argument(help: "The characteristic, by name or id.") var characteristic: String
        @Argument(help: "on or off.") var state: String

        func run() async throws {
            guard state == "on" || state == "off" else {
                options.fail("the state must be 'on' or 'off'", code: HomeExit.usage, kind: "usage")
            }
            let session = await options.session()
            let found = session.find(.accessory, accessory)
            let target = options.characteristic(characteristic, of: found, in: session.home)
            await session.change("Events of \(found.name) \(Naming.name(of: target)) are \(state).") {
                client,
                homeID throws(HearthError) in
                try await client.setNotifications(state == "on", forCharacteristic: target.id, inHome: homeID)
            }
        }
    }
}

/// `hearth service …`.
struct ServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "List and rename services.",
        subcommands: [List.self, Rename.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The services of every accessory (or of one).")
        @OptionGroup var options: HubOptions
        @Argument(help: "An accessory, by name or id.") var accessory: String?

        func run() async throws {
            let session = await options.session()
            let accessories = accessory.map { [session.find(.accessory, $0)] } ?? session.home.accessories
            let services = accessories.flatMap { accessory in accessory.services.map { (accessory, $0) } }
            options.show(services.map(\.1)) {
                Output.table(
                    ["ACCESSORY", "SERVICE", "TYPE", "ID"],
                    services.map { [$0.0.name, $0.1.name, Naming.typeName(of: $0.1), $0.1.id.uuidString] }
                )
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a service (by id, or ACCESSORY SERVICE).")
        @OptionGroup var options: HubOptions
        @Argument(help: "SERVICE-ID NAME, or ACCESSORY SERVICE NAME.") var words: [String]

        func validate() throws {
            guard words.count == 2 || words.count == 3 else {
                throw ValidationError("give SERVICE-ID NAME, or ACCESSORY SERVICE NAME")
            }
        }

        func run() async throws {
            let session = await options.session()
            let scope = words.count == 3 ? session.find(.accessory, words[0]).services : nil
            let found = session.find(.service, words[words.count - 2], among: scope)
            let name = words[words.count - 1]
            await session.change("Renamed service \(found.name) to \(name).") { client, homeID throws(HearthError) in
                try await client.renameService(found.id, to: name, inHome: homeID)
            }
        }
    }
}
