import Foundation
import HAPTypes

/// A wall-clock date and time without a time zone ("2026-11-25T07:30:00"), read in the home's time zone.
public struct LocalDateTime: Sendable, Equatable, Hashable, Comparable, TextCodable {
    /// The year, 1 to 9999.
    public var year: Int
    /// The month, 1 to 12.
    public var month: Int
    /// The day of the month, 1 to 31 (and valid for the month).
    public var day: Int
    /// The clock time.
    public var time: TimeOfDay

    /// Makes a local date and time; `isValid` says whether it names a real calendar day.
    public init(year: Int, month: Int, day: Int, time: TimeOfDay) {
        self.year = year
        self.month = month
        self.day = day
        self.time = time
    }

    /// Reads `YYYY-MM-DDTHH:MM[:SS]`; `nil` for anything else or a day the calendar does not have.
    public init?(_ text: String) {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
            let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]),
            let time = TimeOfDay(String(parts[1]))
        else { return nil }
        self.init(year: year, month: month, day: day, time: time)
        guard isValid else { return nil }
    }

    /// Whether the year, month and day name a real day of the Gregorian calendar and the time is valid.
    public var isValid: Bool {
        guard (1...9999).contains(year), (1...12).contains(month), time.isValid else { return false }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return (1...lengths[month - 1]).contains(day)
    }

    /// `YYYY-MM-DDTHH:MM:SS`.
    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(repeating: "0", count: max(0, 4 - String(self.year).count)) + String(self.year)
        return "\(year)-\(two(month))-\(two(day))T\(time.description)"
    }

    /// Reads the text form.
    public init?(textForm text: String) { self.init(text) }

    /// What the text form looks like.
    public static let textFormHint = "a local date and time like 2026-11-25T07:30:00"

    /// Earlier date first, then earlier time.
    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        (lhs.year, lhs.month, lhs.day, lhs.time.secondsIntoDay)
            < (rhs.year, rhs.month, rhs.day, rhs.time.secondsIntoDay)
    }
}

/// A clock time of day ("07:30", "22:00:15").
public struct TimeOfDay: Sendable, Equatable, Hashable, Comparable, TextCodable {
    /// The hour, 0 to 23.
    public var hour: Int
    /// The minute, 0 to 59.
    public var minute: Int
    /// The second, 0 to 59.
    public var second: Int

    /// Makes a time of day; `isValid` says whether it is one.
    public init(hour: Int, minute: Int, second: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Reads `HH:MM` or `HH:MM:SS` (one-digit hours allowed); `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) })
        else { return nil }
        guard let hour = Int(parts[0]), let minute = Int(parts[1]) else { return nil }
        var second = 0
        if parts.count == 3 {
            guard let value = Int(parts[2]) else { return nil }
            second = value
        }
        self.init(hour: hour, minute: minute, second: second)
        guard isValid, parts[1].count == 2, parts.count == 2 || parts[2].count == 2 else { return nil }
    }

    /// Whether the hour, minute and second are in range.
    public var isValid: Bool { (0...23).contains(hour) && (0...59).contains(minute) && (0...59).contains(second) }

    /// Seconds since midnight on a day without a clock change.
    public var secondsIntoDay: Int { hour * 3600 + minute * 60 + second }

    /// `HH:MM:SS`, or `HH:MM` when the seconds are zero.
    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return second == 0 ? "\(two(hour)):\(two(minute))" : "\(two(hour)):\(two(minute)):\(two(second))"
    }

    /// Reads the text form.
    public init?(textForm text: String) { self.init(text) }

    /// What the text form looks like.
    public static let textFormHint = "a time of day like 07:30 or 22:00:15"

    /// Earlier in the day first.
    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.secondsIntoDay < rhs.secondsIntoDay }
}

/// A day of the week.
public enum Weekday: String, Sendable, Equatable, Hashable, Codable, CaseIterable, Comparable {
    /// Monday.
    case monday
    /// Tuesday.
    case tuesday
    /// Wednesday.
    case wednesday
    /// Thursday.
    case thursday
    /// Friday.
    case friday
    /// Saturday.
    case saturday
    /// Sunday.
    case sunday

    /// Foundation's `Calendar` weekday number: 1 is Sunday, 7 is Saturday.
    public var calendarWeekday: Int {
        switch self {
        case .sunday: 1
        case .monday: 2
        case .tuesday: 3
        case .wednesday: 4
        case .thursday: 5
        case .friday: 6
        case .saturday: 7
        }
    }

    /// The weekday of Foundation's `Calendar` number (1 is Sunday).
    public init?(calendarWeekday: Int) {
        guard let day = Weekday.allCases.first(where: { $0.calendarWeekday == calendarWeekday }) else { return nil }
        self = day
    }

    /// Monday to Friday.
    public static let workdays: [Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday]

    /// Monday first.
    public static func < (lhs: Weekday, rhs: Weekday) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}

/// Sunrise or sunset.
public enum SunEvent: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// The upper edge of the sun at the horizon in the morning.
    case sunrise
    /// The upper edge of the sun at the horizon in the evening.
    case sunset
}

/// How a timer trigger repeats after its first firing.
public enum Recurrence: Sendable, Equatable, Hashable, Codable {
    /// Every `count` units: minutes and hours of elapsed time, days and weeks of the home's calendar (the same clock
    /// time each day, whatever daylight saving does).
    case every(count: Int, unit: RecurrenceUnit)
    /// At the fire date's clock time on the given weekdays.
    case weekdays([Weekday])
    /// At the fire date's clock time on the given days of the month (a day a month lacks is skipped).
    case daysOfMonth([Int])
}

/// The unit of a repeating timer.
public enum RecurrenceUnit: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Minutes of elapsed time.
    case minute
    /// Hours of elapsed time.
    case hour
    /// Calendar days in the home's time zone.
    case day
    /// Calendar weeks in the home's time zone.
    case week
}

/// When a timer trigger fires: a first date and time in the home's time zone, and how it repeats.
public struct TimerSchedule: Sendable, Equatable, Hashable, Codable {
    /// The first firing, on the home's wall clock.
    public var fireDate: LocalDateTime
    /// How it repeats; `nil` fires once.
    public var recurrence: Recurrence?

    /// Makes a schedule.
    public init(fireDate: LocalDateTime, recurrence: Recurrence? = nil) {
        self.fireDate = fireDate
        self.recurrence = recurrence
    }
}

/// Durations as people write them: `90s`, `10m`, `1h30m`, `2d`, `1w`.
public enum DurationText {
    /// The seconds `text` names (units s, m, h, d, w, any case), or `nil` for anything else.
    public static func seconds(_ text: some StringProtocol) -> Int? {
        var total = 0
        var number = ""
        for character in text.lowercased() {
            if character.isASCII, character.isNumber {
                number.append(character)
                guard number.count <= 6 else { return nil }
                continue
            }
            guard let value = Int(number) else { return nil }
            let unit: Int? =
                switch character {
                case "s": 1
                case "m": 60
                case "h": 3600
                case "d": 86_400
                case "w": 604_800
                default: nil
                }
            guard let unit else { return nil }
            total += value * unit
            number = ""
        }
        return number.isEmpty && !text.isEmpty ? total : nil
    }

    /// `10m`, `1h30m`, `45s` (`0s` for zero).
    public static func text(_ seconds: Int) -> String {
        var (rest, text) = (seconds, "")
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text.isEmpty ? "0s" : text
    }
}
