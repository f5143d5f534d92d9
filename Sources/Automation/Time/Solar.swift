import Foundation
import HomeGraph

/// A sun time on one day: when it happens, or why it does not.
public enum SunTime: Sendable, Equatable {
    /// The event happens at this instant.
    case at(Date)
    /// The sun is up all day (midnight sun): no sunrise or sunset.
    case polarDay
    /// The sun never rises (polar night): no sunrise or sunset.
    case polarNight

    /// The instant, when there is one.
    var date: Date? {
        if case .at(let date) = self { return date }
        return nil
    }
}

/// Sunrise and sunset from the NOAA solar equations (the NOAA Solar Calculator spreadsheet's equations: Julian
/// century, equation of time, declination, hour angle for zenith 90.833°).
public enum Solar {
    /// The sunrise or sunset of the local calendar day `day` (only year/month/day are used) in `timeZone`.
    public static func time(
        of event: SunEvent,
        on day: LocalDateTime,
        latitude: Double,
        longitude: Double,
        timeZone: TimeZone
    ) -> SunTime {
        // Coordinates come validated from the home; still, nothing here may trap on a NaN or a huge number.
        guard latitude.isFinite, longitude.isFinite else { return .polarNight }
        let longitude = remainder(longitude, 360)
        // The day's events are the ones around its solar noon (the one nearest local noon), so far north a
        // day's sunset can come after midnight (Reykjavik, 21 June: 00:05 on the 22nd), as almanacs print it.
        let noon = Civil.instant(
            ofLocalSeconds: Civil.localSeconds(day: day.dayNumber, time: TimeOfDay(hour: 12, minute: 0)),
            in: timeZone
        )
        switch eventSeconds(event, nearInstant: noon, latitude: latitude, longitude: longitude) {
        case .success(let seconds): return .at(Date(timeIntervalSince1970: seconds))
        case .failure(let polar): return polar.sunUpAllDay ? .polarDay : .polarNight
        }
    }

    /// A day without the event: the sun stays up, or stays down.
    struct NoEvent: Error {
        /// True for midnight sun, false for polar night.
        var sunUpAllDay: Bool
    }

    /// The zenith of the sun's centre at sunrise and sunset: 90° plus refraction (34′) and the sun's radius (16′).
    static let zenithDegrees = 90.833

    /// The equation of time (minutes) and the declination (radians) at an instant.
    ///
    /// These are the NOAA spreadsheet's equations (Julian centuries since J2000; after Meeus, "Astronomical
    /// Algorithms"). The shorter fractional-year series of "General Solar Position Calculations" is off by more than
    /// two minutes at 62° N in January (Sundsvall); these stay within 90 seconds of the published tables we test.
    static func position(atSeconds seconds: Double) -> (equationOfTime: Double, declination: Double) {
        let degrees = Double.pi / 180
        // Julian centuries since 2000-01-01 12:00 UTC (Julian day 2451545; 1970-01-01 00:00 is 2440587.5).
        let t = (seconds / 86_400 + 2_440_587.5 - 2_451_545) / 36_525
        let meanLongitude = (280.46646 + t * (36_000.76983 + t * 0.0003032)).truncatingRemainder(dividingBy: 360)
        let meanAnomaly = (357.52911 + t * (35_999.05029 - 0.0001537 * t)) * degrees
        let eccentricity = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
        let centre =
            sin(meanAnomaly) * (1.914602 - t * (0.004817 + 0.000014 * t)) + sin(2 * meanAnomaly)
            * (0.019993 - 0.000101 * t) + sin(3 * meanAnomaly) * 0.000289
        let omega = (125.04 - 1934.136 * t) * degrees
        let apparentLongitude = (meanLongitude + centre - 0.00569 - 0.00478 * sin(omega)) * degrees
        let meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let obliquity = (meanObliquity + 0.00256 * cos(omega)) * degrees
        let declination = asin(sin(obliquity) * sin(apparentLongitude))
        let y = tan(obliquity / 2) * tan(obliquity / 2)
        let longitude = meanLongitude * degrees
        let equation =
            y * sin(2 * longitude) - 2 * eccentricity * sin(meanAnomaly) + 4 * eccentricity * y * sin(meanAnomaly)
            * cos(2 * longitude) - 0.5 * y * y * sin(4 * longitude) - 1.25 * eccentricity * eccentricity
            * sin(2 * meanAnomaly)
        // Radians of hour angle to minutes of time: 4 minutes a degree.
        return (4 * equation / degrees, declination)
    }

    /// The cosine of the sunrise hour angle; above 1 the sun stays down, below −1 it stays up.
    static func cosineOfHourAngle(latitude: Double, declination: Double) -> Double {
        let phi = min(max(latitude, -89.999), 89.999) * .pi / 180
        return cos(zenithDegrees * .pi / 180) / (cos(phi) * cos(declination)) - tan(phi) * tan(declination)
    }

    /// The UTC day whose solar noon is nearest `instant`, and that solar noon (seconds since 1970).
    static func solarNoon(nearInstant instant: Int, longitude: Double) -> (utcDay: Int, seconds: Double) {
        let meanNoon = (720 - 4 * longitude) * 60
        let utcDay = Int(((Double(instant) - meanNoon) / Double(Civil.secondsPerDay)).rounded())
        let base = Double(utcDay * Civil.secondsPerDay) + meanNoon
        var noon = base
        for _ in 0..<2 { noon = base - position(atSeconds: noon).equationOfTime * 60 }
        return (utcDay, noon)
    }

    /// The sunrise or sunset (seconds since 1970) around the solar noon nearest `instant`, or why there is none.
    static func eventSeconds(
        _ event: SunEvent,
        nearInstant instant: Int,
        latitude: Double,
        longitude: Double
    )
        -> Result<Double, NoEvent>
    {
        let noon = solarNoon(nearInstant: instant, longitude: longitude)
        let cosine = cosineOfHourAngle(latitude: latitude, declination: position(atSeconds: noon.seconds).declination)
        guard (-1...1).contains(cosine) else { return .failure(NoEvent(sunUpAllDay: cosine < -1)) }
        let sign = event == .sunrise ? -1.0 : 1.0
        // Four minutes of time per degree of hour angle.
        var seconds = noon.seconds + sign * acos(cosine) * 180 / .pi * 240
        // The sun moves between noon and the event: evaluate again at the event itself.
        let base = Double(noon.utcDay * Civil.secondsPerDay) + (720 - 4 * longitude) * 60
        for _ in 0..<2 {
            let here = position(atSeconds: seconds)
            let refined = cosineOfHourAngle(latitude: latitude, declination: here.declination)
            guard (-1...1).contains(refined) else { break }
            seconds = base - here.equationOfTime * 60 + sign * acos(refined) * 180 / .pi * 240
        }
        return .success(seconds)
    }
}
