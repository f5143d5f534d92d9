import ArgumentParser
import AtomicFiles
import Foundation
import HearthKit

extension HomeCommand {
    /// `hearth home export`: the home as a home file (docs/home-file.md), on standard output or in a file.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the home given by --home (or the primary) as a home file (docs/home-file.md).",
            discussion: """
                Without --output the file goes to standard output. With --output it is written atomically, mode \
                0600: it holds the home's whole configuration. 'hearth home import' reads it back, on this hub or \
                another, and 'hearth say --home FILE' runs sentences against it without a hub.
                """
        )
        @OptionGroup var options: HubOptions
        @Option(name: .shortAndLong, help: "The file to write (mode 0600); standard output when not given.")
        var output: String?

        func run() async throws {
            let home = await options.loadHome(await options.client()).home
            let data: Data
            do throws(HomeFileError) {
                data = try HomeFile(home: home).encoded()
            } catch {
                options.fail(error.sentence, code: HomeExit.failure, kind: "homeFile")
            }
            guard let output else {
                FileHandle.standardOutput.write(data + Data("\n".utf8))
                return
            }
            do {
                try AtomicFile.write(data, toPath: output)
            } catch {
                options.fail(
                    "cannot write \(output) (\(String(cString: strerror(error.code)))). Check its folder and permissions",
                    code: HomeExit.failure,
                    kind: "io"
                )
            }
            struct Reply: Encodable {
                var file: String
                var homeID: UUID
                var name: String
                var accessories: Int
            }
            let reply = Reply(file: output, homeID: home.id, name: home.name, accessories: home.accessories.count)
            options.show(reply) {
                "Exported home \(home.name) (\(home.accessories.count) accessories) to \(output) (mode 0600)."
            }
        }
    }

    /// `hearth home import`: adds the home of a home file to the hub; you become its owner.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the home of a home file ('hearth home export') to the hub; you become its owner.",
            discussion: """
                Every object keeps its id, so scenes and triggers keep working. The file's users are not imported, \
                and accessories come in unreachable: pair each again on this hub (reset it first if another hub \
                still holds its pairing) and it keeps its place in rooms, groups, scenes and triggers.
                """
        )
        @OptionGroup var options: HubOptions
        @Argument(help: "The home file.") var file: String

        func run() async throws {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            guard size <= HomeFile.maximumSize else {
                options.fail(
                    HomeFileError.unreadable("it is larger than \(HomeFile.maximumSize >> 20) MiB").sentence,
                    code: HomeExit.usage,
                    kind: "homeFile"
                )
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                options.fail("cannot read \(file)", code: HomeExit.usage, kind: "io")
            }
            let homeFile: HomeFile
            do throws(HomeFileError) {
                homeFile = try HomeFile.decode(data)
            } catch {
                options.fail(error.sentence, code: HomeExit.usage, kind: "homeFile")
            }
            let client = await options.client()
            let response = await options.attempt { () throws(HearthError) in try await client.importHome(homeFile) }
            let home = response.home
            let imported = Set(home.triggers.map(\.id))
            let leftOut = homeFile.home.triggers.filter { !imported.contains($0.id) }
            struct Reply: Encodable {
                var home: Home
                var role: UserRole?
                var sequence: UInt64
                var accessoriesToPair: Int
                var triggersLeftOut: [String]
            }
            let reply = Reply(
                home: home,
                role: response.role,
                sequence: response.sequence,
                accessoriesToPair: home.accessories.count(where: { !$0.isReachable }),
                triggersLeftOut: leftOut.map(\.name)
            )
            options.show(reply) {
                Self.report(reply.home, toPair: reply.accessoriesToPair, leftOut: reply.triggersLeftOut)
            }
        }

        /// What the import made, in words.
        static func report(_ home: Home, toPair: Int, leftOut: [String]) -> String {
            var lines = [
                "Imported home \(home.name) (\(home.id.uuidString)): \(home.rooms.count) rooms, \(home.zones.count) zones, "
                    + "\(home.accessories.count) accessories, \(home.actionSets.count) scenes, \(home.triggers.count) triggers."
            ]
            if toPair > 0 {
                lines.append(
                    "\(toPair) \(toPair == 1 ? "accessory needs" : "accessories need") pairing on this hub "
                        + "('hearth accessory add'); each keeps its place in rooms, groups, scenes and triggers."
                )
            }
            if !leftOut.isEmpty {
                lines.append(
                    "Left out, as they name people who are not on this hub: \(leftOut.joined(separator: ", "))."
                )
            }
            return lines.joined(separator: "\n")
        }
    }
}
