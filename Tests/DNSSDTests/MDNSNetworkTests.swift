import Foundation
import Logging
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import DNSSD

/// Responder and browser on real sockets, always inside network namespaces these tests create.
@Suite(.enabled(if: NetworkNamespace.isAvailable, NetworkNamespace.skipReason))
struct MDNSNetworkTests {
    static let loopback = IPv4Address(127, 0, 0, 1)

    static func bridge(
        name: String = "Hearth Bridge 1A2B",
        port: UInt16 = 51826,
        address: IPv4Address
    ) -> ServiceInstance {
        ServiceInstance(
            name: name,
            hostName: "Hearth-1A2B-\(port)",
            port: port,
            txt: [
                ("c#", "1"), ("ff", "0"), ("id", "1A:2B:3C:4D:5E:6F"), ("md", "Hearth Bridge"), ("pv", "1.1"),
                ("s#", "1"), ("sf", "1"), ("ci", "2"), ("sh", "yf4bzw=="),
            ],
            addresses: [address]
        )
    }

    /// A started browser on `interface`, with a task that keeps each of its events in `log` (cancel it when done).
    static func browsing(
        on interface: IPv4Address,
        group: any EventLoopGroup
    ) async throws -> (browser: MDNSBrowser, log: EventLog, collector: Task<Void, Never>) {
        let browser = MDNSBrowser(interfaces: [interface], group: group)
        try await browser.start()
        let log = EventLog()
        let collector = Task { for await event in browser.events { await log.append(event) } }
        return (browser, log, collector)
    }

    static func isAdded(_ event: BrowseEvent) -> Bool {
        if case .added = event { return true }
        return false
    }

    @Test func browserResolvesThenSeesTheTXTUpdateAndTheGoodbye() async throws {
        try await withLoopbackNamespace { _, group in
            let (browser, log, collector) = try await Self.browsing(on: Self.loopback, group: group)
            defer { collector.cancel() }
            let responder = MDNSResponder(interfaces: [Self.loopback], group: group)
            let registered = try await responder.register(Self.bridge(address: Self.loopback))
            #expect(registered.name == "Hearth Bridge 1A2B")

            let added = try #require(await log.first(where: Self.isAdded))
            let expected = ResolvedService(
                name: "Hearth Bridge 1A2B",
                type: "_hap._tcp",
                hostName: "Hearth-1A2B-51826.local.",
                port: 51826,
                addresses: [Self.loopback],
                txt: [
                    "c#": "1", "ff": "0", "id": "1A:2B:3C:4D:5E:6F", "md": "Hearth Bridge", "pv": "1.1", "s#": "1",
                    "sf": "1", "ci": "2", "sh": "yf4bzw==",
                ]
            )
            #expect(added == .added(expected))

            var changed = registered.txt
            changed[0].value = "2"
            changed[6].value = "0"
            try await responder.updateTXT(changed)
            let updated = await log.first { event in
                if case .updated(let service) = event { return service.txt["c#"] == "2" }
                return false
            }
            var expectedUpdate = expected
            expectedUpdate.txt["c#"] = "2"
            expectedUpdate.txt["sf"] = "0"
            #expect(updated == .updated(expectedUpdate))

            await responder.stop()
            let removed = await log.first { $0 == .removed("Hearth Bridge 1A2B") }
            #expect(removed != nil)
            await browser.stop()
        }
    }

    @Test func aSecondResponderWithTheSameNameIsRenamed() async throws {
        try await withLoopbackNamespace { _, group in
            let first = MDNSResponder(interfaces: [Self.loopback], group: group)
            let second = MDNSResponder(interfaces: [Self.loopback], group: group)
            let winner = try await first.register(Self.bridge(port: 1111, address: Self.loopback))
            let renamed = try await second.register(Self.bridge(port: 2222, address: Self.loopback))
            #expect(winner.name == "Hearth Bridge 1A2B")
            #expect(renamed.name == "Hearth Bridge 1A2B (2)")
            await first.stop()
            await second.stop()
        }
    }

    /// Sends, from port 5353, announcements of the bridge's name with other data, `count` times `interval` apart.
    static func claimTheName(count: Int, interval: Duration, group: any EventLoopGroup) async throws {
        let rogue = try await MulticastTransport.open(
            interfaces: [loopback],
            group: group,
            logger: Logger(label: "test.rogue")
        )
        let records = ServiceRecords(service: bridge(port: 2222, address: loopback)).allRecords
        for _ in 0..<count {
            await rogue.sendMulticast(ServiceRecords.announcement(records))
            try await Task.sleep(for: interval)
        }
        await rogue.close()
    }

