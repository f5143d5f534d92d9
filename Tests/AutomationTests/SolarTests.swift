import Foundation
import HomeGraph
import Testing

@testable import Automation

/// Sunrise and sunset against published tables, within ±2 minutes of the published minute.
@Suite struct SolarTests {
    /// A place on a day with its published times (local wall clock; a sunset after midnight names the next day).
    struct Published: Sendable, CustomStringConvertible {
        var place: String
        var latitude: Double
        var longitude: Double
        var zone: String
        var day: String
        var sunrise: String?
        var sunset: String?
        var source: String
        var description: String { "\(place) \(day)" }
    }

    static let tables: [Published] = [
        Published(
            place: "Berlin",
            latitude: 52.52,
            longitude: 13.405,
            zone: "Europe/Berlin",
            day: "2024-12-21",
            sunrise: "2024-12-21T08:14:38",
            sunset: "2024-12-21T15:54:41",
            source: "Stiftung Planetarium Berlin for the winter solstice 2024, in Tagesspiegel Checkpoint"
        ),
        Published(
            place: "Sundsvall",
            latitude: 62.392,
            longitude: 17.290,
            zone: "Europe/Stockholm",
            day: "2001-01-01",
            sunrise: "2001-01-01T09:18",
            sunset: "2001-01-01T14:31",
            source: "Paul Schlyter, stjarnhimlen.se/2001/sundsvall.html (rise and set tables 2001)"
        ),
        Published(
            place: "Reykjavik",
            latitude: 64.1466,
            longitude: -21.9426,
            zone: "Atlantic/Reykjavik",
            day: "2020-12-21",
            sunrise: "2020-12-21T11:22",
            sunset: "2020-12-21T15:31",
            source: "Iceland Monitor (mbl.is), 'Brighter Days Ahead', 2021-01-01"
        ),
        Published(
            place: "Reykjavik",
            latitude: 64.1466,
            longitude: -21.9426,
            zone: "Atlantic/Reykjavik",
            day: "2020-06-21",
            sunrise: "2020-06-21T02:54",
            sunset: "2020-06-22T00:05",
            source: "Nordic Visitor, 'Time & Daylight' (June 21; the sunset is after midnight)"
        ),
        Published(
            place: "Quito",
            latitude: -0.1807,
            longitude: -78.4678,
            zone: "America/Guayaquil",
            day: "2018-12-21",
            sunrise: "2018-12-21T06:08",
            sunset: "2018-12-21T18:16",
            source: "timeanddate.com, quoted in 'Sunrise, Sunset in Quito (Revisited)', 2018"
        ),
        Published(
            place: "Quito",
            latitude: -0.1807,
            longitude: -78.4678,
            zone: "America/Guayaquil",
            day: "2018-06-21",
            sunrise: "2018-06-21T06:13",
            sunset: "2018-06-21T18:19",
            source: "timeanddate.com, quoted in 'Sunrise, Sunset in Quito (Revisited)', 2018"
        ),
        Published(
            place: "Cape Town",
            latitude: -33.9249,
            longitude: 18.4241,
            zone: "Africa/Johannesburg",
            day: "2013-12-21",
            sunrise: "2013-12-21T05:32",
            sunset: "2013-12-21T19:57",
            source: "6000.co.za, 'Sunset earlier', June 2013 (longest day 2013)"
        ),
        Published(
            place: "Cape Town",
            latitude: -33.9249,
            longitude: 18.4241,
            zone: "Africa/Johannesburg",
            day: "2013-06-21",
            sunrise: "2013-06-21T07:51",
            sunset: "2013-06-21T17:44",
            source: "6000.co.za, 'STATS: June and the shortest day – Cape Town' (June 21)"
        ),
        Published(
            place: "Sydney",
            latitude: -33.8597,
            longitude: 151.2048,
            zone: "Australia/Sydney",
            day: "2008-12-01",
            sunrise: "2008-12-01T05:37",
            sunset: nil,
            source: "2009 Australian Sky Guide (Sydney Observatory): earliest sunrise 5:37 from 1 to 10 December 2008"
        ),
        Published(
            place: "Sydney",
            latitude: -33.8597,
            longitude: 151.2048,
            zone: "Australia/Sydney",
            day: "2008-12-10",
            sunrise: "2008-12-10T05:37",
            sunset: nil,
            source: "2009 Australian Sky Guide (Sydney Observatory): earliest sunrise 5:37 from 1 to 10 December 2008"
        ),
        Published(
            place: "Sydney",
            latitude: -33.8597,
            longitude: 151.2048,
            zone: "Australia/Sydney",
            day: "2009-01-02",
            sunrise: nil,
            sunset: "2009-01-02T20:10",
            source: "2009 Australian Sky Guide (Sydney Observatory): latest sunset 20:10 from 2 to 12 January 2009"
        ),
        Published(
            place: "Sydney",
            latitude: -33.8597,
            longitude: 151.2048,
            zone: "Australia/Sydney",
            day: "2009-01-12",
            sunrise: nil,
            sunset: "2009-01-12T20:10",
            source: "2009 Australian Sky Guide (Sydney Observatory): latest sunset 20:10 from 2 to 12 January 2009"
        ),
        Published(
            place: "New York",
            latitude: 40.7128,
            longitude: -74.0060,
            zone: "America/New_York",
            day: "2021-06-20",
            sunrise: "2021-06-20T05:24",
            sunset: "2021-06-20T20:30",
            source: "The Old Farmer's Almanac for the solstice 2021, in Telemundo New York"
        ),
        Published(
            place: "New York",
            latitude: 40.7128,
            longitude: -74.0060,
            zone: "America/New_York",
            day: "2020-12-21",
            sunrise: "2020-12-21T07:16",
            sunset: nil,
            source: "Sunrise Sunset Calendars, in 'Why does the sun set later in Florida than in New York' (EarthSky)"
        ),
    ]

