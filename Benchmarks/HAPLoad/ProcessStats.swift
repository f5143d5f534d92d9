import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Another process's CPU time and resident memory, read from `/proc`.
enum ProcessStats {
    /// User plus system CPU time in seconds (`utime` + `stime` of `/proc/PID/stat`), `nil` if unreadable.
    ///
    /// The kernel counts in clock ticks (`_SC_CLK_TCK`, usually 100 per second), so a measurement needs enough
    /// requests to span many ticks.
    static func cpuSeconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command name in parentheses, field 3 (state) comes first; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory in kilobytes (`VmRSS` of `/proc/PID/status`), `nil` if unreadable.
    static func residentKilobytes(pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`).
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Latencies of one phase, in nanoseconds, and what they add up to.
struct Samples {
    var nanoseconds: [UInt64] = []

    /// The value below which a fraction `p` of the samples lie, in milliseconds.
    func percentileMilliseconds(_ p: Double) -> Double {
        guard !nanoseconds.isEmpty else { return 0 }
        let sorted = nanoseconds.sorted()
        let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
        return Double(sorted[index]) / 1e6
    }
}
