import Foundation
import HomeGraph
import Testing

@testable import Automation

/// Timers over a simulated year in a northern (Berlin) and a southern (Sydney) zone: each firing is found by
/// asking for the next one after the previous, as the hub does.
@Suite struct TimerScheduleTests {
    /// A zone's clock changes in 2025, as wall-clock days.
    struct Zone: Sendable, CustomStringConvertible {
        var identifier: String
        /// The day the clock jumps from 02:00 to 03:00, and the instant of that jump.
        var gapDay: String
        var gapInstant: String
        /// The day 02:00–03:00 happens twice, and the instant of the first 02:30.
        var repeatDay: String
        var firstRepeatedHalfPast: String
        var description: String { identifier }
    }

    static let zones = [
        Zone(
            identifier: "Europe/Berlin",
            gapDay: "2025-03-30",
            gapInstant: "2025-03-30T01:00:00Z",
            repeatDay: "2025-10-26",
            firstRepeatedHalfPast: "2025-10-26T00:30:00Z"
        ),
        Zone(
            identifier: "Australia/Sydney",
            gapDay: "2025-10-05",
            gapInstant: "2025-10-04T16:00:00Z",
            repeatDay: "2025-04-06",
            firstRepeatedHalfPast: "2025-04-05T15:30:00Z"
        ),
    ]

    /// Every firing from the first one up to `end` (exclusive), asking for the next after the previous.
    static func firings(
        of schedule: TimerSchedule,
        on clock: HomeClock,
        until end: LocalDateTime,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Date] {
        let end = clock.instant(of: end)
        var result: [Date] = []
        var cursor = clock.instant(of: schedule.fireDate).addingTimeInterval(-1)
        for _ in 0..<20_000 {
            guard let next = clock.nextFire(of: schedule, after: cursor) else { return result }
            guard next > cursor else {
                Issue.record("\(next) is not after \(cursor)", sourceLocation: sourceLocation)
                return result
            }
            guard next < end else { return result }
            result.append(next)
            cursor = next
        }
        Issue.record("more than 20,000 firings", sourceLocation: sourceLocation)
        return result
    }

