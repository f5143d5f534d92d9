import ArgumentParser
import Foundation
import HearthKit

/// `hearth group …`: service groups.
struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "List, add, rename and remove service groups; add and remove their services.",
        subcommands: [
            List.self, Add.self, RenameCommand<ServiceGroups>.self, RemoveCommand<ServiceGroups>.self, AddService.self,
            RemoveService.self,
        ],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The service groups.")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let home = await options.loadHome(await options.client()).home
            let services = home.accessories.flatMap(\.services)
            options.show(ServiceGroupList(serviceGroups: home.serviceGroups)) {
                Output.table(
                    ["GROUP", "SERVICES", "ID"],
                    home.serviceGroups.map { group in
                        let names = group.serviceIDs.compactMap { id in services.first { $0.id == id }?.name }
                        return [group.name, names.joined(separator: ", "), group.id.uuidString]
                    }
                )
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a service group.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The group's name.") var name: String
        @Option(name: .customLong("service"), help: "A service id or name (repeat for more).") var services: [String] =
            []

        func run() async throws {
            let session = await options.session()
            let ids = services.map { session.find(.service, $0).id }
            let created = await session.call { client, homeID throws(HearthError) in
                try await client.addServiceGroup(named: name, serviceIDs: ids, toHome: homeID)
            }
            options.changed(created.events, "Added service group \(created.object.name).")
        }
    }

    struct AddService: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-service", abstract: "Add a service.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The group.") var group: String
        @Argument(help: "The service, by id or name.") var service: String

        func run() async throws {
            let session = await options.session()
            let (found, target) = (session.find(.serviceGroup, group), session.find(.service, service))
            await session.change("Added \(target.name) to \(found.name).") { client, homeID throws(HearthError) in
                try await client.addService(target.id, toGroup: found.id, inHome: homeID)
            }
        }
    }

    struct RemoveService: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-service", abstract: "Take out a service.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The group.") var group: String
        @Argument(help: "The service, by id or name.") var service: String

        func run() async throws {
            let session = await options.session()
            let (found, target) = (session.find(.serviceGroup, group), session.find(.service, service))
            await session.change("Took \(target.name) out of \(found.name).") { client, homeID throws(HearthError) in
                try await client.removeService(target.id, fromGroup: found.id, inHome: homeID)
            }
        }
    }
}

