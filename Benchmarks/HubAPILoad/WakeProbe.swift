import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How slow this VM is at waking a thread on another CPU right now: two threads, pinned to CPUs 0 and 1, exchange
/// one byte over a UNIX socket pair, one at a time, with blocking reads. Its wall time per round trip is the price
/// of a hop between CPUs, which every path through the hub pays several times, and it moves with the host's load
/// on the VM, so each run prints it at start and end to say which kind of period its numbers come from
/// (docs/benchmarks.md has the figures of quiet and slow periods).
enum WakeProbe {
    /// Pins the calling thread to `cpu` (below 64); false if the kernel refuses. glibc's `sched_setaffinity` sits
    /// behind `_GNU_SOURCE`, which Swift's Glibc module leaves out, so it is looked up by name.
    static func pin(toCPU cpu: Int) -> Bool {
        typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
        guard cpu < 64, let symbol = dlsym(nil, "sched_setaffinity") else { return false }
        let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
        // A cpu_set_t: 1,024 bits, CPU n at bit n.
        var mask = [UInt64](repeating: 0, count: 16)
        mask[0] = UInt64(1) << UInt64(cpu)
        return mask.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return -1 }
            return setAffinity(0, bytes.count, base)
        } == 0
    }

    /// Microseconds of wall time per round trip, median of 5 batches of `roundTrips / 5`; `nil` with fewer than 2
    /// CPUs or when a call fails. Runs on two threads of its own; the caller's thread keeps its placement.
    static func microsecondsPerRoundTrip(roundTrips: Int = 5_000) -> Double? {
        guard ProcessInfo.processInfo.activeProcessorCount >= 2 else { return nil }
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return nil }
        let (near, far) = (pair[0], pair[1])
        defer {
            close(near)
            close(far)
        }
        let done = DispatchSemaphore(value: 0)
        let echo = Thread {
            defer {
                // Whichever way it ends, the pinger's blocked read returns.
                shutdown(far, Int32(SHUT_RDWR))
                done.signal()
            }
            guard pin(toCPU: 1) else { return }
            var byte: UInt8 = 0
            while read(far, &byte, 1) == 1, byte != 0, write(far, &byte, 1) == 1 {}
        }
        let result = ResultBox()
        let pinger = Thread {
            defer { done.signal() }
            var byte: UInt8 = 1
            defer {
                byte = 0
                _ = write(near, &byte, 1)
                shutdown(near, Int32(SHUT_RDWR))
            }
            guard pin(toCPU: 0) else { return }
            let batch = max(1, roundTrips / 5)
            var samples: [Double] = []
            for _ in 0..<5 {
                let start = ContinuousClock.now
                for _ in 0..<batch {
                    guard write(near, &byte, 1) == 1, read(near, &byte, 1) == 1 else { return }
                }
                let elapsed = ContinuousClock.now - start
                samples.append(
                    (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
                        / Double(batch)
                )
            }
            result.value = samples.sorted()[2]
        }
        echo.start()
        pinger.start()
        done.wait()
        done.wait()
        return result.value
    }

    /// A line for the report: the probe's figure, or why there is none.
    static func describe(_ when: String) -> String {
        guard let microseconds = microsecondsPerRoundTrip() else { return "# wake-up probe (\(when)): unavailable" }
        return String(format: "# wake-up probe (\(when)): %.1f µs per round trip between CPUs 0 and 1", microseconds)
    }
}

/// The pinger thread's answer, read after both threads have signalled.
private final class ResultBox: @unchecked Sendable {
    var value: Double?
}
