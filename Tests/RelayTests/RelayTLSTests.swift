import Foundation
import NIOSSL
import TestSupport
import Testing

@testable import Relay

/// The relay over TLS (`wss://`) with a certificate it is given, and its hub link and client forwarder trusting it.
@Suite struct RelayTLSTests {
    @Test(
        .enabled(
            if: SelfSignedCertificate.openssl != nil,
            "openssl is not installed (it makes the test's self-signed certificate)"
        )
    )
    func streamsCrossATLSRelay() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("relay-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificatePath, keyPath) = try await offThePool { try SelfSignedCertificate.make(in: folder.path) }
        let certificate = try NIOSSLCertificate(file: certificatePath, format: .pem)
        let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)

        let relay = try await RunningRelay.start {
            $0.tls = .makeServerConfiguration(
                certificateChain: [.certificate(certificate)],
                privateKey: .privateKey(key)
            )
        }
        defer { Task { await relay.stop() } }
        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .certificates([certificate])
        // A name, not an address: TLS sends the host as SNI, which may not be an IP address.
        let url = "wss://localhost:\(relay.port)"

        let echo = try await EchoServer.start()
        defer { echo.stop() }
        var hubConfiguration = HubLink.Configuration(
            relayURL: url,
            identity: .init(),
            targetHost: "127.0.0.1",
            targetPort: echo.port
        )
        hubConfiguration.tls = trusting
        hubConfiguration.initialBackoff = .milliseconds(50)
        let link = HubLink(configuration: hubConfiguration, logger: quietLogger("test.hub"))
        let hubTask = Task { await link.run() }
        defer { hubTask.cancel() }
        try await waitUntil("the hub link over TLS", timeout: .seconds(30)) { link.isConnected }

        var clientConfiguration = ClientForwarder.Configuration(relayURL: url, route: link.route)
        clientConfiguration.tls = trusting
        let forwarder = try await ClientForwarder(configuration: clientConfiguration, logger: quietLogger("test.fwd"))
        let running = Task { await forwarder.run() }
        defer { running.cancel() }
        let message = Array("sealed bytes over TLS".utf8)
        #expect(try await roundTrip(port: forwarder.port, message) == message)

        // TLS 1.2 and later only (RFC 8996): an old client gets no handshake.
        let port = relay.port
        #expect(try await offThePool { try SelfSignedCertificate.handshakes(port: port, version: "-tls1_2") })
        #expect(try await offThePool { try SelfSignedCertificate.handshakes(port: port, version: "-tls1_1") } == false)

        // Plain WebSocket to the TLS port gets nothing through.
        let plain = TestSocket(url: "ws://127.0.0.1:\(relay.port)/v1/client?route=\(link.route)")
        plain.send([1])
        _ = try? await plain.closeFrame(timeout: .seconds(3))
        #expect(plain.received.isEmpty)
    }
}