    /// Each firing is also what a hub that restarts anywhere before it gets: from just before it, and from any
    /// moment since the firing before (here: the midpoint).
    static func expectStableFromAnyPoint(
        _ firings: [Date],
        of schedule: TimerSchedule,
        on clock: HomeClock,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (index, firing) in firings.enumerated() {
            #expect(
                clock.nextFire(of: schedule, after: firing.addingTimeInterval(-1)) == firing,
                sourceLocation: sourceLocation
            )
            if index > 0 {
                let middle = firings[index - 1].addingTimeInterval(firing.timeIntervalSince(firings[index - 1]) / 2)
                #expect(clock.nextFire(of: schedule, after: middle) == firing, sourceLocation: sourceLocation)
            }
        }
    }

    /// The local calendar days of 2025 (365 of them), as "YYYY-MM-DD".
    static let daysOf2025: [String] = {
        var days: [String] = []
        let lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        for (index, length) in lengths.enumerated() {
            for day in 1...length {
                days.append(
                    LocalDateTime(year: 2025, month: index + 1, day: day, time: TimeOfDay(hour: 0, minute: 0))
                        .description.prefix(10).description
                )
            }
        }
        return days
    }()

    static func day(_ date: Date, _ clock: HomeClock) -> String { clock.local(date).description.prefix(10).description }

    @Test(arguments: zones)
    func daily0230FiresOnceEveryDay(zone: Zone) throws {
        let clock = try zoneClock(zone.identifier)
        let schedule = TimerSchedule(fireDate: local("2025-01-01T02:30"), recurrence: .every(count: 1, unit: .day))
        let firings = Self.firings(of: schedule, on: clock, until: local("2026-01-01T00:00"))
        #expect(firings.count == 365)
        #expect(firings.map { Self.day($0, clock) } == Self.daysOf2025)
        #expect(Set(firings).count == firings.count)
        for firing in firings {
            let wall = clock.local(firing)
            let day = Self.day(firing, clock)
            if day == zone.gapDay {
                #expect(firing == utc(zone.gapInstant))
                #expect(wall.time == TimeOfDay(hour: 3, minute: 0))
            } else {
                #expect(wall.time == TimeOfDay(hour: 2, minute: 30), "\(wall)")
            }
            if day == zone.repeatDay { #expect(firing == utc(zone.firstRepeatedHalfPast)) }
        }
        Self.expectStableFromAnyPoint(firings, of: schedule, on: clock)
        // In the repeated hour, after the first 02:30 and before or at the second, the next is the day after.
        let repeated = utc(zone.firstRepeatedHalfPast)
        let nextDay = try #require(firings.first { $0 > repeated })
        for seconds in [0.0, 1, 1800, 3599, 3600, 3601, 5400] {
            #expect(clock.nextFire(of: schedule, after: repeated.addingTimeInterval(seconds)) == nextDay)
        }
    }

    @Test(arguments: zones)
    func weekdayTimerFiresOnWorkdaysOnly(zone: Zone) throws {
        let clock = try zoneClock(zone.identifier)
        // 2025-01-01 is a Wednesday; 2025 has 261 days Monday to Friday.
        let schedule = TimerSchedule(fireDate: local("2025-01-01T02:30"), recurrence: .weekdays(Weekday.workdays))
        let firings = Self.firings(of: schedule, on: clock, until: local("2026-01-01T00:00"))
        #expect(firings.count == 261)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = clock.timeZone
        let expectedDays = Self.daysOf2025.filter { text in
            let date = clock.instant(of: local("\(text)T12:00"))
            return (2...6).contains(calendar.component(.weekday, from: date))
        }
        #expect(firings.map { Self.day($0, clock) } == expectedDays)
        #expect(firings.allSatisfy { clock.local($0).time == TimeOfDay(hour: 2, minute: 30) })
        #expect(zip(firings, firings.dropFirst()).allSatisfy { $0 < $1 })
        Self.expectStableFromAnyPoint(firings, of: schedule, on: clock)
        // From a Friday's firing the next is Monday's.
        let friday = clock.instant(of: local("2025-06-06T02:30"))
        #expect(clock.nextFire(of: schedule, after: friday) == clock.instant(of: local("2025-06-09T02:30")))
    }

    @Test(arguments: zones)
    func everyTwoHoursStepsElapsedTime(zone: Zone) throws {
        let clock = try zoneClock(zone.identifier)
        let schedule = TimerSchedule(fireDate: local("2025-01-01T00:30"), recurrence: .every(count: 2, unit: .hour))
        let firings = Self.firings(of: schedule, on: clock, until: local("2026-01-01T00:30"))
        // The two clock changes cancel over a year: 365 × 12 firings, each exactly 7,200 s after the one before.
        #expect(firings.count == 365 * 12)
        #expect(zip(firings, firings.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 7200 })
        #expect(firings.first == clock.instant(of: local("2025-01-01T00:30")))
        // Elapsed time does not follow the wall clock: after the year's first clock change the firings are at odd
        // hours (Berlin: the spring jump in March; Sydney: the autumn repeat in April).
        let firstChange = min(utc(zone.gapInstant), utc(zone.firstRepeatedHalfPast).addingTimeInterval(7200))
        let afterChange = try #require(firings.first { $0 > firstChange })
        #expect(clock.local(afterChange).time.hour % 2 == 1)
        #expect(clock.local(firings[0]).time.hour % 2 == 0)
        Self.expectStableFromAnyPoint(Array(firings.prefix(600)), of: schedule, on: clock)
        // Minutes too: every 90 minutes, from any point.
        let minutes = TimerSchedule(fireDate: local("2025-01-01T00:00"), recurrence: .every(count: 90, unit: .minute))
        let start = clock.instant(of: local("2025-01-01T00:00"))
        #expect(
            clock.nextFire(of: minutes, after: start.addingTimeInterval(86_400 * 100 + 1))
                == start.addingTimeInterval(86_400 * 100 + 5400)
        )
    }

    @Test(arguments: zones)
    func weeklyTimerKeepsTheWallClockAcrossBothChanges(zone: Zone) throws {
        let clock = try zoneClock(zone.identifier)
        // 2025-01-05 is a Sunday, as are both clock changes in both zones: 52 Sundays in 2025.
        let schedule = TimerSchedule(fireDate: local("2025-01-05T02:30"), recurrence: .every(count: 1, unit: .week))
        let firings = Self.firings(of: schedule, on: clock, until: local("2026-01-01T00:00"))
        #expect(firings.count == 52)
        let sundays = Self.daysOf2025.enumerated().filter { $0.offset % 7 == 4 }.map(\.element)
        #expect(firings.map { Self.day($0, clock) } == sundays)
        #expect(firings.contains(utc(zone.gapInstant)))
        #expect(firings.contains(utc(zone.firstRepeatedHalfPast)))
        #expect(!firings.contains(utc(zone.firstRepeatedHalfPast).addingTimeInterval(3600)))
        Self.expectStableFromAnyPoint(firings, of: schedule, on: clock)
        // Every 3 days: 2025-01-01 + 3k.
        let threeDays = TimerSchedule(fireDate: local("2025-01-01T02:30"), recurrence: .every(count: 3, unit: .day))
        let every3 = Self.firings(of: threeDays, on: clock, until: local("2026-01-01T00:00"))
        #expect(
            every3.map { Self.day($0, clock) }
                == Self.daysOf2025.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        )
    }

    @Test(arguments: zones)
    func thirtyFirstFiresInSevenMonths(zone: Zone) throws {
        let clock = try zoneClock(zone.identifier)
        let schedule = TimerSchedule(fireDate: local("2025-01-31T02:30"), recurrence: .daysOfMonth([31]))
        let firings = Self.firings(of: schedule, on: clock, until: local("2026-01-01T00:00"))
        #expect(
            firings
                == ["01", "03", "05", "07", "08", "10", "12"].map { clock.instant(of: local("2025-\($0)-31T02:30")) }
        )
        Self.expectStableFromAnyPoint(firings, of: schedule, on: clock)
        // 29, 30 and 31: February has none of them in 2025, April, June, September and November lack the 31st.
        let ends = TimerSchedule(fireDate: local("2025-01-29T02:30"), recurrence: .daysOfMonth([31, 30, 29, 30]))
        let endFirings = Self.firings(of: ends, on: clock, until: local("2026-01-01T00:00"))
        #expect(endFirings.count == 12 * 3 - 3 - 4)
        #expect(endFirings.allSatisfy { (29...31).contains(clock.local($0).day) && clock.local($0).month != 2 })
        // In a leap year February 29 fires.
        let leap = TimerSchedule(fireDate: local("2028-01-29T08:00"), recurrence: .daysOfMonth([29]))
        #expect(
            clock.nextFire(of: leap, after: clock.instant(of: local("2028-01-29T08:00")))
                == clock.instant(of: local("2028-02-29T08:00"))
        )
        // The day of the month of the spring jump (Berlin: the 30th, in 11 months; Sydney: the 5th, in 12).
        let gapDayOfMonth = try #require(Int(zone.gapDay.suffix(2)))
        let onGapDay = TimerSchedule(
            fireDate: local("2025-01-\(zone.gapDay.suffix(2))T02:30"),
            recurrence: .daysOfMonth([gapDayOfMonth])
        )
        let onGapFirings = Self.firings(of: onGapDay, on: clock, until: local("2026-01-01T00:00"))
        #expect(onGapFirings.count == (gapDayOfMonth == 30 ? 11 : 12))
        #expect(onGapFirings.contains(utc(zone.gapInstant)))
        #expect(onGapFirings.allSatisfy { clock.local($0).day == gapDayOfMonth })
    }

    @Test func oneShotTimer() throws {
        let clock = try zoneClock("Europe/Berlin")
        let schedule = TimerSchedule(fireDate: local("2025-03-30T02:30"))
        let fire = utc("2025-03-30T01:00:00Z")
        #expect(clock.nextFire(of: schedule, after: fire.addingTimeInterval(-0.001)) == fire)
        #expect(clock.nextFire(of: schedule, after: utc("2024-01-01T00:00:00Z")) == fire)
        #expect(clock.nextFire(of: schedule, after: fire) == nil)
        #expect(clock.nextFire(of: schedule, after: fire.addingTimeInterval(86_400)) == nil)
    }

    @Test func firstFiringIsTheFireDateEvenOnAnUnlistedDay() throws {
        let clock = try zoneClock("Europe/Berlin")
        // 2025-06-07 is a Saturday; the timer then runs Monday to Friday.
        let schedule = TimerSchedule(fireDate: local("2025-06-07T07:00"), recurrence: .weekdays(Weekday.workdays))
        let first = clock.instant(of: local("2025-06-07T07:00"))
        #expect(clock.nextFire(of: schedule, after: utc("2025-01-01T00:00:00Z")) == first)
        #expect(clock.nextFire(of: schedule, after: first) == clock.instant(of: local("2025-06-09T07:00")))
        // Nothing fires before the fire date, even on a listed day.
        #expect(clock.nextFire(of: schedule, after: clock.instant(of: local("2025-06-02T06:00"))) == first)
    }

    @Test func nonsenseRecurrencesNeitherTrapNorLoop() throws {
        let clock = try zoneClock("Europe/Berlin")
        let fire = local("2025-01-01T08:00")
        let after = clock.instant(of: local("2025-02-01T00:00"))
        #expect(clock.nextFire(of: TimerSchedule(fireDate: fire, recurrence: .daysOfMonth([])), after: after) == nil)
        #expect(
            clock.nextFire(of: TimerSchedule(fireDate: fire, recurrence: .daysOfMonth([0, 32])), after: after) == nil
        )
        #expect(
            clock.nextFire(of: TimerSchedule(fireDate: fire, recurrence: .every(count: 0, unit: .day)), after: after)
                == clock.instant(of: local("2025-02-01T08:00"))
        )
        #expect(
            clock.nextFire(
                of: TimerSchedule(fireDate: fire, recurrence: .every(count: Int.max, unit: .week)),
                after: after
            )
                == nil
        )
        #expect(
            clock.nextFire(of: TimerSchedule(fireDate: fire, recurrence: .weekdays([])), after: after)
                == clock.instant(of: local("2025-02-01T08:00"))
        )
    }
}