    /// Waits up to `timeout` for the responder's advertised name to become `name`.
    static func waitForName(_ name: String, of responder: MDNSResponder, timeout: Duration) async -> Bool {
        await eventually(timeout: timeout, every: .milliseconds(50)) { await responder.service?.name == name }
    }

    @Test func aConflictAfterAnnouncingThatIsDefendedRenamesTheService() async throws {
        try await withLoopbackNamespace { _, group in
            let responder = MDNSResponder(interfaces: [Self.loopback], group: group)
            let won = try await responder.register(Self.bridge(port: 1111, address: Self.loopback))
            #expect(won.name == "Hearth Bridge 1A2B")
            // The other side keeps claiming the name through the re-probe (3 probes, 250 ms apart).
            try await Self.claimTheName(count: 30, interval: .milliseconds(100), group: group)
            #expect(await Self.waitForName("Hearth Bridge 1A2B (2)", of: responder, timeout: .seconds(20)))
            await responder.stop()
        }
    }

    @Test func aConflictAfterAnnouncingThatNobodyDefendsKeepsTheName() async throws {
        try await withLoopbackNamespace { _, group in
            let responder = MDNSResponder(interfaces: [Self.loopback], group: group)
            _ = try await responder.register(Self.bridge(port: 1111, address: Self.loopback))
            try await Self.claimTheName(count: 1, interval: .milliseconds(1), group: group)
            // Long enough for the re-probe to start; then it must end announced, the name unchanged. (A second
            // responder that probed while this one still probed could win the tie-break and take the name.)
            try await Task.sleep(for: .seconds(2))
            let kept = await eventually(timeout: .seconds(20), every: .milliseconds(50)) {
                await responder.isAnnounced
            }
            let name = await responder.service?.name
            #expect(kept && name == "Hearth Bridge 1A2B")
            // It answers again once announced: a second responder with the same name is renamed.
            let second = MDNSResponder(interfaces: [Self.loopback], group: group)
            let renamed = try await second.register(Self.bridge(port: 3333, address: Self.loopback))
            #expect(renamed.name == "Hearth Bridge 1A2B (2)")
            await second.stop()
            await responder.stop()
        }
    }

    /// How long a responder listens to its own traffic in the tests below: past its second announcement (1 s).
    static let ownTrafficWindow = Duration.milliseconds(2500)

    @Test("a responder alone hears its own announcements and answers, and sees no conflict (issue 20)")
    func aResponderAloneSeesNoConflict() async throws {
        try await withLoopbackNamespace { _, group in
            let logs = CapturedLogs()
            let responder = MDNSResponder(interfaces: [Self.loopback], group: group, logger: logs.logger())
            let registered = try await responder.register(Self.bridge(address: Self.loopback))
            // hearth-sim updates the TXT record (c#) right after registering when its database changed at start:
            // the first announcement, with the old TXT, comes back after the update.
            var changed = registered.txt
            changed[0].value = "2"
            try await responder.updateTXT(changed)
            // Its own answers to a browser's queries come back too.
            let browser = MDNSBrowser(interfaces: [Self.loopback], group: group)
            try await browser.start()
            try await Task.sleep(for: Self.ownTrafficWindow)
            #expect(!logs.messages.contains { $0.contains("conflict") }, "\(logs.messages)")
            #expect(await responder.service?.name == "Hearth Bridge 1A2B")
            await browser.stop()
            await responder.stop()
        }
    }

    @Test("a responder over veth with two interfaces sees no conflict from its own packets")
    func aResponderOnTwoInterfacesSeesNoConflict() async throws {
        try await withVethNamespaces { _, accessoryGroup, _, _ in
            let address = try #require(IPv4Address("\(NetworkNamespace.subnet).1"))
            let logs = CapturedLogs()
            let responder = MDNSResponder(
                interfaces: [address, Self.loopback],
                group: accessoryGroup,
                logger: logs.logger()
            )
            var service = Self.bridge(address: address)
            service.addresses = [address, Self.loopback]
            _ = try await responder.register(service)
            try await Task.sleep(for: Self.ownTrafficWindow)
            #expect(!logs.messages.contains { $0.contains("conflict") }, "\(logs.messages)")
            await responder.stop()
        }
    }

    @Test("another responder's record with other data under our name is still a conflict")
    func aRealConflictIsStillLogged() async throws {
        try await withLoopbackNamespace { _, group in
            let logs = CapturedLogs()
            let responder = MDNSResponder(interfaces: [Self.loopback], group: group, logger: logs.logger())
            _ = try await responder.register(Self.bridge(port: 1111, address: Self.loopback))
            try await Self.claimTheName(count: 1, interval: .milliseconds(1), group: group)
            try await Task.sleep(for: .seconds(1))
            #expect(logs.messages.contains("mDNS conflict after announcing; probing again"), "\(logs.messages)")
            await responder.stop()
        }
    }

