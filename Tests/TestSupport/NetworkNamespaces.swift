import Foundation

/// Two private network namespaces joined by a veth pair, made for one test and removed after it.
///
/// Nothing here touches the machine's real interfaces: the veth pair is created directly inside the
/// namespaces, which have no default route; multicast is routed to the veth, IPv6 is off. Addresses come from
/// 198.18.0.0/15 (the benchmarking range), chosen per test so parallel runs do not collide.
public final class NetworkNamespacePair: @unchecked Sendable {
    // @unchecked: every property is immutable after init.

    /// Whether the tests that need namespaces can run: root and `ip` present.
    public static var isAvailable: Bool {
        getuid() == 0
            && (FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
                || FileManager.default.isExecutableFile(atPath: "/sbin/ip"))
    }

    /// The namespace the accessory runs in.
    public let accessoryNamespace: String
    /// The namespace the controller runs in.
    public let controllerNamespace: String
    /// The accessory side's IPv4 address on the veth pair.
    public let accessoryAddress: String
    /// The controller side's IPv4 address on the veth pair.
    public let controllerAddress: String

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
        do {
            try Self.ip(["netns", "add", accessoryNamespace])
            try Self.ip(["netns", "add", controllerNamespace])
            try Self.ip([
                "link", "add", accessoryLink, "netns", accessoryNamespace, "type", "veth", "peer", "name",
                controllerLink, "netns", controllerNamespace,
            ])
            for (namespace, link, address) in [
                (accessoryNamespace, accessoryLink, accessoryAddress),
                (controllerNamespace, controllerLink, controllerAddress),
            ] {
                try Self.ip(["-n", namespace, "link", "set", "lo", "up"])
                try Self.ip(["-n", namespace, "link", "set", link, "multicast", "on"])
                try Self.ip(["-n", namespace, "addr", "add", "\(address)/24", "dev", link])
                try Self.ip(["-n", namespace, "link", "set", link, "up"])
                try Self.ip(["-n", namespace, "route", "add", "224.0.0.0/4", "dev", link])
                _ = try? Self.run(
                    "/usr/sbin/ip",
                    ["netns", "exec", namespace, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"]
                )
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit {
        remove()
    }

    /// Deletes both namespaces (and with them the veth pair).
    public func remove() {
        for namespace in [accessoryNamespace, controllerNamespace] {
            _ = try? Self.ip(["netns", "del", namespace])
        }
    }

    /// Starts `executable` inside the accessory's (or the controller's) namespace.
    public func start(
        inAccessoryNamespace: Bool,
        _ executable: String,
        _ arguments: [String],
        timeout: TimeInterval = 300
    ) throws -> ChildProcess {
        let namespace = inAccessoryNamespace ? accessoryNamespace : controllerNamespace
        // `ip netns exec` execs the command, so the child's PID is the command's own.
        return try ChildProcess(Self.ipPath, ["netns", "exec", namespace, executable] + arguments, timeout: timeout)
    }

    static var ipPath: String {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip"
    }

    struct CommandError: Error, CustomStringConvertible {
        var description: String
    }

    @discardableResult
    static func ip(_ arguments: [String]) throws -> String {
        try run(ipPath, arguments)
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw CommandError(description: "\(executable) \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }

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
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
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
