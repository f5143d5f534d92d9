import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How slow this VM is at waking a thread on the other CPU right now: two threads exchange one byte over a UNIX
/// socket pair, one at a time, with blocking reads. Its wall time per round trip is the price of every hop
/// between threads or processes that the hub's paths pay, and it moves with the VM (docs/benchmarks.md has the
/// figures of quiet and slow periods), so each run prints it at start and end to say which kind of period its
/// numbers come from.
enum WakeProbe {
    /// Microseconds of wall time per round trip, median of 5 batches of `roundTrips / 5`; `nil` if it cannot run.
    static func microsecondsPerRoundTrip(roundTrips: Int = 5_000) -> Double? {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return nil }
        let (near, far) = (pair[0], pair[1])
        defer {
            close(near)
            close(far)
        }
        let echo = Thread {
            var byte: UInt8 = 0
            while read(far, &byte, 1) == 1 {
                guard byte != 0, write(far, &byte, 1) == 1 else { return }
            }
        }
        echo.start()
        let batch = max(1, roundTrips / 5)
        var samples: [Double] = []
        var byte: UInt8 = 1
        for _ in 0..<5 {
            let start = ContinuousClock.now
            for _ in 0..<batch {
                guard write(near, &byte, 1) == 1, read(near, &byte, 1) == 1 else { return nil }
            }
            let elapsed = ContinuousClock.now - start
            samples.append(
                Double(elapsed.components.attoseconds) / 1e12 / Double(batch)
                    + Double(elapsed.components.seconds) * 1e6 / Double(batch)
            )
        }
        byte = 0
        _ = write(near, &byte, 1)
        samples.sort()
        return samples[2]
    }

    /// A line for the report: the probe's figure, or why there is none.
    static func describe(_ when: String) -> String {
        guard let microseconds = microsecondsPerRoundTrip() else { return "# wake-up probe (\(when)): unavailable" }
        return String(format: "# wake-up probe (\(when)): %.1f µs per thread round trip", microseconds)
    }
}
