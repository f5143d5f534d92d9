import Foundation
import TestSupport
import Testing

/// `hearth hap` run as a program against hearth-sim, each in its own network namespace: pairing by address and
/// setup URI, a watcher that lives through a restart of the accessory, and a configuration change.
@Suite(
    .enabled(if: NetworkNamespacePair.isAvailable, "needs root and iproute2 for network namespaces"),
    .enabled(if: ChildProcess.arePeersAvailable, "run scripts/setup-peers.sh to set up the peers"),
    .serialized
)
struct HearthSimInteropTests {
    static let setupCode = "031-45-154"

    /// Starts hearth-sim in the accessory's namespace; returns it and the setup URI it printed.
    ///
    /// ``startSimulator(in:state:port:accessories:)`` on a thread of its own (it waits for hearth-sim's first line).
    static func startSimulatorOffThePool(
        in network: NetworkNamespacePair,
        state: String,
        port: Int = 51826,
        accessories: [String] = ["--bridge", "--preset", "lightbulb", "--preset", "door-lock"]
    ) async throws -> (process: ChildProcess, setupURI: String) {
        let started = try await offThePool {
            let (process, uri) = try startSimulator(in: network, state: state, port: port, accessories: accessories)
            return Started(process: process, setupURI: uri)
        }
        return (started.process, started.setupURI)
    }

    /// A started hearth-sim, as one Sendable value.
    struct Started: Sendable {
        let process: ChildProcess
        let setupURI: String
    }

    static func startSimulator(
        in network: NetworkNamespacePair,
        state: String,
        port: Int = 51826,
        accessories: [String] = ["--bridge", "--preset", "lightbulb", "--preset", "door-lock"]
    ) throws -> (process: ChildProcess, setupURI: String) {
        let process = try network.start(
            inAccessoryNamespace: true,
            BuiltProducts.path("hearth-sim"),
            [
                "serve", "--unverified-timeout", "600", "--state", state, "--port", "\(port)", "--setup-code",
                setupCode, "--interface",
                network.accessoryAddress, "--json",
            ] + accessories
        )
        let ready = try process.receive()
        _ = try #require(ready["deviceID"] as? String)
        return (process, try #require(ready["setupURI"] as? String))
    }

    /// The `aid.iid` of the first On characteristic (type 25) in an accessory database.
    static func firstOn(in database: [String: Any]) throws -> (aid: Int, id: String) {
        for case let accessory as [String: Any] in database["accessories"] as? [Any] ?? [] {
            for case let service as [String: Any] in accessory["services"] as? [Any] ?? [] {
                for case let characteristic as [String: Any] in service["characteristics"] as? [Any] ?? []
                where characteristic["type"] as? String == "25" {
                    let aid = try #require(accessory["aid"] as? Int)
                    return (aid, "\(aid).\(try #require(characteristic["iid"] as? Int))")
                }
            }
        }
        throw OutputError(description: "no On characteristic in \(database)")
    }

    @Test func aWatcherDeliversEventsAcrossARestartAndSeesNewAccessories() throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let simState = folder + "/sim"
        let started = try Self.startSimulator(in: network, state: simState)
        var simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let accessory = "\(network.accessoryAddress):51826"
        let simPath = BuiltProducts.path("hearth-sim")

        let paired = try hearth.run(["hap", "pair", "--setup-uri", started.setupURI, accessory, "--json"])
        #expect(paired.status == 0, "\(paired)")
        let listed = try hearth.run(["hap", "accessories", accessory, "--json"])
        #expect(listed.status == 0, "\(listed)")
        let database = try listed.json()
        let count = (database["accessories"] as? [Any])?.count ?? 0
        let on = try Self.firstOn(in: database)

        let watcher = try hearth.start(["hap", "watch", accessory, on.id, "--count", "2", "--timeout", "60", "--json"])
        _ = try watcher.receive { $0["watching"] != nil }
        #expect(try HearthCLI.runLocally(simPath, ["set", "--state", simState, "\(on.aid)", "on", "true"]) == 0)
        #expect(try watcher.receive { $0["value"] != nil }["value"] as? Bool == true)

        // Kill the accessory and start it again: the watcher reconnects and re-subscribes on its own.
        #expect(simulator.terminate() == 0, "hearth-sim exits 0 on SIGTERM")
        _ = try watcher.receive { $0["reachable"] as? Bool == false }
        simulator = try Self.startSimulator(in: network, state: simState).process
        _ = try watcher.receive { $0["reachable"] as? Bool == true }
        // The restarted simulator may start from its default values: change whatever it has now.
        let current = try hearth.run(["hap", "get", accessory, on.id, "--json"])
        let values = try current.json()["characteristics"] as? [[String: Any]]
        let now = try #require(values?.first?["value"] as? Bool, "\(current)")
        #expect(try HearthCLI.runLocally(simPath, ["set", "--state", simState, "\(on.aid)", "on", "\(!now)"]) == 0)
        let after = try watcher.receive { $0["value"] != nil }
        #expect(after["value"] as? Bool == !now)
        #expect("\(after["aid"] ?? "").\(after["iid"] ?? "")" == on.id)
        #expect(watcher.waitForExit() == 0, "the watcher stops after --count 2")

        // A new accessory bumps c#; the database read afterwards has it.
        #expect(try HearthCLI.runLocally(simPath, ["add", "lightbulb", "New Lamp", "--state", simState]) == 0)
        let grown = try hearth.run(["hap", "accessories", accessory, "--json"])
        #expect((try grown.json()["accessories"] as? [Any])?.count == count + 1, "\(grown)")
        let tree = try hearth.run(["hap", "accessories", accessory])
        #expect(tree.status == 0 && tree.output.contains("New Lamp"), "\(tree)")

        let unpair = try hearth.run(["hap", "unpair", accessory])
        #expect(unpair.status == 0, "\(unpair)")
    }

