import NIOCore

/// Runs Swift tasks on a NIO event loop, for `withTaskExecutorPreference`: code that talks to actors on that loop
/// (a ``PairedAccessory``) then never changes threads.
public final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    /// The loop the tasks run on.
    public let eventLoop: any EventLoop

    /// Makes an executor for this loop.
    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Runs a job on the loop.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }

    /// This executor, unowned.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}