/// `hearth user …`: users, roles and invites.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "List users, change roles, remove users; invite people and join with an invite; sign in a browser.",
        subcommands: [
            List.self, Role.self, Remove.self, Invite.self, Invites.self, Uninvite.self, Join.self, SignInLink.self,
        ],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The home's users and their roles.")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let home = await options.loadHome(await options.client()).home
            options.show(UserList(users: home.users)) {
                Output.table(["USER", "ROLE", "ID"], home.users.map { [$0.name, $0.role.rawValue, $0.id.uuidString] })
            }
        }
    }

    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a user's role.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The user, by name or id.") var user: String
        @Argument(help: "owner, administrator or shared.") var role: String

        func run() async throws {
            guard let newRole = UserRole(rawValue: role) else {
                options.fail("the role must be owner, administrator or shared", code: HomeExit.usage, kind: "usage")
            }
            await options.change(.user, user) { client, user, homeID throws(HearthError) in
                try await client.setRole(newRole, ofUser: user.id, inHome: homeID)
            } report: {
                "\($0.name) is now \(newRole.rawValue)."
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user from the home.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The user, by name or id.") var user: String

        func run() async throws {
            let session = await options.session()
            let found = session.find(.user, user)
            await session.change("Removed \(found.name) from \(session.home.name).") {
                client,
                homeID throws(HearthError) in
                try await client.removeUser(found.id, fromHome: homeID)
            }
        }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Invite someone: prints a one-time code.")
        @OptionGroup var options: HubOptions
        @Argument(help: "administrator or shared.") var role: String = "shared"

        func run() async throws {
            guard let newRole = UserRole(rawValue: role) else {
                options.fail("the role must be owner, administrator or shared", code: HomeExit.usage, kind: "usage")
            }
            let session = await options.session()
            let invite = await session.call { client, homeID throws(HearthError) in
                try await client.createInvite(role: newRole, forHome: homeID)
            }
            options.show(invite) {
                "Invite code for \(session.home.name) as \(newRole.rawValue): \(invite.code)\n"
                    + "The invitee runs: hearth user join \(invite.code) --url \(session.client.baseURL) --name NAME"
            }
        }
    }

    struct SignInLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in-link",
            abstract: "Print a one-time link that signs a browser in to your account (for 10 minutes)."
        )
        @OptionGroup var options: HubOptions

        func run() async throws {
            let client = await options.client()
            let link = await options.attempt { () throws(HearthError) in try await client.createSignInLink() }
            options.show(link) {
                "Open this in a browser within 10 minutes; it works once:\n\(link.url)"
            }
        }
    }

    struct Invites: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The pending invites (never their codes).")
        @OptionGroup var options: HubOptions

        func run() async throws {
            let invites = await options.session().call { client, homeID throws(HearthError) in
                try await client.invites(forHome: homeID)
            }
            options.show(InviteList(invites: invites)) {
                Output.table(
                    ["ROLE", "EXPIRES", "ID"],
                    invites.map {
                        [$0.role.rawValue, ISO8601DateFormatter().string(from: $0.expiresAt), $0.id.uuidString]
                    }
                )
            }
        }
    }

    struct Uninvite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Withdraw a pending invite.")
        @OptionGroup var options: HubOptions
        @Argument(help: "The invite's id.") var invite: String

        func run() async throws {
            guard let id = UUID(uuidString: invite) else {
                options.fail("'\(invite)' is not an invite id", code: HomeExit.usage, kind: "usage")
            }
            await options.session().change("Withdrew the invite.") { client, homeID throws(HearthError) in
                try await client.removeInvite(id, fromHome: homeID)
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Redeem an invite code; without a configuration, makes an account and logs in."
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "The invite code.") var code: String
        @Option(help: "The hub's address (needed when not logged in).") var url: String?
        @Option(help: "Your name (needed for a new account).") var name: String?
        @Option(help: "The hub's secure address, HOST:PORT: pair this client with the code (docs/remote-access.md).")
        var hub: String?
        @Option(help: "A relay (ws:// or wss:// URL) to pair through, with --route (docs/relay.md).")
        var relay: String?
        @Option(help: "With --relay: the hub's routing id.") var route: String?
        @Option(help: "With a wss:// --relay: a PEM file of certificates to trust it with instead of the system's.")
        var relayCa: String?

        func run() async throws {
            if hub != nil || relay != nil {
                guard let name else {
                    options.fail("give --name NAME for the new account", code: HomeExit.usage, kind: "usage")
                }
                guard (relay == nil) == (route == nil) else {
                    options.fail("give --relay URL and --route ID together", code: HomeExit.usage, kind: "usage")
                }
                let (me, path) = await SecurePairing.pair(
                    options: options,
                    address: hub,
                    relay: relay,
                    route: route,
                    code: code,
                    name: name,
                    relayCertificatesFile: relayCa
                )
                let hub = hub ?? relay ?? ""
                struct Paired: Encodable {
                    var homeID: UUID?
                    var role: UserRole?
                    var userID: UUID
                }
                let home = me.homes.first
                options.show(Paired(homeID: home?.id, role: home?.role, userID: me.user.id)) {
                    "Joined the home as \(home?.role.rawValue ?? "a user"); paired with \(hub) (wrote \(path), mode 0600)."
                }
                return
            }
            let path = options.configPath
            let loggedIn = FileManager.default.fileExists(atPath: path)
            let client: HearthClient
            if loggedIn {
                client = await options.client()
            } else {
                guard let url else {
                    options.fail("not logged in: give --url URL and --name NAME", code: HomeExit.usage, kind: "usage")
                }
                client = HearthClient(url: url, token: nil)
            }
            let redeemed = await options.attempt { () throws(HearthError) in
                try await client.redeemInvite(code: code, name: name)
            }
            if let token = redeemed.token {
                let configuration = ClientConfiguration(
                    url: client.baseURL,
                    token: token.token,
                    userID: token.userID,
                    stateFolder: ""
                )
                do {
                    try configuration.write(toPath: path)
                } catch {
                    options.fail("cannot write \(path)", code: HomeExit.failure, kind: "config")
                }
            }
            struct Reply: Encodable {
                var homeID: UUID
                var role: UserRole
                var userID: UUID
            }
            options.show(Reply(homeID: redeemed.homeID, role: redeemed.role, userID: redeemed.userID)) {
                "Joined the home as \(redeemed.role.rawValue)"
                    + (redeemed.token == nil ? "." : "; logged in (wrote \(path), mode 0600).")
            }
        }
    }
}
