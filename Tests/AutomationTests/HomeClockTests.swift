import Foundation
import HomeGraph
import Testing

@testable import Automation

@Suite struct HomeClockTests {
    @Test func springForwardGapGivesTheFirstInstantAfterIt() throws {
        // Berlin 2025-03-30: 02:00 CET jumps to 03:00 CEST at 01:00 UTC.
        let berlin = try zoneClock("Europe/Berlin")
        #expect(berlin.instant(of: local("2025-03-30T02:30")) == utc("2025-03-30T01:00:00Z"))
        #expect(berlin.instant(of: local("2025-03-30T02:00")) == utc("2025-03-30T01:00:00Z"))
        #expect(berlin.instant(of: local("2025-03-30T02:59:59")) == utc("2025-03-30T01:00:00Z"))
        #expect(berlin.instant(of: local("2025-03-30T01:59:59")) == utc("2025-03-30T00:59:59Z"))
        #expect(berlin.instant(of: local("2025-03-30T03:00")) == utc("2025-03-30T01:00:00Z"))
        #expect(berlin.instant(of: local("2025-03-30T03:00:01")) == utc("2025-03-30T01:00:01Z"))
        #expect(berlin.local(utc("2025-03-30T01:00:00Z")) == local("2025-03-30T03:00"))
        // Sydney 2025-10-05: 02:00 AEST jumps to 03:00 AEDT at 16:00 UTC the day before.
        let sydney = try zoneClock("Australia/Sydney")
        #expect(sydney.instant(of: local("2025-10-05T02:30")) == utc("2025-10-04T16:00:00Z"))
        #expect(sydney.local(utc("2025-10-04T16:00:00Z")) == local("2025-10-05T03:00"))
        #expect(sydney.local(utc("2025-10-04T15:59:59Z")) == local("2025-10-05T01:59:59"))
    }

    @Test func repeatedHourGivesTheFirstOfTheTwo() throws {
        // Berlin 2025-10-26: 03:00 CEST falls back to 02:00 CET at 01:00 UTC; 02:30 happens at 00:30Z and 01:30Z.
        let berlin = try zoneClock("Europe/Berlin")
        #expect(berlin.instant(of: local("2025-10-26T02:30")) == utc("2025-10-26T00:30:00Z"))
        #expect(berlin.instant(of: local("2025-10-26T02:00")) == utc("2025-10-26T00:00:00Z"))
        #expect(berlin.instant(of: local("2025-10-26T03:00")) == utc("2025-10-26T02:00:00Z"))
        #expect(berlin.local(utc("2025-10-26T00:30:00Z")) == local("2025-10-26T02:30"))
        #expect(berlin.local(utc("2025-10-26T01:30:00Z")) == local("2025-10-26T02:30"))
        // Sydney 2025-04-06: 03:00 AEDT falls back to 02:00 AEST at 16:00 UTC the day before.
        let sydney = try zoneClock("Australia/Sydney")
        #expect(sydney.instant(of: local("2025-04-06T02:30")) == utc("2025-04-05T15:30:00Z"))
        #expect(sydney.local(utc("2025-04-05T16:30:00Z")) == local("2025-04-06T02:30"))
    }

