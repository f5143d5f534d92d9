import Foundation
import Testing

/// `hearth trigger …` and `hearth presence …` run as a program against a running `hearthd --demo`.
@Suite(.serialized) struct TriggerCommandTests {
    @Test func triggersAreWrittenInOneLineShownEditedAndExplained() throws {
        let hub = try HomeCommandTests.DemoHub()
        defer { hub.stop() }
        let config = ["--config", hub.config]
        func hearth(_ arguments: [String]) throws -> HomeCommandTests.Result {
            try HomeCommandTests.hearth(arguments + config)
        }

        // The seed example, with the demo home's names.
        var result = try hearth([
            "trigger", "add", "Welcome", "--when", "Door Lock", "lockCurrentState", "unsecured", "--if",
            "after sunset-30m", "--if", "Motion Sensor", "motionDetected", "true", "--run", "Good Morning",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.output
                == "Added trigger Welcome: when Door Lock lockCurrentState becomes 0 (unsecured), runs Good Morning.\n",
            "\(result)"
        )
        result = try hearth(["trigger", "show", "Welcome"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("Welcome (on)"), "\(result)")
        #expect(
            result.output.contains("if: after sunset-30m and Motion Sensor motionDetected == true"),
            "\(result)"
        )
        result = try hearth(["trigger", "show", "Welcome", "--json"])
        let trigger = try result.json()["trigger"] as? [String: Any] ?? [:]
        let definition = trigger["definition"] as? [String: Any] ?? [:]
        let event = (definition["events"] as? [[String: Any]])?.first?["characteristic"] as? [String: Any]
        #expect(event?["value"] as? Int == 0, "\(result)")

        // "No motion for 10 minutes → lights off", and off again 5 minutes later (undo).
        result = try hearth([
            "trigger", "add", "Quiet", "--when", "Motion Sensor", "motionDetected", "false", "--held-for", "10m",
            "--run", "Good Night", "--end-after", "5m", "--once",
        ])
        #expect(result.status == 0, "\(result)")
        result = try hearth(["trigger", "show", "Quiet"])
        #expect(result.output.contains("fires: when Motion Sensor motionDetected == false for 10m"), "\(result)")
        #expect(result.output.contains("ends: after 5m, undoes its writes"), "\(result)")
        #expect(result.output.contains("once: turns off after its first firing"), "\(result)")
        result = try hearth([
            "trigger", "add", "Mornings", "--at", "07:30", "--on", "weekdays", "--run", "Good Morning",
        ])
        #expect(result.status == 0 && result.output.contains("it is 07:30 on monday"), "\(result)")

        // Bad words: one sentence naming the option and its forms, exit 2, nothing added.
        result = try hearth(["trigger", "add", "Bad", "--at", "25:00", "--run", "Good Morning"])
        #expect(result.status == 2, "\(result)")
        #expect(result.errors.hasPrefix("error: --at: '25:00' is not a time; write --at HH:MM"), "\(result)")
        result = try hearth(["trigger", "add", "Bad", "--when", "Door Lock", "lockCurrentState", "ajar"])
        #expect(result.status == 2, "\(result)")
        // A definition the hub refuses comes back as its sentence naming the field.
        result = try hearth(["trigger", "add", "Bad", "--at", "sunset+13h"])
        #expect(result.status == 2 && result.errors.contains("events[0].offsetSeconds"), "\(result)")
        result = try hearth(["trigger", "list", "--json"])
        #expect((try result.json()["triggers"] as? [Any])?.count == 3, "\(result)")

        // Edit replaces what is given: the conditions here, the event stays.
        result = try hearth(["trigger", "edit", "Welcome", "--if", "before 18:00"])
        #expect(result.status == 0 && result.output == "Changed trigger Welcome.\n", "\(result)")
        result = try hearth(["trigger", "show", "Welcome"])
        #expect(result.output.contains("if: before 18:00\n"), "\(result)")
        #expect(result.output.contains("fires: when Door Lock lockCurrentState becomes 0 (unsecured)"), "\(result)")

        result = try hearth(["trigger", "explain", "Welcome"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.output.hasPrefix("Welcome has decided nothing yet") || result.output.contains("fire"),
            "\(result)"
        )
        result = try hearth(["trigger", "disable", "Welcome"])
        #expect(result.output == "Trigger Welcome is off.\n", "\(result)")
        result = try hearth(["trigger", "list"])
        #expect(result.output.contains("Welcome"), "\(result)")
        result = try hearth(["trigger", "remove", "Quiet"])
        #expect(result.status == 0, "\(result)")

        // Presence: by word, and by a position tested against the demo home's location (Berlin, 100 m).
        result = try hearth(["presence", "away"])
        #expect(result.status == 0 && result.output == "You are away at Demo Home.\n", "\(result)")
        result = try hearth(["presence", "at", "52.5201", "13.405"])
        #expect(result.status == 0 && result.output == "You are home at Demo Home.\n", "\(result)")
        result = try hearth(["presence", "at", "48.85", "2.35"])
        #expect(result.output == "You are away at Demo Home.\n", "\(result)")
    }
}
