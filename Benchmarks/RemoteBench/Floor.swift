// The floor under a new session's own cost: what a connection costs each side on this machine with no pair-verify.
// A child copy of this program (`--floor-server`) serves SwiftNIO's bare TCP on loopback: it answers each message
// with the size of pair-verify's answer (M2, then M4) and closes after the second, as hearthd's secure listener does
// without its handshake, HTTP or cipher. The client connects, sends M1 and M3 with a blocking socket and waits for
// the close. Subtracted from "session − request", what is left is pair-verify's own work and the hub's connection
// pipeline.
import Foundation
import NIOCore
import NIOPosix

/// About the sizes of pair-verify's messages in bytes as they cross the wire (TLV8 in HTTP, as HAP sends them).
enum FloorMessages {
    static let m1 = 150
    static let m2 = 235
    static let m3 = 235
    static let m4 = 85
}

/// Answers M1 with an M2-sized message and M3 with an M4-sized one, then closes (the floor server's handler).
final class FloorAnswerer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private var received = 0
    private var answered = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        if answered == 0, received >= FloorMessages.m1 {
            answered = 1
            received -= FloorMessages.m1
            let answer = context.channel.allocator.buffer(repeating: 2, count: FloorMessages.m2)
            context.writeAndFlush(wrapOutboundOut(answer), promise: nil)
        }
        if answered == 1, received >= FloorMessages.m3 {
            answered = 2
            let answer = context.channel.allocator.buffer(repeating: 4, count: FloorMessages.m4)
            context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in context.close(promise: nil) }
        }
    }
}

/// Runs the floor server on 127.0.0.1: prints `{"port": N}`, serves until standard input closes.
func serveFloor() throws -> Never {
    let server = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(FloorAnswerer())
            }
        }
        .bind(host: "127.0.0.1", port: 0).wait()
    FileHandle.standardOutput.write(Data("{\"port\": \(server.localAddress?.port ?? 0)}\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    exit(0)
}

/// Starts the floor server as a child of this program, measures `sessions` connections against it; stops it.
func floorRow(sessions: Int) async throws -> Phase {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--floor-server"]
    let output = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    try process.run()
    defer {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
    let port = try listeningPort(output, name: "the floor server")
    let m1 = [UInt8](repeating: 1, count: FloorMessages.m1)
    let m3 = [UInt8](repeating: 3, count: FloorMessages.m3)
    func session() throws {
        let connection = try BlockingConnection(port: port)
        try connection.sendAll(m1)
        try connection.receiveExactly(FloorMessages.m2)
        try connection.sendAll(m3)
        try connection.receiveExactly(FloorMessages.m4)
        guard try connection.receiveEnd() else { throw BenchFailure("the floor server sent more than M4") }
    }
    for _ in 0..<20 { try session() }
    return try await measure(
        "floor: bare NIO connection, M1/M2 and M3/M4 sizes, close (no crypto)",
        count: sessions,
        hub: process.processIdentifier
    ) { _ in try session() }
}

extension BlockingConnection {
    /// Sends all of `bytes`.
    func sendAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchFailure("send failed") }
            sent += count
        }
    }

    /// Reads exactly `count` bytes.
    func receiveExactly(_ count: Int) throws {
        var buffer = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            let read = buffer[received...].withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard read > 0 else { throw BenchFailure("the connection closed early") }
            received += read
        }
    }

    /// Whether the peer closed with nothing more to read.
    func receiveEnd() throws -> Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, 0) == 0
    }
}
