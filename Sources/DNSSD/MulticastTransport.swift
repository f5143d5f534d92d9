import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Why the mDNS responder or browser could not do what it was asked.
public enum MDNSError: Error, Equatable, Sendable {
    /// No interface addresses were given; nothing defaults to all interfaces.
    case noInterfaces
    /// The socket for an interface could not be opened, bound or joined to 224.0.0.251; `errorCode` is errno.
    case socketSetupFailed(interface: IPv4Address, errorCode: Int32)
    /// `register` was called on a responder that already has a service, or after `stop()`.
    case alreadyRegistered
    /// The call needs a registered service and there is none.
    case notRegistered
    /// The service could not be written as a DNS message (a label over 63 bytes, a TXT entry over 255).
    case invalidService(DNSMessageError)
    /// Probing found a conflict more than `MDNSResponder.maximumRenames` times in a row.
    case tooManyConflicts
}

/// One datagram that decoded as a DNS message, with where it came from.
struct ReceivedMessage: Sendable {
    /// The decoded message.
    var message: DNSMessage
    /// The sender's address and port.
    var source: SocketAddress
    /// The interface address of the socket it arrived on.
    var interface: IPv4Address
}

/// UDP sockets for mDNS, one per interface address, each bound to 0.0.0.0:5353.
///
/// Each socket sets SO_REUSEADDR and SO_REUSEPORT (so a responder and a browser in one process, or another
/// mDNS stack, can share port 5353), joins 224.0.0.251 with IP_ADD_MEMBERSHIP on its interface address only,
/// turns IP_MULTICAST_ALL off (so it hears only the groups it joined, on that interface), and sends with
/// IP_MULTICAST_IF set to its interface address, TTL 255 (RFC 6762 §11) and loopback on. IPv4 only.
/// Sockets are created on an event loop thread, so loops whose threads live in a network namespace keep every
/// socket in that namespace.
final class MulticastTransport: Sendable {
    /// The mDNS IPv4 group and port (RFC 6762 §3).
    static let groupAddress = IPv4Address(224, 0, 0, 251)
    /// The mDNS port.
    static let port = 5353

    let channels: [(interface: IPv4Address, channel: any Channel)]
    let incoming: AsyncStream<ReceivedMessage>
    private let continuation: AsyncStream<ReceivedMessage>.Continuation
    private let logger: Logger
    private let groupSocketAddress: SocketAddress

    private init(
        channels: [(IPv4Address, any Channel)],
        groupSocketAddress: SocketAddress,
        incoming: AsyncStream<ReceivedMessage>,
        continuation: AsyncStream<ReceivedMessage>.Continuation,
        logger: Logger
    ) {
        self.channels = channels.map { (interface: $0.0, channel: $0.1) }
        self.incoming = incoming
        self.continuation = continuation
        self.logger = logger
        self.groupSocketAddress = groupSocketAddress
    }

    /// Opens one socket per interface address; closes those already open if one fails.
    static func open(
        interfaces: [IPv4Address],
        group: any EventLoopGroup,
        logger: Logger
    ) async throws(MDNSError) -> MulticastTransport {
        guard !interfaces.isEmpty else { throw .noInterfaces }
        let (incoming, continuation) = AsyncStream.makeStream(
            of: ReceivedMessage.self,
            bufferingPolicy: .bufferingNewest(1024)
        )
        let groupSocketAddress: SocketAddress
        do {
            groupSocketAddress = try SocketAddress(ipAddress: "\(groupAddress)", port: port)
        } catch {
            throw .socketSetupFailed(interface: interfaces[0], errorCode: EINVAL)
        }
        var opened: [(IPv4Address, any Channel)] = []
        for interface in Set(interfaces).sorted(by: { $0.value < $1.value }) {
            do {
                let channel = try await openChannel(
                    interface: interface,
                    loop: group.next(),
                    continuation: continuation,
                    logger: logger
                )
                opened.append((interface, channel))
            } catch {
                for (_, channel) in opened {
                    try? await channel.close()
                }
                continuation.finish()
                let code = (error as? IOError)?.errnoCode ?? 0
                throw .socketSetupFailed(interface: interface, errorCode: code)
            }
        }
        return MulticastTransport(
            channels: opened,
            groupSocketAddress: groupSocketAddress,
            incoming: incoming,
            continuation: continuation,
            logger: logger
        )
    }

