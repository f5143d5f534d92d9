import Automation
import Foundation
import HomeGraph
import Hub
import TestSupport
import Testing

/// Timer triggers run by the hub on a clock the test moves: a simulated year in a northern and a southern time
/// zone, across both daylight-saving changes of each.
@Suite struct HubTimerYearTests {
    /// A hub whose automation clock the test moves, with one home in `timeZone`.
    struct YearHub {
        let hub: Hub
        let clock: ManualClock
        let folder: String
        let home: UUID
        let owner = UUID()

        init(timeZone: String, start: Date) async throws {
            folder = NSTemporaryDirectory() + "timer-year-\(UUID().uuidString)"
            clock = ManualClock(start: start)
            hub = try await Hub(configuration: .init(stateFolder: folder, clock: clock))
            home = try await hub.addHome(name: "Home", timeZoneIdentifier: timeZone, ownerName: "Ada", as: .user(owner))
                .id
            try await hub.start()
        }

        func add(_ name: String, _ definition: TriggerDefinition) async throws -> UUID {
            let id = UUID()
            try await hub.perform(
                .addTrigger(home: home, trigger: Trigger(id: id, name: name, definition: definition)),
                as: .user(owner)
            )
            return id
        }

        func state(_ trigger: UUID) async -> TriggerState? {
            await hub.automationState(ofTrigger: trigger, inHome: home)
        }

        /// Moves the clock to `date` and waits until `trigger` has fired at it (generously: a full test run can hold
        /// up the cooperative pool for tens of seconds).
        func fire(_ trigger: UUID, at date: Date) async throws {
            clock.advance(to: date)
            try await waitUntil("the firing at \(date)", timeout: .seconds(120), every: .milliseconds(2)) {
                await state(trigger)?.lastFired == date
            }
        }

        func stop() async {
            await hub.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Runs a daily 02:30 timer for a year from 1 January 2026 and returns each firing's wall-clock time.
    static func year(in zone: String) async throws -> (firings: [LocalDateTime], instants: [Date]) {
        let homeClock = HomeClock(timeZone: try #require(TimeZone(identifier: zone)))
        let start = homeClock.instant(of: try #require(LocalDateTime("2026-01-01T00:00:00")))
        let year = try await YearHub(timeZone: zone, start: start)
        defer { Task { await year.stop() } }
        let daily = try await year.add(
            "Night",
            TriggerDefinition(
                timer: TimerSchedule(
                    fireDate: try #require(LocalDateTime("2026-01-01T02:30:00")),
                    recurrence: .every(count: 1, unit: .day)
                )
            )
        )
        var instants: [Date] = []
        for _ in 0..<365 {
            let next = try #require(await year.state(daily)?.nextFire)
            // Nothing fires before its time.
            year.clock.advance(to: next.addingTimeInterval(-1))
            try await year.fire(daily, at: next)
            instants.append(next)
        }
        return (instants.map(homeClock.local), instants)
    }

    @Test(arguments: ["Europe/Berlin", "Australia/Sydney"])
    func aDailyTimerFiresExactlyOnceEveryDayOfTheYear(zone: String) async throws {
        let (firings, instants) = try await Self.year(in: zone)
        #expect(firings.count == 365)
        #expect(Set(instants).count == 365, "no instant twice")
        #expect(zip(instants, instants.dropFirst()).allSatisfy { $0 < $1 })
        // One firing per calendar day, all of 2026.
        let days = Set(firings.map { "\($0.year)-\($0.month)-\($0.day)" })
        #expect(days.count == 365)
        // 02:30 every day but the spring-forward day, when 02:30 does not exist and it runs at 03:00.
        let gapDay = zone == "Europe/Berlin" ? (3, 29) : (10, 4)
        for firing in firings {
            let expected =
                (firing.month, firing.day) == gapDay ? TimeOfDay(hour: 3, minute: 0) : TimeOfDay(hour: 2, minute: 30)
            #expect(firing.time == expected, "\(firing)")
        }
        // The autumn day's repeated hour: once, at the first 02:30 (an hour apart from the next day's firing + 25 h).
        let repeatDay = zone == "Europe/Berlin" ? (10, 25) : (4, 5)
        let index = try #require(firings.firstIndex { ($0.month, $0.day) == repeatDay })
        #expect(instants[index].timeIntervalSince(instants[index - 1]) == 86_400)
        #expect(instants[index + 1].timeIntervalSince(instants[index]) == 90_000)
    }

    @Test func disabledTimersWaitAndExecuteOnceTurnsItselfOff() async throws {
        let clock = HomeClock(timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        let at = { (text: String) throws -> Date in clock.instant(of: try #require(LocalDateTime(text))) }
        let year = try await YearHub(timeZone: "Europe/Berlin", start: try at("2026-03-01T00:00:00"))
        defer { Task { await year.stop() } }
        let every = try await year.add(
            "Weekdays",
            TriggerDefinition(
                timer: TimerSchedule(
                    fireDate: try #require(LocalDateTime("2026-03-02T07:00:00")),
                    recurrence: .weekdays(Weekday.workdays)
                )
            )
        )
        let once = try await year.add(
            "Once",
            TriggerDefinition(
                timer: TimerSchedule(
                    fireDate: try #require(LocalDateTime("2026-03-02T08:00:00")),
                    recurrence: .every(count: 1, unit: .day)
                ),
                executeOnce: true
            )
        )
        try await year.fire(every, at: try at("2026-03-02T07:00:00"))
        try await year.fire(once, at: try at("2026-03-02T08:00:00"))
        try await waitUntil("execute-once turned the trigger off") {
            year.hub.graph.home(withID: year.home)?.triggers.first { $0.id == once }?.isEnabled == false
        }
        // Off over the weekend boundary: Tuesday to Thursday pass without a firing.
        try await year.hub.perform(
            .enableTrigger(home: year.home, trigger: every, isEnabled: false),
            as: .user(year.owner)
        )
        year.clock.advance(to: try at("2026-03-05T12:00:00"))
        try await Task.sleep(for: .milliseconds(200))
        #expect(await year.state(every)?.lastFired == (try at("2026-03-02T07:00:00")))
        #expect(await year.state(once)?.lastFired == (try at("2026-03-02T08:00:00")), "once is once")
        // On again on Thursday noon: the next firing is Friday 07:00, not the missed ones.
        try await year.hub.perform(
            .enableTrigger(home: year.home, trigger: every, isEnabled: true),
            as: .user(year.owner)
        )
        try await waitUntil("the next firing is armed") {
            await year.state(every)?.nextFire == (try at("2026-03-06T07:00:00"))
        }
        try await year.fire(every, at: try at("2026-03-06T07:00:00"))
        // Then Monday: the weekend is skipped.
        #expect(await year.state(every)?.nextFire == (try at("2026-03-09T07:00:00")))
        let fired = await year.state(every)?.decisions.filter { $0.outcome == .fired }.count
        #expect(fired == 2)
    }
}