    @Test func putWithResponsePrintsTheValueTheAccessoryAnswersWith() throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let customType = "E863F10D-079E-48FF-8F27-9C2605A29F52"
        let description = """
            {"bridge": null, "accessories": [{"name": "Lamp", "preset": "lightbulb", "services": [
              {"type": "lightbulb", "custom": [{"uuid": "\(customType)", "format": "uint8",
                "perms": ["pr", "pw", "wr"], "value": 0, "minValue": 0, "maxValue": 100}]}]}]}
            """
        let descriptionFile = folder + "/lamp.json"
        try Data(description.utf8).write(to: URL(fileURLWithPath: descriptionFile))
        let started = try Self.startSimulator(in: network, state: folder + "/sim", accessories: [descriptionFile])
        let simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let accessory = "\(network.accessoryAddress):51826"
        let paired = try hearth.run(["hap", "pair", "--setup-uri", started.setupURI, accessory, "--json"])
        #expect(paired.status == 0, "\(paired)")
        let listed = try hearth.run(["hap", "accessories", accessory, "--json"])
        var custom: String?
        for case let entry as [String: Any] in try listed.json()["accessories"] as? [Any] ?? [] {
            for case let service as [String: Any] in entry["services"] as? [Any] ?? [] {
                for case let characteristic as [String: Any] in service["characteristics"] as? [Any] ?? []
                where characteristic["type"] as? String == customType {
                    custom = "\(entry["aid"] ?? "").\(characteristic["iid"] ?? "")"
                }
            }
        }
        let id = try #require(custom, "\(listed)")

        let json = try hearth.run(["hap", "put", "--response", accessory, "\(id)=42", "--json"])
        #expect(json.status == 0, "\(json)")
        let entries = try json.json()["characteristics"] as? [[String: Any]]
        #expect(entries?.first?["value"] as? Int == 42, "\(json)")
        #expect(entries?.first?["status"] as? Int == 0, "\(json)")
        let text = try hearth.run(["hap", "put", "--response", accessory, "\(id)=7"])
        #expect(text.status == 0 && text.output == "\(id) 7\n", "\(text)")
        let plain = try hearth.run(["hap", "put", accessory, "\(id)=9"])
        #expect(plain.status == 0 && plain.output == "\(id) ok\n", "\(plain)")

        let unpair = try hearth.run(["hap", "unpair", accessory])
        #expect(unpair.status == 0, "\(unpair)")
    }

    @Test func withInterfaceAMovedAccessoryIsFoundOverMDNSAndFollowed() throws {
        let network = try NetworkNamespacePair()
        defer { network.remove() }
        let folder = try HearthCLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let simState = folder + "/sim"
        let started = try Self.startSimulator(in: network, state: simState)
        var simulator = started.process
        defer { simulator.terminate() }
        let hearth = HearthCLI(network: network, state: folder + "/controller")
        let paired = try hearth.run([
            "hap", "pair", "--setup-uri", started.setupURI, "\(network.accessoryAddress):51826", "--json",
        ])
        #expect(paired.status == 0, "\(paired)")
        let deviceID = try #require(try paired.json()["deviceID"] as? String, "\(paired)")
        let on = try Self.firstOn(in: try hearth.run(["hap", "accessories", deviceID, "--json"]).json())

        // The accessory comes back on another port: without --interface the stored address fails (exit 5) …
        #expect(simulator.terminate() == 0)
        simulator = try Self.startSimulator(in: network, state: simState, port: 51827).process
        let stale = try hearth.run(["hap", "get", deviceID, on.id])
        #expect(stale.status == 5, "\(stale)")
        // … with it, the accessory is looked up over mDNS, read at its new port, and the new port is stored.
        let found = try hearth.run(["hap", "get", deviceID, on.id, "--interface", network.controllerAddress, "--json"])
        #expect(found.status == 0, "\(found)")
        let again = try hearth.run(["hap", "get", deviceID, on.id])
        #expect(again.status == 0, "\(again)")

        // A watcher with --interface follows the accessory to a third port through its mDNS announcements.
        let watcher = try hearth.start([
            "hap", "watch", deviceID, on.id, "--interface", network.controllerAddress, "--count", "1", "--timeout",
            "90", "--json",
        ])
        _ = try watcher.receive { $0["watching"] != nil }
        #expect(simulator.terminate() == 0)
        _ = try watcher.receive { $0["reachable"] as? Bool == false }
        simulator = try Self.startSimulator(in: network, state: simState, port: 51828).process
        _ = try watcher.receive { $0["reachable"] as? Bool == true }
        let current = try hearth.run([
            "hap", "get", deviceID, on.id, "--interface", network.controllerAddress, "--json",
        ])
        let values = try current.json()["characteristics"] as? [[String: Any]]
        let now = try #require(values?.first?["value"] as? Bool, "\(current)")
        let simPath = BuiltProducts.path("hearth-sim")
        #expect(try HearthCLI.runLocally(simPath, ["set", "--state", simState, "\(on.aid)", "on", "\(!now)"]) == 0)
        #expect(try watcher.receive { $0["value"] != nil }["value"] as? Bool == !now)
        #expect(watcher.waitForExit() == 0)

        let unpair = try hearth.run(["hap", "unpair", deviceID, "--interface", network.controllerAddress])
        #expect(unpair.status == 0, "\(unpair)")
    }
}
