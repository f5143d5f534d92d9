import Foundation
import HomeGraph
import Testing

@testable import Automation

/// An instant written in UTC, "2025-03-30T01:00:00Z" (tests only; the library never formats).
func utc(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else {
        Issue.record("'\(text)' is not an ISO 8601 instant", sourceLocation: sourceLocation)
        return .distantPast
    }
    return date
}

/// A local date and time from its text form.
func local(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> LocalDateTime {
    guard let value = LocalDateTime(text) else {
        Issue.record("'\(text)' is not a local date and time", sourceLocation: sourceLocation)
        return LocalDateTime(year: 1970, month: 1, day: 1, time: TimeOfDay(hour: 0, minute: 0))
    }
    return value
}

/// The clock of a named zone.
func zoneClock(_ identifier: String) throws -> HomeClock {
    HomeClock(timeZone: try #require(TimeZone(identifier: identifier)))
}
