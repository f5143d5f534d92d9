import Foundation
import HomeGraph

/// Proleptic Gregorian calendar arithmetic on whole days and seconds, and wall clock ↔ instant in a time zone.
///
/// Plain integer arithmetic (days since 1970-01-01); the only Foundation call is `TimeZone.secondsFromGMT(for:)`.
enum Civil {
    /// Seconds in a day without a clock change.
    static let secondsPerDay = 86_400

    /// Days since 1970-01-01 of a Gregorian date (month and day may overflow: February 30 is March 2).
    ///
    /// The algorithm is Howard Hinnant's `days_from_civil`.
    static func day(year: Int, month: Int, day: Int) -> Int {
        // Normalise the month first so that overflowing months still land on a real date.
        let monthIndex = month - 1
        let year = year + floorDiv(monthIndex, 12)
        let month = floorMod(monthIndex, 12) + 1
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDiv(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian year, month and day of a day number (Hinnant's `civil_from_days`).
    static func date(ofDay dayNumber: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = dayNumber + 719_468
        let era = floorDiv(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Foundation's weekday number (1 is Sunday) of a day number; 1970-01-01 was a Thursday.
    static func calendarWeekday(ofDay dayNumber: Int) -> Int { floorMod(dayNumber + 4, 7) + 1 }

    /// Whether a Gregorian year has February 29.
    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// The number of days in a month of a year.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Whole seconds since 1970 of an instant, rounded down (clamped far beyond any calendar date).
    static func seconds(of date: Date) -> Int {
        let value = date.timeIntervalSince1970.rounded(.down)
        guard value.isFinite else { return value > 0 ? maxSeconds : -maxSeconds }
        return Int(min(max(value, Double(-maxSeconds)), Double(maxSeconds)))
    }

    /// A bound well beyond year 9999 in either direction, so nothing overflows.
    private static let maxSeconds = 400_000_000_000

    /// The offset from UTC in seconds at an instant given in whole seconds since 1970.
    static func offset(at seconds: Int, in timeZone: TimeZone) -> Int {
        timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The instant (seconds since 1970) of a wall-clock time given as local seconds since 1970.
    ///
    /// Local seconds are the seconds the instant would have if the zone were UTC. A time in a gap gives the first
    /// instant after the gap; a time that happens twice gives the first.
    static func instant(ofLocalSeconds local: Int, in timeZone: TimeZone) -> Int {
        // Any instant with this wall time lies within 26 hours of `local`, so the offsets a day either side are
        // the ones before and after any clock change that matters here.
        let before = offset(at: local - secondsPerDay, in: timeZone)
        let after = offset(at: local + secondsPerDay, in: timeZone)
        var earliest: Int?
        for candidateOffset in before == after ? [before] : [before, after] {
            let instant = local - candidateOffset
            if offset(at: instant, in: timeZone) == candidateOffset {
                earliest = min(earliest ?? instant, instant)
            }
        }
        if let earliest { return earliest }
        // A gap, or a zone whose offset a day either side does not tell: find the clock change by bisection
        // between the two readings' instants; the first instant with the new offset is the first after the gap.
        var low = local - max(before, after)
        var high = local - min(before, after)
        let lowOffset = offset(at: low, in: timeZone)
        guard offset(at: high, in: timeZone) != lowOffset else { return local - offset(at: local, in: timeZone) }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(at: middle, in: timeZone) == lowOffset { low = middle } else { high = middle }
        }
        return high
    }

    /// The local seconds since 1970 (as if the zone were UTC) of an instant in whole seconds.
    static func localSeconds(ofInstant seconds: Int, in timeZone: TimeZone) -> Int {
        seconds + offset(at: seconds, in: timeZone)
    }

    /// The local seconds since 1970 of a day number and a time of day.
    static func localSeconds(day: Int, time: TimeOfDay) -> Int {
        day * secondsPerDay + time.hour * 3600 + time.minute * 60 + time.second
    }

    /// Rounds the quotient towards minus infinity.
    static func floorDiv(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder that has the divisor's sign.
    static func floorMod(_ value: Int, _ divisor: Int) -> Int { value - floorDiv(value, divisor) * divisor }
}

extension LocalDateTime {
    /// The day number (days since 1970-01-01) of the date part.
    var dayNumber: Int { Civil.day(year: year, month: month, day: day) }
}
