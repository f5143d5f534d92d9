import Foundation
import HearthAPI
import HubServer
import HummingbirdTLS
import Logging
import Relay
import TestFixtures
import TestSupport
import Testing

@testable import HearthKit

/// A `wss://` relay whose certificate no system authority signed (`hearthd --relay-ca`, `hearth login --relay-ca`):
/// the hub's link and a client trust exactly the given certificates, and the hub tells its clients which.
@Suite(.serialized) struct RelayTrustTests {
    /// A logger that says nothing below critical.
    static var quiet: Logger {
        var logger = Logger(label: "test.relay-trust")
        logger.logLevel = .critical
        return logger
    }

    @Test(
        .enabled(
            if: SelfSignedCertificate.openssl != nil,
            "openssl is not installed (it makes the test's relay certificate)"
        )
    )
    func aClientTrustsTheRelaysOwnCertificateAndTheHubTellsIt() async throws {
        let folder = NSTemporaryDirectory() + "relay-trust-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (certificatePEM, keyPEM) = try await offThePool { () throws -> (String, String) in
            let (certificatePath, keyPath) = try SelfSignedCertificate.make(in: folder)
            return (
                try String(contentsOfFile: certificatePath, encoding: .utf8),
                try String(contentsOfFile: keyPath, encoding: .utf8)
            )
        }

        // The relay over TLS with its self-signed certificate.
        var relayConfiguration = RelayServer.Configuration(host: "127.0.0.1", port: 0)
        relayConfiguration.tls = .makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
        )
        let logger = Self.quiet
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try RelayServer(configuration: relayConfiguration, logger: logger).makeApplication {
            continuation.yield($0.localAddress?.port ?? 0)
            continuation.finish()
        }
        let relayTask = Task { try await application.run() }
        defer { relayTask.cancel() }
        var iterator = ports.makeAsyncIterator()
        // A name, not an address: TLS sends the host as SNI and checks it against the certificate.
        let relayURL = "wss://localhost:\(await iterator.next() ?? 0)"

        let fixture = try await KitFixture()
        try await SecureChannelTests().withServers(
            fixture,
            configure: {
                $0.relayURL = relayURL
                $0.relayCertificates = certificatePEM
            }
        ) { url, address, server in
            let identity = try #require(server.identity)
            var linkConfiguration = HubLink.Configuration(
                relayURL: relayURL,
                identity: identity.signingKey,
                targetHost: "127.0.0.1",
                targetPort: RelayAccessTests.port(of: address)
            )
            linkConfiguration.tls = try RelayTrust.configuration(trustingPEM: certificatePEM)
            linkConfiguration.initialBackoff = .milliseconds(50)
            let link = HubLink(configuration: linkConfiguration, logger: logger)
            let linkTask = Task { await link.run() }
            defer { linkTask.cancel() }
            #expect(await eventually(timeout: .seconds(20)) { link.isConnected }, "the hub's link trusted the relay")

            func invite() async throws -> String {
                try await fixture.credentials.createInvite(
                    home: fixture.homeID,
                    role: .administrator,
                    invitedBy: fixture.owner.id,
                    lifetime: 3600
                ).1
            }
            // Without the certificate the relay is not trusted: the pairing fails, no session.
            await #expect(throws: HearthError.self) {
                _ = try await SecureHub.pair(
                    address: "",
                    relay: relayURL,
                    route: link.route.hex,
                    code: try await invite(),
                    name: "Untrusting Ulla"
                )
            }
            // With it, pairing and calls go through the relay; the configuration keeps the certificates.
            let secure = try await SecureHub.pair(
                address: "",
                relay: relayURL,
                route: link.route.hex,
                code: try await invite(),
                name: "Trusting Tove",
                relayCertificates: certificatePEM
            )
            #expect(secure.relayCertificates == certificatePEM)
            let tunnel = try await SecureTunnel.start(secure)
            let client = HearthClient(tunnel: tunnel)
            #expect(try await client.me().user.name == "Trusting Tove")
            // The hub tells its clients the relay and the certificates it trusts it with.
            let told = try await client.hubIdentity()
            #expect(told.relay == relayURL && told.relayCertificates == certificatePEM)
            await tunnel.stop()
            // Certificates that are not PEM are a sentence, not a hang.
            var broken = secure
            broken.relayCertificates = "not a certificate"
            broken.address = ""
            await #expect(throws: HearthError.self) { _ = try await SecureHub.openSession(broken) }
            _ = url
        }
    }

    @Test func aRelayURLIsCheckedBeforeAnythingConnects() async throws {
        #expect(RelayURL.problem("wss://relay.example.org") == nil)
        #expect(RelayURL.problem("wss://relay.example.org:8443/x") == nil)
        #expect(RelayURL.problem("ws://127.0.0.1:7000") == nil)
        #expect(RelayURL.problem("https://relay.example.org")?.hasPrefix("it must be a ws:// or wss:// URL") == true)
        #expect(RelayURL.problem("wss://:443")?.hasPrefix("it names no host") == true)
        for url in ["wss://127.0.0.1:8443", "wss://[::1]:8443", "wss://192.0.2.7"] {
            #expect(RelayURL.problem(url)?.contains("not an IP address") == true, "\(url)")
        }
        // Pairing through such a relay is refused before any connection, with the sentence.
        do {
            _ = try await SecureHub.pair(
                address: "",
                relay: "wss://127.0.0.1:9",
                route: String(repeating: "a", count: 32),
                code: "123-45-678"
            )
            Issue.record("pairing through wss://127.0.0.1:9 was not refused")
        } catch {
            #expect(error.code == "invalidRequest")
            #expect(error.message.contains("TLS to a relay needs the host name"), "\(error.message)")
        }
    }
}
