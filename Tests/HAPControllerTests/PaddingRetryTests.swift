import HAP
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import HAPController

/// An accessory that runs pair-setup only as far as M4, which always refuses the proof with Authentication.
///
/// Its M2 carries the B it is given, and it counts the M3s it refused (the tries a real accessory would count).
final class RefusingPairSetupAccessory: Sendable {
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let serverPublicKey: [UInt8]
        let refusals: MisbehavingServer.Counter
        var parser = HTTPRequestParser()

        init(serverPublicKey: [UInt8], refusals: MisbehavingServer.Counter) {
            self.serverPublicKey = serverPublicKey
            self.refusals = refusals
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            parser.append(Array(unwrapInboundIn(data).readableBytesView))
            while let request = try? parser.nextRequest() {
                guard let body = try? TLV8(decoding: request.body), let state = body[.state]?.first else {
                    context.close(promise: nil)
                    return
                }
                var reply = TLV8()
                if state == 1 {
                    reply.append(.state, byte: 2)
                    reply.append(.salt, Array(1...16))
                    reply.append(.publicKey, serverPublicKey)
                } else {
                    _ = refusals.next()
                    reply.append(.state, byte: 4)
                    reply.append(.error, byte: PairingError.authentication.tlvErrorCode)
                }
                let response = HTTPResponse(status: .ok, contentType: .pairingTLV8, body: reply.encoded())
                context.writeAndFlush(
                    wrapOutboundOut(context.channel.allocator.buffer(bytes: response.encoded())),
                    promise: nil
                )
            }
        }
    }

    let channel: any Channel
    let refusals = MisbehavingServer.Counter()

    init(serverPublicKey: [UInt8]) async throws {
        let refusals = self.refusals
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(serverPublicKey: serverPublicKey, refusals: refusals)
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    var port: Int { channel.localAddress?.port ?? 0 }

    func stop() async {
        try? await channel.close()
    }
}

/// Over a socket: Authentication at M4 is retried once only when SRP padding could explain it (issue 20).
@Suite struct PaddingRetryTests {
    /// 0x00 0x01 0x02 …: a B below N with a leading zero byte.
    static let paddedShortB = [0] + (1..<384).map { UInt8(truncatingIfNeeded: $0) }
    /// 0x07 0x0E 0x15 …: a full-length B below N.
    static let fullB = (1...384).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    static func pair(_ accessory: RefusingPairSetupAccessory) async -> (HAPControllerError?, attempts: Int?) {
        do {
            let result = try await AccessoryPairingClient(logger: quietLogger()).pairSetupAttempts(
                host: "127.0.0.1",
                port: accessory.port,
                setupCode: try SetupCode("111-22-333"),
                identity: newIdentity()
            )
            return (nil, result.attempts)
        } catch let error as HAPControllerError {
            return (error, nil)
        } catch {
            return (nil, nil)
        }
    }

    @Test("a B with a leading zero byte, sent padded or trimmed: one retry, then a wrong code")
    func aLeadingZeroInBIsRetriedOnce() async throws {
        for serverPublicKey in [Self.paddedShortB, Array(Self.paddedShortB.dropFirst())] {
            let accessory = try await RefusingPairSetupAccessory(serverPublicKey: serverPublicKey)
            let (error, _) = await Self.pair(accessory)
            #expect(error == .wrongSetupCode)
            #expect(accessory.refusals.value.withLock { $0 } == 2)
            await accessory.stop()
        }
    }

    @Test("a full-length B: the wrong code is reported after one try")
    func aFullLengthBIsNotRetried() async throws {
        let accessory = try await RefusingPairSetupAccessory(serverPublicKey: Self.fullB)
        let (error, _) = await Self.pair(accessory)
        #expect(error == .wrongSetupCode)
        #expect(accessory.refusals.value.withLock { $0 } == 1)
        await accessory.stop()
    }
}
