import Foundation
import HomeGraph
import TestFixtures
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `hearth say`: against `hearthd --demo` (its simulated bridge read back through the accessory), and against a
/// home file with no hub at all.
@Suite(.serialized) struct SayCommandTests {
    typealias DemoHub = HomeCommandTests.DemoHub

    /// Runs `hearth ARGUMENTS` with `input` (any bytes) on stdin.
    static func hearth(_ arguments: [String], input: Data? = nil) throws -> HomeCommandTests.Result {
        guard let input else { return try HomeCommandTests.hearth(arguments) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path("hearth"))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HEARTH_CONFIG"] = "/nonexistent/hearth-config.json"
        process.environment = environment
        let (output, errors, stdin) = (Pipe(), Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        // Written off this thread: the output is read at the same time, so neither pipe fills up.
        let writer = Thread {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return HomeCommandTests.Result(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self)
        )
    }

    /// The value the accessory has now: a read through it by the hub (`?refresh=true`), not the hub's cache.
    static func readThrough(_ characteristic: String, home: String, config: String) async throws -> Any? {
        let client = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as? [String: Any]
        )
        let base = try #require(client["url"] as? String)
        let token = try #require(client["token"] as? String)
        let url = try #require(
            URL(string: "\(base)/v1/homes/\(home)/characteristics/\(characteristic)?refresh=true")
        )
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (object?["characteristic"] as? [String: Any])?["value"]
    }

    @Test func saySwitchesALightRunsASceneAnswersAndRefusesASharedUser() async throws {
        let hub = try DemoHub()
        defer { hub.stop() }
        let config = ["--config", hub.config]
        var result = try Self.hearth(["home", "list", "--json"] + config)
        let homeID = try #require((try result.json()["homes"] as? [[String: Any]])?.first?["id"] as? String)
        result = try Self.hearth(["accessory", "get", "Living Room Lamp", "on", "--json"] + config)
        let on = try #require((try result.json()["characteristic"] as? [String: Any])?["id"] as? String, "\(result)")
        result = try Self.hearth(["accessory", "set", "Living Room Lamp", "on", "false"] + config)
        #expect(result.status == 0, "\(result)")
        #expect(try await Self.readThrough(on, home: homeID, config: hub.config) as? Bool == false)

        // A dry run resolves and changes nothing.
        result = try Self.hearth(["say", "--dry-run", "--json", "turn on the living room lamp"] + config)
        #expect(try result.json()["outcome"] as? String == "control", "\(result)")
        #expect(try result.json()["dryRun"] as? Bool == true)
        #expect(try await Self.readThrough(on, home: homeID, config: hub.config) as? Bool == false)

        // Control, carried out: the accessory itself is on.
        result = try Self.hearth(["say", "--json", "turn on the living room lamp"] + config)
        #expect(result.status == 0, "\(result)")
        let control = try result.json()
        #expect(control["outcome"] as? String == "control", "\(result)")
        #expect(control["dryRun"] as? Bool == false)
        let action = (control["actions"] as? [[String: Any]])?.first
        #expect(action?["characteristicID"] as? String == on, "\(result)")
        #expect((control["results"] as? [[String: Any]])?.allSatisfy { $0["ok"] as? Bool == true } == true)
        #expect(try await Self.readThrough(on, home: homeID, config: hub.config) as? Bool == true)

        // A question, in text: the answer, then a line for the lamp.
        result = try Self.hearth(["say", "is", "the", "living", "room", "lamp", "on?"] + config)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.split(separator: "\n").count >= 2, "\(result)")
        #expect(result.output.contains("Living Room Lamp"), "\(result)")

        // A scene: Good Night turns the lights off.
        result = try Self.hearth(["say", "--json", "good night"] + config)
        #expect(result.status == 0, "\(result)")
        #expect(try result.json()["outcome"] as? String == "scene", "\(result)")
        #expect((try result.json()["scene"] as? [String: Any])?["name"] as? String == "Good Night")
        #expect(try await Self.readThrough(on, home: homeID, config: hub.config) as? Bool == false)

        // Not understood: exit 1, nothing done.
        result = try Self.hearth(["say", "--json", "order a pizza"] + config)
        #expect(result.status == 1, "\(result)")
        #expect(try result.json()["outcome"] as? String == "notUnderstood", "\(result)")

        // A shared user controls, but is refused a configuration change: exit 1, nothing renamed.
        result = try Self.hearth(["user", "invite", "shared", "--json"] + config)
        let code = try #require(try result.json()["code"] as? String, "\(result)")
        let client = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: hub.config)))
        let url = try #require((client as? [String: Any])?["url"] as? String)
        let guest = ["--config", hub.state + "/guest.json"]
        result = try Self.hearth(["user", "join", code, "--url", url, "--name", "Guest"] + guest)
        #expect(result.status == 0, "\(result)")
        result = try Self.hearth(["say", "--json", "rename the living room lamp to sofa lamp"] + guest)
        #expect(result.status == 1, "\(result)")
        #expect(try result.json()["outcome"] as? String == "notPermitted", "\(result)")
        result = try Self.hearth(["accessory", "get", "Living Room Lamp", "on"] + config)
        #expect(result.status == 0, "still named Living Room Lamp: \(result)")
        result = try Self.hearth(["say", "--json", "turn on the living room lamp"] + guest)
        #expect(try result.json()["outcome"] as? String == "control", "\(result)")

        // Hostile input: an empty sentence and an unknown room are usage errors (2) with a sentence.
        result = try Self.hearth(["say", ""] + config)
        #expect(result.status == 2 && result.errors.hasPrefix("error: the sentence must not be empty"), "\(result)")
        result = try Self.hearth(["say", "--room", "Attic", "lights off"] + config)
        #expect(result.status == 2 && result.errors.contains("'Living Room'"), "\(result)")
    }

    /// A home file of a flat: a Desk Lamp in the Study.
    static func homeFile() throws -> String {
        var graph = HomeGraph()
        let (homeID, study) = (UUID(), UUID())
        _ = try graph.apply(.addHome(id: homeID, name: "Flat", roomForEntireHomeID: UUID()))
        _ = try graph.apply(.addRoom(home: homeID, id: study, name: "Study"))
        _ = try graph.apply(.addAccessory(home: homeID, accessory: .testLamp(named: "Desk Lamp", roomID: study)))
        let home = try #require(graph.home(withID: homeID))
        let path = NSTemporaryDirectory() + "say-home-\(UUID().uuidString).json"
        try HomeFile(home: home).encoded().write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func sayReadsAHomeFileInBatchWithoutAHub() throws {
        let file = try Self.homeFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        var input = Data("turn on desk lamp\n\n".utf8)
        input += Data(String(repeating: "x", count: 5000).utf8) + Data("\n".utf8)
        input += Data([0x74, 0x75, 0x72, 0x6E, 0xFF, 0xFE, 0x0A])
        input += Data("order a pizza\nturn off the desk lamp".utf8)
        let result = try Self.hearth(["say", "--home", file, "--dry-run", "--batch"], input: input)
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 6, "one line per line of input: \(result)")
        let objects = lines.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.allSatisfy { $0 != nil }, "each line is one JSON object: \(result)")
        #expect(objects.first??["text"] as? String == "turn on desk lamp")
        #expect(objects.first??["outcome"] as? String == "control", "\(result)")
        for (index, line) in [(1, 2), (2, 3), (3, 4)] {
            let error = objects[index]?["error"] as? [String: Any]
            #expect(objects[index]?["line"] as? Int == line, "\(result)")
            #expect(error?["code"] as? String == "invalidRequest", "\(result)")
        }
        #expect(objects[4]?["outcome"] as? String == "notUnderstood", "\(result)")
        #expect(objects[5]?["text"] as? String == "turn off the desk lamp", "the last line needs no newline")
        #expect(objects[5]?["dryRun"] as? Bool == true)

        // One sentence: JSON, exit 0 or 1 by outcome.
        var one = try Self.hearth(["say", "--home", file, "--dry-run", "--json", "--room", "study", "turn on the lamp"])
        #expect(try one.json()["outcome"] as? String == "control", "\(one)")
        one = try Self.hearth(["say", "--home", file, "--dry-run", "what's the weather?"])
        #expect(one.status == 1 && !one.output.isEmpty, "\(one)")

        // A file cannot be carried out; a missing file and an unknown room are named.
        one = try Self.hearth(["say", "--home", file, "turn on desk lamp"])
        #expect(one.status == 2 && one.errors.contains("a home file cannot be carried out"), "\(one)")
        one = try Self.hearth(["say", "--home", "/nonexistent/home.json", "--dry-run", "lamp on"])
        #expect(one.status == 3 && one.errors.contains("no home file"), "\(one)")
        one = try Self.hearth(["say", "--home", file, "--dry-run", "--room", "Attic", "lamp on"])
        #expect(one.status == 2 && one.errors.contains("'Study'"), "\(one)")
    }
}
