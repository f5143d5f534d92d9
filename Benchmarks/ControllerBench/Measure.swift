import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`).
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// CPU time of this whole process, every thread, user and system, in nanoseconds (`CLOCK_PROCESS_CPUTIME_ID`,
/// the clock Python's `time.process_time_ns()` reads, so both controllers are measured alike).
func processCPUNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Latencies of one phase in nanoseconds, and the process CPU time it took.
struct Phase {
    var samples: [UInt64] = []
    /// Process CPU per operation, for phases that measure each one (pair-setup).
    var cpuSamples: [UInt64] = []
    var cpuNanoseconds: UInt64 = 0
    var wallNanoseconds: UInt64 = 0
    var operations = 0

    /// The nearest-rank percentile `p` (0…100) in milliseconds, or `nil` without samples.
    func percentile(_ p: Double, of values: [UInt64]? = nil) -> Double? {
        let values = values ?? samples
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return Double(sorted[min(sorted.count - 1, max(0, rank))]) / 1e6
    }

    /// Process CPU milliseconds per operation, `nil` when the phase measured none.
    var cpuMillisecondsPerOperation: Double? {
        operations > 0 && cpuNanoseconds > 0 ? Double(cpuNanoseconds) / 1e6 / Double(operations) : nil
    }

    /// Operations per wall-clock second.
    var operationsPerSecond: Double? {
        wallNanoseconds > 0 ? Double(operations) / (Double(wallNanoseconds) / 1e9) : nil
    }

    /// The phase as JSON fields under `name`.
    func fields(_ name: String) -> [String: Double] {
        var out: [String: Double] = ["\(name)_n": Double(operations)]
        if let p50 = percentile(50) { out["\(name)_p50_ms"] = p50 }
        if let p99 = percentile(99) { out["\(name)_p99_ms"] = p99 }
        if let cpu = cpuMillisecondsPerOperation { out["\(name)_cpu_ms_per_op"] = cpu }
        if !cpuSamples.isEmpty, let cpu = percentile(50, of: cpuSamples) { out["\(name)_cpu_p50_ms"] = cpu }
        if let rate = operationsPerSecond { out["\(name)_per_second"] = rate }
        return out
    }
}

/// A one-line-per-command client of hearth-sim's control interface (`--control HOST:PORT`), blocking, IPv4.
struct ControlClient {
    /// Sends `line` on a new connection and returns the answer's first line; `nil` when nothing listens yet.
    static func send(_ line: String, host: String, port: Int) -> String? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let bytes = Array((line + "\n").utf8)
        guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else { return nil }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !answer.contains(UInt8(ascii: "\n")) {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}

/// Runs `command` with `/bin/sh -c` and waits for it on a thread of its own, so the controller reconnects
/// meanwhile; `true` when it exits 0.
///
/// Not Foundation's `Process`: on Linux it reports the end only when every holder of its status descriptor is gone,
/// and the accessory the command starts in the background inherits that descriptor.
func runShell(_ command: String) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        Thread.detachNewThread {
            var pid: pid_t = 0
            let words = ["/bin/sh", "-c", command]
            var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { for argument in arguments { free(argument) } }
            guard posix_spawn(&pid, "/bin/sh", nil, nil, &arguments, environ) == 0 else {
                continuation.resume(returning: false)
                return
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            continuation.resume(returning: status == 0)
        }
    }
}
