// A hub in a child process for the namespace test in HubTests: it browses on one interface, pairs the first
// unpaired accessory it finds there, and reports what the graph hears as JSON lines.
//
// Usage: hearth-hub-probe <state folder> <interface IPv4 address> <setup code>. Prints `{"ready":…}`,
// `{"discovered":"<device ID>"}`, `{"paired":<count>}` and `{"accessory":"<name>","aid":…,"on":<iid of On or 0>}` for each, then one line per change event: `{"event":"value","aid":…,
// "iid":…,"value":"…"}`, `{"event":"added","aid":…,"name":"…"}`, `{"event":"removed","aid":…}`,
// `{"event":"reachable","value":true|false}` (for the bridge itself). Reads `write <aid> <iid> <true|false>` lines
// on stdin and answers `{"written":"<result>"}`.
import DNSSD
import Foundation
import HAP
import HAPController
import HAPTypes
import HomeGraph
import Hub
import Logging

/// Prints one JSON object as a line.
func say(_ object: [String: Any]) {
    guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    line.append(0x0A)
    FileHandle.standardOutput.write(line)
}

/// Reads stdin lines on a thread of their own and hands them over as a stream.
func standardInputLines() -> AsyncStream<String> {
    AsyncStream { continuation in
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
    }
}

func probe(folder: String, interface: IPv4Address, setupCode: SetupCode) async throws {
    var logger = Logger(label: "hub-probe")
    logger.logLevel = .critical
    let hub = try await Hub(
        configuration: Hub.Configuration(
            stateFolder: folder,
            logger: logger,
            interfaces: [interface],
            accessoryLinks: PairedAccessory.Configuration(
                backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))
            )
        )
    )
    try await hub.start()
    let owner = UUID()
    let home = try await hub.addHome(name: "Probe Home", ownerName: "Ada", as: .user(owner))
    say(["ready": true])
    var found: DiscoveredAccessory?
    let deadline = ContinuousClock.now + .seconds(60)
    while found == nil, ContinuousClock.now < deadline {
        found = try await hub.discoveredAccessories(as: .user(owner)).first
        if found == nil { try await Task.sleep(for: .milliseconds(100)) }
    }
    guard let found else {
        say(["error": "nothing discovered"])
        return
    }
    say(["discovered": found.deviceID])
    let events = await hub.subscribe(as: .user(owner))
    let added = try await hub.pairAccessory(
        home: home.id,
        deviceID: found.deviceID,
        setupCode: setupCode,
        as: .user(owner)
    )
    say(["paired": added.count])
    for accessory in added {
        let on = accessory.characteristics.first { $0.type == HAPUUID(apple: 0x25) }?.instanceID ?? 0
        say(["accessory": accessory.name, "aid": Int(accessory.accessoryInstanceID), "on": Int(on)])
    }
    var known: [UUID: Accessory] = [:]
    for accessory in added { known[accessory.id] = accessory }
    let bridgeID = added.first { $0.bridgeID == nil }?.id

    let commands = Task {
        for await line in standardInputLines() {
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 4, words[0] == "write", let aid = UInt64(words[1]), let iid = UInt64(words[2]) else {
                say(["written": "bad command"])
                continue
            }
            let graph = hub.graph
            guard
                let characteristic = graph.home(withID: home.id)?.accessories
                    .first(where: { $0.accessoryInstanceID == aid })?.characteristics
                    .first(where: { $0.instanceID == iid })
            else {
                say(["written": "unknown characteristic"])
                continue
            }
            do {
                let results = try await hub.writeCharacteristics(
                    home: home.id,
                    [(characteristic.id, .bool(words[3] == "true"))],
                    as: .user(owner)
                )
                switch results[characteristic.id] {
                case .success: say(["written": "ok"])
                case .failure(let error): say(["written": error.code])
                case nil: say(["written": "no result"])
                }
            } catch {
                say(["written": (error as? HubError)?.code ?? "\(error)"])
            }
        }
    }
    for await event in events {
        switch event.change {
        case .characteristicValueChanged(let characteristicID, let accessoryID, let value):
            guard
                let accessory = hub.graph.home(withID: home.id)?.accessories.first(where: { $0.id == accessoryID }
                ),
                let characteristic = accessory.characteristics.first(where: { $0.id == characteristicID })
            else { continue }
            say([
                "event": "value", "aid": Int(accessory.accessoryInstanceID), "iid": Int(characteristic.instanceID),
                "value": value.description,
            ])
        case .accessoryAdded(let accessory):
            known[accessory.id] = accessory
            say(["event": "added", "aid": Int(accessory.accessoryInstanceID), "name": accessory.name])
        case .accessoryRemoved(let id):
            say(["event": "removed", "aid": Int(known[id]?.accessoryInstanceID ?? 0)])
        case .accessoryReachabilityChanged(let id, let isReachable) where id == bridgeID:
            say(["event": "reachable", "value": isReachable])
        default:
            continue
        }
    }
    commands.cancel()
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let interface = IPv4Address(arguments[2]), let code = try? SetupCode(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: hearth-hub-probe <state folder> <IPv4 address> <setup code>\n".utf8))
    exit(2)
}
do {
    try await probe(folder: arguments[1], interface: interface, setupCode: code)
} catch {
    FileHandle.standardError.write(Data("hearth-hub-probe: \(error)\n".utf8))
    exit(1)
}
