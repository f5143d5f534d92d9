import Foundation
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace a test creates and deletes, so mDNS never leaves on the machine's real interfaces.
///
/// Swift tests run in-process, so a namespace is entered per thread: `makeEventLoopGroup()` starts a thread that
/// calls `setns(2)` and only then creates the event loop group, whose threads inherit the namespace. Sockets in
/// `DNSSD` are created on those loop threads.
public final class NetworkNamespace: Sendable {
    /// Where iproute2's `ip` lives, if it does.
    public static let ipPath = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether namespace tests can run here: as root, with `ip`.
    public static let isAvailable = getuid() == 0 && ipPath != nil

    /// The veth subnet the DNSSD tests use; distinct from netns.sh's 198.18.77.0/24.
    public static let subnet = "198.18.90"

    /// The namespace's name (`/var/run/netns/<name>`).
    public let name: String

    private init(name: String) {
        self.name = name
    }

    private static func uniqueName() -> String {
        "hearth-dnssd-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// A namespace whose only interface is loopback, up, with multicast on and a route for 224.0.0.0/4.
    public static func makeLoopback() throws -> NetworkNamespace {
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

    /// Two namespaces joined by a veth pair.
    ///
    /// The veth (`links`) is made straight inside them, never in the root namespace, with `addresses` (/24) on it,
    /// loopback up, multicast on and routed to the veth; by default 198.18.90.1 and .2 in namespaces with random
    /// names. `disableIPv6` turns IPv6 off in both.
    public static func makeVethPair(
        names: (String, String)? = nil,
        links: (String, String) = ("hdv-a", "hdv-b"),
        addresses: (String, String) = ("\(subnet).1", "\(subnet).2"),
        disableIPv6: Bool = false
    ) throws -> (NetworkNamespace, NetworkNamespace) {
        let first = NetworkNamespace(name: names?.0 ?? uniqueName())
        let second = NetworkNamespace(name: names?.1 ?? uniqueName())
        try run(["netns", "add", first.name])
        do {
            try run(["netns", "add", second.name])
            try run([
                "link", "add", links.0, "netns", first.name, "type", "veth", "peer", "name", links.1, "netns",
                second.name,
            ])
            for (namespace, device, address) in [(first, links.0, addresses.0), (second, links.1, addresses.1)] {
                try namespace.ip(["link", "set", "lo", "up"])
                try namespace.ip(["addr", "add", "\(address)/24", "dev", device])
                try namespace.ip(["link", "set", device, "up", "multicast", "on"])
                try namespace.ip(["route", "add", "224.0.0.0/4", "dev", device])
                if disableIPv6 {
                    try? run(namespace.execArguments(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"]))
                }
            }
        } catch {
            first.delete()
            second.delete()
            throw error
        }
        return (first, second)
    }

    /// The arguments of `ip` that run `command` inside this namespace (`netns exec NAME COMMAND…`); `ip` execs the
    /// command, so the child's PID is the command's own.
    public func execArguments(_ command: [String]) -> [String] {
        ["netns", "exec", name] + command
    }

    /// Runs `ip` inside this namespace.
    public func ip(_ arguments: [String]) throws {
        try Self.run(["-n", name] + arguments)
    }

    /// Removes the namespace; sockets still open keep it alive until they close.
    public func delete() {
        try? Self.run(["netns", "del", name])
    }

    /// An event loop group whose threads, and so whose sockets, live in this namespace.
    public func makeEventLoopGroup() throws -> MultiThreadedEventLoopGroup {
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
    public static func run(_ arguments: [String]) throws {
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
public enum NamespaceError: Error {
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
