import HomeGraph
import Testing

@testable import hearth

@Suite struct TriggerWordsTests {
    let door = CharacteristicWords(accessory: "Front Door", characteristic: "lockCurrentState")
    let motion = CharacteristicWords(accessory: "Hallway Motion", characteristic: "motionDetected")

    @Test func readsTheSeedExample() throws {
        let words = try TriggerWords.parse([
            "Welcome", "--when", "Front Door", "lockCurrentState", "unsecured", "--if", "after sunset-30m", "--if",
            "Hallway Motion", "motionDetected", "true", "--run", "Arrive Home",
        ])
        #expect(words.name == "Welcome")
        #expect(words.events == [.change(door, value: "unsecured")])
        #expect(
            words.conditions == [
                .time(after: .sun(.sunset, offsetSeconds: -1800), before: nil),
                .characteristic(motion, .equal, value: "true"),
            ]
        )
        #expect(words.scenes == ["Arrive Home"])
        #expect(words.isEnabled == nil && !words.executeOnce && words.timer == nil)
    }

    @Test func presenceOfNamedUsersAndRegions() throws {
        let words = try TriggerWords.parse([
            "Together", "--when-arrive", "first", "--who", "Ada,Bo", "--when-exit", "Office", "52.5", "-13.4", "200",
            "--when-enter", "Gym", "48.1", "11.5", "50", "--who", "Bo",
        ])
        #expect(
            words.events == [
                .presence(.firstEntry, who: ["Ada", "Bo"]),
                .region(name: "Office", latitude: 52.5, longitude: -13.4, radius: 200, .exit, who: ["me"]),
                .region(name: "Gym", latitude: 48.1, longitude: 11.5, radius: 50, .entry, who: ["Bo"]),
            ]
        )
        for bad in [
            ["T", "--who", "Ada"], ["T", "--at", "07:30", "--who", "Ada"],
            ["T", "--when-enter", "Office", "x", "1", "2"],
        ] {
            #expect(throws: TriggerWordsError.self) { try TriggerWords.parse(bad) }
        }
    }

    @Test func anEditTakesAwayConditionsTheEndAndExecuteOnce() throws {
        let words = try TriggerWords.parse(["Welcome", "--no-conditions", "--no-end", "--repeatable"])
        #expect(words.changesDefinition)
        let base = TriggerDefinition(
            events: [.calendar(time: TimeOfDay(hour: 7, minute: 30), weekdays: [])],
            condition: .presence(.anyone),
            end: TriggerEnd(afterSeconds: 300),
            executeOnce: true,
            catchUpSeconds: 60
        )
        let edited = words.removingParts(of: base)
        #expect(edited.condition == nil && edited.end == nil && !edited.executeOnce)
        #expect(edited.events == base.events && edited.catchUpSeconds == 60, "the rest stays")
        // Without them nothing is taken away.
        #expect(try TriggerWords.parse(["Welcome", "--once"]).removingParts(of: base) == base)
    }

    @Test func readsEveryEventForm() throws {
        var words = try TriggerWords.parse([
            "T", "--when", "Front Door", "lockCurrentState", "--when-above", "Thermostat", "currentTemperature", "26",
            "--when-below", "Thermostat", "currentTemperature", "-5.5", "--at", "07:30", "--on", "mon,tue",
            "--at", "sunset-30m", "--at", "22:00", "--on", "weekdays", "--when-arrive", "first", "--when-leave", "last",
            "--when", "Hallway Motion", "motionDetected", "false", "--held-for", "10m",
        ])
        let thermostat = CharacteristicWords(accessory: "Thermostat", characteristic: "currentTemperature")
        #expect(
            words.events == [
                .change(door, value: nil),
                .threshold(thermostat, min: 26, max: nil),
                .threshold(thermostat, min: nil, max: -5.5),
                .calendar(TimeOfDay(hour: 7, minute: 30), [.monday, .tuesday]),
                .sun(.sunset, offsetSeconds: -1800),
                .calendar(TimeOfDay(hour: 22, minute: 0), Weekday.workdays),
                .presence(.firstEntry),
                .presence(.lastExit),
                .held(motion, value: "false", seconds: 600),
            ]
        )
        words = try TriggerWords.parse(["Morning", "--timer", "2026-12-01T07:00", "--every", "1d", "--once"])
        #expect(
            words.timer
                == TimerSchedule(
                    fireDate: LocalDateTime(year: 2026, month: 12, day: 1, time: TimeOfDay(hour: 7, minute: 0)),
                    recurrence: .every(count: 1, unit: .day)
                )
        )
        #expect(words.executeOnce && words.events.isEmpty)
        words = try TriggerWords.parse(["Bins", "--timer", "2026-12-01T07:00", "--on", "sat,sun"])
        #expect(words.timer?.recurrence == .weekdays([.saturday, .sunday]))
    }

    @Test func readsEveryConditionFormAndTheEnd() throws {
        let words = try TriggerWords.parse([
            "Porch", "--if", "before sunset", "--if", "between 07:00 22:00", "--if", "after", "18:00",
            "--if", "Thermostat", "currentTemperature", ">=", "20.5", "--if", "anyone home", "--if", "no one home",
            "--if", "not fired in 10m", "--run", "Porch On", "--run", "Hall On", "--end-after", "5m", "--end-run",
            "Porch Off", "--catch-up", "1h30m", "--disabled", "--json", "--home", "Lake House",
        ])
        let thermostat = CharacteristicWords(accessory: "Thermostat", characteristic: "currentTemperature")
        #expect(
            words.conditions == [
                .time(after: nil, before: .sun(.sunset, offsetSeconds: 0)),
                .time(after: .clock(TimeOfDay(hour: 7, minute: 0)), before: .clock(TimeOfDay(hour: 22, minute: 0))),
                .time(after: .clock(TimeOfDay(hour: 18, minute: 0)), before: nil),
                .characteristic(thermostat, .greaterOrEqual, value: "20.5"),
                .presence(.anyone),
                .presence(.noOne),
                .notFiredWithin(seconds: 600),
            ]
        )
        #expect(words.scenes == ["Porch On", "Hall On"])
        #expect(words.endAfterSeconds == 300 && words.endScenes == ["Porch Off"])
        #expect(words.catchUpSeconds == 5400 && words.isEnabled == false)
        #expect(words.json && words.home == "Lake House")
        #expect(words.changesDefinition)
        #expect(try !TriggerWords.parse(["T", "--run", "X"]).changesDefinition)
    }

    @Test(arguments: [
        (["T", "--when", "Front Door"], "--when: takes an accessory, a characteristic and maybe a value"),
        (["T", "--at", "25:00"], "--at: '25:00' is not a time"),
        (["T", "--at", "sunset-30x"], "--at: 'sunset-30x' is not a time"),
        (["T", "--when-arrive", "last"], "--when-arrive: 'last' is not allowed; write --when-arrive first|every"),
        (["T", "--held-for", "10m"], "--held-for: must follow a --when with a value"),
        (["T", "--when", "A", "b", "--held-for", "soon"], "--held-for: 'soon' is not a duration"),
        (["T", "--if", "after noon"], "--if: 'noon' is not a time"),
        (["T", "--if", "A", "b", "~=", "1"], "--if: '~=' is not a comparison"),
        (["T", "--if", "sometimes"], "--if: 'sometimes' is not a condition"),
        (["T", "--every", "1d"], "--every repeats a --timer"),
        (["T", "--timer", "2026-02-30T07:00"], "--timer: '2026-02-30T07:00' is not a date and time"),
        (["T", "--timer", "2026-02-03T07:00", "--every", "fortnightly"], "--every: 'fortnightly' is not a repeat"),
        (["T", "--at", "07:00", "--on", "someday"], "--on: 'someday' is not a list of days"),
        (["T", "--end-run", "Off"], "--end-run needs --end-after"),
        (["T", "--once", "now"], "--once: takes no value"),
        (["T", "U"], "'U' is not an option"),
        (["T", "--colour", "red"], "--colour is not an option of hearth trigger add/edit"),
        (["T", "--when-above", "A", "b", "warm"], "--when-above: 'warm' is not a number"),
    ])
    func refusesBadWordsWithASentenceNamingTheOption(words: [String], message: String) {
        #expect {
            _ = try TriggerWords.parse(words)
        } throws: { error in
            let text = (error as? TriggerWordsError)?.description ?? ""
            return text.hasPrefix(message) || text.contains(message)
        }
    }

    @Test func readsDurationsRepeatsAndDays() {
        #expect(TriggerWords.seconds("10m") == 600)
        #expect(TriggerWords.seconds("1h30m") == 5400)
        #expect(TriggerWords.seconds("90s") == 90)
        #expect(TriggerWords.seconds("1d") == 86_400)
        for bad in ["", "10", "m", "1x", "-5m", "1h30"] { #expect(TriggerWords.seconds(bad) == nil, "\(bad)") }
        #expect(TriggerWords.recurrence("30m") == .every(count: 30, unit: .minute))
        #expect(TriggerWords.recurrence("1w") == .every(count: 1, unit: .week))
        #expect(TriggerWords.recurrence("0d") == nil)
        #expect(TriggerWords.weekdays("sun,mon") == [.monday, .sunday])
        #expect(TriggerWords.weekdays("weekend") == [.saturday, .sunday])
        #expect(TriggerWords.weekdays("t") == nil)
    }
}
