import Foundation
import HomeGraph
import TestSupport
import Testing

/// The `hearth` home commands run as a program against a running `hearthd --demo --state <tmp>` on loopback.
@Suite(.serialized) struct HomeCommandTests {
    /// A running demo hub with its state folder and client configuration.
    final class DemoHub: @unchecked Sendable {
        // @unchecked: used by one test at a time.
        let state: String
        let child: ChildProcess

        /// Starts `hearthd --demo` on `state`, a fresh folder unless given.
        init(state: String? = nil) throws {
            self.state = state ?? NSTemporaryDirectory() + "hearth-home-\(UUID().uuidString)"
            child = try ChildProcess(
                BuiltProducts.path("hearthd"),
                ["--demo", "--state", self.state, "--port", "0", "--no-user-config", "--log-level", "warning"],
                timeout: 300
            )
            while true {
                let line = try child.readLine()
                if line.hasPrefix("Stop with") { break }
            }
        }

        var config: String { state + "/client.json" }

        func stop() {
            child.terminate()
            try? FileManager.default.removeItem(atPath: state)
        }
    }

    struct Result: CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String

        func json() throws -> [String: Any] {
            try #require(
                try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
                "not one JSON object: \(output)"
            )
        }

        var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
    }

    /// Runs `hearth ARGUMENTS` to its end with `input` on stdin.
    static func hearth(_ arguments: [String], input: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path("hearth"))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HEARTH_CONFIG"] = "/nonexistent/hearth-config.json"  // never the user's own configuration
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self)
        )
    }

    @Test func loginWithTheOwnersSetupCodePairsAndCommandsGoThroughTheSecureTunnel() throws {
        let state = NSTemporaryDirectory() + "hearth-secure-\(UUID().uuidString)"
        let child = try ChildProcess(
            BuiltProducts.path("hearthd"),
            [
                "--demo", "--state", state, "--port", "0", "--remote-port", "0", "--no-user-config", "--log-level",
                "warning",
            ],
            timeout: 300
        )
        defer {
            child.terminate()
            try? FileManager.default.removeItem(atPath: state)
        }
        // "hearthd: secure listener (paired clients only) on 127.0.0.1:PORT; …", before or after the welcome.
        var address: String?
        while address == nil {
            let line = try child.readLine()
            guard line.hasPrefix("hearthd: secure listener"), let on = line.range(of: " on ") else { continue }
            address = String(line[on.upperBound...].prefix { $0 != ";" })
        }
        let hub = try #require(address)
        let code = try String(contentsOfFile: state + "/owner.setup-code", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let config = state + "/paired.json"
        var result = try Self.hearth(["login", "--hub", hub, code, "--config", config])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.hasPrefix("Paired with the hub at \(hub) as Owner"), "\(result)")
        let stored = try String(contentsOfFile: config, encoding: .utf8)
        let token = try String(contentsOfFile: state + "/owner.token", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(stored.contains("\"secure\"") && !stored.contains(token), "the pairing, not the token, is stored")
        let mode = try FileManager.default.attributesOfItem(atPath: config)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Every command now goes through the tunnel: the demo home, as the owner.
        result = try Self.hearth(["home", "list", "--config", config])
        #expect(result.status == 0 && result.output.contains("Demo Home"), "\(result)")
        // The setup code was used up.
        result = try Self.hearth(["login", "--hub", hub, code, "--config", state + "/again.json"])
        #expect(result.status != 0)
        #expect(result.errors.contains("the hub refused the code"), "\(result)")
    }

    @Test func homeExportWritesAPrivateFileThatImportReadsBack() throws {
        let hub = try DemoHub()
        defer { hub.stop() }
        let config = ["--config", hub.config]
        let path = hub.state + "/exported-home.json"
        var result = try Self.hearth(["home", "export", "--output", path] + config)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.hasPrefix("Exported home Demo Home ("), "\(result)")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "the file is private")
        let file = try HomeFile.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(file.home.name == "Demo Home")
        #expect(!file.home.accessories.isEmpty)

        // To standard output: the same home.
        result = try Self.hearth(["home", "export"] + config)
        #expect(result.status == 0, "\(result)")
        #expect(try HomeFile.decode(Data(result.output.utf8)).home.id == file.home.id)

        // Imported into the same hub: it is already there.
        result = try Self.hearth(["home", "import", path] + config)
        #expect(result.status == 6, "\(result)")
        #expect(result.errors == "error: this home is already on this hub.\n", "\(result)")

        // A file that is not a home file: refused before the hub is asked.
        let bad = hub.state + "/not-a-home.json"
        try Data(#"{"format": "hearth.room", "version": 1}"#.utf8).write(to: URL(fileURLWithPath: bad))
        result = try Self.hearth(["home", "import", bad] + config)
        #expect(result.status == 2, "\(result)")
        #expect(result.errors.contains("This is not a Hearth home file"), "\(result)")

        // Another hub: the home arrives, its accessories to be paired again.
        let other = try DemoHub()
        defer { other.stop() }
        var copy = file
        copy.home.name = "Copied Home"
        let copyPath = other.state + "/copy.json"
        try copy.encoded().write(to: URL(fileURLWithPath: copyPath))
        result = try Self.hearth(["home", "import", copyPath, "--config", other.config])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.hasPrefix("Imported home Copied Home ("), "\(result)")
        #expect(result.output.contains("accessories need pairing on this hub"), "\(result)")
    }

    @Test func homeCommandsDriveTheDemoHub() throws {
        let hub = try DemoHub()
        defer { hub.stop() }
        let config = ["--config", hub.config]

        var result = try Self.hearth(["home", "list"] + config)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("Demo Home *"), "\(result)")
        #expect(result.output.contains("owner"))

        result = try Self.hearth(["home", "list", "--json"] + config)
        #expect(result.status == 0, "\(result)")
        let homes = try result.json()["homes"] as? [[String: Any]] ?? []
        #expect(homes.map { $0["name"] as? String } == ["Demo Home"])

        result = try Self.hearth(["room", "add", "Office"] + config)
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "Added room Office to Demo Home.\n", "\(result)")

        result = try Self.hearth(["room", "list", "--json"] + config)
        let rooms = try result.json()["rooms"] as? [[String: Any]] ?? []
        #expect(rooms.contains { $0["name"] as? String == "Office" }, "\(result)")

        // The home's temperature unit; another word is a usage error naming both units.
        result = try Self.hearth(["home", "unit", "Fahrenheit"] + config)
        #expect(result.status == 0 && result.output == "Demo Home now uses fahrenheit.\n", "\(result)")
        result = try Self.hearth(["home", "show", "--json"] + config)
        #expect((try result.json()["home"] as? [String: Any])?["temperatureUnit"] as? String == "fahrenheit")
        result = try Self.hearth(["home", "unit", "kelvin"] + config)
        #expect(result.status == 2 && result.errors.contains("celsius or fahrenheit"), "\(result)")

        // Clear exit codes: a clash (409) is 6, an unknown name is 3, both with one error line.
        result = try Self.hearth(["room", "add", "office"] + config)
        #expect(result.status == 6, "\(result)")
        #expect(result.errors.hasPrefix("error: the name 'office' is taken"), "\(result)")
        result = try Self.hearth(["room", "rename", "Nowhere", "Somewhere", "--json"] + config)
        #expect(result.status == 3, "\(result)")
        #expect((try result.json()["error"] as? [String: Any])?["code"] as? String == "notFound")
        result = try Self.hearth(["room", "list", "--home", "Elsewhere"] + config)
        #expect(result.status == 3, "\(result)")

        // No configuration: 4 with a hint.
        result = try Self.hearth(["home", "list", "--config", hub.state + "/missing.json"])
        #expect(result.status == 4 && result.errors.contains("hearth login"), "\(result)")

        // The demo hub has no accessories until the hub's accessory half is wired.
        result = try Self.hearth(["accessory", "list"] + config)
        #expect(result.status == 0, "\(result)")

        // Scenes of the demo home.
        result = try Self.hearth(["scene", "list", "--json"] + config)
        #expect((try result.json()["actionSets"] as? [Any])?.count == 4, "\(result)")
        // The built-in scenes: found by kind, renamed by the demo, never removed.
        result = try Self.hearth(["scene", "show", "--kind", "wakeUp"] + config)
        #expect(result.status == 0 && result.output.hasPrefix("Good Morning (wakeUp, "), "\(result)")
        result = try Self.hearth(["scene", "show", "--kind", "homeArrival", "--json"] + config)
        #expect((try result.json()["actionSet"] as? [String: Any])?["name"] as? String == "Arrive Home", "\(result)")
        result = try Self.hearth(["scene", "show", "--kind", "noon"] + config)
        #expect(
            result.status == 2
                && result.errors
                    == "error: the kind must be one of wakeUp, homeDeparture, homeArrival, sleep, not 'noon'.\n",
            "\(result)"
        )
        result = try Self.hearth(["scene", "remove", "Good Night"] + config)
        #expect(
            result.status == 6
                && result.errors
                    == "error: the scene 'Good Night' is built in, and built-in scenes cannot be removed; "
                    + "rename it or change its actions.\n",
            "\(result)"
        )
    }

    @Test func aRefusedValueIsOneSentenceNamingTheCharacteristic() throws {
        let hub = try DemoHub()
        defer { hub.stop() }
        let config = ["--config", hub.config]
        var result = try Self.hearth(["accessory", "set", "Living Room Lamp", "brightness", "150"] + config)
        #expect(result.status == 2, "\(result)")
        #expect(result.errors == "error: Brightness must be between 0 and 100 (got 150).\n", "\(result)")
        #expect(result.output.isEmpty, "\(result)")
        result = try Self.hearth(["accessory", "set", "Living Room Lamp", "brightness", "150", "--json"] + config)
        let error = try result.json()["error"] as? [String: Any]
        #expect(error?["code"] as? String == "invalidValue", "\(result)")
        #expect(error?["message"] as? String == "Brightness must be between 0 and 100 (got 150).", "\(result)")
    }

    @Test func loginInvitesAndASharedUserIsNotPermittedToConfigure() throws {
        let hub = try DemoHub()
        defer { hub.stop() }
        let config = ["--config", hub.config]
        let folder = hub.state + "/clients"

        // `hearth login --from` copies hearthd's file; `--token-stdin` takes the token from stdin; both 0600.
        var result = try Self.hearth(["login", "--from", hub.config, "--config", folder + "/a.json"])
        #expect(result.status == 0, "\(result)")
        let client = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: hub.config)))
        let url = try #require((client as? [String: Any])?["url"] as? String)
        let token = try #require((client as? [String: Any])?["token"] as? String)
        result = try Self.hearth(
            ["login", "--url", url, "--token-stdin", "--config", folder + "/b.json", "--json"],
            input: token + "\n"
        )
        #expect(result.status == 0, "\(result)")
        #expect(!result.output.contains(token) && !result.errors.contains(token), "the token is never printed")
        for file in ["a.json", "b.json"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + file)
            #expect(attributes[.posixPermissions] as? Int == 0o600, "\(file)")
        }
        result = try Self.hearth(
            ["login", "--url", url, "--token-stdin", "--config", folder + "/c.json"],
            input: "nope\n"
        )
        #expect(result.status == 4, "\(result)")

        // Invite a shared user, who joins with the code and may not configure (exit 4, notPermitted).
        result = try Self.hearth(["user", "invite", "shared", "--json"] + config)
        #expect(result.status == 0, "\(result)")
        let code = try #require(try result.json()["code"] as? String)
        let guest = ["--config", folder + "/guest.json"]
        result = try Self.hearth(["user", "join", code, "--url", url, "--name", "Guest"] + guest)
        #expect(result.status == 0, "\(result)")
        result = try Self.hearth(["home", "list"] + guest)
        #expect(result.output.contains("shared"), "\(result)")
        result = try Self.hearth(["room", "add", "Attic", "--json"] + guest)
        #expect(result.status == 4, "\(result)")
        #expect((try result.json()["error"] as? [String: Any])?["code"] as? String == "notPermitted")
        result = try Self.hearth(["home", "unit", "celsius"] + guest)
        #expect(result.status == 4, "\(result)")
        result = try Self.hearth(["user", "list"] + config)
        #expect(result.output.contains("Guest") && result.output.contains("shared"), "\(result)")

        // A sign-in link for the caller's own account: the page's address with the secret in the fragment.
        result = try Self.hearth(["user", "sign-in-link"] + guest)
        #expect(result.status == 0 && result.output.contains(url + "/#signin="), "\(result)")
    }

    @Test func watchSeesAChangeAsItHappens() throws {
        let hub = try DemoHub()
        defer { hub.stop() }
        let watcher = try ChildProcess(
            BuiltProducts.path("hearth"),
            ["watch", "--json", "--count", "1", "--config", hub.config],
            timeout: 120
        )
        let header = try watcher.receive()
        #expect(header["watching"] != nil, "\(header)")
        let result = try Self.hearth(["room", "add", "Studio", "--config", hub.config])
        #expect(result.status == 0, "\(result)")
        let line = try watcher.receive()
        let event = try #require(line["event"] as? [String: Any], "\(line)")
        let change = try #require(event["change"] as? [String: Any])
        #expect(change["type"] as? String == "roomAdded", "\(change)")
        let added = try #require(change["room"] as? [String: Any], "\(change)")
        #expect(added["name"] as? String == "Studio")
        #expect(watcher.waitForExit() == 0, "--count 1 ends after one change")

        // Text mode names the change.
        let text = try ChildProcess(
            BuiltProducts.path("hearth"),
            ["watch", "--count", "1", "--config", hub.config],
            timeout: 120
        )
        #expect(try text.readLine().hasPrefix("Watching Demo Home"))
        _ = try Self.hearth(["room", "rename", "Studio", "Workshop", "--config", hub.config])
        let sentence = try text.readLine()
        #expect(sentence.contains("Demo Home") && sentence.contains("room renamed: Studio → Workshop"), "\(sentence)")
        #expect(text.waitForExit() == 0)
    }
}
