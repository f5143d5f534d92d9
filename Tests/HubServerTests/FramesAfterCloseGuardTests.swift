import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import HubServer

/// The hub writes live event frames from its own loop; nothing may follow a close frame on the wire.
struct FramesAfterCloseGuardTests {
    private func frame(_ opcode: WebSocketOpcode, _ text: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, data: ByteBuffer(string: text))
    }

    @Test func framesBeforeTheCloseGoOutAndNoneAfterIt() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(FramesAfterCloseGuard())
        try channel.writeOutbound(frame(.text, "event 1"))
        try channel.writeOutbound(frame(.connectionClose, ""))
        for (opcode, text) in [(WebSocketOpcode.text, "event 2"), (.pong, ""), (.connectionClose, "")] {
            let promise = channel.eventLoop.makePromise(of: Void.self)
            channel.writeAndFlush(frame(opcode, text), promise: promise)
            #expect(throws: ChannelError.outputClosed) { try promise.futureResult.wait() }
        }
        let sent = try [channel.readOutbound(as: WebSocketFrame.self), channel.readOutbound(as: WebSocketFrame.self)]
        #expect(sent.map { $0?.opcode } == [.text, .connectionClose])
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        _ = try channel.finish()
    }
}
