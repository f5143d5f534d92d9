import Foundation
import HAP
import HAPAccessoryServer
import NIOCore
import NIOPosix
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// 1,000 idle TCP connections opened and left (issue 5, bad input): the server keeps at most `maximumSessions`
/// of them, closing the one idle longest whenever a new connection needs a slot; a paired controller that
/// connects afterwards is served; and once they are closed, the process's resident memory comes back.
@Suite struct IdleConnectionsTests {
    static let idleCount = 1_000
    /// How far resident memory may stay above where it was before the connections were opened.
    static let memoryMarginKilobytes = 10 * 1024
    /// How much a second round may add to the first: allocator noise, not a copy of what each connection held.
    static let repeatMarginKilobytes = 2 * 1024
    /// Whether this process runs the test alone, so that its resident memory is the server's (scripts/test.sh).
    static let measuresMemory = ProcessInfo.processInfo.environment["HEARTH_MEMORY_TESTS"] == "1"

    @Test("1,000 idle connections: the server keeps serving a paired controller and its memory comes back")
    func thousandIdleConnections() async throws {
        let limit = try FileLimit.raise(atLeast: rlim_t(Self.idleCount) * 2 + 256)
        defer { limit.restore() }
        let accessory = try await TestAccessory.start(unverifiedTimeout: .seconds(600))
        defer { Task { await accessory.stop() } }
        let admin = TestAccessory.newController()
        let pairing = try await accessory.pair(admin)
        // The server has served a verified session once before the baseline, as it would have in use.
        let warm = try await accessory.verifiedClient(admin, accessory: pairing)
        #expect(try await warm.request(.get, "/characteristics?id=1.9").status == .ok)
        await warm.close()
        try await accessory.waitForSessionCount(0)
        let baseline = try #require(Self.residentKilobytes())

        let first = try await Self.floodAndServe(accessory, admin: admin, pairing: pairing)
        let afterFirst = try await Self.settledResidentKilobytes(atMost: baseline + Self.memoryMarginKilobytes)
        // A second flood must not add what the first one did: nothing is kept per connection once it is closed.
        let second = try await Self.floodAndServe(accessory, admin: admin, pairing: pairing)
        let afterSecond = try await Self.settledResidentKilobytes(atMost: afterFirst + Self.repeatMarginKilobytes)
        print(
            "IdleConnections: VmRSS \(baseline) kB before, \(first) kB with \(Self.idleCount) idle, "
                + "\(afterFirst) kB after; second round \(second) kB with, \(afterSecond) kB after"
        )
        // The process's resident memory is the server's only when this test runs alone: in a full run a hundred
        // other tests allocate beside it (up to 100 MB between two rounds). scripts/test.sh runs it alone first
        // with HEARTH_MEMORY_TESTS=1, and the memory is checked there.
        guard Self.measuresMemory else { return }
        #expect(
            afterFirst <= baseline + Self.memoryMarginKilobytes,
            "VmRSS \(baseline) kB before, \(afterFirst) kB after"
        )
        #expect(
            afterSecond <= afterFirst + Self.repeatMarginKilobytes,
            "VmRSS \(afterFirst) kB, then \(afterSecond) kB"
        )
    }

    /// Opens the idle connections, serves a paired controller among them, closes everything; returns the peak VmRSS.
    static func floodAndServe(
        _ accessory: TestAccessory,
        admin: ControllerIdentity,
        pairing: AccessoryPairing
    ) async throws -> Int {
        let maximum = accessory.server.configuration.maximumSessions
        accessory.uptime.advance(by: .seconds(1))
        let idle = try await Self.openIdleConnections(Self.idleCount, port: accessory.port)
        #expect(idle.count == Self.idleCount)
        // Each connection past the maximum closed the one idle longest; the server holds no more than its slots.
        try await accessory.waitForSessionCount(maximum, timeout: .seconds(20))
        try await waitUntil("\(maximum) idle connections", timeout: .seconds(20), every: .milliseconds(10)) {
            idle.filter(\.isActive).count == maximum
        }
        let peak = Self.residentKilobytes() ?? 0

        // A paired controller connecting now takes the slot of an idle connection and is served.
        accessory.uptime.advance(by: .seconds(1))
        let controller = try await accessory.verifiedClient(admin, accessory: pairing)
        #expect(try await controller.request(.get, "/characteristics?id=1.9").status == .ok)
        let write = #"{"characteristics":[{"aid":1,"iid":9,"value":true}]}"#
        #expect(try await controller.json(.put, "/characteristics", write).status == .noContent)
        #expect(await accessory.server.sessionCount == maximum)
        try await waitUntil("one idle connection closed", timeout: .seconds(5), every: .milliseconds(10)) {
            idle.filter(\.isActive).count == maximum - 1
        }

        // Close the idle connections; the controller keeps being served.
        for channel in idle { try? await channel.close() }
        try await accessory.waitForSessionCount(1, timeout: .seconds(10))
        #expect(try await controller.request(.get, "/characteristics?id=1.9").status == .ok)
        await controller.close()
        try await accessory.waitForSessionCount(0)
        return peak
    }

    /// VmRSS once it is at most `limit`, or after a settle of at most 2 s.
    static func settledResidentKilobytes(atMost limit: Int) async throws -> Int {
        var settled = Self.residentKilobytes() ?? Int.max
        let deadline = ContinuousClock.now + .seconds(2)
        while settled > limit, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            settled = Self.residentKilobytes() ?? Int.max
        }
        return settled
    }

    /// Opens `count` plain TCP connections that never send a byte, 100 at a time.
    static func openIdleConnections(_ count: Int, port: Int) async throws -> [any Channel] {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
        var channels: [any Channel] = []
        channels.reserveCapacity(count)
        while channels.count < count {
            let batch = min(100, count - channels.count)
            let futures = (0..<batch).map { _ in bootstrap.connect(host: "127.0.0.1", port: port) }
            for future in futures { channels.append(try await future.get()) }
        }
        return channels
    }

    /// This process's resident memory in kilobytes (`VmRSS` of `/proc/self/status`).
    static func residentKilobytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}

/// The soft limit on open files, raised for a test and put back afterwards.
struct FileLimit {
    let original: rlimit

    /// Raises the soft limit to `needed` (at most the hard limit) if it is lower.
    static func raise(atLeast needed: rlim_t) throws -> FileLimit {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw TestClientError.unexpected("getrlimit: \(errno)")
        }
        let original = limit
        if limit.rlim_cur < needed {
            limit.rlim_cur = min(needed, limit.rlim_max)
            guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
                throw TestClientError.unexpected("setrlimit: \(errno)")
            }
        }
        return FileLimit(original: original)
    }

    func restore() {
        var limit = original
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
}
