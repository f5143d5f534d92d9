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

/// What a program run to its end gave: its exit status, stdout and stderr.
public struct ProgramResult: Sendable {
    /// The exit status.
    public var status: Int32
    /// Standard output, as text.
    public var output: String
    /// Standard error, as text.
    public var errors: String
}

/// Runs the built program `program` (a product of this package) with `arguments` and no input to its end, waiting
/// off Swift's concurrency threads.
public func runBuiltProgram(_ program: String, _ arguments: [String]) async throws -> ProgramResult {
    try await offThePool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path(program))
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProgramResult(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self)
        )
    }
}
