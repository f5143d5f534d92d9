import Foundation
import HomeGraph

/// The home's wall clock: local dates and times in one time zone (Gregorian calendar).
///
/// Calendar arithmetic is plain integer arithmetic on day numbers (no `Calendar`, no formatting); the time zone is
/// asked only for its offset from UTC at an instant.
public struct HomeClock: Sendable {
    /// The home's time zone.
    public let timeZone: TimeZone

    /// Makes the clock of a time zone.
    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// The instant of a wall-clock time.
    ///
    /// A time that does not exist (the spring-forward gap: 02:30 on a day that jumps from 02:00 to 03:00) gives the
    /// first instant after the gap (03:00 local); a time that happens twice (the repeated hour in autumn) gives the
    /// first of the two.
    public func instant(of local: LocalDateTime) -> Date {
        date(ofSeconds: instantSeconds(day: local.dayNumber, time: local.time))
    }

    /// The wall-clock date and time of an instant (seconds truncated to whole seconds).
    public func local(_ date: Date) -> LocalDateTime {
        let local = Civil.localSeconds(ofInstant: Civil.seconds(of: date), in: timeZone)
        let day = Civil.floorDiv(local, Civil.secondsPerDay)
        let second = local - day * Civil.secondsPerDay
        let civil = Civil.date(ofDay: day)
        return LocalDateTime(
            year: civil.year,
            month: civil.month,
            day: civil.day,
            time: TimeOfDay(hour: second / 3600, minute: second % 3600 / 60, second: second % 60)
        )
    }

    /// The next firing of a timer strictly after `after`, or nil when a one-shot timer's date is not after it.
    ///
    /// The first firing is `instant(of: schedule.fireDate)`. minute/hour recurrences step elapsed time from that
    /// instant; day/week/weekdays/daysOfMonth keep the fire date's wall-clock time on each calendar day (so a daily
    /// 02:30 fires once on every day of the year: at 03:00 on the spring-forward day, once in the repeated hour).
    /// daysOfMonth skips months without that day. Must be exactly-once: iterating next(after: previous) over a year
    /// never returns the same instant twice and never skips a day that should fire.
    public func nextFire(of schedule: TimerSchedule, after: Date) -> Date? {
        let first = instant(of: schedule.fireDate)
        if first > after { return first }
        guard let recurrence = schedule.recurrence else { return nil }
        let fireDay = schedule.fireDate.dayNumber
        let time = schedule.fireDate.time
        // No firing on a day before the one that holds `after` can be after it (a day's firing lies on that day,
        // or on the next one past a gap that spans midnight), so the search starts the day before.
        let start = max(fireDay, day(of: after) - 1)
        switch recurrence {
        case .every(let count, let unit):
            // A count below 1 is refused when a trigger is saved; here it counts as 1 so nothing loops.
            let count = max(count, 1)
            switch unit {
            case .minute, .hour:
                let step = Double(count) * (unit == .minute ? 60 : 3600)
                var steps = (after.timeIntervalSince(first) / step).rounded(.down) + 1
                var next = first.addingTimeInterval(steps * step)
                while next <= after {  // at most once more, for rounding
                    steps += 1
                    next = first.addingTimeInterval(steps * step)
                }
                return next
            case .day, .week:
                // A stride of more than ten thousand years never comes round on this calendar.
                let stride = unit == .day ? count : (count > 3_660_000 ? count : count * 7)
                guard stride <= 3_660_000 else { return nil }
                var candidate = fireDay + (start - fireDay + stride - 1) / stride * stride
                // A day two after `after`'s day always fires after it, so three candidates suffice.
                for _ in 0..<3 {
                    let next = instantSeconds(day: candidate, time: time)
                    if Double(next) > after.timeIntervalSince1970 { return date(ofSeconds: next) }
                    candidate += stride
                }
                return nil
            }
        case .weekdays(let weekdays):
            return firstOn(weekdays: weekdays, time: time, fromDay: start, after: after)
        case .daysOfMonth(let days):
            let days = Set(days.filter { (1...31).contains($0) }).sorted()
            guard !days.isEmpty else { return nil }
            let civil = Civil.date(ofDay: start)
            var year = civil.year
            var month = civil.month
            // Any day of the month 1...31 comes round within two months (day 31: at most one month without it).
            for _ in 0..<4 {
                for dayOfMonth in days where dayOfMonth <= Civil.daysIn(month: month, year: year) {
                    let day = Civil.day(year: year, month: month, day: dayOfMonth)
                    guard day >= start else { continue }
                    let next = instantSeconds(day: day, time: time)
                    if Double(next) > after.timeIntervalSince1970 { return date(ofSeconds: next) }
                }
                month += 1
                if month > 12 {
                    month = 1
                    year += 1
                }
            }
            return nil
        }
    }

