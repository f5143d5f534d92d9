import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import DNSSD

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace a test creates and deletes, so mDNS never leaves on the machine's real interfaces.
///
/// Swift tests run in-process, so a namespace is entered per thread: `makeEventLoopGroup()` starts a thread that
/// calls `setns(2)` and only then creates the event loop group, whose threads inherit the namespace. Sockets in
/// `DNSSD` are created on those loop threads.
final class NetworkNamespace: Sendable {
    /// Where iproute2's `ip` lives, if it does.
    static let ipPath = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether namespace tests can run here: as root, with `ip`.
    static let isAvailable = getuid() == 0 && ipPath != nil

    /// Why they are skipped otherwise.
    static let skipReason: Comment = "mDNS tests run only inside a network namespace they create: needs root and `ip`"

    /// The veth subnet the tests use; distinct from netns.sh's 198.18.77.0/24.
    static let subnet = "198.18.90"

    let name: String

    private init(name: String) {
        self.name = name
    }

    private static func uniqueName() -> String {
        "hearth-dnssd-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// A namespace whose only interface is loopback, up, with multicast on and a route for 224.0.0.0/4.
    static func makeLoopback() throws -> NetworkNamespace {
        let namespace = NetworkNamespace(name: uniqueName())
        try run(["netns", "add", namespace.name])
        do {
            try namespace.ip(["link", "set", "lo", "up", "multicast", "on"])
            try namespace.ip(["route", "add", "224.0.0.0/4", "dev", "lo"])
        } catch {
            namespace.delete()
            throw error
        }
        return namespace
    }

    /// Two namespaces joined by a veth pair: 198.18.90.1/24 in the first, 198.18.90.2/24 in the second.
    static func makeVethPair() throws -> (NetworkNamespace, NetworkNamespace) {
        let first = NetworkNamespace(name: uniqueName())
        let second = NetworkNamespace(name: uniqueName())
        try run(["netns", "add", first.name])
        do {
            try run(["netns", "add", second.name])
            // Created straight inside the namespaces, never in the root one.
            try run([
                "link", "add", "hdv-a", "netns", first.name, "type", "veth", "peer", "name", "hdv-b", "netns",
                second.name,
            ])
            for (namespace, device, host) in [(first, "hdv-a", 1), (second, "hdv-b", 2)] {
                try namespace.ip(["link", "set", "lo", "up"])
                try namespace.ip(["addr", "add", "\(subnet).\(host)/24", "dev", device])
                try namespace.ip(["link", "set", device, "up", "multicast", "on"])
                try namespace.ip(["route", "add", "224.0.0.0/4", "dev", device])
            }
        } catch {
            first.delete()
            second.delete()
            throw error
        }
        return (first, second)
    }

    /// Runs `ip` inside this namespace.
    func ip(_ arguments: [String]) throws {
        try Self.run(["-n", name] + arguments)
    }

    /// Removes the namespace; sockets still open keep it alive until they close.
    func delete() {
        try? Self.run(["netns", "del", name])
    }

    /// An event loop group whose threads, and so whose sockets, live in this namespace.
    func makeEventLoopGroup() throws -> MultiThreadedEventLoopGroup {
        let box = GroupBox()
        let path = "/var/run/netns/\(name)"
        let thread = Thread {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return box.finish(.failure(NamespaceError.cannotEnter(errno))) }
            defer { close(descriptor) }
            guard enterNamespace(descriptor, cloneNewNet) == 0 else {
                return box.finish(.failure(NamespaceError.cannotEnter(errno)))
            }
            box.finish(.success(MultiThreadedEventLoopGroup(numberOfThreads: 1)))
        }
        thread.start()
        return try box.wait().get()
    }

    /// Runs `ip` with arguments, throwing when it fails.
    static func run(_ arguments: [String]) throws {
        guard let ipPath else { throw NamespaceError.noIP }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ipPath)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw NamespaceError.ipFailed(arguments, text)
        }
    }
}

/// `setns(2)`: Glibc's module map leaves it out (it needs `_GNU_SOURCE`), so it is declared here.
@_silgen_name("setns")
private func enterNamespace(_ descriptor: Int32, _ type: Int32) -> Int32

/// `CLONE_NEWNET` from `<sched.h>`.
private let cloneNewNet: Int32 = 0x4000_0000

/// Why a namespace could not be made or entered.
enum NamespaceError: Error {
    case noIP
    case ipFailed([String], String)
    case cannotEnter(Int32)
}

/// Hands the group from the namespace thread back to the test; a lock and a semaphore guard it.
private final class GroupBox: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<MultiThreadedEventLoopGroup, any Error>?

    func finish(_ value: Result<MultiThreadedEventLoopGroup, any Error>) {
        lock.withLock { result = value }
        done.signal()
    }

    func wait() -> Result<MultiThreadedEventLoopGroup, any Error> {
        done.wait()
        return lock.withLock { result } ?? .failure(NamespaceError.cannotEnter(-1))
    }
}

/// Runs `body` with a loopback-only namespace and a group inside it; deletes both afterwards, also on failure.
func withLoopbackNamespace<T>(
    _ body: (NetworkNamespace, MultiThreadedEventLoopGroup) async throws -> T
) async throws -> T {
    let namespace = try NetworkNamespace.makeLoopback()
    defer { namespace.delete() }
    let group = try namespace.makeEventLoopGroup()
    do {
        let result = try await body(namespace, group)
        try? await group.shutdownGracefully()
        return result
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
}

/// Runs `body` with two namespaces joined by veth and a group in each; deletes everything afterwards.
func withVethNamespaces<T>(
    _ body: (NetworkNamespace, MultiThreadedEventLoopGroup, NetworkNamespace, MultiThreadedEventLoopGroup) async throws
        -> T
) async throws -> T {
    let (first, second) = try NetworkNamespace.makeVethPair()
    defer {
        first.delete()
        second.delete()
    }
    let firstGroup = try first.makeEventLoopGroup()
    let secondGroup = try second.makeEventLoopGroup()
    do {
        let result = try await body(first, firstGroup, second, secondGroup)
        try? await firstGroup.shutdownGracefully()
        try? await secondGroup.shutdownGracefully()
        return result
    } catch {
        try? await firstGroup.shutdownGracefully()
        try? await secondGroup.shutdownGracefully()
        throw error
    }
}

/// Collects a browser's events so a test can wait for one with a timeout.
actor EventLog {
    private(set) var events: [BrowseEvent] = []

    func append(_ event: BrowseEvent) {
        events.append(event)
    }

    /// Waits until an event matches, polling every 20 ms; nil after `timeout`.
    func first(
        within timeout: Duration = .seconds(60),
        where predicate: @Sendable (BrowseEvent) -> Bool
    ) async -> BrowseEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = events.first(where: predicate) { return match }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return events.first(where: predicate)
    }
}
