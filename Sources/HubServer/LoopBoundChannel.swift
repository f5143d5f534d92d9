import HAPController
import HummingbirdCore
import Logging
import NIOCore

/// Serves each connection as a task that prefers the connection's own event loop as its executor.
///
/// Hummingbird handles a connection in a task on Swift's global executor, so every request would cross threads
/// twice (loop → pool for the request, pool → loop for the answer) and every event sent on a WebSocket once more.
/// With the loop as the task's executor preference, the handler, the hub's actor and the store run where the
/// bytes arrived and the answer is written without a hop; only calls to an accessory on another loop cross.
struct LoopBoundChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
    }
}
