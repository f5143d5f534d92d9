import Crypto
import Foundation
import HubServer
import SwiftASN1
import TestSupport
import Testing
import X509

/// The web app over TLS (docs/remote-access.md): the certificate the hub makes for itself, kept and renewed, and
/// `hearthd`'s TLS listener driven by headless Chromium that trusts only that certificate's key.
@Suite struct WebCertificateTests {
    /// A fresh folder for one test's certificate files.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "web-cert-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The hosts a PEM certificate names, and the certificate.
    static func read(_ path: String) throws -> Certificate {
        try Certificate(pemEncoded: String(contentsOfFile: path, encoding: .utf8))
    }

    @Test func theHubMakesACertificateForItsAddressesAndKeepsIt() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (certificatePath, keyPath) = (folder + "/web-tls.pem", folder + "/web-tls.key")
        let hosts = ["192.0.2.7", "fd00::7", "hub.local"]
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let made = try WebCertificate.loadOrCreate(
            certificatePath: certificatePath,
            keyPath: keyPath,
            hosts: hosts,
            now: now
        )
        let certificate = try Self.read(certificatePath)
        let names = try #require(try certificate.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("hub.local")))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [192, 0, 2, 7]))))
        #expect(
            names.contains(
                .ipAddress(ASN1OctetString(contentBytes: [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7]))
            )
        )
        #expect(try certificate.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try certificate.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        #expect(certificate.notValidAfter.timeIntervalSince(now) == WebCertificate.lifetime)
        // The fingerprint is SHA-256 of the DER, as browsers show it.
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        #expect(made.fingerprint == WebCertificate.fingerprint(der: serializer.serializedBytes))
        #expect(made.fingerprint.split(separator: ":").count == 32)
        // The key is the owner's secret: mode 0600.
        let mode = try #require(FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int)
        #expect(mode == 0o600)

        // The next start keeps it, also for fewer hosts.
        let again = try WebCertificate.loadOrCreate(
            certificatePath: certificatePath,
            keyPath: keyPath,
            hosts: ["192.0.2.7"],
            now: now.addingTimeInterval(86_400)
        )
        #expect(again.fingerprint == made.fingerprint)
        // A new address, or a certificate about to expire, is a new certificate.
        let moved = try WebCertificate.loadOrCreate(
            certificatePath: certificatePath,
            keyPath: keyPath,
            hosts: ["192.0.2.8"],
            now: now
        )
        #expect(moved.fingerprint != made.fingerprint)
        let late = now.addingTimeInterval(WebCertificate.lifetime - WebCertificate.renewal + 60)
        let renewed = try WebCertificate.loadOrCreate(
            certificatePath: certificatePath,
            keyPath: keyPath,
            hosts: ["192.0.2.8"],
            now: late
        )
        #expect(renewed.fingerprint != moved.fingerprint)
        #expect(try Self.read(certificatePath).notValidAfter.timeIntervalSince(late) == WebCertificate.lifetime)
        // A damaged file is replaced, not fatal.
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: certificatePath))
        let replaced = try WebCertificate.loadOrCreate(
            certificatePath: certificatePath,
            keyPath: keyPath,
            hosts: ["192.0.2.8"],
            now: late
        )
        #expect(replaced.fingerprint != renewed.fingerprint)
    }

    @Test(.enabled(if: NetworkNamespace.isAvailable)) func aWildcardListenerIsShownAtAnAddressBrowsersReach() throws {
        // In namespaces of the test's own: one side has 198.18.90.1 on a veth, besides loopback.
        let (inside, other) = try NetworkNamespace.makeVethPair()
        defer {
            inside.delete()
            other.delete()
        }
        let group = try inside.makeEventLoopGroup()
        defer { try? group.syncShutdownGracefully() }
        let hosts = try group.next().submit {
            ["0.0.0.0", "::", "192.0.2.7"].map { HubServer.reachableHost(bound: $0) }
        }.wait()
        #expect(hosts == ["198.18.90.1", "198.18.90.1", "192.0.2.7"])
        // With loopback only, the wildcard is shown as loopback, never as 0.0.0.0.
        let lonely = try NetworkNamespace.makeLoopback()
        defer { lonely.delete() }
        let lonelyGroup = try lonely.makeEventLoopGroup()
        defer { try? lonelyGroup.syncShutdownGracefully() }
        let host = try lonelyGroup.next().submit { HubServer.reachableHost(bound: "0.0.0.0") }.wait()
        #expect(host == "127.0.0.1")
    }

    @Test func anOwnersCertificateThatCannotBeReadIsASentence() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            _ = try WebCertificate.load(certificatePath: folder + "/missing.pem", keyPath: folder + "/missing.key")
            Issue.record("a missing certificate was accepted")
        } catch {
            #expect(error.description.hasPrefix("could not read the TLS certificate or key"))
        }
        try Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8)
            .write(to: URL(fileURLWithPath: folder + "/bad.pem"))
        try Data("junk".utf8).write(to: URL(fileURLWithPath: folder + "/bad.key"))
        do {
            _ = try WebCertificate.load(certificatePath: folder + "/bad.pem", keyPath: folder + "/bad.key")
            Issue.record("a damaged certificate was accepted")
        } catch {
            #expect(error.description.contains("bad.pem"))
            #expect(!error.description.contains("Failure("))
        }
    }
}

