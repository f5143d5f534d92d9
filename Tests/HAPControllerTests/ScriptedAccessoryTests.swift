import Crypto
import Foundation
import HAP
import HAPTypes
import NIOCore
import NIOPosix
import TestFixtures
import Testing

@testable import HAPController

/// A minimal verified accessory built from the HAP core's pieces, which misbehaves as its script says.
///
/// It answers pair-verify for one known controller, then `/accessories` with one lamp (1.10), reads of 1.10 with 1,
/// and subscriptions with 204 followed by the scripted EVENT bodies.
final class ScriptedAccessory: Sendable {
    /// What the accessory does wrong.
    struct Script: Sendable {
        /// Connections (numbered from 0) on which reads are never answered.
        var silentReadsOnConnections: Set<Int> = []
        /// EVENT bodies sent right after a subscription is answered.
        var eventsAfterSubscribe: [String] = []
    }

    static let database = """
        {"accessories":[{"aid":1,"services":[{"iid":1,"type":"3E","characteristics":[\
        {"iid":2,"type":"14","perms":["pw"],"format":"bool"}]},{"iid":9,"type":"43","characteristics":[\
        {"iid":10,"type":"25","perms":["pr","pw","ev"],"format":"bool","value":false}]}]}]}
        """

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let script: Script
        let connectionIndex: Int
        var parser = HTTPRequestParser()
        var verify: PairVerifyAccessory
        var cipher: SessionCipher?

        init(script: Script, connectionIndex: Int, identity: AccessoryIdentity, pairings: PairingTable) {
            self.script = script
            self.connectionIndex = connectionIndex
            verify = PairVerifyAccessory(identity: identity, pairings: pairings)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = Array(unwrapInboundIn(data).readableBytesView)
            if cipher != nil {
                guard let opened = try? cipher?.open(bytes) else {
                    context.close(promise: nil)
                    return
                }
                bytes = opened
            }
            parser.append(bytes)
            while let request = try? parser.nextRequest() { handle(request, context: context) }
        }

        private func handle(_ request: HTTPRequest, context: ChannelHandlerContext) {
            switch (request.method, request.path) {
            case (.post, "/pair-verify"):
                guard let body = try? TLV8(decoding: request.body) else { return context.close(promise: nil) }
                switch verify.receive(body) {
                case .reply(let reply), .replyAndClose(let reply, _):
                    send(HTTPResponse(status: .ok, contentType: .pairingTLV8, body: reply.encoded()), context)
                case .replyAndEncrypt(let reply, let keys, _):
                    send(HTTPResponse(status: .ok, contentType: .pairingTLV8, body: reply.encoded()), context)
                    cipher = SessionCipher(keys: keys, role: .accessory)
                }
            case (.get, "/accessories"):
                send(
                    HTTPResponse(status: .ok, contentType: .hapJSON, body: Array(ScriptedAccessory.database.utf8)),
                    context
                )
            case (.get, "/characteristics"):
                if script.silentReadsOnConnections.contains(connectionIndex) { return }
                let body = #"{"characteristics":[{"aid":1,"iid":10,"value":1}]}"#
                send(HTTPResponse(status: .ok, contentType: .hapJSON, body: Array(body.utf8)), context)
            case (.put, "/characteristics"):
                send(HTTPResponse(status: .noContent), context)
                for event in script.eventsAfterSubscribe { send(HTTPResponse.event(body: Array(event.utf8)), context) }
            default:
                send(HTTPResponse(status: .notFound), context)
            }
        }

        private func send(_ response: HTTPResponse, _ context: ChannelHandlerContext) {
            var bytes = response.encoded()
            if cipher != nil, let sealed = cipher?.seal(bytes) { bytes = sealed }
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        }
    }

    let channel: any Channel
    let counter = MisbehavingServer.Counter()
    let identity = AccessoryIdentity(deviceID: "AA:BB:CC:DD:EE:01", signingKey: Curve25519.Signing.PrivateKey())
    let controller = newIdentity()

    init(_ script: Script) async throws {
        let counter = self.counter
        let identity = self.identity
        let pairings = PairingTable([controller.pairing(isAdmin: true)])
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                let index = counter.next()
                return channel.eventLoop.makeCompletedFuture {
                    let handler = Handler(
                        script: script,
                        connectionIndex: index,
                        identity: identity,
                        pairings: pairings
                    )
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    /// A client of this accessory, paired as ``controller``, with a short request timeout unless told otherwise.
    func client(requestTimeout: Duration = .seconds(3)) -> PairedAccessory {
        let record = PairedAccessoryRecord(
            deviceID: identity.deviceID,
            publicKey: identity.publicKey,
            host: "127.0.0.1",
            port: channel.localAddress?.port ?? 0
        )
        return PairedAccessory(
            record: record,
            identity: controller,
            configuration: PairedAccessory.Configuration(
                timeouts: ConnectionTimeouts(connect: .seconds(5), request: requestTimeout),
                backoff: fastBackoff()
            ),
            logger: quietLogger()
        )
    }

    func stop() async {
        try? await channel.close()
    }
}

@Suite struct ScriptedAccessoryTests {
    let lamp = CharacteristicID(accessoryID: 1, instanceID: 10)

    @Test func aSilentPairedAccessoryTimesOutThenReconnectsAndVerifiesAgain() async throws {
        let accessory = try await ScriptedAccessory(ScriptedAccessory.Script(silentReadsOnConnections: [0]))
        defer { Task { await accessory.stop() } }
        let client = accessory.client()
        let reachability = await Recorder.start(client.reachability)
        _ = try await client.accessories()
        #expect(try await reachability.next() == true)
        await #expect(throws: HAPControllerError.timedOut) { try await client.read([lamp]) }
        #expect(try await reachability.next() == false)
        #expect(try await client.read([lamp])[lamp] == .success(.bool(true)))
        #expect(try await reachability.next() == true)
        #expect(accessory.counter.value.withLock { $0 } == 2)
        await client.close()
    }

    @Test func badEventsOnAVerifiedSessionAreTypedErrorsAndTheSessionGoesOn() async throws {
        let script = ScriptedAccessory.Script(eventsAfterSubscribe: [
            #"{"characteristics":[{"aid":1,"iid":99,"value":1}]}"#,
            "{not json",
            #"{"characteristics":[{"aid":1,"iid":10,"value":1}]}"#,
        ])
        let accessory = try await ScriptedAccessory(script)
        defer { Task { await accessory.stop() } }
        let client = accessory.client()
        let events = await Recorder.start(client.events)
        _ = try await client.accessories()
        #expect(try await client.subscribe([lamp]) == [lamp: .success])
        let unknown = CharacteristicID(accessoryID: 1, instanceID: 99)
        #expect(try await events.next() == .invalidEvent(.unknownCharacteristic(unknown)))
        #expect(try await events.next() == .invalidEvent(.malformedBody))
        #expect(try await events.next() == .valuesChanged([CharacteristicValueChange(id: lamp, value: .bool(true))]))
        #expect(try await client.read([lamp])[lamp] == .success(.bool(true)))
        #expect(accessory.counter.value.withLock { $0 } == 1)
        await client.close()
    }
}
