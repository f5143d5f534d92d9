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
