import Foundation

/// Runs blocking `body` (a socket read, a wait for a child process) on a thread of its own and returns its result.
///
/// Swift's concurrency threads are as many as the cores (two on these machines); a test that blocks one starves the
/// servers that other tests run in the same process, and they time out.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Runs blocking `body` on a thread of its own and returns its result; see the throwing form.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