/// `hearthd --demo --tls-address 127.0.0.1`: the page and the API over TLS, checked in headless Chromium.
@Suite(
    .serialized,
    .enabled(
        if: HeadlessChromium.isAvailable,
        "run scripts/bootstrap.sh (chromium, chromium-driver) and scripts/setup-peers.sh (selenium)"
    )
)
struct WebPageTLSTests {
    /// What the driver must report as passed.
    static let checks = [
        "an untrusted certificate shows no page", "sign in over TLS",
        "the session cookie is Secure, HttpOnly and SameSite=Strict", "a change appears over wss within a second",
        "toggle a light over TLS",
    ]

    @Test(.timeLimit(.minutes(5))) func thePageWorksOverTLSWithTheHubsOwnCertificate() async throws {
        let state = NSTemporaryDirectory() + "hearthd-tls-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (hub, printed) = try await offThePool { () throws -> (ChildProcess, String) in
            let hub = try ChildProcess(
                BuiltProducts.path("hearthd"),
                [
                    "--demo", "--state", state, "--port", "0", "--remote-port", "0", "--tls-address", "127.0.0.1",
                    "--tls-port", "0", "--no-user-config", "--log-level", "warning",
                ],
                timeout: 300
            )
            // The listeners start side by side, so the TLS line may come before or after the welcome's last line.
            var printed = ""
            var welcomed = false
            while printed.isEmpty || !welcomed {
                let line = try hub.readLine()
                if line.contains("web app over TLS on") { printed = line }
                if line.hasPrefix("Stop with") { welcomed = true }
            }
            return (hub, printed)
        }
        defer { hub.terminate() }
        let url = try #require(printed.split(separator: " ").first { $0.hasPrefix("https://") }.map(String.init))
        let port = try #require(Int(url.split(separator: ":").last?.filter(\.isNumber) ?? ""))

        // A TLS handshake that stops half-way is closed at the head timeout (10 s), not kept open.
        let halfway = try RawSocket(port: port)
        try halfway.send([0x16, 0x03, 0x01, 0x00, 0x40, 0x01])
        let halfwayOpened = ContinuousClock.now

        // Plain HTTP to the TLS port gets no HTTP answer: the server closes (after a TLS alert at most).
        let plain = try RawSocket(port: port)
        try plain.send("GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let answer = await plain.readUntilClosed(timeout: .seconds(15))
        #expect(answer.closed)
        #expect(!String(decoding: answer.bytes, as: UTF8.self).contains("HTTP/"))

        // TLS 1.2 and later only (RFC 8996): an old client gets no handshake.
        if SelfSignedCertificate.openssl != nil {
            #expect(try await offThePool { try SelfSignedCertificate.handshakes(port: port, version: "-tls1_2") })
            #expect(
                try await offThePool { try SelfSignedCertificate.handshakes(port: port, version: "-tls1_1") } == false
            )
        }

        let (_, halfwayClosed) = await halfway.readUntilClosed(timeout: .seconds(30))
        #expect(halfwayClosed, "a half-finished TLS handshake kept its connection")
        #expect(ContinuousClock.now - halfwayOpened < .seconds(25))

        // hearthd prints the certificate's fingerprint; `hearth web` tells it with the URL, from the hub's API.
        let certificate = try WebCertificateTests.read(state + "/web-tls.pem")
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let fingerprint = WebCertificate.fingerprint(der: serializer.serializedBytes)
        #expect(printed.hasSuffix("(certificate SHA-256 \(fingerprint))"), "\(printed)")
        let (web, webJSON) = try await offThePool { () throws -> (String, String) in
            let arguments = ["web", "--config", state + "/client.json"]
            return (try Self.output(of: arguments), try Self.output(of: arguments + ["--json"]))
        }
        #expect(web.contains("On the home network: \(url)"), "\(web)")
        #expect(web.contains(fingerprint), "\(web)")
        let identity = try #require(try JSONSerialization.jsonObject(with: Data(webJSON.utf8)) as? [String: Any])
        #expect(identity["webCertificateFingerprint"] as? String == fingerprint)
        #expect(identity["webURL"] as? String == url, "\(identity)")

        // The page in Chromium that trusts only this certificate's key.
        let client = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: state + "/client.json"))
        )
        let api = try #require((client as? [String: Any])?["url"] as? String)
        var keySerializer = DER.Serializer()
        try keySerializer.serialize(certificate.publicKey)
        let spki = Data(SHA256.hash(data: keySerializer.serializedBytes)).base64EncodedString()
        let reports = try await offThePool { () throws -> [String: WebPageBrowserTests.Report] in
            try WebPageBrowserTests.reports(
                of: "tls_page_check.py",
                ["--url", url, "--api", api, "--state", state, "--spki", spki]
            )
        }
        for name in Self.checks {
            let report = reports[name]
            #expect(report?.ok == true, "\(name): \(report?.detail ?? "not reported")")
        }
    }

    /// What `hearth` with `arguments` writes to stdout.
    static func output(of arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path("hearth"))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
