import ByteStreams
import Crypto
import Foundation
import HAP
import HearthAPI
import NIOCore
import NIOPosix
import Relay

/// Pairing with a hub and opening verified sessions to its secure listener (docs/remote-access.md).
public enum SecureHub {
    /// Pairs a new client identity with the hub at `address` (`host:port`) using a one-time `code` (an invite code
    /// with `name` for the new account, the owner's setup code, or a pairing code); returns what to store.
    public static func pair(
        address: String,
        code: String,
        name: String? = nil
    ) async throws(HearthError) -> SecureClientConfiguration {
        try await pair(address: address, relay: nil, route: nil, code: code, name: name)
    }

    /// Pairs like ``pair(address:code:name:)``, at the secure `address` or, when `relay` (a `ws://` or `wss://` URL)
    /// and the home's `route` are given, through that relay (then `address` may be empty); the stored
    /// configuration keeps the relay and the routing id, so later sessions can take either way.
    ///
    /// `relayCertificates` (PEM) are trusted for a `wss://` relay instead of the system's authorities.
    public static func pair(
        address: String,
        relay: String?,
        route: String?,
        code: String,
        name: String? = nil,
        relayCertificates: String? = nil
    ) async throws(HearthError) -> SecureClientConfiguration {
        let clientID = UUID().uuidString
        let key = Curve25519.Signing.PrivateKey()
        var secure = SecureClientConfiguration(
            address: address,
            hubPublicKey: "",
            clientID: clientID,
            clientKey: key.rawRepresentation.base64EncodedString()
        )
        secure.relay = relay
        secure.route = route
        secure.relayCertificates = relayCertificates
        if relay == nil, secure.hostAndPort == nil {
            throw .invalidRequest("the hub's secure address '\(address)' is not host:port")
        }
        if let relay, let problem = RelayURL.problem(relay) { throw .invalidRequest("the relay \(relay): \(problem)") }
        if relay != nil, secure.hostAndPort == nil, route.flatMap(RouteID.init) == nil {
            throw .invalidRequest("the routing id '\(route ?? "")' is not 32 lowercase hexadecimal digits")
        }
        // Pair-setup's exchanges continue on the connection's event loop, as a session's do: each answer is read
        // where it arrived instead of waking a thread of the pool.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        return try await withTaskExecutorPreference(LoopExecutor(loop)) { () async throws(HearthError) in
            try await setUp(secure, code: code, name: name, key: key, on: loop)
        }
    }

    /// Pair-setup for the new client in `secure` with `key`, over a connection on `loop`; `secure` with the hub's
    /// key and routing id.
    private static func setUp(
        _ secure: SecureClientConfiguration,
        code: String,
        name: String?,
        key: Curve25519.Signing.PrivateKey,
        on loop: any EventLoop
    ) async throws(HearthError) -> SecureClientConfiguration {
        var secure = secure
        let address = secure.address
        let clientID = secure.clientID
        let connection = try await connect(secure, directOnly: false, quick: secure.relay != nil, on: loop)
        defer { connection.close() }
        var exchange = Exchange(connection: connection)
        var machine = PairSetupController(
            setupCode: HubPairingTLV.normalized(code),
            identity: ControllerIdentity(pairingID: clientID, signingKey: key),
            // An invite's account name goes inside the encrypted M5 sub-TLV, out of a relay's sight.
            additionalM5Items: name.map { [TLV8.Item(TLV8.Tag(rawValue: HubPairingTLV.name), Array($0.utf8))] } ?? []
        )
        var request = machine.start()
        request.append(TLV8.Tag(rawValue: HubPairingTLV.codeID), Array(HubPairingTLV.codeID(of: code).utf8))
        while true {
            let reply = try await exchange.send("/pair-setup", request, address: address)
            do {
                switch try machine.receive(reply) {
                case .send(let next):
                    request = next
                case .paired(let hub):
                    // The hub's pairing identifier is its routing id: derived from its key, so it cannot lie about it.
                    guard hub.deviceID == routingID(of: hub.publicKey) else {
                        throw HearthError.pairingFailed("the hub's identity does not match its key")
                    }
                    guard secure.route == nil || secure.route == hub.deviceID else {
                        throw HearthError.pairingFailed("the hub's identity does not match the routing id")
                    }
                    secure.hubPublicKey = hex(hub.publicKey)
                    secure.route = hub.deviceID
                    return secure
                case .transient:
                    throw HearthError.pairingFailed("the hub answered with a transient session")
                }
            } catch let failure as PairingFailure {
                throw HearthError.pairingFailed(Self.sentence(for: failure, setup: true))
            } catch let error as HearthError {
                throw error
            } catch {
                throw HearthError.pairingFailed("\(error)")
            }
        }
    }

    /// A client's stored keys, parsed once: the signing key (parsing derives its public key) and the hub's pinned
    /// key with its routing id.
    struct ClientKeys: Sendable {
        /// This client as pair-verify's controller.
        let controller: ControllerIdentity
        /// The hub as paired with.
        let hub: AccessoryPairing

        /// Reads the keys of `secure`.
        init(_ secure: SecureClientConfiguration) throws(HearthError) {
            guard let keyData = Data(base64Encoded: secure.clientKey),
                let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: keyData),
                let hubKey = SecureHub.bytes(hex: secure.hubPublicKey), hubKey.count == 32
            else {
                throw .invalidRequest("the client configuration's secure keys could not be read")
            }
            controller = ControllerIdentity(pairingID: secure.clientID, signingKey: key)
            hub = AccessoryPairing(deviceID: SecureHub.routingID(of: hubKey), publicKey: hubKey)
        }
    }

    /// Opens a verified session: a connection to the hub's secure listener and its session keys.
    ///
    /// Runs pair-verify with the stored keys (`keys` when already parsed), checking the pinned hub key. The
    /// connection is on `group` (a tunnel passes its local connection's loop, so a session's bytes stay on one
    /// thread).
    static func openSession(
        _ secure: SecureClientConfiguration,
        keys parsed: ClientKeys? = nil,
        on group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(HearthError) -> (ByteConnection, SessionKeys) {
        let keys: ClientKeys
        if let parsed { keys = parsed } else { keys = try ClientKeys(secure) }
        // The direct way first when there is one; a relay when it does not answer (or drops the handshake).
        if secure.hostAndPort != nil {
            do throws(HearthError) {
                let connection = try await connect(
                    secure,
                    directOnly: true,
                    quick: secure.relayRoute != nil,
                    on: group
                )
                return try await verify(secure, over: connection, keys: keys)
            } catch  where error.code == "unreachable" && secure.relayRoute != nil {}
        }
        let connection = try await connect(secure, directOnly: false, quick: false, skipDirect: true, on: group)
        return try await verify(secure, over: connection, keys: keys)
    }

    /// Runs pair-verify over `connection` (closed when it fails).
    static func verify(
        _ secure: SecureClientConfiguration,
        over connection: ByteConnection,
        keys: ClientKeys
    ) async throws(HearthError) -> (ByteConnection, SessionKeys) {
        var exchange = Exchange(connection: connection)
        var machine = PairVerifyController(identity: keys.controller, accessory: keys.hub)
        var request = machine.start()
        do throws(HearthError) {
            while true {
                let reply = try await exchange.send("/pair-verify", request, address: secure.address)
                do throws(PairingFailure) {
                    switch try machine.receive(reply) {
                    case .send(let next): request = next
                    case .established(let keys): return (connection, keys)
                    }
                } catch {
                    throw HearthError.pairingFailed(Self.sentence(for: error, setup: false))
                }
            }
        } catch {
            connection.close()
            throw error
        }
    }

    /// How long a direct connection to the secure address may take before the relay is tried.
    static let directConnectTimeout: TimeAmount = .milliseconds(800)

    /// A byte stream to the hub's secure listener: directly when the address answers within
    /// ``directConnectTimeout``, else through the configured relay (a local ``ClientForwarder`` stream).
    static func connect(
        _ secure: SecureClientConfiguration,
        directOnly: Bool,
        quick: Bool,
        skipDirect: Bool = false,
        on group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(HearthError) -> ByteConnection {
        var directFailure: String?
        if !skipDirect, let (host, port) = secure.hostAndPort {
            do {
                return try await connectTCP(
                    host: host,
                    port: port,
                    timeout: quick ? directConnectTimeout : .seconds(10),
                    on: group
                )
            } catch {
                directFailure = HearthClient.describe(error)
            }
        }
        guard !directOnly, let (relay, route) = secure.relayRoute, let routeID = RouteID(route) else {
            if let directFailure { throw .unreachable(secure.address, directFailure) }
            throw .invalidRequest("the hub's secure address '\(secure.address)' is not host:port")
        }
        do {
            let port = try await RelayForwarders.shared.port(
                relay: relay,
                route: routeID,
                certificates: secure.relayCertificates
            )
            return try await connectTCP(host: "127.0.0.1", port: port, timeout: .seconds(10), on: group)
        } catch let failure as RelayTrust.Failure {
            throw .invalidRequest(failure.description)
        } catch {
            throw .unreachable(relay, "the relay could not be reached (\(HearthClient.describe(error)))")
        }
    }

    /// Connects to `host:port` on `group`, as ``ByteConnection/connect(host:port:timeout:)`` does on the
    /// process's loops; an IP address is connected to as it is, without a name look-up (`getaddrinfo`).
    static func connectTCP(
        host: String,
        port: Int,
        timeout: TimeAmount,
        on group: any EventLoopGroup
    ) async throws -> ByteConnection {
        let bootstrap = ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(timeout)
        @Sendable func wrap(_ channel: any Channel) -> EventLoopFuture<ByteConnection> {
            channel.eventLoop.makeCompletedFuture { try ByteConnection.wrap(channel) }
        }
        if let address = try? SocketAddress(ipAddress: host, port: port) {
            return try await bootstrap.connect(to: address, channelInitializer: wrap)
        }
        return try await bootstrap.connect(host: host, port: port, channelInitializer: wrap)
    }

    /// A sentence for a failed pair-setup or pair-verify.
    static func sentence(for failure: PairingFailure, setup: Bool) -> String {
        switch failure {
        case .accessoryRefused(.maxTries, _):
            return "the hub refuses pairing after too many wrong codes; its owner resets the count over loopback "
                + "with POST /v1/hub/pairing-attempts/reset"
        case .accessoryRefused(.authentication, _) where setup:
            return "the hub refused the code: it is wrong, expired or used"
        case .accessoryRefused(.authentication, _):
            return "the hub does not know this client (its pairing was removed); pair again with a new code"
        case .accessoryRefused(.unknown, 6) where setup:
            return "the hub refused the pairing: an invite code needs a valid name for the new account"
        case .invalidSignature, .unexpectedAccessory, .invalidAccessoryProof, .decryptionFailed:
            return "the hub could not prove its identity (not the hub paired with, or a wrong code)"
        default:
            return failure.description
        }
    }

    /// One HTTP exchange of the handshake in clear.
    struct Exchange {
        let connection: ByteConnection
        var iterator: ByteConnection.Received.AsyncIterator
        var parser = HTTPResponseParser(maximumHeadLength: 4096, maximumBodyLength: 16384)

        init(connection: ByteConnection) {
            self.connection = connection
            iterator = connection.received.makeAsyncIterator()
        }

        /// How long the hub has to answer one step of the handshake; then the connection is closed.
        ///
        /// A relay stream that never opens (its WebSocket stuck in the upgrade) would otherwise hold the handshake
        /// for ever.
        static let answerTimeout: TimeAmount = .seconds(15)

        /// Posts `body` to `path` and returns the TLV8 answer.
        mutating func send(_ path: String, _ body: TLV8, address: String) async throws(HearthError) -> TLV8 {
            let connection = connection
            let started = ContinuousClock.now
            let timer = connection.channel.eventLoop.scheduleTask(in: Self.answerTimeout) { connection.close() }
            defer { timer.cancel() }
            do {
                return try await post(path, body, address: address)
            } catch {
                guard ContinuousClock.now - started >= .nanoseconds(Self.answerTimeout.nanoseconds) else { throw error }
                throw .unreachable(address, "the hub did not answer \(path) within 15 seconds")
            }
        }

        private mutating func post(_ path: String, _ body: TLV8, address: String) async throws(HearthError) -> TLV8 {
            let request = HAP.HTTPRequest(
                method: .post,
                target: path,
                headers: ["Host": address, "Content-Type": HTTPContentType.pairingTLV8.rawValue],
                body: body.encoded()
            )
            do {
                try await connection.write(request.encoded())
            } catch {
                throw .unreachable(address, HearthClient.describe(error))
            }
            while true {
                do {
                    if let response = try parser.nextResponse() {
                        guard response.status.code == 200, let tlv = try? TLV8(decoding: response.body) else {
                            throw HearthError.pairingFailed(
                                "the secure listener answered HTTP \(response.status.code) to \(path)"
                            )
                        }
                        return tlv
                    }
                } catch let error as HearthError {
                    throw error
                } catch {
                    throw .malformedResponse(status: 0, "the secure listener's answer could not be read")
                }
                guard let bytes = await iterator.next() else {
                    throw .unreachable(address, "the hub closed the connection during \(path)")
                }
                parser.append(Array(bytes.readableBytesView))
            }
        }
    }

    /// The routing id of a hub's key: the first 16 bytes of its SHA-256 as lowercase hex.
    public static func routingID(of publicKey: [UInt8]) -> String {
        hex(Array(SHA256.hash(data: publicKey).prefix(16)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }

    static func bytes(hex text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let byte = UInt8(String(decoding: characters[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}

/// The relay forwarders of this process, one per relay and home, started when first needed and kept running.
actor RelayForwarders {
    /// The process's forwarders.
    static let shared = RelayForwarders()
    private var running: [String: ClientForwarder] = [:]

    /// The local port whose connections become streams to `route` through `relay`, trusting `certificates` (PEM)
    /// for a `wss://` relay when given, else the system's authorities.
    func port(relay: String, route: RouteID, certificates: String? = nil) async throws -> Int {
        let key = relay + " " + route.hex + " " + (certificates ?? "")
        if let forwarder = running[key] { return forwarder.port }
        var configuration = ClientForwarder.Configuration(relayURL: relay, route: route)
        if let certificates { configuration.tls = try RelayTrust.configuration(trustingPEM: certificates) }
        let forwarder = try await ClientForwarder(configuration: configuration)
        running[key] = forwarder
        Task { await forwarder.run() }
        return forwarder.port
    }
}

/// A local listener on `127.0.0.1:0` that carries each local connection to the hub's secure listener: it checks
/// the per-process secret in the first request head's `X-Hearth-Tunnel` header (else closes), runs pair-verify
/// with the stored keys and splices the bytes through the session cipher both ways.
public final class SecureTunnel: Sendable {
    /// The header a local request must carry, with ``secret``.
    public static let header = "X-Hearth-Tunnel"
    /// The base URL of the local end, `http://127.0.0.1:<port>`.
    public let url: String
    /// The per-process random secret local connections must show.
    public let secret: String
    private let listener: ByteListener

    private init(url: String, secret: String, listener: ByteListener) {
        self.url = url
        self.secret = secret
        self.listener = listener
    }

    /// Starts a tunnel to the hub in `secure`.
    public static func start(_ secure: SecureClientConfiguration) async throws -> SecureTunnel {
        var generator = SystemRandomNumberGenerator()
        let secret = SecureHub.hex((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) })
        // Parsed once for every session; keys that do not parse are refused per connection, as before.
        let keys = try? SecureHub.ClientKeys(secure)
        let listener = try await ByteListener.bind(.tcp(host: "127.0.0.1", port: 0))
        // Each session runs on its local connection's loop, and its connection to the hub too: every step of
        // pair-verify and every spliced chunk continues where its bytes arrived.
        Task {
            await listener.run(onConnectionLoops: true) { await serve($0, secure: secure, keys: keys, secret: secret) }
        }
        return SecureTunnel(url: "http://127.0.0.1:\(listener.port ?? 0)", secret: secret, listener: listener)
    }

    /// Stops listening and ends its open sessions.
    public func stop() async {
        listener.close()
    }

    /// Carries one local connection.
    static func serve(
        _ local: ByteConnection,
        secure: SecureClientConfiguration,
        keys parsed: SecureHub.ClientKeys? = nil,
        secret: String
    ) async {
        defer { local.close() }
        var localIterator = local.received.makeAsyncIterator()
        var head: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        while !contains(head, end) {
            guard head.count <= 16 * 1024, let bytes = await localIterator.next() else { return }
            head.append(contentsOf: bytes.readableBytesView)
        }
        guard let shown = headerValue(in: head, named: header), ConstantTime.equal(shown, secret) else { return }
        let remote: ByteConnection
        let keys: SessionKeys
        do {
            (remote, keys) = try await SecureHub.openSession(secure, keys: parsed, on: local.channel.eventLoop)
        } catch {
            // Answered, not just closed: a client waiting for its response (a WebSocket upgrade above all) hears
            // why at once instead of waiting on a connection that ended without one.
            try? await local.write(unreachableResponse(error))
            return
        }
        defer { remote.close() }
        var sealer = SessionCipher(keys: keys, role: .controller)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var opener = SessionCipher(keys: keys, role: .controller)
                // Remote to local: open every frame; a frame that does not open ends the session.
                for await bytes in remote.received {
                    guard let plaintext = try? opener.open(Array(bytes.readableBytesView)) else { break }
                    guard (try? await local.write(plaintext)) != nil else { break }
                }
                local.close()
            }
            do {
                try await remote.write(sealer.seal(head))
                while let bytes = await localIterator.next() {
                    try await remote.write(sealer.seal(Array(bytes.readableBytesView)))
                }
            } catch {}
            remote.close()
            await group.waitForAll()
        }
    }

    /// A 502 answer carrying `error` as the API's error body, for a local request the hub could not be reached for.
    static func unreachableResponse(_ error: HearthError) -> [UInt8] {
        let detail = ErrorBody(error: .init(code: error.code, message: error.message))
        let body = (try? JSONEncoder().encode(detail)) ?? Data()
        let head =
            "HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + Array(body)
    }

    static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count else { return false }
        for start in 0...(bytes.count - pattern.count) where bytes[start..<start + pattern.count].elementsEqual(pattern)
        {
            return true
        }
        return false
    }

    /// The value of header `name` in a request head, or `nil`.
    static func headerValue(in head: [UInt8], named name: String) -> String? {
        let text = String(decoding: head, as: UTF8.self)
        for line in text.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

}

extension HearthError {
    /// Pairing with the hub failed.
    static func pairingFailed(_ message: String) -> HearthError {
        HearthError(status: 0, code: "pairingFailed", message: message)
    }
}
