import Foundation
import TestSupport
import Testing

/// `hearth hap` run as a program against a HAP-python 5.0.0 bridge, each in its own network namespace:
/// discover, wrong code, pair, list, write and read back, events, a second pairing, unpair.
@Suite(
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"),
    .enabled(if: ChildProcess.arePeersAvailable, "run scripts/setup-peers.sh to install HAP-python"),
    .serialized
)
struct HAPPythonInteropTests {
    static let setupCode = "031-45-154"

    @Test func hearthHapDrivesAHAPPythonBridge() throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = ChildProcess.repositoryRoot.appendingPathComponent("Tests/Peers/hap_python_accessory.py").path
        let python = try network.start(
            inAccessoryNamespace: true,
            ChildProcess.python,
            [
                script, "--address", network.accessoryAddress, "--state-file",
                folder + "/accessory.state",
            ]
        )
        defer { python.terminate() }
        // HAP-python prints its setup code first; the ready line is the first JSON line.
        var line = try python.readLine()
        while !line.hasPrefix("{") { line = try python.readLine() }
        let ready = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let deviceID = try #require(ready["deviceID"] as? String)
        let ids = try #require(ready["characteristics"] as? [String: String])
        let deskOn = try #require(ids["desk.on"])
        let temperature = try #require(ids["temperature"])
        let hearth = HearthCLI(network: network, state: folder + "/controller")

        // Discover: mDNS in the controller's namespace only.
        var seen: [String: Any]?
        for _ in 0..<5 where seen == nil {
            let result = try hearth.run([
                "hap", "discover", "--interface", network.controllerAddress, "--timeout", "3", "--json",
            ])
            #expect(result.status == 0, "\(result)")
            let accessories = try result.json()["accessories"] as? [[String: Any]] ?? []
            seen = accessories.first { $0["deviceID"] as? String == deviceID }
        }
        let discovered = try #require(seen, "hearth hap discover did not find \(deviceID)")
        #expect(discovered["paired"] as? Bool == false)
        #expect(discovered["category"] as? String == "bridge")
        #expect(discovered["port"] as? Int == ready["port"] as? Int)

        // A wrong code is refused as such.
        let wrong = try hearth.run([
            "hap", "pair", "--code", "031-45-155", deviceID, "--interface", network.controllerAddress,
        ])
        #expect(wrong.status == 1, "\(wrong)")
        #expect(wrong.errors.hasPrefix("error: wrong setup code."), "\(wrong)")

        // Pair by device ID, found over mDNS.
        let paired = try hearth.run([
            "hap", "pair", "--code", Self.setupCode, deviceID, "--interface", network.controllerAddress, "--json",
        ])
        #expect(paired.status == 0, "\(paired)")
        #expect(try paired.json()["deviceID"] as? String == deviceID)

        let listed = try hearth.run(["hap", "accessories", deviceID, "--json"])
        #expect(listed.status == 0, "\(listed)")
        #expect((try listed.json()["accessories"] as? [Any])?.count == 5)
        let tree = try hearth.run(["hap", "accessories", deviceID])
        #expect(tree.output.contains("Desk Lamp") && tree.output.contains("Lightbulb"), "\(tree)")

        // Write, read back, and the accessory agrees.
        let put = try hearth.run(["hap", "put", deviceID, "\(deskOn)=true"])
        #expect(put.status == 0, "\(put)")
        let get = try hearth.run(["hap", "get", deviceID, deskOn, "--json"])
        #expect(get.status == 0, "\(get)")
        let values = try get.json()["characteristics"] as? [[String: Any]]
        #expect(values?.first?["value"] as? Bool == true, "\(get)")
        try python.send(line: "get desk.on")
        #expect(try python.receive()["value"] as? Bool == true)
        let missing = try hearth.run(["hap", "get", deviceID, "1.9999"])
        #expect(missing.status == 3, "\(missing)")
        let badValue = try hearth.run(["hap", "put", deviceID, "\(deskOn)=maybe"])
        #expect(badValue.status == 2, "\(badValue)")

        // An event after a change made on the accessory's side.
        let watcher = try hearth.start([
            "hap", "watch", deviceID, temperature, "--count", "1", "--timeout", "60", "--json",
        ])
        _ = try watcher.receive { $0["watching"] != nil }
        try python.send(line: "set temperature 18.5")
        #expect(try python.receive()["ok"] as? Bool == true)
        let event = try watcher.receive { $0["value"] != nil }
        #expect("\(event["aid"] ?? "").\(event["iid"] ?? "")" == temperature)
        #expect(event["value"] as? Double == 18.5)
        #expect(watcher.waitForExit() == 0)

        // A second controller's pairing: add, list, remove.
        let guest = UUID().uuidString
        let add = try hearth.run([
            "hap", "pairings", "add", deviceID, "--identifier", guest, "--public-key", randomKeyHex(),
        ])
        #expect(add.status == 0, "\(add)")
        let two = try hearth.run(["hap", "pairings", deviceID, "--json"])
        let pairings = try two.json()["pairings"] as? [[String: Any]]
        #expect(pairings?.count == 2, "\(two)")
        #expect(pairings?.contains { $0["identifier"] as? String == guest && $0["admin"] as? Bool == false } == true)
        let remove = try hearth.run(["hap", "pairings", "remove", deviceID, "--identifier", guest])
        #expect(remove.status == 0, "\(remove)")
        let one = try hearth.run(["hap", "pairings", deviceID, "--json"])
        #expect((try one.json()["pairings"] as? [Any])?.count == 1, "\(one)")

        // Unpair: the accessory forgets us, and so does the state folder.
        let unpair = try hearth.run(["hap", "unpair", deviceID])
        #expect(unpair.status == 0, "\(unpair)")
        let gone = try hearth.run(["hap", "pairings", deviceID])
        #expect(gone.status == 3, "\(gone)")
        #expect(gone.errors.hasPrefix("error: no pairing with \(deviceID)"), "\(gone)")
    }
}
