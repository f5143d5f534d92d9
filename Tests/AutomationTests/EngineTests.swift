import Automation
import Foundation
import HAPTypes
import HomeGraph
import Testing

/// The evaluation engine on a graph home: events, conditions, durations, ends, presence and the index.
@Suite struct EngineTests {
    /// The seed: when the front door unlocks, and it is before 18:00, and the hallway detects motion, run a scene.
    static func seed(_ house: inout House) throws -> UUID {
        try house.addTrigger(
            "Welcome",
            TriggerDefinition(
                events: [.characteristic(id: house.lock, value: .uint(0))],
                condition: .all([
                    .time(after: nil, before: .clock(TimeOfDay(hour: 18, minute: 0))),
                    .characteristic(id: house.motion, comparison: .equal, value: .bool(true)),
                ])
            ),
            runs: [house.arriveHome]
        )
    }

    @Test func theSeedScenarioFiresOnlyBefore18WithMotion() throws {
        var house = try House()
        let welcome = try Self.seed(&house)
        var engine = AutomationEngine()
        _ = engine.load(try house.home, now: House.june15(9, 0), isStart: true)
        try house.set(house.motion, .bool(true))

        let fired = engine.valueReported(
            house.lock,
            old: .uint(1),
            new: .uint(0),
            in: try house.home,
            now: House.june15(17, 0)
        )
        #expect(fired.firings.map(\.triggerID) == [welcome])
        #expect(fired.first?.run == .fire(actionSetIDs: [house.arriveHome], captureUndo: false))

        // Locked again, then unlocked after 18:00: the decision says which condition failed and what it saw.
        let late = engine.valueReported(
            house.lock,
            old: .uint(1),
            new: .uint(0),
            in: try house.home,
            now: House.june15(18, 30)
        )
        #expect(late.firings.isEmpty)
        let skipped = try #require(late.first?.state.decisions.last)
        #expect(skipped.outcome == .skipped)
        #expect(skipped.reason?.contains("before 18:00") == true)
        #expect(skipped.conditions.map(\.holds) == [false, true])
        #expect(skipped.conditions[0].observed.hasPrefix("18:30"))
        #expect(skipped.cause == "Front Door Lock Current State became 0")

        // No motion: no firing.
        try house.set(house.motion, .bool(false))
        let still = engine.valueReported(
            house.lock,
            old: .uint(1),
            new: .uint(0),
            in: try house.home,
            now: House.june15(12, 0)
        )
        #expect(still.firings.isEmpty)
        #expect(still.first?.state.decisions.last?.conditions.map(\.holds) == [true, false])

        // The door only locking (becomes 1), or reporting 0 again without a change, is not the event.
        #expect(
            engine.valueReported(
                house.lock,
                old: .uint(0),
                new: .uint(1),
                in: try house.home,
                now: House.june15(12, 0)
            ).isEmpty
        )
        try house.set(house.motion, .bool(true))
        #expect(
            engine.valueReported(
                house.lock,
                old: .uint(0),
                new: .uint(0),
                in: try house.home,
                now: House.june15(12, 0)
            ).isEmpty
        )
    }

    @Test func afterThirtyMinutesBeforeSunset() throws {
        var house = try House()
        let trigger = try house.addTrigger(
            "Dusk",
            TriggerDefinition(
                events: [.characteristic(id: house.motion, value: .bool(true))],
                condition: .time(after: TimePoint("sunset-30m"), before: nil)
            ),
            runs: [house.arriveHome]
        )
        var engine = AutomationEngine()
        _ = engine.load(try house.home, now: House.june15(9, 0), isStart: true)
        let clock = HomeClock(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        guard
            case .at(let sunset) = clock.sunTime(
                .sunset,
                offsetSeconds: 0,
                latitude: 52.52,
                longitude: 13.405,
                onDayOf: House.june15(12, 0)
            )
        else { Issue.record("Berlin has a sunset in June"); return }
        // Berlin's sunset on 15 June 2026 is 21:31 CEST (timeanddate.com).
        #expect(abs(sunset.timeIntervalSince(House.june15(21, 31))) < 150)
        let early = engine.valueReported(
            house.motion,
            old: .bool(false),
            new: .bool(true),
            in: try house.home,
            now: sunset.addingTimeInterval(-31 * 60)
        )
        #expect(early.firings.isEmpty)
        #expect(early.first?.state.decisions.last?.reason?.contains("after sunset-30m") == true)
        let inTime = engine.valueReported(
            house.motion,
            old: .bool(false),
            new: .bool(true),
            in: try house.home,
            now: sunset.addingTimeInterval(-29 * 60)
        )
        #expect(inTime.firings.map(\.triggerID) == [trigger])
    }

    @Test func aSunTimeWhoseOffsetCrossesMidnightIsReadAsTheClockTimeItShows() throws {
        let clock = HomeClock(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        let noon = House.june15(12, 0)
        // Berlin, 15 June: sunrise about 04:43, so sunrise-12h is about 16:43 (the day before's, by the instant);
        // sunset about 21:31, so sunset+12h is about 09:31 (the day after's).
        for (point, holdsAtNoon) in [("sunrise-12h", false), ("sunset+12h", true), ("sunrise+12h", false)] {
            var house = try House()
            let trigger = try house.addTrigger(
                "Odd hours",
                TriggerDefinition(
                    events: [.characteristic(id: house.motion, value: .bool(true))],
                    condition: .time(after: TimePoint(point), before: nil)
                ),
                runs: [house.arriveHome]
            )
            var engine = AutomationEngine()
            _ = engine.load(try house.home, now: House.june15(9, 0), isStart: true)
            let outcomes = engine.valueReported(
                house.motion,
                old: .bool(false),
                new: .bool(true),
                in: try house.home,
                now: noon
            )
            #expect(outcomes.firings.map(\.triggerID) == (holdsAtNoon ? [trigger] : []), "\(point)")
            let check = try #require(outcomes.first?.state.decisions.last?.conditions.first, "\(point)")
            #expect(check.holds == holdsAtNoon, "\(point): \(check.observed)")
            // The explanation's clock time, as a clock-time condition, decides the same way.
            let shown = try #require(check.observed.components(separatedBy: "from ").last)
            let time = try #require(TimeOfDay(String(shown.prefix(5))), "\(check.observed)")
            let start = clock.instant(of: time, onDayOf: noon)
            #expect((noon >= start) == holdsAtNoon, "\(point): \(check.observed)")
        }
    }

    @Test func aButtonsSinglePressAndLongPressRunDifferentScenes() throws {
        var house = try House()
        let single = try house.addTrigger(
            "Press",
            TriggerDefinition(events: [.characteristic(id: house.button, value: .uint(0))]),
            runs: [house.arriveHome]
        )
        let long = try house.addTrigger(
            "Hold",
            TriggerDefinition(events: [.characteristic(id: house.button, value: .uint(2))]),
            runs: [house.lightsOff]
        )
        var engine = AutomationEngine()
        _ = engine.load(try house.home, now: House.june15(9, 0), isStart: true)
        let first = engine.valueReported(
            house.button,
            old: nil,
            new: .uint(0),
            in: try house.home,
            now: House.june15(9, 1)
        )
        #expect(first.firings.map(\.triggerID) == [single])
        // A second single press repeats the value: still an event, the switch has no state.
        let again = engine.valueReported(
            house.button,
            old: .uint(0),
            new: .uint(0),
            in: try house.home,
            now: House.june15(9, 2)
        )
        #expect(again.firings.map(\.triggerID) == [single])
        let hold = engine.valueReported(
            house.button,
            old: .uint(0),
            new: .uint(2),
            in: try house.home,
            now: House.june15(9, 3)
        )
        #expect(hold.firings.map(\.triggerID) == [long])
        #expect(hold.first?.run == .fire(actionSetIDs: [house.lightsOff], captureUndo: false))
        // Reading the switch's last press back (a refresh, a reconnect) is not a press.
        let read = engine.valueReported(
            house.button,
            old: .uint(2),
            new: .uint(2),
            in: try house.home,
            now: House.june15(9, 4),
            isEvent: false
        )
        #expect(read.isEmpty)
    }

    @Test func aThresholdFiresWhenTheValueEntersTheRange() throws {
        var house = try House()
        let hot = try house.addTrigger(
            "Hot",
            TriggerDefinition(events: [.threshold(id: house.temperature, min: 26, max: nil)]),
            runs: [house.lightsOff]
        )
        var engine = AutomationEngine()
        _ = engine.load(try house.home, now: House.june15(9, 0), isStart: true)
        let report = { (engine: inout AutomationEngine, old: Double, new: Double) throws -> [AutomationOutcome] in
            engine.valueReported(
                house.temperature,
                old: .float(old),
                new: .float(new),
                in: try house.home,
                now: House.june15(10, 0)
            )
        }
        #expect(try report(&engine, 20, 25.9).isEmpty)
        #expect(try report(&engine, 25.9, 26.5).firings.map(\.triggerID) == [hot])
        #expect(try report(&engine, 26.5, 27).isEmpty, "still above: no new firing")
        #expect(try report(&engine, 27, 24).isEmpty)
        #expect(try report(&engine, 24, 30).firings.map(\.triggerID) == [hot])
    }

    @Test func noMotionForTenMinutesFiresOnceAtTheRightTime() throws {
        var house = try House()
        let quiet = try house.addTrigger(
            "Quiet",
            TriggerDefinition(events: [
                .duration(
                    condition: .characteristic(id: house.motion, comparison: .equal, value: .bool(false)),
                    seconds: 600
                )
            ]),
            runs: [house.lightsOff]
        )
        try house.set(house.motion, .bool(true))
        var engine = AutomationEngine()
        _ = engine.load(try house.home, now: House.june15(9, 0), isStart: true)
        #expect(engine.nextWake == nil, "motion now: nothing to wait for")

        let stopped = engine.valueReported(
            house.motion,
            old: .bool(true),
            new: .bool(false),
            in: try house.home,
            now: House.june15(9, 1)
        )
        #expect(stopped.firings.isEmpty)
        try house.set(house.motion, .bool(false))
        try house.store(stopped)
        #expect(engine.nextWake == House.june15(9, 11))
        #expect(engine.timePassed(in: try house.home, now: House.june15(9, 10)).isEmpty)
        let fired = engine.timePassed(in: try house.home, now: House.june15(9, 11))
        #expect(fired.firings.map(\.triggerID) == [quiet])
        #expect(fired.first?.state.decisions.last?.cause.contains("held for 10m") == true)
        // Once per stretch of quiet.
        #expect(engine.timePassed(in: try house.home, now: House.june15(9, 30)).firings.isEmpty)
        #expect(engine.nextWake == nil)

        // Motion, then quiet again: a new stretch.
        _ = engine.valueReported(
            house.motion,
            old: .bool(false),
            new: .bool(true),
            in: try house.home,
            now: House.june15(9, 40)
        )
        try house.set(house.motion, .bool(true))
        _ = engine.valueReported(
            house.motion,
            old: .bool(true),
            new: .bool(false),
            in: try house.home,
            now: House.june15(9, 45)
        )
        try house.set(house.motion, .bool(false))
        #expect(engine.nextWake == House.june15(9, 55))
    }

    @Test func anEndUndoesAfterItsDelayAndMovesWhenFiredAgain() throws {
        var house = try House()
        let porch = try house.addTrigger(
            "Porch",
            TriggerDefinition(
                events: [.characteristic(id: house.motion, value: .bool(true))],
                end: TriggerEnd(afterSeconds: 300)
            ),
            runs: [house.arriveHome]
        )
        var engine = AutomationEngine()
        _ = engine.load(try house.home, now: House.june15(20, 0), isStart: true)
        let fired = engine.valueReported(
            house.motion,
            old: .bool(false),
            new: .bool(true),
            in: try house.home,
            now: House.june15(20, 1)
        )
        #expect(fired.first?.run == .fire(actionSetIDs: [house.arriveHome], captureUndo: true))
        let decidedAt = House.june15(20, 1)
        let restore = [Action(characteristicID: house.lampOn, targetValue: .bool(false))]
        let recorded = engine.recordRun(
            home: house.homeID,
            trigger: porch,
            decidedAt: decidedAt,
            writes: [WriteRecord(characteristicID: house.lampOn, value: .bool(true))],
            restore: restore
        )
        #expect(recorded?.state.pendingEnd?.restore == restore)
        #expect(recorded?.state.decisions.last?.writes.count == 1)
        #expect(recorded?.decision?.writes.count == 1)
        #expect(engine.nextWake == House.june15(20, 6))

        // Fired again at 20:04: the end moves to 20:09 and still restores the first values.
        let again = engine.valueReported(
            house.motion,
            old: .bool(false),
            new: .bool(true),
            in: try house.home,
            now: House.june15(20, 4)
        )
        #expect(again.first?.run == .fire(actionSetIDs: [house.arriveHome], captureUndo: false))
        #expect(engine.timePassed(in: try house.home, now: House.june15(20, 6)).isEmpty)
        let ended = engine.timePassed(in: try house.home, now: House.june15(20, 9))
        #expect(ended.map(\.run) == [.end(restore: restore, actionSetIDs: [])])
        #expect(ended.first?.state.pendingEnd == nil)
        #expect(ended.first?.state.decisions.last?.outcome == .ended)
    }

    @Test func firstEntryAndLastExitWithTwoUsers() throws {
        var house = try House()
        let first = try house.addTrigger(
            "First home",
            TriggerDefinition(events: [.presence(change: .firstEntry, users: .everyUser)]),
            runs: [house.arriveHome]
        )
        let last = try house.addTrigger(
            "Last out",
            TriggerDefinition(events: [.presence(change: .lastExit, users: .everyUser)]),
            runs: [house.lightsOff]
        )
        var engine = AutomationEngine()
        _ = engine.load(try house.home, now: House.june15(8, 0), isStart: true)
        func report(_ user: UUID, home isHome: Bool, at hour: Int) throws -> [UUID] {
            let old = try house.home.users.first { $0.id == user }?.presence
            let new = Presence(isHome: isHome, reportedAt: House.june15(hour, 0))
            let outcomes = engine.presenceReported(
                user: user,
                old: old,
                new: new,
                in: try house.home,
                now: House.june15(hour, 0)
            )
            try house.graph.apply(.setPresence(home: house.homeID, user: user, presence: new))
            return outcomes.firings.map(\.triggerID)
        }
        #expect(try report(house.owner, home: true, at: 9) == [first])
        #expect(try report(house.partner, home: true, at: 10) == [], "someone was home already")
        #expect(try report(house.owner, home: false, at: 11) == [], "someone is still home")
        #expect(try report(house.partner, home: false, at: 12) == [last])
        #expect(try report(house.partner, home: true, at: 13) == [first])
    }

    @Test func executeOnceTurnsTheTriggerOffAndNotFiredWithinHolds() throws {
        var house = try House()
        try house.addTrigger(
            "Once",
            TriggerDefinition(
                events: [.characteristic(id: house.motion, value: .bool(true))],
                executeOnce: true
            ),
            runs: [house.arriveHome]
        )
        let calm = try house.addTrigger(
            "Calm",
            TriggerDefinition(
                events: [.characteristic(id: house.motion, value: .bool(true))],
                condition: .notFiredWithin(seconds: 600)
            ),
            runs: [house.arriveHome]
        )
        var engine = AutomationEngine()
        _ = engine.load(try house.home, now: House.june15(8, 0), isStart: true)
        let first = engine.valueReported(
            house.motion,
            old: .bool(false),
            new: .bool(true),
            in: try house.home,
            now: House.june15(9, 0)
        )
        #expect(first.firings.count == 2)
        #expect(first.filter(\.turnOff).count == 1)
        let soon = engine.valueReported(
            house.motion,
            old: .bool(false),
            new: .bool(true),
            in: try house.home,
            now: House.june15(9, 5)
        )
        #expect(soon.firings.filter { $0.triggerID == calm }.isEmpty)
        #expect(
            soon.first { $0.triggerID == calm }?.state.decisions.last?.reason?.contains("last fired 300s ago") == true
        )
    }

    @Test func aMissedTimerRunsOnStartOnlyInsideItsCatchUpWindow() throws {
        var house = try House()
        let daily = TimerSchedule(
            fireDate: LocalDateTime("2026-06-14T07:00:00")!,
            recurrence: .every(count: 1, unit: .day)
        )
        let strict = try house.addTrigger("Strict", TriggerDefinition(timer: daily), runs: [house.arriveHome])
        let lenient = try house.addTrigger(
            "Lenient",
            TriggerDefinition(timer: daily, catchUpSeconds: 3600),
            runs: [house.arriveHome]
        )
        var engine = AutomationEngine()
        try house.store(engine.load(try house.home, now: House.june15(6, 0), isStart: true))
        #expect(engine.nextWake == House.june15(7, 0))
        // The hub is down from 06:00 to 07:30; a new engine stands for the restarted hub.
        var restarted = AutomationEngine()
        let start = restarted.load(try house.home, now: House.june15(7, 30), isStart: true)
        #expect(start.firings.map(\.triggerID) == [lenient])
        #expect(start.firings.first?.state.decisions.last?.isCatchUp == true)
        let missed = try #require(start.first { $0.triggerID == strict }?.state.decisions.last)
        #expect(missed.outcome == .skipped)
        #expect(missed.reason?.contains("outside the catch-up window") == true)
        // Both wait for tomorrow 07:00 now.
        #expect(restarted.nextWake == House.june15(7, 0).addingTimeInterval(86_400))
    }

    @Test func anEventReachesOnlyItsListeners() throws {
        var house = try House()
        let listening = try (0..<10).map { index in
            try house.addTrigger(
                "On \(index)",
                TriggerDefinition(events: [.characteristic(id: house.lock, value: nil)]),
                runs: [house.arriveHome]
            )
        }
        for index in 0..<500 {
            try house.addTrigger(
                "Other \(index)",
                TriggerDefinition(events: [.characteristic(id: house.motion, value: .bool(true))]),
                runs: [house.lightsOff]
            )
        }
        var engine = AutomationEngine()
        _ = engine.load(try house.home, now: House.june15(8, 0), isStart: true)
        let outcomes = engine.valueReported(
            house.lock,
            old: .uint(1),
            new: .uint(0),
            in: try house.home,
            now: House.june15(9, 0)
        )
        #expect(Set(outcomes.firings.map(\.triggerID)) == Set(listening))
        #expect(outcomes.count == 10)
    }
}