    @Test(arguments: tables)
    func matchesPublishedTables(_ row: Published) throws {
        let clock = try zoneClock(row.zone)
        for (event, published) in [(SunEvent.sunrise, row.sunrise), (.sunset, row.sunset)] {
            guard let published else { continue }
            let expected = clock.instant(of: local(published))
            let computed = Solar.time(
                of: event,
                on: local("\(row.day)T00:00"),
                latitude: row.latitude,
                longitude: row.longitude,
                timeZone: clock.timeZone
            )
            guard case .at(let date) = computed else {
                Issue.record("\(row) \(event): \(computed), published \(published) (\(row.source))")
                continue
            }
            #expect(
                abs(date.timeIntervalSince(expected)) <= 120,
                "\(row) \(event): \(clock.local(date)), published \(published) (\(row.source))"
            )
            // The time of day given is ignored: only the date counts.
            #expect(
                Solar.time(
                    of: event,
                    on: local("\(row.day)T23:59:59"),
                    latitude: row.latitude,
                    longitude: row.longitude,
                    timeZone: clock.timeZone
                ) == computed
            )
        }
    }

    static let tromso = (latitude: 69.6492, longitude: 18.9553, zone: "Europe/Oslo")

    @Test func polarDayAndPolarNight() throws {
        let oslo = try #require(TimeZone(identifier: Self.tromso.zone))
        for event in SunEvent.allCases {
            #expect(
                Solar.time(
                    of: event,
                    on: local("2024-06-21T00:00"),
                    latitude: Self.tromso.latitude,
                    longitude: Self.tromso.longitude,
                    timeZone: oslo
                ) == .polarDay
            )
            #expect(
                Solar.time(
                    of: event,
                    on: local("2024-12-21T00:00"),
                    latitude: Self.tromso.latitude,
                    longitude: Self.tromso.longitude,
                    timeZone: oslo
                ) == .polarNight
            )
            // Longyearbyen, and the south: McMurdo's midnight sun at the December solstice.
            #expect(
                Solar.time(
                    of: event,
                    on: local("2024-04-25T00:00"),
                    latitude: 78.2232,
                    longitude: 15.6267,
                    timeZone: oslo
                ) == .polarDay
            )
            #expect(
                Solar.time(
                    of: event,
                    on: local("2024-12-21T00:00"),
                    latitude: -77.846,
                    longitude: 166.676,
                    timeZone: try #require(TimeZone(identifier: "Antarctica/McMurdo"))
                ) == .polarDay
            )
        }
        // Neither trap on nonsense coordinates.
        #expect(
            Solar.time(of: .sunrise, on: local("2024-06-21T00:00"), latitude: .nan, longitude: 0, timeZone: oslo)
                == .polarNight
        )
        #expect(
            Solar.time(of: .sunrise, on: local("2024-06-21T00:00"), latitude: 90, longitude: 1e300, timeZone: oslo)
                == .polarDay
        )
    }

    @Test func nextSunTimeSkipsTheMidnightSun() throws {
        let clock = try zoneClock(Self.tromso.zone)
        let (latitude, longitude) = (Self.tromso.latitude, Self.tromso.longitude)
        let midsummer = clock.instant(of: local("2024-06-21T12:00"))
        let sunset = try #require(
            clock.nextSunTime(.sunset, offsetSeconds: 0, latitude: latitude, longitude: longitude, after: midsummer)
        )
        // Wikipedia's Tromsø article: midnight sun from about 18 May to 26 July, polar night from about 26 November
        // to 15 January. The first sunset comes just after midnight at the end of it.
        let wall = clock.local(sunset)
        #expect(wall.month == 7 && (25...27).contains(wall.day), "\(wall)")
        #expect(wall.time.hour < 2 || wall.time.hour >= 23, "\(wall)")
        // Every day from midsummer up to that one is a polar day, and that day's own sunset is the one returned.
        var day = local("2024-06-21T00:00")
        var polarDays = 0
        while true {
            let sun = Solar.time(
                of: .sunset,
                on: day,
                latitude: latitude,
                longitude: longitude,
                timeZone: clock.timeZone
            )
            if case .at(let date) = sun {
                #expect(date == sunset)
                break
            }
            #expect(sun == .polarDay, "\(day)")
            polarDays += 1
            guard polarDays < 60 else { break }
            day = clock.local(clock.instant(of: day).addingTimeInterval(86_400 + 3600))
            day.time = TimeOfDay(hour: 0, minute: 0)
        }
        #expect((25...40).contains(polarDays))
        // And after the polar night the sun comes back about 15 January, around noon.
        let sunrise = try #require(
            clock.nextSunTime(
                .sunrise,
                offsetSeconds: 0,
                latitude: latitude,
                longitude: longitude,
                after: clock.instant(of: local("2024-12-21T12:00"))
            )
        )
        let morning = clock.local(sunrise)
        #expect(morning.year == 2025 && morning.month == 1 && (14...16).contains(morning.day), "\(morning)")
        #expect(morning.time.hour >= 10 && morning.time.hour < 13, "\(morning)")
    }

    @Test func nextSunTimeIsNilWithoutOneInFourHundredDays() throws {
        // At the pole the sun rises once a year for a moment the daily reckoning never lands on.
        let clock = try zoneClock("UTC")
        #expect(
            clock.nextSunTime(.sunset, offsetSeconds: 0, latitude: 90, longitude: 0, after: utc("2024-01-01T00:00:00Z"))
                == nil
        )
    }

    @Test func nextSunTimeWithOffsets() throws {
        let clock = try zoneClock("Europe/Berlin")
        let (latitude, longitude) = (52.52, 13.405)
        let day = local("2024-12-21T00:00")
        let sunset = try #require(
            Solar.time(of: .sunset, on: day, latitude: latitude, longitude: longitude, timeZone: clock.timeZone).date
        )
        let nextDaySunset = try #require(
            Solar.time(
                of: .sunset,
                on: local("2024-12-22T00:00"),
                latitude: latitude,
                longitude: longitude,
                timeZone: clock.timeZone
            ).date
        )
        // 30 minutes before sunset: from the morning, that evening; from after it, the next day's.
        let morning = clock.instant(of: local("2024-12-21T09:00"))
        #expect(
            clock.nextSunTime(.sunset, offsetSeconds: -1800, latitude: latitude, longitude: longitude, after: morning)
                == sunset.addingTimeInterval(-1800)
        )
        #expect(
            clock.nextSunTime(
                .sunset,
                offsetSeconds: -1800,
                latitude: latitude,
                longitude: longitude,
                after: sunset.addingTimeInterval(-1800)
            ) == nextDaySunset.addingTimeInterval(-1800)
        )
        // 12 hours after sunset lands on the next morning; from just after the day's sunset it is still pending.
        #expect(
            clock.nextSunTime(
                .sunset,
                offsetSeconds: 12 * 3600,
                latitude: latitude,
                longitude: longitude,
                after: sunset.addingTimeInterval(60)
            ) == sunset.addingTimeInterval(12 * 3600)
        )
        // 12 hours before sunrise lands on the evening before.
        let sunrise = try #require(
            Solar.time(
                of: .sunrise,
                on: local("2024-12-22T00:00"),
                latitude: latitude,
                longitude: longitude,
                timeZone: clock.timeZone
            ).date
        )
        #expect(
            clock.nextSunTime(
                .sunrise,
                offsetSeconds: -12 * 3600,
                latitude: latitude,
                longitude: longitude,
                after: sunset
            ) == sunrise.addingTimeInterval(-12 * 3600)
        )
        // A year of sunsets one after the other: one a day, in order.
        var cursor = clock.instant(of: local("2025-01-01T00:00"))
        var days = Set<String>()
        for _ in 0..<365 {
            let next = try #require(
                clock.nextSunTime(.sunset, offsetSeconds: 0, latitude: latitude, longitude: longitude, after: cursor)
            )
            #expect(next > cursor)
            days.insert(String(clock.local(next).description.prefix(10)))
            cursor = next
        }
        #expect(days.count == 365)
    }

    @Test func sunTimeOnTheDayOfAnInstant() throws {
        let clock = try zoneClock("Europe/Berlin")
        // 23:30 UTC on the 20th is already the 21st in Berlin.
        let instant = utc("2024-12-20T23:30:00Z")
        let sunset = try #require(
            Solar.time(
                of: .sunset,
                on: local("2024-12-21T00:00"),
                latitude: 52.52,
                longitude: 13.405,
                timeZone: clock.timeZone
            ).date
        )
        #expect(
            clock.sunTime(.sunset, offsetSeconds: -1800, latitude: 52.52, longitude: 13.405, onDayOf: instant)
                == .at(sunset.addingTimeInterval(-1800))
        )
        #expect(
            clock.sunTime(.sunset, offsetSeconds: 0, latitude: 52.52, longitude: 13.405, onDayOf: instant)
                == .at(
                    try #require(
                        clock.nextSunTime(
                            .sunset,
                            offsetSeconds: 0,
                            latitude: 52.52,
                            longitude: 13.405,
                            after: instant
                        )
                    )
                )
        )
        let tromso = try zoneClock(Self.tromso.zone)
        #expect(
            tromso.sunTime(
                .sunrise,
                offsetSeconds: 600,
                latitude: Self.tromso.latitude,
                longitude: Self.tromso.longitude,
                onDayOf: utc("2024-12-21T12:00:00Z")
            ) == .polarNight
        )
    }
}
