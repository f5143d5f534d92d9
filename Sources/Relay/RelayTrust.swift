import NIOCore
import NIOSSL

/// Trust for a `wss://` relay whose certificate no system authority signed (a private CA, or the relay's own
/// self-signed certificate): its hub link and client forwarders trust exactly the given certificates.
public enum RelayTrust {
    /// A failure to read the certificates, as a sentence.
    public struct Failure: Error, CustomStringConvertible {
        /// The sentence.
        public let description: String
    }

    /// A client TLS configuration that trusts only the certificates in `pem` (one or more PEM blocks).
    public static func configuration(trustingPEM pem: String) throws(Failure) -> TLSConfiguration {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
            throw Failure(description: "it holds no certificate in PEM form (-----BEGIN CERTIFICATE-----)")
        }
        guard !certificates.isEmpty else {
            throw Failure(description: "it holds no certificate in PEM form (-----BEGIN CERTIFICATE-----)")
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(certificates)
        return configuration
    }
}

/// Checking a relay's URL before anything connects to it.
public enum RelayURL {
    /// Why `url` cannot name a relay, as a sentence without its subject ("it must be …"), or `nil` when it can.
    ///
    /// A `wss://` URL needs a host name: TLS names the server it wants in SNI, which cannot carry an IP address, so
    /// such a link would fail on every attempt.
    public static func problem(_ url: String) -> String? {
        let scheme: String
        if url.hasPrefix("wss://") {
            scheme = "wss"
        } else if url.hasPrefix("ws://") {
            scheme = "ws"
        } else {
            return "it must be a ws:// or wss:// URL, such as wss://relay.example.org"
        }
        let authority = url.dropFirst(scheme.count + 3).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host =
            authority.hasPrefix("[")
            ? authority.dropFirst().prefix { $0 != "]" } : authority.prefix { $0 != ":" }
        guard !host.isEmpty else { return "it names no host; use ws://HOST:PORT or wss://HOST:PORT" }
        if scheme == "wss", (try? SocketAddress(ipAddress: String(host), port: 0)) != nil {
            return "TLS to a relay needs the host name its certificate is for (wss://relay.example.org), not an IP "
                + "address, which TLS cannot send as the server's name"
        }
        return nil
    }
}
