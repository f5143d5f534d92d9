import NIOCore

/// Runs tasks on one event loop (`Task(executorPreference:)`), so a connection's reads and writes continue on the
/// loop that delivered its bytes instead of waking a thread of the pool.
package final class LoopExecutor: TaskExecutor, Sendable {
    /// The loop the tasks run on.
    package let eventLoop: any EventLoop

    /// Makes an executor for `eventLoop`.
    package init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    /// Runs a job on the loop.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// This executor, unowned.
    package func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }
}