    @Test func timeOfDayOnTheDayOfAnInstant() throws {
        let berlin = try zoneClock("Europe/Berlin")
        // Late evening UTC is already the next local day in Berlin.
        #expect(
            berlin.instant(of: TimeOfDay(hour: 7, minute: 30), onDayOf: utc("2025-06-30T22:30:00Z"))
                == utc("2025-07-01T05:30:00Z")
        )
        #expect(
            berlin.instant(of: TimeOfDay(hour: 2, minute: 30), onDayOf: utc("2025-03-30T12:00:00Z"))
                == utc("2025-03-30T01:00:00Z")
        )
        #expect(
            berlin.instant(of: TimeOfDay(hour: 2, minute: 30), onDayOf: utc("2025-10-26T20:00:00Z"))
                == utc("2025-10-26T00:30:00Z")
        )
        let sydney = try zoneClock("Australia/Sydney")
        #expect(
            sydney.instant(of: TimeOfDay(hour: 2, minute: 30), onDayOf: utc("2025-10-05T06:00:00Z"))
                == utc("2025-10-04T16:00:00Z")
        )
    }

    @Test func localFractionsOfASecondAreTruncated() throws {
        let berlin = try zoneClock("Europe/Berlin")
        #expect(berlin.local(utc("2025-01-01T00:00:00Z").addingTimeInterval(0.999)) == local("2025-01-01T01:00:00"))
        #expect(berlin.local(utc("1969-12-31T23:00:00Z").addingTimeInterval(-0.5)) == local("1969-12-31T23:59:59"))
    }

    /// Foundation's own calendar is the oracle for the integer arithmetic: every 31 hours and 7 minutes over
    /// 1899–2101 (leap days, the 1900 and 2100 non-leap years, 2000) in zones east and west, north and south.
    @Test(arguments: ["Europe/Berlin", "Australia/Sydney", "America/New_York", "Asia/Kolkata", "Pacific/Chatham"])
    func agreesWithFoundationCalendar(zone: String) throws {
        let clock = try zoneClock(zone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = clock.timeZone
        var instant = utc("1899-06-01T00:00:00Z")
        let end = utc("2101-06-01T00:00:00Z")
        var checked = 0
        while instant < end {
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
            let expected = LocalDateTime(
                year: parts.year ?? 0,
                month: parts.month ?? 0,
                day: parts.day ?? 0,
                time: TimeOfDay(hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0)
            )
            let actual = clock.local(instant)
            guard actual == expected else {
                Issue.record("\(instant): \(actual), Foundation says \(expected)")
                return
            }
            // Away from clock changes the wall time names exactly this instant.
            let offsetBefore = clock.timeZone.secondsFromGMT(for: instant.addingTimeInterval(-3 * 3600))
            let offsetAfter = clock.timeZone.secondsFromGMT(for: instant.addingTimeInterval(3 * 3600))
            if offsetBefore == offsetAfter, clock.instant(of: actual) != instant {
                Issue.record("\(actual) gives \(clock.instant(of: actual)), not \(instant)")
                return
            }
            instant = instant.addingTimeInterval(31 * 3600 + 7 * 60)
            checked += 1
        }
        #expect(checked > 50_000)
    }

    @Test func leapDaysAndCenturies() throws {
        let utcClock = try zoneClock("UTC")
        #expect(utcClock.instant(of: local("2024-02-29T12:00")) == utc("2024-02-29T12:00:00Z"))
        #expect(utcClock.instant(of: local("2000-03-01T00:00")) == utc("2000-03-01T00:00:00Z"))
        #expect(utcClock.local(utc("2100-03-01T00:00:00Z")) == local("2100-03-01T00:00"))
        #expect(utcClock.local(utc("2100-02-28T23:59:59Z")) == local("2100-02-28T23:59:59"))
        #expect(utcClock.local(utc("1600-02-29T06:00:00Z")) == local("1600-02-29T06:00"))
        #expect(utcClock.local(Date(timeIntervalSince1970: -1)) == local("1969-12-31T23:59:59"))
    }

    @Test func calendarTimeOnWeekdays() throws {
        let berlin = try zoneClock("Europe/Berlin")
        let seven30 = TimeOfDay(hour: 7, minute: 30)
        // 2025-06-06 is a Friday: after 08:00 on it, the next workday 07:30 is Monday's.
        #expect(
            berlin.nextCalendarTime(
                seven30,
                weekdays: Weekday.workdays,
                after: berlin.instant(of: local("2025-06-06T08:00"))
            )
                == utc("2025-06-09T05:30:00Z")
        )
        // Before 07:30 on Friday: that same morning; at exactly 07:30: strictly after, so Monday.
        #expect(
            berlin.nextCalendarTime(
                seven30,
                weekdays: Weekday.workdays,
                after: berlin.instant(of: local("2025-06-06T07:29:59"))
            )
                == utc("2025-06-06T05:30:00Z")
        )
        #expect(
            berlin.nextCalendarTime(seven30, weekdays: Weekday.workdays, after: utc("2025-06-06T05:30:00Z"))
                == utc("2025-06-09T05:30:00Z")
        )
        // Only Sundays: from Monday, six days on.
        #expect(
            berlin.nextCalendarTime(seven30, weekdays: [.sunday], after: berlin.instant(of: local("2025-06-09T12:00")))
                == berlin.instant(of: local("2025-06-15T07:30"))
        )
        // Empty means every day; a Saturday and Sunday list walks the weekend.
        #expect(
            berlin.nextCalendarTime(seven30, weekdays: [], after: berlin.instant(of: local("2025-06-06T08:00")))
                == berlin.instant(of: local("2025-06-07T07:30"))
        )
        var cursor = berlin.instant(of: local("2025-06-01T00:00"))
        var weekend: [LocalDateTime] = []
        for _ in 0..<4 {
            cursor = berlin.nextCalendarTime(
                TimeOfDay(hour: 22, minute: 0),
                weekdays: [.saturday, .sunday],
                after: cursor
            )
            weekend.append(berlin.local(cursor))
        }
        #expect(
            weekend
                == ["2025-06-01T22:00", "2025-06-07T22:00", "2025-06-08T22:00", "2025-06-14T22:00"].map { local($0) }
        )
    }

    @Test func calendarTimeAcrossClockChanges() throws {
        let berlin = try zoneClock("Europe/Berlin")
        let halfPastTwo = TimeOfDay(hour: 2, minute: 30)
        // The gap day: 03:00, once; the repeated hour: the first 02:30, once.
        #expect(
            berlin.nextCalendarTime(halfPastTwo, weekdays: [], after: berlin.instant(of: local("2025-03-29T12:00")))
                == utc("2025-03-30T01:00:00Z")
        )
        #expect(
            berlin.nextCalendarTime(halfPastTwo, weekdays: [], after: utc("2025-03-30T01:00:00Z"))
                == utc("2025-03-31T00:30:00Z")
        )
        #expect(
            berlin.nextCalendarTime(
                halfPastTwo,
                weekdays: [.sunday],
                after: berlin.instant(of: local("2025-10-25T12:00"))
            )
                == utc("2025-10-26T00:30:00Z")
        )
        #expect(
            berlin.nextCalendarTime(halfPastTwo, weekdays: [], after: utc("2025-10-26T01:15:00Z"))
                == utc("2025-10-27T01:30:00Z")
        )
        // A year of 02:30 every day in Sydney: 365 distinct instants, one per local day.
        let sydney = try zoneClock("Australia/Sydney")
        var cursor = sydney.instant(of: local("2025-01-01T00:00"))
        var days = Set<String>()
        for _ in 0..<365 {
            let next = sydney.nextCalendarTime(halfPastTwo, weekdays: [], after: cursor)
            #expect(next > cursor)
            days.insert(String(sydney.local(next).description.prefix(10)))
            cursor = next
        }
        #expect(days.count == 365)
        #expect(sydney.local(cursor) == local("2025-12-31T02:30"))
    }
}
