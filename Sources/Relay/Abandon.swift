/// How waiting on an abandonable operation ended.
enum Waited<Value: Sendable>: Sendable {
    /// The operation finished with this value.
    case finished(Value)
    /// It had not started within the time allowed; it was cancelled and left to end by itself.
    case timedOut
    /// The waiting task was cancelled; so was the operation, which was left to end by itself.
    case cancelled
}

/// Runs `operation` in a task of its own and waits for it, but stops waiting when the operation has not called
/// the `started` it is given within `timeout`, or when the waiting task is cancelled: the operation is cancelled
/// then and left to end by itself.
///
/// swift-websocket's client waits for the answer to its upgrade request without a timeout and cannot be cancelled
/// while it does, so a relay that accepts a connection and never answers would otherwise hold its caller for ever.
func waitAbandoning<Value: Sendable>(
    startWithin timeout: Duration,
    _ operation: @escaping @Sendable (_ started: @escaping @Sendable () -> Void) async -> Value
) async -> Waited<Value> {
    let started = Shared(false)
    let outcome = Shared<CheckedContinuation<Waited<Value>, Never>?>(nil)
    // Resumes the waiting caller once, with the first of: the operation's end, the timeout, the cancellation.
    // Resumed outside the lock: the cancellation handler runs under the task's own lock, which resuming takes.
    let finish: @Sendable (Waited<Value>) -> Void = { how in
        let waiting = outcome.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: how)
    }
    let running = Task { await operation { started.withLock { $0 = true } } }
    return await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Waited<Value>, Never>) in
            outcome.withLock { $0 = continuation }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled, !started.withLock({ $0 }) else { return }
                running.cancel()
                finish(.timedOut)
            }
            Task {
                let value = await running.value
                timer.cancel()
                finish(.finished(value))
            }
            if Task.isCancelled {
                running.cancel()
                finish(.cancelled)
            }
        }
    } onCancel: {
        running.cancel()
        finish(.cancelled)
    }
}
