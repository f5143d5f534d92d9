import Foundation
import NIOPosix

/// Two private network namespaces joined by a veth pair, made for one test and removed after it.
///
/// Nothing here touches the machine's real interfaces: the veth pair is created directly inside the
/// namespaces, which have no default route; multicast is routed to the veth, IPv6 is off. Addresses come from
/// 198.18.0.0/15 (the benchmarking range), chosen per test so parallel runs do not collide.
public final class NetworkNamespacePair: @unchecked Sendable {
    // @unchecked: every property is immutable after init.

    /// Whether the tests that need namespaces can run: root and `ip` present.
    public static var isAvailable: Bool { NetworkNamespace.isAvailable }

    /// The namespace the accessory runs in.
    public let accessoryNamespace: String
    /// The namespace the controller runs in.
    public let controllerNamespace: String
    /// The accessory side's IPv4 address on the veth pair.
    public let accessoryAddress: String
    /// The controller side's IPv4 address on the veth pair.
    public let controllerAddress: String

    /// The two namespaces.
    private let namespaces: (accessory: NetworkNamespace, controller: NetworkNamespace)

    private static let counter = Counter()

    /// Creates the pair; throws when a command fails (and removes what it made).
    public init() throws {
        let serial = Self.counter.next()
        let tag = "\(getpid() % 100_000)-\(serial)"
        accessoryNamespace = "hearth-\(tag)-a"
        controllerNamespace = "hearth-\(tag)-c"
        let subnet = 100 + Int(getpid() % 50) * 3 + serial % 3
        accessoryAddress = "198.19.\(subnet).1"
        controllerAddress = "198.19.\(subnet).2"
        let accessoryLink = "hva\(getpid() % 10_000)x\(serial)"
        let controllerLink = "hvc\(getpid() % 10_000)x\(serial)"
        namespaces = try NetworkNamespace.makeVethPair(
            names: (accessoryNamespace, controllerNamespace),
            links: (accessoryLink, controllerLink),
            addresses: (accessoryAddress, controllerAddress),
            disableIPv6: true
        )
    }

    deinit {
        remove()
    }

    /// Deletes both namespaces (and with them the veth pair).
    public func remove() {
        namespaces.accessory.delete()
        namespaces.controller.delete()
    }

    /// Starts `executable` inside the accessory's (or the controller's) namespace.
    public func start(
        inAccessoryNamespace: Bool,
        _ executable: String,
        _ arguments: [String],
        timeout: TimeInterval = 300
    ) throws -> ChildProcess {
        try ChildProcess(
            Self.ipPath,
            execArguments(inAccessoryNamespace: inAccessoryNamespace, [executable] + arguments),
            timeout: timeout
        )
    }

    /// The arguments of ``ipPath`` that run `command` inside the accessory's (or the controller's) namespace.
    public func execArguments(inAccessoryNamespace: Bool, _ command: [String]) -> [String] {
        (inAccessoryNamespace ? namespaces.accessory : namespaces.controller).execArguments(command)
    }

    /// An event loop group whose threads (and sockets) live in the controller's namespace, for an in-process hub
    /// that browses there.
    public func makeControllerEventLoopGroup() throws -> MultiThreadedEventLoopGroup {
        try namespaces.controller.makeEventLoopGroup()
    }

    /// Where `ip` is, to run a command in a namespace with ``NetworkNamespace/execArguments(_:)``.
    public static var ipPath: String { NetworkNamespace.ipPath ?? "/usr/sbin/ip" }

    /// A process-wide serial number for namespace names.
    final class Counter: @unchecked Sendable {
        // @unchecked: `value` is only touched under `lock`.
        private let lock = NSLock()
        private var value = 0

        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value
        }
    }
}

/// Where the package's built products are: beside the test bundle.
public enum BuiltProducts {
    /// The folder holding the built executables (`.build/debug`).
    public static var directory: URL {
        var executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        // A bundle rebuilt while it runs is listed as "… (deleted)"; its folder is still the right one.
        if executable.hasSuffix(" (deleted)") { executable.removeLast(" (deleted)".count) }
        var url = URL(fileURLWithPath: executable)
        while url.pathComponents.count > 1 && url.pathExtension != "xctest" {
            url.deleteLastPathComponent()
        }
        return url.deletingLastPathComponent()
    }

    /// The path of a built executable.
    public static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }
}
