// NIOFloor: the CPU one request and answer costs through SwiftNIO with the controller's structure (a channel whose
// handler hands bytes to an actor running on the channel's event loop, the caller on that loop writing the request
// before it suspends on one continuation, which the answer resumes), against a bare echo server
// (`Benchmarks/peers/socket_floor.py --serve`). No HTTP, no encryption, no JSON: what is left of Hearth's CPU per
// read above this is its own work. scripts/bench-controller.sh runs it pinned like the controllers.
//
//   NIOFloor --port PORT [--count 50000]
//
// Prints one JSON object: process CPU (every thread) and wall time per round trip of 100 bytes.
import Foundation
import HAPController
import NIOCore
import NIOPosix

/// Hands each received buffer to the pinger, on the channel's loop (the pinger's executor).
final class EchoInbound: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let pinger: Pinger

    init(_ pinger: Pinger) { self.pinger = pinger }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let count = unwrapInboundIn(data).readableBytes
        pinger.assumeIsolated { $0.received(count) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The echo server went away before the end: no answer will come, so nothing waits for one forever.
        guard !pinger.assumeIsolated({ $0.isClosing }) else { return }
        FileHandle.standardError.write(Data("NIOFloor: the echo server closed the connection\n".utf8))
        exit(1)
    }
}

/// One connection with one request in flight, as AccessoryConnection keeps it.
actor Pinger {
    static let messageLength = 100
    nonisolated let loop: any EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
    private var channel: (any Channel)?
    private var waiter: UnsafeContinuation<Void, Never>?
    private var received = 0

    init(loop: any EventLoop) { self.loop = loop }

    func connect(port: Int) async throws {
        let inbound = EchoInbound(self)
        channel = try await ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(inbound)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
    }

    /// Set before closing on purpose, so that the end of the connection is not taken for the server going away.
    private(set) var isClosing = false

    func close() async {
        isClosing = true
        try? await channel?.close()
    }

    fileprivate func received(_ count: Int) {
        received += count
        // TCP may split the echo: the request is answered once all of it is back.
        guard received >= Self.messageLength, let waiter else { return }
        received = 0
        self.waiter = nil
        waiter.resume()
    }

    /// Sends 100 bytes and returns when they are all back; called on the loop, as PairedAccessory.send is there.
    nonisolated(nonsending) func roundTrip() async {
        loop.preconditionInEventLoop()
        await withUnsafeContinuation { waiter in
            // On the loop, the actor's executor: isolated without a hop, as PairedAccessory does it.
            let isolatedStart: (isolated Pinger, UnsafeContinuation<Void, Never>) -> Void = { $0.start($1) }
            unsafeBitCast(isolatedStart, to: ((Pinger, UnsafeContinuation<Void, Never>) -> Void).self)(self, waiter)
        }
    }

    private func start(_ waiter: UnsafeContinuation<Void, Never>) {
        guard let channel else { return waiter.resume() }
        self.waiter = waiter
        channel.writeAndFlush(
            channel.allocator.buffer(repeating: UInt8(ascii: "x"), count: Self.messageLength),
            promise: nil
        )
    }
}

/// Process CPU time, every thread, in nanoseconds.
func cpuNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Monotonic time in nanoseconds.
func wallNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Process CPU and wall nanoseconds of `count` round trips, after 2,000 to warm up, with the caller on the loop.
///
/// A function of its own: code at the top level of main.swift runs on the main actor, and so would this loop.
func measure(_ pinger: Pinger, count: Int) async -> (cpu: UInt64, wall: UInt64) {
    await withTaskExecutorPreference(EventLoopTaskExecutor(pinger.loop)) { () async -> (UInt64, UInt64) in
        for _ in 0..<2_000 { await pinger.roundTrip() }
        let cpu0 = cpuNanoseconds()
        let wall0 = wallNanoseconds()
        for _ in 0..<count { await pinger.roundTrip() }
        return (cpuNanoseconds() - cpu0, wallNanoseconds() - wall0)
    }
}

var port: Int?
var count = 50_000
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--port": port = arguments.next().flatMap { Int($0) }
    case "--count": count = arguments.next().flatMap { Int($0) }.map { max(1, $0) } ?? count
    default:
        FileHandle.standardError.write(Data("NIOFloor: unknown argument \(argument)\n".utf8))
        exit(2)
    }
}
guard let port else {
    FileHandle.standardError.write(Data("usage: NIOFloor --port PORT [--count 50000]\n".utf8))
    exit(2)
}
let loop = MultiThreadedEventLoopGroup.singleton.next()
let pinger = Pinger(loop: loop)
do {
    try await pinger.connect(port: port)
} catch {
    FileHandle.standardError.write(Data("NIOFloor: cannot connect to 127.0.0.1:\(port): \(error)\n".utf8))
    exit(1)
}
let (cpu, wall) = await measure(pinger, count: count)
await pinger.close()
print(
    "{\"nio_floor_cpu_ms_per_round_trip\": \(Double(cpu) / 1e6 / Double(count)), "
        + "\"nio_floor_wall_ms_per_round_trip\": \(Double(wall) / 1e6 / Double(count)), \"nio_floor_n\": \(count)}"
)
