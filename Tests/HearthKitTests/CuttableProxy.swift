import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on loopback whose connections the test can cut, to drop a client's WebSocket as a network would.
///
/// While cut, it closes every open connection and every new one at once; `restore()` forwards again.
final class CuttableProxy: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let server: any Channel
    private let state: State

    private final class State: Sendable {
        let isCut = Mutex(false)
        let open = Mutex<[ObjectIdentifier: any Channel]>([:])
    }

    /// The proxy's own port on 127.0.0.1.
    var port: Int { server.localAddress?.port ?? 0 }

    /// Starts a proxy to `127.0.0.1:targetPort`.
    init(targetPort: Int) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = State()
        self.group = group
        self.state = state
        server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                if state.isCut.withLock({ $0 }) { return inbound.close() }
                return ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMap { outbound in
                        let (a, b) = GlueHandler.matchedPair()
                        state.open.withLock {
                            $0[ObjectIdentifier(inbound)] = inbound
                            $0[ObjectIdentifier(outbound)] = outbound
                        }
                        let forget: @Sendable (any Channel) -> Void = { channel in
                            _ = state.open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
                        }
                        inbound.closeFuture.whenComplete { _ in forget(inbound) }
                        outbound.closeFuture.whenComplete { _ in forget(outbound) }
                        return inbound.pipeline.addHandler(a).and(outbound.pipeline.addHandler(b)).map { _ in }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Drops every connection now and refuses new ones until `restore()`.
    func cut() async {
        state.isCut.withLock { $0 = true }
        let channels = state.open.withLock { Array($0.values) }
        for channel in channels { try? await channel.close() }
    }

    /// Forwards new connections again.
    func restore() {
        state.isCut.withLock { $0 = false }
    }

    /// Stops the proxy.
    func stop() async {
        await cut()
        try? await server.close()
        try? await group.shutdownGracefully()
    }
}

/// Copies bytes between two channels, each end reading only when the other can write (from NIO's examples).
final class GlueHandler: ChannelDuplexHandler, @unchecked Sendable {
    // @unchecked: used only on its channel's event loop.
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: GlueHandler?
    private var context: ChannelHandlerContext?
    private var pendingRead = false

    static func matchedPair() -> (GlueHandler, GlueHandler) {
        let first = GlueHandler()
        let second = GlueHandler()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    private func partnerWrite(_ data: NIOAny) { context?.write(data, promise: nil) }
    private func partnerFlush() { context?.flush() }
    private func partnerWriteEOF() { context?.close(mode: .output, promise: nil) }
    private func partnerCloseFull() { context?.close(promise: nil) }
    private func partnerBecameWritable() {
        if pendingRead {
            pendingRead = false
            context?.read()
        }
    }
    private var partnerWritable: Bool { context?.channel.isWritable ?? false }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { partner?.partnerWrite(data) }
    func channelReadComplete(context: ChannelHandlerContext) { partner?.partnerFlush() }
    func channelInactive(context: ChannelHandlerContext) { partner?.partnerCloseFull() }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event { partner?.partnerWriteEOF() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { partner?.partnerCloseFull() }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
    }

    func read(context: ChannelHandlerContext) {
        if let partner, partner.partnerWritable {
            context.read()
        } else {
            pendingRead = true
        }
    }
}
