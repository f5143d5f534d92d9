import Foundation
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import DNSSD

extension NetworkNamespace {
    /// Why the namespace tests are skipped where they cannot run.
    static let skipReason: Comment = "mDNS tests run only inside a network namespace they create: needs root and `ip`"
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