    @Test("a TXT update while probing again after a conflict is announced once the name is won")
    func anUpdateDuringAReprobeIsNotLost() async throws {
        try await withLoopbackNamespace { _, group in
            let (browser, log, collector) = try await Self.browsing(on: Self.loopback, group: group)
            defer { collector.cancel() }
            let logs = CapturedLogs()
            let responder = MDNSResponder(interfaces: [Self.loopback], group: group, logger: logs.logger())
            let registered = try await responder.register(Self.bridge(port: 1111, address: Self.loopback))
            _ = try #require(await log.first(where: Self.isAdded))
            try await Self.claimTheName(count: 1, interval: .milliseconds(1), group: group)
            let reprobing = await eventually(timeout: .seconds(5)) {
                logs.messages.contains("mDNS conflict after announcing; probing again")
            }
            #expect(reprobing, "\(logs.messages)")
            // The re-probe takes three probes 250 ms apart: this update comes in the middle of it.
            var changed = registered.txt
            changed[0].value = "7"
            try await responder.updateTXT(changed)
            let updated = await log.first(within: .seconds(15)) { event in
                if case .updated(let service) = event { return service.txt["c#"] == "7" && service.port == 1111 }
                return false
            }
            #expect(updated != nil)
            #expect(await responder.service?.txt.first { $0.key == "c#" }?.value == "7")
            await browser.stop()
            await responder.stop()
        }
    }

    @Test func aRawLegacyQueryGetsAUnicastAnswer() async throws {
        try await withLoopbackNamespace { _, group in
            let responder = MDNSResponder(interfaces: [Self.loopback], group: group)
            _ = try await responder.register(Self.bridge(address: Self.loopback))
            let (replies, continuation) = AsyncStream.makeStream(of: [UInt8].self)
            let loop = group.next()
            let channel = try await loop.flatSubmit {
                DatagramBootstrap(group: loop)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(ReplyCollector(continuation: continuation))
                        }
                    }
                    .bind(host: "127.0.0.1", port: 0)
            }.get()
            let query = DNSMessage(id: 0x4A4B, questions: [DNSQuestion(name: DNSName("_hap._tcp.local"), type: .ptr)])
            let destination = try SocketAddress(ipAddress: "224.0.0.251", port: 5353)
            let buffer = channel.allocator.buffer(bytes: try query.encoded())
            try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: destination, data: buffer))

            let reply = try await withThrowingTaskGroup(of: [UInt8]?.self) { tasks in
                tasks.addTask { await replies.first { _ in true } }
                tasks.addTask {
                    try await Task.sleep(for: .seconds(5))
                    return nil
                }
                defer { tasks.cancelAll() }
                return try await tasks.next() ?? nil
            }
            let message = try DNSMessage(bytes: try #require(reply))
            #expect(message.id == 0x4A4B)
            #expect(message.isResponse)
            #expect(message.questions == query.questions)
            #expect(message.answers.map(\.data) == [.ptr(DNSName("Hearth Bridge 1A2B._hap._tcp.local"))])
            #expect(message.allRecords.allSatisfy { $0.ttl <= 10 && !$0.isCacheFlush })
            try await channel.close()
            await responder.stop()
        }
    }

    @Test func aBrowserInAnotherNamespaceResolvesOverVeth() async throws {
        try await withVethNamespaces { _, accessoryGroup, _, controllerGroup in
            let accessoryAddress = try #require(IPv4Address("\(NetworkNamespace.subnet).1"))
            let controllerAddress = try #require(IPv4Address("\(NetworkNamespace.subnet).2"))
            let responder = MDNSResponder(interfaces: [accessoryAddress], group: accessoryGroup)
            _ = try await responder.register(Self.bridge(address: accessoryAddress))
            let (browser, log, collector) = try await Self.browsing(on: controllerAddress, group: controllerGroup)
            defer { collector.cancel() }
            let added = await log.first(where: Self.isAdded)
            guard case .added(let service)? = added else {
                Issue.record("no service found over veth")
                return
            }
            #expect(service.addresses == [accessoryAddress])
            #expect(service.txt["id"] == "1A:2B:3C:4D:5E:6F")
            await responder.stop()
            #expect(await log.first { $0 == .removed("Hearth Bridge 1A2B") } != nil)
            await browser.stop()
        }
    }
}

/// Hands every datagram's bytes to the test.
private final class ReplyCollector: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let continuation: AsyncStream<[UInt8]>.Continuation

    init(continuation: AsyncStream<[UInt8]>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(Array(unwrapInboundIn(data).data.readableBytesView))
    }
}
