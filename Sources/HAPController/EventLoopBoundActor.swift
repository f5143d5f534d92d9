import NIOCore

/// An actor that runs on one event loop: code running on that loop (a channel handler, a scheduled task, a caller
/// preferring the loop's ``EventLoopTaskExecutor``) may run the actor's isolated code at once with ``runOnLoop(_:)``.
///
/// A conforming actor returns `eventLoop.executor.asUnownedSerialExecutor()` as its `unownedExecutor`.
public protocol EventLoopBoundActor: Actor {
    /// The loop whose executor is this actor's executor.
    nonisolated var eventLoop: any EventLoop { get }
}

extension EventLoopBoundActor {
    /// Runs `body` isolated to this actor, now, from code running on ``eventLoop``; traps anywhere else.
    ///
    /// This is the one place Hearth runs an actor's code synchronously from its loop. On the loop, which is
    /// the actor's executor, no other code of the actor can be running, so `body` may have it: this is what
    /// `assumeIsolated` does, without its costs. `assumeIsolated` takes a non-escaping closure, which it can only
    /// call as nonisolated through `withoutActuallyEscaping`, and that allocates; and it asks the runtime which
    /// executor is current. Here `body` is escaping, and a closure that captures nothing needs no allocation, so
    /// pass what it needs as arguments (the overloads take up to two); the cast only drops the `isolated` of its
    /// first parameter, which changes nothing in how it is called. Release builds check the thread; debug builds
    /// also ask the runtime that the loop is this actor's executor.
    @inlinable
    public nonisolated func runOnLoop<Value, Failure: Error>(
        _ body: @escaping (isolated Self) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        checkOnLoop()
        let run = unsafeBitCast(body, to: ((Self) throws(Failure) -> Value).self)
        return try run(self)
    }

    /// ``runOnLoop(_:)`` for a body taking one argument.
    @inlinable
    public nonisolated func runOnLoop<First, Value, Failure: Error>(
        _ first: First,
        _ body: @escaping (isolated Self, First) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        checkOnLoop()
        let run = unsafeBitCast(body, to: ((Self, First) throws(Failure) -> Value).self)
        return try run(self, first)
    }

    /// ``runOnLoop(_:)`` for a body taking two arguments.
    @inlinable
    public nonisolated func runOnLoop<First, Second, Value, Failure: Error>(
        _ first: First,
        _ second: Second,
        _ body: @escaping (isolated Self, First, Second) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        checkOnLoop()
        let run = unsafeBitCast(body, to: ((Self, First, Second) throws(Failure) -> Value).self)
        return try run(self, first, second)
    }

    /// Traps off ``eventLoop``; in debug builds, also when the loop is not this actor's executor.
    @inlinable
    nonisolated func checkOnLoop() {
        eventLoop.preconditionInEventLoop()
        #if DEBUG
            preconditionIsolated("\(Self.self) runs on another executor than its event loop")
        #endif
    }
}
