// A short app on HearthKit: prints the homes and their rooms, then every change as it happens.
//
//     swift run hearthkit-example [path/to/client.json]
//
// It reads the hub's address and a token from the file `hearthd` or `hearth login` wrote
// (default: ~/.config/hearth/config.json), as docs/hearthkit.md explains.
import Foundation
import HearthKit

let path = CommandLine.arguments.dropFirst().first ?? ClientConfiguration.userConfigurationPath
let configuration: ClientConfiguration
do {
    configuration = try ClientConfiguration.read(fromPath: path)
} catch {
    FileHandle.standardError.write(Data("error: cannot read \(path); run hearthd or `hearth login` first.\n".utf8))
    exit(1)
}

let manager = HomeManager(client: HearthClient(configuration: configuration))
let updates = await manager.updates()
do {
    try await manager.start()
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}

for home in await manager.homes {
    let role = await manager.role(inHome: home.id).map { $0.rawValue } ?? "?"
    print("\(home.name)\(home.isPrimary ? " (primary)" : "") — you are \(role)")
    for room in home.allRooms {
        let accessories = home.accessories(inRoom: room.id).map(\.name)
        print("  \(room.name): \(accessories.isEmpty ? "no accessories" : accessories.joined(separator: ", "))")
    }
}
print("Watching for changes; stop with Ctrl-C.")
for await update in updates {
    guard let event = update.event else { continue }
    let home = await manager.home(withID: event.homeID)?.name ?? event.homeID.uuidString
    print("\(home) #\(event.sequence): \(event.change.kind)")
}
