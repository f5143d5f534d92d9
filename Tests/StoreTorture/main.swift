// Runs a HomeStore, or a Hub on its state folder, under random operations for the kill -9 tests in HomeStoreTests
// and HubTests.
//
// Usage: hearth-store-torture <folder> <seed> <count> [--hub]. Before each operation it prints `try <base64 JSON>`;
// after the store acknowledged it, `ack <sequence>` (with `--hub`: `ack`, once `Hub.perform` returned); a refused or
// empty one, `skip`. It stops after `count` operations.
import Automation
import Foundation
import HomeGraph
import HomeStore
import Hub
import TestFixtures
import TestSupport

import enum HAPTypes.AccessoryCategory
import struct HAPTypes.CharacteristicMetadata
import enum HAPTypes.Format
import struct HAPTypes.HAPUUID
import enum HAPTypes.HAPValue
import enum HAPTypes.Permission

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func makeOperation(for graph: HomeGraph, random: inout SplitMix64, ids: inout SeededIDGenerator) -> HomeOperation {
    let words = ["Kitchen", "Hall", "Lamp", "Attic", "Porch", "Cellar", "Study", "Landing", "Nook", "Den"]
    let name = (words.randomElement(using: &random) ?? "Den") + " \(Int.random(in: 0..<40, using: &random))"
    guard let home = graph.homes.randomElement(using: &random), Int.random(in: 0..<40, using: &random) > 0 else {
        // With its built-in scenes, as the hub makes a home: a hub that opens the store then has nothing to add.
        return .addHome(
            id: ids.makeID(),
            name: name,
            roomForEntireHomeID: ids.makeID(),
            builtInActionSetIDs: BuiltInActionSetIDs(using: &ids)
        )
    }
    let h = home.id
    let room = home.allRooms.randomElement(using: &random)?.id ?? home.roomForEntireHome.id
    let accessory = home.accessories.randomElement(using: &random)?.id ?? UUID()
    let characteristic = home.accessories.flatMap(\.characteristics).randomElement(using: &random)?.id ?? UUID()
    let zone = home.zones.randomElement(using: &random)?.id ?? UUID()
    let level = Int64.random(in: 0...120, using: &random)
    let choices: [HomeOperation] = [
        .addRoom(home: h, id: ids.makeID(), name: name),
        .renameRoom(home: h, room: room, name: name),
        .removeRoom(home: h, room: room),
        .addZone(home: h, id: ids.makeID(), name: name, roomIDs: []),
        .addRoomToZone(home: h, room: room, zone: zone),
        .addAccessory(home: h, accessory: .testLamp(named: name, roomID: room, ids: &ids)),
        .renameAccessory(home: h, accessory: accessory, name: name),
        .moveAccessory(home: h, accessory: accessory, room: room),
        .removeAccessory(home: h, accessory: accessory),
        .setReachability(home: h, accessory: accessory, isReachable: Bool.random(using: &random)),
        .updateCharacteristicValue(home: h, characteristic: characteristic, value: .int(level)),
        .updateCharacteristicValue(home: h, characteristic: characteristic, value: .bool(level.isMultiple(of: 2))),
        .updateCharacteristicValue(home: h, characteristic: characteristic, value: .int(level)),
        .renameHome(h, name: name),
    ]
    return choices.randomElement(using: &random) ?? .removeHome(h)
}

/// Applies `operation` to the store's graph and appends it, as the hub does; true when the store wrote it, false
/// when the graph refused it or it changed nothing.
func isWritten(_ operation: HomeOperation, to store: HomeStore) throws(HomeStoreError) -> Bool {
    var graph = store.graph
    guard let events = try? graph.apply(operation), !events.isEmpty else { return false }
    try store.append([operation], resulting: graph)
    return true
}

/// Applies `operation` through the hub as the hub itself; true when it changed the graph.
func isWritten(_ operation: HomeOperation, to hub: Hub) async throws(HubError) -> Bool {
    do {
        return try await !hub.perform(operation, as: .hub).isEmpty
    } catch {
        guard case .rejected = error else { throw error }
        return false
    }
}

/// The time the hub's clock stands at in `--hub` runs, so the test can stamp the changes it expects as the hub does
/// (by the hub, at this time): HubKillTests has the same value.
let tortureHubTime = Date(timeIntervalSince1970: 1_800_000_000)

/// Random operations through a `Hub` on `folder`, each printed before and acknowledged after.
func tortureHub(folder: String, seed: UInt64, count: Int) async throws {
    let hub = try await Hub(
        configuration: Hub.Configuration(stateFolder: folder, clock: ManualClock(start: tortureHubTime))
    )
    var random = SplitMix64(seed: seed)
    var ids = SeededIDGenerator(seed: seed)
    let encoder = JSONEncoder()
    say("ready")
    for _ in 0..<count {
        let operation = makeOperation(for: hub.graph, random: &random, ids: &ids)
        say("try " + (try encoder.encode(operation)).base64EncodedString())
        say(try await isWritten(operation, to: hub) ? "ack" : "skip")
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4 || (arguments.count == 5 && arguments[4] == "--hub"), let seed = UInt64(arguments[2]),
    let count = Int(arguments[3])
else {
    FileHandle.standardError.write(Data("usage: hearth-store-torture <folder> <seed> <count> [--hub]\n".utf8))
    exit(2)
}
do {
    if arguments.count == 5 {
        try await tortureHub(folder: arguments[1], seed: seed, count: count)
        exit(0)
    }
    // A small interval, so kills land during snapshots and pruning too.
    let store = try HomeStore(folder: arguments[1], snapshotInterval: 37)
    var random = SplitMix64(seed: seed)
    var ids = SeededIDGenerator(seed: seed)
    let encoder = JSONEncoder()
    say("ready \(store.lastOperationSequence)")
    for _ in 0..<count {
        let operation = makeOperation(for: store.graph, random: &random, ids: &ids)
        say("try " + (try encoder.encode(operation)).base64EncodedString())
        if try isWritten(operation, to: store) {
            say("ack \(store.lastOperationSequence)")
        } else {
            say("skip")
        }
    }
} catch {
    FileHandle.standardError.write(Data("hearth-store-torture: \(error)\n".utf8))
    exit(1)
}