    private static func openChannel(
        interface: IPv4Address,
        loop: any EventLoop,
        continuation: AsyncStream<ReceivedMessage>.Continuation,
        logger: Logger
    ) async throws -> any Channel {
        let bindAddress = try SocketAddress(ipAddress: "0.0.0.0", port: port)
        // The socket is made inside the loop: `bind` creates it on the calling thread.
        let channel = try await loop.flatSubmit {
            DatagramBootstrap(group: loop)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            DatagramReceiver(interface: interface, continuation: continuation, logger: logger)
                        )
                    }
                }
                .bind(to: bindAddress)
        }.get()
        do {
            guard let options = channel as? any SocketOptionProvider else {
                throw IOError(errnoCode: EINVAL, reason: "no socket options")
            }
            let interfaceAddress = in_addr(s_addr: interface.value.bigEndian)
            let request = ip_mreq(
                imr_multiaddr: in_addr(s_addr: groupAddress.value.bigEndian),
                imr_interface: interfaceAddress
            )
            try await options.unsafeSetSocketOption(
                level: .ip,
                name: NIOBSDSocket.Option(rawValue: CInt(IP_MULTICAST_ALL)),
                value: CInt(0)
            ).get()
            try await options.unsafeSetSocketOption(level: .ip, name: .ip_add_membership, value: request).get()
            try await options.setIPMulticastIF(interfaceAddress).get()
            try await options.setIPMulticastTTL(255).get()
            try await options.setIPMulticastLoop(1).get()
        } catch {
            try? await channel.close()
            throw error
        }
        return channel
    }

    /// Sends a message to 224.0.0.251:5353 on the given interfaces (every interface of this transport when nil).
    func sendMulticast(_ message: DNSMessage, on interface: IPv4Address? = nil) async {
        guard let bytes = encode(message) else { return }
        for (address, channel) in channels where interface == nil || interface == address {
            await write(bytes, to: groupSocketAddress, on: channel)
        }
    }

    /// Sends a message to one address (a legacy unicast answer, RFC 6762 §6.7) from an interface's socket.
    func sendUnicast(_ message: DNSMessage, to destination: SocketAddress, on interface: IPv4Address) async {
        guard let bytes = encode(message) else { return }
        for (address, channel) in channels where address == interface {
            await write(bytes, to: destination, on: channel)
        }
    }

    /// Closes every socket without waiting, for an owner's `deinit`; goodbyes are not sent.
    func closeWithoutWaiting() {
        for (_, channel) in channels {
            channel.close(promise: nil)
        }
        continuation.finish()
    }

    /// Closes every socket and ends `incoming`.
    func close() async {
        for (_, channel) in channels {
            try? await channel.close()
        }
        continuation.finish()
    }

    private func encode(_ message: DNSMessage) -> [UInt8]? {
        do {
            return try message.encoded()
        } catch {
            logger.warning("mDNS message not sent", metadata: ["error": "\(error)"])
            return nil
        }
    }

    private func write(_ bytes: [UInt8], to destination: SocketAddress, on channel: any Channel) async {
        let envelope = AddressedEnvelope(remoteAddress: destination, data: channel.allocator.buffer(bytes: bytes))
        do {
            try await channel.writeAndFlush(envelope)
        } catch {
            logger.debug("mDNS send failed", metadata: ["error": "\(error)", "to": "\(destination)"])
        }
    }
}

/// Decodes each datagram on its socket's loop and hands it to the owner; malformed ones are dropped.
private final class DatagramReceiver: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    let interface: IPv4Address
    let continuation: AsyncStream<ReceivedMessage>.Continuation
    let logger: Logger

    init(interface: IPv4Address, continuation: AsyncStream<ReceivedMessage>.Continuation, logger: Logger) {
        self.interface = interface
        self.continuation = continuation
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let bytes = Array(envelope.data.readableBytesView)
        do {
            let message = try DNSMessage(bytes: bytes)
            // RFC 6762 §18.3, §18.11: messages with a non-zero opcode or response code are ignored.
            guard message.opcode == 0, message.responseCode == 0 else { return }
            continuation.yield(ReceivedMessage(message: message, source: envelope.remoteAddress, interface: interface))
        } catch {
            logger.trace("malformed mDNS packet dropped", metadata: ["error": "\(error)"])
        }
    }
}

extension MDNSError: CustomStringConvertible {
    /// A sentence for people: what failed and, where it helps, what to do.
    public var description: String {
        switch self {
        case .noInterfaces: "no interface address was given for mDNS"
        case .socketSetupFailed(let interface, let code):
            "the mDNS socket on \(interface) could not be set up (\(String(cString: strerror(code))))"
        case .alreadyRegistered: "a service is already registered"
        case .notRegistered: "no service is registered"
        case .invalidService(let error): "the service cannot be advertised: \(error)"
        case .tooManyConflicts: "another device kept claiming the service's name, even after renaming"
        }
    }
}