    /// The next instant strictly after `after` at wall-clock `time` on one of `weekdays` (empty: every day).
    public func nextCalendarTime(_ time: TimeOfDay, weekdays: [Weekday], after: Date) -> Date {
        firstOn(weekdays: weekdays, time: time, fromDay: day(of: after) - 1, after: after)
            // Unreachable: every weekday comes round within a week. Still, never trap.
            ?? after.addingTimeInterval(TimeInterval(Civil.secondsPerDay))
    }

    /// The next sunrise/sunset + offsetSeconds strictly after `after`, skipping days without one (polar day/night),
    /// searching at most 400 days; nil when there is none in that window.
    public func nextSunTime(
        _ event: SunEvent,
        offsetSeconds: Int,
        latitude: Double,
        longitude: Double,
        after: Date
    ) -> Date? {
        // An offset of up to ±12 h (or a zone far from its longitude) can move a day's event onto a neighbour, and
        // the events come in order day after day, so start two days early and take the first one after `after`.
        let firstDay = day(of: after) - 2
        for day in firstDay...(firstDay + Self.searchLimitDays + 2) {
            let sun = Solar.time(
                of: event,
                on: localDateTime(day: day),
                latitude: latitude,
                longitude: longitude,
                timeZone: timeZone
            )
            guard let when = sun.date?.addingTimeInterval(TimeInterval(offsetSeconds)) else { continue }
            if when > after { return when }
        }
        return nil
    }

    /// The sun time + offsetSeconds on the local day that contains `date` (for conditions like "after sunset-30m").
    public func sunTime(
        _ event: SunEvent,
        offsetSeconds: Int,
        latitude: Double,
        longitude: Double,
        onDayOf date: Date
    ) -> SunTime {
        let sun = Solar.time(
            of: event,
            on: localDateTime(day: day(of: date)),
            latitude: latitude,
            longitude: longitude,
            timeZone: timeZone
        )
        guard let when = sun.date else { return sun }
        return .at(when.addingTimeInterval(TimeInterval(offsetSeconds)))
    }

    /// The instant of wall-clock `time` on the local day that contains `date` (gap/repeat rules as `instant(of:)`).
    public func instant(of time: TimeOfDay, onDayOf date: Date) -> Date {
        self.date(ofSeconds: instantSeconds(day: day(of: date), time: time))
    }

    /// How many days `nextSunTime` looks ahead.
    static let searchLimitDays = 400

    /// The local day number (days since 1970-01-01 on the wall clock) that contains an instant.
    func day(of date: Date) -> Int {
        Civil.floorDiv(Civil.localSeconds(ofInstant: Civil.seconds(of: date), in: timeZone), Civil.secondsPerDay)
    }

    /// The instant (whole seconds since 1970) of a wall-clock time on a local day.
    func instantSeconds(day: Int, time: TimeOfDay) -> Int {
        Civil.instant(ofLocalSeconds: Civil.localSeconds(day: day, time: time), in: timeZone)
    }

    /// Midnight of a local day as a `LocalDateTime`.
    func localDateTime(day: Int) -> LocalDateTime {
        let civil = Civil.date(ofDay: day)
        return LocalDateTime(year: civil.year, month: civil.month, day: civil.day, time: TimeOfDay(hour: 0, minute: 0))
    }

    /// A `Date` of whole seconds since 1970.
    func date(ofSeconds seconds: Int) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    /// The first firing at `time` on one of `weekdays` (empty: any day), on day `fromDay` or later, after `after`.
    func firstOn(weekdays: [Weekday], time: TimeOfDay, fromDay: Int, after: Date) -> Date? {
        let numbers = Set(weekdays.map(\.calendarWeekday))
        // From the day before `after`'s day, every weekday comes round within nine days.
        for day in fromDay..<(fromDay + 10)
        where numbers.isEmpty || numbers.contains(Civil.calendarWeekday(ofDay: day)) {
            let next = instantSeconds(day: day, time: time)
            if Double(next) > after.timeIntervalSince1970 { return date(ofSeconds: next) }
        }
        return nil
    }
}
